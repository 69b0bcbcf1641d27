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
from app.ui.panels.composer.panel import ComposerPanel
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.gui.test_composer import compile_source, confirm, panel_of
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


def _paused(
    loop: qasync.QEventLoop, controller: AppController, window: MainWindow, node: RunningNode
) -> ComposerPanel:
    """Counter compiled (nothing deployed), add(21) debugged from the Call tab on a fresh
    deployment (start 10), paused at its breakpoint on line 6."""
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, COUNTER)
    panel.deploy_args.editors["start"].set_value("10")
    panel.function.setCurrentIndex(panel.function.findData("add"))
    panel.call_args.editors["x"].set_value("21")
    panel.editor.toggle_breakpoint(6)  # total = total + doubled;
    panel.debugger.debug_button.click()
    drive(loop, lambda: panel.editor.paused_line == 6, 30)
    return panel


def test_deploy_debug_waits_for_a_compile(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    dbg = panel.debugger
    # nothing compiled: the Deploy tab's Debug is off, its tooltip says why
    assert not dbg.deploy_debug.isEnabled()
    assert "Compile a contract first" in dbg.deploy_debug.toolTip()
    compile_source(loop, panel, COUNTER)
    assert dbg.deploy_debug.isEnabled() and "debugger" in dbg.deploy_debug.toolTip()
    # a compile that fails leaves nothing new to debug: the last build's contract still is
    compile_source(loop, panel, "contract Broken {")
    assert panel.source_status.text().startswith("✘")
    assert dbg.deploy_debug.isEnabled()


def test_call_tab_debugs_the_compiled_contract_before_any_deployment(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    dbg = panel.debugger
    compile_source(loop, panel, COUNTER)
    # nothing deployed: the Call tab offers the compiled contract's functions; Call… waits for
    # an address (its tooltip says so), Debug runs on a fresh deployment on a copy of the
    # state, its constructor arguments those of the Deploy tab (named on the Call tab)
    assert panel.call_address.text() == "" and panel.call_name.text() == "Counter"
    assert panel.function.findData("add") >= 0
    panel.function.setCurrentIndex(panel.function.findData("add"))
    panel.call_args.editors["x"].set_value("21")
    assert not panel.call_button.isEnabled() and "deploy" in panel.call_button.toolTip()
    panel.deploy_args.editors["start"].set_value("10")
    note = dbg.fresh_note
    assert dbg.call_form.isRowVisible(note) and "Counter</b>(start: 10)" in note.text()
    # its link opens the Deploy tab at the constructor's field
    note.linkActivated.emit("constructor")
    assert panel.tabs.currentIndex() == 0
    panel.tabs.setCurrentIndex(1)
    before = _contracts_on_chain(loop, controller)
    panel.editor.toggle_breakpoint(6)
    qtbot.mouseClick(dbg.debug_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: panel.editor.paused_line == 6, 30)
    assert "Counter.add" in dbg.pane.stack_model.data(dbg.pane.stack_model.index(0))
    assert dbg.service.paused
    dbg.service.command("continue")
    drive(loop, lambda: not dbg.service.active, 15)
    assert "✔" in dbg.pane.status.text() and "52" in dbg.pane.status.text()
    assert "Counter.add returned ['52']" in dbg.pane.log.toPlainText()  # as written
    assert _contracts_on_chain(loop, controller) == before  # a copy: nothing deployed
    # an address typed in: Call… is on, the note goes with the fresh-deployment option
    panel.call_address.setText("ab" * 20)
    assert panel.call_button.isEnabled()
    dbg.fresh.setChecked(False)
    assert not dbg.call_form.isRowVisible(note)


def test_debug_dock_at_1024x640(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    window.resize(1024, 640)
    dock = panel_of(window).debugger.dock
    # a window dock, hidden until a run starts; the result area has no Debug tab
    assert isinstance(dock, QDockWidget) and not dock.isVisible()
    assert window.dockWidgetArea(dock) == Qt.DockWidgetArea.BottomDockWidgetArea
    assert dock.features() & QDockWidget.DockWidgetFeature.DockWidgetClosable
    assert dock.features() & QDockWidget.DockWidgetFeature.DockWidgetMovable
    panel = _paused(loop, controller, window, node)
    dbg = panel.debugger
    assert "Debug" not in [panel.output.tabText(i) for i in range(panel.output.count())]
    assert dock.isVisible()
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
    assert tree.visualItemRect(sixth).bottom() <= tree.viewport().height()
    for w in (dbg.pane.stack, dbg.pane.variables, dbg.pane.evaluate, dbg.pane.buttons["next"]):
        assert w.isVisible() and w.visibleRegion().boundingRect().height() >= w.height() - 1
    # the composer keeps room: the editor shows its lines, the Call form's buttons show
    assert panel.editor.viewport().height() >= 8 * panel.editor.fontMetrics().lineSpacing()
    assert panel.compose_actions.visibleRegion().boundingRect().height() > 0
    # F10 with the focus in the dock steps too
    watches.entry.setFocus()
    QTest.keyClick(watches.entry, Qt.Key.Key_F10)
    drive(loop, lambda: panel.editor.paused_line == 7, 15)
    # closed with its title bar's button, back from View > Debugger
    dock.close()
    assert not dock.isVisible()
    view = window.findChild(QMenu, "menuView")
    assert view is not None and window.debug_action in view.actions()
    window.debug_action.trigger()
    assert dock.isVisible()
    # docked at a side it is tall: the columns become rows
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
    assert dbg.pane.split.orientation() == Qt.Orientation.Vertical
    # its buttons on two rows: it leaves the composer most of a 1024-pixel window
    assert dbg.pane.minimumSizeHint().width() < 420
    drive(loop, lambda: dbg.pane.buttons["stepOut"].y() > dbg.pane.buttons["continue"].y())
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    assert dbg.pane.split.orientation() == Qt.Orientation.Horizontal
    drive(loop, lambda: dbg.pane.buttons["stepOut"].y() == dbg.pane.buttons["continue"].y())
    dbg.service.command("stop")
    drive(loop, lambda: not dbg.service.active)


def test_dock_place_and_watches_come_back_with_the_next_start(
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
) -> None:
    loop.run_until_complete(controller.load_settings())
    panel = panel_of(window)
    dbg = panel.debugger
    for text in ("doubled", "total + 1"):
        dbg.pane.watches.entry.setText(text)
        QTest.keyClick(dbg.pane.watches.entry, Qt.Key.Key_Return)
    dbg.dock.show()
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dbg.dock)
    close_window(loop, window)
    loop.run_until_complete(panel.source.flushed())
    again, win = restarted(loop, tmp_path)
    try:
        d2 = panel_of(win).debugger
        drive(loop, lambda: d2.pane.watches.expressions() == ["doubled", "total + 1"])
        drive(loop, d2.dock.isVisible)
        assert win.dockWidgetArea(d2.dock) == Qt.DockWidgetArea.LeftDockWidgetArea
        # a watch removed is gone from what is kept
        first = d2.pane.watches.tree.topLevelItem(0)
        assert first is not None
        d2.pane.watches.tree.setCurrentItem(first)
        QTest.keyClick(d2.pane.watches.tree, Qt.Key.Key_Delete)
        assert panel_of(win).source.kept_watches == ["total + 1"]
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
    confirm(loop, panel, panel.deploy())  # (its functions on the Call tab)
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
