"""What the global search opens when a text is an address or a block: small, non-modal views
with the facts and links onward (a transaction to the inspector, an address to save as a
contact)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.client.models import Block
from app.client.units import amount_tooltip, format_amount
from app.services.names import NameService
from app.services.search import AddressInfo
from app.ui.models.transactions_model import COLUMNS, TransactionsModel
from app.ui.widgets.common import CopyField, name_widget, while_alive
from app.ui.widgets.contact_name import ask_contact_name

if TYPE_CHECKING:
    from app.services.controller import AppController


def _tx_table(parent: QWidget, model: TransactionsModel, name: str) -> QTableView:
    view = QTableView(parent)
    name_widget(view, name, "Transactions")
    view.setModel(model)
    view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
    view.setWordWrap(False)
    view.horizontalHeader().setStretchLastSection(True)
    return view


class AddressDialog(QDialog):
    """An address: contract or account, its name, balance, identity and transactions.

    Signals: transaction_requested(str): open the inspector on a hash.
    """

    transaction_requested = Signal(str)

    def __init__(self, controller: AppController, address: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("addressDialog")
        self.setWindowTitle(f"Address {address[:10]}…")
        self.controller = controller
        self.address = address
        self.info: AddressInfo | None = None
        self.field = CopyField("addressValue", "Address", self)
        self.field.set_value(address)
        self.name = QLabel("…", self)
        name_widget(self.name, "addressName", "Name")
        self.kind = QLabel("", self)
        name_widget(self.kind, "addressKind", "Kind")
        self.balance = QLabel("", self)
        name_widget(self.balance, "addressBalance", "Balance")
        self.identity = QLabel("", self)
        name_widget(self.identity, "addressIdentity", "Identity")
        self.save_contact = QPushButton("Save as contact…", self)
        name_widget(self.save_contact, "addressSaveContact", "Save the address as a contact")
        self.save_contact.clicked.connect(self.ask_contact_name)
        self.model = TransactionsModel(self)
        self.model.set_names(controller.address_names())
        self.model.set_name_service(controller.names)
        self.view = _tx_table(self, self.model, "addressTransactions")
        self.view.doubleClicked.connect(self._open)
        self.status = QLabel("Loading…", self)
        name_widget(self.status, "addressStatus", "Status")
        form = QFormLayout()
        form.addRow("Address", self.field)
        form.addRow("Name", self.name)
        form.addRow("Kind", self.kind)
        form.addRow("Balance", self.balance)
        form.addRow("Identity", self.identity)
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.save_contact)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(QLabel("Transactions (double-click to inspect)", self))
        lay.addWidget(self.view, 1)
        lay.addLayout(row)
        self.resize(760, 480)
        controller.tasks.start(
            "Reading the address",
            controller.search.address_info(address),
            on_done=while_alive(self, self._loaded),
            on_error=while_alive(self, self._failed),
        )

    def _loaded(self, info: AddressInfo) -> None:
        self.info = info
        st = info.state
        self.name.setText(info.name or "(no name: save it as a contact)")
        if st is not None and st.contract_name:
            where = f" on chain {st.chain_id[:8]}…" if st.chain_id else ""
            self.kind.setText(f"contract {st.contract_name}{where}")
        else:
            self.kind.setText("account")
        self.balance.setText(
            f"{format_amount(st.balance)} (nonce {st.nonce})" if st else "no account state"
        )
        self.balance.setToolTip(amount_tooltip(st.balance) if st else "")
        ident = info.identity
        self.identity.setText(
            " / ".join(
                ident.get(k, "") for k in ("commonName", "organization", "organizationalUnit")
            )
            if ident
            else "no certificate"
        )
        self.model.set_transactions(info.address, info.transactions)
        self.view.resizeColumnsToContents()
        self.status.setText(f"{len(info.transactions)} transaction(s)")

    def _open(self, index: QModelIndex) -> None:
        tx = self.model.transaction(index.row())
        if tx is not None:
            self.transaction_requested.emit(tx.hash)

    def ask_contact_name(self) -> QInputDialog:
        return ask_contact_name(
            self.controller, self.address, self, self._failed, on_saved=self._saved
        )

    def save_as_contact(self, name: str) -> None:
        """What the name dialog does, without the dialog."""
        name = name.strip()
        self.controller.tasks.start(
            "Saving the contact",
            self.controller.add_contact(name, self.address),
            on_done=while_alive(self, lambda _r: self._saved(name)),
            on_error=while_alive(self, self._failed),
        )

    def _saved(self, name: str) -> None:
        self.name.setText(name)
        self.status.setText(f"Saved as contact {name!r}")

    def _failed(self, text: str) -> None:
        self.status.setText(f"✘ {text}")


class BlockDialog(QDialog):
    """A block: number, hash, parent, time and its transactions.

    Signals: transaction_requested(str): open the inspector on a hash.
    """

    transaction_requested = Signal(str)

    def __init__(
        self,
        block: Block,
        parent: QWidget | None = None,
        names: dict[str, str] | None = None,
        name_service: NameService | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("blockDialog")
        self.setWindowTitle(f"Block {block.number}")
        self.block = block
        self.hash = CopyField("blockHash", "Block hash", self)
        self.hash.set_value(block.hash)
        self.parent_hash = CopyField("blockParentHash", "Parent hash", self)
        self.parent_hash.set_value(block.parent_hash)
        self.model = TransactionsModel(self)
        self.model.set_names(names or {})
        if name_service is not None:  # contracts' names too, as they arrive
            self.model.set_name_service(name_service)
        self.model.set_transactions("", block.transactions)
        self.view = _tx_table(self, self.model, "blockTransactions")
        # in or out is an account's view of its history: a block has no side to take
        self.view.setColumnHidden(COLUMNS.index("Direction"), True)
        self.view.doubleClicked.connect(self._open)
        form = QFormLayout()
        number = QLabel(str(block.number), self)
        name_widget(number, "blockNumber", "Block number")
        form.addRow("Number", number)
        form.addRow("Hash", self.hash)
        form.addRow("Parent", self.parent_hash)
        form.addRow("Time", QLabel(block.timestamp, self))
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(QLabel(f"{len(block.transactions)} transaction(s) (double-click to inspect)"))
        lay.addWidget(self.view, 1)
        self.resize(760, 420)

    def _open(self, index: QModelIndex) -> None:
        tx = self.model.transaction(index.row())
        if tx is not None:
            self.transaction_requested.emit(tx.hash)
