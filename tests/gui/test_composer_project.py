"""Projects in the composer against a real sandbox node: a folder as a file tree, files in tabs,
compile following the front tab's imports (unsaved tabs over the disk), errors in an imported
file shown at their line, the question before closing a modified tab, the workspace across a
restart, and autosaved edits after the app was killed."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import qasync
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog, QLabel, QMessageBox
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.panels.composer.documents import Document
from app.ui.panels.composer.panel import ComposerPanel
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive, make_controller
from tests.gui.test_composer import confirm, panel_of, settle
from tests.gui.test_composer_source import close_window, quit_prompt, restarted, stored
from tests.integration.node_fixture import RunningNode

ROOT = Path(__file__).resolve().parents[2]
COUNTER = """contract Counter {
    uint public count;
    function bump() public { count += 1; }
}
"""
MAIN = """import "../lib/Counter.sol";

contract Main is Counter {
    constructor() public { bump(); }
}
"""
BROKEN = """contract Shaky {
    uint public x;
    function set() public { x = ; }
}
"""
USES_BROKEN = """import "../lib/Shaky.sol";
contract UsesShaky is Shaky { }
"""


def make_project(base: Path) -> Path:
    """Two folders whose files import each other's, and a file the tree does not show."""
    proj = base / "proj"
    (proj / "lib").mkdir(parents=True)
    (proj / "app").mkdir()
    (proj / "lib" / "Counter.sol").write_text(COUNTER)
    (proj / "app" / "Main.sol").write_text(MAIN)
    (proj / "notes.txt").write_text("not a contract")
    return proj


def open_folder_by_button(
    loop: qasync.QEventLoop, panel: ComposerPanel, qtbot: QtBot, f: Path
) -> None:
    qtbot.mouseClick(panel.sidebar.open_button, Qt.MouseButton.LeftButton)
    drive(loop, lambda: any(d.isVisible() for d in panel.findChildren(QFileDialog)))
    dialog = next(d for d in panel.findChildren(QFileDialog) if d.isVisible())
    dialog.fileSelected.emit(str(f))
    dialog.close()
    assert panel.project_root() == f


def tree_index(loop: qasync.QEventLoop, panel: ComposerPanel, path: Path) -> QModelIndex:
    """The tree's row for ``path``, its folders expanded and the row scrolled into view."""
    model, tree = panel.sidebar.model, panel.sidebar.tree
    for folder in reversed(path.parents):
        if panel.project_root() in folder.parents:
            index = model.index(str(folder))
            tree.expand(index)
    drive(loop, lambda: model.index(str(path)).isValid())
    index = model.index(str(path))
    tree.scrollTo(index)
    drive(loop, lambda: not tree.visualRect(model.index(str(path))).isEmpty())
    return model.index(str(path))


def click_file(loop: qasync.QEventLoop, panel: ComposerPanel, qtbot: QtBot, path: Path) -> Document:
    tree = panel.sidebar.tree
    index = tree_index(loop, panel, path)
    qtbot.mouseClick(
        tree.viewport(), Qt.MouseButton.LeftButton, pos=tree.visualRect(index).center()
    )
    drive(loop, lambda: panel.source.path == path)
    return panel.source.current


def quit_discarding(loop: qasync.QEventLoop, window: MainWindow, panel: ComposerPanel) -> None:
    """Quit, answering Discard to every question about a file's unsaved edits."""
    window.close()
    while not window.is_closed:
        drive(loop, lambda: window.is_closed or panel.source.quit_prompt is not None, 30)
        box = panel.source.quit_prompt
        if box is not None:
            box.button(QMessageBox.StandardButton.Discard).click()
            settle(loop)


def tab_titles(panel: ComposerPanel) -> list[str]:
    return [panel.source.tabs.tabText(i) for i in range(panel.source.tabs.count())]


def compiled(loop: qasync.QEventLoop, panel: ComposerPanel) -> None:
    panel.compile_button.click()
    drive(loop, panel.compile_button.isEnabled, 30)


def test_a_folder_opens_as_a_tree_and_compile_follows_the_front_tabs_imports(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    proj = make_project(tmp_path)
    open_folder_by_button(loop, panel, qtbot, proj)
    model = panel.sidebar.model
    root = model.index(str(proj))
    drive(loop, lambda: model.rowCount(root) == 2)  # lib and app; notes.txt is hidden
    assert sorted(model.fileName(model.index(r, 0, root)) for r in range(2)) == ["app", "lib"]

    main = click_file(loop, panel, qtbot, proj / "app" / "Main.sol")
    assert main.text == MAIN and not main.modified
    assert tab_titles(panel) == ["Main.sol"]  # the empty Untitled tab became the file's
    counter = click_file(loop, panel, qtbot, proj / "lib" / "Counter.sol")
    assert tab_titles(panel) == ["Main.sol", "Counter.sol"] and counter.text == COUNTER
    # clicking an open file's row brings its tab forward, no second tab
    click_file(loop, panel, qtbot, proj / "app" / "Main.sol")
    assert panel.source.tabs.count() == 2 and panel.source.current is main

    compiled(loop, panel)
    assert panel.source_status.text().startswith("✔"), panel.source_status.text()
    assert "from 2 files" in panel.source_status.text()
    assert set(panel.specs) == {"Counter", "Main"} and panel.contract.currentText() == "Main"
    assert "import" not in panel.compiled_source  # one text for the node, imports blanked
    confirm(loop, panel, panel.deploy())
    assert "created Main at" in panel.result.toPlainText(), panel.result.toPlainText()


def test_unsaved_edits_of_a_tab_behind_are_what_compiles(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    proj = make_project(tmp_path)
    panel.open_folder(proj)
    counter = click_file(loop, panel, qtbot, proj / "lib" / "Counter.sol")
    counter.editor.setFocus()
    cursor = counter.editor.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    cursor.movePosition(QTextCursor.MoveOperation.Up)  # before the closing brace
    counter.editor.setTextCursor(cursor)
    qtbot.keyClicks(counter.editor, "    function reset() public { count = 0; }")
    qtbot.keyClick(counter.editor, Qt.Key.Key_Return)
    assert tab_titles(panel)[-1] == "Counter.sol •"
    assert list(panel.open_sources()) == [str(proj / "lib" / "Counter.sol")]
    main = click_file(loop, panel, qtbot, proj / "app" / "Main.sol")
    assert panel.source.current is main
    compiled(loop, panel)
    assert panel.source_status.text().startswith("✔"), panel.source_status.text()
    assert "reset" in [f.name for f in panel.specs["Main"].functions]
    assert (proj / "lib" / "Counter.sol").read_text() == COUNTER  # the disk is untouched
    quit_discarding(loop, window, panel)


def test_an_error_in_an_imported_file_opens_it_at_its_line(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    proj = make_project(tmp_path)
    (proj / "lib" / "Shaky.sol").write_text(BROKEN)
    (proj / "app" / "UsesShaky.sol").write_text(USES_BROKEN)
    panel.open_folder(proj)
    user = click_file(loop, panel, qtbot, proj / "app" / "UsesShaky.sol")
    compiled(loop, panel)
    status = panel.source_status.text()
    assert status.startswith("✘") and "Shaky.sol, line 3" in status, status
    shaky = proj / "lib" / "Shaky.sol"
    drive(loop, lambda: panel.source.path == shaky)  # opened in a tab of its own, in front
    assert panel.editor.error_line == 3 and user.editor.error_line is None
    assert panel.editor.textCursor().blockNumber() == 2
    problems = panel.source.problems
    assert problems.isVisible() and problems.count() >= 1
    assert "Shaky.sol, line 3" in problems.item(0).text()
    # the list entry jumps back there from another tab
    panel.source.tabs.setCurrentIndex(panel.source.tabs.indexOf(user.editor))
    rect = problems.visualItemRect(problems.item(0))
    qtbot.mouseClick(problems.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    drive(loop, lambda: panel.source.path == shaky)
    assert panel.editor.textCursor().blockNumber() == 2 and panel.editor.hasFocus()

    # fixed in its tab, unsaved: the compile uses it and the marks go
    panel.editor.setPlainText(BROKEN.replace("x = ;", "x = 1;"))
    panel.source.tabs.setCurrentIndex(panel.source.tabs.indexOf(user.editor))
    compiled(loop, panel)
    assert panel.source_status.text().startswith("✔"), panel.source_status.text()
    assert not problems.isVisible()
    assert all(d.editor.error_line is None for d in panel.source.tabs.documents())

    # a missing import is marked on the import line of the file that has it
    user.editor.setPlainText('contract A { }\nimport "./Nowhere.sol";\n')
    compiled(loop, panel)
    assert "missing import" in panel.source_status.text() and user.editor.error_line == 2
    quit_discarding(loop, window, panel)


def test_closing_a_modified_tab_asks(
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    panel = panel_of(window)
    proj = make_project(tmp_path)
    panel.open_folder(proj)
    counter_file = proj / "lib" / "Counter.sol"
    counter = click_file(loop, panel, qtbot, counter_file)
    click_file(loop, panel, qtbot, proj / "app" / "Main.sol")
    saved: list[str] = []
    panel.file_saved.connect(saved.append)
    panel.source.tabs.setCurrentIndex(0)
    assert panel.source.current is counter
    counter.editor.setFocus()
    qtbot.keyClicks(counter.editor, "// edited ")
    buttons = QMessageBox.StandardButton
    window.activateWindow()
    settle(loop)
    QTest.keyClick(counter.editor, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    box = quit_prompt(loop, panel)
    qtbot.mouseClick(box.button(buttons.Cancel), Qt.MouseButton.LeftButton)
    settle(loop)
    assert panel.source.tabs.count() == 2 and counter.text.startswith("// edited ")
    # Save: written, the signal says where, the tab closes
    panel.source.close_tab(counter)
    box = quit_prompt(loop, panel)
    qtbot.mouseClick(box.button(buttons.Save), Qt.MouseButton.LeftButton)
    drive(loop, lambda: panel.source.tabs.count() == 1)
    assert counter_file.read_text() == "// edited " + COUNTER
    assert saved == [str(counter_file)]
    # Discard: closes and leaves the file as it was; the last tab gone, an Untitled is left
    main = panel.source.current
    main.editor.setPlainText("contract Gone { }")
    panel.source.close_tab()
    box = quit_prompt(loop, panel)
    qtbot.mouseClick(box.button(buttons.Discard), Qt.MouseButton.LeftButton)
    drive(loop, lambda: panel.source.path is None)
    assert (proj / "app" / "Main.sol").read_text() == MAIN
    assert tab_titles(panel) == ["Untitled"]
    # an unmodified tab closes without a question
    click_file(loop, panel, qtbot, counter_file)
    panel.source.close_tab()
    settle(loop)
    assert panel.source.quit_prompt is None and panel.source.path is None


def test_the_workspace_comes_back_after_a_restart(
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    loop.run_until_complete(controller.load_settings())
    panel = panel_of(window)
    proj = make_project(tmp_path)
    panel.open_folder(proj)
    panel.editor.setPlainText("contract Scratch { }")  # the Untitled tab stays, a draft
    click_file(loop, panel, qtbot, proj / "lib" / "Counter.sol")
    main = click_file(loop, panel, qtbot, proj / "app" / "Main.sol")
    cursor = main.editor.textCursor()
    cursor.setPosition(MAIN.index("constructor"))
    main.editor.setTextCursor(cursor)
    panel.source.tabs.tabBar().moveTab(2, 1)  # dragged: Untitled, Main, Counter
    assert tab_titles(panel) == ["Untitled •", "Main.sol", "Counter.sol"]
    close_window(loop, window)
    loop.run_until_complete(panel.source.flushed())

    again, win = restarted(loop, tmp_path)
    try:
        composer = panel_of(win)
        drive(loop, lambda: composer.source.tabs.count() == 3)
        assert composer.project_root() == proj
        assert tab_titles(composer) == ["Untitled •", "Main.sol", "Counter.sol"]
        assert composer.source.path == proj / "app" / "Main.sol"  # the tab that was in front
        assert composer.editor.textCursor().position() == MAIN.index("constructor")
        scratch = composer.source.tabs.find_doc(None)
        assert scratch is not None and scratch.text == "contract Scratch { }"
        root = composer.sidebar.model.index(str(proj))
        drive(loop, lambda: composer.sidebar.model.rowCount(root) == 2)
        assert composer.sidebar.tree.rootIndex() == root
    finally:
        close_window(loop, win)
        loop.run_until_complete(again.shutdown())
        win.deleteLater()
        again.deleteLater()


def test_projects_from_the_keyboard_and_for_other_parts(
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    panel = panel_of(window)
    window.resize(1024, 640)
    window.activateWindow()
    settle(loop)
    assert panel.split.sizes()[0] == 0  # no folder: the sidebar is folded away
    ctrl = Qt.KeyboardModifier.ControlModifier
    alt, shift = Qt.KeyboardModifier.AltModifier, Qt.KeyboardModifier.ShiftModifier
    # File > Open Folder… (Ctrl+Alt+O) asks for a folder
    QTest.keyClick(panel.editor, Qt.Key.Key_O, ctrl | alt)
    drive(loop, lambda: any(d.isVisible() for d in panel.findChildren(QFileDialog)))
    dialog = next(d for d in panel.findChildren(QFileDialog) if d.isVisible())
    assert dialog.fileMode() == QFileDialog.FileMode.Directory
    proj = make_project(tmp_path)
    dialog.fileSelected.emit(str(proj))
    dialog.close()
    window.activateWindow()
    settle(loop)
    assert panel.project_root() == proj and panel.split.sizes()[0] > 0
    # at 1024x640 the three columns fit: nothing is pushed out of the window
    assert panel.minimumSizeHint().width() <= window.stack.width()
    # Ctrl+Shift+E: the keyboard in the tree; Down and Enter open a file
    QTest.keyClick(panel.editor, Qt.Key.Key_E, ctrl | shift)
    tree = panel.sidebar.tree
    assert tree.hasFocus()
    tree_index(loop, panel, proj / "lib" / "Counter.sol")
    tree.setCurrentIndex(panel.sidebar.model.index(str(proj / "lib")))
    QTest.keyClick(tree, Qt.Key.Key_Down)
    QTest.keyClick(tree, Qt.Key.Key_Return)
    drive(loop, lambda: panel.source.path == proj / "lib" / "Counter.sol")
    # open_location: a tab at a line; Ctrl+PgUp/PgDn walk the tabs; Ctrl+N the Untitled tab
    panel.open_location(proj / "app" / "Main.sol", 3, 10)
    drive(loop, lambda: panel.source.path == proj / "app" / "Main.sol")
    cursor = panel.editor.textCursor()
    assert (cursor.blockNumber(), cursor.positionInBlock()) == (2, 9)
    QTest.keyClick(panel.editor, Qt.Key.Key_PageUp, ctrl)
    assert panel.source.path == proj / "lib" / "Counter.sol" and panel.editor.hasFocus()
    QTest.keyClick(panel.editor, Qt.Key.Key_PageDown, ctrl)
    assert panel.source.path == proj / "app" / "Main.sol"
    QTest.keyClick(panel.editor, Qt.Key.Key_N, ctrl)
    assert panel.source.path is None and tab_titles(panel)[-1] == "Untitled"
    QTest.keyClick(panel.editor, Qt.Key.Key_W, ctrl)  # empty: closes without a question
    assert tab_titles(panel) == ["Counter.sol", "Main.sol"]
    # another part adds its view beside Files
    extra = QLabel("another view")
    panel.add_sidebar_tab(extra, "Other")
    tabs = [panel.sidebar.tabText(i) for i in range(panel.sidebar.count())]
    assert tabs == ["Files", "Tests", "Other"]


def test_text_typed_and_quit_at_once_is_kept(
    loop: qasync.QEventLoop, tmp_path: Path, qtbot: QtBot
) -> None:
    """Typed and quit before the last run's workspace was read back: the quit waits for it."""
    controller = make_controller(tmp_path)
    win = MainWindow(controller)
    try:
        win.show()
        panel = panel_of(win)
        assert not panel.source._loaded  # the loop has not run yet
        qtbot.keyClicks(panel.editor, "contract Quick { }")
        win.close()
        drive(loop, lambda: win.is_closed, 30)
        loop.run_until_complete(panel.source.flushed())
        assert stored(tmp_path).buffers == {None: "contract Quick { }"}
    finally:
        loop.run_until_complete(controller.shutdown())
        win.deleteLater()
        controller.deleteLater()


CHILD = """
import asyncio, sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
import qasync
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from app.services.controller import AppController
from app.services.secret_service import SecretService
from app.ui.shell.main_window import MainWindow

base, proj = Path(sys.argv[1]), Path(sys.argv[2])
app = QApplication([])
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
loop.set_default_executor(ThreadPoolExecutor(2))
secrets = SecretService(base / "config", use_keyring=lambda: False)
c = AppController(config_directory=base / "config", sandbox_dir=base / "sandbox", secrets=secrets)
w = MainWindow(c)
w.show()
panel = w.panels[1]
w.nav.setCurrentRow(1)

async def main():
    await c.load_settings()
    panel.open_folder(proj)
    panel.open_location(proj / "lib" / "Counter.sol", 2, 1)
    while panel.source.path != proj / "lib" / "Counter.sol":
        await asyncio.sleep(0.02)
    QTest.keyClicks(panel.editor, "// typed before the crash")
    QTest.keyClick(panel.editor, Qt.Key.Key_Return)
    print("typed", flush=True)
    await asyncio.sleep(3600)

loop.run_until_complete(main())
"""


def test_autosaved_edits_come_back_after_the_app_is_killed(
    loop: qasync.QEventLoop, tmp_path: Path, qtbot: QtBot
) -> None:
    proj = make_project(tmp_path)
    base = tmp_path / "crashed"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(base), str(proj)],
        stdout=subprocess.PIPE,
        env=env,
        cwd=str(ROOT),
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "typed"
        buffers = base / "config" / "composer" / "buffers"
        deadline = time.monotonic() + 30
        found: list[Path] = []
        while time.monotonic() < deadline:  # the autosave a second after typing stops
            found = [f for f in buffers.glob("*.json") if "before the crash" in f.read_text()]
            if found:
                break
            time.sleep(0.05)
        assert found, "no autosaved edits"
        assert stat.S_IMODE(found[0].stat().st_mode) == 0o600
        assert stat.S_IMODE(found[0].parent.parent.stat().st_mode) == 0o700
        child.send_signal(signal.SIGKILL)  # no closing hooks, no last write
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        if child.stdout is not None:
            child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert (proj / "lib" / "Counter.sol").read_text() == COUNTER

    again, win = restarted(loop, base)
    try:
        composer = panel_of(win)
        target = proj / "lib" / "Counter.sol"
        drive(loop, lambda: composer.source.tabs.find_doc(target) is not None)
        doc = composer.source.tabs.find_doc(target)
        assert doc is not None
        assert doc.text == COUNTER.replace("{\n", "{\n// typed before the crash\n", 1)
        assert doc.modified and doc.saved_text == COUNTER  # back, and marked unsaved
        assert composer.source.tabs.tabText(composer.source.tabs.index_of(doc)) == "Counter.sol •"
        assert composer.project_root() == proj
    finally:
        # the edits are the user's to keep: quitting asks, Discard drops them
        win.close()
        box = quit_prompt(loop, panel_of(win))
        QTest.mouseClick(box.button(QMessageBox.StandardButton.Discard), Qt.MouseButton.LeftButton)
        drive(loop, lambda: win.is_closed, 30)
        loop.run_until_complete(again.shutdown())
        win.deleteLater()
        again.deleteLater()
