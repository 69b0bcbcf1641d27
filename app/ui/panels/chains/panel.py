"""Chains panel: the chains a user can access as a tree, and everything about the selected one.

The main chain is at the top and each private chain sits under its parent. For the selected
chain the panel shows its label and ID, members, balances, governance contract and source, the
contracts on it, the membership events emitted on it and its transactions (double-click one to
inspect it). *New chain…* opens the creation wizard; the new chain is selected once it exists.
Lists are read when the panel is on screen and again when the user changes.
"""

from __future__ import annotations

import asyncio
import itertools
from html import escape
from typing import Any

from PySide6.QtCore import QItemSelection, QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.client.errors import StratoError
from app.services.chains import ChainActivity, ChainContract, ChainInfo, Identity
from app.services.controller import AppController
from app.ui.panels.chains.create_dialog import CreateChainDialog
from app.ui.panels.chains.models import (
    MAIN_CHAIN,
    BalancesModel,
    ChainTransactionsModel,
    ChainTreeModel,
    ContractsModel,
    EventsModel,
    MembersModel,
    members_summary,
)
from app.ui.shell.theme import scheme_is_dark
from app.ui.widgets.common import CopyField, ReadsWhenShown, copy_text, name_widget, while_alive
from app.ui.widgets.scroll import scroll_area
from app.ui.widgets.source_editor import SourceEditor

WATCH_DELAY_MS = 2000  # after the last new block, look for chains created elsewhere
TABS = ("Overview", "Members", "Balances", "Governance", "Contracts", "Membership", "Transactions")


class ChainsPanel(ReadsWhenShown):
    """Signals:
    transaction_requested(str): the user wants to inspect a transaction.
    contract_requested(str, str, str): open a contract (name, address, chain id) in the composer.
    """

    title = "Chains"
    transaction_requested = Signal(str)
    contract_requested = Signal(str, str, str)

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(self.reload, parent)
        self.setObjectName("chainsPanel")
        self.setAccessibleName("Chain browser")
        self.controller = controller
        self.service = controller.chains
        self.model = ChainTreeModel(self)
        self.identities: list[Identity] = []
        self.names: dict[str, str] = {}  # address -> user name
        self.activity: ChainActivity | None = None
        self.loaded = False  # the tree holds the node's answer
        self._select_after_load: str | None = None
        self._activity_task: asyncio.Task[Any] | None = None
        self.dialog: CreateChainDialog | None = None
        # chains created elsewhere (another app, a script) appear by themselves: a few seconds
        # after new blocks the list of chain IDs is read and the tree reloads only if it changed
        self._watch = QTimer(self)
        self._watch.setSingleShot(True)
        self._watch.setInterval(WATCH_DELAY_MS)
        self._watch.timeout.connect(self._check_for_new_chains)
        self._watch_task: asyncio.Task[Any] | None = None
        controller.session.block_changed.connect(self._on_block)

        # -- toolbar
        self.new_button = QPushButton("New chain…", self)
        name_widget(self.new_button, "chainsNew", "Create a private chain")
        self.new_button.clicked.connect(lambda: self.open_create_dialog(""))
        self.new_child_button = QPushButton("New child chain…", self)
        name_widget(self.new_child_button, "chainsNewChild", "Create a chain under this one")
        self.new_child_button.setToolTip("Create a private chain whose parent is the selected one")
        self.new_child_button.clicked.connect(
            lambda: self.open_create_dialog(self.selected_id() or "")
        )
        self.refresh_button = QPushButton("Refresh", self)
        name_widget(self.refresh_button, "chainsRefresh", "Reload the chains")
        self.refresh_button.clicked.connect(self._refresh_clicked)
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        name_widget(self.status, "chainsStatus", "Chains status")
        top = QHBoxLayout()
        top.addWidget(self.new_button)
        top.addWidget(self.new_child_button)
        top.addWidget(self.refresh_button)
        top.addWidget(self.status, 1)

        # -- tree
        self.tree = QTreeView(self)
        name_widget(self.tree, "chainsTree", "Chains")
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(True)
        self.tree.selectionModel().selectionChanged.connect(self._selection_changed)

        # -- details
        self.heading = QLabel("", self)
        name_widget(self.heading, "chainsHeading", "Selected chain")
        self.chain_id = CopyField("chainsChainId", "Chain ID", self)
        self.tabs = QTabWidget(self)
        name_widget(self.tabs, "chainsTabs", "Chain details")
        self.tabs.addTab(scroll_area(self._overview(), "chainsOverviewArea"), TABS[0])
        self.members = MembersModel(self)
        self.members_view = self._table(self.members, "chainsMembers", "Members")
        self.tabs.addTab(self.members_view, TABS[1])
        self.balances = BalancesModel(self)
        self.balances_view = self._table(self.balances, "chainsBalances", "Balances")
        self.tabs.addTab(self.balances_view, TABS[2])
        self.tabs.addTab(self._governance(), TABS[3])
        self.contracts = ContractsModel(self)
        self.contracts_view = self._table(self.contracts, "chainsContracts", "Contracts")
        self.contracts_view.setToolTip("Double-click opens the contract in the composer")
        self.contracts_view.doubleClicked.connect(self._open_contract)
        self.copy_contract = QPushButton("Copy address", self)
        name_widget(self.copy_contract, "chainsCopyContract", "Copy the contract's address")
        self.copy_contract.clicked.connect(self._copy_contract)
        self.tabs.addTab(self._with_note(self.contracts_view, self.copy_contract), TABS[4])
        self.events = EventsModel(self)
        self.events_view = self._table(self.events, "chainsEvents", "Membership events")
        self.events_view.setToolTip("Double-click opens the transaction")
        self.events_view.doubleClicked.connect(self._open_event)
        self.events_note = QLabel("", self)
        self.events_note.setWordWrap(True)
        name_widget(self.events_note, "chainsEventsNote", "About the membership events")
        self.tabs.addTab(self._with_note(self.events_view, self.events_note), TABS[5])
        self.txs = ChainTransactionsModel(self)
        self.txs_view = self._table(self.txs, "chainsTransactions", "Transactions")
        self.txs_view.setToolTip("Double-click opens the transaction")
        self.txs_view.doubleClicked.connect(self._open_transaction)
        self.txs_note = QLabel("", self)
        self.txs_note.setWordWrap(True)
        name_widget(self.txs_note, "chainsTransactionsNote", "About the transactions")
        self.tabs.addTab(self._with_note(self.txs_view, self.txs_note), TABS[6])
        details = QWidget(self)
        dl = QVBoxLayout(details)
        dl.setContentsMargins(0, 0, 0, 0)
        dl.addWidget(self.heading)
        dl.addWidget(self.chain_id)
        dl.addWidget(self.tabs, 1)

        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.tree)
        split.addWidget(details)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 2)  # the detail tabs need the width
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(split, 1)

        # Tab follows the layout (the copy button sits above its table)
        chain = [
            self.new_button,
            self.new_child_button,
            self.refresh_button,
            self.tree,
            self.chain_id.edit,
            self.chain_id.button,
            self.tabs,
            self.o_parent_id.edit,
            self.o_parent_id.button,
            self.members_view,
            self.balances_view,
            self.g_source,
            self.copy_contract,
            self.contracts_view,
            self.events_view,
            self.txs_view,
        ]
        for a, b in itertools.pairwise(chain):
            QWidget.setTabOrder(a, b)

        controller.session.user_changed.connect(self._on_user)
        self.service.created.connect(self._on_created)
        self._show_chain(None, loading=False)

    # ------------------------------------------------------------ building

    def _table(self, model: Any, name: str, accessible: str) -> QTableView:
        view = QTableView(self)
        view.setModel(model)
        name_widget(view, name, accessible)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setWordWrap(False)
        view.setTabKeyNavigation(False)  # Tab leaves the table; arrows move in it
        view.verticalHeader().setVisible(False)
        view.horizontalHeader().setStretchLastSection(True)
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        return view

    def _with_note(self, view: QTableView, note: QWidget) -> QWidget:
        w = QWidget(self)
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(note)
        lay.addWidget(view, 1)
        return w

    def _value(self, name: str, accessible: str) -> QLabel:
        label = QLabel("", self)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(label, name, accessible)
        return label

    def _overview(self) -> QWidget:
        w = QWidget(self)
        self.o_label = self._value("chainsLabel", "Label")
        self.o_parent = self._value("chainsParent", "Parent chain")
        self.o_parent_id = CopyField("chainsParentId", "Parent chain ID", w)
        self.o_governance = self._value("chainsGovernance", "Governance contract")
        self.o_vm = self._value("chainsVm", "VM and history")
        self.o_members = self._value("chainsMemberSummary", "Members")
        self.o_created = self._value("chainsCreated", "Created")
        form = QFormLayout(w)
        form.addRow("Label", self.o_label)
        form.addRow("Parent", self.o_parent)
        form.addRow("", self.o_parent_id)
        form.addRow("Governance", self.o_governance)
        form.addRow("Metadata", self.o_vm)
        form.addRow("Members", self.o_members)
        form.addRow("Created", self.o_created)
        return w

    def _governance(self) -> QWidget:
        w = QWidget(self)
        self.g_name = self._value("chainsGovernanceName", "Governance contract name")
        self.g_source = SourceEditor(w, dark=scheme_is_dark())
        self.g_source.setReadOnly(True)
        name_widget(self.g_source, "chainsGovernanceSource", "Governance contract source")
        lay = QVBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.g_name)
        lay.addWidget(self.g_source, 1)
        return w

    # ------------------------------------------------------------ loading

    def _on_user(self, _name: str) -> None:
        self.mark_stale()

    def _on_created(self, chain_id: str) -> None:
        """A new chain (even if its dialog was closed meanwhile): show it, selected."""
        self._select_after_load = chain_id
        self.mark_stale()

    def _refresh_clicked(self) -> None:
        self.reload()

    def _on_block(self, _number: int) -> None:
        self._watch.start()

    def _check_for_new_chains(self) -> None:
        if not self.isVisible():
            self._stale = True  # read when next shown
            return
        if not self.loaded or self.controller.session.client is None:
            return
        if self._watch_task is not None and not self._watch_task.done():
            return
        self._watch_task = self.controller.tasks.start(
            "Checking for new chains",
            self.service.chains(),
            on_done=while_alive(self, self._compare_chains),
            on_error=lambda _text: None,  # a missed check is caught by the next block
            background="new block",
        )

    def _compare_chains(self, chains: list[ChainInfo]) -> None:
        now = {c.id for c in chains}
        shown = {c.id for c in self.model.chains()}
        if now != shown:
            self.reload()

    def reload(self, select: str | None = None) -> None:
        """Read the chains (and the node's identities) again; ``select`` a chain when done."""
        if self.controller.session.client is None:
            self._stale = True  # not connected yet: the sign-in's user_changed brings us back
            return
        self._stale = False
        if select is not None:
            self._select_after_load = select
        self.status.setText("Loading chains…")
        self.controller.tasks.start(
            "Listing chains",
            self._load(),
            on_done=while_alive(self, self._loaded),
            on_error=while_alive(self, self._failed),
        )

    async def _load(self) -> tuple[list[ChainInfo], list[Identity]]:
        chains = await self.service.chains()
        try:
            identities = await self.service.identities()
        except StratoError:  # no identity registry (an old node): names are a nicety
            identities = []
        return chains, identities

    def _loaded(self, result: tuple[list[ChainInfo], list[Identity]]) -> None:
        chains, identities = result
        self.identities = identities
        self.names = {i.address: i.common_name for i in identities if i.address}
        keep = self._select_after_load
        if keep is None:
            keep = self.selected_id() or ""
        self._select_after_load = None
        self.model.set_chains(chains)
        self.tree.expandAll()
        self.loaded = True
        n = len(chains)
        hidden = len(self.model.orphans)
        self.status.setText(
            f"{n} private chain(s) you can access"
            + (
                f"; {hidden} under the main chain because their parent is not visible"
                if hidden
                else ""
            )
        )
        self.select(keep if self.model.index_of(keep).isValid() else "")

    def _failed(self, text: str) -> None:
        self.status.setText(f"✘ {text}")

    # ------------------------------------------------------------ selection

    def select(self, chain_id: str) -> bool:
        """Select a chain ("" = the main chain); False when it is not in the tree."""
        index = self.model.index_of(chain_id)
        if not index.isValid():
            return False
        self.tree.setCurrentIndex(index)
        self.tree.scrollTo(index)
        if self.selected_id() == chain_id and self.activity is None and self._activity_task is None:
            self._selection_changed()
        return True

    def selected_id(self) -> str | None:
        """The selected chain's ID ("" = the main chain; None = nothing selected)."""
        index = self.tree.currentIndex()
        if not index.isValid():
            return None
        return str(self.model.data(index.siblingAtColumn(0), Qt.ItemDataRole.UserRole))

    def selected_chain(self) -> ChainInfo | None:
        cid = self.selected_id()
        return self.model.chain(cid) if cid else None

    def _selection_changed(self, *_args: QItemSelection) -> None:
        cid = self.selected_id()
        if cid is None:
            return
        self._show_chain(self.model.chain(cid) if cid else None)

    def _show_chain(self, chain: ChainInfo | None, *, loading: bool = True) -> None:
        self.new_child_button.setEnabled(chain is not None)
        if self._activity_task is not None:
            self._activity_task.cancel()
            self._activity_task = None
        self.activity = None
        if chain is None:
            self.heading.setText(f"<b>{MAIN_CHAIN}</b>")
            self.chain_id.set_value("")
            self.o_label.setText(MAIN_CHAIN)
            self.o_parent.setText("—")
            self.o_parent_id.set_value("")
            self.o_parent_id.setVisible(False)
            self.o_governance.setText("— (the main chain has no governance contract)")
            self.o_vm.setText("—")
            self.o_members.setText("every user of the node")
            self.o_created.setText("at the node's genesis")
            self.members.set_members(())
            self.balances.set_balances((), self.names)
            self.g_name.setText("The main chain has no governance contract.")
            self.g_source.setPlainText("")
        else:
            self.heading.setText(f"<b>{escape(chain.title())}</b>")
            self.chain_id.set_value(chain.id)
            self.o_label.setText(chain.label or "(no label)")
            if chain.parent:
                parent = self.model.chain(chain.parent)
                self.o_parent.setText(
                    parent.title() if parent else "a chain you cannot see (its ID below)"
                )
            else:
                self.o_parent.setText(f"{MAIN_CHAIN} (no parentChain)")
            self.o_parent_id.set_value(chain.parent)
            self.o_parent_id.setVisible(bool(chain.parent))
            gov = chain.governance or "(not named by the node)"
            self.o_governance.setText(f"{gov} at 0000…0100")
            self.o_vm.setText(
                f"VM {chain.vm or '(node default)'}; history: {chain.history or 'none'}"
            )
            self.o_members.setText(members_summary(chain.members, 10))
            created = []
            if chain.creation_number >= 0:
                created.append(f"block {chain.creation_number}")
            if chain.creation_block:
                created.append(f"hash {chain.creation_block[:16]}…")
            if chain.creator:
                who = self.names.get(chain.creator, chain.creator)
                created.append(f"by {who}")
            self.o_created.setText(", ".join(created) or "(not said by the node)")
            self.members.set_members(chain.members)
            self.balances.set_balances(chain.balances, self.names)
            self.g_name.setText(f"<b>{escape(gov)}</b> — the contract at address 0x100")
            self.g_source.setPlainText(chain.source or "// the node did not send the source")
        self.contracts.set_contracts([])
        self.events.set_events([], self.names)
        self.txs.set_transactions([], self.names)
        self._set_tab_counts()
        self.events_note.setText(
            "Membership events belong to private chains."
            if chain is None
            else "Loading…"
            if loading
            else ""
        )
        self.txs_note.setText("Loading…" if loading else "")
        if loading:
            self._load_activity(chain)

    def _load_activity(self, chain: ChainInfo | None) -> None:
        cid = chain.id if chain else ""

        def done(act: ChainActivity) -> None:
            self._activity_task = None
            if act.chain_id != (self.selected_id() or ""):
                return
            self.activity = act
            self.contracts.set_contracts(act.contracts)
            self.events.set_events(act.events, self.names)
            self.txs.set_transactions(act.transactions, self.names)
            if chain is not None:
                self.events_note.setText(
                    act.note
                    or (
                        f"{len(act.events)} membership change(s) on this chain"
                        if act.events
                        else "No membership events on this chain: its members are as created."
                    )
                )
            more = " (the first ones: there are more)" if act.truncated else ""
            self.txs_note.setText(
                (
                    "The node's latest transactions on the main chain"
                    if chain is None
                    else f"{len(act.transactions)} transaction(s) on this chain{more}"
                )
                + "; double-click one to inspect it."
            )
            self._set_tab_counts()

        def failed(text: str) -> None:
            self._activity_task = None
            if cid == (self.selected_id() or ""):
                self.txs_note.setText(f"✘ {text}")
                self.events_note.setText(f"✘ {text}")

        self._activity_task = self.controller.tasks.start(
            f"Reading chain {cid[:8] or 'main'}",
            self.service.activity(chain),
            on_done=while_alive(self, done),
            on_error=while_alive(self, failed),
        )

    def _set_tab_counts(self) -> None:
        counts = {
            1: self.members.rowCount(),
            2: self.balances.rowCount(),
            4: self.contracts.rowCount(),
            5: self.events.rowCount(),
            6: self.txs.rowCount(),
        }
        for i, n in counts.items():
            self.tabs.setTabText(i, f"{TABS[i]} ({n})" if n else TABS[i])

    # ------------------------------------------------------------ actions

    def _open_transaction(self, index: QModelIndex) -> None:
        tx = self.txs.transaction(index.row())
        if tx is not None and tx.hash:
            self.transaction_requested.emit(tx.hash)

    def _open_event(self, index: QModelIndex) -> None:
        e = self.events.event_at(index.row())
        if e is not None and e.tx_hash:
            self.transaction_requested.emit(e.tx_hash)

    def _contract_at(self, index: QModelIndex) -> ChainContract | None:
        c = self.contracts.data(index.siblingAtColumn(0), Qt.ItemDataRole.UserRole)
        return c if isinstance(c, ChainContract) else None

    def _open_contract(self, index: QModelIndex) -> None:
        c = self._contract_at(index)
        if c is not None:
            self.contract_requested.emit(c.name, c.address, c.chain_id)

    def _copy_contract(self) -> None:
        c = self._contract_at(self.contracts_view.currentIndex())
        if c is not None:
            copy_text(c.address, self.copy_contract, f"{c.name} address")

    def open_create_dialog(self, parent_chain: str = "") -> CreateChainDialog:
        """The creation wizard (non-blocking); a created chain is selected in the tree
        (``ChainService.created``)."""
        dialog = CreateChainDialog(self.controller, self.model.chains(), parent_chain, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = dialog
        dialog.open()
        return dialog
