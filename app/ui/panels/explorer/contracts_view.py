"""The Contracts view: every contract name the node knows, each expanding into its instances;
choosing an instance shows it (:class:`InstanceDetail`) in the Explorer's detail pane."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.services.controller import AppController
from app.services.explorer_contracts import Instance
from app.ui.widgets.common import ReadsWhenShown, name_widget

from .contracts_model import ContractsModel, short
from .instance_detail import InstanceDetail
from .links import ExplorerLinks
from .pacing import Settle
from .page_bars import contracts_bar


class ContractsView(ReadsWhenShown):
    """Signals (wired by the window): ``contract_requested(name, address, chain_id, method)``
    opens the composer's Call tab; ``table_requested(table, query)`` opens a Cirrus table
    (the instance's rows: a query)."""

    contract_requested = Signal(str, str, str, str)
    table_requested = Signal(str, object)

    def __init__(
        self, controller: AppController, links: ExplorerLinks, parent: QWidget | None = None
    ) -> None:
        super().__init__(self.reload, parent)
        self.setObjectName("explorerContractsView")
        self.controller = controller
        self.links = links
        self.service = controller.explorer_contracts
        self.model = ContractsModel(self.service, controller.tasks, self)
        self.detail: InstanceDetail | None = None

        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter by contract name or address")
        self.filter.setClearButtonEnabled(True)
        name_widget(self.filter, "contractsFilter", "Filter contracts")
        self.refresh = QToolButton(self)
        self.refresh.setText("⟳")
        self.refresh.setToolTip("Read the node's contracts again (F5)")
        self.refresh.setShortcut("F5")
        name_widget(self.refresh, "contractsRefresh", "Refresh contracts")
        self.status = QLabel(self)
        self.status.setObjectName("contractsStatus")
        self.tree = QTreeView(self)
        name_widget(self.tree, "contractsTree", "Contracts and their instances")
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.tree.setColumnWidth(0, 170)
        # wide enough for its header ("Instances / chain") and a shortened chain ID
        header_w = (
            self.tree.header()
            .fontMetrics()
            .horizontalAdvance(str(self.model.headerData(1, Qt.Orientation.Horizontal)))
        )
        self.tree.setColumnWidth(1, max(110, header_w + 24))
        self.tree.header().setStretchLastSection(True)

        top = QHBoxLayout()
        top.addWidget(QLabel("&Filter:", self, buddy=self.filter))  # type: ignore[call-overload]
        top.addWidget(self.filter, 1)
        top.addWidget(self.refresh)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addWidget(self.status)
        lay.addWidget(self.tree, 1)

        self.filter.textChanged.connect(self.model.set_filter)
        self.refresh.clicked.connect(self.reload)
        self.model.loaded.connect(self._loaded)
        self.model.failed.connect(lambda text: self.status.setText(f"✘ {text}"))
        self.tree.selectionModel().currentChanged.connect(self._current_changed)
        self.tree.activated.connect(self._activated)
        self.tree.clicked.connect(self._clicked)
        self.settle = Settle(self)
        controller.session.user_changed.connect(self.mark_stale)
        controller.session.block_changed.connect(self._block_changed)
        self.bar = contracts_bar(self)  # count and Export ▾ of the filtered list

    def _block_changed(self, _number: int) -> None:
        if not self.isVisible():  # a shown tree keeps its place; F5 reads it again
            self._stale = True

    def reload(self) -> None:
        self._stale = False
        self.status.setText("Reading the node's contracts…")
        self.model.reload()

    def _loaded(self, names: int) -> None:
        all_names, total = self.model.totals
        if not all_names:
            self.status.setText("The node lists no contracts yet: deploy one in the composer.")
        elif names == 0:
            self.status.setText("No contract name or address matches the filter.")
        else:
            self.status.setText(f"{names} of {all_names} contract names, {total:,} instances")
        if self.model.filtered and names == 1:
            self.tree.expand(self.model.index(0, 0))

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        """The keyboard's way through the tree: an instance is read once the selection stops
        moving (a click reads it at once: :meth:`_clicked`)."""
        inst = self.model.instance(current)
        if inst is not None:
            self.settle.later(lambda: self.show_instance(inst))
        else:
            self.settle.cancel()

    def _clicked(self, index: QModelIndex) -> None:
        inst = self.model.instance(index)
        if inst is not None:
            self.settle.now(lambda: self.show_instance(inst))

    def _activated(self, index: QModelIndex) -> None:
        inst = self.model.instance(index)
        if inst is not None:
            self.settle.now(lambda: self.show_instance(inst))
        elif index.isValid():
            self.tree.setExpanded(index, not self.tree.isExpanded(index))

    def show_instance(self, inst: Instance) -> InstanceDetail:
        """Show an instance in the detail pane (its state, methods, transactions, events)."""
        d = self.detail
        if d is not None and d.instance == inst and d.isVisible():
            return d
        detail = InstanceDetail(self.controller, inst, self.links)
        detail.contract_requested.connect(self.contract_requested)
        detail.table_requested.connect(self.table_requested)
        self.detail = detail
        self.links.show_detail(detail, f"{inst.name} {short(inst.address)}")
        return detail
