"""Window and dialog sizes that fit the screen's available area (the desktop less its panels),
frame and title bar included: a window manager adds them around the client area Qt sizes, so
a client area as tall as the screen puts the status bar below it.

Pure geometry on given rectangles (testable without a screen); the widgets call it with their
screen's ``availableGeometry`` and, once the window manager framed them, their real frame.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QMargins,
    QObject,
    QPoint,
    QRect,
    QSize,
    Qt,
    QTimer,
)
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QDockWidget, QMainWindow, QWidget

PREFERRED = QSize(1100, 760)
# a title bar and borders before the window manager said (typical of openbox, xfwm, mutter)
ESTIMATED_FRAME = QMargins(4, 30, 4, 4)


def frame_margins(frame: QRect, client: QRect) -> QMargins:
    """What the window manager adds on each side of the client area (none: zero margins)."""
    m = QMargins(
        client.left() - frame.left(),
        client.top() - frame.top(),
        frame.right() - client.right(),
        frame.bottom() - client.bottom(),
    )
    if min(m.left(), m.top(), m.right(), m.bottom()) < 0:
        return QMargins()
    return m


def start_size(available: QRect, frame: QMargins, preferred: QSize = PREFERRED) -> QSize:
    """The client size to open with: ``preferred``, less where the available area with the
    frame around it is smaller."""
    room = QSize(
        available.width() - frame.left() - frame.right(),
        available.height() - frame.top() - frame.bottom(),
    )
    return preferred.boundedTo(room)


def fit_into(available: QRect, frame: QMargins, client: QRect, minimum: QSize) -> QRect:
    """The client geometry (moved, then shrunk down to ``minimum``) whose framed rectangle
    lies inside ``available``; ``client`` unchanged when it does already."""
    size = client.size().boundedTo(start_size(available, frame, client.size()))
    size = size.expandedTo(minimum)
    outer = QRect(
        QPoint(client.left() - frame.left(), client.top() - frame.top()),
        QSize(
            size.width() + frame.left() + frame.right(),
            size.height() + frame.top() + frame.bottom(),
        ),
    )
    # move the framed rectangle inside: right/bottom edges first, then left/top win
    x = min(outer.left(), available.right() + 1 - outer.width())
    y = min(outer.top(), available.bottom() + 1 - outer.height())
    x, y = max(x, available.left()), max(y, available.top())
    return QRect(QPoint(x + frame.left(), y + frame.top()), size)


def available_of(widget: QWidget) -> QRect | None:
    """The widget's screen's available area; None on the offscreen platform (tests), whose
    nominal 800x600 screen is no desk."""
    if QGuiApplication.platformName() == "offscreen":
        return None
    screen = widget.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return None
    area = screen.availableGeometry()
    return area if area.width() > 0 and area.height() > 0 else None


def keep_on_screen(widget: QWidget, available: QRect | None = None) -> bool:
    """Move and shrink a shown top-level widget so that it and its frame are on the screen;
    True when it changed."""
    area = available if available is not None else available_of(widget)
    if area is None or widget.isMaximized() or widget.isFullScreen():
        return False
    frame = frame_margins(widget.frameGeometry(), widget.geometry())
    framed = not frame.isNull()
    if not framed:
        frame = ESTIMATED_FRAME  # not framed yet: assume a title bar
    here = widget.geometry()
    target = fit_into(area, frame, here, widget.minimumSize())
    if target.size() != here.size():
        widget.setGeometry(target)  # too large for the screen: smaller, and moved
        return True
    if target.topLeft() != here.topLeft() and framed:
        # only moved: its size stays its own (a dialog keeps following its layout); before
        # the window manager placed it, its position is not final yet
        widget.move(target.left() - frame.left(), target.top() - frame.top())
        return True
    return False


class DialogFitter(QObject):
    """An application-wide event filter: a dialog that opens or grows past the screen's
    available area (a form that shows more fields, a dialog centred on a tall window) is moved
    and shrunk back onto it, frame included."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() in (QEvent.Type.Show, QEvent.Type.Resize)
            and isinstance(watched, QDialog)
            and watched.isWindow()
        ):
            QTimer.singleShot(0, watched, lambda: keep_on_screen(watched))
        return False


def fit_dialogs(app: QCoreApplication) -> DialogFitter:
    """Install :class:`DialogFitter` on ``app`` (kept alive as the app's child)."""
    fitter = DialogFitter(app)
    app.installEventFilter(fitter)
    return fitter


def log_dock_height(window_height: int, line_height: int, lines: int = 8) -> int:
    """A log dock's height when first shown: a few lines, at most a quarter of the window (a
    log of one line must not take the panel's room)."""
    wanted = line_height * lines + 2 * line_height  # the lines and the dock's title
    return max(3 * line_height, min(wanted, window_height // 4))


def size_dock_on_first_show(window: QMainWindow, dock: QDockWidget, lines: int = 8) -> None:
    """Shrink ``dock`` to :func:`log_dock_height` the first time it shows docked at the top
    or bottom (a taller size the user gave it later is kept)."""

    def shown(visible: bool) -> None:
        if not visible or dock.isFloating():
            return
        dock.visibilityChanged.disconnect(shown)
        area = window.dockWidgetArea(dock)
        if area not in (
            Qt.DockWidgetArea.BottomDockWidgetArea,
            Qt.DockWidgetArea.TopDockWidgetArea,
        ):
            return
        target = log_dock_height(window.height(), dock.fontMetrics().lineSpacing(), lines)
        QTimer.singleShot(
            0, dock, lambda: window.resizeDocks([dock], [target], Qt.Orientation.Vertical)
        )

    dock.visibilityChanged.connect(shown)
