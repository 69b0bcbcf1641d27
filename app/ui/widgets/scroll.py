"""Scrolling instead of clipping: content whose minimum size would grow (or squash) its dialog or
panel on a small screen scrolls inside the space it gets."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget


def scroll_area(content: QWidget, name: str = "") -> QScrollArea:
    """``content`` in a frameless scroll area that resizes it: it fills the area when there is
    room and scrolls (instead of being squeezed) below its minimum size."""
    area = QScrollArea(content.parentWidget())
    area.setWidget(content)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the content, not the frame
    if name:
        area.setObjectName(name)
    return area


def scrolling_panel(panel: QWidget, content: QWidget, name: str) -> QScrollArea:
    """Make ``content`` the whole of ``panel``, in a scroll area: a panel that scrolls on a small
    screen (or under a dock) instead of squashing its rows into each other."""
    area = scroll_area(content, name)
    outer = QVBoxLayout(panel)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(area)
    return area


def fit_to_screen(window: QWidget, width: int, height: int) -> None:
    """Resize a top-level window to ``width`` x ``height``, or less on a smaller screen (room
    is left for the title bar and the panel of the desktop)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is not None:
        room = screen.availableGeometry()
        width = min(width, room.width() - 40)
        height = min(height, room.height() - 60)
    window.resize(max(width, window.minimumWidth()), max(height, window.minimumHeight()))
