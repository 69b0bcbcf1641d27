""" "Discard what you typed?": the question a dialog asks before closing over unsaved input."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def ask_discard(
    parent: QWidget, title: str, text: str, on_discard: Callable[[], None]
) -> QMessageBox:
    """Open (not exec) the question over ``parent``; "Keep editing" is the default and Escape,
    so only a deliberate "Discard" calls ``on_discard``."""
    box = QMessageBox(parent)
    box.setObjectName("discardQuestion")
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    box.setText(text)
    discard = box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
    discard.setObjectName("discardYes")
    keep = box.addButton("Keep editing", QMessageBox.ButtonRole.RejectRole)
    keep.setObjectName("discardNo")
    box.setDefaultButton(keep)
    box.setEscapeButton(keep)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.finished.connect(lambda _code: on_discard() if box.clickedButton() is discard else None)
    box.open()
    return box
