"""The source editor's indentation as one types: Enter keeps the line's indentation, a step
more after an opener, the closing brace to a line of its own; ``}`` on a blank line steps back;
the step is the file's own (tab or four spaces); one undo takes a whole Enter back."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.ui.widgets.source_editor import SourceEditor


def editor_with(qtbot: QtBot, text: str, at: int | None = None) -> SourceEditor:
    ed = SourceEditor()
    qtbot.addWidget(ed)
    ed.setPlainText(text)
    cur = ed.textCursor()
    cur.setPosition(len(text) if at is None else at)
    ed.setTextCursor(cur)
    ed.show()
    ed.setFocus()
    return ed


def before_cursor(ed: SourceEditor) -> str:
    return ed.toPlainText()[: ed.textCursor().position()]


def test_enter_after_an_opening_brace_indents_one_step(qtbot: QtBot) -> None:
    ed = editor_with(qtbot, "contract C {")
    QTest.keyClick(ed, Qt.Key.Key_Return)
    assert ed.toPlainText() == "contract C {\n    "
    QTest.keyClicks(ed, "uint x;")
    QTest.keyClick(ed, Qt.Key.Key_Return)  # the next line keeps the indentation
    assert ed.toPlainText() == "contract C {\n    uint x;\n    "


def test_enter_between_braces_puts_the_closing_one_on_its_own_line(qtbot: QtBot) -> None:
    text = "    function f() {}"
    ed = editor_with(qtbot, text, at=len(text) - 1)
    QTest.keyClick(ed, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert ed.toPlainText() == "    function f() {\n        \n    }"
    assert before_cursor(ed) == "    function f() {\n        "  # on the middle line


def test_a_closing_brace_on_a_blank_line_steps_back(qtbot: QtBot) -> None:
    ed = editor_with(qtbot, "contract C {\n    function f() {\n        uint x;\n        ")
    QTest.keyClicks(ed, "}")
    assert ed.toPlainText().endswith("        uint x;\n    }")
    QTest.keyClick(ed, Qt.Key.Key_Return)
    QTest.keyClicks(ed, "}")
    assert ed.toPlainText().endswith("    }\n}")
    QTest.keyClicks(ed, "}")  # after text on the line: typed as it is
    assert ed.toPlainText().endswith("    }\n}}")


def test_a_tab_indented_file_indents_with_tabs(qtbot: QtBot) -> None:
    ed = editor_with(qtbot, "contract C {\n\tuint x;\n\tfunction f() {")
    assert ed.indent_step() == "\t"
    QTest.keyClick(ed, Qt.Key.Key_Return)
    assert ed.toPlainText().endswith("\tfunction f() {\n\t\t")
    QTest.keyClicks(ed, "}")
    assert ed.toPlainText().endswith("\tfunction f() {\n\t}")


def test_one_undo_takes_a_whole_enter_back(qtbot: QtBot) -> None:
    text = "contract C {}"
    ed = editor_with(qtbot, text, at=len(text) - 1)
    QTest.keyClick(ed, Qt.Key.Key_Return)
    assert ed.toPlainText() == "contract C {\n    \n}"
    ed.undo()
    assert ed.toPlainText() == text


def test_enter_replaces_a_selection_and_shift_enter_is_left_to_the_editor(
    qtbot: QtBot,
) -> None:
    ed = editor_with(qtbot, "    uint x; uint y;")
    cur = ed.textCursor()
    cur.setPosition(len("    uint x;"))
    cur.setPosition(len("    uint x; "), QTextCursor.MoveMode.KeepAnchor)
    ed.setTextCursor(cur)
    QTest.keyClick(ed, Qt.Key.Key_Return)
    assert ed.toPlainText() == "    uint x;\n    uint y;"
    ed.moveCursor(QTextCursor.MoveOperation.End)
    QTest.keyClick(ed, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    # Qt's own line break within the line, no indentation added
    assert ed.document().toRawText() == "    uint x;\u2029    uint y;\u2028"


def test_a_read_only_editor_is_left_as_it_is(qtbot: QtBot) -> None:
    text = "contract C {\n    "
    ed = editor_with(qtbot, text)
    ed.setReadOnly(True)  # the Explorer's contract source
    QTest.keyClick(ed, Qt.Key.Key_Return)
    QTest.keyClicks(ed, "}")
    assert ed.toPlainText() == text
