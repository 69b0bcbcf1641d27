"""The Explorer's Blocks and Transactions views: a table over a lazy model and its controls."""

from __future__ import annotations

import re

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from app.services.explorer import TxFilter
from app.ui.panels.explorer.blocks_model import NUMBER_ROLE, WIDEST, BlocksModel
from app.ui.panels.explorer.pacing import Settle
from app.ui.panels.explorer.table import ExplorerTable
from app.ui.panels.explorer.transactions_model import TX_ROLE, TransactionsModel
from app.ui.widgets.common import name_widget

ADDRESS = re.compile(r"^(0x)?[0-9a-fA-F]{40}$")
CHAIN = re.compile(r"^(0x)?[0-9a-fA-F]{64}$")
NO_OWN_FILTER = (
    "This node's transaction route has no {what} filter (the platform's has none; the "
    "sandbox node's has): the list shows every {what}."
)


class BlocksView(QWidget):
    """Signals: block_chosen(int)."""

    block_chosen = Signal(int)

    def __init__(self, model: BlocksModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.table = ExplorerTable(self)
        self.table.setModel(model)
        name_widget(self.table, "explorerBlocks", "Blocks, newest first")
        self._fit_columns()
        self.table.activated.connect(self._chosen)
        self.table.clicked.connect(self._chosen)
        self.settle = Settle(self)
        self.table.selectionModel().currentRowChanged.connect(self._moved)
        self.newest = QPushButton("Newest", self)
        name_widget(self.newest, "blocksNewest", "Go to the newest block")
        self.newest.clicked.connect(self.go_newest)
        self.oldest = QPushButton("Oldest", self)
        name_widget(self.oldest, "blocksOldest", "Go to the oldest block")
        self.oldest.clicked.connect(self.go_oldest)
        self.number = QSpinBox(self)
        self.number.setRange(0, 2**31 - 1)
        self.number.setGroupSeparatorShown(True)
        name_widget(self.number, "blocksGoNumber", "Block number to go to")
        # Enter goes (leaving the box by Tab does not jump anywhere)
        self.number.lineEdit().returnPressed.connect(lambda: self.go_to(self.number.value()))
        self.go = QPushButton("Go", self)
        name_widget(self.go, "blocksGo", "Go to the block")
        self.go.clicked.connect(lambda: self.go_to(self.number.value()))
        self.status = QLabel("", self)
        name_widget(self.status, "blocksStatus", "Blocks status")
        bar = QHBoxLayout()
        bar.addWidget(self.newest)
        bar.addWidget(self.oldest)
        bar.addWidget(QLabel("Block", self))
        bar.addWidget(self.number)
        bar.addWidget(self.go)
        bar.addWidget(self.status, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.table, 1)
        model.modelReset.connect(self._counted)
        model.rowsInserted.connect(self._counted)

    def _counted(self, *_args: object) -> None:
        head = self.model.head
        self.status.setText(f"{head + 1:,} blocks" if head >= 0 else "no blocks yet")
        self.number.setMaximum(max(head, 0))

    def _chosen(self, index: QModelIndex) -> None:
        """A click or Enter: the block at once."""
        number = index.data(NUMBER_ROLE)
        if number is not None:
            self.settle.now(lambda: self.block_chosen.emit(int(number)))

    def _moved(self, index: QModelIndex, previous: QModelIndex) -> None:
        """The arrow keys: the block once the selection stops moving. (Qt's first current
        row, given when the table takes the focus, is no choice of the user's: not shown.)"""
        number = index.data(NUMBER_ROLE) if index.isValid() and previous.isValid() else None
        if number is not None:
            self.settle.later(lambda: self.block_chosen.emit(int(number)))

    def _fit_columns(self) -> None:
        """Each column as wide as what it shows at most (the font's widths, not pixels fixed
        for one font), so that all six fit beside the detail pane on a 1024x640 screen; Gas
        used takes what is left."""
        fm = self.table.fontMetrics()
        head = self.table.horizontalHeader().fontMetrics()
        pad = 2 * self.table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 6
        for col, sample in enumerate(WIDEST):
            title = str(self.model.headerData(col, Qt.Orientation.Horizontal) or "")
            width = max(fm.horizontalAdvance(sample), head.horizontalAdvance(title)) + pad
            self.table.setColumnWidth(col, width)

    def go_newest(self) -> None:
        self.table.scrollToTop()
        self._select(0)

    def go_oldest(self) -> None:
        self.table.scrollToBottom()
        self._select(self.model.rowCount() - 1)

    def go_to(self, number: int) -> None:
        if 0 <= number <= self.model.head:
            row = self.model.row_of(number)
            self._select(row)
            self.table.scrollTo(self.model.index(row, 0))

    def _select(self, row: int) -> None:
        if 0 <= row < self.model.rowCount():
            self.table.setCurrentIndex(self.model.index(row, 0))


class TransactionsView(QWidget):
    """The transactions and their filters. Signals: tx_chosen(str), filter_changed(object)
    (a :class:`TxFilter`)."""

    tx_chosen = Signal(str)
    filter_changed = Signal(object)

    def __init__(self, model: TransactionsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.table = ExplorerTable(self)
        self.table.setModel(model)
        name_widget(self.table, "explorerTransactions", "Transactions, newest first")
        for col, width in enumerate((130, 70, 130, 150, 150, 90, 70, 80)):
            self.table.setColumnWidth(col, width)
        self.table.activated.connect(self._chosen)
        self.table.clicked.connect(self._chosen)
        self.settle = Settle(self)
        self.table.selectionModel().currentRowChanged.connect(self._moved)
        self.kind = QComboBox(self)
        for text, value in (
            ("Any type", ""),
            ("Contract", "Contract"),
            ("Call", "FunctionCall"),
            ("Transfer", "Transfer"),
        ):
            self.kind.addItem(text, value)
        name_widget(self.kind, "txFilterType", "Transaction type")
        self.status_box = QComboBox(self)
        for text in ("Any status", "Success", "Failure"):
            self.status_box.addItem(text, "" if text.startswith("Any") else text)
        name_widget(self.status_box, "txFilterStatus", "Transaction status")
        # a choice in either list applies at once (no extra click on Filter); ``activated``
        # is the user's choice only, so clear_filter/set_filter do not apply twice
        self.kind.activated.connect(self.apply_filter)
        self.status_box.activated.connect(self.apply_filter)
        self.sender_edit = self._edit("txFilterSender", "Sender", "sender address")
        self.contract = self._edit("txFilterContract", "Contract or recipient", "to address")
        self.address = self._edit("txFilterAddress", "Address (either side)", "from or to")
        self.chain = self._edit("txFilterChain", "Chain id", "chain id (blank: all you see)")
        self.min_block = self._block_box("txFilterMinBlock", "Lowest block")
        self.max_block = self._block_box("txFilterMaxBlock", "Highest block")
        self.apply = QPushButton("Filter", self)
        name_widget(self.apply, "txFilterApply", "Apply the filters")
        self.apply.clicked.connect(self.apply_filter)
        self.clear = QPushButton("Clear", self)
        name_widget(self.clear, "txFilterClear", "Clear the filters")
        self.clear.clicked.connect(self.clear_filter)
        self.note = QLabel("", self)
        self.note.setWordWrap(True)
        name_widget(self.note, "txFilterNote", "About the filters")
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.kind, 0, 0)
        grid.addWidget(self.status_box, 0, 1)
        grid.addWidget(self.sender_edit, 0, 2)
        grid.addWidget(self.contract, 0, 3)
        grid.addWidget(self.address, 1, 0, 1, 2)
        grid.addWidget(self.chain, 1, 2, 1, 2)
        # the address fields share what is left; the block range sits with the buttons (in
        # the grid it squeezed the sender and chain fields to a few letters at 1024 pixels)
        grid.setColumnStretch(2, 1)
        grid.setColumnStretch(3, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("Blocks", self))
        buttons.addWidget(self.min_block)
        buttons.addWidget(QLabel("to", self))
        buttons.addWidget(self.max_block)
        buttons.addWidget(self.note, 1)
        buttons.addWidget(self.apply)
        buttons.addWidget(self.clear)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(grid)
        lay.addLayout(buttons)
        lay.addWidget(self.table, 1)

    def _edit(self, name: str, label: str, placeholder: str) -> QLineEdit:
        edit = QLineEdit(self)
        edit.setPlaceholderText(placeholder)
        edit.setClearButtonEnabled(True)
        edit.setToolTip(label)
        name_widget(edit, name, label)
        edit.returnPressed.connect(self.apply_filter)
        return edit

    def _block_box(self, name: str, label: str) -> QSpinBox:
        box = QSpinBox(self)
        box.setRange(-1, 2**31 - 1)
        box.setSpecialValueText("any")
        box.setValue(-1)
        box.setToolTip(label)
        name_widget(box, name, label)
        return box

    def set_own_filters(self, available: bool) -> None:
        """Type and status filter on the sandbox node only (the platform has no such filter)."""
        for box, what in ((self.kind, "type"), (self.status_box, "status")):
            box.setEnabled(available)
            box.setToolTip("" if available else NO_OWN_FILTER.format(what=what))
            if not available:
                box.setCurrentIndex(0)

    def _chosen(self, index: QModelIndex) -> None:
        tx = index.data(TX_ROLE)
        if tx is not None:
            self.settle.now(lambda: self.tx_chosen.emit(tx.hash))

    def _moved(self, index: QModelIndex, previous: QModelIndex) -> None:
        tx = index.data(TX_ROLE) if index.isValid() and previous.isValid() else None
        if tx is not None:
            self.settle.later(lambda: self.tx_chosen.emit(tx.hash))

    def current_filter(self) -> TxFilter | str:
        """The filter the controls say, or a sentence saying what is wrong with them."""
        addresses: dict[str, str] = {}
        for edit, what in (
            (self.sender_edit, "sender"),
            (self.contract, "contract or recipient"),
            (self.address, "address"),
        ):
            text = edit.text().strip()
            if text and not ADDRESS.match(text):
                return f"The {what} must be an address: 40 hex digits (0x optional)."
            addresses[what] = text.lower().removeprefix("0x")
        chain = self.chain.text().strip()
        if chain and chain != "all" and not CHAIN.match(chain):
            return "The chain id must be 64 hex digits (or 'all')."
        low = self.min_block.value() if self.min_block.value() >= 0 else None
        high = self.max_block.value() if self.max_block.value() >= 0 else None
        if low is not None and high is not None and low > high:
            return "The lowest block is above the highest: nothing could match."
        return TxFilter(
            kind=str(self.kind.currentData() or ""),
            status=str(self.status_box.currentData() or ""),
            sender=addresses["sender"],
            contract=addresses["contract or recipient"],
            address=addresses["address"],
            chain=chain.lower().removeprefix("0x") if chain != "all" else "all",
            min_block=low,
            max_block=high,
        )

    def apply_filter(self) -> None:
        f = self.current_filter()
        if isinstance(f, str):
            self.note.setText(f)
            return
        self.note.setText("" if f.empty else "Filtered.")
        self.filter_changed.emit(f)

    def clear_filter(self) -> None:
        for edit in (self.sender_edit, self.contract, self.address, self.chain):
            edit.clear()
        self.min_block.setValue(-1)
        self.max_block.setValue(-1)
        self.kind.setCurrentIndex(0)
        self.status_box.setCurrentIndex(0)
        self.apply_filter()

    def set_filter(self, f: TxFilter) -> None:
        """Show ``f`` in the controls and apply it (another view's link)."""
        self.sender_edit.setText(f.sender)
        self.contract.setText(f.contract)
        self.address.setText(f.address)
        self.chain.setText(f.chain)
        self.min_block.setValue(f.min_block if f.min_block is not None else -1)
        self.max_block.setValue(f.max_block if f.max_block is not None else -1)
        self.kind.setCurrentIndex(max(self.kind.findData(f.kind), 0))
        self.status_box.setCurrentIndex(max(self.status_box.findData(f.status), 0))
        self.apply_filter()
