"""One contract instance in the Explorer's detail pane (the contract page): its state
(collections by pages), its view functions queried inline (Read), its other functions (Write:
each opens the composer's Call tab), its transactions and events, its interface and source
(Code), a token's holders and transfers (Token), and links to its Cirrus tables."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.client.abi_types import ContractSpec
from app.client.cirrus_query import CirrusQuery, Condition, Group, history_of
from app.client.models import Transaction
from app.services.controller import AppController
from app.services.explorer import ExplorerService, TxFilter, tx_row
from app.services.explorer_contracts import (
    Instance,
    InstanceTables,
    StateVar,
)
from app.ui.widgets.common import CopyField, name_widget, while_alive

from .contract_page import ContractPage
from .contracts_model import StateModel, when
from .events_view import EventsView
from .links import ExplorerLinks
from .pacing import OwnedTasks
from .table import ExplorerTable
from .transactions_model import TX_ROLE, TransactionsModel

CREATED = "[created]"
METHOD_ROLE = Qt.ItemDataRole.UserRole + 2


class InstanceDetail(QWidget):
    """Signals: ``contract_requested(name, address, chain_id, method)`` (open the composer),
    ``table_requested(table, query)`` (open a Cirrus table in the Tables panel, the instance's
    rows only: a :class:`CirrusQuery`)."""

    contract_requested = Signal(str, str, str, str)
    table_requested = Signal(str, object)

    def __init__(
        self,
        controller: AppController,
        instance: Instance,
        links: ExplorerLinks,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        name_widget(self, "explorerInstanceDetail", f"{instance.name} at {instance.address}")
        self.controller = controller
        self.instance = instance
        self.links = links
        self.service = controller.explorer_contracts
        self.tasks = OwnedTasks(controller.tasks)  # cancelled when another detail replaces it
        self.spec: ContractSpec | None = None

        self.address = CopyField("instanceAddress", "Address", self)
        self.address.set_value(instance.address)
        form = QFormLayout()
        form.addRow("Address:", self.address)
        where = instance.chain_id or "main chain"
        made = "  ".join(
            x
            for x in (
                f"block {instance.created_block}" if instance.created_block is not None else "",
                when(instance.created_ms),
            )
            if x
        )
        # a chain id is 64 digits: a field (copyable, scrolled), not a label as wide as it
        self.chain = CopyField("instanceChain", "Chain", self)
        self.chain.set_value(where)
        form.addRow("Chain:", self.chain)
        if made:
            form.addRow("Created:", QLabel(made, self))
        self.tables_label = QLabel("…", self)
        self.tables_label.setWordWrap(True)
        name_widget(self.tables_label, "instanceTables", "Cirrus tables")
        form.addRow("Cirrus:", self.tables_label)

        links_row = QHBoxLayout()
        # the instance's tables are looked up in the node's Cirrus description: an asset
        # application's contract has its table under the application's prefix
        self.tables = InstanceTables("", "", known=False)
        self.table_button = QPushButton("Cirrus &table", self)
        self.table_button.setToolTip("Open the contract's Cirrus table in the Tables panel")
        self.table_button.setEnabled(False)
        self.history_button = QPushButton("&History table", self)
        self.history_button.setToolTip(
            "Open the contract's history table (kept when the contract was created with "
            "history on) in the Tables panel"
        )
        self.history_button.setEnabled(False)
        self.address_button = QPushButton("&Address activity", self)
        self.address_button.setToolTip("Every transaction to or from this address")
        self.composer_button = QPushButton("Open in &composer", self)
        # two rows of two: the pane beside the views is narrow at 1024 pixels
        links_row.addWidget(self.table_button)
        links_row.addWidget(self.history_button)
        links_row.addStretch(1)
        links_row2 = QHBoxLayout()
        links_row2.addWidget(self.address_button)
        links_row2.addWidget(self.composer_button)
        links_row2.addStretch(1)
        self.tables_note = QLabel("", self)  # why a table link is off, when one is
        self.tables_note.setWordWrap(True)
        self.tables_note.hide()
        name_widget(self.tables_note, "instanceTablesNote", "The contract's Cirrus tables")
        self.table_button.clicked.connect(lambda: self._open_table(self.tables.table))
        self.history_button.clicked.connect(lambda: self._open_table(self.tables.history))
        self.address_button.clicked.connect(lambda: links.show_address(instance.address))
        self.composer_button.clicked.connect(lambda: self._open_method(""))

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("instanceTabs")
        # seven tabs (with Read, Code, Token) do not fit the narrow pane at 1024 px: whole
        # titles with scroll arrows, not "S…", "R…" (nor a pane pushed past the window's edge:
        # without arrows a tab widget is at least as wide as all its titles)
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(True)
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)
        # state
        self.state_model = StateModel(self.service, self.tasks, self)
        self.state_view = QTreeView(self)
        name_widget(self.state_view, "instanceState", "State variables")
        self.state_view.setModel(self.state_model)
        self.state_view.setUniformRowHeights(True)
        self.state_view.header().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.state_view.setColumnWidth(0, 130)
        self.state_view.setColumnWidth(1, 70)
        self.state_view.header().setStretchLastSection(True)
        self.state_view.activated.connect(self._state_activated)
        self.state_view.clicked.connect(self._state_clicked)
        self.state_status = QLabel("Reading the state…", self)
        self.state_status.setWordWrap(True)  # one long line made the pane wider than the window
        state_page = QWidget(self)
        sl = QVBoxLayout(state_page)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.state_status)
        sl.addWidget(self.state_view, 1)
        self.tabs.addTab(state_page, "&State")
        # methods
        self.methods = QListWidget(self)
        name_widget(self.methods, "instanceMethods", "Functions: activate one to call it")
        self.methods.itemClicked.connect(self._method_item)
        self.methods.itemActivated.connect(self._method_item)
        self.tabs.addTab(self.methods, "&Write")
        self.tabs.setTabToolTip(1, "The functions that change state: each opens the composer")
        # transactions: the Transactions view's lazy model, filtered by the instance's
        # address, its creation pinned first (a CONTRACT transaction has no `to`: the address
        # filter misses it); read a page at a time as the list is scrolled
        self.explorer = ExplorerService(controller.session, self)
        self.txs_model = TransactionsModel(self.explorer, self._start, self)
        self.txs_model.set_names(controller.address_names())
        self.txs_model.set_name_service(controller.names)
        self.txs_model.set_words(controller.tx_words)
        self.txs_model.failed.connect(self._tx_failed)
        self.txs_model.loaded.connect(self._tx_counted)
        self.txs = ExplorerTable(self)
        self.txs.setModel(self.txs_model)
        for col, width in enumerate((150, 70, 130, 120, 120, 70, 60, 70)):
            self.txs.setColumnWidth(col, width)
        name_widget(self.txs, "instanceTransactions", "Transactions of the instance")
        self.txs.activated.connect(self._tx_chosen)
        self.txs.clicked.connect(self._tx_chosen)
        self.txs_status = QLabel("Reading the transactions…", self)
        self.txs_status.setWordWrap(True)
        name_widget(self.txs_status, "instanceTransactionsStatus", "Transactions of the instance")
        txs_page = QWidget(self)
        tl = QVBoxLayout(txs_page)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.txs_status)
        tl.addWidget(self.txs, 1)
        self.tabs.addTab(txs_page, "T&xs")
        self.tabs.setTabToolTip(
            self.tabs.indexOf(txs_page), "The transactions of the instance, its creation first"
        )
        # events
        self.events = EventsView(
            controller,
            links,
            self,
            contract=instance.name,
            address=instance.address,
            tasks=self.tasks,
        )
        self.tabs.addTab(self.events, "&Events")

        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.hide()  # shown with an error only
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(form)
        lay.addLayout(links_row)
        lay.addLayout(links_row2)
        lay.addWidget(self.tables_note)
        lay.addWidget(self.status)
        lay.addWidget(self.tabs, 1)

        self.state_model.failed.connect(self._failed)
        self._read()
        self.page = ContractPage(self)  # Read, Code and (a token's) Token tabs

    # ------------------------------------------------------------ reading

    def stop(self) -> None:
        """Another detail replaces this one: its reads still under way are cancelled."""
        self.tasks.cancel()

    def _read(self) -> None:
        tasks = self.tasks
        inst = self.instance
        tasks.start(
            f"Reading {inst.name}",
            self._spec_and_state(),
            while_alive(self, self._set_spec_state),
            while_alive(self, self._failed),
        )
        tasks.start(
            f"Transactions of {inst.name}",
            self._creation_and_head(),
            while_alive(self, self._set_transactions),
            while_alive(self, self._tx_failed),
        )
        tasks.start(
            f"Cirrus tables of {inst.name}",
            self.service.instance_tables(inst),
            while_alive(self, self._set_tables),
            while_alive(self, self._tables_failed),
        )

    def _set_tables(self, tables: InstanceTables) -> None:
        self.tables = tables
        name = self.instance.name
        self.table_button.setEnabled(bool(tables.table))
        self.history_button.setEnabled(bool(tables.history))
        if tables.table:
            self.table_button.setToolTip(f"Open {tables.table} in the Tables panel")
        if tables.history:
            self.history_button.setToolTip(f"Open {tables.history} in the Tables panel")
        self.tables_label.setText(
            ", ".join(t for t in (tables.table, tables.history) if t) or "none"
        )
        notes = []
        if not tables.known:
            notes.append(
                "The node does not describe its Cirrus tables: the links use the contract's "
                "name, which may not be its table's."
            )
        elif not tables.table:
            notes.append(f"Cirrus has no table of {name}: its rows are not indexed.")
        elif not tables.history:
            notes.append(
                f"No {history_of(tables.table)} table: {name} was created without history."
            )
        self.tables_note.setText(" ".join(notes))
        self.tables_note.setVisible(bool(notes))

    def _open_table(self, table: str) -> None:
        """The table with the instance's rows only (all instances of a contract share it)."""
        inst = self.instance
        where = [Condition("address", "eq", inst.address)]
        if inst.chain_id and self.tables.by_chain(table):
            where.append(Condition("chainId", "eq", inst.chain_id))
        self.table_requested.emit(table, CirrusQuery(table, where=Group("and", list(where))))

    def _tables_failed(self, text: str) -> None:
        self.tables_note.setText(f"✘ Could not look up the Cirrus tables: {text}")
        self.tables_note.show()

    async def _spec_and_state(self) -> tuple[ContractSpec, list[StateVar]]:
        spec, xabi = await self.service.contract_spec(self.instance)
        return spec, await self.service.state_overview(self.instance, xabi)

    def _set_spec_state(self, result: tuple[ContractSpec, list[StateVar]]) -> None:
        spec, variables = result
        self.spec = spec
        self.state_model.set_state(self.instance, variables)
        big = sum(1 for v in variables if v.collection)
        self.state_status.setText(
            f"{len(variables)} state variable{'s' if len(variables) != 1 else ''}"
            + ("; expand a mapping or array to read its first entries" if big else "")
        )
        self.methods.clear()
        writes = [f for f in spec.functions if not f.is_view]  # the views are on Read
        for f in writes:
            item = QListWidgetItem(f.signature())
            item.setData(METHOD_ROLE, f.name)
            item.setToolTip(f"Open {f.name} in the composer's Call tab, this contract chosen")
            self.methods.addItem(item)
        if not writes:
            self.methods.addItem(QListWidgetItem("(no functions that change state)"))

    def _start(
        self,
        coro: Coroutine[Any, Any, Any],
        done: Callable[[Any], None],
        failed: Callable[[str], None],
        background: bool = False,
    ) -> asyncio.Task[Any]:
        """The transactions model's reads (a Starter), cancelled with the detail's others."""
        return self.tasks.start(
            f"Transactions of {self.instance.name}",
            coro,
            while_alive(self, done),
            while_alive(self, failed),
            background="new block" if background else "",
        )

    async def _creation_and_head(self) -> tuple[Transaction | None, int]:
        """The creation (pinned first) and the newest block, under which the list is paged."""
        creation, head = await asyncio.gather(
            self.service.creation(self.instance), self.explorer.head(fresh=True)
        )
        return creation, max(head, self.instance.created_block or -1)

    def _set_transactions(self, result: tuple[Transaction | None, int]) -> None:
        creation, head = result
        inst = self.instance
        f = TxFilter(address=inst.address.lower().removeprefix("0x"), chain=inst.chain_id)
        pinned = tx_row(creation) if creation is not None else None
        self.txs_model.reset(head, f, pinned, CREATED)
        self._tx_counted()

    def _tx_counted(self) -> None:
        m = self.txs_model
        n = m.rowCount()
        if n == 0 and m.at_end:
            self.txs_status.setText("No transactions to or from this address.")
            return
        more = "" if m.at_end else "+ (more as you scroll)"
        first = ", its creation first" if m.pinned is not None else ""
        self.txs_status.setText(
            f"{n:,}{more} transaction{'s' * (n != 1 or bool(more))}{first}: click one to inspect it"
        )

    def _failed(self, text: str) -> None:
        self.status.setText(f"✘ {text}")
        self.status.show()
        self.state_status.setText("")

    def _tx_failed(self, text: str) -> None:
        self.txs_status.setText(f"✘ Could not read the transactions: {text}")

    # ------------------------------------------------------------ actions

    def _state_clicked(self, index: QModelIndex) -> None:
        if self.state_model.is_more_row(index):
            self.state_model.load_more(index)

    def _state_activated(self, index: QModelIndex) -> None:
        if self.state_model.is_more_row(index):
            self.state_model.load_more(index)
        elif index.isValid() and index.internalId() == 0:
            self.state_view.setExpanded(index, not self.state_view.isExpanded(index))

    def _method_item(self, item: QListWidgetItem) -> None:
        method = item.data(METHOD_ROLE)
        if method:
            self._open_method(str(method))

    def _open_method(self, method: str) -> None:
        i = self.instance
        self.contract_requested.emit(i.name, i.address, i.chain_id, method)

    def _tx_chosen(self, index: QModelIndex) -> None:
        tx = index.data(TX_ROLE)
        if tx is not None:
            self.links.show_transaction(tx.hash)
