"""Send tokens from the account panel against a real sandbox node without gas (issue 19): the
exact TRANSFER request on the sheet, balances and history after, the pending transfer followed
to its result, amounts refused before sending, chains offered only to members, dave told why,
recipients checked and saved as contacts. Gas on: test_account_send_gas.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
import qasync
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QLabel
from pytestqt.qtbot import QtBot

from app.client.models import TxResult
from app.client.units import exact_tokens, format_amount
from app.services.chains import ChainInfo
from app.services.controller import AppController
from app.services.transfers import is_member
from app.ui.panels.account.panel import AccountPanel
from app.ui.panels.account.send_dialog import SendDialog
from app.ui.shell.main_window import MainWindow
from app.ui.shell.tx_inspector import TxInspectorDialog
from app.ui.widgets.confirm_dialog import ConfirmDialog
from tests.gui.conftest import connect, drive
from tests.gui.keys import tab_through
from tests.integration.node_fixture import RunningNode, transfer_tx

LEFT = Qt.MouseButton.LeftButton
TOKEN = 10**18
ALT = Qt.KeyboardModifier.AltModifier


def state(node: RunningNode, user: str, chain: str | None = None) -> tuple[int, int]:
    """(balance, nonce) of ``user`` as the node has them."""
    params = {"address": node.address(user), **({"chainid": chain} if chain else {})}
    r = node.client(user).get("/svc-api/eth/v1.2/account", params=params)
    assert r.status_code == 200, r.text
    data = r.json()
    return (int(data[0]["balance"]), int(data[0]["nonce"])) if data else (0, 0)


def account_panel(window: MainWindow) -> AccountPanel:
    panel = window.panels[0]
    assert isinstance(panel, AccountPanel)
    return panel


def open_send(
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    node: RunningNode,
    qtbot: QtBot,
    user: str = "alice",
) -> SendDialog:
    """Sign in as ``user`` and click Send… in the account panel."""
    connect(loop, controller, node, user)
    view = controller.account.view
    drive(loop, lambda: controller.account.view.username == user and view is not None)
    drive(loop, lambda: controller.account.view.loaded and controller.account.view.address)
    panel = account_panel(window)
    drive(loop, panel.send_button.isEnabled)
    qtbot.mouseClick(panel.send_button, LEFT)
    dialog = panel.send_dialog
    assert isinstance(dialog, SendDialog) and dialog.isVisible()
    drive(loop, lambda: bool(dialog.users) and isinstance(dialog.balances.get(None), int))
    return dialog


def sheet_of(loop: qasync.QEventLoop, dialog: SendDialog) -> ConfirmDialog:
    drive(loop, lambda: dialog.sheet is not None and dialog.sheet.isVisible())
    assert dialog.sheet is not None
    return dialog.sheet


def request_of(sheet: ConfirmDialog) -> tuple[str, dict[str, Any]]:
    head, _, body = sheet.request.toPlainText().partition("\n\n")
    return head, json.loads(body)


def fill(qtbot: QtBot, dialog: SendDialog, recipient: str, amount: str) -> None:
    """Type the recipient, then go on to the amount (leaving the recipient judges it)."""
    if not dialog.isActiveWindow():
        dialog.activateWindow()
        qtbot.waitUntil(dialog.isActiveWindow)
    dialog.recipient_edit.setFocus()
    dialog.recipient_edit.clear()
    qtbot.keyClicks(dialog.recipient_edit, recipient)
    dialog.amount.setFocus()
    dialog.amount.clear()
    qtbot.keyClicks(dialog.amount, amount)


def test_send_shows_the_request_moves_the_tokens_and_refreshes_balance_and_history(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    completed: list[TxResult] = []
    controller.pending.completed.connect(completed.append)
    alice_before, nonce_before = state(node, "alice")
    bob_before, _ = state(node, "bob")
    dialog = open_send(loop, controller, window, node, qtbot)
    assert dialog.balance.text() == f"{format_amount(alice_before)} on Main chain"
    assert dialog.gas.text().startswith("Free: this node charges no gas")
    fill(qtbot, dialog, "bob", "2.5")
    assert dialog.recipient_note.text() == f"→ user bob ({node.address('bob')})"
    assert dialog.problem.text() == ""

    # Enter in the form opens the sheet; Enter on the sheet cancels, nothing is sent
    qtbot.keyClick(dialog.amount, Qt.Key.Key_Return)
    sheet = sheet_of(loop, dialog)
    head, body = request_of(sheet)
    assert head.startswith(f"POST {node.url}/") and head.endswith("/transaction?resolve=false")
    assert body == {
        "txs": [
            {
                "type": "TRANSFER",
                "payload": {"toAddress": node.address("bob"), "value": str(25 * TOKEN // 10)},
            }
        ]
    }
    gas = sheet.findChild(type(dialog.gas), "confirmGas")
    assert gas is not None and "Free" in gas.text() and "no txParams" in gas.text()
    assert sheet.windowTitle() == "Send these tokens?"
    qtbot.keyClick(sheet.cancel_button, Qt.Key.Key_Return)
    drive(loop, lambda: dialog.sheet is None)
    assert state(node, "alice") == (alice_before, nonce_before)

    # Alt+S sends; the pending transfer is followed to its result
    qtbot.keyClick(dialog.amount, Qt.Key.Key_Return)
    sheet = sheet_of(loop, dialog)
    qtbot.keyClick(sheet.cancel_button, Qt.Key.Key_S, ALT)
    drive(loop, lambda: dialog.last_result is not None, timeout=30)
    result = dialog.last_result
    assert result is not None and result.ok, dialog.status.text()
    assert [r.hash for r in completed] == [result.hash]  # through the pending tracker
    assert controller.pending.hashes == []
    assert dialog.status.text() == "✔ Sent 2.5 tokens to bob on Main chain."
    assert dialog.hash.value() == result.hash
    alice_after, nonce_after = state(node, "alice")
    assert alice_before - alice_after == 25 * TOKEN // 10  # no gas on this node
    assert nonce_after == nonce_before + 1
    assert state(node, "bob")[0] - bob_before == 25 * TOKEN // 10

    # the panel's balance and history follow, and the dialog's balance too
    panel = account_panel(window)
    drive(loop, lambda: controller.account.view.balance == alice_after)
    assert panel.balance.text() == format_amount(alice_after)
    drive(loop, lambda: any(t.hash == result.hash for t in controller.account.view.transactions))
    model = panel.tx_model
    row = next(r for r in range(model.rowCount()) if model.transaction(r).hash == result.hash)  # type: ignore[union-attr]
    assert model.index(row, 2).data() == "out"
    assert model.index(row, 4).data() == "2.5 tokens"
    drive(loop, lambda: dialog.balance.text() == f"{format_amount(alice_after)} on Main chain")
    # Inspect opens the transfer in the transaction inspector
    qtbot.mouseClick(dialog.inspect, LEFT)
    inspector = window.findChild(TxInspectorDialog)
    assert isinstance(inspector, TxInspectorDialog) and inspector.isVisible()
    assert inspector.hash_edit.text() == result.hash
    inspector.close()


def test_too_much_is_refused_before_sending_and_the_nodes_refusal_is_said(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    before = state(node, "carol")
    dialog = open_send(loop, controller, window, node, qtbot, "carol")
    fill(qtbot, dialog, "bob", "5000")
    text = dialog.problem.text()
    assert text.startswith("Not enough tokens: carol holds") and "on Main chain" in text
    qtbot.keyClick(dialog.amount, Qt.Key.Key_Return)
    assert dialog.sheet is None and dialog.findChild(ConfirmDialog) is None
    assert dialog.problem.text() == text
    assert state(node, "carol") == before  # nothing sent

    # Max fills in the whole balance (no gas here), exactly
    qtbot.mouseClick(dialog.max_button, LEFT)
    assert dialog.amount.text() == exact_tokens(before[0], grouping=False)
    assert dialog._checked_amount() == before[0]
    assert dialog.problem.text() == ""
    qtbot.keyClick(dialog.amount, Qt.Key.Key_Return)
    sheet = sheet_of(loop, dialog)
    assert request_of(sheet)[1]["txs"][0]["payload"]["value"] == str(before[0])
    # the balance drops meanwhile (another wallet): the node refuses, the dialog says why
    r = node.client("carol").post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [transfer_tx(node.address("bob"), 1)]},
    )
    assert r.status_code == 200 and r.json()[0]["status"] == "Success", r.text
    qtbot.keyClick(sheet.cancel_button, Qt.Key.Key_S, ALT)
    drive(loop, lambda: dialog.last_result is not None, timeout=30)
    assert dialog.last_result is not None and dialog.last_result.status == "Failure"
    status = dialog.status.text()
    assert status.startswith("✘ The node refused the transfer: ") and "insufficient" in status
    assert state(node, "carol")[0] == before[0] - 1


@pytest.fixture(scope="module")
def chains(node: RunningNode) -> dict[str, str]:
    """An Acme chain alice belongs to (700 wei for her) and bob's Globex-only chain."""

    def create(user: str, label: str, org: str) -> str:
        body = {
            "label": label,
            "src": "contract Gov { uint public n; constructor() public { n = 1; } }",
            "contract": "Gov",
            "args": {},
            "members": [{"orgName": org, "access": True}],
            "balances": [{"address": node.address(user), "balance": 700}],
            "metadata": {"VM": "SolidVM"},
        }
        r = node.client(user).post("/bloc/v2.2/chain", json=body)
        assert r.status_code == 200, r.text
        return str(r.json())

    return {
        "acme": create("alice", "Acme payments", "Acme"),
        "globex": create("bob", "Globex", "Globex"),
    }


def test_only_chains_the_user_belongs_to_are_offered_and_a_private_transfer_lands_there(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    chains: dict[str, str],
) -> None:
    dialog = open_send(loop, controller, window, node, qtbot)
    drive(loop, lambda: dialog.chain.count() > 1)
    offered = [dialog.chain.itemData(i) for i in range(dialog.chain.count())]
    assert offered[0] is None and chains["acme"] in offered
    assert chains["globex"] not in offered
    # the client's own check too (a real node may list chains the user is not a member of)
    globex = ChainInfo.from_json(
        node.client("bob").get("/bloc/v2.2/chain", params={"chainid": chains["globex"]}).json()[0]
    )
    assert not is_member(globex, controller.account.view.identity)

    dialog.chain.setFocus()
    dialog.chain.setCurrentIndex(dialog.chain.findData(chains["acme"]))
    drive(loop, lambda: isinstance(dialog.balances.get(chains["acme"]), int))
    assert dialog.balance.text().startswith("700 wei on Acme payments")
    dialog.unit.setCurrentText("wei")
    fill(qtbot, dialog, "carol", "800")
    assert dialog.problem.text().startswith("Not enough tokens: alice holds 700 wei on Acme")
    fill(qtbot, dialog, "carol", "300")
    qtbot.keyClick(dialog.amount, Qt.Key.Key_Return)
    sheet = sheet_of(loop, dialog)
    head, body = request_of(sheet)
    assert f"chainid={chains['acme']}" in head
    chain_row = sheet.findChild(QLabel, "confirmChain")
    assert chain_row is not None and chain_row.text() == f"Acme payments ({chains['acme']})"
    assert body["txs"][0]["payload"] == {
        "toAddress": node.address("carol"),
        "value": "300",
        "chainid": chains["acme"],
    }
    qtbot.keyClick(sheet.cancel_button, Qt.Key.Key_S, ALT)
    drive(loop, lambda: dialog.last_result is not None, timeout=30)
    assert dialog.last_result is not None and dialog.last_result.ok, dialog.status.text()
    assert state(node, "alice", chains["acme"])[0] == 400
    assert state(node, "carol", chains["acme"])[0] == 300
    drive(loop, lambda: dialog.balance.text().startswith("400 wei on Acme payments"))


def test_dave_without_identity_is_told_why_he_cannot_send(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    before = state(node, "dave")
    dialog = open_send(loop, controller, window, node, qtbot, "dave")
    assert dialog.banner.isVisible()
    text = dialog.banner.text()
    assert "dave cannot send tokens" in text and "no registered identity" in text
    assert not dialog.review_button.isEnabled() and not dialog.amount.isEnabled()
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert dialog.findChild(ConfirmDialog) is None
    assert state(node, "dave") == before


def test_recipients_are_checked_and_can_be_saved_as_contacts(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    dialog = open_send(loop, controller, window, node, qtbot)
    note = dialog.recipient_note
    fill(qtbot, dialog, "nobody", "1")
    assert note.text().startswith("✘ Nobody is called “nobody”")
    fill(qtbot, dialog, "0x12345678abc", "1")
    assert (
        note.text()
        == "✘ “0x12345678abc” is not an address: an address has 40 hex digits, this has 11."
    )
    fill(qtbot, dialog, "0x" + "g" * 40, "1")
    assert "'g' is not a hex digit" in note.text()
    # Enter with a bad recipient opens no sheet: the sentence stays and the field takes focus
    qtbot.keyClick(dialog.amount, Qt.Key.Key_Return)
    assert dialog.sheet is None and dialog.problem.text().startswith("“0xgggg")
    # 0x and capitals accepted; a known address is named
    fill(qtbot, dialog, "0x" + node.address("bob").upper(), "1")
    assert note.text() == f"→ user bob ({node.address('bob')})"
    # yourself: allowed, with a note
    fill(qtbot, dialog, node.address("alice"), "1")
    assert "your own address" in note.text()

    stranger = "ab" * 20
    fill(qtbot, dialog, stranger, "1")
    assert note.text() == f"→ typed address ({stranger})"
    assert dialog.save_contact.isEnabled()
    qtbot.mouseClick(dialog.save_contact, LEFT)
    ask = dialog.findChild(QInputDialog, "contactNameDialog")
    assert ask is not None and ask.isVisible()
    ask.setTextValue("Zed")
    ask.accept()
    drive(loop, lambda: controller.contacts.get("Zed") == stranger)
    drive(loop, lambda: note.text() == f"→ contact Zed ({stranger})")
    assert not dialog.save_contact.isEnabled()
    fill(qtbot, dialog, "zed", "1")  # the new contact by name
    assert dialog.recipient is not None and dialog.recipient.address == stranger
    # the dialog speaks for one user: acting as another closes it
    loop.run_until_complete(controller.switch_user("bob", "bob"))
    drive(loop, lambda: not shiboken6.isValid(dialog) or not dialog.isVisible())


def test_send_is_reachable_from_the_menu_and_the_keyboard(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    drive(loop, lambda: controller.account.view.loaded and controller.account.view.address)
    panel = account_panel(window)
    window.activateWindow()
    # the Tools menu lists it with its shortcut while the account panel is shown
    tools = window.menus["Tools"]
    assert panel.send_action in tools.actions() and panel.send_action.isVisible()
    assert panel.send_action.shortcut().toString() == "Ctrl+T"
    assert "Ctrl+T" in panel.send_button.toolTip()
    qtbot.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    drive(loop, lambda: panel.send_dialog is not None and panel.send_dialog.isVisible())
    dialog = panel.send_dialog
    assert dialog is not None and dialog.recipient_edit.hasFocus()
    # switching the unit keeps the amount
    qtbot.keyClicks(dialog.amount, "2.5")
    dialog.unit.setCurrentText("wei")
    assert dialog.amount.text() == "2500000000000000000"
    dialog.unit.setCurrentText("tokens")
    assert dialog.amount.text() == "2.5"
    # every field on the way to Review by Tab alone
    drive(loop, lambda: isinstance(dialog.balances.get(None), int))
    seen = tab_through(qtbot, dialog, dialog.recipient_edit, dialog.review_button)
    for w in (dialog.pick, dialog.chain, dialog.amount, dialog.unit, dialog.max_button):
        assert w in seen
    # fits a 1024x640 screen
    assert dialog.width() <= 1024 and dialog.sizeHint().height() <= 600
    # on another panel the shortcut is not Send's
    dialog.reject()
    window.nav.setCurrentRow(2)
    assert not panel.send_action.isVisible()
