"""Window flows against real nodes: the embedded sandbox on first run, its crash and restart,
user switching (and a wrong password), the connection dialog, failure paths, the inspector."""

from __future__ import annotations

import asyncio
import html
import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
import qasync
import shiboken6
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication
from pytestqt.modeltest import ModelTester

from app.client.errors import NetworkError
from app.services.controller import AppController
from app.services.profiles import Profile
from app.services.session import Credentials
from app.ui.shell.connection_dialog import ConnectionDialog
from app.ui.shell.main_window import MainWindow
from app.ui.shell.password_dialog import PasswordDialog
from app.ui.shell.theme import apply_theme
from tests.gui.conftest import connect, drive, make_controller, node_profile
from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode


def message_text(window: MainWindow) -> str:
    return window.message_bar.text.text() if window.message_bar.isVisible() else ""


# ---------------------------------------------------------------- embedded sandbox


def test_first_run_starts_the_sandbox_and_signs_in_as_alice(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    assert not (tmp_path / "config" / "profiles.json").exists()
    controller.tasks.start("Connecting", controller.start())
    drive(loop, lambda: controller.account.view.loaded and controller.account.view.address, 60)
    assert controller.sandbox.state == "running"
    assert controller.session.profile is not None and controller.session.profile.sandbox
    assert controller.session.username == "alice"
    assert "sandbox" in window.status_node.text()
    assert window.status_sandbox.text() == "sandbox running"
    assert "Acme" in window.status_user.text()
    # the sandbox's log is in its dock
    assert "Sandbox node listening on" in window.sandbox_log_view.toPlainText()
    # the switcher offers the demo users
    drive(loop, lambda: window.user_switcher.count() >= 5)
    users = [window.user_switcher.itemText(i) for i in range(window.user_switcher.count())]
    assert {"alice", "bob", "carol", "dave"} <= set(users)
    assert window.user_switcher.currentText() == "alice"
    # what was used is remembered for the next start, without any secret
    settings = json.loads((tmp_path / "config" / "settings.json").read_text())
    assert settings["last_profile"] == "Sandbox" and settings["last_user"]["Sandbox"] == "alice"

    # switching to bob (demo password) shows bob's organization
    index = window.user_switcher.findText("bob")
    window.user_switcher.setCurrentIndex(index)
    window.user_switcher.activated.emit(index)
    drive(
        loop,
        lambda: (
            controller.account.view.username == "bob"
            and controller.account.view.loaded
            and controller.account.view.identity
        ),
    )
    assert "Globex" in window.status_user.text()
    assert controller.account.view.address != controller.account.view.username

    # the sandbox dies: the status says so, a restart brings it back with its data
    proc = controller.sandbox._proc
    assert proc is not None
    proc.kill()
    drive(loop, lambda: controller.sandbox.state == "crashed")
    assert window.restart_button.isVisible()
    assert "stopped" in window.status_sandbox.text()
    assert "Sandbox node stopped" in message_text(window)
    bob_address = controller.account.view.address
    window.restart_button.click()
    drive(
        loop,
        lambda: controller.sandbox.state == "running" and controller.session.state == "connected",
        60,
    )
    drive(loop, lambda: controller.account.view.loaded and controller.account.view.address)
    assert controller.session.username == "bob"
    assert controller.account.view.address == bob_address  # same data dir, same keys
    assert not window.restart_button.isVisible()

    # closing the window stops the sandbox
    window.close()
    drive(loop, lambda: window.is_closed, 30)
    assert controller.sandbox.state == "stopped"


def test_sandbox_that_cannot_start_is_reported(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    # a file where the data dir should be: the node refuses to start and says why
    blocker = tmp_path / "blocked"
    blocker.write_text("not a directory")
    controller.sandbox.data_dir = blocker / "sandbox"
    controller.tasks.start("Connecting", controller.start())
    drive(loop, lambda: bool(message_text(window)), 60)
    assert "sandbox node did not start" in message_text(window)
    assert controller.session.state == "disconnected"


# ---------------------------------------------------------------- switching users


def test_wrong_password_asks_and_the_right_one_switches(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
) -> None:
    node.add_user("gina", "Hooli", unit="Search", password="gina-pw")
    connect(loop, controller, node, "alice")
    drive(loop, lambda: controller.account.view.loaded)
    window.switch_user("gina")  # no stored password: the sign-in fails
    drive(loop, lambda: window.findChild(PasswordDialog) is not None)
    dialog = window.findChild(PasswordDialog)
    assert dialog is not None and dialog.isVisible()
    assert "no password of gina is stored" in dialog.reason.text()
    assert controller.session.username == "alice"
    assert window.user_switcher.currentText() == "alice"
    dialog.edit.setText("wrong")
    dialog.accept()
    drive(
        loop,
        lambda: any(d is not dialog and d.isVisible() for d in window.findChildren(PasswordDialog)),
    )
    again = next(d for d in window.findChildren(PasswordDialog) if d is not dialog)
    assert "invalid" in again.reason.text().lower()
    # the right password, remembered in the encrypted file (no keyring in the tests)
    loop.run_until_complete(controller.secrets.unlock("file passphrase"))
    again.edit.setText("gina-pw")
    again.keep.setChecked(True)
    again.accept()
    drive(loop, lambda: controller.session.username == "gina")
    drive(
        loop, lambda: controller.account.view.username == "gina" and controller.account.view.loaded
    )
    assert window.user_switcher.currentText() == "gina"
    secrets_file = tmp_path / "config" / "secrets.enc"
    drive(loop, secrets_file.exists)
    assert b"gina-pw" not in secrets_file.read_bytes()
    # the next switch to gina needs no password
    window.switch_user("alice")
    drive(loop, lambda: controller.session.username == "alice")
    window.switch_user("gina")
    drive(loop, lambda: controller.session.username == "gina")


def test_remembering_without_keyring_needs_a_passphrase(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    assert loop.run_until_complete(controller.secrets.probe()) == "file-locked"
    with pytest.raises(Exception, match="set a passphrase"):
        loop.run_until_complete(
            controller.connect_profile(
                node_profile(node), Credentials("alice", "alice"), remember=True
            )
        )
    assert not (tmp_path / "config" / "secrets.enc").exists()


# ---------------------------------------------------------------- connection dialog


def test_connection_dialog_tests_and_says_what_failed(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    dialog = window.open_connection_dialog()
    assert isinstance(dialog, ConnectionDialog) and dialog.isVisible()
    dialog.remote_radio.setChecked(True)
    dialog.url.setText(node.url)
    dialog.client_id.setText("stratoscope-desktop")
    dialog.user.setCurrentText("alice")
    dialog.password.setText("not her password")
    dialog.test_button.click()
    drive(loop, lambda: dialog.result_label.text().startswith("✘"))
    assert "invalid username or password" in dialog.result_label.text()
    dialog.password.setText("alice")
    dialog.test_button.click()
    drive(loop, lambda: dialog.result_label.text().startswith("✔"))
    assert f"Connected to {node.url} as alice" in dialog.result_label.text()
    assert controller.session.state == "disconnected"  # a test changes nothing
    # nothing listens there
    dialog.url.setText("http://127.0.0.1:9")
    dialog.test_button.click()
    drive(loop, lambda: dialog.result_label.text().startswith("✘"))
    assert "cannot reach" in dialog.result_label.text()
    # incomplete form: said before anything is sent
    dialog.url.setText("")
    dialog.test_button.click()
    assert dialog.result_label.text() == "✘ enter the node URL"
    # connect for real: saved as a profile, the dialog closes
    dialog.url.setText(node.url)
    dialog.name.setText("Local node")
    dialog.connect_now()
    drive(
        loop,
        lambda: controller.session.state == "connected" and not shiboken6.isValid(dialog),
    )
    assert controller.session.username == "alice"
    assert [p.name for p in controller.saved_profiles] == ["Local node"]


class BadGateway(BaseHTTPRequestHandler):
    """A proxy whose STRATO backend is down: every request gets a 502 with a JSON body."""

    def do_GET(self) -> None:
        body = json.dumps({"error": "upstream strato-api unavailable"}).encode()
        self.send_response(502)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def bad_gateway() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BadGateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_server_errors_and_client_errors_show_the_servers_message(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    bad_gateway: str,
) -> None:
    result: list[str] = []
    controller.tasks.start(
        "Testing",
        controller.test_connection(Profile("Proxy", bad_gateway), Credentials("alice", "alice")),
        on_error=result.append,
    )
    drive(loop, lambda: result)
    assert result[0].startswith(
        "The node's gateway could not reach its API (HTTP 502): upstream strato-api unavailable"
    )
    # a 4xx with the node's own message, in the message bar and the inspector
    connect(loop, controller, node, "alice")
    assert controller.session.client is not None
    controller.tasks.start("Reading a contract", controller.session.client.state("Nope", "12" * 20))
    drive(loop, lambda: "Reading a contract" in message_text(window))
    text = message_text(window)
    assert "(HTTP 400): Couldn't find contract Nope at address 1212" in text
    model = window.inspector.model
    failed = [
        ex
        for r in range(model.rowCount())
        if (ex := model.exchange(r)) is not None and "/contracts/Nope/" in ex.url
    ]
    assert failed and failed[0].status is not None and 400 <= failed[0].status < 500
    assert "Couldn't find contract Nope" in failed[0].response_body


# ---------------------------------------------------------------- failure paths


def test_node_down_at_start_is_reported_not_fatal(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
) -> None:
    controller.profiles.save([Profile("Gone", "http://127.0.0.1:9", client_id="x")])
    controller.settings.save({"last_profile": "Gone", "last_user": {"Gone": "alice"}})
    controller.tasks.start("Connecting", controller.start())
    drive(loop, lambda: bool(message_text(window)), 30)
    assert "cannot reach" in message_text(window)
    assert controller.session.state == "disconnected"
    assert window.status_node.text() == "○ not connected"
    # the user can still connect elsewhere
    connect(loop, controller, node, "alice")
    assert controller.session.state == "connected"


def test_expired_token_says_sign_in_again(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    good = node.token("alice")
    claims = jwt.decode(good, options={"verify_signature": False})
    header = jwt.get_unverified_header(good)
    key = (node.data_dir / "oidc-signing-key.pem").read_bytes()
    now = int(time.time())
    expired = jwt.encode(
        {**claims, "iat": now - 7200, "nbf": now - 7200, "exp": now - 3600},
        key,
        algorithm="RS256",
        headers={"kid": header.get("kid")},
    )
    profile = node_profile(node, "Pasted", flow="token")
    controller.tasks.start(
        "Connecting", controller.connect_profile(profile, Credentials(token=expired))
    )
    drive(loop, lambda: bool(message_text(window)))
    assert "403" in message_text(window) and "invalid jwt" in message_text(window)
    assert window.message_bar.action.isVisible()
    assert window.message_bar.action.text() == "Sign in…"
    window.message_bar.action.click()
    drive(loop, lambda: window.findChild(ConnectionDialog) is not None)


def test_node_killed_mid_request(
    tmp_path_factory: pytest.TempPathFactory,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    own = make_node(tmp_path_factory, name="killed")
    try:
        connect(loop, controller, own, "alice")
        drive(loop, lambda: controller.account.view.loaded)
        controller.session.health_interval = 0.1
        task = controller.tasks.start("Refreshing the account", controller.account.refresh())
        own.kill9()
        drive(loop, task.done, 30)
        drive(loop, lambda: controller.session.state == "unreachable", 30)
        assert "not answering" in window.status_node.text()
        if not task.cancelled() and task.exception() is not None:
            assert isinstance(task.exception(), NetworkError)
            assert "cannot reach the node" in message_text(window)
        # the node comes back on the same port: the status recovers by itself
        own.restart()
        drive(loop, lambda: controller.session.state == "connected", 30)
    finally:
        loop.run_until_complete(controller.shutdown())  # disconnect before the node goes
        own.stop()


# ---------------------------------------------------------------- inspector


def test_inspector_model_copy_as_curl_and_response(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    connect(loop, controller, node, "alice")
    drive(loop, lambda: controller.account.view.loaded)
    dock = window.inspector
    window.inspector_action.trigger()
    model = dock.model
    ModelTester(None).check(model)
    rows = model.rowCount()
    assert rows >= 4
    key_ex = next(ex for ex in dock.visible_exchanges() if ex.url.endswith("/key"))
    assert dock.select_exchange(key_ex)
    assert dock.request_view.toPlainText().startswith("GET ")
    assert "Bearer ***" in dock.request_view.toPlainText()
    assert '"address"' in dock.response_view.toPlainText()
    dock.copy_curl.click()
    curl = QGuiApplication.clipboard().text()
    assert curl.startswith("curl -s -X GET") and "Bearer ***" in curl
    assert controller.session.oidc is not None and controller.session.oidc.token is not None
    real = controller.session.oidc.token.access_token
    assert real not in curl
    dock.reveal.setChecked(True)
    dock.copy_curl.click()
    assert real in QGuiApplication.clipboard().text()
    dock.copy_response.click()
    copied = json.loads(QGuiApplication.clipboard().text())
    assert copied["address"] == node.address("alice")
    # the health polls are hidden until asked for
    controller.session.health_interval = 0.05
    drive(loop, lambda: any(ex.background and "/health" in ex.url for ex in model.feed.exchanges))
    assert not any(ex.background for ex in dock.visible_exchanges())
    dock.hide_background.setChecked(False)
    assert any(ex.url.endswith("/health") and ex.background for ex in dock.visible_exchanges())
    # new requests are appended live; clearing empties the model
    before = model.rowCount()
    window.refresh()
    drive(loop, lambda: model.rowCount() > before)
    dock.clear_button.click()
    assert model.rowCount() == 0 and dock.request_view.toPlainText() == ""


def test_dark_theme_palette(qapp: QApplication) -> None:
    before = qapp.palette()
    apply_theme(qapp, "dark")
    assert qapp.palette().window().color().lightness() < 80
    apply_theme(qapp, "light")
    assert qapp.palette().window().color().lightness() > 180
    apply_theme(qapp, "system")  # as the other tests expect it
    qapp.setPalette(before)


def test_controller_without_window_shuts_down_cleanly(
    tmp_path: Path, node: RunningNode, loop: qasync.QEventLoop
) -> None:
    c = make_controller(tmp_path / "other")
    connect(loop, c, node, "carol")
    assert c.tasks.running >= 2  # the health watcher and the pending tracker
    loop.run_until_complete(c.shutdown())
    assert c.tasks.running == 0 and c.session.client is None


def test_browser_sign_in_and_client_credentials_from_the_dialog(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    """The authorization-code flow with PKCE: the "browser" is a real HTTP client that fills in
    the node's login page and follows the redirect to the app's loopback listener."""
    browser = httpx.AsyncClient(follow_redirects=False, timeout=10)
    visits: list[asyncio.Task[None]] = []

    async def sign_in(url: str) -> None:
        page = await browser.get(url)
        hidden = dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', page.text))
        form = {k: html.unescape(v) for k, v in hidden.items()}
        post = await browser.post(url, data={**form, "username": "carol", "password": "carol"})
        await browser.get(post.headers["location"])

    controller.open_browser = lambda url: visits.append(loop.create_task(sign_in(url)))
    try:
        dialog = window.open_connection_dialog()
        dialog.remote_radio.setChecked(True)
        dialog.url.setText(node.url)
        dialog.client_id.setText("stratoscope-desktop")
        dialog.flow.setCurrentIndex(dialog.flow.findData("authorization_code"))
        assert not dialog.password.isVisible()
        dialog.test_button.click()
        drive(loop, lambda: dialog.result_label.text()[:1] in ("✔", "✘"), 30)
        assert dialog.result_label.text().startswith(f"✔ Connected to {node.url} as carol")
        assert len(visits) == 1
        # client credentials: the node's own confidential client acts as its operator, admin
        client_id, secret = node.oauth_client()
        dialog.flow.setCurrentIndex(dialog.flow.findData("client_credentials"))
        dialog.client_id.setText(client_id)
        dialog.client_secret.setText(secret)
        dialog.connect_now()
        drive(loop, lambda: controller.session.state == "connected", 30)
        assert controller.session.username == "admin"
        drive(loop, lambda: controller.account.view.loaded and controller.account.view.identity)
        assert "BlockApps" in window.status_user.text()
    finally:
        loop.run_until_complete(asyncio.gather(*visits, return_exceptions=True))
        loop.run_until_complete(browser.aclose())
