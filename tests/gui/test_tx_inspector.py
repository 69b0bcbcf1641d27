"""The transaction inspector's state diff against a real sandbox node: mapping entries shown as
key: old -> new, "nothing changed" said only of what was compared, and the fallback used on
STRATO nodes (no ``stateDiff``) reading Cirrus collection tables."""

from __future__ import annotations

import pytest
import qasync
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.client.state_diff import NOT_KEPT
from app.services.controller import AppController
from app.services.tx_state import transaction_state
from app.ui.shell.main_window import MainWindow
from app.ui.shell.tx_inspector import TxInspectorDialog
from tests.gui.conftest import Family, connect, drive
from tests.gui.test_composer import compile_source, confirm, panel_of
from tests.integration.node_fixture import RunningNode

pytestmark = pytest.mark.cirrus_families  # the default sandbox and a STRATO 16-only one

COIN = """
contract Coin {
    uint public supply;
    mapping(address => uint) public balances;
    constructor(uint n) public { supply = n; balances[msg.sender] = n; }
    function transfer(address to, uint n) public {
        balances[msg.sender] -= n;
        balances[to] += n;
    }
}
"""
RECEIVER = "00000000000000000000000000000000000000b0"


def inspect(
    qtbot: QtBot, loop: qasync.QEventLoop, window: MainWindow, tx: str
) -> TxInspectorDialog:
    """Open an empty inspector, type the hash and press Show, as a user does."""
    dialog = window.open_transaction("")
    qtbot.keyClicks(dialog.hash_edit, tx)
    qtbot.mouseClick(dialog.load_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: dialog.details is not None and dialog.load_button.isEnabled(), 30)
    return dialog


@pytest.mark.parametrize("history", [True, False], ids=["history", "no-history"])
def test_a_transfer_shows_its_mapping_entries_old_and_new(
    history: bool,
    node: RunningNode,
    family: Family,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    alice = node.address("alice").lower().removeprefix("0x")
    panel = panel_of(window)
    compile_source(loop, panel, COIN)
    # with history the inspector used to say "changed no state variable" (the history table
    # has no mapping columns); without it, the diff must not depend on one
    panel.history.setChecked(history)
    panel.deploy_args.editors["n"].set_value(1000)
    confirm(loop, panel, panel.deploy())
    deploy_hash = panel.last_results[0].hash
    address = panel.call_address.text()
    panel.function.setCurrentIndex(panel.function.findData("transfer"))
    panel.call_args.editors["to"].set_value(RECEIVER)
    panel.call_args.editors["n"].set_value(30)
    confirm(loop, panel, panel.call())
    transfer_hash = panel.last_results[0].hash

    dialog = inspect(qtbot, loop, window, transfer_hash)
    assert dialog.details is not None
    assert dialog.details.state_diff == [
        (f"balances[{alice}]", 1000, 970),
        (f"balances[{RECEIVER}]", 0, 30),
    ]
    # names come from the app's name service: the page is drawn again when they arrive (a
    # loaded machine answered the connection's user list after the transaction's details)
    drive(loop, lambda: f"balances[{alice}] (alice):" in dialog.view.toPlainText(), 10)
    text = dialog.view.toPlainText()
    assert "State changed" in text
    assert f"balances[{alice}] (alice):" in text and "1000" in text and "970" in text
    assert f"balances[{RECEIVER}]:" in text and "→" in text
    assert "changed no state" not in text
    # it says what it compared and what it did not
    assert "one-level mappings" in text and "Not compared: arrays, structs" in text
    dialog.close()

    created = inspect(qtbot, loop, window, deploy_hash)
    assert created.details is not None
    assert created.details.state_diff == [
        ("supply", None, 1000),
        (f"balances[{alice}]", None, 1000),
    ]
    created.close()

    # a transfer of nothing to oneself writes both entries and changes none: said truthfully
    panel.call_args.editors["to"].set_value(alice)
    panel.call_args.editors["n"].set_value(0)
    confirm(loop, panel, panel.call())
    idle = inspect(qtbot, loop, window, panel.last_results[0].hash)
    assert idle.details is not None and idle.details.state_diff == []
    text = idle.view.toPlainText()
    assert "nothing that was compared changed" in text
    assert "Compared, from the node's transaction result: scalar state variables" in text
    assert "changed no state" not in text
    idle.close()

    # a STRATO node leaves stateDiff empty: new values from the Cirrus collection table
    client = controller.session.client
    assert client is not None
    result = loop.run_until_complete(client.result(transfer_hash))
    as_strato = {**result.raw["txResult"], "stateDiff": ""}
    report = loop.run_until_complete(
        transaction_state(client, "Coin", address, None, transfer_hash, as_strato)
    )
    assert sorted(report.changes or []) == sorted(
        [(f"balances[{alice}]", NOT_KEPT, 970), (f"balances[{RECEIVER}]", NOT_KEPT, 30)]
    )
    assert "collection tables" in report.scope
    if family.strato16:  # STRATO 16 keeps every contract's history, in history@storage
        assert "from history@storage" in report.scope
    else:
        assert ("from history@Coin" if history else "keeps no history") in report.scope
    # what a node lacks is said, never read as "no change"
    bare = loop.run_until_complete(
        transaction_state(client, "NoSuch", address, None, transfer_hash, {}, {"vars": {}})
    )
    assert bare.changes is None and "keeps no history" in bare.note
    assert "no mappings or arrays" in bare.note
    mapping = {"vars": {"balances": {"tag": "Mapping"}}}
    untabled = loop.run_until_complete(
        transaction_state(client, "NoSuch", address, None, transfer_hash, {}, mapping)
    )
    assert untabled.changes is None
    assert "balances): not compared, this node has no Cirrus collection tables" in untabled.note
