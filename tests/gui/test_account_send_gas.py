"""Send tokens on a sandbox that charges gas (``serve --gas``): the sheet shows the gas limit and
price sent as txParams, "max" leaves the gas, and the sender pays amount plus gas."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from app.client.units import exact_tokens, format_amount
from app.services.controller import AppController
from app.services.transfers import TRANSFER_GAS_LIMIT
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import drive
from tests.gui.test_account_send import (
    ALT,
    LEFT,
    TOKEN,
    fill,
    open_send,
    request_of,
    sheet_of,
    state,
)
from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--gas")
    try:
        for user in ("alice", "carol"):
            if state(n, user)[0] < 10 * TOKEN:
                r = n.client(user).post(
                    f"/bloc/v2.2/users/{user}/{n.address(user)}/fill", params={"resolve": "true"}
                )
                assert r.status_code == 200, r.text
        yield n
    finally:
        n.stop()


def test_the_sheet_shows_the_gas_sent_and_the_sender_pays_it(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    alice_before, _ = state(node, "alice")
    bob_before, _ = state(node, "bob")
    dialog = open_send(loop, controller, window, node, qtbot)
    charged = "Charged: gas limit 21,000 at gas price 1 wei: at most 21,000 wei"
    assert dialog.gas.text().startswith(charged), dialog.gas.text()
    fill(qtbot, dialog, "bob", "1")
    qtbot.keyClick(dialog.amount, Qt.Key.Key_Return)
    sheet = sheet_of(loop, dialog)
    _head, body = request_of(sheet)
    assert body["txParams"] == {"gasLimit": TRANSFER_GAS_LIMIT, "gasPrice": 1}
    assert body["txs"][0] == {
        "type": "TRANSFER",
        "payload": {"toAddress": node.address("bob"), "value": str(TOKEN)},
    }
    gas = sheet.findChild(QLabel, "confirmGas")
    total = sheet.findChild(QLabel, "confirmTotal")
    assert gas is not None and gas.text().startswith(charged)
    assert total is not None and total.text() == "1 token + at most 21,000 wei of gas"
    qtbot.keyClick(sheet.cancel_button, Qt.Key.Key_S, ALT)
    drive(loop, lambda: dialog.last_result is not None, timeout=30)
    assert dialog.last_result is not None and dialog.last_result.ok, dialog.status.text()
    paid = alice_before - state(node, "alice")[0]
    assert paid == TOKEN + dialog.last_result.gas_used * 1 == TOKEN + 21_000
    assert state(node, "bob")[0] - bob_before == TOKEN


def test_max_leaves_the_gas_and_more_is_refused_naming_the_gas(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    balance, nonce = state(node, "carol")
    dialog = open_send(loop, controller, window, node, qtbot, "carol")
    fill(qtbot, dialog, "alice", "")
    qtbot.mouseClick(dialog.max_button, LEFT)
    assert dialog.amount.text() == exact_tokens(balance - 21_000, grouping=False)
    assert dialog.problem.text() == ""
    # the whole balance would leave nothing for the gas: refused before sending
    dialog.amount.setText(exact_tokens(balance, grouping=False))
    text = dialog.problem.text()
    assert text.startswith(f"Not enough tokens: carol holds {format_amount(balance)}")
    assert "21,000 wei of gas" in text and "“Max”" in text
    qtbot.keyClick(dialog.amount, Qt.Key.Key_Return)
    assert dialog.sheet is None
    assert state(node, "carol") == (balance, nonce)
    # max goes through, and carol keeps nothing (the gas took the rest)
    qtbot.mouseClick(dialog.max_button, LEFT)
    qtbot.keyClick(dialog.amount, Qt.Key.Key_Return)
    sheet = sheet_of(loop, dialog)
    qtbot.keyClick(sheet.cancel_button, Qt.Key.Key_S, ALT)
    drive(loop, lambda: dialog.last_result is not None, timeout=30)
    assert dialog.last_result is not None and dialog.last_result.ok, dialog.status.text()
    assert state(node, "carol")[0] == 0
