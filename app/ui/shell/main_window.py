"""The main window: navigation, panels, status bar, user switcher, message bar, docks."""

from __future__ import annotations

import asyncio
from collections import deque
from html import escape

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from app.client.errors import AuthError
from app.client.models import Health
from app.services.controller import AppController
from app.services.search import SearchHit
from app.ui.panels.account.panel import AccountPanel
from app.ui.panels.assets.panel import AssetsPanel
from app.ui.panels.chains.panel import ChainsPanel
from app.ui.panels.composer.panel import ComposerPanel
from app.ui.panels.dashboard.panel import DashboardPanel
from app.ui.panels.files.panel import FilesPanel
from app.ui.panels.tables.panel import TablesPanel
from app.ui.shell.connection_dialog import ConnectionDialog
from app.ui.shell.inspector_dock import InspectorDock
from app.ui.shell.lookup_dialogs import AddressDialog, BlockDialog
from app.ui.shell.password_dialog import PasswordDialog
from app.ui.shell.tour import GuidedTour, start_tour
from app.ui.shell.tx_inspector import TxInspectorDialog
from app.ui.widgets.common import name_widget, while_alive

MAX_MESSAGES = 200


class MessageBar(QFrame):
    """The one place errors and notices appear: non-modal, latest message, with an action."""

    action_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageBar")
        self.setAccessibleName("Messages")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._pending_action = ""
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.text, "messageText", "Message")
        self.action = QPushButton(self)
        name_widget(self.action, "messageAction", "Message action")
        self.action.clicked.connect(lambda: self.action_requested.emit(self._pending_action))
        self.close_button = QPushButton("Dismiss", self)
        name_widget(self.close_button, "messageDismiss", "Dismiss the message")
        self.close_button.clicked.connect(self.hide)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.action)
        lay.addWidget(self.close_button)
        self.history: deque[tuple[str, str, str]] = deque(maxlen=MAX_MESSAGES)
        self.hide()

    def show_message(self, level: str, title: str, text: str, action: str = "") -> None:
        self.history.append((level, title, text))
        icon = {"error": "✘", "warning": "⚠", "info": "i"}.get(level, "")
        self.text.setText(f"{icon} <b>{_esc(title)}</b>: {_esc(text)}")
        self.setProperty("level", level)
        colour = {"error": "#c0392b", "warning": "#b7791f"}.get(level, "#2b6cb0")
        self.setStyleSheet(f"#messageBar {{ border: 1px solid {colour}; border-radius: 4px; }}")
        self._pending_action = action
        self.action.setVisible(bool(action))
        self.action.setText({"sign-in": "Sign in…", "restart": "Restart sandbox"}.get(action, ""))
        self.show()


def _esc(s: str) -> str:
    return escape(s, quote=False).replace("\n", "<br>")


class MainWindow(QMainWindow):
    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setAccessibleName("Stratoscope")
        self.setWindowTitle("Stratoscope")
        self.controller = controller
        self._closing = False
        self._closed = False
        self._switching = False

        # -- panels and navigation
        self.panels: list[QWidget] = [
            AccountPanel(controller, self),
            ComposerPanel(controller, self),
            TablesPanel(controller, self),
            ChainsPanel(controller, self),
            FilesPanel(controller, self),
            DashboardPanel(controller, self),
            AssetsPanel(controller, self),
        ]
        self.nav = QListWidget(self)
        name_widget(self.nav, "navigation", "Panels")
        self.stack = QStackedWidget(self)
        self.stack.setObjectName("panelStack")
        for panel in self.panels:
            self.nav.addItem(str(getattr(panel, "title", panel.objectName())))
            self.stack.addWidget(panel)
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        for panel in self.panels:
            signal = getattr(panel, "transaction_requested", None)
            if signal is not None:
                signal.connect(self.open_transaction)
            contract = getattr(panel, "contract_requested", None)
            if contract is not None:
                contract.connect(self.open_contract)
        self.nav.setCurrentRow(0)
        self.nav.setMaximumWidth(180)
        # wide enough for the longest panel name: no horizontal scroll bar under six names
        self.nav.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        widest = max(
            self.nav.fontMetrics().horizontalAdvance(self.nav.item(i).text())
            for i in range(self.nav.count())
        )
        self.nav.setMinimumWidth(min(180, widest + 2 * self.nav.frameWidth() + 16))

        self.message_bar = MessageBar(self)
        self.message_bar.action_requested.connect(self._on_message_action)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.nav)
        split.addWidget(self.stack)
        split.setStretchFactor(1, 1)
        central = QWidget(self)
        lay = QVBoxLayout(central)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.message_bar)
        lay.addWidget(split, 1)
        self.setCentralWidget(central)

        # -- docks
        self.inspector = InspectorDock(controller.feed, self)
        self.inspector.transaction_requested.connect(self.open_transaction)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.inspector)
        self.inspector.hide()
        self.sandbox_log = QDockWidget("Sandbox log", self)
        self.sandbox_log.setObjectName("sandboxLogDock")
        self.sandbox_log_view = QPlainTextEdit(self.sandbox_log)
        self.sandbox_log_view.setReadOnly(True)
        self.sandbox_log_view.setMaximumBlockCount(2000)
        name_widget(self.sandbox_log_view, "sandboxLog", "Sandbox node log")
        self.sandbox_log.setWidget(self.sandbox_log_view)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.sandbox_log)
        self.tabifyDockWidget(self.inspector, self.sandbox_log)
        self.sandbox_log.hide()
        for line in controller.sandbox.log:
            self.sandbox_log_view.appendPlainText(line)
        controller.sandbox.log_line.connect(self.sandbox_log_view.appendPlainText)

        # -- toolbar and actions
        bar = QToolBar("Main", self)
        bar.setObjectName("mainToolbar")
        bar.setMovable(False)
        self.addToolBar(bar)
        self.connect_action = self._action("Connection…", "actionConnection", "Ctrl+Shift+O")
        self.connect_action.triggered.connect(self.open_connection_dialog)
        bar.addAction(self.connect_action)
        bar.addSeparator()
        bar.addWidget(QLabel(" Act as ", self))
        self.user_switcher = QComboBox(self)
        name_widget(self.user_switcher, "userSwitcher", "Act as user")
        self.user_switcher.setToolTip("Act as another user of this node (Ctrl+U)")
        self.user_switcher.setMinimumContentsLength(10)
        self.user_switcher.activated.connect(self._on_user_chosen)
        bar.addWidget(self.user_switcher)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search: address, tx hash, block, chain ID, name…")
        self.search.setMinimumWidth(300)
        self.search.setToolTip(
            "An address or contact name, a transaction hash, a block number or hash, a chain ID, "
            "or a contract/table name (Ctrl+G)"
        )
        name_widget(self.search, "searchTransaction", "Search the node")
        self.search.returnPressed.connect(self._search)
        self.refresh_action = self._action("Refresh", "actionRefresh", "F5")
        self.refresh_action.triggered.connect(self.refresh)
        bar.addAction(self.refresh_action)
        self.inspector_action = self.inspector.toggleViewAction()
        self.inspector_action.setText("HTTP inspector")
        self.inspector_action.setObjectName("actionInspector")
        self.inspector_action.setShortcut(QKeySequence("Ctrl+I"))
        bar.addAction(self.inspector_action)
        self.log_action = self.sandbox_log.toggleViewAction()
        self.log_action.setText("Sandbox log")
        self.log_action.setObjectName("actionSandboxLog")
        self.log_action.setShortcut(QKeySequence("Ctrl+L"))
        bar.addAction(self.log_action)
        for act in bar.actions():  # the buttons the toolbar made for our actions
            button = bar.widgetForAction(act)
            if act.objectName() and button is not None:
                name_widget(button, act.objectName() + "Button", act.text().rstrip("…"))
        bar.addSeparator()
        bar.addWidget(self.search)
        find = self._action("Search", "actionGoToTransaction", "Ctrl+G")
        find.triggered.connect(self.search.setFocus)
        self.addAction(find)
        focus_user = self._action("Switch user", "actionSwitchUser", "Ctrl+U")
        focus_user.triggered.connect(self._focus_switcher)
        self.addAction(focus_user)
        tour = self._action("Guided tour", "actionTour", "F1")
        tour.triggered.connect(self.start_tour)
        self.addAction(tour)
        for i in range(len(self.panels)):
            act = self._action(f"Go to panel {i + 1}", f"actionPanel{i + 1}", f"Ctrl+{i + 1}")
            act.setData(i)
            act.triggered.connect(self._on_panel_action)
            self.addAction(act)
        self.addAction(self.connect_action)
        self.addAction(self.refresh_action)

        # -- status bar
        sb = self.statusBar()
        self.status_node = self._status_label("statusNode", "Node", "Not connected")
        self.status_block = self._status_label("statusBlock", "Latest block", "Block —")
        self.status_user = self._status_label("statusUser", "Current user", "No user")
        self.status_pending = self._status_label("statusPending", "Pending transactions", "")
        self.status_sandbox = self._status_label("statusSandbox", "Sandbox node", "")
        self.restart_button = QPushButton("Restart sandbox", self)
        name_widget(self.restart_button, "sandboxRestart", "Restart the sandbox node")
        self.restart_button.clicked.connect(self.restart_sandbox)
        self.restart_button.hide()
        for w in (self.status_node, self.status_block, self.status_user, self.status_pending):
            sb.addWidget(w)
        sb.addPermanentWidget(self.status_sandbox)
        sb.addPermanentWidget(self.restart_button)

        # -- wiring
        s = controller.session
        s.state_changed.connect(self._on_session_state)
        s.health_changed.connect(self._on_health)
        s.block_changed.connect(self._on_block)
        s.user_changed.connect(self._on_user_changed)
        controller.account.changed.connect(self._on_account)
        controller.users_changed.connect(self._on_users)
        controller.message.connect(self._on_message)
        controller.sandbox.state_changed.connect(self._on_sandbox_state)
        controller.tasks.busy_changed.connect(self._on_count)
        controller.pending.count_changed.connect(self._on_count)
        self._update_node()
        self.resize(1100, 760)

    def _action(self, text: str, name: str, shortcut: str) -> QAction:
        act = QAction(text, self)
        act.setObjectName(name)
        act.setShortcut(QKeySequence(shortcut))
        act.setToolTip(f"{text} ({shortcut})")
        return act

    def _status_label(self, name: str, accessible: str, text: str) -> QLabel:
        label = QLabel(text, self)
        name_widget(label, name, accessible)
        return label

    # ------------------------------------------------------------ status

    def _on_session_state(self, _state: str) -> None:
        self._update_node()

    def _on_block(self, number: int) -> None:
        self.status_block.setText(f"Block {number}")

    def _on_account(self, _view: object) -> None:
        self._update_user()

    def _on_count(self, _n: int) -> None:
        self._update_pending()

    def _on_panel_action(self) -> None:
        act = self.sender()
        if isinstance(act, QAction):
            self.nav.setCurrentRow(int(act.data()))

    def _update_node(self) -> None:
        s = self.controller.session
        state = s.state
        url = s.node_url or "—"
        where = "sandbox " if s.profile and s.profile.sandbox else ""
        text = {
            "connected": f"● {where}{url}",
            "connecting": f"… connecting to {where}{url}",
            "unreachable": f"✘ {where}{url} not answering",
            "disconnected": "○ not connected",
        }.get(state, state)
        self.status_node.setText(text)
        self.status_node.setToolTip(f"Node {url}: {state}")
        self.setWindowTitle(f"Stratoscope — {s.username or 'not signed in'} @ {url}")
        self._update_pending()

    def _on_health(self, health: Health | None) -> None:
        if health is None:
            self.status_node.setToolTip("The node does not answer /health")
            return
        ok = "healthy" if health.healthy else "NOT healthy"
        self.status_node.setToolTip(
            f"{self.controller.session.node_url}: {ok}, version {health.version or '?'}, "
            f"up {health.uptime} s"
        )

    def _on_user_changed(self, name: str) -> None:
        idx = self.user_switcher.findText(name)
        if idx < 0:
            self.user_switcher.addItem(name)
            idx = self.user_switcher.findText(name)
        self.user_switcher.setCurrentIndex(idx)
        self._update_user()
        self._update_node()

    def _update_user(self) -> None:
        s = self.controller.session
        view = self.controller.account.view
        org = ""
        if view.identity:
            org = f" · {view.identity.get('organization', '')}"
            unit = view.identity.get("organizationalUnit")
            org += f" / {unit}" if unit else ""
        elif view.loaded and view.address:
            org = " · no identity"
        self.status_user.setText(f"User {s.username or '—'}{org}")

    def _update_pending(self) -> None:
        n = len(self.controller.pending.hashes)
        self.status_pending.setText(f"{n} pending" if n else "no pending tx")

    def _on_users(self, names: list[str]) -> None:
        current = self.controller.session.username
        self.user_switcher.blockSignals(True)
        self.user_switcher.clear()
        self.user_switcher.addItems(names)
        self.user_switcher.setCurrentIndex(max(self.user_switcher.findText(current), 0))
        self.user_switcher.blockSignals(False)

    def _on_sandbox_state(self, state: str) -> None:
        labels = {
            "starting": "sandbox starting…",
            "running": "sandbox running",
            "crashed": "✘ sandbox stopped",
            "stopped": "",
        }
        self.status_sandbox.setText(labels.get(state, state))
        self.restart_button.setVisible(state == "crashed")

    def _on_message(self, level: str, title: str, text: str, action: str = "") -> None:
        self.message_bar.show_message(level, title, text, action)

    def _on_message_action(self, action: str) -> None:
        if action == "sign-in":
            self.open_connection_dialog()
        elif action == "restart":
            self.restart_sandbox()
        self.message_bar.hide()

    # ------------------------------------------------------------ actions

    def open_contract(self, name: str, address: str, chain_id: str) -> None:
        """Show a contract in the composer's Call page (from a table row, a chain ...)."""
        composer = next(p for p in self.panels if isinstance(p, ComposerPanel))
        self.nav.setCurrentRow(self.panels.index(composer))
        composer.open_contract(name, address, chain_id)

    def refresh(self) -> None:
        self.controller.account.request_refresh()

    def start_tour(self) -> GuidedTour:
        return start_tour(self)

    def restart_sandbox(self) -> None:
        self.restart_button.setEnabled(False)

        def failed(text: str) -> None:
            self.restart_button.setEnabled(True)
            self._on_message("error", "Restarting the sandbox", text)

        self.controller.tasks.start(
            "Restarting the sandbox",
            self.controller.restart_sandbox(),
            on_done=while_alive(self, self._restarted),
            on_error=while_alive(self, failed),
        )

    def open_transaction(self, tx_hash: str) -> TxInspectorDialog:
        dialog = TxInspectorDialog(self.controller, tx_hash, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def _search(self) -> None:
        text = self.search.text().strip()
        if text:
            self.controller.tasks.start(
                f"Searching for {text[:20]}",
                self.controller.search.resolve(text),
                on_done=while_alive(self, self.go_to),
                on_error=while_alive(self, lambda msg: self._on_message("info", "Search", msg)),
            )

    def go_to(self, hit: SearchHit) -> QWidget | None:
        """Show what the search found in the panel or view made for it."""
        if hit.kind == "transaction":
            return self.open_transaction(hit.value)
        if hit.kind == "contract":
            self.open_contract(hit.name, hit.value, hit.chain_id)
            return self.stack.currentWidget()
        dialog: AddressDialog | BlockDialog
        if hit.kind == "account":
            dialog = AddressDialog(self.controller, hit.value, self)
        elif hit.kind == "block":
            dialog = BlockDialog(hit.detail["block"], self, self.controller.address_names())
        elif hit.kind == "chain":
            chains = next(p for p in self.panels if isinstance(p, ChainsPanel))
            self.nav.setCurrentRow(self.panels.index(chains))
            chains.reload(select=hit.value)
            return chains
        else:
            tables = next(p for p in self.panels if isinstance(p, TablesPanel))
            self.nav.setCurrentRow(self.panels.index(tables))
            tables.open_table(hit.value)
            return tables
        dialog.transaction_requested.connect(self.open_transaction)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def _restarted(self, _result: object) -> None:
        self.restart_button.setEnabled(True)

    def open_connection_dialog(self) -> ConnectionDialog:
        dialog = ConnectionDialog(self.controller, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def _focus_switcher(self) -> None:
        self.user_switcher.setFocus()
        self.user_switcher.showPopup()

    def _on_user_chosen(self, index: int) -> None:
        name = self.user_switcher.itemText(index)
        if not name or name == self.controller.session.username or self._switching:
            return
        self.switch_user(name)

    def switch_user(self, name: str, password: str | None = None, remember: bool = False) -> None:
        self._switching = True

        async def run() -> AuthError | None:
            try:
                await self.controller.switch_user(name, password, remember=remember)
            except AuthError as exc:
                return exc
            return None

        def done(err: AuthError | None) -> None:
            self._switching = False
            if err is not None:
                self._restore_switcher()
                self.ask_password(name, str(err.message))

        def failed(text: str) -> None:
            self._switching = False
            self._restore_switcher()
            self._on_message("error", f"Switching to {name}", text)

        self.controller.tasks.start(
            f"Switching to {name}",
            run(),
            on_done=while_alive(self, done),
            on_error=while_alive(self, failed),
        )

    def _restore_switcher(self) -> None:
        idx = self.user_switcher.findText(self.controller.session.username)
        self.user_switcher.setCurrentIndex(max(idx, 0))

    def ask_password(self, name: str, reason: str) -> PasswordDialog:
        dialog = PasswordDialog(name, reason, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def finished(code: int) -> None:
            if code == QDialog.DialogCode.Accepted:
                self.switch_user(name, dialog.password(), dialog.remember())

        dialog.finished.connect(finished)
        dialog.open()
        return dialog

    # ------------------------------------------------------------ closing

    @property
    def is_closed(self) -> bool:
        return self._closed

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel and await every task, close the connection and stop the sandbox, then close."""
        if self._closed:
            event.accept()
            return
        event.ignore()
        if self._closing:
            return
        if not next(p for p in self.panels if isinstance(p, ComposerPanel)).maybe_keep_source():
            return  # the composer asks about unsaved source first (and closes again)
        self._closing = True

        def finish(_task: object) -> None:
            if shiboken6.isValid(self):  # deleted meanwhile: nothing left to close
                self._closed = True
                self.close()

        task = asyncio.get_event_loop().create_task(self.controller.shutdown())
        task.add_done_callback(finish)
