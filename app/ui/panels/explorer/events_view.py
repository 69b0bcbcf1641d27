"""The Events view: every event the node logged (its ``<Contract>.<Event>`` Cirrus tables) in
one newest-first feed, filtered by contract and event, each event's arguments by name."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.services.controller import AppController
from app.services.explorer_contracts import EventRow, split_event_table
from app.services.tasks import TaskRegistry
from app.ui.widgets.common import CopyField, ReadsWhenShown, name_widget, while_alive

from .contracts_model import value_text
from .events_model import EventsModel
from .links import ExplorerLinks
from .pacing import OwnedTasks, Settle

ALL = ""


class EventDetail(QWidget):
    """One event: its arguments by name, and where it came from (block, transaction, address),
    each a link to the view that shows it."""

    def __init__(self, row: EventRow, links: ExplorerLinks, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        name_widget(self, "explorerEventDetail", f"Event {row.contract}.{row.event}")
        self.row = row
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)  # the pane's title names the event
        form = QFormLayout()
        self.fields: dict[str, CopyField] = {}
        for k, v in row.args.items():
            f = CopyField(f"eventArg_{k}", k, self)
            f.set_value(value_text(v, 100_000))
            self.fields[k] = f
            form.addRow(f"{k}:", f)
        if not row.args:
            form.addRow(QLabel("(no arguments)", self))
        lay.addLayout(form)
        meta = QFormLayout()
        for label, value in (
            ("Contract address", row.address),
            ("Sender", row.sender),
            ("Block time", row.timestamp),
        ):
            f = CopyField(f"event_{label.replace(' ', '')}", label, self)
            f.set_value(value)
            meta.addRow(f"{label}:", f)
        lay.addLayout(meta)
        buttons = QHBoxLayout()
        self.tx_button = QPushButton("Open &transaction", self)
        self.tx_button.setEnabled(bool(row.tx_hash))
        self.tx_button.clicked.connect(lambda: links.show_transaction(row.tx_hash))
        self.block_button = QPushButton(
            f"Open &block {row.block_number}" if row.block_number is not None else "Block", self
        )
        self.block_button.setEnabled(row.block_number is not None)
        self.block_button.clicked.connect(lambda: links.show_block(row.block_number or 0))
        self.address_button = QPushButton("Open &address", self)
        self.address_button.setEnabled(bool(row.address))
        self.address_button.clicked.connect(lambda: links.show_address(row.address))
        # two rows: one of three buttons widened the narrow detail pane for good
        buttons.addWidget(self.tx_button)
        buttons.addWidget(self.block_button)
        buttons.addStretch(1)
        buttons2 = QHBoxLayout()
        buttons2.addWidget(self.address_button)
        buttons2.addStretch(1)
        lay.addLayout(buttons)
        lay.addLayout(buttons2)
        lay.addStretch(1)


class EventsView(ReadsWhenShown):
    """The merged feed with its filters. With ``contract`` (and ``address``) given it shows
    one contract's (one instance's) events only, as the instance detail does."""

    def __init__(
        self,
        controller: AppController,
        links: ExplorerLinks,
        parent: QWidget | None = None,
        *,
        contract: str = "",
        address: str = "",
        tasks: OwnedTasks | None = None,
    ) -> None:
        super().__init__(self.reload, parent)
        self.setObjectName("explorerEventsView")
        self.controller = controller
        self.links = links
        self.fixed_contract = contract
        self.address = address
        self.service = controller.explorer_contracts
        self.tasks: TaskRegistry | OwnedTasks = tasks or controller.tasks
        self.model = EventsModel(self.service, self.tasks, self)
        self.tables: list[str] = []
        self._tables_read: asyncio.Task[Any] | None = None  # the newest read of the table list
        self._new_blocks = False  # blocks came since the table list was last read

        self.contract_box = QComboBox(self)
        name_widget(self.contract_box, "eventsContract", "Contract")
        self.contract_box.setMinimumContentsLength(16)
        self.event_box = QComboBox(self)
        name_widget(self.event_box, "eventsEvent", "Event")
        self.event_box.setMinimumContentsLength(14)
        self.refresh = QToolButton(self)
        self.refresh.setText("⟳")
        self.refresh.setToolTip("Read the events again (F5)")
        self.refresh.setShortcut("F5")
        name_widget(self.refresh, "eventsRefresh", "Refresh events")
        self.status = QLabel(self)
        self.status.setObjectName("eventsStatus")
        self.status.setWordWrap(True)

        self.table = QTableView(self)
        name_widget(self.table, "eventsTable", "Events, newest first")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        for col, width in enumerate((60, 140, 110, 110, 300, 110, 110)):
            self.table.setColumnWidth(col, width)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)

        top = QHBoxLayout()
        if not contract:
            top.addWidget(QLabel("&Contract:", self, buddy=self.contract_box))  # type: ignore[call-overload]
            top.addWidget(self.contract_box)
        else:
            self.contract_box.hide()
        top.addWidget(QLabel("&Event:", self, buddy=self.event_box))  # type: ignore[call-overload]
        top.addWidget(self.event_box)
        top.addWidget(self.refresh)
        top.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addWidget(self.status)
        lay.addWidget(self.table, 1)

        self.contract_box.currentIndexChanged.connect(self._contract_chosen)
        self.event_box.currentIndexChanged.connect(self._apply)
        self.refresh.clicked.connect(self.read_afresh)
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        self.table.activated.connect(self._open)
        self.table.clicked.connect(self._open)
        self.settle = Settle(self)
        self.model.rows_loaded.connect(self._show_count)
        self.model.failed.connect(self._failed)
        self.model.loading_changed.connect(self._show_loading)
        controller.session.user_changed.connect(self.mark_stale)
        controller.session.block_changed.connect(self._block_changed)

    # ------------------------------------------------------------ reading

    def _block_changed(self, _number: int) -> None:
        """New blocks may hold new events: read again when next shown (a visible feed keeps its
        place; F5 reads the newest)."""
        self._new_blocks = True  # the node's list of event tables may have grown
        if not self.isVisible():
            self._stale = True

    def read_afresh(self) -> None:
        """The refresh button: the node's table list read again, whatever its age."""
        self._new_blocks = True
        self.reload()

    def reload(self) -> None:
        # the whole feed's list afresh; an instance's may be a few seconds old unless blocks
        # came since it was read
        fresh, self._new_blocks = not self.fixed_contract or self._new_blocks, False
        self._stale = False
        self.status.setText("Reading the node's event tables…")
        if self._tables_read is not None:  # an older read (another user's, F5 twice) is void
            self._tables_read.cancel()

        def newest() -> bool:  # an answer already on its way when cancelled is dropped too
            return task is self._tables_read

        task = self._tables_read = self.tasks.start(
            "Reading event tables",
            self.service.event_tables(fresh=fresh, contract=self.fixed_contract or ""),
            while_alive(self, lambda tables: self._set_tables(tables) if newest() else None),
            while_alive(self, lambda text: self._failed(text) if newest() else None),
        )

    def _set_tables(self, tables: list[str]) -> None:
        if self.fixed_contract:
            tables = [t for t in tables if split_event_table(t)[0] == self.fixed_contract]
        self.tables = tables
        chosen = self.contract_box.currentData() or ALL
        self.contract_box.blockSignals(True)
        self.contract_box.clear()
        self.contract_box.addItem("All contracts", ALL)
        for c in sorted({split_event_table(t)[0] for t in tables}):
            self.contract_box.addItem(c, c)
        self.contract_box.setCurrentIndex(max(self.contract_box.findData(chosen), 0))
        self.contract_box.blockSignals(False)
        self._contract_chosen()

    def _contract_chosen(self, _i: int = 0) -> None:
        contract = self.fixed_contract or self.contract_box.currentData() or ALL
        chosen = self.event_box.currentData() or ALL
        events = sorted(
            {
                split_event_table(t)[1]
                for t in self.tables
                if not contract or split_event_table(t)[0] == contract
            }
        )
        self.event_box.blockSignals(True)
        self.event_box.clear()
        self.event_box.addItem("All events", ALL)
        for e in events:
            self.event_box.addItem(e, e)
        self.event_box.setCurrentIndex(max(self.event_box.findData(chosen), 0))
        self.event_box.blockSignals(False)
        self._apply()

    def selected_tables(self) -> list[str]:
        contract = self.fixed_contract or self.contract_box.currentData() or ALL
        event = self.event_box.currentData() or ALL
        out = []
        for t in self.tables:
            c, e = split_event_table(t)
            if (not contract or c == contract) and (not event or e == event):
                out.append(t)
        return out

    def _apply(self, _i: int = 0) -> None:
        tables = self.selected_tables()
        if not tables:
            self.status.setText(
                "No events: the node has no event tables"
                + (f" of {self.fixed_contract}" if self.fixed_contract else "")
                + " (a contract's events appear once it emits one)."
            )
        self.model.set_source(tables, self.address)

    def set_filter(self, contract: str = ALL, event: str = ALL) -> None:
        """Choose the contract and event shown (as the combo boxes do)."""
        if not self.fixed_contract:
            self.contract_box.setCurrentIndex(max(self.contract_box.findData(contract), 0))
        self.event_box.setCurrentIndex(max(self.event_box.findData(event), 0))

    # ------------------------------------------------------------ showing

    def _show_loading(self, on: bool) -> None:
        if on:
            self.status.setText("Reading events…")

    def _show_count(self, n: int) -> None:
        tables = self.model.table_count
        if not tables:
            return
        more = "" if self.model.feed is None or self.model.feed.exhausted else " (scroll for more)"
        self.status.setText(
            f"{n:,} event{'s' if n != 1 else ''} from {tables} "
            f"table{'s' if tables != 1 else ''}, newest first{more}"
        )

    def _failed(self, text: str) -> None:
        self.status.setText(f"✘ {text}")

    def _current_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        """The keyboard's way through the rows: the detail once the selection settles (not
        the first current row Qt gives a table taking the focus)."""
        row = self.model.event_at(current.row()) if previous.isValid() else None
        if row is not None:
            self.settle.later(lambda: self._show(row))

    def _open(self, index: QModelIndex) -> None:
        """A click or Enter: the detail at once."""
        row = self.model.event_at(index.row())
        if row is not None:
            self.settle.now(lambda: self._show(row))

    def _show(self, row: EventRow) -> None:
        if self.isVisible():
            self.links.show_detail(EventDetail(row, self.links), f"{row.contract}.{row.event}")
