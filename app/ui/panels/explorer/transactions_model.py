"""Transactions newest first, as a lazy table.

The rows under the *anchor* (the newest block when the view was read) are paged by offset:
``fetchMore`` grows the table a page at a time as the user scrolls down (the node says no
total), and pages scrolled far away are dropped and read again when shown. Transactions of
newer blocks are read by block range and inserted on top. One row may be *pinned* above them
all, marked (an instance's creation, which its address filter misses)."""

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
from PySide6.QtGui import QColor, QFont

from app.client.units import format_amount
from app.services.explorer import KINDS, PAGE, ExplorerService, TxFilter, TxRow
from app.services.names import NameService, short_hex
from app.services.tx_words import TxWords
from app.ui.panels.explorer.list_tools import Clock, exact, parse_time, relative
from app.ui.panels.explorer.paging import Pages, Starter
from app.ui.panels.explorer.table import COPY_ROLE

COLUMNS = ("Type", "Status", "Hash", "From", "To", "Value", "Block", "Chain", "Time")
TX_ROLE = Qt.ItemDataRole.UserRole + 1  # the row's TxRow (None while being read)
PLACEHOLDER = "…"
KIND_COLOURS = {"Contract": "#7b3fb3", "FunctionCall": "#1f6fb2", "Transfer": "#2e7d32"}
STATUS_COLOURS = {"Success": "#2e7d32", "Failure": "#c0392b", "Pending": "#b7791f"}
TOP_CAP = 3_000  # rows arrived on top kept before the view is read afresh (an anchor nearer)

Index = QModelIndex | QPersistentModelIndex


def kind_word(kind: str) -> str:
    """The badge's word for a node's transaction kind (its own spelling when unknown)."""
    return KINDS.get(kind, kind.title() if kind.isupper() else kind)


class TransactionsModel(QAbstractTableModel):
    """Signals: failed(str): a read failed (a sentence); loaded(): rows arrived."""

    failed = Signal(str)
    loaded = Signal()

    def __init__(
        self, service: ExplorerService, start: Starter, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.service = service
        self.filter = TxFilter()
        self.anchor = -1  # the newest block of the rows paged by offset
        self.top_block = -1  # the newest block read (rows above the anchor are in ``top``)
        self.top: list[TxRow] = []
        self.pinned: TxRow | None = None  # held first, above ``top``, its type marked
        self.pin_mark = ""
        self.known = 0  # rows under the anchor counted so far
        self.at_end = False
        self.names: dict[str, str] = {}
        self.name_service: NameService | None = None
        self.words: TxWords | None = None
        self.pages: Pages[list[TxRow]] = Pages(start)
        self._advancing = False
        self._wanted_head = -1
        self._bold = QFont()
        self._bold.setBold(True)
        Clock.shared().tick.connect(self._tick)  # "2 min ago" stays true

    def _tick(self) -> None:
        if self.rowCount():
            last = self.rowCount() - 1
            self.dataChanged.emit(
                self.index(0, 8), self.index(last, 8), [Qt.ItemDataRole.DisplayRole]
            )

    # ------------------------------------------------------------ the model

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._above() + self.known

    def _above(self) -> int:
        """Rows held above those paged by offset: the pinned one, then ``top``."""
        return (self.pinned is not None) + len(self.top)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section] if 0 <= section < len(COLUMNS) else None
        return None

    def canFetchMore(self, parent: Index) -> bool:
        if parent.isValid() or self.anchor < 0 or self.at_end:
            return False
        return -1 not in self.pages.loading

    def fetchMore(self, parent: Index) -> None:
        if not self.canFetchMore(parent):
            return
        offset = self.known

        def done(_page: int, rows: list[TxRow]) -> None:
            if len(rows) < PAGE:
                self.at_end = True
            if rows:
                first = self._above() + self.known
                self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
                self.pages.put(offset // PAGE, rows)
                self.known += len(rows)
                self.endInsertRows()
            self.loaded.emit()

        # page -1: "the next page" (one such read at a time)
        self.pages.load(
            -1, self.service.transactions(self.filter, self.anchor, offset), done, self._failed
        )

    def _failed(self, text: str) -> None:
        self.at_end = True  # no endless retries; a new read (filter, refresh) starts over
        self.failed.emit(text)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < self.rowCount():
            return None
        tx = self.tx(index.row())
        if role == TX_ROLE:
            return tx
        col = index.column()
        if tx is None:
            return PLACEHOLDER if role == Qt.ItemDataRole.DisplayRole else None
        if role == Qt.ItemDataRole.DisplayRole:
            text = self._text(tx, col)
            return f"{self.pin_mark}  {text}" if col == 0 and self._is_pinned(index) else text
        if role == Qt.ItemDataRole.ToolTipRole and col in (3, 4) and (tx.sender, tx.to)[col - 3]:
            address = (tx.sender, tx.to)[col - 3]
            name = self._name(address, tx.chain)
            return f"{name}\n{address}" if name else address
        if col == 8 and role in (Qt.ItemDataRole.ToolTipRole, COPY_ROLE):
            return exact(parse_time(tx.timestamp)) or tx.timestamp
        if role in (Qt.ItemDataRole.ToolTipRole, COPY_ROLE):
            full = {2: tx.hash, 3: tx.sender, 4: tx.to, 7: tx.chain}.get(col)
            return full or (self._text(tx, col) if role == Qt.ItemDataRole.ToolTipRole else None)
        if role == Qt.ItemDataRole.ForegroundRole:
            colour = {0: KIND_COLOURS.get(tx.kind), 1: STATUS_COLOURS.get(tx.status)}.get(col)
            return QColor(colour) if colour else None
        if role == Qt.ItemDataRole.FontRole and (col in (0, 1) or self._is_pinned(index)):
            return self._bold
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (5, 6):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _is_pinned(self, index: Index) -> bool:
        return self.pinned is not None and index.row() == 0

    def _text(self, tx: TxRow, col: int) -> str:
        if col == 0:
            if self.words is not None:
                return self.words.describe(tx)
            return kind_word(tx.kind) + (f" · {tx.label}" if tx.label else "")
        if col == 1:
            return tx.status
        if col == 2:
            return f"{tx.hash[:10]}…{tx.hash[-6:]}"
        if col == 3:
            return self._address(tx.sender, tx.chain)
        if col == 4:
            return self._address(tx.to, tx.chain) if tx.to else "(new contract)"
        if col == 5:
            return format_amount(tx.value) if tx.value else "0"
        if col == 6:
            return f"{tx.block_number:,}"
        if col == 7:
            return f"{tx.chain[:10]}…" if tx.chain else "main"
        return relative(parse_time(tx.timestamp)) or tx.timestamp

    def _address(self, address: str, chain: str = "") -> str:
        name = self._name(address, chain)
        short = short_hex(address)
        return f"{name} · {short}" if name else short

    def _name(self, address: str, chain: str = "") -> str:
        """What the name service knows (a contact's name, a user with organisation, a
        contract's name), else the name given by :meth:`set_names`."""
        a = address.lower()
        service = self.name_service
        known = service.lookup(a, "" if chain == "all" else chain) if service else None
        return known.text if known is not None else self.names.get(a, "")

    # ------------------------------------------------------------ reading

    def tx(self, row: int) -> TxRow | None:
        """The row's transaction if held, else None (and its page is read)."""
        if self.pinned is not None:
            if row == 0:
                return self.pinned
            row -= 1
        if row < len(self.top):
            return self.top[row]
        offset = row - len(self.top)
        page = offset // PAGE
        rows = self.pages.get(page)
        if rows is not None:
            return rows[offset % PAGE] if offset % PAGE < len(rows) else None
        if page not in self.pages.loading:
            coro = self.service.transactions(self.filter, self.anchor, page * PAGE)
            self.pages.load(page, coro, self._got, self.failed.emit)
        return None

    def _got(self, page: int, rows: list[TxRow]) -> None:
        self.pages.put(page, rows)
        first = self._above() + page * PAGE
        last = min(first + PAGE - 1, self.rowCount() - 1)
        if first <= last:
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(COLUMNS) - 1))
        self.loaded.emit()

    def set_words(self, words: TxWords) -> None:
        """Say what each transaction did as the account panel does ("Asset created: Car
        (CarDemo)", "Call: add()"), not in the node's kinds."""
        self.words = words
        words.changed.connect(self._reworded)

    def _reworded(self) -> None:
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, 0))

    def set_name_service(self, service: NameService) -> None:
        """Names of contracts and users from the app's cache (repainted as they arrive)."""
        self.name_service = service
        service.resolved.connect(self._renamed)  # a bound method: let go when deleted

    def _renamed(self, *_addresses: object) -> None:
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 3), self.index(self.rowCount() - 1, 4))

    def set_names(self, names: dict[str, str]) -> None:
        self.names = {a.lower(): n for a, n in names.items()}
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 3), self.index(self.rowCount() - 1, 4))

    # ------------------------------------------------------------ the head

    def reset(
        self, head: int, f: TxFilter | None = None, pinned: TxRow | None = None, mark: str = ""
    ) -> None:
        """Read afresh under ``head`` (with another filter; ``pinned``: a row shown first,
        ``mark`` before its type: one the filter does not match, or it shows twice)."""
        self.beginResetModel()
        self.pages.clear()
        if f is not None:
            self.filter = f
        self.pinned, self.pin_mark = pinned, mark
        self.anchor = self.top_block = self._wanted_head = head
        self.top = []
        self.known = 0
        self.at_end = head < 0
        self.endResetModel()
        self.fetchMore(QModelIndex())

    def advance(self, head: int) -> None:
        """Newer blocks exist: put their transactions (of this filter) on top."""
        self._wanted_head = max(self._wanted_head, head)
        if self._advancing or head <= self.top_block or self.anchor < 0:
            return
        self._advancing = True
        generation = self.pages.generation
        after = self.top_block

        def done(rows: list[TxRow] | None) -> None:
            self._advancing = False
            if generation != self.pages.generation:
                return
            if rows is None or len(self.top) + len(rows) > TOP_CAP:
                self.reset(head)  # too many to add one by one, or to hold: read afresh
                return
            self.top_block = head
            if rows:
                first = self.pinned is not None
                self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
                self.top = rows + self.top
                self.endInsertRows()
            if self._wanted_head > self.top_block:
                self.advance(self._wanted_head)

        def broke(text: str) -> None:
            self._advancing = False
            if generation == self.pages.generation:
                self.failed.emit(text)

        self.pages.start(
            self.service.transactions_after(self.filter, after, head), done, broke, True
        )
