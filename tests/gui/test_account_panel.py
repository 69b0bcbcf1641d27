"""The main window and the account panel against a real sandbox node with gas on."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QWidget,
)
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.services.account import format_balance
from app.services.controller import AppController
from app.services.session import Credentials
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive, node_profile
from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode

HEX40 = re.compile(r"^[0-9a-f]{40}$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--gas")
    try:
        yield n
    finally:
        n.stop()


def loaded(controller: AppController, user: str) -> bool:
    v = controller.account.view
    return v.username == user and v.loaded


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
    assert window.panels[0].balance.text() == f"{format_balance(units)} tokens"  # type: ignore[attr-defined]
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
    assert model.index(row, 4).data() == "2,000"
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


QT_PARTS = ("QComboBoxPrivateContainer", "QToolBarExtension", "QDockWidgetTitleButton")


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
