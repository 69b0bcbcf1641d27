"""The confirmation sheet before every write: who signs, where, what, and the exact request."""

from __future__ import annotations

import json
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.services.composer import Preview
from app.ui.widgets.common import copy_text, name_widget


class ConfirmDialog(QDialog):
    def __init__(
        self,
        preview: Preview,
        descriptions: list[str],
        parent: QWidget | None = None,
        *,
        what_label: str = "Calls",
        rows: Sequence[tuple[str, str, str]] = (),
        send_first: bool = False,
    ) -> None:
        """``rows`` adds (label, text, object name) lines after the calls (a transfer's gas);
        ``send_first``: Send holds the focus and Enter sends (the composer's deploy and call,
        where the sheet follows a deliberate Deploy…/Call…); else Cancel does and Enter
        cancels."""
        super().__init__(parent)
        self.setObjectName("confirmDialog")
        self.setAccessibleName("Confirm the transaction")
        n = len(preview.body.get("txs", []))
        self.setWindowTitle("Send this transaction?" if n == 1 else f"Send these {n} transactions?")
        self.preview = preview
        form = QFormLayout()
        # every field is plain text: names, labels and arguments show exactly as typed (quotes,
        # <, > and & included), never as markup or as escapes
        signer = _plain(f"{preview.signer} (the node signs with this user's key)", self)
        name_widget(signer, "confirmSigner", "Signed by")
        chain = _plain(preview.chain, self)
        name_widget(chain, "confirmChain", "Target chain")
        resolve = "wait for the result" if "resolve=true" in preview.url else "return at once"
        mode = _plain(resolve, self)
        name_widget(mode, "confirmResolve", "Resolve mode")
        what = _plain("\n".join(descriptions), self)
        what.setWordWrap(True)
        name_widget(what, "confirmWhat", "What is sent")
        form.addRow("Signer", signer)
        form.addRow("Chain", chain)
        form.addRow("Result", mode)
        form.addRow(what_label, what)
        for label, text, object_name in rows:
            line = _plain(text, self)
            line.setWordWrap(True)
            name_widget(line, object_name, label)
            form.addRow(label, line)
        self.request = QPlainTextEdit(self)
        self.request.setReadOnly(True)
        self.request.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.request.setPlainText(
            f"{preview.method} {preview.url}\n\n{json.dumps(preview.body, indent=2)}"
        )
        name_widget(self.request, "confirmRequest", "The HTTP request")
        self.copy_curl = QPushButton("Copy as curl", self)
        name_widget(self.copy_curl, "confirmCopyCurl", "Copy the request as curl")
        self.copy_curl.clicked.connect(self._copy)
        buttons = QDialogButtonBox(self)
        self.send_button = buttons.addButton("&Send", QDialogButtonBox.ButtonRole.AcceptRole)
        name_widget(self.send_button, "confirmSend", "Send")
        self.send_button.setToolTip("Sign and send (Alt+S)")
        # by default Enter cancels: a write is sent by a deliberate Send (click, Alt+S, or Tab)
        self.cancel_button = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        name_widget(self.cancel_button, "confirmCancel", "Cancel")
        self.send_first = send_first
        self.focused = self.send_button if send_first else self.cancel_button
        self.cancel_button.setToolTip(
            "Send nothing (Esc)" if send_first else "Send nothing (Enter, Esc)"
        )
        if send_first:
            self.send_button.setToolTip("Sign and send (Enter, Alt+S)")
        self.focused.setDefault(True)
        self.copy_curl.setAutoDefault(False)
        buttons.addButton(self.copy_curl, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(QLabel("Request", self))
        lay.addWidget(self.request, 1)
        lay.addWidget(buttons)
        self.resize(640, 480)

    def showEvent(self, event: QShowEvent) -> None:
        """The sheet takes the keyboard when it appears (its default button holds the focus)."""
        super().showEvent(event)
        self.activateWindow()
        self.raise_()
        self.focused.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def set_send_text(self, text: str) -> None:
        """Name the send button after what it does (*Upload*, *Attest*); Alt+S still sends
        (a button's new text drops its old mnemonic, so the shortcut is set again)."""
        self.send_button.setText(text)
        self.send_button.setShortcut(QKeySequence("Alt+S"))
        keys = "Enter, Alt+S" if self.send_first else "Alt+S"
        self.send_button.setToolTip(f"{text.replace('&', '')}: sign and send ({keys})")

    def _copy(self) -> None:
        copy_text(self.preview.curl(), self.copy_curl, "curl command")


def _plain(text: str, parent: QWidget) -> QLabel:
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label
