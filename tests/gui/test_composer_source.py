"""The composer's source side without a node: the draft kept across restarts (in the workspace
store), the question before quitting or replacing unsaved source, the Samples box, the keyboard
in the editor."""

from __future__ import annotations

from pathlib import Path

import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.panels.composer.panel import SAMPLES, ComposerPanel
from app.ui.panels.composer.workspace import Restored, WorkspaceStore
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import drive, make_controller
from tests.gui.test_composer import KINDS, panel_of, settle

# ------------------------------------------------------------ unsaved source


def close_window(loop: qasync.QEventLoop, window: MainWindow) -> None:
    window.close()
    drive(loop, lambda: window.is_closed, 30)


def restarted(loop: qasync.QEventLoop, tmp_path: Path) -> tuple[AppController, MainWindow]:
    """A second start of the app on the same configuration directory."""
    again = make_controller(tmp_path)
    win = MainWindow(again)
    win.show()
    loop.run_until_complete(again.load_settings())
    return again, win


def stored(tmp_path: Path) -> Restored:
    """What the composer keeps for the next start (read as the next start reads it)."""
    return WorkspaceStore(tmp_path / "config" / "composer")._load()


def quit_prompt(loop: qasync.QEventLoop, panel: ComposerPanel) -> QMessageBox:
    drive(
        loop, lambda: panel.source.quit_prompt is not None and panel.source.quit_prompt.isVisible()
    )
    box = panel.source.quit_prompt
    assert box is not None
    return box


def test_scratch_source_is_kept_as_a_draft_across_a_restart(
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    loop.run_until_complete(controller.load_settings())
    panel = panel_of(window)
    panel.editor.setPlainText("")
    panel.editor.setFocus()
    qtbot.keyClicks(panel.editor, "contract Scratch { uint public x = 1; }")
    assert "Draft" in panel.source.file_label.text()
    close_window(loop, window)  # no question for a draft: it is kept
    assert panel.source.quit_prompt is None
    loop.run_until_complete(panel.source.flushed())
    kept = stored(tmp_path)
    assert kept.buffers == {None: "contract Scratch { uint public x = 1; }"}
    assert [t["path"] for t in kept.state["tabs"]] == [None]

    again, win = restarted(loop, tmp_path)
    try:
        composer = panel_of(win)
        assert composer.editor.toPlainText() == "contract Scratch { uint public x = 1; }"
        assert "last session" in composer.source_status.text()
        assert composer.samples.currentIndex() == 0
    finally:
        close_window(loop, win)
        loop.run_until_complete(again.shutdown())
        win.deleteLater()
        again.deleteLater()


def test_quitting_with_a_files_unsaved_edits_asks(
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    loop.run_until_complete(controller.load_settings())
    panel = panel_of(window)
    target = tmp_path / "edited.sol"
    target.write_text("contract A {}\n")
    panel.load_path(target)
    drive(loop, lambda: panel.editor.toPlainText() == "contract A {}\n")
    assert panel.source.file_label.text() == "edited.sol"
    panel.editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(panel.editor, "// more")
    assert panel.source.file_label.text() == "edited.sol — unsaved changes"

    # Cancel: the app stays open with the edits
    window.close()
    box = quit_prompt(loop, panel)
    buttons = QMessageBox.StandardButton
    assert box.defaultButton() is box.button(buttons.Save)
    qtbot.mouseClick(box.button(buttons.Cancel), Qt.MouseButton.LeftButton)
    settle(loop, 10)
    assert window.isVisible() and not window.is_closed
    assert panel.editor.toPlainText().endswith("// more")
    assert target.read_text() == "contract A {}\n"

    # Save: written, then the app quits
    window.close()
    box = quit_prompt(loop, panel)
    qtbot.mouseClick(box.button(buttons.Save), Qt.MouseButton.LeftButton)
    drive(loop, lambda: window.is_closed, 30)
    assert target.read_text() == "contract A {}\n// more"

    # the next start reopens the file; Discard quits and leaves the file as it was
    again, win = restarted(loop, tmp_path)
    try:
        composer = panel_of(win)
        drive(loop, lambda: composer.editor.toPlainText() == "contract A {}\n// more")
        assert composer.source.file_label.text() == "edited.sol"
        assert "reopened" in composer.source_status.text()
        composer.editor.setPlainText("contract Gone {}")
        win.close()
        box = quit_prompt(loop, composer)
        qtbot.mouseClick(box.button(buttons.Discard), Qt.MouseButton.LeftButton)
        drive(loop, lambda: win.is_closed, 30)
        assert target.read_text() == "contract A {}\n// more"
        loop.run_until_complete(composer.source.flushed())
        kept = stored(tmp_path)  # the file's tab, without the discarded edits
        assert [t["path"] for t in kept.state["tabs"]] == [str(target)] and kept.buffers == {}
    finally:
        close_window(loop, win)
        loop.run_until_complete(again.shutdown())
        win.deleteLater()
        again.deleteLater()


def test_samples_box_turns_neutral_once_the_source_is_not_the_sample(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    panel = panel_of(window)
    index = panel.samples.findText("Token")
    panel.samples.setCurrentIndex(index)  # what choosing it in the list does
    panel.samples.activated.emit(index)
    drive(loop, lambda: panel.editor.toPlainText() == (SAMPLES / "Token.sol").read_text())
    assert panel.samples.currentText() == "Token"
    panel.editor.setPlainText(KINDS)  # other source pasted
    assert panel.samples.currentIndex() == 0 and panel.samples.currentText() == "Samples…"
    assert "Draft" in panel.source.file_label.text()
    QTest.keyClick(panel.editor, Qt.Key.Key_X)  # a single key is enough
    assert panel.samples.currentText() == "Samples…"


def test_choosing_a_sample_over_unsaved_source_asks_first(
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    qtbot: QtBot,
) -> None:
    panel = panel_of(window)
    token = (SAMPLES / "Token.sol").read_text()
    index = panel.samples.findText("Token")
    panel.editor.setPlainText(KINDS)  # typed or pasted: only a draft
    buttons = QMessageBox.StandardButton

    def choose_token() -> QMessageBox:
        panel.samples.setCurrentIndex(index)
        panel.samples.activated.emit(index)
        drive(loop, lambda: panel.source.quit_prompt is not None)
        box = panel.source.quit_prompt
        assert box is not None and box.isVisible()
        return box

    # Cancel: nothing replaced, the box still says the text is no sample
    qtbot.mouseClick(choose_token().button(buttons.Cancel), Qt.MouseButton.LeftButton)
    settle(loop)
    assert panel.editor.toPlainText() == KINDS and panel.samples.currentIndex() == 0
    # Save: asks where, writes the draft there, then opens the sample
    qtbot.mouseClick(choose_token().button(buttons.Save), Qt.MouseButton.LeftButton)
    drive(loop, lambda: any(d.isVisible() for d in panel.findChildren(QFileDialog)))
    dialog = next(d for d in panel.findChildren(QFileDialog) if d.isVisible())
    dialog.fileSelected.emit(str(tmp_path / "kinds.sol"))
    dialog.close()
    drive(loop, lambda: panel.editor.toPlainText() == token)
    assert (tmp_path / "kinds.sol").read_text() == KINDS
    assert panel.samples.currentText() == "Token"
    # an unedited sample is replaced without a question; edited, Discard drops the edits
    panel.samples.activated.emit(index)
    settle(loop)
    assert panel.source.quit_prompt is None
    QTest.keyClick(panel.editor, Qt.Key.Key_X)
    qtbot.mouseClick(choose_token().button(buttons.Discard), Qt.MouseButton.LeftButton)
    drive(loop, lambda: panel.editor.toPlainText() == token)


def test_tab_leaves_the_editor_and_follows_the_layout(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    panel = panel_of(window)
    window.activateWindow()
    panel.samples.setFocus()
    settle(loop)

    def tab_through(n: int) -> list[str]:
        names = []
        for _ in range(n):
            widget = QApplication.focusWidget()
            assert widget is not None
            names.append(widget.objectName())
            QTest.keyClick(widget, Qt.Key.Key_Tab)
        return names

    tools = ["composerSamples", "composerOpen", "composerSave", "composerSaveAs"]
    assert tab_through(5) == [*tools, "composerCompile"]
    assert panel.editor.hasFocus()
    QTest.keyClick(panel.editor, Qt.Key.Key_Tab)  # Tab indents in the editor
    assert panel.editor.toPlainText() == "\t" and panel.editor.hasFocus()
    QTest.keyClick(panel.editor, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert panel.tabs.tabBar().hasFocus()  # Ctrl+Tab moves on: the Deploy/Call tabs
    order = tab_through(16)  # the tab, the Deploy form (its Debug button too), the result...
    assert order[1:5] == ["deployContract", "deployVm", "deployHistory", "deployArgsRawToggle"]
    assert order.index("composerChain") < order.index("composerGasPrice")
    result = order.index("composerResult")
    assert order.index("composerGasPrice") < result < order.index("composerRecord")
    panel.editor.setFocus()
    QTest.keyClick(panel.editor, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ControlModifier)
    assert panel.compile_button.hasFocus()  # Ctrl+Shift+Tab: back to the tools
