"""**Re-run in the debugger** from the transaction inspector, on real widgets and a real node: the
button (reached with the keyboard) opens the composer on the code's source (a project file with
the same text, else the app's copy of the node's) and the run pauses at entry on the state just
before the transaction; F5 runs it to the same result; refusals are said in the node's words."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.services.tx_rerun import source_file
from app.ui.panels.composer import rerun as rerun_module
from app.ui.panels.composer.panel import ComposerPanel
from app.ui.panels.explorer.panel import ExplorerPanel
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.gui.test_composer import panel_of
from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit, transfer_tx

COUNTER = """contract Counter {
    uint public count;
    uint[] public log;
    constructor(uint start) public { count = start; }
    function bump(uint by) public returns (uint) {
        uint old = count;
        count = count + by;
        log.push(count);
        return old * 1000 + log.length;
    }
}
"""
ENTRY_LINE = 6  # uint old = count;


@pytest.fixture
def copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The app's copies of node sources, in the test's folder (not the user's data folder)."""
    folder = tmp_path / "copies"
    monkeypatch.setattr(rerun_module, "copies_folder", lambda: folder)
    return folder


def _history(node: RunningNode) -> tuple[str, str]:
    """Counter at 5; one block bumps by 1 then 2 (H); later blocks bump by 10 and 20."""
    alice = node.client("alice")
    addr = deploy(alice, "Counter", COUNTER, {"start": 5})
    first, target = submit(
        alice, call_tx(addr, "bump", {"by": 1}), call_tx(addr, "bump", {"by": 2})
    )
    assert first["txResult"]["blockHash"] == target["txResult"]["blockHash"]
    for by in (10, 20):
        submit(alice, call_tx(addr, "bump", {"by": by}))
    assert target["data"]["contents"] == ["6002"]
    return addr, str(target["hash"])


def test_rerun_from_the_inspector_pauses_on_the_old_state(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    copies: Path,
    tmp_path: Path,
) -> None:
    connect(loop, controller, node, "alice")
    addr, h = _history(node)
    dialog = window.open_transaction(h)
    button = dialog.inspector.rerun_button
    drive(loop, button.isEnabled, 30)
    # keyboard: Tab from the hash field's Show button reaches it; Space presses it
    dialog.activateWindow()
    dialog.inspector.load_button.setFocus()
    QTest.keyClick(dialog.inspector.load_button, Qt.Key.Key_Tab)
    assert dialog.focusWidget() is button
    QTest.keyClick(button, Qt.Key.Key_Space)

    panel = next(p for p in window.panels if isinstance(p, ComposerPanel))
    drive(loop, lambda: window.stack.currentWidget() is panel, 5)  # the composer in front
    dbg = panel.debugger
    drive(loop, lambda: dbg.service.paused, 30)
    editor = panel.editor
    doc = next(d for d in panel.source.tabs.documents() if d.editor is editor)
    assert doc.path is not None and doc.path.is_relative_to(copies)  # the node's source, a copy
    assert doc.text == COUNTER
    drive(loop, lambda: editor.paused_line == ENTRY_LINE, 15)
    shown = dbg.pane.log.toPlainText()
    assert f"Counter.bump as transaction {h[:10]}" in shown
    assert "(the node's source; nothing reaches the chain)" in shown  # not &#x27;
    assert "Counter.bump" in str(dbg.pane.stack_model.data(dbg.pane.stack_model.index(0)))
    assert dbg.dock.isVisible()  # the window's Debug dock shows the re-run
    # the state just before the transaction (the block's earlier one counted, later ones not)
    for expr, want in (("count", "6"), ("log.length", "1"), ("by", "2")):
        got = loop.run_until_complete(dbg.service.evaluate(expr, 1))
        assert str(got["result"]) == want, (expr, got)
    shot = Path(os.environ.get("STRATOSCOPE_SHOTS", tmp_path)) / "tx-rerun-paused.png"
    window.grab().save(str(shot))
    # F5: the same result as the transaction's; nothing reached the chain
    dialog.close()
    window.activateWindow()
    editor.setFocus()
    QTest.keyClick(editor, Qt.Key.Key_F5)
    drive(loop, lambda: not dbg.service.active, 15)
    assert "✔" in dbg.pane.status.text() and "6002" in dbg.pane.status.text()
    state = node.client("alice").get(f"/bloc/v2.2/contracts/Counter/{addr}/state").json()
    assert state["count"] == "38"


def test_a_project_file_with_the_same_text_is_used_and_its_breakpoint_stops_the_run(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    copies: Path,
    tmp_path: Path,
) -> None:
    connect(loop, controller, node, "alice")
    _addr, h = _history(node)
    project = tmp_path / "project"
    (project / "contracts").mkdir(parents=True)
    mine = project / "contracts" / "Counter.sol"
    mine.write_text(COUNTER)
    (project / "Other.sol").write_text("contract Other {}\n")
    panel = panel_of(window)
    panel.source.sidebar.set_root(project)
    panel.source.kept_breakpoints[str(mine)] = [8]  # log.push(count);
    window.rerun_transaction(h)
    dbg = panel.debugger
    drive(loop, lambda: dbg.service.paused, 30)
    drive(loop, lambda: panel.editor.paused_line == 8, 15)
    doc = next(d for d in panel.source.tabs.documents() if d.editor is panel.editor)
    assert doc.path == mine
    got = loop.run_until_complete(dbg.service.evaluate("count", 1))
    assert str(got["result"]) == "8"  # this run's own write (6 + 2)
    loop.run_until_complete(dbg.service.client.stop())  # type: ignore[union-attr]
    assert not copies.exists()


def test_refusals_are_said(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    copies: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    connect(loop, controller, node, "alice")
    (tr,) = submit(node.client("alice"), transfer_tx(node.address("bob"), 1))
    dialog = window.open_transaction(tr["hash"])
    drive(
        loop,
        lambda: dialog.inspector.details is not None and dialog.inspector.load_button.isEnabled(),
        30,
    )
    assert not dialog.inspector.rerun_button.isEnabled()
    assert "transfer" in dialog.inspector.rerun_button.toolTip()
    dialog.close()
    panel = panel_of(window)
    window.rerun_transaction("ab" * 32)
    status = panel.debugger.pane.status
    drive(loop, lambda: "unknown transaction" in status.text(), 15)
    window.rerun_transaction(tr["hash"])
    drive(loop, lambda: "runs no contract code" in status.text(), 15)
    # a node without the routes (a path the sandbox does not serve stands in for one)
    import app.client.debug as d

    monkeypatch.setattr(d, "TX_PATH", "/vm-debug-missing/transaction")
    window.rerun_transaction(tr["hash"])
    drive(loop, lambda: "cannot re-run transactions in a debugger" in status.text(), 15)


def test_the_source_file_search(tmp_path: Path) -> None:
    text = "contract A {}\n"
    (tmp_path / "p" / "sub").mkdir(parents=True)
    (tmp_path / "p" / "x.sol").write_text(text)
    (tmp_path / "p" / "sub" / "A.sol").write_text(text)
    (tmp_path / "p" / ".hidden").mkdir()
    got: Any = source_file(text, "A.sol", tmp_path / "p", {}, tmp_path / "c")
    assert got == (tmp_path / "p" / "sub" / "A.sol", True)  # the same name first
    assert source_file(text, "A.sol", None, {"/x/y.sol": text}, tmp_path / "c") == (
        Path("/x/y.sol"),
        True,
    )
    path, mine = source_file(text + " ", "A.sol", tmp_path / "p", {}, tmp_path / "c")
    assert not mine and path.read_text() == text + " " and path.name == "A.sol"
    assert source_file(text + " ", "A.sol", None, {}, tmp_path / "c") == (path, False)


def test_the_explorers_inspector_reruns_too(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    copies: Path,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    _addr, h = _history(node)
    explorer = next(p for p in window.panels if isinstance(p, ExplorerPanel))
    window.nav.setCurrentRow(window.panels.index(explorer))
    explorer.show_transaction(h)
    button = explorer.detail.inspector.rerun_button
    drive(loop, button.isEnabled, 30)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    panel = next(p for p in window.panels if isinstance(p, ComposerPanel))
    drive(loop, lambda: panel.debugger.service.paused, 30)
    assert window.stack.currentWidget() is panel  # the composer came to the front
    assert panel.editor.paused_line == ENTRY_LINE
    loop.run_until_complete(panel.debugger.service.client.stop())  # type: ignore[union-attr]
