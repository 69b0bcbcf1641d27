"""The main window and the account panel against a real sandbox node with gas on."""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QScrollArea,
    QWidget,
)
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.client.http import StratoClient
from app.client.models import TxRequest
from app.client.units import format_amount
from app.services.controller import AppController
from app.services.profiles import Profile
from app.services.session import Credentials
from app.ui.panels.account.panel import AccountPanel
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive, node_flags, node_profile
from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode

HEX40 = re.compile(r"^[0-9a-f]{40}$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory, cirrus_names: str) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--gas", *node_flags(cirrus_names), name=cirrus_names)
    try:
        yield n
    finally:
        n.stop()


def loaded(controller: AppController, user: str) -> bool:
    v = controller.account.view
    return v.username == user and v.loaded


@pytest.mark.cirrus_families  # the identity, from the certificate registry's table
def test_account_panel_shows_key_balance_identity_and_qr(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    drive(loop, lambda: loaded(controller, "alice"))
    panel = window.findChild(QWidget, "accountPanel")
    assert panel is not None
    address = window.findChild(QLineEdit, "accountAddress")
    assert address is not None and address.text() == node.address("alice")
    pubkey = window.findChild(QLineEdit, "accountPublicKey")
    assert pubkey is not None and pubkey.text().startswith("04") and len(pubkey.text()) == 130
    assert window.panels[0].qr.text == node.address("alice")  # type: ignore[attr-defined]
    assert window.panels[0].qr.module_count >= 21  # type: ignore[attr-defined]
    balance = node.client("alice").get(
        "/svc-api/eth/v1.2/account", params={"address": node.address("alice")}
    )
    units = int(balance.json()[0]["balance"])
    assert window.panels[0].balance.text() == format_amount(units)  # type: ignore[attr-defined]
    status = window.panels[0].identity_status.text()  # type: ignore[attr-defined]
    assert "registered certificate" in status and "O=Acme" in status
    # the registry keeps a real X.509 chain; the line names its subject, the tooltip holds it
    tip = window.panels[0].identity_status.toolTip()  # type: ignore[attr-defined]
    assert tip.count("-----BEGIN CERTIFICATE-----") == 2
    assert window.panels[0].cert_labels["organization"].text() == "Acme"  # type: ignore[attr-defined]
    assert window.panels[0].cert_labels["organizationalUnit"].text() == "Engineering"  # type: ignore[attr-defined]
    # status bar: node, latest block, user and organization, pending count
    assert node.url in window.status_node.text()
    drive(
        loop,
        lambda: (
            window.status_block.text().startswith("Block ")
            and "—" not in window.status_block.text()
        ),
    )
    assert "alice" in window.status_user.text() and "Acme" in window.status_user.text()
    assert window.status_pending.text() == "no pending tx"
    assert "alice" in window.windowTitle()


def test_copy_buttons_put_the_whole_value_on_the_clipboard(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    drive(loop, lambda: loaded(controller, "alice"))
    copy = window.findChild(QAbstractButton, "accountAddressCopy")
    assert copy is not None and copy.isEnabled()
    qtbot.mouseClick(copy, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == node.address("alice")
    qtbot.mouseClick(
        window.findChild(QAbstractButton, "accountPublicKeyCopy"), Qt.MouseButton.LeftButton
    )
    assert len(QGuiApplication.clipboard().text()) == 130


def test_faucet_shows_progress_hash_and_new_balance(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    node.add_user("fran", "Faucets", password="fran-pw")
    loop.run_until_complete(
        controller.connect_profile(node_profile(node), Credentials("fran", "fran-pw"))
    )
    drive(loop, lambda: loaded(controller, "fran"))
    panel = window.panels[0]
    # fran has no key yet: the panel says so and offers to create it
    assert panel.no_key.isVisible()  # type: ignore[attr-defined]
    assert "no key" in panel.no_key_text.text()  # type: ignore[attr-defined]
    assert not panel.faucet_button.isEnabled()  # type: ignore[attr-defined]
    qtbot.mouseClick(panel.create_key_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    drive(loop, lambda: controller.account.view.address is not None)
    assert HEX40.match(controller.account.view.address or "")
    assert not panel.no_key.isVisible()  # type: ignore[attr-defined]
    drive(loop, lambda: controller.account.view.identity is not None)
    assert controller.account.view.identity["organization"] == "Faucets"  # type: ignore[index]
    before = controller.account.view.balance or 0
    assert before == 0

    progress: list[bool] = []
    controller.account.busy_changed.connect(
        lambda what: progress.append(panel.faucet_progress.isVisible())  # type: ignore[attr-defined]
    )
    qtbot.mouseClick(panel.faucet_button, Qt.MouseButton.LeftButton)  # type: ignore[attr-defined]
    drive(loop, lambda: bool(panel.faucet_hash.value()))  # type: ignore[attr-defined]
    assert HEX64.match(panel.faucet_hash.value())  # type: ignore[attr-defined]
    assert True in progress and not panel.faucet_progress.isVisible()  # type: ignore[attr-defined]
    assert "sent tokens" in panel.faucet_status.text()  # type: ignore[attr-defined]
    drive(loop, lambda: (controller.account.view.balance or 0) == 2000 * 10**18)
    assert panel.balance.text() == "2,000 tokens"  # type: ignore[attr-defined]
    # the faucet transfer is in the recent transactions, and the model passes the model tester
    drive(loop, lambda: any(t.kind == "Transfer" for t in controller.account.view.transactions))
    model = panel.tx_model  # type: ignore[attr-defined]
    ModelTester(None).check(model)
    row = next(r for r in range(model.rowCount()) if model.transaction(r).kind == "Transfer")
    assert model.index(row, 2).data() == "in"
    assert model.index(row, 4).data() == "2,000 tokens"
    assert model.transaction(row).hash == panel.faucet_hash.value()  # type: ignore[attr-defined]


def test_user_without_identity_gets_an_explanation(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "dave")
    drive(loop, lambda: loaded(controller, "dave") and controller.account.view.address)
    panel = window.panels[0]
    text = panel.identity_status.text()  # type: ignore[attr-defined]
    assert "no registered identity" in text and "cannot deploy" in text
    assert not panel.cert_fields.isVisible()  # type: ignore[attr-defined]
    assert "no identity" in window.status_user.text()


QT_PARTS = (
    "QComboBoxPrivateContainer",
    "QToolBarExtension",
    "QDockWidgetTitleButton",
    "QLineEditIconButton",  # a line edit's clear button
)


def is_qt_internal(w: QWidget) -> bool:
    """Parts Qt builds inside our widgets (combo popups, table headers, dock title buttons)."""
    if isinstance(w, QHeaderView) or w.objectName().startswith("qt_"):
        return True
    if isinstance(w, QLineEdit) and isinstance(w.parent(), QComboBox):
        return True  # an editable combo's line edit: the combo carries the names
    chain = [w, *iter_parents(w)]
    return any(p.metaObject().className() in QT_PARTS for p in chain)


def iter_parents(w: QWidget) -> list[QWidget]:
    out = []
    p = w.parentWidget()
    while p is not None:
        out.append(p)
        p = p.parentWidget()
    return out


def test_every_interactive_widget_has_names(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    drive(loop, lambda: loaded(controller, "alice"))
    window.inspector.show()
    dialog = window.open_connection_dialog()
    missing = []
    for top in (window, dialog):
        for kind in (QAbstractButton, QLineEdit, QComboBox, QAbstractItemView):
            for w in top.findChildren(kind):
                if is_qt_internal(w):
                    continue
                if not w.objectName() or not w.accessibleName():
                    missing.append(f"{type(w).__name__} {w.objectName()!r} {w.accessibleName()!r}")
    dialog.close()
    assert missing == [], "\n".join(missing)


def test_keyboard_shortcuts(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    shortcuts = {
        a.objectName(): a.shortcut().toString()
        for a in window.findChildren(type(window.connect_action))
    }
    assert shortcuts["actionInspector"] == "Ctrl+I"
    assert shortcuts["actionSandboxLog"] == "Ctrl+L"
    assert shortcuts["actionRefresh"] == "F5"
    assert shortcuts["actionPanel1"] == "Ctrl+1"
    assert shortcuts["actionSwitchUser"] == "Ctrl+U"
    assert not window.inspector.isVisible()
    window.inspector_action.trigger()
    assert window.inspector.isVisible()


# ---------------------------------------------------------------- words (issue 16, item 10)


def message_text(window: MainWindow) -> str:
    return window.message_bar.text.text() if window.message_bar.isVisible() else ""


def test_balance_is_rounded_with_the_exact_figure_in_tooltip_and_clipboard(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    node.add_user("gail", "Gails", password="gail-pw")
    gail = node.client("gail")
    assert gail.post("/strato/v2.3/key").status_code == 200
    me = node.address("gail")
    assert gail.post(f"/bloc/v2.2/users/gail/{me}/fill", params={"resolve": "true"}).is_success
    # a transfer costs gas: the balance is no longer a round number of tokens
    r = gail.post(
        "/strato/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [{"type": "TRANSFER", "payload": {"toAddress": "ab" * 20, "value": "5"}}]},
    )
    assert r.status_code == 200, r.text
    units = int(
        gail.get("/strato-api/eth/v1.2/account", params={"address": me}).json()[0]["balance"]
    )
    assert units % 10**18 and 1999 * 10**18 < units < 2000 * 10**18
    loop.run_until_complete(
        controller.connect_profile(node_profile(node), Credentials("gail", "gail-pw"))
    )
    drive(loop, lambda: loaded(controller, "gail") and controller.account.view.balance == units)
    panel = window.panels[0]
    assert panel.balance.text() == "≈2,000 tokens"  # type: ignore[attr-defined]
    whole, frac = divmod(units, 10**18)
    exact = f"{whole}." + f"{frac:018d}".rstrip("0")
    tip = panel.balance.toolTip()  # type: ignore[attr-defined]
    assert f"{whole:,}." + f"{frac:018d}".rstrip("0") + " tokens" in tip
    assert f"{units:,} wei" in tip
    copy = window.findChild(QAbstractButton, "accountBalanceCopy")
    assert copy is not None and copy.isEnabled()
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(copy, Qt.MouseButton.LeftButton, pos=copy.rect().topLeft() + QPoint(4, 4))
    assert QGuiApplication.clipboard().text() == exact
    panel.copy_wei_action.trigger()  # type: ignore[attr-defined]
    assert QGuiApplication.clipboard().text() == str(units)
    # the history's value column uses the same words, the exact figure in its tooltip
    model = panel.tx_model  # type: ignore[attr-defined]
    drive(loop, lambda: any(t.value == 5 for t in controller.account.view.transactions))
    row = next(r for r in range(model.rowCount()) if model.transaction(r).value == 5)
    assert model.index(row, 4).data() == "5 wei"
    faucet = next(r for r in range(model.rowCount()) if model.transaction(r).value == 2000 * 10**18)
    assert model.index(faucet, 4).data() == "2,000 tokens"
    assert "2,000,000,000,000,000,000,000 wei" in model.index(faucet, 4).data(
        Qt.ItemDataRole.ToolTipRole
    )


def make_chain(client: Any, me: str, label: str) -> str:
    body = {
        "label": label,
        "src": "contract Gov { }",
        "contract": "Gov",
        "args": {},
        "members": [{"orgName": "Acme", "access": True}],
        "balances": [{"address": me, "balance": 10**18}],
        "metadata": {"VM": "SolidVM"},
    }
    r = client.post("/bloc/v2.2/chain", json=body)
    assert r.status_code == 200, r.text
    return str(r.json())


@pytest.mark.cirrus_families
def test_history_names_creations_and_filters_by_chain(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    alice = node.client("alice")
    me = node.address("alice")
    assert alice.post(f"/bloc/v2.2/users/alice/{me}/fill", params={"resolve": "true"}).is_success
    car = alice.post(
        "/apps/CarDemo/car",
        json={"carArgs": {"vin": "1HGCM82633A004352", "color": "red", "model": "T", "weight": 9}},
    )
    assert car.status_code == 200, car.text
    chain = make_chain(alice, me, "Acme ledger")
    on_chain = alice.post(
        "/strato/v2.3/transaction",
        params={"resolve": "true", "chainid": chain},
        json={"txs": [{"type": "TRANSFER", "payload": {"toAddress": "cd" * 20, "value": "7"}}]},
    )
    assert on_chain.status_code == 200, on_chain.text
    on_chain_hash = on_chain.json()[0]["hash"]
    connect(loop, controller, node, "alice")
    drive(
        loop,
        lambda: (
            loaded(controller, "alice")
            and any(t.hash == on_chain_hash for t in controller.account.view.transactions)
        ),
    )
    panel = window.panels[0]
    model = panel.tx_model  # type: ignore[attr-defined]
    combo = panel.chain_filter  # type: ignore[attr-defined]
    ModelTester(None).check(model)
    # by default the history lists the main chain's transactions, as the balance above is
    assert combo.currentText() == "Main chain"
    hashes = [model.transaction(r).hash for r in range(model.rowCount())]
    assert on_chain_hash not in hashes
    assert {model.index(r, 5).data() for r in range(model.rowCount())} == {"Main chain"}
    kinds = [model.index(r, 1).data() for r in range(model.rowCount())]
    assert not any("GENESIS" in k for k in kinds), kinds
    assert "Chain created: Acme ledger" in kinds
    assert "Application created: CarDemo" in kinds  # the demo application's realm
    assert "Asset created: Car (CarDemo)" in kinds
    assert "Contract created: CarDemo" in kinds
    assert f"of {model.total} on all chains" in panel.tx_title.text()  # type: ignore[attr-defined]
    # the filter lists the chains the history mentions; choosing one by keyboard keeps its rows
    titles = [combo.itemText(i) for i in range(combo.count())]
    assert titles[:2] == ["All chains", "Main chain"] and "Acme ledger" in titles
    combo.setFocus()
    for _ in range(titles.index("Acme ledger") - combo.currentIndex()):
        qtbot.keyClick(combo, Qt.Key.Key_Down)
    assert combo.currentText() == "Acme ledger"
    ModelTester(None).check(model)
    assert [model.transaction(r).hash for r in range(model.rowCount())] == [on_chain_hash]
    assert model.index(0, 5).data() == "Acme ledger"
    assert model.index(0, 5).data(Qt.ItemDataRole.ToolTipRole) == chain
    assert model.index(0, 1).data() == "Transfer"
    # all chains: both kinds of rows, each saying its chain
    qtbot.keyClick(combo, Qt.Key.Key_Home)
    assert combo.currentText() == "All chains"
    assert model.rowCount() == model.total
    chains = {model.index(r, 5).data() for r in range(model.rowCount())}
    assert {"Main chain", "Acme ledger"} <= chains
    # a refresh keeps the choice
    loop.run_until_complete(controller.account.refresh())
    assert combo.currentText() == "All chains" and model.rowCount() == model.total


def test_node_errors_lead_with_words_in_the_message_bar(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    client = controller.session.client
    assert isinstance(client, StratoClient)
    bad = TxRequest("TRANSFER", {"toAddress": "zz", "value": "1"})
    controller.tasks.start("Sending", client.submit([bad]))
    drive(loop, lambda: "Sending" in message_text(window))
    text = message_text(window)
    assert "The node refused the request (HTTP 400): txs[0].payload.toAddress" in text
    assert "400:" not in text
    # a user outside the application: the node's 403 in words
    connect(loop, controller, node, "bob")
    client = controller.session.client
    assert isinstance(client, StratoClient)
    controller.tasks.start(
        "Creating a car",
        client.create_asset(
            "/apps/CarDemo", "car", {"vin": "X", "color": "c", "model": "m", "weight": 1}
        ),
    )
    drive(loop, lambda: "Creating a car" in message_text(window))
    text = message_text(window)
    assert "Not allowed (HTTP 403): user bob is not a member of application CarDemo" in text
    assert "403:" not in text


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_wrong_node_url_is_named_as_the_node_not_the_identity_provider(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    dialog = window.open_connection_dialog()
    dialog.remote_radio.setChecked(True)
    url = f"http://127.0.0.1:{closed_port()}"
    dialog.url.setText(url)
    dialog.client_id.setText("stratoscope-desktop")
    dialog.user.setCurrentText("alice")
    dialog.password.setText("alice")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: dialog.result_label.text().startswith("✘"))
    text = dialog.result_label.text()
    assert f"cannot reach the node at {url}: connection refused" in text
    assert "identity provider" not in text
    # a host name that does not resolve
    dialog.url.setText("http://no-such-node.invalid:8080")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: "no-such-node" in dialog.result_label.text())
    text = dialog.result_label.text()
    assert "cannot reach the node at http://no-such-node.invalid:8080" in text
    assert "cannot be resolved" in text and "identity provider" not in text
    # a server that answers, but is not a STRATO node (the identity provider's discovery URL)
    dialog.url.setText(node.url + "/auth")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: "/auth answers" in dialog.result_label.text())
    assert "not as a STRATO node" in dialog.result_label.text()
    # the node is fine, its issuer is not: then it is the identity provider
    dialog.url.setText(node.url)
    dialog.discovery.setText(node.url + "/no-issuer/.well-known/openid-configuration")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: "no-issuer" in dialog.result_label.text())
    text = dialog.result_label.text()
    assert "identity provider" in text and "(HTTP 404)" in text
    assert "cannot reach the node" not in text
    dialog.close()
    # the same words in the message bar when connecting fails
    result: list[str] = []
    controller.tasks.start(
        "Connecting",
        controller.connect_profile(Profile("Closed", url), Credentials("alice", "alice")),
        on_error=result.append,
    )
    drive(loop, lambda: result)
    assert result[0].startswith(f"cannot reach the node at {url}: connection refused")


def test_account_panel_scrolls_instead_of_squashing_on_a_small_screen(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    """At 1024x640 with the HTTP inspector docked the panel gets about 830x340: the identity
    rows keep their height (they overlapped) and the rest is reached by scrolling."""
    connect(loop, controller, node, "alice")
    drive(loop, lambda: loaded(controller, "alice"))
    panel = AccountPanel(controller)  # a second one, on its own, at the size a small window leaves
    panel.show()
    try:
        panel.resize(830, 340)
        loop.run_until_complete(asyncio.sleep(0.2))
        assert panel.height() == 340
        assert panel.cert_fields.isVisible()
        for label in panel.cert_labels.values():
            assert label.height() >= label.minimumSizeHint().height(), label.objectName()
        assert panel.tx_table.height() >= 160
        scroll = panel.findChild(QScrollArea, "accountScroll")
        assert scroll is not None and scroll.verticalScrollBar().maximum() > 0
    finally:
        panel.close()
        panel.deleteLater()
