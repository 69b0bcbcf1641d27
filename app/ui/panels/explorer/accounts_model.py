"""Every account the node knows, as a lazy table: a page of 100 read as the view scrolls down
(``canFetchMore``/``fetchMore``), sorted by the node (a header click reads afresh in that
order). Names beside addresses come from the app's name service where the node gives none."""

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

from app.client.units import amount_tooltip, format_amount
from app.services.accounts import AccountEntry, AccountPage, AccountsService
from app.services.names import NameService, short_hex
from app.ui.panels.explorer.paging import Starter
from app.ui.panels.explorer.table import COPY_ROLE

COLUMNS = ("Account", "Kind", "Organisation", "Balance", "Nonce", "Transactions")
SORT_OF_COLUMN = ("name", "kind", "name", "balance", "nonce", "txs")
ACCOUNT_ROLE = Qt.ItemDataRole.UserRole + 1  # the row's AccountEntry
DISPLAY = int(Qt.ItemDataRole.DisplayRole)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
ANSWERED = frozenset({DISPLAY, TOOLTIP, ALIGNMENT, int(ACCOUNT_ROLE), int(COPY_ROLE)})
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
PAGE = 100
KIND_WORDS = {"user": "User", "contract": "Contract", "other": "Address"}

Index = QModelIndex | QPersistentModelIndex


class AccountsModel(QAbstractTableModel):
    """Signals: failed(str): a read failed; loaded(): a page arrived (``total`` may be known)."""

    failed = Signal(str)
    loaded = Signal()

    def __init__(
        self,
        service: AccountsService,
        start: Starter,
        names: NameService | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.service = service
        self.start = start
        self.names = names
        self.rows: list[AccountEntry] = []
        self.total: int | None = None  # None: unknown (a STRATO node does not count)
        self.sort_key = "txs"
        self.descending = True
        self.kind = ""
        self.at_end = True
        self.generation = 0
        self._loading = False
        self.started = False  # read at least once (the view reads on first show)
        if names is not None:
            names.resolved.connect(self._renamed)

    # ------------------------------------------------------------ the model

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        # a painted cell is asked for about eight roles: those it has no answer for are
        # turned away first, on plain ints (a PySide enum's lookup costs more than the test)
        if role not in ANSWERED or not 0 <= (row := index.row()) < len(self.rows):
            return None
        a = self.rows[row]
        col = index.column()
        if role == ACCOUNT_ROLE:
            return a
        if role == COPY_ROLE:
            return a.address if col == 0 else None
        if role == DISPLAY:
            return self._text(a, col)
        if role == TOOLTIP:
            if col == 0:
                name = self.name_of(a)
                return f"{name}\n{a.address}" if name else a.address
            if col == 3:
                return amount_tooltip(a.balance)
            if col == 5 and a.tx_count is None:
                return "This node does not count an account's transactions (a sandbox extension)"
            return self._text(a, col)
        if role == ALIGNMENT and col >= 3:
            return RIGHT
        return None

    def name_of(self, a: AccountEntry) -> str:
        """The node's name for the account (a user with organisation, a contract), else the
        name service's (a contact, a name learnt elsewhere)."""
        if a.name and a.kind == "user":
            return f"{a.name} ({a.org})" if a.org else a.name
        if a.name:
            return a.name
        known = self.names.lookup(a.address) if self.names is not None else None
        return known.text if known is not None else ""

    def _text(self, a: AccountEntry, col: int) -> str:
        if col == 0:
            name = self.name_of(a)
            short = short_hex(a.address)
            return f"{name} · {short}" if name else short
        if col == 1:
            return KIND_WORDS.get(a.kind, a.kind.title() or "—")
        if col == 2:
            return a.org
        if col == 3:
            return format_amount(a.balance)  # "0 tokens" too: one unit for every row
        if col == 4:
            return f"{a.nonce:,}"
        return f"{a.tx_count:,}" if a.tx_count is not None else "—"

    def _renamed(self, _addresses: list[str]) -> None:
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, 0))

    # ------------------------------------------------------------ reading

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Read afresh in the order of ``column`` (the node sorts)."""
        if not 0 <= column < len(COLUMNS):
            return
        self.sort_key = SORT_OF_COLUMN[column]
        self.descending = order == Qt.SortOrder.DescendingOrder
        self.reset()

    def set_kind(self, kind: str) -> None:
        self.kind = kind
        self.reset()

    def reset(self) -> None:
        """Forget the rows and read the first page."""
        self.beginResetModel()
        self.generation += 1
        self.rows = []
        self.total = None
        self.at_end = False
        self._loading = False
        self.started = True
        self.endResetModel()
        self.fetchMore(QModelIndex())

    def canFetchMore(self, parent: Index) -> bool:
        return not parent.isValid() and not self.at_end and not self._loading

    def fetchMore(self, parent: Index) -> None:
        if not self.canFetchMore(parent):
            return
        self._loading = True
        generation = self.generation
        offset = len(self.rows)

        def done(page: AccountPage) -> None:
            if generation != self.generation:
                return
            self.total = page.total
            if len(page.rows) < PAGE or (
                page.total is not None and offset + len(page.rows) >= page.total
            ):
                self.at_end = True
            if page.rows:
                self.beginInsertRows(QModelIndex(), offset, offset + len(page.rows) - 1)
                self.rows.extend(page.rows)
                self.endInsertRows()
            # only now: a view asks for more while the rows are inserted (begin/endInsertRows)
            self._loading = False
            self.loaded.emit()

        def broke(text: str) -> None:
            if generation != self.generation:
                return
            self._loading = False
            self.at_end = True  # no endless retries; a sort or refresh starts over
            self.failed.emit(text)

        self.start(
            self.service.page(self.sort_key, self.descending, offset, PAGE, self.kind),
            done,
            broke,
        )

    @property
    def loading(self) -> bool:
        return self._loading
