"""The main window: navigation, panels, status bar, user switcher, message bar, docks."""

from __future__ import annotations

import asyncio

import shiboken6
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDockWidget,
    QFrame,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from app.client.cirrus_query import CirrusQuery
from app.client.errors import AuthError
from app.client.models import Health, SourcePosition
from app.services.controller import AppController
from app.services.search import SearchHit
from app.ui.panels.account.panel import AccountPanel
from app.ui.panels.assets.panel import AssetsPanel
from app.ui.panels.chains.panel import ChainsPanel
from app.ui.panels.composer.build import failure_place
from app.ui.panels.composer.panel import ComposerPanel
from app.ui.panels.composer.rerun import rerun_transaction
from app.ui.panels.composer.source_pane import go_to
from app.ui.panels.dashboard.panel import DashboardPanel
from app.ui.panels.explorer.panel import ExplorerPanel
from app.ui.panels.files.panel import FilesPanel
from app.ui.panels.tables.panel import TablesPanel
from app.ui.shell import screen_fit, window_state
from app.ui.shell.connection_dialog import ConnectionDialog
from app.ui.shell.icons import ICON_PROPERTY, retint, set_icon
from app.ui.shell.inspector_dock import InspectorDock
from app.ui.shell.lookup_dialogs import AddressDialog, BlockDialog
from app.ui.shell.menus import AboutDialog, add_panel_actions, build_menus, make_action
from app.ui.shell.message_bar import MessageBar
from app.ui.shell.navigation import ICON_ROLE, NavigationTree, PanelStack
from app.ui.shell.password_dialog import PasswordDialog
from app.ui.shell.status_bar import health_status
from app.ui.shell.theme import THEMES, apply_theme, current_theme
from app.ui.shell.tour import GuidedTour, start_tour
from app.ui.shell.tx_inspector import TxInspectorDialog
from app.ui.widgets.common import name_widget, while_alive

# the navigation's icon of each panel, by title (a panel may name its own: ``icon_name``)
PANEL_ICONS = {
    "Account": "account",
    "Composer": "composer",
    "Tables": "tables",
    "Chains": "chains",
    "Files": "files",
    "Dashboard": "dashboard",
    "Assets": "assets",
}


class MainWindow(QMainWindow):
    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setAccessibleName("Stratoscope")
        self.setWindowTitle("Stratoscope")
        self.controller = controller
        self._closing = False
        self._closed = False
        self._no_questions = False  # a quit asked by the system (SIGTERM): nobody to answer
        self._switching = False

        # -- panels and navigation (the navigation made first: first in the tab order)
        self.nav = NavigationTree(self)
        name_widget(self.nav, "navigation", "Panels")
        self.panels: list[QWidget] = [
            AccountPanel(controller, self),
            ComposerPanel(controller, self),
            TablesPanel(controller, self),
            ChainsPanel(controller, self),
            FilesPanel(controller, self),
            DashboardPanel(controller, self),
            AssetsPanel(controller, self),
            ExplorerPanel(controller, self),
        ]
        self.stack = PanelStack(self)
        self.stack.setObjectName("panelStack")
        for panel in self.panels:
            title = str(getattr(panel, "title", panel.objectName()))
            icon_name = getattr(panel, "icon_name", PANEL_ICONS.get(title, "panel"))
            self.nav.addItem(title, str(icon_name))
            self.stack.addWidget(panel)
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        self._history: list[int] = []  # panels shown, for Back/Forward
        self._history_at = -1
        self._history_moving = False
        for panel in self.panels:
            signal = getattr(panel, "transaction_requested", None)
            if signal is not None:
                signal.connect(self.open_transaction)
            if isinstance(panel, ExplorerPanel):  # its detail pane's inspector
                panel.detail.inspector.rerun_requested.connect(self.rerun_transaction)
            contract = getattr(panel, "contract_requested", None)
            if contract is not None:
                contract.connect(self.open_contract)
        self.nav.setCurrentRow(0)
        self.nav.setMaximumWidth(200)
        # wide enough for the longest panel name and its icon: no horizontal scroll bar
        self.nav.setMinimumWidth(min(200, self.nav.preferred_width()))

        self.message_bar = MessageBar(self)
        self.message_bar.action_requested.connect(self._on_message_action)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.setObjectName("mainSplitter")
        split.setChildrenCollapsible(False)
        split.addWidget(self.nav)
        # a panel larger than the room left (a small screen) scrolls rather than growing the
        # window past the screen or being clipped
        self.panel_scroll = QScrollArea(self)
        self.panel_scroll.setObjectName("panelScroll")
        self.panel_scroll.setWidgetResizable(True)
        self.panel_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.panel_scroll.setWidget(self.stack)
        self.panel_scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        split.addWidget(self.panel_scroll)
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
        screen_fit.size_dock_on_first_show(self, self.sandbox_log)
        self.debug_dock = next(p for p in self.panels if isinstance(p, ComposerPanel)).debugger.dock
        self.debug_action = self.debug_dock.dock_into(self, self.inspector)  # View > Debugger
        for line in controller.sandbox.log:
            self.sandbox_log_view.appendPlainText(line)
        controller.sandbox.log_line.connect(self.sandbox_log_view.appendPlainText)

        # -- toolbar and actions (all of them in the menu bar too, with their shortcuts)
        bar = QToolBar("Main", self)
        bar.setObjectName("mainToolbar")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
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
        self.search.setMinimumWidth(180)
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
        self.inspector_action.setToolTip("HTTP inspector (Ctrl+I)")
        bar.addAction(self.inspector_action)
        self.log_action = self.sandbox_log.toggleViewAction()
        self.log_action.setText("Sandbox log")
        self.log_action.setObjectName("actionSandboxLog")
        self.log_action.setShortcut(QKeySequence("Ctrl+L"))
        self.log_action.setToolTip("Sandbox log (Ctrl+L)")
        bar.addAction(self.log_action)
        for act in bar.actions():  # the buttons the toolbar made for our actions
            button = bar.widgetForAction(act)
            if act.objectName() and button is not None:
                name_widget(button, act.objectName() + "Button", act.text().rstrip("…"))
        bar.addSeparator()
        bar.addWidget(self.search)
        self.find_action = self._action("Search the node…", "actionGoToTransaction", "Ctrl+G")
        self.find_action.triggered.connect(self.focus_search)
        self.switch_user_action = self._action("Act as user…", "actionSwitchUser", "Ctrl+U")
        self.switch_user_action.triggered.connect(self._focus_switcher)
        self.tour_action = self._action("Guided tour", "actionTour", "F1")
        self.tour_action.triggered.connect(self.start_tour)
        self.quit_action = self._action("Quit", "actionQuit", "Ctrl+Q")
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        # from any window of the app (an inspector dialog too); the same path as closing
        self.quit_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.quit_action.triggered.connect(self.close)
        self.copy_action = self._action("Copy", "actionCopy", QKeySequence.StandardKey.Copy)
        self.copy_action.triggered.connect(self.copy_focused)
        self.copy_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)  # shown only:
        # Ctrl+C stays with the focused widget, the menu entry does the same for the mouse
        self.about_action = self._action("About Stratoscope", "actionAbout", "")
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(self.show_about)
        self.restart_action = self._action("Restart the sandbox node", "actionRestartSandbox", "")
        self.restart_action.triggered.connect(self.restart_sandbox)
        self.back_action = self._action("Back", "actionBack", QKeySequence.StandardKey.Back)
        self.back_action.triggered.connect(lambda: self._go_history(-1))
        self.forward_action = self._action(
            "Forward", "actionForward", QKeySequence.StandardKey.Forward
        )
        self.forward_action.triggered.connect(lambda: self._go_history(1))
        # Ctrl+1 … Ctrl+N: the panels in the order the navigation shows them
        self.panel_actions: list[QAction] = []
        for n, row in enumerate(self.nav.visual_order(), start=1):
            title = self.nav.item(row).text()
            act = self._action(title, f"actionPanel{n}", f"Ctrl+{n}" if n < 10 else "")
            act.setData(row)
            act.setProperty(ICON_PROPERTY, self.nav.item(row).data(0, ICON_ROLE))
            act.triggered.connect(self._on_panel_action)
            self.panel_actions.append(act)
            self.nav.item(row).setToolTip(0, act.toolTip())
        self.panel_sections: dict[str, QAction] = {}
        self.theme_actions: dict[str, QAction] = {}
        # the launcher sets this when no --theme was given: the theme chosen last is used
        self.follow_saved_theme = False
        self.menus = build_menus(self)
        self._panel_menu_actions = add_panel_actions(self, self.menus)
        self.nav.currentRowChanged.connect(self._on_panel_shown)
        self._on_panel_shown(self.nav.currentRow())
        for act in (
            self.find_action,
            self.switch_user_action,
            self.tour_action,
            self.quit_action,
            self.back_action,
            self.forward_action,
            *self.panel_actions,
            self.connect_action,
            self.refresh_action,
        ):
            self.addAction(act)  # shortcuts work with the menus closed (and the bar hidden)
        self._icons_applied = False
        self._retint_queued = False

        # -- status bar
        sb = self.statusBar()
        self.status_node = self._status_label("statusNode", "Node", "Not connected")
        self.status_health = self._status_label("statusHealth", "Node health", "")
        self.status_block = self._status_label("statusBlock", "Latest block", "Block —")
        self.status_user = self._status_label("statusUser", "Current user", "No user")
        self.status_pending = self._status_label("statusPending", "Pending transactions", "")
        self.status_sandbox = self._status_label("statusSandbox", "Sandbox node", "")
        self.restart_button = QPushButton("Restart sandbox", self)
        name_widget(self.restart_button, "sandboxRestart", "Restart the sandbox node")
        self.restart_button.clicked.connect(self.restart_sandbox)
        self.restart_button.hide()
        for w in (
            self.status_node,
            self.status_health,
            self.status_block,
            self.status_user,
            self.status_pending,
        ):
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
        controller.node_error.connect(self._on_node_error)
        controller.sandbox.state_changed.connect(self._on_sandbox_state)
        controller.tasks.busy_changed.connect(self._on_count)
        controller.pending.count_changed.connect(self._on_count)
        controller.settings_loaded.connect(self.restore_state)
        self._restored = False
        self._update_node()
        self.setMinimumSize(720, 460)  # fits a 1024x640 screen with room for the desktop's bars
        self._fit_screen()
        window_state.track(self)  # the splitters the user drags are remembered
        if controller.settings_ready:  # a window built after start-up read the settings
            self.restore_state()
        # Tab follows the layout: toolbar (user, search), navigation, the panel, messages, docks
        QWidget.setTabOrder(self.user_switcher, self.search)
        QWidget.setTabOrder(self.search, self.nav)
        self.nav.setFocus(Qt.FocusReason.OtherFocusReason)

    def _action(self, text: str, name: str, shortcut: str | QKeySequence.StandardKey) -> QAction:
        return make_action(self, text, name, shortcut)

    def _status_label(self, name: str, accessible: str, text: str) -> QLabel:
        label = QLabel(text, self)
        name_widget(label, name, accessible)
        # a long node URL or organization is cut rather than widening the window past the screen
        label.setMinimumWidth(40)
        return label

    # ------------------------------------------------------------ status

    def _on_session_state(self, _state: str) -> None:
        self._update_node()
        self._show_health()

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
            self.nav.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _on_panel_shown(self, row: int) -> None:
        """Keep the Back/Forward history; show only the current panel's menu actions."""
        if not self._history_moving:
            del self._history[self._history_at + 1 :]
            if not self._history or self._history[-1] != row:
                self._history.append(row)
            self._history_at = len(self._history) - 1
        self.back_action.setEnabled(self._history_at > 0)
        self.forward_action.setEnabled(self._history_at < len(self._history) - 1)
        for index, actions in self._panel_menu_actions.items():
            for act in actions:
                act.setVisible(index == row)

    def _go_history(self, step: int) -> None:
        at = self._history_at + step
        if 0 <= at < len(self._history):
            self._history_at = at
            self._history_moving = True
            try:
                self.nav.setCurrentRow(self._history[at])
            finally:
                self._history_moving = False

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
        sandbox = bool(s.profile and s.profile.sandbox)
        self.restart_action.setEnabled(sandbox)
        self.restart_action.setToolTip(
            "Restart the embedded sandbox node"
            if sandbox
            else "Only the embedded sandbox node can be restarted from here"
        )
        self._update_pending()

    def _on_health(self, health: Health | None) -> None:
        if health is not None:  # the node answers: what said it did not is over
            self.message_bar.clear_topic("node")
        self._show_health()

    def _show_health(self) -> None:
        """The node's health in words and colour (green, amber, red), with its version."""
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        text, level, tip, colour = health_status(self.controller.session, dark)
        self.status_health.setText(f"● {text}" if text else "")
        self.status_health.setToolTip(tip)
        self.status_health.setProperty("level", level)
        self.status_health.setStyleSheet(f"color: {colour};" if colour else "")

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
        self.status_user.setToolTip(self.status_user.text())

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
        if state == "running":
            self.message_bar.clear_topic("sandbox")

    def _on_message(self, level: str, title: str, text: str, action: str = "") -> None:
        topic = "sandbox" if action == "restart" else ""
        self.message_bar.show_message(level, title, text, action, topic)

    def _on_node_error(self, title: str, text: str) -> None:
        """A failure to reach the node; over once it answers. "Sandbox node stopped" with its
        Restart says more, and stays."""
        bar = self.message_bar
        if bar.isVisible() and bar.topic == "sandbox":
            bar.history.append(("error", title, text))
            return
        bar.show_message("error", title, text, "", "node")

    def _on_message_action(self, action: str) -> None:
        if action == "sign-in":
            self.open_connection_dialog()
        elif action == "restart":
            self.restart_sandbox()
        self.message_bar.hide()

    # ------------------------------------------------------------ actions

    def open_contract(self, name: str, address: str, chain_id: str, method: str = "") -> None:
        """Show a contract in the composer's Call page (from a table row, a chain ...)."""
        composer = next(p for p in self.panels if isinstance(p, ComposerPanel))
        self.nav.setCurrentRow(self.panels.index(composer))
        composer.open_contract(name, address, chain_id, method)

    def open_source_position(self, contract: str, line: int, column: int) -> bool:
        """Show a failure's place (a call trace's failed frame) in the composer, when its last
        build has that contract (project files included); else say what to do."""
        composer = next(p for p in self.panels if isinstance(p, ComposerPanel))
        pos = SourcePosition(contract, line, column)
        place = failure_place(pos, composer.last_build, composer.specs)
        if place is None:
            self._on_message(
                "info",
                "Source of a call",
                f"{contract} is not in the composer's last build: compile its source there to "
                f"go to line {line}",
            )
            return False
        self.nav.setCurrentRow(self.panels.index(composer))
        if place.path is not None:
            composer.source.open_location(place.path, place.line, place.column)
        else:
            composer.source.new_scratch()
            go_to(composer.source.scratch().editor, place.line, place.column)
        return True

    def open_table(self, name: str, query: CirrusQuery | None = None) -> TablesPanel:
        """Show a Cirrus table in the Tables panel (from the Explorer's contract links)."""
        tables = next(p for p in self.panels if isinstance(p, TablesPanel))
        self.nav.setCurrentRow(self.panels.index(tables))
        tables.open_table(name, query)
        return tables

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

    def rerun_transaction(self, tx_hash: str) -> None:
        """Re-run a transaction in the composer's debugger (the inspector's button)."""
        composer = next(p for p in self.panels if isinstance(p, ComposerPanel))
        self.nav.setCurrentRow(self.panels.index(composer))
        rerun_transaction(composer, tx_hash)

    def open_transaction(self, tx_hash: str) -> TxInspectorDialog:
        dialog = TxInspectorDialog(self.controller, tx_hash, self)
        dialog.inspector.source_requested.connect(self.open_source_position)
        dialog.inspector.rerun_requested.connect(self.rerun_transaction)
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
            dialog = BlockDialog(
                hit.detail["block"], self, self.controller.address_names(), self.controller.names
            )
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

    def focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def copy_focused(self) -> None:
        """Edit > Copy: what the focused widget would copy with Ctrl+C."""
        widget = QApplication.focusWidget()
        copy = getattr(widget, "copy", None)
        if callable(copy):
            copy()

    def show_about(self) -> AboutDialog:
        dialog = AboutDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(lambda _r: self.activateWindow())  # keyboard back to the window
        dialog.open()
        return dialog

    # ------------------------------------------------------------ look and remembered state

    def _fit_screen(self) -> None:
        """A start size that fits the screen's available area with the window's frame
        (1100x760, less on a small one); corrected once the window manager framed it."""
        area = screen_fit.available_of(self)
        if area is None:
            self.resize(screen_fit.PREFERRED)
        else:
            self.resize(screen_fit.start_size(area, screen_fit.ESTIMATED_FRAME))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._icons_applied:  # qtawesome loads after the window is on screen
            self._icons_applied = True
            QTimer.singleShot(0, self, self.apply_icons)
            # the frame is known once the window manager reparented the window
            for delay in (100, 600):
                QTimer.singleShot(delay, self, lambda: screen_fit.keep_on_screen(self))

    def apply_icons(self) -> None:
        """(Re)draw every icon in the palette's colours (at start, and when the theme changes)."""
        for act in self.panel_actions:
            set_icon(act, str(act.property(ICON_PROPERTY)))
        for act, name in (
            (self.connect_action, "connect"),
            (self.refresh_action, "refresh"),
            (self.inspector_action, "inspector"),
            (self.log_action, "log"),
            (self.find_action, "search"),
            (self.switch_user_action, "user"),
            (self.tour_action, "tour"),
            (self.quit_action, "quit"),
            (self.copy_action, "copy"),
            (self.about_action, "about"),
            (self.restart_action, "restart"),
            (self.back_action, "back"),
            (self.forward_action, "forward"),
        ):
            set_icon(act, name)
        self.nav.apply_icons()
        retint(self)  # what panels gave icons with set_icon

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        changed = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)
        if event.type() in changed and self._icons_applied and not self._retint_queued:
            # once the new palette reached every widget (a theme switch sends many events)
            self._retint_queued = True
            QTimer.singleShot(0, self, self._retint)

    def _retint(self) -> None:
        self._retint_queued = False
        self.apply_icons()
        self._show_health()

    def set_theme(self, name: str) -> None:
        """View > Theme: switch now (icons and colours follow) and remember it."""
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, name)
        act = self.theme_actions.get(current_theme())
        if act is not None:
            act.setChecked(True)
        if self.controller.settings_ready:  # else the write would drop settings.json's values
            self.controller.tasks.start(
                "Remembering the theme", self.controller.save_settings(theme=current_theme())
            )

    def restore_state(self) -> None:
        """Geometry, docks, splitters and the last panel as the last session left them."""
        self._restored = True
        saved_theme = self.controller.setting("theme")
        if self.follow_saved_theme and saved_theme in THEMES and saved_theme != current_theme():
            app = QApplication.instance()
            if isinstance(app, QApplication):
                apply_theme(app, str(saved_theme))
            self.theme_actions[current_theme()].setChecked(True)
        window_state.restore(self, self.controller.setting(window_state.SETTINGS_KEY))
        if self.isVisible():  # a geometry saved on a larger screen
            QTimer.singleShot(0, self, lambda: screen_fit.keep_on_screen(self))

    async def save_state(self) -> None:
        """Remember the window (only once settings.json was read: else it would be emptied)."""
        if self._restored and self.controller.settings_ready:
            await self.controller.save_settings(
                **{window_state.SETTINGS_KEY: window_state.capture(self)}
            )

    # ------------------------------------------------------------ closing

    @property
    def is_closed(self) -> bool:
        return self._closed

    def quit_without_questions(self) -> None:
        """The system asks the app to end (SIGTERM at logout or from ``kill``): close as Ctrl+Q
        does (state saved, tasks awaited, the sandbox stopped) but ask nothing."""
        self._no_questions = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel and await every task, close the connection and stop the sandbox, then close."""
        if self._closed:
            event.accept()
            return
        event.ignore()
        if self._closing:
            return
        composer = next(p for p in self.panels if isinstance(p, ComposerPanel))
        if self._no_questions:
            composer.source.keep_workspace()  # unsaved edits come back, marked, on the next start
        elif not composer.maybe_keep_source():
            return  # the composer asks about unsaved source first (and closes again)
        self._closing = True

        def finish(_task: object) -> None:
            if shiboken6.isValid(self):  # deleted meanwhile: nothing left to close
                self._closed = True
                self.close()

        async def shut() -> None:
            try:
                await self.save_state()
            finally:
                await self.controller.shutdown()

        task = asyncio.get_event_loop().create_task(shut())
        task.add_done_callback(finish)
