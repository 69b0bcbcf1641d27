"""The composer's Debug dock on real widgets against a real sandbox node, at 1024x640: Debug
from the Call tab before anything is deployed (the compiled contract's functions, a fresh
deployment on a copy of the state), the dock shown by the run with the stack, the watches
(kept with the workspace) and the variables; closed and reopened from the View menu, its place
kept with the window's state; the Deploy tab's Debug waits for a compile; pause on failure
passes over failures a try/catch catches."""

from __future__ import annotations

import asyncio
from pathlib import Path

import qasync
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDockWidget, QMenu
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.gui.test_composer import compile_source, panel_of
from tests.gui.test_composer_debugger import COUNTER
from tests.gui.test_composer_source import close_window, restarted
from tests.integration.node_fixture import RunningNode

CATCHING = """contract Thrower {
    function boom(uint k) public returns (uint) {
        require(k < 3, "boom");
        return k;
    }
}
contract Catcher {
    Thrower t;
    uint public seen;
    constructor() {
        t = new Thrower();
    }
    function run(uint k) public returns (uint) {
        try t.boom(k) returns (uint v) {
            seen = v;
        } catch {
            seen = 100;
        }
        require(seen < 50, "seen too big");
        return seen;
    }
}
"""


def _contracts_on_chain(loop: qasync.QEventLoop, controller: AppController) -> int:
    client = controller.session.client
    assert client is not None
    rows = loop.run_until_complete(client.json("GET", "/bloc/v2.2/contracts"))
    return len(rows) if isinstance(rows, (list, dict)) else 0


def test_debug_dock_on_a_fresh_deployment_at_1024x640(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    loop.run_until_complete(controller.load_settings())
    connect(loop, controller, node, "alice")
    window.resize(1024, 640)
    panel = panel_of(window)
    dbg = panel.debugger
    # nothing compiled: the Deploy tab's Debug is off, its tooltip says why
    assert not dbg.deploy_debug.isEnabled()
    assert "Compile" in dbg.deploy_debug.toolTip()
    compile_source(loop, panel, COUNTER)
    assert dbg.deploy_debug.isEnabled() and "debugger" in dbg.deploy_debug.toolTip()
    # nothing deployed: the Call tab offers the compiled contract's functions; Call… waits for
    # an address, Debug runs on a fresh deployment (constructor arguments of the Deploy tab)
    assert panel.call_address.text() == ""
    assert panel.function.findData("add") >= 0
    assert not panel.call_button.isEnabled() and "deploy" in panel.call_button.toolTip()
    panel.deploy_args.editors["start"].set_value("10")
    panel.function.setCurrentIndex(panel.function.findData("add"))
    panel.call_args.editors["x"].set_value("21")
    panel.editor.toggle_breakpoint(6)  # total = total + doubled;
    before = _contracts_on_chain(loop, controller)

    # the dock is a window dock, hidden until a run starts; the result area has no Debug tab
    dock = dbg.dock
    assert isinstance(dock, QDockWidget) and not dock.isVisible()
    assert window.dockWidgetArea(dock) == Qt.DockWidgetArea.BottomDockWidgetArea
    assert "Debug" not in [panel.output.tabText(i) for i in range(panel.output.count())]
    assert dock.features() & QDockWidget.DockWidgetFeature.DockWidgetClosable
    assert dock.features() & QDockWidget.DockWidgetFeature.DockWidgetMovable
    qtbot.mouseClick(dbg.debug_button, Qt.MouseButton.LeftButton)
    drive(loop, dock.isVisible)
    drive(loop, lambda: panel.editor.paused_line == 6, 30)
    assert "Counter.add" in dbg.pane.stack_model.data(dbg.pane.stack_model.index(0))
    # watches typed in the dock's entry: values at once, every row on screen without a scroll
    watches = dbg.pane.watches
    for text in ("doubled", "total", "x + 1", "doubled * 2", "msg.sender", "total + doubled"):
        watches.entry.setText(text)
        QTest.keyClick(watches.entry, Qt.Key.Key_Return)
    drive(loop, lambda: watches.value_of("doubled") == "uint256 42")
    drive(loop, lambda: watches.value_of("total") == "uint256 10")  # the fresh deployment's
    loop.run_until_complete(asyncio.sleep(0.2))  # laid out
    tree = watches.tree
    assert tree.isVisible() and not tree.verticalScrollBar().isVisible()
    sixth = tree.topLevelItem(5)
    assert sixth is not None
    last = tree.visualItemRect(sixth)
    assert last.bottom() <= tree.viewport().height()
    for w in (dbg.pane.stack, dbg.pane.variables, dbg.pane.evaluate, dbg.pane.buttons["next"]):
        assert w.isVisible() and w.visibleRegion().boundingRect().height() >= w.height() - 1
    assert panel.compose_actions.visibleRegion().boundingRect().height() > 0  # composer still
    # F5: on to the end, the fresh deployment on a copy: the chain has nothing new
    panel.editor.setFocus()
    QTest.keyClick(panel.editor, Qt.Key.Key_F5)
    drive(loop, lambda: not dbg.service.active, 15)
    assert "✔" in dbg.pane.status.text() and "52" in dbg.pane.status.text()
    assert _contracts_on_chain(loop, controller) == before

    # closed with its title bar's button, back from View > Debugger
    dock.close()
    assert not dock.isVisible()
    view = window.findChild(QMenu, "menuView")
    assert view is not None and window.debug_action in view.actions()
    window.debug_action.trigger()
    assert dock.isVisible()
    # moved to the left: its place and the watches come back with the next start
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
    assert dbg.pane.split.orientation() == Qt.Orientation.Vertical  # a tall dock: rows
    close_window(loop, window)
    loop.run_until_complete(panel.source.flushed())
    again, win = restarted(loop, tmp_path)
    try:
        d2 = panel_of(win).debugger
        drive(loop, lambda: d2.pane.watches.expressions()[:2] == ["doubled", "total"])
        assert len(d2.pane.watches.expressions()) == 6
        assert win.dockWidgetArea(d2.dock) == Qt.DockWidgetArea.LeftDockWidgetArea
        assert d2.dock.isVisible()
    finally:
        close_window(loop, win)
        loop.run_until_complete(again.shutdown())
        win.deleteLater()
        again.deleteLater()


def test_pause_on_failure_passes_over_a_caught_failure(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    dbg = panel.debugger
    compile_source(loop, panel, CATCHING)
    panel.contract.setCurrentText("Catcher")
    drive(loop, lambda: panel.function.findData("run") >= 0)
    panel.function.setCurrentIndex(panel.function.findData("run"))
    panel.call_args.editors["k"].set_value("5")
    assert dbg.pane.pause_on_failure.isChecked()
    dbg.debug()
    # the require in Thrower.boom fails first, caught by the try: the run stops at the
    # require nothing catches, with the catch clause's write visible
    drive(loop, lambda: dbg.service.paused, 30)
    assert panel.editor.paused_line == 19
    assert "seen too big" in dbg.pane.status.text()
    top = dbg.pane.stack_model.data(dbg.pane.stack_model.index(0))
    assert "Catcher.run" in top
    dbg.service.command("stop")
    drive(loop, lambda: not dbg.service.active)
