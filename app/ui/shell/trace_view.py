"""The inspector's Trace tab: the call tree of a transaction, the failing frame opened and
selected, "Copy as text", and a failure's source line one double-click from the composer."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.client.traces import render_trace
from app.ui.shell.trace_model import POSITION_ROLE, TraceModel
from app.ui.widgets.common import name_widget


class TraceView(QWidget):
    """Signals: source_requested(str contract, int line, int column): open the composer there."""

    source_requested = Signal(str, int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = TraceModel(self)
        self.tree = QTreeView(self)
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.doubleClicked.connect(self._open)
        self.tree.activated.connect(self._open)
        name_widget(self.tree, "traceTree", "Call trace")
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        name_widget(self.note, "traceNote", "About the call trace")
        self.copy_button = QPushButton("Copy as text", self)
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copy_text)
        name_widget(self.copy_button, "traceCopy", "Copy the trace as text")
        bar = QHBoxLayout()
        bar.addWidget(self.note, 1)
        bar.addWidget(self.copy_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.tree, 1)
        self.show_note("Loading the call trace…")

    def show_note(self, text: str) -> None:
        """No tree: why (still loading, the node keeps no traces, none was kept ...)."""
        self.model.set_trace(None)
        self.copy_button.setEnabled(False)
        self.note.setText(text)

    def show_trace(self, trace: dict[str, Any]) -> None:
        """The tree, expanded down to the failing frame, which is selected."""
        self.model.set_trace(trace)
        self.copy_button.setEnabled(True)
        root = self.model.index(0, 0)
        self.tree.expand(root)
        failing = self.model.failing_index()
        frames = trace.get("frames", 1)
        lead = f"{frames} call frame{'s' if frames != 1 else ''}"
        if trace.get("truncated"):
            lead += f"; cut at the node's size cap ({trace.get('omitted', '?')} items left out)"
        if failing.isValid():
            index = failing
            while index.isValid():
                self.tree.expand(index)
                index = index.parent()
            self.tree.setCurrentIndex(failing)
            self.tree.scrollTo(failing)
            pos = self.model.data(failing, POSITION_ROLE)
            where = f" at {pos[0]} line {pos[1]}" if pos else ""
            lead += f". Failed in the frame marked in red{where}: double-click it to see the line."
        self.note.setText(lead)

    def text(self) -> str:
        return "\n".join(render_trace(self.model.trace or {}))

    def copy_text(self) -> None:
        QGuiApplication.clipboard().setText(self.text())

    def _open(self, index: QModelIndex) -> None:
        pos = self.model.data(index.siblingAtColumn(0), POSITION_ROLE)
        if pos is not None:
            self.source_requested.emit(pos[0], pos[1], pos[2])
