"""The composer's result area against a real sandbox node: returned values typed by the function
that was called (a replay's steps, a batch), and a failed lone call shown with its transaction
(hash, gas, block) and opened in the inspector from there."""

from __future__ import annotations

from pathlib import Path

import qasync
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.shell.main_window import MainWindow
from app.ui.shell.tx_inspector import TxInspectorDialog
from app.ui.widgets.confirm_dialog import ConfirmDialog
from tests.gui.conftest import click_link, connect, drive
from tests.gui.test_composer import compile_source, confirm, panel_of
from tests.integration.node_fixture import RunningNode

SHOP = """
contract Shop {
    struct Item { string name; uint qty; }
    uint public stock;

    function put(Item it) public returns (string) {
        stock += it.qty;
        return it.name;
    }

    function open() public returns (bool) { return true; }

    function count() public view returns (uint) { return stock; }

    function take(uint n) public returns (uint) {
        require(n <= stock, "not enough in stock");
        stock -= n;
        return stock;
    }
}
"""


def test_replayed_results_are_typed_by_the_replayed_step_not_the_call_form(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    panel.record_button.setChecked(True)
    drive(loop, lambda: controller.composer.recorder is not None)
    compile_source(loop, panel, SHOP)
    panel.contract.setCurrentText("Shop")
    confirm(loop, panel, panel.deploy())
    panel.function.setCurrentIndex(panel.function.findData("open"))
    confirm(loop, panel, panel.call())
    assert "(bool) = true" in panel.result.toPlainText()
    panel.function.setCurrentIndex(panel.function.findData("put"))
    panel.call_args.editors["it"].set_value({"name": "widget", "qty": 2})
    confirm(loop, panel, panel.call())
    assert "(string) = widget" in panel.result.toPlainText()
    panel.record_button.setChecked(False)
    file = tmp_path / "shop.json"
    panel.save_scenario_to(str(file))
    drive(loop, file.exists)
    # the Call tab now shows a function returning uint: the replay must not borrow its types
    panel.function.setCurrentIndex(panel.function.findData("count"))
    panel.replay_file(str(file))
    drive(loop, lambda: window.findChild(ConfirmDialog) is not None)
    sheet = window.findChild(ConfirmDialog)
    assert sheet is not None
    sheet.send_button.click()
    drive(loop, lambda: panel.scenario_status.text().startswith("Replayed"), 30)
    assert panel.scenario_status.text() == "Replayed 3 of 3 step(s)"
    text = panel.result.toPlainText()
    assert "(bool) = true" in text and "(string) = widget" in text
    assert "uint" not in text


def test_a_batch_types_each_call_by_its_own_function(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, SHOP)
    panel.contract.setCurrentText("Shop")
    confirm(loop, panel, panel.deploy())
    panel.function.setCurrentIndex(panel.function.findData("open"))
    panel.call_batch.click()
    panel.function.setCurrentIndex(panel.function.findData("put"))
    panel.call_args.editors["it"].set_value({"name": "bolt", "qty": 5})
    panel.call_batch.click()
    panel.function.setCurrentIndex(panel.function.findData("count"))
    confirm(loop, panel, panel.send_batch_now())
    text = panel.result.toPlainText()
    assert "(bool) = true" in text and "(string) = bolt" in text
    assert "uint" not in text


def test_a_failed_call_shows_its_transaction_and_opens_in_the_inspector(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "bob")
    panel = panel_of(window)
    compile_source(loop, panel, SHOP)
    panel.contract.setCurrentText("Shop")
    confirm(loop, panel, panel.deploy())
    panel.function.setCurrentIndex(panel.function.findData("take"))
    panel.call_args.editors["n"].set_value(3)
    confirm(loop, panel, panel.call())
    (failed,) = panel.last_results
    assert failed.status == "Failure" and "not enough in stock" in failed.message
    # the node's 422 names no transaction: the composer found it, in a block, with its gas
    assert len(failed.hash) == 64 and failed.gas_used > 0
    text = panel.result.toPlainText()
    assert failed.hash in text and f"gas used {failed.gas_used:,}" in text
    txs = node.client("bob").get("/strato-api/eth/v1.2/transaction", params={"hash": failed.hash})
    block = txs.json()[0]["blockNumber"]
    assert f"in block {block}" in text
    # the failing statement is linked too, as for a failure inside a batch
    assert "failed at Untitled, line" in text
    click_link(qtbot, panel.result, "tx:")
    drive(loop, lambda: window.findChild(TxInspectorDialog) is not None)
    dialog = window.findChild(TxInspectorDialog)
    assert dialog is not None
    drive(loop, lambda: "Failure" in dialog.view.toPlainText(), 15)
    assert failed.hash in dialog.view.toPlainText()
    dialog.close()
