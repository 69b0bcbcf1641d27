"""Account and faucet panel: key, address + QR, balance, identity certificate, faucet, history."""

from __future__ import annotations

from typing import Any

import shiboken6
from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QFont
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.client.models import TxResult
from app.client.units import amount_tooltip, exact_tokens, format_amount
from app.services.account import MAIN_CHAIN, AccountView
from app.services.controller import AppController
from app.ui.models.transactions_model import HASH, MAIN, TransactionsModel
from app.ui.panels.account.send_dialog import SendDialog
from app.ui.shell.icons import set_icon
from app.ui.shell.menus import make_action
from app.ui.widgets.common import CopyField, QrCodeView, copy_text, name_widget, while_alive
from app.ui.widgets.scroll import scrolling_panel

NO_IDENTITY = (
    "<b>{user} has no registered identity.</b> STRATO (from platform version 8.0) accepts "
    "transactions only from accounts with a certificate in the on-chain certificate registry, "
    "so {user} can read the chain but cannot deploy contracts, call functions or transfer "
    "tokens. Ask the network's operator to register a certificate for this address."
)
NO_KEY = (
    "<b>{user} has no key on this node yet.</b> Create one to get an address: the node keeps "
    "the private key in its vault and signs transactions for you."
)
GAS_OFF = (
    "Gas is off on this node: every transaction is free, so nobody needs tokens to deploy, "
    "call or send, and the faucet has nothing to add. It funds accounts on a node that "
    "charges gas."
)
GAS_OFF_SANDBOX = (
    GAS_OFF + " To try fees and the faucet, restart the sandbox charging gas: its data stays."
)
GAS_OFF_REMOTE = GAS_OFF + " This node is not the sandbox: its operator decides about gas."
CHARGE_GAS_ASK = (
    "Restart the sandbox node charging gas?\n\nIts data stays. Every transaction then costs "
    "gas, paid from the sender's balance, and the faucet funds accounts (2,000 tokens a "
    "time). Connection… > Charge gas turns it off again."
)
CERT_ROWS = (
    ("commonName", "Common name"),
    ("organization", "Organization"),
    ("organizationalUnit", "Unit"),
    ("country", "Country"),
    ("isValid", "Status"),
)


def cert_value(key: str, value: Any) -> str:
    """A certificate field as words: the validity flag says "Valid" or why it is not."""
    if value in (None, ""):
        return "—"
    if key == "isValid":
        valid = value is True or str(value).lower() == "true"
        return "Valid" if valid else "Not valid: the certificate was revoked"
    return str(value)


# The distinguished name shown for a registered certificate: (label, identity field).
SUBJECT_PARTS = (
    ("CN", "commonName"),
    ("O", "organization"),
    ("OU", "organizationalUnit"),
    ("C", "country"),
)


class AccountPanel(QWidget):
    """Signals: transaction_requested(str): the user wants to inspect a transaction."""

    title = "Account"
    transaction_requested = Signal(str)

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("accountPanel")
        self.setAccessibleName("Account and faucet")
        self.controller = controller
        self.account = controller.account
        self.view = AccountView("")

        self.heading = QLabel("Account", self)
        f = QFont(self.heading.font())
        f.setPointSizeF(f.pointSizeF() * 1.4)
        f.setBold(True)
        self.heading.setFont(f)
        self.heading.setObjectName("accountHeading")
        self.refresh_button = QPushButton("Refresh", self)
        name_widget(self.refresh_button, "accountRefresh", "Refresh the account")
        self.refresh_button.setToolTip("Reload the account (F5)")
        self.refresh_button.clicked.connect(self.account.request_refresh)

        # -- no key yet
        self.no_key = QGroupBox(self)
        self.no_key.setObjectName("accountNoKey")
        self.no_key_text = QLabel(self.no_key)
        self.no_key_text.setWordWrap(True)
        self.create_key_button = QPushButton("Create key", self.no_key)
        name_widget(self.create_key_button, "accountCreateKey", "Create key")
        self.create_key_button.clicked.connect(self._create_key)
        nk = QVBoxLayout(self.no_key)
        nk.addWidget(self.no_key_text)
        nk.addWidget(self.create_key_button, 0, Qt.AlignmentFlag.AlignLeft)

        # -- address, key, balance, QR
        self.address = CopyField("accountAddress", "Address", self)
        self.pubkey = CopyField("accountPublicKey", "Public key", self)
        self.balance = QLabel("—", self)
        name_widget(self.balance, "accountBalance", "Balance")
        bf = QFont(self.balance.font())
        bf.setPointSizeF(bf.pointSizeF() * 1.6)
        self.balance.setFont(bf)
        self.balance.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # rounded on screen; the exact figure in the tooltip and on the clipboard
        self.balance_copy = QToolButton(self)
        self.balance_copy.setText("Copy")
        name_widget(self.balance_copy, "accountBalanceCopy", "Copy the exact balance")
        self.balance_copy.setToolTip("Copy the exact balance in tokens (menu: in wei)")
        self.balance_copy.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.balance_copy.setEnabled(False)
        self.balance_copy.clicked.connect(self.copy_balance)
        balance_menu = QMenu(self.balance_copy)
        self.copy_tokens_action = balance_menu.addAction("Copy exact tokens", self.copy_balance)
        self.copy_wei_action = balance_menu.addAction("Copy wei", self.copy_balance_wei)
        self.balance_copy.setMenu(balance_menu)
        balance_row = QHBoxLayout()
        balance_row.addWidget(self.balance, 1)
        balance_row.addWidget(self.balance_copy)
        self.send_button = QPushButton("Send…", self)
        name_widget(self.send_button, "accountSend", "Send tokens")
        self.send_button.setToolTip("Send tokens to a contact, a user or an address (Ctrl+T)")
        self.send_button.setEnabled(False)
        self.send_button.clicked.connect(self.open_send_dialog)
        balance_row.addWidget(self.send_button)
        self.send_action = make_action(self, "Send tokens…", "actionSendTokens", "Ctrl+T")
        set_icon(self.send_action, "mdi6.send-outline")
        self.send_action.triggered.connect(self.open_send_dialog)
        self.send_dialog: SendDialog | None = None
        self.nonce = QLabel("—", self)
        name_widget(self.nonce, "accountNonce", "Nonce")
        self.qr = QrCodeView(self)
        details = QFormLayout()
        details.addRow("Address", self.address)
        details.addRow("Public key", self.pubkey)
        details.addRow("Balance", balance_row)
        details.addRow("Nonce", self.nonce)
        self.key_box = QGroupBox("Key", self)
        self.key_box.setObjectName("accountKeyBox")
        kb = QHBoxLayout(self.key_box)
        kb.addLayout(details, 1)
        kb.addWidget(self.qr, 0, Qt.AlignmentFlag.AlignTop)

        # -- identity
        self.identity_box = QGroupBox("Identity", self)
        self.identity_box.setObjectName("accountIdentityBox")
        self.identity_status = QLabel(self.identity_box)
        self.identity_status.setWordWrap(True)
        name_widget(self.identity_status, "accountIdentityStatus", "Identity status")
        self.cert_labels: dict[str, QLabel] = {}
        self.cert_fields = QWidget(self.identity_box)
        self.cert_fields.setObjectName("accountCertificateFields")
        cert_form = QFormLayout(self.cert_fields)
        cert_form.setContentsMargins(0, 0, 0, 0)
        for key, label in CERT_ROWS:
            value = QLabel("—", self.cert_fields)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            name_widget(value, f"cert_{key}", label)
            self.cert_labels[key] = value
            cert_form.addRow(label, value)
        ib = QVBoxLayout(self.identity_box)
        ib.addWidget(self.identity_status)
        ib.addWidget(self.cert_fields)
        ib.addStretch(1)

        # -- faucet
        self.faucet_box = QGroupBox("Faucet", self)
        self.faucet_box.setObjectName("accountFaucetBox")
        self.faucet_button = QPushButton("Get tokens from the faucet", self.faucet_box)
        name_widget(self.faucet_button, "accountFaucet", "Get tokens from the faucet")
        self.faucet_button.clicked.connect(self._faucet)
        self.faucet_progress = QProgressBar(self.faucet_box)
        self.faucet_progress.setRange(0, 0)
        self.faucet_progress.setVisible(False)
        name_widget(self.faucet_progress, "accountFaucetProgress", "Faucet progress")
        self.faucet_status = QLabel("", self.faucet_box)
        self.faucet_status.setWordWrap(True)
        name_widget(self.faucet_status, "accountFaucetStatus", "Faucet result")
        self.faucet_hash = CopyField("accountFaucetHash", "Transaction hash", self.faucet_box)
        # on a gas-free sandbox: the way to one that charges gas (where the faucet matters)
        self.charge_gas_button = QPushButton("Restart the sandbox charging gas…", self.faucet_box)
        name_widget(self.charge_gas_button, "accountChargeGas", "Restart the sandbox charging gas")
        self.charge_gas_button.setVisible(False)
        self.charge_gas_button.clicked.connect(self.ask_charge_gas)
        fb = QGridLayout(self.faucet_box)
        fb.addWidget(self.faucet_button, 0, 0)
        fb.addWidget(self.faucet_progress, 0, 1)
        fb.addWidget(self.faucet_status, 1, 0, 1, 2)
        fb.addWidget(self.charge_gas_button, 2, 0, 1, 2, Qt.AlignmentFlag.AlignLeft)
        fb.addWidget(self.faucet_hash, 3, 0, 1, 2)

        # -- recent transactions
        self.tx_model = TransactionsModel(self)
        self.tx_model.set_names(controller.address_names())
        self.tx_model.set_name_service(controller.names)
        controller.names_changed.connect(self.tx_model.set_names)
        self.tx_table = QTableView(self)
        name_widget(self.tx_table, "accountTransactions", "Recent transactions")
        self.tx_table.setModel(self.tx_model)
        self.tx_table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.tx_table.verticalHeader().setVisible(False)
        self.tx_table.setWordWrap(False)
        self.tx_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents
        )
        self.tx_table.horizontalHeader().setSectionResizeMode(HASH, QHeaderView.ResizeMode.Stretch)
        self.tx_table.setToolTip("Double-click a row to inspect the transaction")
        self.tx_table.doubleClicked.connect(self._open_tx)
        self.tx_title = QLabel("Recent transactions", self)
        self.chain_filter = QComboBox(self)
        name_widget(self.chain_filter, "accountChainFilter", "Show transactions of")
        self.chain_filter.setToolTip(
            "Which chain's transactions to list: the balance above is the main chain's"
        )
        self.chain_filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.chain_filter.activated.connect(self._on_chain_filter)
        self.tx_model.set_chain_filter(MAIN)  # the chain the balance above belongs to
        self._fill_chain_filter()

        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.refresh_button)
        middle = QHBoxLayout()
        middle.addWidget(self.identity_box, 1)
        middle.addWidget(self.faucet_box, 1)
        # everything in a scroll area: on a small screen (or with a dock open) the panel scrolls
        # instead of squashing the identity rows into each other
        content = QWidget(self)
        scrolling_panel(self, content, "accountScroll")
        self.tx_table.setMinimumHeight(160)
        lay = QVBoxLayout(content)
        lay.addLayout(top)
        lay.addWidget(self.no_key)
        lay.addWidget(self.key_box)
        lay.addLayout(middle)
        tx_head = QHBoxLayout()
        tx_head.addWidget(self.tx_title, 1)
        chain_label = QLabel("&Chain:", self)
        chain_label.setBuddy(self.chain_filter)
        tx_head.addWidget(chain_label)
        tx_head.addWidget(self.chain_filter)
        lay.addLayout(tx_head)
        lay.addWidget(self.tx_table, 1)

        self.account.changed.connect(self.show_view)
        self.account.busy_changed.connect(self._on_busy)
        self.account.faucet_finished.connect(self._on_faucet_result)
        # a transfer sent from here changes the balance and the history: read them again
        controller.transfers.finished.connect(lambda _r: self.account.request_refresh())
        controller.session.health_changed.connect(self._on_health)
        self.show_view(self.account.view)

    # ------------------------------------------------------------ view

    def show_view(self, view: AccountView) -> None:
        if view.username != self.view.username:  # another user: the last faucet was not theirs
            self.faucet_hash.set_value("")
            self.faucet_status.setText("")
            self._gas_note()
            if self.tx_model.chain_filter not in (None, MAIN):
                self.tx_model.set_chain_filter(MAIN)  # their chains are not the last user's
        self.view = view
        user = view.username or "—"
        self.heading.setText(f"Account of {user}")
        has_key = view.address is not None
        self.no_key.setVisible(view.loaded and not has_key)
        self.no_key_text.setText(NO_KEY.format(user=user))
        self.key_box.setEnabled(has_key)
        self.address.set_value(view.address)
        self.pubkey.set_value(view.pubkey)
        self.qr.set_text(view.address)
        if view.balance is None:
            self.balance.setText("—")
            self.balance.setToolTip("")
        else:
            self.balance.setText(format_amount(view.balance))
            self.balance.setToolTip(amount_tooltip(view.balance))
        self.balance_copy.setEnabled(view.balance is not None)
        self.send_button.setEnabled(has_key)
        self.nonce.setText("—" if view.nonce is None else str(view.nonce))
        self._show_identity(view)
        self.faucet_button.setEnabled(has_key and not self.faucet_progress.isVisible())
        self.tx_model.set_transactions(
            view.address or "", view.transactions, view.chains, view.created
        )
        self._fill_chain_filter()

    def _show_identity(self, view: AccountView) -> None:
        user = view.username or "this user"
        tooltip = ""
        if not view.loaded:
            text = "Loading…"
        elif view.address is None:
            text = "No key yet: the identity is tied to an address."
        elif view.identity_error:
            text = f"Unknown: {view.identity_error}"
        elif view.identity is None:
            text = NO_IDENTITY.format(user=user)
        elif view.has_identity:
            subject = ", ".join(
                f"{label}={view.identity[key]}"
                for label, key in SUBJECT_PARTS
                if view.identity.get(key)
            )
            text = f"✔ {user} has a registered certificate: {subject}"
            # the whole X.509 chain (PEM) is too long for the line; it stays one hover away
            tooltip = str(view.identity.get("certificateString", ""))
        else:
            text = f"✘ {user}'s certificate was revoked: transactions are refused."
        self.identity_status.setText(text)
        self.identity_status.setToolTip(tooltip)
        self.cert_fields.setVisible(view.identity is not None)
        ident: dict[str, Any] = view.identity or {}
        for key, label in self.cert_labels.items():
            label.setText(cert_value(key, ident.get(key)))

    # ------------------------------------------------------------ actions

    def _on_busy(self, what: str) -> None:
        self.refresh_button.setEnabled(what != "refresh")
        self.create_key_button.setEnabled(what != "create-key")
        faucet = what == "faucet"
        if faucet:
            self.faucet_status.setText("Waiting for the faucet transaction…")
        self.faucet_progress.setVisible(faucet)
        self.faucet_button.setEnabled(not faucet and self.view.address is not None)

    def menu_actions(self) -> dict[str, list[QAction]]:
        return {"Tools": [self.send_action]}

    def open_send_dialog(self) -> SendDialog:
        """The Send dialog (one at a time: asking again brings it to the front)."""
        if self.send_dialog is not None and shiboken6.isValid(self.send_dialog):
            self.send_dialog.show()
            self.send_dialog.raise_()
            self.send_dialog.activateWindow()
            return self.send_dialog
        dialog = SendDialog(self.controller, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.send_dialog = dialog
        dialog.transaction_requested.connect(self.transaction_requested)
        dialog.show()  # not modal: the panel and the inspector stay usable beside it
        dialog.recipient_edit.setFocus()
        return dialog

    def _create_key(self) -> None:
        self.controller.tasks.start("Creating the key", self.account.create_key())

    def _faucet(self) -> None:
        self.faucet_hash.set_value("")
        self.controller.tasks.start("Faucet", self.account.faucet())

    def _on_health(self, _health: object) -> None:
        self._gas_note()

    def _gas_off_text(self) -> str:
        profile = self.controller.session.profile
        return GAS_OFF_SANDBOX if profile is not None and profile.sandbox else GAS_OFF_REMOTE

    def _gas_note(self) -> None:
        """On a gas-free node the faucet box says what the faucet does there (nothing needed)
        and, on the sandbox, offers to restart it charging gas."""
        health = self.controller.session.health
        if health is None:
            return
        off = health.gas is False
        profile = self.controller.session.profile
        self.charge_gas_button.setVisible(off and profile is not None and profile.sandbox)
        text = self._gas_off_text()
        if off:
            self.faucet_box.setToolTip(text)
            if not self.faucet_status.text() or self.faucet_status.text() in (
                GAS_OFF_SANDBOX,
                GAS_OFF_REMOTE,
            ):
                self.faucet_status.setText(text)
        elif self.faucet_status.text() in (GAS_OFF_SANDBOX, GAS_OFF_REMOTE):
            self.faucet_box.setToolTip("")
            self.faucet_status.setText("")

    def ask_charge_gas(self) -> QMessageBox:
        """Ask before restarting the sandbox with gas (the window's node goes away a moment)."""
        ask = QMessageBox(
            QMessageBox.Icon.Question,
            "Charge gas?",
            CHARGE_GAS_ASK,
            QMessageBox.StandardButton.Cancel,
            self,
        )
        ask.setObjectName("chargeGasAsk")
        restart = ask.addButton("Restart charging gas", QMessageBox.ButtonRole.AcceptRole)
        ask.setDefaultButton(QMessageBox.StandardButton.Cancel)
        ask.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        ask.buttonClicked.connect(lambda b: self.charge_gas() if b is restart else None)
        ask.open()
        return ask

    def charge_gas(self) -> None:
        self.charge_gas_button.setEnabled(False)
        self.faucet_status.setText("Restarting the sandbox charging gas…")

        async def restart() -> None:
            await self.controller.set_sandbox_gas(True)
            await self.controller.restart_sandbox()

        def done(_r: object = None) -> None:
            self.charge_gas_button.setEnabled(True)
            self.faucet_status.setText(
                "✔ The sandbox charges gas now: the faucet funds this account."
            )
            self._gas_note()

        def failed(text: str) -> None:
            self.charge_gas_button.setEnabled(True)
            self.faucet_status.setText(f"✘ The sandbox did not restart: {text}")

        self.controller.tasks.start(
            "Restarting the sandbox charging gas",
            restart(),
            on_done=while_alive(self, done),
            on_error=while_alive(self, failed),
        )

    def _on_faucet_result(self, result: TxResult) -> None:
        zero = bool(result.hash) and set(result.hash) == {"0"}
        self.faucet_hash.set_value("" if zero else result.hash)
        if zero:
            self.faucet_status.setText(f"Nothing sent. {self._gas_off_text()}")
        elif result.ok:
            self.faucet_status.setText("✔ The faucet sent tokens to this account.")
        elif result.pending:
            self.faucet_status.setText("The faucet transaction is still pending.")
            self.controller.pending.track(result.hash, "faucet")
        else:
            self.faucet_status.setText(f"✘ {result.status}: {result.message or 'no reason given'}")

    def copy_balance(self) -> None:
        if self.view.balance is not None:
            text = exact_tokens(self.view.balance, grouping=False)
            copy_text(text, self.balance_copy, "Exact balance")

    def copy_balance_wei(self) -> None:
        if self.view.balance is not None:
            copy_text(str(self.view.balance), self.balance_copy, "Balance in wei")

    def _fill_chain_filter(self) -> None:
        """All chains, the main chain, then each private chain the history mentions."""
        model = self.tx_model
        wanted: list[tuple[str, str | None]] = [("All chains", None), (MAIN_CHAIN, MAIN)]
        wanted += [(model.chain_title(c), c) for c in model.chain_ids()]
        if model.chain_filter not in (c for _t, c in wanted):
            wanted.append((model.chain_title(model.chain_filter), model.chain_filter))
        box = self.chain_filter
        have = [(box.itemText(i), box.itemData(i)) for i in range(box.count())]
        if have != wanted:
            box.clear()
            for title, chain in wanted:
                box.addItem(title, chain)
        box.setCurrentIndex(next(i for i, (_t, c) in enumerate(wanted) if c == model.chain_filter))
        shown, total = model.rowCount(), model.total
        self.tx_title.setText(
            f"Recent transactions ({total})"
            if shown == total
            else f"Recent transactions ({shown} of {total} on all chains)"
        )

    def _on_chain_filter(self, index: int) -> None:
        self.tx_model.set_chain_filter(self.chain_filter.itemData(index))
        self._fill_chain_filter()

    def _open_tx(self, index: QModelIndex) -> None:
        tx = self.tx_model.transaction(index.row())
        if tx is not None:
            self.transaction_requested.emit(tx.hash)
