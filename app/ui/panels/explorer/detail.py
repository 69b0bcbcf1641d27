"""The Explorer's detail pane (one for all views): a transaction (the transaction inspector,
embedded), a block (its header and transactions), or any widget a view hands it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.client.models import Block
from app.services.controller import AppController
from app.services.explorer import ExplorerService, TxFilter
from app.ui.panels.explorer.page_bars import block_bar
from app.ui.panels.explorer.paging import Starter
from app.ui.panels.explorer.table import ExplorerTable
from app.ui.panels.explorer.transactions_model import COLUMNS, TX_ROLE, TransactionsModel
from app.ui.shell.tx_inspector import TxInspector
from app.ui.widgets.common import CopyField, name_widget, while_alive


class BlockDetail(QWidget):
    """A block's header fields and its transactions. Signals: tx_clicked(str),
    block_clicked(int) (the previous or next block), block_txs(int) (its transactions in the
    Transactions view). Its transactions are the Transactions view's lazy model with the
    block range [n, n]: a block of thousands is read a page at a time as it is scrolled."""

    tx_clicked = Signal(str)
    block_clicked = Signal(int)
    block_txs = Signal(int)

    def __init__(
        self, service: ExplorerService, start: Starter, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.number = -1
        self.number_label = QLabel("—", self)
        name_widget(self.number_label, "blockNumber", "Block number")
        self.time_label = QLabel("—", self)
        name_widget(self.time_label, "blockTime", "Block time")
        self.hash_field = CopyField("blockHash", "Block hash", self)
        self.parent_field = CopyField("blockParent", "Parent hash", self)
        self.previous = QPushButton("◀ Previous", self)
        name_widget(self.previous, "blockPrevious", "Previous block")
        self.previous.clicked.connect(lambda: self.block_clicked.emit(self.number - 1))
        self.next = QPushButton("Next ▶", self)
        name_widget(self.next, "blockNext", "Next block")
        self.next.clicked.connect(lambda: self.block_clicked.emit(self.number + 1))
        self.filter_button = QPushButton("In Transactions", self)
        self.filter_button.setToolTip("Show this block's transactions in the Transactions view")
        name_widget(self.filter_button, "blockTxsFilter", "This block's transactions")
        self.filter_button.clicked.connect(lambda: self.block_txs.emit(self.number))
        self.model = TransactionsModel(service, start, self)
        self.table = ExplorerTable(self)
        self.table.setModel(self.model)
        for col, width in enumerate((110, 70, 130, 120, 120, 70, 60, 70)):
            self.table.setColumnWidth(col, width)
        self.table.hideColumn(COLUMNS.index("Block"))  # the same on every row: this block
        name_widget(self.table, "blockTransactions", "The block's transactions")
        self.table.activated.connect(self._open)
        self.table.clicked.connect(self._open)
        self.model.failed.connect(self._failed)
        form = QFormLayout()
        form.addRow("Block", self.number_label)
        form.addRow("Time", self.time_label)
        form.addRow("Hash", self.hash_field)
        form.addRow("Parent", self.parent_field)
        buttons = QHBoxLayout()
        buttons.addWidget(self.previous)
        buttons.addWidget(self.next)
        buttons.addStretch(1)
        buttons.addWidget(self.filter_button)
        self.count_label = QLabel("Transactions", self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(form)
        lay.addLayout(buttons)
        lay.addWidget(self.count_label)
        lay.addWidget(self.table, 1)

    def show_block(self, block: Block) -> None:
        self.number = block.number
        self.number_label.setText(f"{block.number:,}")
        self.time_label.setText(block.timestamp.replace("T", " ").removesuffix(".000Z"))
        self.hash_field.set_value(block.hash)
        self.parent_field.set_value(block.parent_hash)
        self.previous.setEnabled(block.number > 0)
        n = block.number  # the filter of the "In Transactions" button
        self.model.reset(n, TxFilter(min_block=n, max_block=n))
        self.table.scrollToTop()
        n = len(block.transactions)
        self.count_label.setText(f"{n:,} transaction{'s' * (n != 1)} (click one to inspect it)")

    def _failed(self, text: str) -> None:
        self.count_label.setText(f"✘ Could not read the transactions: {text}")

    def stop(self) -> None:
        """Another detail replaces the block: its reads in flight are cancelled."""
        self.model.pages.clear()

    def _open(self, index: QModelIndex) -> None:
        tx = index.data(TX_ROLE)
        if tx is not None:
            self.tx_clicked.emit(tx.hash)


class DetailPane(QWidget):
    """What the Explorer's views show in detail; one pane, one widget at a time."""

    def __init__(
        self, controller: AppController, service: ExplorerService, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.service = service
        self.title = QLabel("Select a block or a transaction", self)
        self.title.setWordWrap(True)
        name_widget(self.title, "explorerDetailTitle", "Detail")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.stack = QStackedWidget(self)
        self.empty = QLabel(
            "A block's header and transactions, or a transaction in full, show here.", self
        )
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.inspector = TxInspector(controller, "", self, links=True)
        self.inspector.setObjectName("explorerInspector")
        self.inspector.title_changed.connect(self.title.setText)
        self.block = BlockDetail(service, self._start, self)
        self.block.model.set_names(controller.address_names())
        self.block.model.set_name_service(controller.names)
        self.block.model.set_words(controller.tx_words)
        controller.names_changed.connect(self.block.model.set_names)
        self.block_bar = block_bar(self)  # count and Export ▾ of the block's transactions
        self.note = QLabel("", self)
        self.note.setWordWrap(True)
        for w in (self.empty, self.inspector, self.block, self.note):
            self.stack.addWidget(w)
        self._other: QWidget | None = None
        self._block_task: asyncio.Task[Any] | None = None
        self.generation = 0  # which detail is the newest: an older one's answer is dropped
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 0, 0, 0)
        lay.addWidget(self.title)
        lay.addWidget(self.stack, 1)

    def _replace(self) -> int:
        """A new detail replaces the one shown: the old one's reads are cancelled."""
        self.generation += 1
        if self._block_task is not None:
            self._block_task.cancel()
            self._block_task = None
        self.block.stop()
        stop = getattr(self._other, "stop", None)
        if callable(stop):
            stop()
        return self.generation

    def _start(
        self,
        coro: Coroutine[Any, Any, Any],
        done: Callable[[Any], None],
        failed: Callable[[str], None],
        background: bool = False,
    ) -> asyncio.Task[Any]:
        """The block's model reads (a :class:`Starter`)."""
        return self.controller.tasks.start(
            "Reading a block's transactions",
            coro,
            on_done=while_alive(self, done),
            on_error=while_alive(self, failed),
            background="new block" if background else "",
        )

    def show_transaction(self, tx_hash: str) -> None:
        self._replace()
        self.title.setText(f"Transaction {tx_hash[:10]}…")
        self.stack.setCurrentWidget(self.inspector)
        self.inspector.show_hash(tx_hash)

    def show_block(self, number: int, done: Callable[[], None] | None = None) -> None:
        self.inspector.stop()
        gen = self._replace()
        self.title.setText(f"Block {number:,}")
        self.note.setText("Reading the block…")
        self.stack.setCurrentWidget(self.note)

        def got(block: Block | None) -> None:
            if gen != self.generation:  # another detail was chosen meanwhile
                return
            if block is None:
                self.note.setText(f"The node has no block {number:,}.")
                return
            self.block.show_block(block)
            self.stack.setCurrentWidget(self.block)
            if done is not None:
                done()

        def failed(text: str) -> None:
            if gen == self.generation:
                self.note.setText(text)

        self._block_task = self.controller.tasks.start(
            f"Reading block {number}",
            self.service.block(number),
            on_done=while_alive(self, got),
            on_error=while_alive(self, failed),
        )

    def show_detail(self, widget: QWidget, title: str) -> None:
        self.inspector.stop()
        if widget is not self._other:
            self._replace()
        if self._other is not None and self._other is not widget:
            self.stack.removeWidget(self._other)
            self._other.deleteLater()
        self._other = widget
        if self.stack.indexOf(widget) < 0:
            self.stack.addWidget(widget)
        self.title.setText(title)
        self.stack.setCurrentWidget(widget)
