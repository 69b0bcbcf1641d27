"""The Explorer's Accounts view: every account the node knows (users with their organisation,
contracts, addresses seen in transactions), with balance, nonce and transaction count, sortable
by a header click, read a page at a time as it scrolls; a row opens its account page.

On a STRATO node (no ``/stratoscope/accounts``) the list is the platform's account search: in
address order, without counts; the view says so."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.services.accounts import AccountsService
from app.services.controller import AppController
from app.ui.panels.explorer.accounts_model import ACCOUNT_ROLE, PAGE, AccountsModel
from app.ui.panels.explorer.list_tools import ListBar
from app.ui.panels.explorer.pacing import Settle
from app.ui.panels.explorer.paging import Starter
from app.ui.panels.explorer.table import ExplorerTable
from app.ui.widgets.common import name_widget

PLATFORM_NOTE = (
    "This node has no account table (the sandbox's own extension): the list is its account "
    "search, in address order, without transaction counts."
)
EXPORT_COLUMNS = ["address", "kind", "name", "organization", "balance", "nonce", "txCount"]


class AccountsView(QWidget):
    """Signals: account_chosen(str): an address to open."""

    account_chosen = Signal(str)

    def __init__(
        self,
        controller: AppController,
        service: AccountsService,
        start: Starter,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.service = service
        self.model = AccountsModel(service, start, controller.names, self)
        self.table = ExplorerTable(self)
        self.table.setModel(self.model)
        name_widget(self.table, "explorerAccounts", "Accounts")
        for col, width in enumerate((215, 70, 95, 110, 60)):  # Balance in view at 1024 px
            self.table.setColumnWidth(col, width)
        header = self.table.horizontalHeader()
        header.setSortIndicatorShown(True)
        header.setSortIndicator(5, Qt.SortOrder.DescendingOrder)
        header.setSectionsClickable(True)
        header.sortIndicatorChanged.connect(self._sort)
        self.table.activated.connect(self._chosen)
        self.table.clicked.connect(self._chosen)
        self.settle = Settle(self)
        self.table.selectionModel().currentRowChanged.connect(self._moved)
        self.kind = QComboBox(self)
        for text, value in (
            ("Every account", ""),
            ("Users", "user"),
            ("Contracts", "contract"),
            ("Other addresses", "other"),
        ):
            self.kind.addItem(text, value)
        name_widget(self.kind, "accountsKind", "Kind of account")
        self.kind.activated.connect(lambda _i: self.model.set_kind(str(self.kind.currentData())))
        self.note = QLabel("", self)
        self.note.setWordWrap(True)
        name_widget(self.note, "accountsNote", "About the list")
        self.bar = ListBar(controller, "accounts", self._export_source, self)
        top = QHBoxLayout()
        top.addWidget(self.kind)
        top.addWidget(self.bar, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addWidget(self.note)
        lay.addWidget(self.table, 1)
        self.model.loaded.connect(self._counted)
        self.model.modelReset.connect(self._counted)
        self.model.failed.connect(lambda t: self.note.setText(f"✘ Could not read accounts: {t}"))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self.model.started and self.controller.session.client is not None:
            self.model.reset()

    def refresh(self) -> None:
        """Read afresh (another node or user); only when the view has been shown."""
        if self.model.started:
            self.model.reset()

    def _sort(self, column: int, order: Qt.SortOrder) -> None:
        if self.service.full_listing is False and column != 0:
            self.note.setText(PLATFORM_NOTE)
        self.model.sort(column, order)

    def _counted(self) -> None:
        m = self.model
        shown = m.rowCount()
        if m.total is not None:
            what = {"user": "users", "contract": "contracts", "other": "other addresses"}
            self.bar.set_count(f"{m.total:,} {what.get(m.kind, 'accounts')}")
        else:
            more = "+" if not m.at_end else ""
            self.bar.set_count(f"{shown:,}{more} accounts" if m.started else "")
        if self.service.full_listing is False:
            self.note.setText(PLATFORM_NOTE)
        self.note.setVisible(bool(self.note.text()))

    def _chosen(self, index: QModelIndex) -> None:
        a = index.data(ACCOUNT_ROLE)
        if a is not None:
            self.settle.now(lambda: self.account_chosen.emit(a.address))

    def _moved(self, index: QModelIndex, previous: QModelIndex) -> None:
        a = index.data(ACCOUNT_ROLE) if index.isValid() and previous.isValid() else None
        if a is not None:
            self.settle.later(lambda: self.account_chosen.emit(a.address))

    def _export_source(self) -> Any:
        m = self.model
        if not m.started:
            return None
        sort, desc, kind = m.sort_key, m.descending, m.kind

        async def read(offset: int) -> list[dict[str, Any]]:
            page = await self.service.page(sort, desc, offset, PAGE * 10, kind)
            return [
                {
                    "address": a.address,
                    "kind": a.kind,
                    "name": a.name or m.name_of(a),
                    "organization": a.org,
                    "balance": str(a.balance),
                    "nonce": a.nonce,
                    "txCount": a.tx_count,
                }
                for a in page.rows
            ]

        return read, PAGE * 10, f"accounts-by-{sort}", EXPORT_COLUMNS
