"""A token's page (the *Token* tab of a token-like contract's detail): its total supply, its
holders largest first with their share of the supply, and its transfers newest first.

Holders come from the balances mapping's Cirrus collection table: counted once, then read a
page at a time for the rows the view paints (a million holders scroll in the memory of a few
thousand). Transfers come from the ``Transfer``-like event's table, newest first, a page at a
time as the list is scrolled down.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import QHeaderView, QLabel, QTabWidget, QVBoxLayout, QWidget

from app.services.explorer_contracts import EventFeed, EventRow
from app.services.tokens import (
    HOLDERS_PAGE,
    TRANSFERS_PAGE,
    Holder,
    TokenInfo,
    TokenService,
    TokenShape,
)
from app.ui.widgets.common import name_widget, while_alive

from .page_bars import token_bars
from .paging import Pages, Starter
from .table import COPY_ROLE, ExplorerTable

if TYPE_CHECKING:
    from .instance_detail import InstanceDetail

Index = QModelIndex | QPersistentModelIndex
PLACEHOLDER = "…"
MAX_READS = 2  # holder pages read at once (deep pages sort the whole table on the node)
QUEUED = 4  # pages asked for and not read yet that are kept (the newest asked are read first)
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
DISPLAY = int(Qt.ItemDataRole.DisplayRole)
ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
ANSWERED = frozenset({DISPLAY, ALIGNMENT, int(Qt.ItemDataRole.ToolTipRole), int(COPY_ROLE)})


def short(address: str) -> str:
    return f"{address[:8]}…{address[-4:]}" if len(address) > 14 else address


def share_text(amount: int, supply: int | None) -> str:
    if not supply:
        return ""
    pct = 100 * amount / supply
    return f"{pct:.4f} %" if pct < 0.01 else f"{pct:.2f} %"


class HoldersModel(QAbstractTableModel):
    """Holders largest first: rank, address, balance, share of the supply. The rows are
    counted first (the table's size), then each page is read when a row of it is asked for.

    Signals: counted(int): the number of holders is known; failed(str)."""

    COLUMNS = ("#", "Holder", "Balance", "Share")
    counted = Signal(int)
    failed = Signal(str)

    def __init__(self, service: TokenService, start: Starter, parent: QObject | None = None):
        super().__init__(parent)
        self.service = service
        self.pages: Pages[list[Holder]] = Pages(start)
        self.start = start
        self.info: TokenInfo | None = None
        self.total = 0
        self.known = False
        self.supply: int | None = None
        self.names: dict[str, str] = {}
        # pages painted but not read yet, newest last: a fast scroll through a million rows
        # asks for hundreds of pages; only the last few asked (those on screen) are read
        self._queued: OrderedDict[int, None] = OrderedDict()

    def reset(self, info: TokenInfo) -> None:
        self.beginResetModel()
        self.pages.clear()
        self._queued.clear()
        self.info = info
        self.total = 0
        self.endResetModel()

        self.known = False  # the count is in (before it: the rows of the first page)

        def got(n: int) -> None:
            self.known = True
            if n >= self.total:  # after the first page's rows: the rest added below them
                if n > self.total:
                    self.beginInsertRows(QModelIndex(), self.total, n - 1)
                    self.total = n
                    self.endInsertRows()
            else:
                self.beginResetModel()
                self.total = n
                self.endResetModel()
            self.counted.emit(n)

        self.start(self.service.holders_count(info), got, self.failed.emit)
        # the first page is read beside the count, not after it: the largest holders show
        # as soon as it is in (a count of a million rows can take longer than the page)
        self.pages.load(
            0, self.service.holders(info, 0, HOLDERS_PAGE), self._got, self._page_failed
        )

    def set_supply(self, supply: int | None) -> None:
        self.supply = supply
        if self.total:
            self.dataChanged.emit(self.index(0, 3), self.index(self.total - 1, 3))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self.total

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.COLUMNS[section] if 0 <= section < len(self.COLUMNS) else None
        return None

    def holder(self, row: int) -> Holder | None:
        """The row's holder if its page is held, else None (and the page is read)."""
        if self.info is None or not 0 <= row < self.total:
            return None
        page = row // HOLDERS_PAGE
        rows = self.pages.get(page)
        if rows is not None:
            i = row % HOLDERS_PAGE
            return rows[i] if i < len(rows) else None
        if page not in self.pages.loading:
            self._queued[page] = None
            self._queued.move_to_end(page)
            while len(self._queued) > QUEUED:
                self._queued.popitem(last=False)  # scrolled past before it could be read
            self._pump()
        return None

    def _pump(self) -> None:
        """Start reading the newest pages asked for, up to :data:`MAX_READS` at once."""
        info = self.info
        while info is not None and self._queued and len(self.pages.loading) < MAX_READS:
            page, _ = self._queued.popitem(last=True)
            if page in self.pages.pages or page in self.pages.loading:
                continue
            coro = self.service.holders(info, page * HOLDERS_PAGE, HOLDERS_PAGE)
            self.pages.load(page, coro, self._got, self._page_failed)

    def _page_failed(self, text: str) -> None:
        self.failed.emit(text)
        self._pump()

    def _got(self, page: int, rows: list[Holder]) -> None:
        self.pages.put(page, rows)
        if page == 0 and not self.known and len(rows) > self.total:
            self.beginInsertRows(QModelIndex(), self.total, len(rows) - 1)
            self.total = len(rows)  # until the count comes
            self.endInsertRows()
        first = page * HOLDERS_PAGE
        last = min(first + HOLDERS_PAGE, self.total) - 1
        if first <= last:
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(self.COLUMNS) - 1))
        self._pump()

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        # a painted cell is asked for about eight roles: those it has no answer for are
        # turned away first, on plain ints (a PySide enum's lookup costs more than the test)
        if role not in ANSWERED or not 0 <= (row := index.row()) < self.total:
            return None
        col = index.column()
        if role == ALIGNMENT:
            return RIGHT if col in (0, 2, 3) else None
        shown = role == DISPLAY
        if col == 0:
            return f"{row + 1:,}" if shown else None
        h = self.holder(row)
        if h is None:
            return PLACEHOLDER if shown else None
        if col == 1:
            if not shown:
                return h.address
            name = self.names.get(h.address)
            return f"{name} · {short(h.address)}" if name else h.address
        if col == 2:
            return f"{h.amount:,}" if shown else str(h.amount)
        return share_text(h.amount, self.supply)


class TransfersModel(QAbstractTableModel):
    """Transfers newest first: block, from, to, amount, transaction; read a page at a time as
    the view scrolls down (``fetchMore``). Signals: loaded(), failed(str)."""

    COLUMNS = ("Block", "From", "To", "Amount", "Transaction")
    loaded = Signal()
    failed = Signal(str)

    def __init__(self, service: TokenService, start: Starter, parent: QObject | None = None):
        super().__init__(parent)
        self.service = service
        self.start = start
        self.info: TokenInfo | None = None
        self.feed: EventFeed | None = None
        self.rows: list[tuple[EventRow, str, str, int | None]] = []
        self.loading: asyncio.Task[Any] | None = None
        self.names: dict[str, str] = {}
        self.error = ""

    def reset(self, info: TokenInfo) -> None:
        if self.loading is not None:
            self.loading.cancel()
            self.loading = None
        self.beginResetModel()
        self.info = info
        self.feed = self.service.transfers(info) if info.transfers_table else None
        self.rows = []
        self.error = ""
        self.endResetModel()
        self.fetchMore(QModelIndex())

    @property
    def at_end(self) -> bool:
        return self.feed is None or self.feed.exhausted or bool(self.error)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.COLUMNS[section] if 0 <= section < len(self.COLUMNS) else None
        return None

    def canFetchMore(self, parent: Index) -> bool:
        if parent.isValid() or self.loading is not None:
            return False
        return not self.at_end

    def fetchMore(self, parent: Index) -> None:
        if not self.canFetchMore(parent) or self.feed is None or self.info is None:
            return
        info, feed = self.info, self.feed

        def done(rows: list[EventRow]) -> None:
            self.loading = None
            if feed is not self.feed:
                return
            if rows:
                first = len(self.rows)
                self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
                for r in rows:
                    self.rows.append((r, *self.service.transfer_of(info, r.args)))
                self.endInsertRows()
            self.loaded.emit()

        def broke(text: str) -> None:
            self.loading = None
            self.error = text  # no endless retries: a new page of the token reads afresh
            self.failed.emit(text)

        self.loading = self.start(feed.next(TRANSFERS_PAGE), done, broke)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        ev, sender, receiver, amount = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return RIGHT if col in (0, 3) else None
        if role in (Qt.ItemDataRole.ToolTipRole, COPY_ROLE):
            full = {1: sender, 2: receiver, 4: ev.tx_hash}.get(col)
            if full:
                return full
            return ev.timestamp if role == Qt.ItemDataRole.ToolTipRole and col == 0 else None
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if col == 0:
            return f"{ev.block_number:,}" if ev.block_number is not None else ""
        if col in (1, 2):
            a = sender if col == 1 else receiver
            name = self.names.get(a)
            return f"{name} · {short(a)}" if name else short(a)
        if col == 3:
            return f"{amount:,}" if amount is not None else ""
        return f"{ev.tx_hash[:10]}…" if ev.tx_hash else ""

    def transfer(self, row: int) -> EventRow | None:
        return self.rows[row][0] if 0 <= row < len(self.rows) else None


class TokenPage(QWidget):
    """The *Token* tab: supply and holders count on top, Holders and Transfers below."""

    def __init__(self, detail: InstanceDetail, service: TokenService, shape: TokenShape):
        super().__init__(detail)
        name_widget(self, "tokenPage", f"Token {detail.instance.name}")
        self.detail = detail
        self.service = service
        self.shape = shape
        self.info: TokenInfo | None = None
        self.supply: int | None = None
        names = detail.controller.address_names()
        self.summary = QLabel("Reading the token…", self)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.summary, "tokenSummary", "Total supply and holders")
        self.holders_model = HoldersModel(service, self._start, self)
        self.holders_model.names = names
        self.holders = ExplorerTable(self)
        self.holders.setModel(self.holders_model)
        for col, width in ((0, 30), (2, 80), (3, 72)):  # the narrow pane at 1024 px
            self.holders.setColumnWidth(col, width)
        hh = self.holders.horizontalHeader()
        hh.setStretchLastSection(False)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # Holder: the rest, no cut Share
        name_widget(self.holders, "tokenHolders", "Holders, largest first")
        self.transfers_model = TransfersModel(service, self._start, self)
        self.transfers_model.names = names
        self.transfers = ExplorerTable(self)
        self.transfers.setModel(self.transfers_model)
        for col, width in enumerate((60, 120, 120, 80)):
            self.transfers.setColumnWidth(col, width)
        name_widget(self.transfers, "tokenTransfers", "Transfers, newest first")
        self.transfers.activated.connect(self._transfer_chosen)
        self.transfers.clicked.connect(self._transfer_chosen)
        self.transfers_status = QLabel("", self)
        self.transfers_status.setWordWrap(True)
        name_widget(self.transfers_status, "tokenTransfersStatus", "Transfers")
        transfers_page = QWidget(self)
        tl = QVBoxLayout(transfers_page)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.transfers_status)
        tl.addWidget(self.transfers, 1)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.setObjectName("tokenTabs")
        holders_page = QWidget(self)
        hl = QVBoxLayout(holders_page)
        hl.setContentsMargins(0, 0, 0, 0)
        hl.addWidget(self.holders, 1)
        self.tabs.addTab(holders_page, "Holders")
        self.tabs.addTab(transfers_page, "Transfers")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.summary)
        lay.addWidget(self.tabs, 1)
        self.holders_model.counted.connect(lambda _n: self._summarise())
        self.holders_model.failed.connect(self._failed)
        self.transfers_model.loaded.connect(self._transfers_counted)
        self.transfers_model.failed.connect(
            lambda text: self.transfers_status.setText(f"✘ Could not read the transfers: {text}")
        )
        self._supply_note = ""
        self._error = ""
        # count and Export ▾ of the holders and of the transfers
        self.holders_bar, self.transfers_bar = token_bars(self, holders_page, transfers_page)
        detail.tasks.start(
            f"Token {detail.instance.name}",
            service.token(detail.instance, shape),
            while_alive(self, self._got),
            while_alive(self, self._failed),
        )

    def _start(
        self,
        coro: Coroutine[Any, Any, Any],
        done: Callable[[Any], None],
        failed: Callable[[str], None],
        background: bool = False,
    ) -> asyncio.Task[Any]:
        return self.detail.tasks.start(
            f"Token {self.detail.instance.name}",
            coro,
            while_alive(self, done),
            while_alive(self, failed),
            background="new block" if background else "",
        )

    def _got(self, info: TokenInfo) -> None:
        self.info = info
        self.holders_model.reset(info)
        self.transfers_model.reset(info)
        if not info.transfers_table:
            self.transfers_status.setText(
                f"No {self.shape.transfer} event table: the transfers are not indexed."
                if self.shape.transfer
                else "The contract declares no Transfer-like event."
            )
        self._start(self.service.total_supply(info), self._got_supply, self._supply_failed)

    def _got_supply(self, result: tuple[int | None, str]) -> None:
        self.supply, self._supply_note = result
        self.holders_model.set_supply(self.supply)
        self._summarise()

    def _supply_failed(self, text: str) -> None:
        self._supply_note = f"✘ {text}"
        self._summarise()

    def _summarise(self) -> None:
        parts = []
        if self.supply is not None:
            parts.append(f"Total supply <b>{self.supply:,}</b> ({self._supply_note})")
        elif self._supply_note:
            parts.append(f"Total supply: {self._supply_note}")
        n = self.holders_model.total
        if self.info is not None and self.info.holders_table:
            parts.append(f"<b>{n:,}</b> holder{'s' * (n != 1)} (from {self.info.holders_table})")
        if self._error:
            parts.append(f"✘ {self._error}")
        self.summary.setText(" · ".join(parts) or "Reading the token…")

    def _failed(self, text: str) -> None:
        self._error = text
        self._summarise()

    def _transfers_counted(self) -> None:
        m = self.transfers_model
        n = m.rowCount()
        if n == 0 and m.at_end:
            self.transfers_status.setText("No transfers yet.")
            return
        more = "" if m.at_end else "+ (more as you scroll)"
        self.transfers_status.setText(
            f"{n:,}{more} transfer{'s' * (n != 1 or bool(more))}, newest first: "
            "click one to inspect its transaction"
        )

    def _transfer_chosen(self, index: QModelIndex) -> None:
        ev = self.transfers_model.transfer(index.row())
        if ev is not None and ev.tx_hash:
            self.detail.links.show_transaction(ev.tx_hash)
