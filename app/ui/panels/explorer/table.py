"""The Explorer's table view: rows inserted above the viewport keep the viewport where it was.

Qt keeps the scroll bar's value (the top row's index) when rows are inserted above it, so the
content would jump down by the rows inserted; this view moves the bar by as many rows, so the
blocks on screen stay on screen. At the very top it stays at the top: new rows slide in."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from app.ui.widgets.common import copy_text

COPY_ROLE = Qt.ItemDataRole.UserRole + 9  # a cell's whole value (a hash in full), if not shown


class ExplorerTable(QTableView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerItem)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        self.setTabKeyNavigation(False)
        vh = self.verticalHeader()
        vh.setVisible(False)
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(self.fontMetrics().height() + 8)
        hh = self.horizontalHeader()
        hh.setHighlightSections(False)
        hh.setStretchLastSection(True)
        hh.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        copy = QAction("Copy", self)
        copy.triggered.connect(self.copy)
        self.addAction(copy)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)

    def copy(self) -> None:
        """The current cell's whole value (a hash or address in full, not as shown short)."""
        index = self.currentIndex()
        if not index.isValid():
            return
        value = index.data(COPY_ROLE) or index.data()
        if value and value != "…":
            header = self.model().headerData(index.column(), Qt.Orientation.Horizontal)
            copy_text(str(value), self.viewport(), str(header or "Value"))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy()
            return
        super().keyPressEvent(event)

    def rowsInserted(
        self, parent: QModelIndex | QPersistentModelIndex, start: int, end: int
    ) -> None:
        super().rowsInserted(parent, start, end)
        bar = self.verticalScrollBar()
        top = bar.value()
        if parent.isValid() or start > top or top == 0:
            return
        self.updateGeometries()  # the bar's range now counts the new rows
        bar.setValue(top + end - start + 1)
