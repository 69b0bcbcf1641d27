"""Keyboard helpers for GUI tests: what Tab visits, as a user pressing it sees."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QWidget
from pytestqt.qtbot import QtBot


def tab_through(qtbot: QtBot, root: QWidget, start: QWidget, stop: QWidget) -> list[QWidget]:
    """Press Tab from ``start`` until ``stop`` has the focus: the widgets visited (a combo or
    spin box, not the line edit inside it)."""
    root.window().activateWindow()
    qtbot.waitUntil(root.window().isActiveWindow)
    start.setFocus()
    qtbot.waitUntil(start.hasFocus)
    seen = [start]
    for _ in range(60):
        focus = QApplication.focusWidget()
        assert focus is not None
        qtbot.keyClick(focus, Qt.Key.Key_Tab)
        focus = QApplication.focusWidget()
        assert focus is not None
        outer = focus.parentWidget()
        if isinstance(outer, (QComboBox, QAbstractSpinBox)):
            focus = outer  # not the line edit inside it
        seen.append(focus)
        if focus is stop:
            return seen
    raise AssertionError(f"Tab never reached {stop.objectName()}: {seen}")
