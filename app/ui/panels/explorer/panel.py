"""The Explorer panel: views of the chain (Blocks, Transactions; Contracts and Events are added
with :meth:`ExplorerPanel.add_view`) beside one detail pane.

Nothing is read while the panel is hidden: the models read the rows they are asked to paint,
and new blocks are followed (the session's head, polled by the app anyway) only while shown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QHideEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import QLabel, QSplitter, QTabWidget, QVBoxLayout, QWidget

from app.services.controller import AppController
from app.services.explorer import ExplorerService, TxFilter
from app.ui.panels.explorer.account_links import add_accounts
from app.ui.panels.explorer.blocks_model import BlocksModel
from app.ui.panels.explorer.contracts_view import ContractsView
from app.ui.panels.explorer.detail import DetailPane
from app.ui.panels.explorer.events_view import EventsView
from app.ui.panels.explorer.list_bars import add_list_bars
from app.ui.panels.explorer.transactions_model import TransactionsModel
from app.ui.panels.explorer.views import BlocksView, TransactionsView
from app.ui.shell.icons import icon
from app.ui.widgets.common import ReadsWhenShown, name_widget, while_alive


class ExplorerPanel(ReadsWhenShown):
    title = "Explorer"
    icon_name = "mdi6.cube-scan"

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(self.refresh, parent)
        self.setObjectName("explorerPanel")
        self.setAccessibleName("Explorer")
        self.controller = controller
        self.service = ExplorerService(controller.session, self)
        self.blocks_model = BlocksModel(self.service, self._start, self)
        self.txs_model = TransactionsModel(self.service, self._start, self)
        self.txs_model.set_names(controller.address_names())
        self.txs_model.set_name_service(controller.names)
        self.txs_model.set_words(controller.tx_words)
        self._reading = False

        self.blocks_view = BlocksView(self.blocks_model, self)
        self.txs_view = TransactionsView(self.txs_model, self)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        name_widget(self.tabs, "explorerViews", "Explorer views")
        self.detail = DetailPane(controller, self.service, self)
        self.message = QLabel("", self)
        self.message.setWordWrap(True)
        self.message.setVisible(False)
        name_widget(self.message, "explorerMessage", "Explorer message")
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("explorerSplitter")  # the window remembers its sizes
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.tabs)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self._split_once = False
        lay = QVBoxLayout(self)
        lay.addWidget(self.message)
        lay.addWidget(self.splitter, 1)
        self.add_view("Blocks", self.blocks_view, "mdi6.cube-outline")
        self.add_view("Transactions", self.txs_view, "mdi6.swap-horizontal")
        self.contracts_view = ContractsView(controller, self, self)
        self.contracts_view.contract_requested.connect(self._open_contract)
        self.contracts_view.table_requested.connect(self._open_table)
        self.add_view("Contracts", self.contracts_view, "mdi6.file-code-outline")
        self.events_view = EventsView(controller, self, self)
        self.add_view("Events", self.events_view, "mdi6.bell-outline")
        add_accounts(self, controller)  # the Accounts view and account pages
        add_list_bars(self)  # counts and exports of the Blocks and Transactions views

        self.blocks_view.block_chosen.connect(self.show_block)
        self.txs_view.tx_chosen.connect(self.show_transaction)
        self.txs_view.filter_changed.connect(self._filter)
        self.detail.inspector.block_clicked.connect(self.show_block)
        self.detail.inspector.address_clicked.connect(self.show_address)
        self.detail.block.tx_clicked.connect(self.show_transaction)
        self.detail.block.block_clicked.connect(self.show_block)
        self.detail.block.block_txs.connect(
            lambda n: self._show_filtered(TxFilter(min_block=n, max_block=n))
        )
        self.blocks_model.failed.connect(self._failed)
        self.txs_model.failed.connect(self._failed)
        self.service.head_changed.connect(self._advance)
        session = controller.session
        # another user or node: what the views hold may not be theirs to see
        session.user_changed.connect(self.mark_stale)
        session.state_changed.connect(self.mark_stale)
        controller.names_changed.connect(self.txs_model.set_names)

    # ------------------------------------------------------------ the API for views

    def add_view(self, title: str, view: QWidget, icon_name: str = "") -> None:
        """A view among Blocks, Transactions, Contracts, Events (a tab)."""
        if icon_name:
            self.tabs.addTab(view, icon(icon_name), title)
        else:
            self.tabs.addTab(view, title)

    def show_transaction(self, tx_hash: str) -> None:
        self.detail.show_transaction(tx_hash)

    def show_block(self, number: int) -> None:
        self.detail.show_block(number)

    def show_detail(self, widget: QWidget, title: str) -> None:
        self.detail.show_detail(widget, title)

    def show_address(self, address: str) -> None:
        """The transactions from or to ``address``."""
        self._show_filtered(TxFilter(address=address.lower().removeprefix("0x")))

    def _open_contract(self, name: str, address: str, chain_id: str, method: str) -> None:
        """An instance's method in the composer's Call tab (the window's navigation)."""
        opener = getattr(self.window(), "open_contract", None)
        if callable(opener):
            opener(name, address, chain_id, method)

    def _open_table(self, table: str, query: object = None) -> None:
        opener = getattr(self.window(), "open_table", None)
        if callable(opener):
            opener(table, query)

    def _show_filtered(self, f: TxFilter) -> None:
        self.tabs.setCurrentWidget(self.txs_view)
        self.txs_view.set_filter(f)

    # ------------------------------------------------------------ reading

    def _start(
        self,
        coro: Coroutine[Any, Any, Any],
        done: Callable[[Any], None],
        failed: Callable[[str], None],
        background: bool = False,
    ) -> asyncio.Task[Any]:
        return self.controller.tasks.start(
            "Reading the chain",
            coro,
            on_done=while_alive(self, done),
            on_error=while_alive(self, failed),
            background="new block" if background else "",
        )

    def showEvent(self, event: QShowEvent) -> None:
        if not self._split_once:
            # first show: lists 60 %, detail 40 % (the list's size hint would take nearly all;
            # a restored or dragged divider is applied after this and wins)
            self._split_once = True
            width = max(self.splitter.width(), self.width())
            self.splitter.setSizes([width * 3 // 5, width - width * 3 // 5])
        self.service.watch(True)
        self.txs_view.set_own_filters(self.service.own_filters)
        stale = self._stale
        super().showEvent(event)  # reads afresh when stale
        if not stale and self.controller.session.last_block is not None:
            self._advance(self.controller.session.last_block)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.service.watch(False)

    def refresh(self) -> None:
        """Read both views afresh from the node's newest block."""
        if self.controller.session.client is None:
            self._say("Connect to a node to browse its chain.")
            return
        if self._reading:
            return
        self._reading = True
        self._stale = False

        def got(head: int) -> None:
            self._reading = False
            self._say("")
            self.blocks_model.reset(head)
            self.txs_model.reset(head)

        def broke(text: str) -> None:
            self._reading = False
            self._stale = True
            self._failed(text)

        self._start(self.service.head(), got, broke)

    def _advance(self, head: int) -> None:
        if self.blocks_model.head < 0 and self.txs_model.anchor < 0:
            self.refresh()
            return
        self.blocks_model.advance(head)
        self.txs_model.advance(head)

    def _filter(self, f: TxFilter) -> None:
        head = max(self.blocks_model.head, self.txs_model.top_block)
        self.txs_model.reset(head, f)

    def _failed(self, text: str) -> None:
        self._say(f"Could not read the chain: {text}")

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    # ------------------------------------------------------------ menus

    def menu_actions(self) -> dict[str, list[QAction]]:
        go = QAction("Go to block…", self)
        go.setObjectName("actionExplorerGoTo")
        go.setShortcut(QKeySequence("Ctrl+Shift+B"))
        go.triggered.connect(lambda: self._blocks(self.blocks_view.number.setFocus))
        txs = QAction("Filter transactions…", self)
        txs.setObjectName("actionExplorerFilter")
        txs.triggered.connect(self._filter_focus)
        return {"View": [go, txs]}

    def _blocks(self, then: Callable[[], None]) -> None:
        self._show_panel()
        self.tabs.setCurrentWidget(self.blocks_view)
        then()

    def _filter_focus(self) -> None:
        self._show_panel()
        self.tabs.setCurrentWidget(self.txs_view)
        self.txs_view.sender_edit.setFocus()

    def _show_panel(self) -> None:
        window = self.window()
        nav = getattr(window, "nav", None)
        panels = getattr(window, "panels", None)
        if nav is not None and panels is not None and self in panels:
            nav.setCurrentRow(panels.index(self))
