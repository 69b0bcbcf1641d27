"""Asks for a user's password when switching to a user whose password is not known."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from app.ui.widgets.common import name_widget


class PasswordDialog(QDialog):
    def __init__(self, user: str, reason: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("passwordDialog")
        self.setAccessibleName(f"Password of {user}")
        self.setWindowTitle(f"Sign in as {user}")
        self.reason = QLabel(f"Signing in as <b>{user}</b> failed: {reason}", self)
        self.reason.setWordWrap(True)
        name_widget(self.reason, "passwordReason", "Why a password is needed")
        self.edit = QLineEdit(self)
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        name_widget(self.edit, "passwordEdit", f"Password of {user}")
        self.keep = QCheckBox("Remember in the secret store", self)
        name_widget(self.keep, "passwordRemember", "Remember the password")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(self.reason)
        form.addRow("Password", self.edit)
        form.addRow(self.keep)
        form.addRow(buttons)

    def password(self) -> str:
        return self.edit.text()

    def remember(self) -> bool:
        return self.keep.isChecked()
