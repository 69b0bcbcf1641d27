"""An account's page in the Explorer's detail pane: who or what it is (name, organisation,
kind), balance, nonce and transaction count; its transactions (the Transactions view's lazy
model filtered by the address), the contracts it created and, in contracts with a
``balances``-like mapping, what it holds."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import QFormLayout, QLabel, QTabWidget, QVBoxLayout, QWidget

from app.client.units import amount_tooltip, format_amount
from app.services.accounts import AccountEntry, AccountsService
from app.services.controller import AppController
from app.services.explorer import ExplorerService, TxFilter
from app.services.holdings import Holding, holdings
from app.services.names import short_hex
from app.ui.models.table_model import RowsTableModel
from app.ui.panels.explorer.accounts_model import KIND_WORDS
from app.ui.panels.explorer.pacing import OwnedTasks
from app.ui.panels.explorer.page_bars import account_bar
from app.ui.panels.explorer.table import COPY_ROLE, ExplorerTable
from app.ui.panels.explorer.transactions_model import TX_ROLE, TransactionsModel
from app.ui.widgets.common import CopyField, name_widget, while_alive

Index = QModelIndex | QPersistentModelIndex
ROW_ROLE = Qt.ItemDataRole.UserRole + 1


class CreatedModel(RowsTableModel):
    """The contracts an account created."""

    COLUMNS = ("Contract", "Address")

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        a = self.row_object(index.row()) if index.isValid() else None
        if not isinstance(a, AccountEntry):
            return None
        if role == ROW_ROLE:
            return a
        if role == COPY_ROLE or (role == Qt.ItemDataRole.ToolTipRole and index.column() == 1):
            return a.address
        if role == Qt.ItemDataRole.DisplayRole:
            return a.name or "?" if index.column() == 0 else short_hex(a.address)
        return None


class HoldingsModel(RowsTableModel):
    """What an account holds in token-like contracts."""

    COLUMNS = ("Contract", "Mapping", "Balance")

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        h = self.row_object(index.row()) if index.isValid() else None
        if not isinstance(h, Holding):
            return None
        col = index.column()
        if role == ROW_ROLE:
            return h
        if role == COPY_ROLE:
            return h.address if col == 0 else str(h.balance) if col == 2 else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{h.contract}\n{h.address}" if col == 0 else h.table
        if role == Qt.ItemDataRole.DisplayRole:
            return (f"{h.contract} · {short_hex(h.address)}", h.variable, f"{h.balance:,}")[col]
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class AccountPage(QWidget):
    """Signals: tx_clicked(str), account_clicked(str) (a contract it created or holds in)."""

    tx_clicked = Signal(str)
    account_clicked = Signal(str)

    def __init__(
        self,
        controller: AppController,
        service: AccountsService,
        address: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("accountPage")
        self.controller = controller
        self.service = service
        self.address = address.lower().removeprefix("0x")
        self.entry: AccountEntry | None = None
        self.tasks = OwnedTasks(controller.tasks)
        self.name_label = QLabel("…", self)
        name_widget(self.name_label, "accountPageName", "Name")
        self.kind_label = QLabel("", self)
        name_widget(self.kind_label, "accountPageKind", "Kind")
        self.field = CopyField("accountPageAddress", "Address", self)
        self.field.set_value(self.address)
        self.balance = QLabel("", self)
        name_widget(self.balance, "accountPageBalance", "Balance")
        self.nonce = QLabel("", self)
        name_widget(self.nonce, "accountPageNonce", "Nonce")
        self.tx_count = QLabel("", self)
        name_widget(self.tx_count, "accountPageTxCount", "Transactions")
        form = QFormLayout()
        form.addRow("Name", self.name_label)
        form.addRow("Kind", self.kind_label)
        form.addRow("Address", self.field)
        form.addRow("Balance", self.balance)
        form.addRow("Nonce", self.nonce)
        form.addRow("Transactions", self.tx_count)
        self.tabs = QTabWidget(self)
        name_widget(self.tabs, "accountPageTabs", "The account's lists")
        # transactions: the Transactions view's lazy model with the address filter
        self.explorer = ExplorerService(controller.session, self)
        self.txs_model = TransactionsModel(self.explorer, self._start, self)
        self.txs_model.set_names(controller.address_names())
        self.txs_model.set_name_service(controller.names)
        self.txs_model.set_words(controller.tx_words)
        self.txs = ExplorerTable(self)
        self.txs.setModel(self.txs_model)
        for col, width in enumerate((180, 70, 130, 140, 140, 70, 60, 70)):
            self.txs.setColumnWidth(col, width)
        name_widget(self.txs, "accountPageTransactions", "The account's transactions")
        self.txs.activated.connect(self._tx)
        self.txs.clicked.connect(self._tx)
        self.tabs.addTab(self.txs, "Transactions")
        self.created_model = CreatedModel(self)
        self.created = ExplorerTable(self)
        self.created.setModel(self.created_model)
        self.created.setColumnWidth(0, 160)
        name_widget(self.created, "accountPageCreated", "Contracts the account created")
        self.created.activated.connect(self._account)
        self.tabs.addTab(self.created, "Contracts created")
        self.holdings_model = HoldingsModel(self)
        self.holdings = ExplorerTable(self)
        self.holdings.setModel(self.holdings_model)
        self.holdings.setColumnWidth(0, 150)
        self.holdings.setColumnWidth(1, 80)
        name_widget(self.holdings, "accountPageHoldings", "Token balances of the account")
        self.holdings.activated.connect(self._account)
        self.tabs.addTab(self.holdings, "Holdings")
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        name_widget(self.status, "accountPageStatus", "Account page status")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(form)
        lay.addWidget(self.status)
        lay.addWidget(self.tabs, 1)
        self.txs_model.loaded.connect(self._counted)
        self.txs_model.failed.connect(self._failed)
        self.bar = account_bar(self)  # count and Export ▾ of the current tab's list
        self._read()

    def _start(self, coro: Any, done: Any, failed: Any, background: bool = False) -> Any:
        return self.tasks.start(
            "Reading an account's transactions",
            coro,
            while_alive(self, done),
            while_alive(self, failed),
            background="new block" if background else "",
        )

    def stop(self) -> None:
        """Another detail replaces the page: its reads under way are cancelled."""
        self.tasks.cancel()
        self.txs_model.pages.clear()

    def _read(self) -> None:
        a = self.address
        self.tasks.start(
            "Reading an account", self.service.account(a), while_alive(self, self._set_entry),
            while_alive(self, self._failed),
        )  # fmt: skip
        self.tasks.start(
            "Contracts an account created", self.service.created(a),
            while_alive(self, self._set_created), while_alive(self, self._failed),
        )  # fmt: skip
        self.tasks.start(
            "An account's holdings", holdings(self.controller.session, a),
            while_alive(self, self._set_holdings), while_alive(self, self._failed),
        )  # fmt: skip
        self.tasks.start(
            "Reading the chain's head", self.explorer.head(fresh=True),
            while_alive(self, lambda head: self.txs_model.reset(head, TxFilter(address=a))),
            while_alive(self, self._failed),
        )  # fmt: skip

    def _set_entry(self, entry: AccountEntry | None) -> None:
        self.entry = entry
        known = self.controller.names.lookup(self.address)
        if entry is None:
            self.name_label.setText(known.text if known is not None else "(unknown)")
            self.kind_label.setText("no account on this node yet")
            return
        if entry.kind == "user" and entry.name:
            name = f"{entry.name} ({entry.org})" if entry.org else entry.name
        else:
            name = entry.name or (known.text if known is not None else "")
        self.name_label.setText(name or "(no name)")
        kind = KIND_WORDS.get(entry.kind, "") or ("Contract" if entry.name else "Address")
        self.kind_label.setText(kind)
        self.balance.setText(format_amount(entry.balance))
        self.balance.setToolTip(amount_tooltip(entry.balance))
        self.nonce.setText(f"{entry.nonce:,}")
        self.tx_count.setText(
            f"{entry.tx_count:,}" if entry.tx_count is not None else "(this node does not count)"
        )

    def _set_created(self, rows: list[AccountEntry]) -> None:
        self.created_model.set_rows(rows)
        self.tabs.setTabText(1, f"Contracts created ({len(rows):,})")

    def _set_holdings(self, rows: list[Holding]) -> None:
        self.holdings_model.set_rows(rows)
        self.tabs.setTabText(2, f"Holdings ({len(rows):,})")

    def _counted(self) -> None:
        n = self.txs_model.rowCount()
        more = "+" if not self.txs_model.at_end else ""
        self.tabs.setTabText(0, f"Transactions ({n:,}{more})")

    def _failed(self, text: str) -> None:
        if not isinstance(text, str):
            return
        self.status.setText(f"✘ {text}")

    def _tx(self, index: QModelIndex) -> None:
        tx = index.data(TX_ROLE)
        if tx is not None:
            self.tx_clicked.emit(tx.hash)

    def _account(self, index: QModelIndex) -> None:
        row = index.data(ROW_ROLE)
        if row is not None:
            self.account_clicked.emit(row.address)
