"""Connection dialog: the embedded sandbox (default) or a STRATO node with its OAuth settings.

"Test" signs in with a throw-away session and says in words what worked or what failed;
"Connect" replaces the current connection only when the new one works. Opened with ``open()``,
never ``exec()``, so the event loop (and every coroutine) keeps running.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from app.services.controller import DEMO_USERS, SANDBOX_PROFILE, AppController, sandbox_profile
from app.services.profiles import Profile, ProfileError
from app.services.session import Credentials
from app.ui.widgets.common import name_widget, while_alive

FLOW_LABELS = (
    ("password", "User name and password"),
    ("authorization_code", "Browser sign-in (authorization code + PKCE)"),
    ("client_credentials", "Client credentials (service account)"),
    ("token", "Pasted access token"),
)


class ConnectionDialog(QDialog):
    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("connectionDialog")
        self.setAccessibleName("Connection")
        self.setWindowTitle("Connect to a STRATO node")
        self.controller = controller
        self._busy = False

        self.sandbox_radio = QRadioButton("Embedded sandbox node (no network needed)", self)
        name_widget(self.sandbox_radio, "connSandbox", "Embedded sandbox node")
        self.remote_radio = QRadioButton("A STRATO node", self)
        name_widget(self.remote_radio, "connRemote", "A STRATO node")
        self.gas = QCheckBox("Charge gas on the sandbox (the faucet then funds accounts)", self)
        name_widget(self.gas, "connSandboxGas", "Charge gas on the sandbox")
        self.gas.setChecked(controller.sandbox_gas)
        self.gas.setToolTip(
            "With gas off (the default) transactions are free and the faucet does nothing; "
            "changing this restarts the sandbox, its data stays"
        )
        self.mode = QButtonGroup(self)
        self.mode.addButton(self.sandbox_radio)
        self.mode.addButton(self.remote_radio)

        self.saved = QComboBox(self)
        name_widget(self.saved, "connSavedProfiles", "Saved profiles")
        self.saved.addItem("(new profile)", None)
        for p in controller.saved_profiles:
            if not p.sandbox:
                self.saved.addItem(p.name, p.name)
        self.saved.currentIndexChanged.connect(self._load_saved)

        self.name = self._line("connProfileName", "Profile name", "e.g. Staging")
        self.url = self._line("connNodeUrl", "Node URL", "https://node.example.com")
        self.discovery = self._line(
            "connDiscoveryUrl",
            "OpenID discovery URL",
            "https://keycloak.example.com/realms/strato/.well-known/openid-configuration",
        )
        self.client_id = self._line("connClientId", "Client ID", "OAuth client ID")
        self.client_secret = self._line(
            "connClientSecret", "Client secret", "if the client has one"
        )
        self.client_secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.flow = QComboBox(self)
        name_widget(self.flow, "connFlow", "Sign-in method")
        for key, label in FLOW_LABELS:
            self.flow.addItem(label, key)
        self.flow.currentIndexChanged.connect(self._update_fields)
        self.user = QComboBox(self)
        self.user.setEditable(True)
        name_widget(self.user, "connUser", "User name")
        self.user.addItems(list(DEMO_USERS))
        self.password = self._line("connPassword", "Password", "")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.token = self._line("connToken", "Access token", "paste a bearer token")
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.remember = QCheckBox("Remember secrets in the secret store", self)
        name_widget(self.remember, "connRemember", "Remember secrets")
        self.passphrase = self._line(
            "connPassphrase", "Secrets file passphrase", "no OS keyring: secrets file passphrase"
        )
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.remember.toggled.connect(self._update_fields)

        self.node_box = QGroupBox("Node", self)
        nf = QFormLayout(self.node_box)
        nf.addRow("Saved profile", self.saved)
        nf.addRow("Profile name", self.name)
        nf.addRow("Node URL", self.url)
        nf.addRow("OpenID discovery URL", self.discovery)
        nf.addRow("Client ID", self.client_id)
        nf.addRow("Client secret", self.client_secret)
        self.signin_box = QGroupBox("Sign in", self)
        self.signin_form = QFormLayout(self.signin_box)
        self.signin_form.addRow("Method", self.flow)
        self.signin_form.addRow("User", self.user)
        self.signin_form.addRow("Password", self.password)
        self.signin_form.addRow("Access token", self.token)
        self.signin_form.addRow(self.remember)
        self.signin_form.addRow("Passphrase", self.passphrase)

        self.result_label = QLabel("", self)
        self.result_label.setWordWrap(True)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        name_widget(self.result_label, "connResult", "Connection test result")
        self.test_button = QPushButton("Test connection", self)
        name_widget(self.test_button, "connTest", "Test connection")
        self.test_button.clicked.connect(self.test)
        self.buttons = QDialogButtonBox(self)
        self.connect_button = self.buttons.addButton(
            "Connect", QDialogButtonBox.ButtonRole.AcceptRole
        )
        name_widget(self.connect_button, "connConnect", "Connect")
        cancel = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        name_widget(cancel, "connCancel", "Cancel")
        self.buttons.addButton(self.test_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.accepted.connect(self.connect_now)
        self.buttons.rejected.connect(self.reject)

        lay = QVBoxLayout(self)
        lay.addWidget(self.sandbox_radio)
        lay.addWidget(self.gas)
        lay.addWidget(self.remote_radio)
        lay.addWidget(self.node_box)
        lay.addWidget(self.signin_box)
        lay.addWidget(self.result_label)
        lay.addWidget(self.buttons)

        self.sandbox_radio.toggled.connect(self._update_fields)
        current = controller.session.profile
        if current is None or current.sandbox:
            self.sandbox_radio.setChecked(True)
            self.user.setCurrentText(controller.session.username or "alice")
        else:
            self.remote_radio.setChecked(True)
            self._fill(current)
            self.user.setCurrentText(controller.session.username)
        self._update_fields()
        self.resize(620, self.sizeHint().height())

    def _line(self, object_name: str, label: str, placeholder: str) -> QLineEdit:
        edit = QLineEdit(self)
        edit.setPlaceholderText(placeholder)
        name_widget(edit, object_name, label)
        return edit

    # ------------------------------------------------------------ form state

    def _fill(self, p: Profile) -> None:
        self.name.setText(p.name)
        self.url.setText(p.node_url)
        self.discovery.setText(p.discovery_url)
        self.client_id.setText(p.client_id)
        idx = self.flow.findData(p.flow)
        self.flow.setCurrentIndex(max(idx, 0))
        if p.username:
            self.user.setCurrentText(p.username)

    def _load_saved(self) -> None:
        name = self.saved.currentData()
        p = next((x for x in self.controller.saved_profiles if x.name == name), None)
        if p is not None:
            self._fill(p)

    def _update_fields(self) -> None:
        sandbox = self.sandbox_radio.isChecked()
        self.node_box.setVisible(not sandbox)
        self.gas.setEnabled(sandbox)
        flow = "password" if sandbox else str(self.flow.currentData())
        form = self.signin_form
        form.setRowVisible(self.flow, not sandbox)
        form.setRowVisible(self.user, flow == "password")
        form.setRowVisible(self.password, flow == "password")
        form.setRowVisible(self.token, flow == "token")
        locked = self.controller.secrets.kind == "file-locked"
        form.setRowVisible(self.passphrase, self.remember.isChecked() and locked)
        self.password.setPlaceholderText(
            "demo users: leave empty (password = user name)" if sandbox else ""
        )
        # the height follows the fields shown, the width stays (the app keeps it on screen)
        layout = self.layout()
        if layout is not None:
            layout.activate()
        self.resize(max(self.width(), self.minimumSizeHint().width()), self.sizeHint().height())

    def profile(self) -> Profile:
        """The profile the form describes (raises ProfileError when it is incomplete)."""
        if self.sandbox_radio.isChecked():
            p = sandbox_profile()
            p.username = self.user.currentText().strip()
            return p
        p = Profile(
            name=self.name.text().strip() or urlsplit(self.url.text().strip()).netloc,
            node_url=self.url.text().strip().rstrip("/"),
            discovery_url=self.discovery.text().strip(),
            client_id=self.client_id.text().strip(),
            flow=str(self.flow.currentData()),
            username=self.user.currentText().strip(),
        )
        if p.name == SANDBOX_PROFILE:
            raise ProfileError(f"the name {SANDBOX_PROFILE!r} is kept for the embedded sandbox")
        if not p.node_url:
            raise ProfileError("enter the node URL")
        # an empty discovery URL means the node's own issuer ({node}/auth), as the sandbox has
        p.check()
        return p

    def credentials(self) -> Credentials:
        user = self.user.currentText().strip()
        password = self.password.text()
        if self.sandbox_radio.isChecked() and not password:
            password = user
        return Credentials(user, password, self.client_secret.text(), self.token.text().strip())

    # ------------------------------------------------------------ actions

    def _set_busy(self, busy: bool, text: str = "") -> None:
        self._busy = busy
        self.test_button.setEnabled(not busy)
        self.connect_button.setEnabled(not busy)
        if text:
            self.result_label.setText(text)

    def _form(self) -> tuple[Profile, Credentials] | None:
        try:
            return self.profile(), self.credentials()
        except ProfileError as exc:
            self.result_label.setText(f"✘ {exc}")
            return None

    def test(self) -> None:
        form = self._form()
        if form is None or self._busy:
            return
        self._set_busy(True, "Testing…")
        self.controller.tasks.start(
            "Testing the connection",
            self.controller.test_connection(*form),
            on_done=while_alive(self, self._tested),
            on_error=while_alive(self, self._failed),
        )

    def connect_now(self) -> None:
        form = self._form()
        if form is None or self._busy:
            return
        profile, creds = form
        self._set_busy(True, "Connecting…")
        self.controller.tasks.start(
            "Connecting",
            self._connect(profile, creds),
            on_done=while_alive(self, self._connected),
            on_error=while_alive(self, self._failed),
        )

    async def _connect(self, profile: Profile, creds: Credentials) -> None:
        remember = self.remember.isChecked()
        if remember and self.controller.secrets.kind in ("", "file-locked"):
            kind = await self.controller.secrets.probe()
            if kind == "file-locked":
                await self.controller.secrets.unlock(self.passphrase.text())
        if profile.sandbox:
            await self.controller.set_sandbox_gas(self.gas.isChecked())
        await self.controller.connect_profile(profile, creds, remember=remember)
        if not profile.sandbox:
            await self.controller.save_profile(profile, creds, remember=False)

    def _tested(self, text: str) -> None:
        self._set_busy(False, f"✔ {text}")

    def _failed(self, text: str) -> None:
        self._set_busy(False, f"✘ {text}")

    def _connected(self, _result: object = None) -> None:
        self._set_busy(False, "✔ Connected")
        self.accept()
