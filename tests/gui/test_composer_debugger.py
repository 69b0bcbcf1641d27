"""The composer's step debugger against a real sandbox node: a breakpoint set with F9, Debug on
the Call tab, the stack and the lit line at the breakpoint, F10, a local's value in the lazy
variables tree, F5 to the end, and the chain unchanged (the run used a copy of the state)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.client.debug import DebugClient, NoDebugger
from app.services.controller import AppController
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.gui.test_composer import compile_source, confirm, panel_of
from tests.integration.node_fixture import RunningNode

COUNTER = """contract Counter {
    uint public total;
    constructor(uint start) public { total = start; }
    function add(uint x) public returns (uint) {
        uint doubled = x * 2;
        total = total + doubled;
        return total;
    }
}
"""


def _state(
    loop: qasync.QEventLoop, controller: AppController, address: str, name: str = "Counter"
) -> Any:
    client = controller.session.client
    assert client is not None
    return loop.run_until_complete(
        client.json("GET", f"/bloc/v2.2/contracts/{name}/{address}/state")
    )


def test_breakpoint_step_variables_and_run_to_the_end(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    qtmodeltester: Any,
    tmp_path: Path,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, COUNTER)
    assert panel.source_status.text().startswith("✔")
    panel.contract.setCurrentText("Counter")
    panel.deploy_args.editors["start"].set_value("10")
    confirm(loop, panel, panel.deploy())
    address = panel.call_address.text()
    assert len(address) == 40
    before = _state(loop, controller, address)
    assert str(before["total"]) == "10"
    panel.function.setCurrentIndex(panel.function.findData("add"))
    panel.call_args.editors["x"].set_value("21")

    # F9 on line 5 sets a breakpoint (drawn in the gutter); a second F9 would clear it
    editor = panel.editor
    window.activateWindow()
    editor.setFocus()
    cursor = QTextCursor(editor.document().findBlockByNumber(4))
    editor.setTextCursor(cursor)
    QTest.keyClick(editor, Qt.Key.Key_F9)
    assert editor.breakpoints == {5}

    dbg = panel.debugger
    assert dbg.debug_button.isVisible() and dbg.fresh.isChecked()
    qtbot.mouseClick(dbg.debug_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: editor.paused_line == 5, 30)
    stack = dbg.pane.stack_model
    assert stack.rowCount() >= 1
    top = stack.data(stack.index(0))
    assert "Counter.add" in top and ":5)" in top
    assert dbg.pane.buttons["next"].isEnabled()
    assert "Paused" in dbg.pane.status.text()

    # F10: the next line is lit; the local `doubled` now holds 42
    editor.setFocus()
    QTest.keyClick(editor, Qt.Key.Key_F10)
    drive(loop, lambda: editor.paused_line == 6, 15)
    model = dbg.variables
    drive(loop, lambda: model.find("Locals").isValid())
    locals_ix = model.find("Locals")
    if model.canFetchMore(locals_ix):
        model.fetchMore(locals_ix)
    drive(loop, lambda: model.find("doubled", model.find("Locals")).isValid())
    doubled = model.find("doubled", model.find("Locals"))
    value = model.index(doubled.row(), 1, doubled.parent()).data()
    assert "42" in str(value)
    x = model.find("x", model.find("Locals"))
    assert "21" in str(model.index(x.row(), 1, x.parent()).data())
    qtmodeltester.check(model)
    shot = Path(os.environ.get("STRATOSCOPE_SHOTS", tmp_path)) / "debugger-paused.png"
    window.grab().save(str(shot))

    # a breakpoint set while paused reaches the run: F5 stops there
    editor.setFocus()
    editor.setTextCursor(QTextCursor(editor.document().findBlockByNumber(6)))
    QTest.keyClick(editor, Qt.Key.Key_F9)
    assert editor.breakpoints == {5, 7}
    drive(loop, lambda: dbg.breakpoints_sent is not None and dbg.breakpoints_sent.done())
    QTest.keyClick(editor, Qt.Key.Key_F5)
    drive(loop, lambda: dbg.service.paused and editor.paused_line == 7, 15)

    # F5 runs to the end: the call succeeded on its copy; the chain's state is as it was
    QTest.keyClick(editor, Qt.Key.Key_F5)
    drive(loop, lambda: not dbg.service.active, 15)
    assert editor.paused_line is None
    assert "✔" in dbg.pane.status.text() and "returned" in dbg.pane.status.text()
    assert _state(loop, controller, address) == before
    # the finished session is gone from the node (each user may keep only 2)
    client = controller.session.client
    assert client is not None

    async def sessions_left() -> Any:
        for _ in range(100):
            left = await client.json("GET", "/vm-debug/sessions")
            if not left:
                break
            await asyncio.sleep(0.05)
        return left

    assert loop.run_until_complete(sessions_left()) == []


def test_a_node_without_the_debugger_is_named(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop
) -> None:
    """A 404 at POST /vm-debug/sessions reads "this node has no debugger" (a path the sandbox
    does not serve stands in for a node without the routes)."""
    connect(loop, controller, node, "alice")
    assert controller.session.client is not None
    client = DebugClient(controller.session.client)
    import app.client.debug as d

    old = d.BASE
    d.BASE = "/vm-debug-missing/sessions"
    try:
        try:
            loop.run_until_complete(client.start({"source": "contract C {}"}))
        except NoDebugger as exc:
            assert "has no debugger" in str(exc)
        else:
            raise AssertionError("no NoDebugger")
    finally:
        d.BASE = old


def test_breakpoints_are_clicked_in_the_gutter_and_kept_with_the_project(
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    from tests.gui.test_composer_project import click_file, make_project
    from tests.gui.test_composer_source import close_window, restarted

    loop.run_until_complete(controller.load_settings())
    panel = panel_of(window)
    proj = make_project(tmp_path)
    panel.open_folder(proj)
    counter = click_file(loop, panel, qtbot, proj / "lib" / "Counter.sol")
    ed = counter.editor
    block = ed.document().findBlockByNumber(2)
    y = round(ed.blockBoundingGeometry(block).translated(ed.contentOffset()).center().y())
    qtbot.mouseClick(ed.gutter, Qt.MouseButton.LeftButton, pos=ed.gutter.rect().topLeft() + _at(y))
    assert ed.breakpoints == {3}
    panel.source.close_tab(counter)  # closed: its breakpoints stay with the project
    close_window(loop, window)
    loop.run_until_complete(panel.source.flushed())

    again, win = restarted(loop, tmp_path)
    try:
        composer = panel_of(win)
        drive(loop, lambda: composer.project_root() == proj)
        composer.source.open_path(proj / "lib" / "Counter.sol")
        drive(loop, lambda: composer.source.path == proj / "lib" / "Counter.sol")
        assert composer.source.current.editor.breakpoints == {3}
    finally:
        close_window(loop, win)
        loop.run_until_complete(again.shutdown())
        win.deleteLater()
        again.deleteLater()


def _at(y: int) -> Any:
    from PySide6.QtCore import QPoint

    return QPoint(4, y)


STEPS = """contract Steps {
    uint public total;
    function inner(uint a) internal returns (uint) {
        uint b = a + 1;
        return b;
    }
    function outer(uint x) public returns (uint) {
        uint y = inner(x);
        total = y;
        require(y < 5, "too big");
        return y;
    }
}
"""


def test_step_in_out_frames_evaluate_failure_and_stop_at_an_address(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "bob")
    panel = panel_of(window)
    compile_source(loop, panel, STEPS)
    panel.contract.setCurrentText("Steps")
    confirm(loop, panel, panel.deploy())
    address = panel.call_address.text()
    panel.function.setCurrentIndex(panel.function.findData("outer"))
    panel.call_args.editors["x"].set_value("10")
    editor = panel.editor
    editor.toggle_breakpoint(8)
    dbg = panel.debugger
    dbg.fresh.setChecked(False)  # the contract at the address, its state as committed
    assert dbg.launch_body()["address"] == address
    dbg.debug_button.click()
    drive(loop, lambda: editor.paused_line == 8, 30)
    window.activateWindow()
    editor.setFocus()
    QTest.keyClick(editor, Qt.Key.Key_F11)  # step in: inside inner
    drive(loop, lambda: editor.paused_line == 4, 15)
    stack = dbg.pane.stack_model
    assert stack.rowCount() == 2 and "inner" in stack.data(stack.index(0))
    # the caller's frame, clicked: its line lit, its variables shown
    rect = dbg.pane.stack.visualRect(stack.index(1))
    qtbot.mouseClick(dbg.pane.stack.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    drive(loop, lambda: editor.paused_line == 8 and dbg.variables.find("Locals").isValid())
    editor.setFocus()
    QTest.keyClick(editor, Qt.Key.Key_F11, Qt.KeyboardModifier.ShiftModifier)  # step out
    drive(loop, lambda: dbg.service.paused and stack.rowCount() == 1, 15)
    assert editor.paused_line in (8, 9)
    # evaluate in the frame
    dbg.pane.evaluate.setText("x * 3")
    QTest.keyClick(dbg.pane.evaluate, Qt.Key.Key_Return)
    drive(loop, lambda: "30" in dbg.pane.log.toPlainText())
    # F5: the require fails; the run pauses there (pause on failure), before it unwinds
    editor.setFocus()
    QTest.keyClick(editor, Qt.Key.Key_F5)
    drive(loop, lambda: dbg.service.paused and editor.paused_line == 10, 15)
    assert "too big" in dbg.pane.status.text()
    # Shift+F5 stops the session
    editor.setFocus()
    QTest.keyClick(editor, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)
    drive(loop, lambda: not dbg.service.active)
    assert editor.paused_line is None and dbg.pane.status.text().startswith("Stopped")
    assert str(_state(loop, controller, address, "Steps")["total"]) == "0"
