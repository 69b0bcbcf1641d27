"""The composer's Tests view on a real sandbox node with the real runner: the tree, Run all /
Run selected, a failure's message and the jump to its line, the transactions' links, Stop, run on
save, a compile error in an imported file, and the model under qtmodeltester."""

from __future__ import annotations

from pathlib import Path

import qasync
from PySide6.QtCore import QModelIndex, QSize, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

from app.client.test_runner import CompileFailure
from app.services.controller import AppController
from app.ui.panels.composer.tests_model import FAILED, NOT_RUN, PASSED, TestNode
from app.ui.panels.composer.tests_view import TestsView
from app.ui.shell.main_window import MainWindow
from app.ui.shell.tx_inspector import TxInspectorDialog
from tests.gui.conftest import ComposerAs, OpenTests, click_link, drive, reveal
from tests.gui.test_composer import panel_of, settle

EXPECTED = {
    "Describe_Counter.it_increments": PASSED,
    "Describe_Counter.it_cannot_go_below_zero": FAILED,
    "Describe_Counter.it_returns_false": FAILED,
    "Describe_Counter.property_adds_up": PASSED,
    "Describe_Other.it_passes": PASSED,
    "Describe_Other.it_sees_shared_state": PASSED,
}


def statuses(view: TestsView) -> dict[str, str]:
    return {t.key: t.status for t in view.model.all_tests()}


def click_row(qtbot: QtBot, view: TestsView, index: QModelIndex, double: bool = False) -> None:
    view.tree.scrollTo(index)
    at = view.tree.visualRect(index).center()
    if double:  # QTest's double-click lacks the press an item view needs first
        qtbot.mousePress(view.tree.viewport(), Qt.MouseButton.LeftButton, pos=at)
        qtbot.mouseDClick(view.tree.viewport(), Qt.MouseButton.LeftButton, pos=at)
    else:
        qtbot.mouseClick(view.tree.viewport(), Qt.MouseButton.LeftButton, pos=at)


def run_all(loop: qasync.QEventLoop, qtbot: QtBot, view: TestsView) -> None:
    qtbot.mouseClick(view.run_all_button, Qt.MouseButton.LeftButton)
    assert view.service.running
    drive(loop, lambda: not view.service.running, 60)


def test_tree_lists_the_contracts_and_tests_of_the_folder(
    qtmodeltester: object,
    tests_project: Path,
    open_tests: OpenTests,
) -> None:
    root = tests_project
    _panel, view = open_tests(root / "other_test.sol")
    model = view.model
    qtmodeltester.check(model)  # type: ignore[attr-defined]
    qtmodeltester.check(view.proxy)  # type: ignore[attr-defined]
    files = [model.data(model.index_of(f)) for f in model.files()]
    assert files == ["counter_test.sol", "other_test.sol"]  # lib/Counter.sol has no tests
    counter = model.files()[0].children[0]
    assert counter.key == "Describe_Counter"
    assert [model.data(model.index_of(t)) for t in counter.children] == [
        "it_increments",
        "it_cannot_go_below_zero",
        "it_returns_false",
        "property_adds_up",
    ]
    assert model.data(model.index_of(counter, 1)) == "4 tests"
    assert set(statuses(view).values()) == {NOT_RUN}
    assert view.folder_label.text() == "project"
    # the filter keeps matching tests and the contracts and files above them
    view.filter.setText("false")
    assert view.proxy.rowCount() == 1
    shown = view.index_of_test("Describe_Counter.it_returns_false")
    assert shown.isValid() and view.tree.isExpanded(shown.parent())
    view.filter.clear()
    assert view.proxy.rowCount() == 2


def test_at_1024x640_the_tests_get_the_room_deploy_and_call_steps_aside(
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tests_project: Path,
    open_tests: OpenTests,
) -> None:
    window.resize(1024, 640)
    panel, view = open_tests(tests_project / "counter_test.sol")
    settle(loop)
    assert window.size() == QSize(1024, 640)
    # the editor and Deploy & call at their narrowest leave no room: Deploy & call steps aside
    assert view.width() >= view.preferred_width() and not panel.deploy_button.isVisible()
    assert panel.editor.isVisible() and not view.tree.isColumnHidden(1)
    room = view.tree.columnWidth(0) - 3 * view.tree.indentation()
    assert room >= view.fontMetrics().horizontalAdvance("it_sees_shared_state")
    qtbot.mouseClick(
        panel.sidebar.tabBar(),
        Qt.MouseButton.LeftButton,
        pos=panel.sidebar.tabBar().tabRect(0).center(),
    )  # Files in front: Deploy & call is back
    settle(loop)
    assert panel.deploy_button.isVisible()
    reveal(qtbot, view)
    settle(loop)
    assert not panel.deploy_button.isVisible()
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    window.activateWindow()
    QTest.keyClick(view.tree, Qt.Key.Key_D, ctrl_shift)  # Deploy (Ctrl+Shift+D) brings it back
    settle(loop)
    assert panel.deploy_button.isVisible() and window.size() == QSize(1024, 640)
    window.resize(1020, 640)  # and stays while the window changes
    settle(loop)
    assert panel.deploy_button.isVisible()
    window.resize(1024, 640)
    # a wide window has room for all three
    qtbot.mouseClick(
        panel.sidebar.tabBar(),
        Qt.MouseButton.LeftButton,
        pos=panel.sidebar.tabBar().tabRect(0).center(),
    )
    reveal(qtbot, view)
    settle(loop)
    assert not panel.deploy_button.isVisible()
    window.resize(1600, 1000)
    settle(loop)
    assert panel.deploy_button.isVisible() and view.width() >= view.preferred_width()


def test_run_all_shows_each_result_and_the_counts(
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    qtmodeltester: object,
    tests_project: Path,
    open_tests: OpenTests,
) -> None:
    _panel, view = open_tests(tests_project / "counter_test.sol")
    qtmodeltester.check(view.model)  # type: ignore[attr-defined]  # and it watches the run
    run_all(loop, qtbot, view)
    assert statuses(view) == EXPECTED
    assert view.summary.text().startswith("4 passed, 2 failed in ")
    assert (view.progress.value(), view.progress.maximum()) == (6, 6)
    assert view.progress.text() == "6/6"
    model = view.model
    counter, other = (f.children[0] for f in model.files())
    assert model.data(model.index_of(counter, 1)) == "2 failed"
    assert model.data(model.index_of(counter, 0), Qt.ItemDataRole.ToolTipRole) == (
        "2/4 passed, 2 failed"
    )
    assert model.data(model.index_of(other, 1)) == "2/2 passed"
    assert model.data(model.index_of(other, 2)).endswith(" s")
    assert view.first_result_at is not None and view.first_result_at < 10


def test_a_failure_shows_its_message_and_its_location_jumps_to_the_line(
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tests_project: Path,
    open_tests: OpenTests,
) -> None:
    root = tests_project
    panel, view = open_tests(root / "other_test.sol")
    run_all(loop, qtbot, view)
    click_row(qtbot, view, view.index_of_test("Describe_Counter.it_cannot_go_below_zero"))
    assert view.selected_node() is not None
    text = view.detail.toPlainText()
    # the require that failed, in the imported file, as the node reported it
    assert "count is zero" in text and "failed at lib/Counter.sol:11" in text
    href = click_link(qtbot, view.detail, "loc:")
    assert href.endswith("lib/Counter.sol:11")
    # the other file is in front: the jump opens the imported file at the failing line
    drive(loop, lambda: panel.source.path == root / "lib" / "Counter.sol")
    drive(loop, lambda: panel.editor.textCursor().blockNumber() + 1 == 11)
    assert 'require(count > 0, "count is zero")' in panel.editor.textCursor().block().text()
    # a double-click on a test opens its source too
    click_row(qtbot, view, view.index_of_test("Describe_Counter.property_adds_up"), double=True)
    drive(loop, lambda: panel.editor.textCursor().blockNumber() + 1 == 29)


def test_run_selected_runs_only_that_test(
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tests_project: Path,
    open_tests: OpenTests,
) -> None:
    _panel, view = open_tests(tests_project / "counter_test.sol")
    click_row(qtbot, view, view.index_of_test("Describe_Counter.it_returns_false"))
    qtbot.keyClick(view.tree, Qt.Key.Key_Return)  # Enter runs the selected test
    assert view.service.running
    drive(loop, lambda: not view.service.running, 60)
    got = statuses(view)
    assert got.pop("Describe_Counter.it_returns_false") == FAILED
    assert set(got.values()) == {NOT_RUN}
    assert view.summary.text().startswith("0 passed, 1 failed")
    assert "returned false" in view.detail.toPlainText()
    # the button does the same for a whole contract
    click_row(qtbot, view, view.index_of_test("Describe_Other.it_passes").parent())
    qtbot.mouseClick(view.run_one_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: not view.service.running, 60)
    assert statuses(view)["Describe_Other.it_sees_shared_state"] == PASSED
    assert statuses(view)["Describe_Counter.it_increments"] == NOT_RUN


def test_transaction_link_opens_the_inspector(
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tests_project: Path,
    open_tests: OpenTests,
) -> None:
    _panel, view = open_tests(tests_project / "counter_test.sol")
    run_all(loop, qtbot, view)
    click_row(qtbot, view, view.index_of_test("Describe_Counter.it_increments"))
    node_of = view.selected_node()
    assert isinstance(node_of, TestNode) and node_of.outcome is not None
    sent = node_of.outcome.tx_hashes
    assert sent and f"transactions ({len(sent)})" in view.detail.toPlainText()
    href = click_link(qtbot, view.detail, "tx:")
    assert href == f"tx:{sent[0]}"
    dialogs = window.findChildren(TxInspectorDialog)
    assert len(dialogs) == 1 and dialogs[0].hash_edit.text() == sent[0]
    drive(loop, lambda: "Success" in dialogs[0].view.toPlainText())
    dialogs[0].close()


def test_stop_cancels_the_run(
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tests_project: Path,
    open_tests: OpenTests,
) -> None:
    root = tests_project
    # many slow tests: the run is still going when Stop is clicked
    body = "\n".join(
        f"    function it_{i}() public {{ for (uint j = 0; j < 3000; j++) {{ n += j; }} }}"
        for i in range(40)
    )
    (root / "slow_test.sol").write_text(
        f"contract Describe_Slow {{\n    uint n;\n    constructor() {{}}\n{body}\n}}\n"
    )
    _panel, view = open_tests(root / "slow_test.sol", len(EXPECTED) + 40)
    qtbot.mouseClick(view.run_file_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: view.model.totals()[PASSED] >= 1, 60)
    assert view.stop_button.isEnabled()
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    assert not view.service.running and not view.stop_button.isEnabled()
    assert view.summary.text().endswith("— stopped")
    counts = view.model.totals()
    assert 1 <= counts[PASSED] < 40 and counts[NOT_RUN] == 40 + len(EXPECTED) - counts[PASSED]
    settle(loop, 20)  # whatever the cancelled run had in flight changes nothing now
    assert view.model.totals() == counts


def test_run_on_save_reruns_the_saved_file(
    controller: AppController,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tests_project: Path,
    open_tests: OpenTests,
) -> None:
    loop.run_until_complete(controller.load_settings())
    root = tests_project
    panel, view = open_tests(root / "counter_test.sol")
    qtbot.mouseClick(view.run_on_save, Qt.MouseButton.LeftButton)
    assert view.run_on_save.isChecked()
    drive(loop, lambda: controller.setting("tests_run_on_save") is True)
    text = panel.editor.toPlainText().replace("return false;", "return true;")
    panel.editor.setPlainText(text)
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: view.model.totals()[PASSED] == 3, 60)  # the saved file's tests only
    drive(loop, lambda: not view.service.running, 60)
    got = statuses(view)
    assert got["Describe_Counter.it_returns_false"] == PASSED
    assert got["Describe_Other.it_passes"] == NOT_RUN
    # off again: a save only finds the tests again
    qtbot.mouseClick(view.run_on_save, Qt.MouseButton.LeftButton)
    drive(loop, lambda: controller.setting("tests_run_on_save") is False)
    panel.editor.setPlainText(text.replace("function it_returns_false", "function it_renamed"))
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: "Describe_Counter.it_renamed" in statuses(view))
    assert not view.service.running
    assert statuses(view)["Describe_Counter.it_increments"] == PASSED  # results stay


def test_a_compile_error_in_an_imported_file_is_shown_at_its_line(
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tests_project: Path,
    open_tests: OpenTests,
) -> None:
    root = tests_project
    lib = root / "lib" / "Counter.sol"
    lib.write_text(lib.read_text().replace("count -= 1;", "count -= ;"))
    panel, view = open_tests(root / "other_test.sol")
    run_all(loop, qtbot, view)
    broken = view.selected_node()  # the view selects the file that does not compile
    assert broken is not None and broken.failure is not None
    line = broken.failure.line
    assert "does not compile" in view.detail.toPlainText()
    assert view.model.data(view.model.index_of(broken, 1)) == "compile error"
    got = statuses(view)
    assert got["Describe_Other.it_passes"] == PASSED
    assert got["Describe_Counter.it_increments"] == NOT_RUN
    click_link(qtbot, view.detail, "loc:")
    drive(loop, lambda: panel.source.path is not None and panel.source.path.name == "Counter.sol")
    drive(loop, lambda: panel.editor.textCursor().blockNumber() + 1 == line)


def test_keyboard_runs_from_the_editor_and_enter_runs_the_selected_row(
    window: MainWindow,
    loop: qasync.QEventLoop,
    tests_project: Path,
    composer_as: ComposerAs,
) -> None:
    panel = composer_as("alice")
    file = tests_project / "other_test.sol"
    panel.load_path(file)  # no project: the tests of the file's folder
    drive(loop, lambda: panel.source.path == file)
    view = panel.tests_view
    assert not view.isVisible()  # the sidebar is folded without a project
    panel.editor.setFocus()
    window.activateWindow()
    settle(loop)
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    QTest.keyClick(panel.editor, Qt.Key.Key_T, ctrl_shift)  # the file in front
    assert view.isVisible() and view.service.running
    drive(loop, lambda: not view.service.running, 60)
    got = statuses(view)
    assert got["Describe_Other.it_passes"] == PASSED
    assert got["Describe_Counter.it_increments"] == NOT_RUN
    QTest.keyClick(panel.editor, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)  # all
    drive(loop, lambda: not view.service.running, 60)
    assert statuses(view) == EXPECTED
    # View > Tests (Ctrl+Alt+T) puts the keyboard in the tree: arrows pick, Enter runs
    panel.editor.setFocus()
    alt = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
    QTest.keyClick(panel.editor, Qt.Key.Key_T, alt)
    assert view.tree.hasFocus()
    view.tree.setCurrentIndex(view.index_of_test("Describe_Other.it_sees_shared_state"))
    QTest.keyClick(view.tree, Qt.Key.Key_Up)
    chosen = view.selected_node()
    assert chosen is not None and chosen.key == "Describe_Other.it_passes"
    QTest.keyClick(view.tree, Qt.Key.Key_Enter)
    assert view.service.running
    drive(loop, lambda: not view.service.running, 60)
    assert view.summary.text().startswith("1 passed, 0 failed")
    # alone, a test that counts on an earlier one's state fails (state is per run)
    QTest.keyClick(view.tree, Qt.Key.Key_Down)
    QTest.keyClick(view.tree, Qt.Key.Key_Return)
    drive(loop, lambda: not view.service.running, 60)
    assert statuses(view)["Describe_Other.it_sees_shared_state"] == FAILED


def test_run_without_a_node_says_so_in_words(
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tests_project: Path,
) -> None:
    panel = panel_of(window)
    view = panel.tests_view
    panel.show_tests()  # View > Tests: the sidebar unfolds with the tests in front
    assert view.isVisible() and "No folder" in view.folder_label.text()
    qtbot.mouseClick(view.folder_button, Qt.MouseButton.LeftButton)  # the project's folder
    drive(loop, lambda: any(d.isVisible() for d in panel.findChildren(QFileDialog)))
    dialog = next(d for d in panel.findChildren(QFileDialog) if d.isVisible())
    root = tests_project
    dialog.fileSelected.emit(str(root))
    dialog.close()
    assert panel.project_root() == root
    reveal(qtbot, view)
    drive(loop, lambda: len(view.model.all_tests()) == len(EXPECTED))
    assert view.folder_label.text() == "project"
    qtbot.mouseClick(view.run_all_button, Qt.MouseButton.LeftButton)
    assert "not connected" in view.summary.text()
    assert set(statuses(view).values()) == {NOT_RUN}


def test_discovery_merges_into_the_tree_and_keeps_results(
    qtbot: QtBot, qtmodeltester: object
) -> None:
    """No node: the model alone, watched by Qt's model tester through every change."""
    from app.client.test_runner import TestCase, TestOutcome
    from app.ui.panels.composer.tests_model import TestsModel

    model = TestsModel()
    qtmodeltester.check(model)  # type: ignore[attr-defined]

    def case(file: str, contract: str, name: str, line: int) -> TestCase:
        return TestCase(f"/p/{file}", contract, name, "unit", line)

    a1, a2, a3 = (case("a.sol", "Describe_A", f"it_{n}", n) for n in (1, 2, 3))
    b1 = case("b.sol", "Describe_B", "it_b", 4)
    model.set_discovered([a1, a2, a3, b1], [])
    model.finished(TestOutcome(a1, True, seconds=0.5))
    model.finished(TestOutcome(a3, False, "boom"))
    assert model.data(model.index_of(model.files()[0], 1)) == "1 failed"
    # a2 removed, a4 added, a3 moved before a1, b.sol gone, c.sol new and broken
    a4 = case("a.sol", "Describe_A", "it_4", 5)
    broken = CompileFailure("/p/c.sol", 3, 7, "expected ';'")
    model.set_discovered([a3, a1, a4], [broken])
    assert [model.data(model.index_of(f)) for f in model.files()] == ["a.sol", "c.sol"]
    tests = model.files()[0].children[0].children
    assert [(t.key, t.status) for t in tests] == [
        ("Describe_A.it_3", FAILED),
        ("Describe_A.it_1", PASSED),
        ("Describe_A.it_4", NOT_RUN),
    ]
    assert model.data(model.index_of(model.files()[1], 1)) == "compile error"
    # a run that found a test discovery had not seen adds it, removes nothing
    a5 = case("a.sol", "Describe_A", "it_5", 6)
    model.add_cases([a5])
    assert [t.key for t in model.files()[0].children[0].children][-1] == "Describe_A.it_5"
    assert len(model.all_tests()) == 4
