"""The welcome shown on the first run: what the sandbox is, the demo users and the demo app, and
one click to the guided tour. Shown once (``welcome_shown`` in settings.json, through the
controller), by the launcher only: a ``MainWindow`` built on its own (tests, tools) never shows it.
"""

from __future__ import annotations

import asyncio
from html import escape
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.services.controller import AppController
from app.ui.shell.icons import app_icon
from app.ui.shell.tour import start_tour
from app.ui.widgets.common import name_widget

if TYPE_CHECKING:
    from app.ui.shell.main_window import MainWindow


def welcome_html(controller: AppController) -> str:
    where = escape(str(controller.sandbox.data_dir))
    return f"""
<h2>Welcome to Stratoscope</h2>
<p>Stratoscope starts with its own <b>sandbox node</b>: a STRATO-compatible node running on this
computer as a child process of the app. It needs no network and no account, and keeps its data in
<tt>{where}</tt>, so nothing you do here reaches a real network. To use a real STRATO node, open
<i>Connection…</i> (Ctrl+Shift+O).</p>
<p><b>Demo users</b> — the password of each is its name (alice / alice):</p>
<ul>
<li><b>alice</b> (Acme, Engineering), <b>bob</b> (Globex, Logistics) and <b>carol</b> (Acme,
Sales), each with a registered identity;</li>
<li><b>admin</b>, the node operator (BlockApps, Operations);</li>
<li><b>dave</b>, who has <i>no identity on purpose</i>: his Account panel shows why he cannot
transact.</li>
</ul>
<p>You are signed in as alice; <i>Act as</i> in the toolbar (Ctrl+U) switches user.</p>
<p><b>The demo app</b> <b>CarDemo</b> is already deployed: an asset application created by alice
whose asset is a <i>car</i> (vin, color, model, weight), with its data on a private chain of its
own. Look for it in Tables and Chains.</p>
"""


class WelcomeDialog(QDialog):
    """Signals: tour_requested(): the user chose *Take the tour*."""

    tour_requested = Signal()

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomeDialog")
        self.setWindowTitle("Welcome to Stratoscope")
        self.setModal(False)
        icon = QLabel(self)
        icon.setPixmap(app_icon().pixmap(64, 64))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.text = QLabel(welcome_html(controller), self)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setWordWrap(True)
        self.text.setMinimumWidth(460)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.text, "welcomeText", "About the sandbox and the demo")
        buttons = QDialogButtonBox(self)
        self.tour_button = QPushButton("Take the tour", self)
        name_widget(self.tour_button, "welcomeTour", "Take the guided tour of the panels")
        self.tour_button.setDefault(True)
        buttons.addButton(self.tour_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.close_button = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        name_widget(self.close_button, "welcomeClose", "Close the welcome")
        self.tour_button.clicked.connect(self._take_tour)
        self.close_button.clicked.connect(self.reject)
        top = QHBoxLayout()
        top.addWidget(icon)
        top.addWidget(self.text, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(buttons)

    def showEvent(self, event: QShowEvent) -> None:
        """Take the keyboard when shown (Enter takes the tour, Escape closes)."""
        super().showEvent(event)
        self.raise_()
        self.activateWindow()
        self.tour_button.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def done(self, result: int) -> None:
        super().done(result)
        parent = self.parentWidget()
        if parent is not None and result != QDialog.DialogCode.Accepted:
            parent.activateWindow()  # closed: the keyboard goes back to the window

    def _take_tour(self) -> None:
        self.tour_requested.emit()
        self.accept()


def show_welcome(window: MainWindow) -> WelcomeDialog:
    """Show the welcome (non-modal) and remember that it was shown."""
    controller = window.controller
    dialog = WelcomeDialog(controller, window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.tour_requested.connect(lambda: start_tour(window))
    dialog.show()
    controller.tasks.start("Remembering the welcome", controller.first_run_done())
    return dialog


def welcome_after(window: MainWindow, startup: asyncio.Task[Any]) -> None:
    """When ``startup`` (the launcher's first connection, which reads the settings) ends, show
    the welcome if this is the first run; not when it was cancelled (the window closed)."""

    def done(task: asyncio.Task[Any]) -> None:
        if task.cancelled() or not shiboken6.isValid(window) or window.is_closed:
            return
        if window.isVisible() and window.controller.first_run:
            show_welcome(window)

    startup.add_done_callback(done)
