"""The debugger's other entry points and options on real widgets against a real sandbox node:
Debug on a test of the Tests view (its file bundled as the test runner bundles it, stopping at
the breakpoints of an imported file not open), the pause-on-failure switch, a conditional
breakpoint set from the gutter's menu, watches, and breakpoints that move with their line as text is
inserted or removed above them."""

from __future__ import annotations

import os
from pathlib import Path

import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import ComposerAs, OpenTests, drive
from tests.gui.test_composer import compile_source, confirm, panel_of


def test_debug_a_test_from_the_tests_view(
    window: MainWindow,
    loop: qasync.QEventLoop,
    tests_project: Path,
    open_tests: OpenTests,
) -> None:
    root = tests_project
    test_file = root / "counter_test.sol"
    panel, view = open_tests(test_file)
    editor = panel.source.current.editor
    editor.toggle_breakpoint(16)  # counter.inc(); in it_increments
    # a breakpoint of the imported file, kept with the project (its tab not open)
    lib = str(root / "lib" / "Counter.sol")
    panel.source.kept_breakpoints[lib] = [7]
    index = view.index_of_test("Describe_Counter.it_increments")
    view.tree.setCurrentIndex(index)
    node_row = view.selected_node()
    assert node_row is not None
    menu = view.context_menu(node_row)
    debug = next(a for a in menu.actions() if a.text() == "Debug")
    assert debug.isEnabled()
    debug.trigger()
    dbg = panel.debugger
    drive(loop, lambda: dbg.service.paused and editor.paused_line == 16, 30)
    assert dbg.dock.isVisible()
    assert window.dockWidgetArea(dbg.dock) == Qt.DockWidgetArea.BottomDockWidgetArea
    stack = dbg.pane.stack_model
    assert "Describe_Counter.it_increments" in stack.data(stack.index(0))
    # F5: on to the imported file's breakpoint; its file opens with the line lit
    window.activateWindow()
    editor.setFocus()
    QTest.keyClick(editor, Qt.Key.Key_F5)
    drive(loop, lambda: dbg.service.paused and panel.source.path == root / "lib" / "Counter.sol")
    drive(loop, lambda: panel.source.current.editor.paused_line == 7)
    assert "Counter.inc" in stack.data(stack.index(0))
    dbg.service.command("continue")
    drive(loop, lambda: not dbg.service.active, 30)
    assert "✔" in dbg.pane.status.text()

    # a contract row cannot be debugged (only a test); Shift+Enter on a test row debugs it
    contract = view.selected_node()
    assert contract is not None and contract.parent is not None
    parent_menu = view.context_menu(contract.parent)
    assert not next(a for a in parent_menu.actions() if a.text() == "Debug").isEnabled()
    view.tree.setCurrentIndex(view.index_of_test("Describe_Counter.it_cannot_go_below_zero"))
    view.tree.setFocus()
    QTest.keyClick(view.tree, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    # the require fails in the imported file: paused there (pause on failure, the default)
    drive(loop, lambda: dbg.service.paused and "count is zero" in dbg.pane.status.text(), 30)
    assert not view.service.running  # debugged, not run
    dbg.service.command("stop")
    drive(loop, lambda: not dbg.service.active)


LOOP = """contract Loop {
    uint public total;
    function sum(uint n) public returns (uint) {
        for (uint i = 0; i < n; i++) {
            total = total + i;
        }
        require(total < 5, "too much");
        return total;
    }
}
"""


def test_pause_on_failure_switch_and_a_conditional_breakpoint(
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    composer_as: ComposerAs,
) -> None:
    panel = composer_as("bob")
    compile_source(loop, panel, LOOP)
    panel.contract.setCurrentText("Loop")
    confirm(loop, panel, panel.deploy())
    panel.function.setCurrentIndex(panel.function.findData("sum"))
    panel.call_args.editors["n"].set_value("6")
    dbg = panel.debugger
    assert dbg.pane.pause_on_failure.isChecked()

    # pause on failure off: the failing call runs to its end
    dbg.pane.pause_on_failure.setChecked(False)
    assert dbg.launch_body()["pauseOnFailure"] is False
    dbg.debug_button.click()
    drive(loop, lambda: dbg.service.active, 10)
    drive(loop, lambda: not dbg.service.active, 30)
    assert "✘" in dbg.pane.status.text() and "too much" in dbg.pane.status.text()
    dbg.pane.pause_on_failure.setChecked(True)

    # a conditional breakpoint from the gutter's menu: stops only when i == 3
    editor = panel.editor
    menu = editor.breakpoint_menu(5)
    add = next(a for a in menu.actions() if a.text().startswith("Add conditional"))
    add.trigger()
    dialog = editor.condition_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.setTextValue("i == 3")
    dialog.accept()
    assert editor.breakpoints == {5} and editor.conditions == {5: "i == 3"}
    # kept with the project beside its line
    assert panel.source.kept_breakpoints[""] == [[5, "i == 3"]]
    body = dbg.launch_body()
    assert body["breakpoints"] == [
        {"file": body["files"][0]["name"], "line": 5, "condition": "i == 3"}
    ]
    dbg.debug_button.click()
    drive(loop, lambda: dbg.service.paused and editor.paused_line == 5, 30)
    dbg.pane.evaluate.setText("i")
    QTest.keyClick(dbg.pane.evaluate, Qt.Key.Key_Return)
    drive(loop, lambda: "= uint256 3" in dbg.pane.log.toPlainText() or "3" in _last(dbg))
    assert _last(dbg).endswith("3")
    # watches: evaluated in the selected frame at once and again at every stop
    watches = dbg.pane.watches
    for expression in ("i * 10", "total"):
        watches.entry.setText(expression)
        QTest.keyClick(watches.entry, Qt.Key.Key_Return)
    drive(loop, lambda: (watches.value_of("total") or "").endswith(" 3"))
    assert (watches.value_of("i * 10") or "").endswith(" 30")
    shots = Path(os.environ.get("STRATOSCOPE_SHOTS", tmp_path))
    window.resize(1280, 1000)
    drive(loop, lambda: True)
    window.grab().save(str(shots / "debugger-watches.png"))
    # the condition, edited from the menu of the breakpoint's dot
    menu = editor.breakpoint_menu(5)
    assert [a.text() for a in menu.actions()] == ["Condition…", "Remove breakpoint"]
    # F5: the condition holds no more; the require fails and the run pauses there
    window.activateWindow()
    editor.setFocus()
    QTest.keyClick(editor, Qt.Key.Key_F5)
    drive(loop, lambda: dbg.service.paused and editor.paused_line == 7, 30)
    drive(loop, lambda: (watches.value_of("total") or "").endswith(" 15"))
    watches.tree.setCurrentItem(watches.items()[0])
    watches.tree.setFocus()
    QTest.keyClick(watches.tree, Qt.Key.Key_Delete)
    assert watches.expressions() == ["total"]
    dbg.service.command("stop")
    drive(loop, lambda: not dbg.service.active)

    # the switch turned off during a run reaches it: the failure ends the run, no pause
    dbg.debug_button.click()
    drive(loop, lambda: dbg.service.paused and editor.paused_line == 5, 30)
    dbg.pane.pause_on_failure.setChecked(False)
    sent = dbg.service.option_sent
    drive(loop, lambda: sent is not None and sent.done())
    dbg.service.command("continue")
    drive(loop, lambda: not dbg.service.active, 30)
    assert "too much" in dbg.pane.status.text() and "✘" in dbg.pane.status.text()
    assert watches.value_of("total") == "(not paused)"


def _last(dbg: object) -> str:
    from app.ui.panels.composer.debug_dock import ComposerDebugger

    assert isinstance(dbg, ComposerDebugger)
    lines = dbg.pane.log.toPlainText().strip().splitlines()
    return lines[-1] if lines else ""


def test_breakpoints_move_with_their_lines(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    panel = panel_of(window)
    editor = panel.editor
    editor.setPlainText("a\nb\nc\nd\ne\nf\n")
    editor.toggle_breakpoint(3)
    editor.set_condition(5, "x > 1")
    assert editor.breakpoints == {3, 5}
    # two lines typed at the top: both move down with their text
    editor.setFocus()
    editor.setTextCursor(QTextCursor(editor.document().findBlockByNumber(0)))
    QTest.keyClicks(editor, "new")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    QTest.keyClicks(editor, "two")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    assert editor.breakpoints == {5, 7} and editor.conditions == {7: "x > 1"}
    assert editor.document().findBlockByNumber(4).text() == "c"
    assert panel.source.kept_breakpoints[""] == [5, [7, "x > 1"]]
    # Enter at the start of the breakpoint's line: it stays with its text
    editor.setTextCursor(QTextCursor(editor.document().findBlockByNumber(4)))
    QTest.keyClick(editor, Qt.Key.Key_Return)
    assert editor.breakpoints == {6, 8}
    # a line removed above: they move up
    cursor = QTextCursor(editor.document().findBlockByNumber(0))
    cursor.movePosition(QTextCursor.MoveOperation.Down, QTextCursor.MoveMode.KeepAnchor)
    editor.setTextCursor(cursor)
    QTest.keyClick(editor, Qt.Key.Key_Delete)
    assert editor.breakpoints == {5, 7} and editor.conditions == {7: "x > 1"}
    assert editor.document().findBlockByNumber(4).text() == "c"
    # the gutter draws the conditional one differently (orange): a pixel of each dot
    editor.resize(400, 300)
    editor.show()
    loop.run_until_complete(_idle())
    image = editor.gutter.grab().toImage()
    colours = {image.pixelColor(x, y).name() for x in range(image.width()) for y in range(120)}
    assert "#d0312d" in colours and "#e67e22" in colours


async def _idle() -> None:
    import asyncio

    await asyncio.sleep(0.1)


OWNED = """contract Owned {
    uint public total;
    constructor(uint start) public {
        uint twice = start * 2;
        total = twice;
    }
}
"""


def test_debug_the_constructor_from_the_deploy_tab(
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    composer_as: ComposerAs,
) -> None:
    panel = composer_as("carol")
    compile_source(loop, panel, OWNED)
    panel.contract.setCurrentText("Owned")
    panel.deploy_args.editors["start"].set_value("7")
    editor = panel.editor
    editor.toggle_breakpoint(5)
    dbg = panel.debugger
    panel.tabs.setCurrentIndex(0)  # the Deploy tab: its Debug beside Deploy…
    assert dbg.deploy_debug.isVisible()
    qtbot.mouseClick(dbg.deploy_debug, Qt.MouseButton.LeftButton)
    drive(loop, lambda: dbg.service.paused and editor.paused_line == 5, 30)
    stack = dbg.pane.stack_model
    assert "Owned" in stack.data(stack.index(0))
    watches = dbg.pane.watches
    watches.add("twice + start")
    drive(loop, lambda: (watches.value_of("twice + start") or "").endswith(" 21"))
    dbg.service.command("continue")
    drive(loop, lambda: not dbg.service.active, 30)
    assert "✔" in dbg.pane.status.text()


def test_a_text_replaced_whole_keeps_the_breakpoints_on_their_numbers(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    """A file loaded again (setPlainText) is no edit above the breakpoints: they stay on their
    line numbers, and what is kept with the project is not touched."""
    panel = panel_of(window)
    editor = panel.editor
    editor.setPlainText("a\nb\nc\nd\n")
    editor.toggle_breakpoint(3)
    changes: list[set[int]] = []
    editor.breakpoints_changed.connect(lambda: changes.append(editor.breakpoints))
    editor.setPlainText("w\nx\ny\nz\n")
    assert editor.breakpoints == {3} and changes == []
    assert panel.source.kept_breakpoints[""] == [3]


def test_right_click_on_a_dot_sets_its_condition(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    """The gutter's real context menu (right-click at the dot's height), its Condition…, the
    dialog's OK."""
    from PySide6.QtCore import QPoint, QTimer
    from PySide6.QtWidgets import QApplication, QMenu

    panel = panel_of(window)
    window.show()
    editor = panel.editor
    editor.setPlainText("a\nb\nc\nd\n")
    editor.toggle_breakpoint(2)
    block = editor.document().findBlockByNumber(1)
    y = round(editor.blockBoundingGeometry(block).translated(editor.contentOffset()).center().y())
    chosen: list[str] = []

    def pick() -> None:
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu)
        chosen.extend(a.text() for a in menu.actions())
        action = next(a for a in menu.actions() if a.text() == "Condition…")
        menu.close()
        action.trigger()

    QTimer.singleShot(50, pick)
    gutter = editor.gutter
    at = QPoint(4, y)
    from PySide6.QtGui import QContextMenuEvent

    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at, gutter.mapToGlobal(at))
    QApplication.sendEvent(gutter, event)
    assert chosen == ["Condition…", "Remove breakpoint"]
    dialog = editor.condition_dialog
    assert dialog is not None
    dialog.setTextValue("count > 2")
    dialog.accept()
    assert editor.conditions == {2: "count > 2"}
    assert panel.source.kept_breakpoints[""] == [[2, "count > 2"]]
