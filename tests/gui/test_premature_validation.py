"""Issue 29 item 10, on real widgets against a real sandbox node: nothing is called wrong before
the user has touched it. An untouched Call tab after a deploy lists what is left to fill in (not a
red "an address is up to 40 hex digits"); a field typed into shows its problem in red. In Send,
"bo" while typing is a name still being typed (bob); it is called unknown once the field is left.
"""

from __future__ import annotations

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect
from tests.gui.test_account_send import open_send
from tests.gui.test_composer import compile_source, confirm, panel_of
from tests.integration.node_fixture import RunningNode

GIVER = """
contract Giver {
  uint public total;
  constructor() public { total = 0; }
  function give(address to, uint n) public returns (uint) { total += n; return total; }
}
"""
RED = "#c0392b"


def test_an_untouched_call_tab_says_what_to_fill_in_not_an_error(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    compile_source(loop, panel, GIVER)
    assert panel.source_status.text().startswith("✔")
    panel.contract.setCurrentText("Giver")
    confirm(loop, panel, panel.deploy())
    assert "created Giver at" in panel.result.toPlainText()
    panel.function.setCurrentIndex(panel.function.findData("give"))
    args = panel.call_args
    label = args.problems_label
    assert "hex digits" not in label.text() and "whole number" not in label.text()
    assert label.text() == "To fill in: to"  # n starts at 0, a valid number
    assert RED not in label.styleSheet()
    assert not panel.call_button.isEnabled()  # still nothing to send
    line = args.findChild(QLineEdit, "arg_to")
    assert line is not None and RED not in line.styleSheet()

    # the user types a wrong address: now it is an error, in red
    qtbot.keyClicks(line, "bob")
    assert label.text() == "to: an address is up to 40 hex digits"
    assert RED in label.styleSheet() and RED in line.styleSheet()
    line.clear()
    qtbot.keyClicks(line, node.address("bob"))
    assert label.text() == "" and panel.call_button.isEnabled()
    number = args.findChild(QLineEdit, "arg_n")
    assert number is not None
    number.clear()
    qtbot.keyClicks(number, "x")
    assert label.text() == "n: uint256 needs a whole number" and RED in label.styleSheet()

    # another function: a fresh form, nothing red again
    panel.function.setCurrentIndex(panel.function.findData("total"))
    panel.function.setCurrentIndex(panel.function.findData("give"))
    assert args.problems_label.text() == "To fill in: to"


def test_send_calls_a_name_unknown_only_once_the_field_is_left(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    dialog = open_send(loop, controller, window, node, qtbot)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    edit, note = dialog.recipient_edit, dialog.recipient_note
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    qtbot.keyClicks(edit, "bo")
    assert edit.text() == "bo"
    assert "Nobody" not in note.text() and not note.text().startswith("✘")
    assert "bob" in note.text()
    assert RED not in note.styleSheet()
    # a partial address while typing: how far along, not an error
    edit.setText("0x12ab")
    assert not note.text().startswith("✘") and "4 of 40 hex digits" in note.text()
    # leaving the field: now the name is unknown, in red
    edit.clear()
    qtbot.keyClicks(edit, "bo")
    qtbot.keyClick(edit, Qt.Key.Key_Tab)
    assert note.text().startswith("✘ Nobody is called “bo”")
    # typing again: back to a name being typed; a whole name resolves at once
    edit.setFocus()
    qtbot.keyClick(edit, Qt.Key.Key_B)
    assert note.text() == f"→ user bob ({node.address('bob')})"
