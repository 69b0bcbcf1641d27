"""The chain's blocks, newest first, as a lazy table: one row per block number (row 0 is the
head), the rows on screen read a page of 100 numbers at a time.

New blocks are inserted at row 0 (``beginInsertRows``), so selections and persistent indexes
follow their blocks; the view keeps its viewport on the same blocks (``ExplorerTable``)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from app.services.explorer import PAGE, BlockRow, ExplorerService
from app.ui.panels.explorer.list_tools import Clock, exact, parse_time, relative
from app.ui.panels.explorer.paging import Pages, Starter
from app.ui.panels.explorer.table import COPY_ROLE

COLUMNS = ("Block", "Hash", "Time", "Txns", "Size", "Gas used")  # (short: all fit at 1024x640)
HEADER_TIPS = {"Txns": "Transactions in the block", "Size": "The block as the node serves it"}
NUMBER_ROLE = Qt.ItemDataRole.UserRole + 1  # the row's block number
PLACEHOLDER = "…"

Index = QModelIndex | QPersistentModelIndex


class BlocksModel(QAbstractTableModel):
    """Signals: failed(str): a read failed (a sentence); loaded(): a page arrived."""

    failed = Signal(str)
    loaded = Signal()

    def __init__(
        self, service: ExplorerService, start: Starter, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.service = service
        self.head = -1
        # page (number // PAGE) -> its rows by number; a page is read whole, up to the head
        self.pages: Pages[dict[int, BlockRow]] = Pages(start)
        self._advancing = False
        self._wanted_head = -1
        Clock.shared().tick.connect(self._tick)  # "2 min ago" stays true

    def _tick(self) -> None:
        if self.head >= 0:
            self.dataChanged.emit(
                self.index(0, 2), self.index(self.head, 2), [Qt.ItemDataRole.DisplayRole]
            )

    # ------------------------------------------------------------ the model

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.head + 1

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return HEADER_TIPS.get(COLUMNS[section])
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() <= self.head:
            return None
        number = self.head - index.row()
        if role == NUMBER_ROLE:
            return number
        if role == COPY_ROLE:
            held = self.block(number)
            return held.hash if index.column() == 1 and held is not None else None
        col = index.column()
        if role == Qt.ItemDataRole.TextAlignmentRole:
            right = col in (0, 3, 4, 5)
            return int(
                (Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft)
                | Qt.AlignmentFlag.AlignVCenter
            )
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        row = self.block(number)
        if col == 0:
            return f"{number:,}" if role == Qt.ItemDataRole.DisplayRole else str(number)
        if row is None:
            return PLACEHOLDER if role == Qt.ItemDataRole.DisplayRole else None
        if col == 1:
            return row.hash if role == Qt.ItemDataRole.ToolTipRole else _short(row.hash)
        if col == 2:
            seconds = parse_time(row.timestamp)
            if role == Qt.ItemDataRole.ToolTipRole:
                return exact(seconds) or row.timestamp
            return relative(seconds) or row.timestamp
        if col == 3:
            return str(row.tx_count)
        if col == 5:
            if role == Qt.ItemDataRole.ToolTipRole:
                return f"{row.gas_used:,} gas used by the block's transactions"
            return f"{row.gas_used:,}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{row.size:,} bytes of JSON as the node serves the block"
        return f"{row.size:,} B"

    # ------------------------------------------------------------ reading

    def block(self, number: int) -> BlockRow | None:
        """The block's row if held, else None (and its page is read)."""
        page = number // PAGE
        rows = self.pages.get(page)
        if rows is not None and number in rows:
            return rows[number]
        top = min(self.head, page * PAGE + PAGE - 1)
        if rows is not None and max(rows, default=-1) >= top:
            return None  # read, and the node has no such block (a gap): do not ask again
        if page not in self.pages.loading:
            coro = self.service.blocks(page * PAGE, top)
            self.pages.load(page, coro, self._got, self.failed.emit)
        return None

    def row_of(self, number: int) -> int:
        return self.head - number

    def _got(self, page: int, rows: list[BlockRow]) -> None:
        held = self.pages.get(page) or {}
        held.update({r.number: r for r in rows})
        self.pages.put(page, held)
        self._changed(page)
        self.loaded.emit()

    def _changed(self, page: int) -> None:
        low = max(self.row_of(min(self.head, page * PAGE + PAGE - 1)), 0)
        high = min(self.row_of(page * PAGE), self.head)
        if self.head >= 0 and low <= high:
            self.dataChanged.emit(self.index(low, 0), self.index(high, len(COLUMNS) - 1))

    # ------------------------------------------------------------ the head

    def reset(self, head: int) -> None:
        """Start over at ``head`` (another node or user, or the first show)."""
        self.beginResetModel()
        self.pages.clear()
        self.head = head
        self._wanted_head = head
        self.endResetModel()

    def advance(self, head: int) -> None:
        """Newer blocks exist: read them (one page at most; older ones are read when shown)
        and insert them on top."""
        self._wanted_head = max(self._wanted_head, head)
        if self._advancing or head <= self.head:
            return
        self._advancing = True
        first = max(self.head + 1, head - PAGE + 1)
        generation = self.pages.generation

        def done(rows: list[BlockRow]) -> None:
            self._advancing = False
            if generation != self.pages.generation:
                return
            if first > self.head + 1:  # skipped some: their pages are read when shown
                for page in range((self.head + 1) // PAGE, head // PAGE + 1):
                    self.pages.pages.pop(page, None)
            for r in rows:  # a page held was read up to the old head: it stays whole
                held = self.pages.pages.get(r.number // PAGE)
                if held is not None:
                    held[r.number] = r
            self._insert(head)
            if self._wanted_head > self.head:
                self.advance(self._wanted_head)

        def broke(text: str) -> None:
            self._advancing = False
            self.failed.emit(text)

        self.pages.start(self.service.blocks(first, head), done, broke, True)

    def _insert(self, head: int) -> None:
        if head <= self.head:
            return
        self.beginInsertRows(QModelIndex(), 0, head - self.head - 1)
        self.head = head
        self.endInsertRows()


def _short(h: str) -> str:
    return f"{h[:10]}…{h[-6:]}" if len(h) > 20 else h


# what each column but the last shows at its widest, in the formats above (the view's widths;
# a hash of "d"s: a wide hex digit, where "f" is narrow)
WIDEST = (f"{9_999_999:,}", _short("d" * 64), "30 days ago", f"{9_999:,}", f"{99_999:,} B")
