"""What the window remembers across restarts: geometry, dock/toolbar state, every splitter's
sizes and the last panel, in settings.json through the controller (``window`` key).

Qt's byte arrays are kept as base64 strings. Splitters are keyed by objectName, or, for an
unnamed one, by its nearest named ancestor and its rank among that ancestor's unnamed splitters
(stable while the widgets are built in the same order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QEvent, QObject, QTimer
from PySide6.QtWidgets import QSplitter, QWidget

if TYPE_CHECKING:
    from app.ui.shell.main_window import MainWindow

SETTINGS_KEY = "window"


def _b64(data: QByteArray) -> str:
    return bytes(data.toBase64().data()).decode("ascii")


def _bytes(text: object) -> QByteArray | None:
    if not isinstance(text, str) or not text:
        return None
    return QByteArray.fromBase64(text.encode("ascii"))


def splitters(root: QWidget) -> dict[str, QSplitter]:
    """Every splitter under ``root`` by a stable key."""
    found: dict[str, QSplitter] = {}
    ranks: dict[str, int] = {}
    for split in root.findChildren(QSplitter):
        key = split.objectName()
        if not key:
            anchor = split.parentWidget()
            while anchor is not None and not anchor.objectName() and anchor is not root:
                anchor = anchor.parentWidget()
            base = anchor.objectName() if anchor is not None else ""
            rank = ranks.get(base, 0)
            ranks[base] = rank + 1
            key = f"{base}/splitter{rank}"
        found.setdefault(key, split)
    return found


class SplitterRestorer(QObject):
    """Restores a splitter's sizes once it is shown and laid out (a hidden panel's splitter has
    no size yet: restored then, its sizes would be rescaled into the wrong ones)."""

    def __init__(self, split: QSplitter, data: QByteArray) -> None:
        super().__init__(split)
        self.data = data
        if split.isVisible():
            QTimer.singleShot(0, self, self._apply)
        else:
            split.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self, self._apply)
        return False

    def _apply(self) -> None:
        split = self.parent()
        if isinstance(split, QSplitter):
            split.restoreState(self.data)
            # the user's position, as if dragged again: a panel that fits its divider to its
            # content until the user drags it (tables, composer) leaves it where it is
            sizes = split.sizes()
            if len(sizes) > 1:
                split.splitterMoved.emit(sizes[0], 1)
        self.deleteLater()


USER_SIZED = "userSized"  # a splitter's property: the user dragged it (its sizes are kept)


def track(window: QWidget) -> None:
    """Mark each splitter the user drags: only those are remembered (a splitter never dragged
    keeps the layout its panel gives it, which may change with the app)."""
    for split in splitters(window).values():
        if not split.property("userSizedTracked"):
            split.setProperty("userSizedTracked", True)
            split.splitterMoved.connect(
                lambda _pos, _index, s=split: s.setProperty(USER_SIZED, True)
            )


def capture(window: MainWindow) -> dict[str, Any]:
    """The state to remember, as JSON-friendly values."""
    return {
        "geometry": _b64(window.saveGeometry()),
        "state": _b64(window.saveState()),
        "splitters": {
            k: _b64(s.saveState()) for k, s in splitters(window).items() if s.property(USER_SIZED)
        },
        "panel": str(getattr(window.stack.currentWidget(), "title", "")),
    }


def restore(window: MainWindow, saved: object) -> bool:
    """Apply what :func:`capture` gave (partly or wrongly saved values are skipped)."""
    if not isinstance(saved, dict):
        return False
    geometry = _bytes(saved.get("geometry"))
    if geometry is not None:
        window.restoreGeometry(geometry)
    state = _bytes(saved.get("state"))
    if state is not None:
        window.restoreState(state)
        if window.inspector.isVisibleTo(window):  # its height is the user's: keep it
            window.inspector.first_show_sizing = False
        if window.debug_dock.isVisibleTo(window):
            window.debug_dock.first_show_sizing = False
    track(window)
    stored = saved.get("splitters")
    if isinstance(stored, dict):
        for key, split in splitters(window).items():
            data = _bytes(stored.get(key))
            if data is not None:
                SplitterRestorer(split, data)
    panel = saved.get("panel")
    for i, p in enumerate(window.panels):
        if panel and str(getattr(p, "title", "")) == panel:
            window.nav.setCurrentRow(i)
            break
    return True
