"""Send tokens: recipient, amount and chain checked as they are typed, then the confirmation sheet
with the exact ``TRANSFER`` request, then the transaction followed until its block.

Enter in the form opens the sheet; the sheet itself never sends on Enter (Alt+S sends). A user
the node would refuse anyway (no key, no identity, a revoked certificate) is told why up front.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QStringListModel, Qt, Signal
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.client.models import TxResult
from app.client.units import amount_tooltip, format_amount
from app.services.account import MAIN_CHAIN, AccountView
from app.services.chains import ChainInfo
from app.services.controller import AppController
from app.services.transfers import (
    UNITS,
    GasPlan,
    Recipient,
    Transfer,
    TransferProblem,
    amount_text,
    check_funds,
    gas_plan,
    max_amount,
    parse_amount,
    resolve_recipient,
)
from app.ui.widgets.common import CopyField, name_widget, while_alive
from app.ui.widgets.confirm_dialog import ConfirmDialog
from app.ui.widgets.contact_name import ask_contact_name

NO_KEY = "{user} has no key on this node yet: create one in the Account panel, then send."
NO_IDENTITY = (
    "<b>{user} cannot send tokens: {user} has no registered identity.</b> STRATO accepts "
    "transactions only from accounts with a certificate in the on-chain certificate registry, "
    "so the node would refuse the transfer. Ask the network's operator to register a "
    "certificate for this address; receiving tokens needs none."
)
REVOKED = (
    "<b>{user} cannot send tokens: {user}'s certificate was revoked.</b> The node refuses "
    "transactions from this account until a new certificate is registered."
)
RED = "color:#c0392b"
Balance = int | str | None  # wei, the reason it cannot be read, or None while it loads


class SendDialog(QDialog):
    """Signals: transaction_requested(str): inspect the transfer just sent."""

    transaction_requested = Signal(str)

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sendDialog")
        self.setAccessibleName("Send tokens")
        self.setWindowTitle("Send tokens")
        self.controller = controller
        self.transfers = controller.transfers
        self.view: AccountView = controller.account.view
        self.users: list[tuple[str, str]] = []
        self.balances: dict[str | None, Balance] = {}
        self.recipient: Recipient | None = None
        self.waiting = ""  # the hash of the transfer being followed
        self.last_result: TxResult | None = None
        self.sheet: ConfirmDialog | None = None
        self._last_transfer: Transfer | None = None
        self.chain_titles: dict[str, str] = {}  # private chain ID -> label
        self._unit = UNITS[0]  # the unit the amount was typed in
        self._reading: set[str | None] = set()  # chains whose balance is being read
        self._again: set[str | None] = set()  # ... and read again when that read ends

        self.banner = QLabel(self)
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.RichText)
        self.banner.setVisible(False)
        name_widget(self.banner, "sendBlocked", "Why nothing can be sent")
        self.from_label = QLabel(self)
        self.from_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.from_label, "sendFrom", "From")

        self.recipient_edit = QLineEdit(self)
        self.recipient_edit.setPlaceholderText("a contact, a user of the node, or an address")
        name_widget(self.recipient_edit, "sendRecipient", "Recipient")
        self.names = QStringListModel(self)
        completer = QCompleter(self.names, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.recipient_edit.setCompleter(completer)
        self.pick = QToolButton(self)
        self.pick.setText("…")
        self.pick.setToolTip("Pick a contact or a user of the node")
        self.pick.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        name_widget(self.pick, "sendPick", "Pick a recipient")
        self.pick_menu = QMenu(self.pick)
        self.pick_menu.aboutToShow.connect(self._fill_pick_menu)
        self.pick.setMenu(self.pick_menu)
        self.save_contact = QPushButton("Save as &contact…", self)
        self.save_contact.setAutoDefault(False)
        self.save_contact.setEnabled(False)
        name_widget(self.save_contact, "sendSaveContact", "Save the recipient as a contact")
        self.save_contact.clicked.connect(self.ask_contact_name)
        self.recipient_note = QLabel(self)
        self.recipient_note.setWordWrap(True)
        self.recipient_note.setTextFormat(Qt.TextFormat.PlainText)
        # room for a two-line note from the start: the rows below must not jump while typing
        self.recipient_note.setMinimumHeight(self.fontMetrics().lineSpacing() * 2)
        self.recipient_note.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        name_widget(self.recipient_note, "sendRecipientNote", "Who receives")

        self.chain = QComboBox(self)
        self.chain.addItem(MAIN_CHAIN, None)
        self.chain.setToolTip("The main chain, or a private chain you are a member of")
        name_widget(self.chain, "sendChain", "Chain")

        self.amount = QLineEdit(self)
        self.amount.setPlaceholderText("amount, such as 12.5")
        name_widget(self.amount, "sendAmount", "Amount")
        self.unit = QComboBox(self)
        self.unit.addItems(list(UNITS))
        self.unit.setToolTip("1 token = 10^18 wei")
        name_widget(self.unit, "sendUnit", "Unit")
        self.max_button = QPushButton("&Max", self)
        self.max_button.setAutoDefault(False)
        self.max_button.setToolTip("Everything on this chain, less the most the gas can cost")
        name_widget(self.max_button, "sendMax", "Send everything")
        self.max_button.clicked.connect(self.fill_max)
        self.balance = QLabel("—", self)
        name_widget(self.balance, "sendBalance", "Balance")
        self.gas = QLabel(self)
        self.gas.setWordWrap(True)
        name_widget(self.gas, "sendGas", "Gas")

        self.problem = QLabel(self)
        self.problem.setWordWrap(True)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setStyleSheet(RED)
        name_widget(self.problem, "sendProblem", "Problem")
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        name_widget(self.status, "sendStatus", "Result")
        self.hash = CopyField("sendHash", "Transaction hash", self)
        self.hash.setVisible(False)
        self.inspect = QPushButton("&Inspect", self)
        self.inspect.setAutoDefault(False)
        self.inspect.setToolTip("Open the transfer in the transaction inspector")
        name_widget(self.inspect, "sendInspect", "Inspect the transfer")
        self.inspect.clicked.connect(lambda: self.transaction_requested.emit(self.hash.value()))
        self.inspect.setVisible(False)

        buttons = QDialogButtonBox(self)
        self.review_button = buttons.addButton("&Review…", QDialogButtonBox.ButtonRole.ActionRole)
        self.review_button.setToolTip("Show the exact request before anything is sent (Enter)")
        self.review_button.setDefault(True)
        name_widget(self.review_button, "sendReview", "Review the transfer")
        self.review_button.clicked.connect(self.review)
        self.close_button = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.close_button.setAutoDefault(False)
        name_widget(self.close_button, "sendClose", "Close")
        buttons.rejected.connect(self.reject)

        to_row = QHBoxLayout()
        to_row.addWidget(self.recipient_edit, 1)
        to_row.addWidget(self.pick)
        to_row.addWidget(self.save_contact)
        amount_row = QHBoxLayout()
        amount_row.addWidget(self.amount, 1)
        amount_row.addWidget(self.unit)
        amount_row.addWidget(self.max_button)
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow("From", self.from_label)
        to_label = QLabel("&To", self)
        to_label.setBuddy(self.recipient_edit)
        form.addRow(to_label, to_row)
        form.addRow("", self.recipient_note)
        chain_label = QLabel("C&hain", self)
        chain_label.setBuddy(self.chain)
        form.addRow(chain_label, self.chain)
        amount_label = QLabel("&Amount", self)
        amount_label.setBuddy(self.amount)
        form.addRow(amount_label, amount_row)
        form.addRow("Balance", self.balance)
        form.addRow("Gas", self.gas)
        lay = QVBoxLayout(self)
        lay.addWidget(self.banner)
        lay.addLayout(form)
        lay.addWidget(self.problem)
        lay.addWidget(self.status)
        result_row = QHBoxLayout()
        result_row.addWidget(self.hash, 1)
        result_row.addWidget(self.inspect)
        lay.addLayout(result_row)
        lay.addStretch(1)
        lay.addWidget(buttons)
        self.resize(620, 360)

        self.recipient_edit.textChanged.connect(self._update)
        # "bo" on the way to "bob" is not an unknown name: a recipient is judged once the
        # field is left (or Enter pressed); while typing, the note says where it is going
        self._recipient_left = False
        self.recipient_edit.textEdited.connect(self._recipient_typing)
        self.recipient_edit.editingFinished.connect(self._recipient_finished)
        self.recipient_edit.installEventFilter(self)  # leaving it by Tab or a click, too
        self.amount.textChanged.connect(self._update)
        self.unit.currentIndexChanged.connect(self._on_unit)
        self.chain.currentIndexChanged.connect(self._on_chain)
        controller.contacts_changed.connect(self._on_contacts)
        controller.session.health_changed.connect(self._update)
        controller.session.block_changed.connect(self._on_block)
        controller.account.changed.connect(self._on_account)
        self.transfers.finished.connect(self._on_finished)
        self._show_sender()
        self._refill_names()
        self._update()
        self._load()

    # ------------------------------------------------------------ reading

    def _load(self) -> None:
        """Users, the chains the user belongs to, and the main chain's balance."""
        tasks = self.controller.tasks

        def users(rows: list[tuple[str, str]]) -> None:
            self.users = rows
            self._refill_names()
            self._update()

        def chains(found: list[ChainInfo]) -> None:
            current = self.chain.currentData()
            self.chain.blockSignals(True)
            self.chain.clear()
            self.chain.addItem(MAIN_CHAIN, None)
            for c in found:
                self.chain.addItem(f"{c.title()} ({c.id[:8]}…)", c.id)
                self.chain_titles[c.id] = c.title()
            self.chain.setCurrentIndex(max(self.chain.findData(current), 0))
            self.chain.blockSignals(False)
            self._on_chain()

        tasks.start(
            "Listing users", self.controller.composer.users(), on_done=while_alive(self, users)
        )
        if self.view.identity is not None:
            tasks.start(
                "Listing your chains",
                self.transfers.member_chains(self.view.identity),
                on_done=while_alive(self, chains),
            )
        self._read_balance(None)

    def _read_balance(self, chain_id: str | None) -> None:
        """Read one chain's balance; a read asked while one runs for that chain is done once
        after it (a busy node gets no pile of requests, one per block)."""
        address = self.view.address
        if not address:
            return
        if chain_id in self._reading:
            self._again.add(chain_id)
            return
        self._reading.add(chain_id)

        def settle(value: Balance) -> None:
            self._reading.discard(chain_id)
            self.balances[chain_id] = value
            self._update()
            if chain_id in self._again:
                self._again.discard(chain_id)
                self._read_balance(chain_id)

        self.controller.tasks.start(
            "Reading the balance",
            self.transfers.balance(address, chain_id),
            on_done=while_alive(self, settle),
            on_error=while_alive(self, settle),
        )

    def _on_chain(self, _index: int = 0) -> None:
        chain_id = self.chain_id()
        if chain_id not in self.balances:
            self.balances[chain_id] = None
            self._read_balance(chain_id)
        self._update()

    def _on_block(self, _n: int) -> None:
        if self.isVisible():
            self._read_balance(self.chain_id())

    def _on_account(self, view: AccountView) -> None:
        if view.username != self.view.username:
            self.reject()  # another user: this dialog spoke for the last one
            return
        # opened before the account was read (the menu action works at once): read what the
        # key and the identity give access to, now that they are known
        reread = (view.address, view.identity is None) != (
            self.view.address,
            self.view.identity is None,
        )
        self.view = view
        self._show_sender()
        self._update()
        if reread:
            self.balances.clear()
            self._load()

    def _on_unit(self, _index: int = 0) -> None:
        """Keep the amount: 2.5 tokens become 2500000000000000000 wei, and back."""
        old, self._unit = self._unit, self.unit.currentText()
        try:
            value = parse_amount(self.amount.text(), old)
        except TransferProblem:
            value = None
        if value is not None and old != self._unit:
            self.amount.setText(amount_text(value, self._unit))
        self._update()

    def _on_contacts(self, _contacts: object) -> None:
        self._refill_names()
        self._update()

    # ------------------------------------------------------------ the form

    def chain_id(self) -> str | None:
        data = self.chain.currentData()
        return str(data) if data else None

    def chain_title(self) -> str:
        cid = self.chain_id()
        return MAIN_CHAIN if cid is None else self.chain_titles.get(cid, cid)

    def gas_plan(self) -> GasPlan:
        return gas_plan(self.controller.session)

    def blocked(self) -> str:
        """Why this user cannot send at all ("" when they can)."""
        v = self.view
        user = v.username or "this user"
        if not v.address:
            return NO_KEY.format(user=user) if v.loaded else "Loading the account…"
        if v.identity_error:
            return ""  # unknown: the node decides
        if v.identity is None:
            return NO_IDENTITY.format(user=user)
        return "" if v.has_identity else REVOKED.format(user=user)

    def _show_sender(self) -> None:
        v = self.view
        self.from_label.setText(f"{v.username or '—'}  {v.address or '(no key)'}")
        reason = self.blocked()
        self.banner.setText(reason)
        self.banner.setVisible(bool(reason))
        for w in (self.recipient_edit, self.pick, self.chain, self.amount, self.unit):
            w.setEnabled(not reason)
        self.max_button.setEnabled(not reason)
        self.review_button.setEnabled(not reason and not self.waiting)

    def _refill_names(self) -> None:
        names = dict.fromkeys(sorted(self.controller.contacts) + [n for n, _a in self.users])
        self.names.setStringList(list(names))

    def _fill_pick_menu(self) -> None:
        menu = self.pick_menu
        menu.clear()
        entries = [("contact", n, a) for n, a in sorted(self.controller.contacts.items())]
        entries += [("user", n, a) for n, a in self.users]
        if not entries:
            menu.addAction("No contacts or users yet").setEnabled(False)
        for kind, name, address in entries:
            act = menu.addAction(f"{kind} {name}  {address[:10]}…")
            act.triggered.connect(lambda _c=False, n=name: self.recipient_edit.setText(n))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # editingFinished does not fire when the completer's popup had the keyboard, or
        # when nothing was typed since the last time: losing the focus finishes the field
        if (
            watched is self.recipient_edit
            and event.type() == QEvent.Type.FocusOut
            and isinstance(event, QFocusEvent)
            and event.reason() != Qt.FocusReason.PopupFocusReason
        ):
            self._recipient_finished()
        return super().eventFilter(watched, event)

    def _recipient_typing(self, _text: str) -> None:
        self._recipient_left = False  # textChanged runs _update after this

    def _recipient_finished(self) -> None:
        if not self._recipient_left:
            self._recipient_left = True
            self._update()

    def _typing_hint(self) -> str:
        """Where a recipient still being typed is going ("" once it cannot get anywhere)."""
        if self._recipient_left:
            return ""
        return typing_hint(
            self.recipient_edit.text(), list(self.controller.contacts), [n for n, _ in self.users]
        )

    def _resolve(self) -> Recipient:
        return resolve_recipient(self.recipient_edit.text(), self.controller.contacts, self.users)

    def _balance_now(self) -> Balance:
        return self.balances.get(self.chain_id())

    def _update(self, *_args: Any) -> None:
        """Say who receives, what the balance and the gas are, and the first problem."""
        self.recipient = None
        note = ""
        if self.recipient_edit.text().strip():
            try:
                self.recipient = self._resolve()
                note = f"→ {self.recipient.describe()}"
                if self.recipient.address == self.view.address:
                    note += ". That is your own address: the tokens stay with you"
                    note += " (only the gas is spent, when the node charges it)."
                self.recipient_note.setStyleSheet("")
            except TransferProblem as exc:
                hint = self._typing_hint()
                note = hint or f"✘ {exc}"
                self.recipient_note.setStyleSheet("" if hint else RED)
        self.recipient_note.setText(note)
        self.save_contact.setEnabled(
            self.recipient is not None and self.recipient.source != "contact"
        )
        gas = self.gas_plan()
        self.gas.setText(gas.describe())
        bal = self._balance_now()
        if bal is None:
            self.balance.setText(f"reading the balance on {self.chain_title()}…")
            self.balance.setToolTip("")
        elif isinstance(bal, str):
            self.balance.setText(f"unknown ({bal})")
            self.balance.setToolTip("")
        else:
            self.balance.setText(f"{format_amount(bal)} on {self.chain_title()}")
            self.balance.setToolTip(amount_tooltip(bal))
        self.max_button.setEnabled(isinstance(bal, int) and not self.blocked())
        problem = ""
        if self.amount.text().strip():
            try:
                self._checked_amount()
            except TransferProblem as exc:
                problem = str(exc)
        self.problem.setText(problem)

    def _checked_amount(self) -> int:
        value = parse_amount(self.amount.text(), self.unit.currentText())
        bal = self._balance_now()
        if isinstance(bal, int):
            check_funds(bal, value, self.gas_plan(), self.view.username, self.chain_title())
        return value

    def fill_max(self) -> None:
        bal = self._balance_now()
        if not isinstance(bal, int):
            return
        most = max_amount(bal, self.gas_plan())
        if most <= 0:
            self.problem.setText(
                f"Nothing can be sent: {format_amount(bal)} on {self.chain_title()} does not "
                "cover the gas."
            )
            return
        self.amount.setText(amount_text(most, self.unit.currentText()))
        self.amount.setFocus()

    def transfer(self) -> Transfer:
        """The transfer the form describes; a problem raises with its sentence."""
        reason = self.blocked()
        if reason:
            raise TransferProblem(reason.replace("<b>", "").replace("</b>", ""))
        recipient = self._resolve()
        value = self._checked_amount()
        if self._balance_now() is None:
            raise TransferProblem(
                f"The balance on {self.chain_title()} is still being read: try again in a moment."
            )
        assert self.view.address is not None
        return Transfer(
            self.view.address,
            recipient,
            value,
            self.chain_id(),
            self.chain_title(),
            self.gas_plan(),
        )

    # ------------------------------------------------------------ sending

    def review(self) -> ConfirmDialog | None:
        """Check the form and open the confirmation sheet (nothing is sent from here)."""
        if self.waiting:
            return None
        try:
            transfer = self.transfer()
        except TransferProblem as exc:
            self.problem.setText(str(exc))
            self._focus_problem()
            return None
        self.problem.setText("")
        preview = self.transfers.preview(transfer)
        total = f"{format_amount(transfer.value)}"
        if transfer.gas.max_fee:
            total += f" + at most {format_amount(transfer.gas.max_fee)} of gas"
        sheet = ConfirmDialog(
            preview,
            transfer.draft().descriptions,
            self,
            what_label="Transfer",
            rows=[
                ("Gas", transfer.gas.describe(), "confirmGas"),
                ("Total", total, "confirmTotal"),
            ],
        )
        sheet.setWindowTitle("Send these tokens?")
        sheet.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def finished(code: int) -> None:
            self.sheet = None
            if code == QDialog.DialogCode.Accepted:
                self._send(transfer)

        sheet.finished.connect(finished)
        self.sheet = sheet
        sheet.open()
        return sheet

    def _focus_problem(self) -> None:
        try:
            self._resolve()
        except TransferProblem:
            self.recipient_edit.setFocus()
            return
        self.amount.setFocus()

    def _send(self, transfer: Transfer) -> None:
        self.waiting = "…"
        self.review_button.setEnabled(False)
        self.hash.setVisible(False)
        self.inspect.setVisible(False)
        self.status.setStyleSheet("")
        self.status.setText(f"Sending {format_amount(transfer.value)}…")

        def sent(result: TxResult) -> None:
            self.hash.set_value(result.hash)
            self.hash.setVisible(bool(result.hash))
            self.inspect.setVisible(bool(result.hash))
            if result.pending:
                self.waiting = result.hash
                self.status.setText(
                    f"Pending: {format_amount(transfer.value)} to "
                    f"{transfer.recipient.name or transfer.recipient.address}, waiting for the "
                    "block…"
                )
            else:
                self._on_finished(result, transfer)

        def failed(text: str) -> None:
            self.waiting = ""
            self.review_button.setEnabled(not self.blocked())
            self.status.setStyleSheet(RED)
            self.status.setText(f"✘ Nothing was sent: {text}")

        self._last_transfer = transfer
        self.controller.tasks.start(
            "Sending tokens",
            self.transfers.send(transfer),
            on_done=while_alive(self, sent),
            on_error=while_alive(self, failed),
        )

    def _on_finished(self, result: TxResult, transfer: Transfer | None = None) -> None:
        if transfer is None:
            if not self.waiting or result.hash != self.waiting:
                return
            transfer = self._last_transfer
            if transfer is None:
                return
        self.waiting = ""
        self.last_result = result
        self.review_button.setEnabled(not self.blocked())
        who = transfer.recipient.name or transfer.recipient.address
        if result.ok:
            self.status.setStyleSheet("")
            self.status.setText(
                f"✔ Sent {format_amount(transfer.value)} to {who} on {transfer.chain_title}."
            )
            self.amount.clear()
        else:
            self.status.setStyleSheet(RED)
            self.status.setText(
                f"✘ The node refused the transfer: {result.message or result.status}"
            )
        self._read_balance(transfer.chain_id)

    def ask_contact_name(self) -> QWidget | None:
        """Save the recipient in the contact book under a name (the user's name suggested)."""
        r = self.recipient
        if r is None:
            return None

        def saved(name: str) -> None:
            self.status.setStyleSheet("")
            self.status.setText(f"Saved {r.address} as contact “{name}”.")

        return ask_contact_name(
            self.controller,
            r.address,
            self,
            lambda text: self.problem.setText(f"Not saved: {text}"),
            saved,
            r.name,
        )


def typing_hint(text: str, contacts: list[str], users: list[str]) -> str:
    """A neutral note for a recipient that more typing can still make right: the start of a
    contact's or a user's name, or of an address; "" when it cannot."""
    t = text.strip()
    if not t:
        return ""
    low = t.lower()
    names = [n for n in dict.fromkeys(contacts + users) if n.lower().startswith(low)]
    if names:
        shown = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        return f"… {shown}?"
    digits = low.removeprefix("0x")
    hexish = all(c in "0123456789abcdef" for c in digits)
    if (low.startswith("0x") or len(digits) >= 8) and len(digits) < 40 and hexish:
        return f"… an address: {len(digits)} of 40 hex digits so far"
    return ""
