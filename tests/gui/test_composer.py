"""The composer against a real sandbox node: samples, compile errors, typed editors for every
argument kind, raw JSON, confirmation sheet, results, require failures, batches, pending."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QToolButton,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.panels.composer.panel import SAMPLES, ComposerPanel
from app.ui.shell.main_window import MainWindow
from app.ui.shell.tx_inspector import TxInspectorDialog
from app.ui.widgets.arg_editor import ArrayEditor, MappingEditor, StructEditor
from app.ui.widgets.confirm_dialog import ConfirmDialog
from tests.gui import conftest
from tests.gui.conftest import click_link, connect, drive
from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode

KINDS = """
contract Kinds {
    enum Color { Red, Green, Blue }
    struct Point { uint x; string label; }
    uint public total;
    string public summary;

    constructor(uint start) public { total = start; }

    function everything(uint[] nums, uint[2][] pairs, Point p, mapping(string => uint) scores,
                        bool flag, Color c, bytes4 tag, string note, account who)
        public returns (uint sum, string text) {
        uint s = 0;
        for (uint i = 0; i < nums.length; i++) { s += nums[i]; }
        for (uint j = 0; j < pairs.length; j++) { s += pairs[j][0] * pairs[j][1]; }
        s += p.x + scores["alice"] + scores["bob"];
        if (flag) { s += 1000; }
        total = s;
        summary = p.label + "/" + note;
        return (s, summary);
    }

    function mustBePositive(int v) public returns (int) {
        require(v > 0, "v must be positive");
        return v;
    }

    function peek() public view returns (uint) { return total; }
}
"""


panel_of = conftest.panel_of  # the composer's modules import it from here


def compile_source(loop: qasync.QEventLoop, panel: ComposerPanel, src: str) -> None:
    panel.editor.setPlainText(src)
    panel.compile_button.click()
    drive(loop, panel.compile_button.isEnabled)


def confirm(loop: qasync.QEventLoop, panel: ComposerPanel, dialog: ConfirmDialog | None) -> str:
    """Press Send on the sheet; returns the request text it showed."""
    assert dialog is not None and dialog.isVisible()
    shown = dialog.request.toPlainText()
    before = panel.result.toPlainText()
    dialog.send_button.click()
    drive(loop, lambda: panel.result.toPlainText() not in (before, "Sending…"), 30)
    return shown


def test_sample_compiles_deploys_and_calls(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    index = panel.samples.findText("Token")
    assert index > 0
    panel.samples.activated.emit(index)
    drive(loop, lambda: "contract" in panel.editor.toPlainText())
    assert panel.editor.toPlainText() == (SAMPLES / "Token.sol").read_text()
    panel.compile_button.click()
    drive(loop, panel.compile_button.isEnabled)
    assert panel.source_status.text().startswith("✔")
    panel.contract.setCurrentText("Token")
    ctor = panel.deploy_args
    assert set(ctor.editors) == {"_name", "_symbol", "_supply"}
    ctor.editors["_name"].set_value("Demo")
    ctor.editors["_symbol"].set_value("DMO")
    ctor.editors["_supply"].set_value("1e6")
    assert ctor.problems() == [] and panel.deploy_button.isEnabled()
    request = confirm(loop, panel, panel.deploy())
    assert request.startswith(f"POST {node.url}/svc/v2.3/transaction?resolve=true")
    body = json.loads(request.split("\n\n", 1)[1])
    assert body["txs"][0]["payload"]["args"] == {
        "_name": "Demo",
        "_symbol": "DMO",
        "_supply": 10**6,
    }
    text = panel.result.toPlainText()
    assert "Success" in text and "created Token at" in text
    # the call form now holds the new contract with its functions, view ones marked
    address = panel.call_address.text()
    assert len(address) == 40 and panel.call_name.text() == "Token"
    labels = [panel.function.itemText(i) for i in range(panel.function.count())]
    assert "balanceOf(address who)  [view]" in labels
    panel.function.setCurrentIndex(panel.function.findData("balanceOf"))
    panel.call_args.editors["who"].set_value(node.address("alice"))
    confirm(loop, panel, panel.call())
    assert "who" not in panel.result.toPlainText()
    assert "#0 (uint256) = 1000000" in panel.result.toPlainText()


def test_every_argument_kind_through_the_editors(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "bob")
    panel = panel_of(window)
    compile_source(loop, panel, KINDS)
    panel.deploy_args.editors["start"].set_value(5)
    confirm(loop, panel, panel.deploy())
    assert "created Kinds" in panel.result.toPlainText()
    panel.function.setCurrentIndex(panel.function.findData("everything"))
    eds = panel.call_args.editors
    nums = eds["nums"]
    assert isinstance(nums, ArrayEditor)
    nums.add_button.click()
    nums.add_button.click()
    nums.rows[0][1][0].set_value(1)
    nums.rows[1][1][0].set_value("0x10")  # 16
    pairs = eds["pairs"]
    assert isinstance(pairs, ArrayEditor)
    pairs.add_button.click()
    inner = pairs.rows[0][1][0]
    assert isinstance(inner, ArrayEditor) and len(inner.rows) == 2  # uint[2]: fixed length
    assert not inner.add_button.isVisible()
    inner.rows[0][1][0].set_value(3)
    inner.rows[1][1][0].set_value(4)
    point = eds["p"]
    assert isinstance(point, StructEditor)
    point.members["x"].set_value(100)
    point.members["label"].set_value("pt")
    scores = eds["scores"]
    assert isinstance(scores, MappingEditor)
    scores.add_button.click()
    scores.add_button.click()
    scores.rows[0][1][0].set_value("alice")
    scores.rows[0][1][1].set_value(20)
    scores.rows[1][1][0].set_value("bob")
    scores.rows[1][1][1].set_value(30)
    flag = eds["flag"].findChild(QCheckBox)
    assert flag is not None
    flag.setChecked(True)
    color = eds["c"].findChild(QComboBox)
    assert color is not None and [color.itemText(i) for i in range(3)] == ["Red", "Green", "Blue"]
    color.setCurrentText("Blue")
    eds["tag"].set_value("zz")
    assert any("tag" in p and "hex" in p for p in panel.call_args.problems())
    assert not panel.call_button.isEnabled()  # nothing is sent while a field is wrong
    eds["tag"].set_value("0xdeadbeef")
    eds["note"].set_value("hi")
    # the picker beside address fields offers the node's users and recent contracts
    drive(loop, lambda: ("alice", node.address("alice")) in panel.user_rows)
    pick = eds["who"].findChild(QToolButton, "arg_who_pick")
    assert pick is not None
    pick.menu().aboutToShow.emit()
    labels = {a.text().split()[1]: a for a in pick.menu().actions() if a.text().startswith("user")}
    assert {"alice", "bob", "carol"} <= set(labels)
    labels["alice"].trigger()
    assert eds["who"].value() == node.address("alice")
    # an address can be kept as a contact, offered first from then on
    pick.menu().aboutToShow.emit()
    save = next(a for a in pick.menu().actions() if a.text().startswith("Save this address"))
    save.trigger()
    ask = window.findChild(QInputDialog, "contactNameDialog")
    assert ask is not None and node.address("alice") in ask.labelText()
    ask.setTextValue("Alice desk")
    ask.accept()
    drive(loop, lambda: "Alice desk" in controller.contacts)
    assert controller.contacts["Alice desk"] == node.address("alice")
    pick.menu().aboutToShow.emit()
    assert pick.menu().actions()[0].text().startswith("contact Alice desk")
    eds["who"].set_value(node.address("alice") + ":main")
    assert panel.call_args.problems() == []
    request = confirm(loop, panel, panel.call())
    args = json.loads(request.split("\n\n", 1)[1])["txs"][0]["payload"]["args"]
    assert args["scores"] == {"'alice'": 20, "'bob'": 30}
    assert args["pairs"] == [[3, 4]] and args["c"] == "Blue" and args["tag"] == "deadbeef"
    text = panel.result.toPlainText()
    # 1 + 16 + 3*4 + 100 + 20 + 30 + 1000
    assert "sum (uint256) = 1179" in text and "text (string) = pt/hi" in text


def test_raw_json_round_trips_with_the_editors(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, KINDS)
    confirm(loop, panel, panel.deploy())
    panel.function.setCurrentIndex(panel.function.findData("everything"))
    args = panel.call_args
    args.editors["p"].set_value({"x": 7, "label": "seven"})
    args.editors["scores"].set_value([("carol", 3)])
    args.raw_toggle.setChecked(True)
    raw = json.loads(args.raw.toPlainText())
    assert raw["p"] == {"x": 7, "label": "seven"} and raw["scores"] == {"'carol'": 3}
    raw["nums"] = [5, 6]
    raw["c"] = "Green"
    args.raw.setPlainText(json.dumps(raw))
    args.raw_toggle.setChecked(False)
    assert args.editors["nums"].value() == [5, 6]
    assert args.editors["c"].value() == "Green"
    assert args.editors["scores"].value() == [("carol", 3)]
    # broken JSON keeps the raw page and says why
    args.raw_toggle.setChecked(True)
    args.raw.setPlainText("{not json")
    args.raw_toggle.setChecked(False)
    assert args.raw_toggle.isChecked()
    assert "not valid JSON" in args.problems_label.text()
    args.raw.setPlainText(json.dumps({**raw, "scores": {"carol": 1}}))
    assert "single quotes" in args.problems_label.text()


def test_compile_error_is_marked_and_require_failure_shown(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, "contract Broken {\n  uint x = ;\n}\n")
    assert panel.source_status.text().startswith("✘") and "line 2" in panel.source_status.text()
    assert panel.editor.error_line == 2
    assert not panel.deploy_button.isEnabled()
    compile_source(loop, panel, KINDS)
    assert panel.editor.error_line is None
    confirm(loop, panel, panel.deploy())
    panel.function.setCurrentIndex(panel.function.findData("mustBePositive"))
    panel.call_args.editors["v"].set_value(-3)
    confirm(loop, panel, panel.call())
    text = panel.result.toPlainText()
    assert "Failure" in text and "v must be positive" in text
    # an invalid number never leaves the form
    panel.call_args.editors["v"].set_value("12abc")
    assert not panel.call_button.isEnabled()
    assert "whole number" in panel.call_args.problems_label.text()
    line = panel.call_args.findChild(QLineEdit, "arg_v")
    assert line is not None and "whole number" in line.toolTip()


def test_a_failed_call_in_a_batch_shows_and_jumps_to_its_line(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, KINDS)
    panel.deploy_args.editors["start"].set_value(1)
    confirm(loop, panel, panel.deploy())
    panel.function.setCurrentIndex(panel.function.findData("mustBePositive"))
    for v in (-3, 4):
        panel.call_args.editors["v"].set_value(v)
        panel.call_batch.click()
    panel.resolve.setChecked(True)
    confirm(loop, panel, panel.send_batch_now())
    assert [r.status for r in panel.last_results] == ["Failure", "Success"]
    # the node says where the call failed; the composer maps it back to the editor's line
    line = KINDS[: KINDS.index("require(v > 0")].count("\n") + 1
    text = panel.result.toPlainText()
    assert f"failed at Untitled, line {line}, column 9" in text
    panel.editor.moveCursor(QTextCursor.MoveOperation.Start)
    click_link(qtbot, panel.result, "loc:")
    drive(loop, lambda: panel.editor.textCursor().blockNumber() + 1 == line)
    assert "require(v > 0" in panel.editor.textCursor().block().text()


def test_batch_and_pending(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "carol")
    panel = panel_of(window)
    compile_source(loop, panel, KINDS)
    for start in (1, 2, 3):
        panel.deploy_args.editors["start"].set_value(start)
        panel.deploy_batch.click()
    assert panel.batch_list.count() == 3
    panel.resolve.setChecked(False)
    dialog = panel.send_batch_now()
    assert dialog is not None and dialog.windowTitle() == "Send these 3 transactions?"
    request = confirm(loop, panel, dialog)
    assert "resolve=false" in request and len(json.loads(request.split("\n\n", 1)[1])["txs"]) == 3
    assert panel.batch_list.count() == 0  # sent: the batch is empty again
    results = panel.last_results
    assert len(results) == 3 and all(r.hash for r in results)
    # the pending ones are tracked until they complete: the status bar comes back to none
    drive(loop, lambda: window.status_pending.text() == "no pending tx", 30)
    assert controller.pending.hashes == []


def test_open_and_save_files(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    panel.editor.setPlainText(KINDS)
    target = tmp_path / "kinds.sol"
    panel.save_to(str(target))
    drive(loop, target.exists)
    assert target.read_text() == KINDS
    panel.editor.setPlainText("")
    dialog = panel.open_file()
    assert dialog.isVisible()
    dialog.fileSelected.emit(str(target))
    drive(loop, lambda: panel.editor.toPlainText() == KINDS)
    dialog.close()
    assert not shiboken6.isValid(dialog) or not dialog.isVisible()


def test_transaction_inspector_from_results_search_and_account(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, KINDS)
    panel.deploy_args.editors["start"].set_value(9)
    confirm(loop, panel, panel.deploy())
    upload = panel.last_results[0]
    # the hash in the result is a link to the inspector
    opened: list[str] = []
    panel.transaction_requested.connect(opened.append)
    panel.result.anchorClicked.emit(QUrl(f"tx:{upload.hash}"))
    assert opened == [upload.hash]
    dialog = window.open_transaction(upload.hash)
    drive(loop, lambda: dialog.details is not None and not dialog.progress.isVisible())
    text = dialog.view.toPlainText()
    assert "Success" in text and "Upload" in text and "Kinds at" in text
    assert "everything(uint256[] nums" in text and "peek()" in text
    dialog.close()

    # a call: returned values with their declared names, and the call itself
    panel.function.setCurrentIndex(panel.function.findData("mustBePositive"))
    panel.call_args.editors["v"].set_value(4)
    confirm(loop, panel, panel.call())
    call = panel.last_results[0]
    window.search.setText(call.hash)
    window.search.returnPressed.emit()  # the search finds it is a transaction: the inspector
    drive(loop, lambda: any(d.hash_edit.text() == call.hash for d in inspectors(window)))
    found = next(d for d in inspectors(window) if d.hash_edit.text() == call.hash)
    drive(loop, lambda: found.details is not None and found.load_button.isEnabled())
    text = found.view.toPlainText()
    assert "Kinds.mustBePositive" in text and '"v": 4' in text
    assert "#0 (int256) = 4" in text
    assert "Call: mustBePositive" in text and node.address("alice") in text  # the Type row
    found.close()

    # a failed one, sent without waiting: the hash exists and the VM's message is shown
    panel.call_args.editors["v"].set_value(-1)
    panel.resolve.setChecked(False)
    confirm(loop, panel, panel.call())
    failed = panel.last_results[0]
    bad = window.open_transaction(failed.hash)
    drive(loop, lambda: bad.details is not None and not bad.details.result.pending, 30)
    drive(loop, bad.load_button.isEnabled)
    assert "Failure" in bad.view.toPlainText()
    assert "v must be positive" in bad.view.toPlainText()
    bad.close()

    # nonsense is refused before any request
    nonsense = window.open_transaction("xyz")
    drive(loop, nonsense.load_button.isEnabled)
    assert "64 hex digits" in nonsense.view.toPlainText()
    nonsense.close()

    # from the HTTP inspector: the request that submitted the call names its transaction
    dock = window.inspector
    post = next(
        ex
        for ex in reversed(dock.visible_exchanges())
        if ex.method == "POST" and "/transaction?" in ex.url and call.hash in ex.response_body
    )
    assert dock.select_exchange(post) and dock.open_tx.isEnabled()
    count = len(window.findChildren(TxInspectorDialog))
    dock.open_tx.click()
    opened_dialogs = window.findChildren(TxInspectorDialog)
    assert len(opened_dialogs) == count + 1
    assert opened_dialogs[-1].hash_edit.text() == call.hash
    opened_dialogs[-1].close()

    # from the account panel: double-click a transaction
    account = window.panels[0]
    drive(loop, lambda: controller.account.view.transactions)
    before = len(window.findChildren(TxInspectorDialog))
    table = account.tx_table  # type: ignore[attr-defined]
    table.doubleClicked.emit(table.model().index(0, 0))
    assert len(window.findChildren(TxInspectorDialog)) == before + 1


def test_inspector_follows_a_pending_transaction(
    tmp_path_factory: pytest.TempPathFactory,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    slow = make_node(tmp_path_factory, "--block-time", "1.5", name="slow")
    try:
        connect(loop, controller, slow, "alice")
        panel = panel_of(window)
        compile_source(loop, panel, KINDS)
        panel.resolve.setChecked(False)
        confirm(loop, panel, panel.deploy())
        sent = panel.last_results[0]
        assert sent.pending
        dialog = window.open_transaction(sent.hash)
        drive(loop, dialog.progress.isVisible, 10)
        assert "Pending" in dialog.view.toPlainText()
        drive(loop, lambda: not dialog.progress.isVisible(), 30)
        assert "Success" in dialog.view.toPlainText()
        dialog.close()
        # closing an inspector stops following its transaction
        confirm(loop, panel, panel.deploy())
        second = window.open_transaction(panel.last_results[0].hash)
        following = second._task
        assert following is not None
        second.close()
        drive(loop, following.done)
        assert following.cancelled()
    finally:
        loop.run_until_complete(controller.shutdown())  # disconnect before the node goes
        slow.stop()


def test_record_a_scenario_and_replay_it_on_a_fresh_node(
    node: RunningNode,
    tmp_path_factory: pytest.TempPathFactory,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    panel.record_button.setChecked(True)
    drive(loop, lambda: controller.composer.recorder is not None)
    compile_source(loop, panel, (SAMPLES / "Token.sol").read_text())
    panel.contract.setCurrentText("Token")
    for name, value in (("_name", "Rec"), ("_symbol", "REC"), ("_supply", 500)):
        panel.deploy_args.editors[name].set_value(value)
    confirm(loop, panel, panel.deploy())
    panel.function.setCurrentIndex(panel.function.findData("transfer"))
    panel.call_args.editors["to"].set_value(node.address("bob"))
    panel.call_args.editors["amount"].set_value(120)
    confirm(loop, panel, panel.call())
    assert "Recording: 2 step(s)" in panel.scenario_status.text()
    panel.record_button.setChecked(False)
    assert panel.scenario is not None and panel.save_scenario_button.isEnabled()
    file = tmp_path / "demo.json"
    panel.save_scenario_to(str(file))
    drive(loop, file.exists)
    saved = file.read_text()
    assert "${created:1}" in saved and "${user:bob}" in saved
    assert node.address("bob") not in saved

    other = make_node(tmp_path_factory, name="replay")
    try:
        loop.run_until_complete(controller.shutdown())
        connect(loop, controller, other, "carol")
        panel.replay_file(str(file))
        drive(loop, lambda: window.findChild(ConfirmDialog) is not None)
        sheet = window.findChild(ConfirmDialog)
        assert sheet is not None and sheet.windowTitle() == "Replay 2 step(s)?"
        signer = sheet.findChild(QLabel, "confirmSigner")
        assert signer is not None and "carol" in signer.text()
        sheet.send_button.click()
        drive(loop, lambda: panel.scenario_status.text().startswith("Replayed"), 30)
        assert panel.scenario_status.text() == "Replayed 2 of 2 step(s)"
        results = panel.last_results
        assert [r.status for r in results] == ["Success", "Success"]
        token = results[0].address
        assert token is not None
        # on the new node, bob got the tokens from carol's fresh contract
        balance = other.client("bob").post(
            "/svc/v2.3/transaction?resolve=true",
            json={
                "txs": [
                    {
                        "type": "FUNCTION",
                        "payload": {
                            "contractName": "Token",
                            "contractAddress": token,
                            "method": "balanceOf",
                            "args": {"who": other.address("bob")},
                        },
                    }
                ]
            },
        )
        assert balance.json()[0]["data"]["contents"] == ["120"]
    finally:
        loop.run_until_complete(controller.shutdown())
        other.stop()


def test_source_editor_colours_with_tree_sitter(qapp: object) -> None:
    from PySide6.QtGui import QColor

    from app.ui.widgets.source_editor import SourceEditor

    editor = SourceEditor()
    assert editor.highlighter.tree is None  # nothing loaded before there is text
    editor.setPlainText(
        'contract Demo {\n  // note\n  account a;\n  function f() public { emit E("x", 42); }\n}\n'
    )
    editor._reparse_now()  # what the edit timer does
    assert editor.highlighter.tree is not None  # the tree-sitter grammar loaded
    spans = editor.highlighter.line_spans
    assert (0, 8, "keyword") in spans[0] and (9, 13, "type") in spans[0]
    assert any(name == "comment" for _, _, name in spans[1])
    assert any(name == "function" for _, _, name in spans[3])
    assert any(name == "string" for _, _, name in spans[3])
    assert any(name == "number" for _, _, name in spans[3])

    def colour_at(line: int, column: int) -> QColor:
        block = editor.document().findBlockByNumber(line)
        for r in block.layout().formats():
            if r.start <= column < r.start + r.length:
                return r.format.foreground().color()
        return QColor()

    keyword = editor.highlighter.capture_formats["keyword"].foreground().color()
    assert colour_at(0, 2) == keyword
    assert colour_at(2, 3) == keyword  # "account", a SolidVM word the grammar does not know
    editor.deleteLater()


def test_every_sample_contract_deploys(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    """Each file of resources/contracts compiles and its main contract deploys from the form."""
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    samples = sorted(SAMPLES.glob("*.sol"))
    assert len(samples) >= 4
    fills = {
        "string": "demo",
        "int": 7,
        "address": node.address("bob"),
        "account": node.address("bob"),
        "bool": True,
    }
    for path in samples:
        compile_source(loop, panel, path.read_text())
        assert panel.source_status.text().startswith("✔"), (path.name, panel.source_status.text())
        name = panel.contract.currentText()
        for p in panel.specs[name].constructor.params:
            if p.type.kind in fills:
                panel.deploy_args.editors[p.name].set_value(fills[p.type.kind])
        assert panel.deploy_args.problems() == [], path.name
        confirm(loop, panel, panel.deploy())
        text = panel.result.toPlainText()
        assert "Success" in text and f"created {name} at" in text, (path.name, text)


COUNTER = """
contract Tally {
    uint public count;
    string public last;
    event Added(uint n, string who);
    event Passed(uint total);
    constructor(uint start) public { count = start; }
    function add(uint n, string who) public returns (uint) {
        count += n;
        last = who;
        emit Added(n, who);
        if (count > 12) { emit Passed(count); }
        return count;
    }
}
"""


def test_inspector_shows_the_state_diff_from_history(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, COUNTER)
    panel.history.setChecked(True)
    panel.deploy_args.editors["start"].set_value(10)
    confirm(loop, panel, panel.deploy())
    deploy_hash = panel.last_results[0].hash
    panel.function.setCurrentIndex(panel.function.findData("add"))
    panel.call_args.editors["n"].set_value(5)
    panel.call_args.editors["who"].set_value("bob")
    confirm(loop, panel, panel.call())
    call_hash = panel.last_results[0].hash

    dialog = window.open_transaction(call_hash)
    drive(loop, lambda: dialog.details is not None and dialog.load_button.isEnabled())
    assert dialog.details is not None
    assert dialog.details.state_diff == [("count", 10, 15), ("last", "", "bob")]
    assert dialog.details.events == [
        ("Added", {"n": "5", "who": "bob"}),
        ("Passed", {"total": "15"}),
    ]
    assert "Added(n: 5, who: bob)" in dialog.view.toPlainText()
    text = dialog.view.toPlainText()
    assert "State changed" in text and "count" in text and "15" in text
    dialog.close()

    created = window.open_transaction(deploy_hash)
    drive(loop, lambda: created.details is not None and created.load_button.isEnabled())
    assert created.details is not None
    assert ("count", None, 10) in (created.details.state_diff or [])
    assert created.details.events == []  # the constructor emitted nothing
    created.close()

    # without history the sandbox's transaction result still gives the diff
    panel.history.setChecked(False)
    confirm(loop, panel, panel.deploy())
    plain = window.open_transaction(panel.last_results[0].hash)
    drive(loop, lambda: plain.details is not None and plain.load_button.isEnabled())
    assert plain.details is not None and plain.details.state_diff == [("count", None, 10)]
    assert "from the node's transaction result" in plain.view.toPlainText()
    plain.close()


def inspectors(window: MainWindow) -> list[TxInspectorDialog]:
    """The transaction inspectors the window opened and has not deleted."""
    return [d for d in window.findChildren(TxInspectorDialog) if shiboken6.isValid(d)]


# ------------------------------------------------------------ a small screen, the keyboard


def form_label(field: QWidget) -> QLabel:
    """The label a QFormLayout shows beside ``field``."""
    page = field.parentWidget()
    form = page.layout() if page is not None else None
    assert isinstance(form, QFormLayout)
    label = form.labelForField(field)
    assert isinstance(label, QLabel)
    return label


def shown_height(widget: QWidget) -> int:
    """How much of ``widget`` is on screen (parents and scroll areas clip it)."""
    return widget.visibleRegion().boundingRect().height() if widget.isVisible() else 0


def settle(loop: qasync.QEventLoop, rounds: int = 5) -> None:
    for _ in range(rounds):
        loop.run_until_complete(asyncio.sleep(0.02))
        QApplication.processEvents()


def test_argument_editors_keep_their_height_at_1024x640(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    window.resize(1024, 640)
    compile_source(loop, panel, KINDS)
    panel.deploy_args.editors["start"].set_value(1)
    confirm(loop, panel, panel.deploy())
    assert panel.tabs.currentIndex() == 1 and panel.call_spec is not None
    panel.function.setCurrentIndex(panel.function.findData("mustBePositive"))
    settle(loop)
    assert window.size() == QSize(1024, 640)
    edit = panel.call_args.editors["v"].findChild(QLineEdit, "arg_v")
    assert edit is not None
    # the editor shows whole, the label beside the arguments is not clipped
    assert shown_height(edit) >= edit.minimumSizeHint().height() > 0
    label = form_label(panel.call_args)
    assert label.text() == "Arguments"
    assert shown_height(label) >= label.sizeHint().height()
    lines = panel.call_args.fontMetrics().lineSpacing()
    assert panel.call_args.stack.height() >= 3 * lines
    # the Call button is on screen without scrolling
    assert shown_height(panel.call_button) >= panel.call_button.minimumSizeHint().height()

    # nine parameters with arrays, a struct and a mapping scroll: the window keeps its size
    panel.function.setCurrentIndex(panel.function.findData("everything"))
    settle(loop)
    assert window.size() == QSize(1024, 640)
    assert panel.call_args.scroll_area.verticalScrollBar().maximum() > 0
    assert panel.call_args.stack.height() >= 3 * lines
    nums = panel.call_args.editors["nums"]
    assert isinstance(nums, ArrayEditor)
    for _ in range(12):  # an array grown row by row scrolls too
        qtbot_click(nums.add_button)
    settle(loop)
    assert window.size() == QSize(1024, 640)
    bar = panel.call_args.scroll_area.verticalScrollBar()
    panel.call_args.scroll_area.ensureWidgetVisible(nums.rows[-1][1][0])
    settle(loop)
    last = nums.rows[-1][1][0].findChild(QLineEdit)
    assert last is not None and shown_height(last) >= last.minimumSizeHint().height()
    assert bar.value() > 0


def qtbot_click(button: QAbstractButton) -> None:
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def test_confirmation_sheet_shows_text_as_typed_and_takes_focus(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, (SAMPLES / "Token.sol").read_text())
    panel.contract.setCurrentText("Token")
    name = '"Demo Coin" <b>bold</b> & A&amp;B > 1'
    args = panel.deploy_args.editors
    args["_name"].set_value(name)
    args["_symbol"].set_value("<D&C>")
    args["_supply"].set_value(100)
    dialog = panel.deploy()
    assert dialog is not None
    settle(loop)
    what = dialog.findChild(QLabel, "confirmWhat")
    assert what is not None
    # plain text, shown as typed: the JSON of the name, not its HTML escape
    assert json.dumps(name) in what.text() and '"<D&C>"' in what.text()
    assert "&quot;" not in what.text() and "&amp;B" in what.text()
    assert what.textFormat() == Qt.TextFormat.PlainText
    for label in dialog.findChildren(QLabel):
        if label.objectName().startswith("confirm"):
            assert label.textFormat() == Qt.TextFormat.PlainText, label.objectName()
    # the sheet has the keyboard, on the confirming button (it follows a deliberate
    # Deploy…): Esc cancels, nothing is sent
    assert dialog.isActiveWindow()
    assert dialog.send_button.hasFocus() and dialog.send_button.isDefault()
    assert not dialog.cancel_button.isDefault()
    before = panel.result.toPlainText()
    QTest.keyClick(dialog.send_button, Qt.Key.Key_Escape)
    settle(loop)
    assert not shiboken6.isValid(dialog) or not dialog.isVisible()
    assert panel.result.toPlainText() == before
    # Enter sends
    dialog = panel.deploy()
    assert dialog is not None
    settle(loop)
    QTest.keyClick(QApplication.focusWidget() or dialog, Qt.Key.Key_Return)
    drive(loop, lambda: "created Token" in panel.result.toPlainText(), 30)
    first = panel.call_address.text()
    assert len(first) == 40
    # Alt+S still sends, the focus on Cancel
    dialog = panel.deploy()
    assert dialog is not None
    settle(loop)
    dialog.cancel_button.setFocus()
    QTest.keyClick(dialog.cancel_button, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)
    drive(loop, lambda: panel.call_address.text() not in ("", first), 30)
    assert "created Token" in panel.result.toPlainText()


def test_composer_actions_from_the_keyboard(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    window.activateWindow()
    settle(loop)
    for button, keys in (
        (panel.compile_button, "Ctrl+B"),
        (panel.deploy_button, "Ctrl+Shift+D"),
        (panel.call_button, "Ctrl+Return"),
        (panel.send_batch, "Ctrl+Shift+Return"),
        (panel.open_button, "Ctrl+O"),
        (panel.save_button, "Ctrl+S"),
    ):
        assert keys in button.toolTip(), button.objectName()
    panel.editor.setPlainText(KINDS)
    panel.editor.setFocus()
    QTest.keyClick(panel.editor, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    drive(loop, lambda: panel.source_status.text().startswith("✔"))
    panel.deploy_args.editors["start"].set_value(3)
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    QTest.keyClick(panel.editor, Qt.Key.Key_D, ctrl_shift)
    settle(loop)
    sheet = next(d for d in panel.findChildren(ConfirmDialog) if d.isVisible())
    QTest.keyClick(sheet.cancel_button, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)
    drive(loop, lambda: "created Kinds" in panel.result.toPlainText(), 30)
    panel.function.setCurrentIndex(panel.function.findData("peek"))
    panel.function.setFocus()
    window.activateWindow()
    settle(loop)
    QTest.keyClick(panel.function, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    settle(loop)
    sheet = next(
        d for d in panel.findChildren(ConfirmDialog) if shiboken6.isValid(d) and d.isVisible()
    )
    assert "peek" in sheet.request.toPlainText()
    QTest.keyClick(sheet.cancel_button, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)
    drive(loop, lambda: "#0 (uint256) = 3" in panel.result.toPlainText(), 30)
