"""Save an address in the contact book under a name the user types (composer, Send dialog)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QWidget

from app.services.controller import AppController
from app.ui.widgets.common import while_alive


def ask_contact_name(
    controller: AppController,
    address: str,
    near: QWidget,
    on_error: Callable[[str], object],
    on_saved: Callable[[str], object] | None = None,
    suggested: str = "",
) -> QInputDialog:
    """Ask for a name and store ``address`` under it (non-blocking: the dialog is opened, not
    executed). ``on_saved`` gets the name once the contact book has it."""
    dialog = QInputDialog(near)
    dialog.setObjectName("contactNameDialog")
    dialog.setWindowTitle("Save as contact")
    dialog.setLabelText(f"Name for {address}:")
    dialog.setTextValue(suggested)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def save(name: str) -> None:
        name = name.strip()  # the contact book checks the name and says what is wrong
        controller.tasks.start(
            "Saving a contact",
            controller.add_contact(name, address),
            on_done=while_alive(near, lambda _r: on_saved(name)) if on_saved else None,
            on_error=while_alive(near, on_error),
        )

    dialog.textValueSelected.connect(save)
    dialog.open()
    return dialog
