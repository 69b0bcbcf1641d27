"""A Solidity/SolidVM source editor: line numbers, syntax colours, error markers, breakpoints
(a click in the line numbers or F9) and the line a paused debugger stands on.

Tab indents, as in any code editor; Ctrl+Tab and Ctrl+Shift+Tab leave the editor (so the
keyboard is never trapped in it). Enter keeps the line's indentation, one step more after an
opening ``{``, ``(`` or ``[`` (and between a pair of braces, the closing one goes to a line of
its own); a ``}`` typed on a blank line goes one step back. A step is what the file's own
indented lines use: a tab, or four spaces.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QFont,
    QFontDatabase,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import QInputDialog, QMenu, QPlainTextEdit, QTextEdit, QWidget

KEYWORDS = (
    "contract",
    "interface",
    "library",
    "abstract",
    "pragma",
    "import",
    "using",
    "is",
    "function",
    "constructor",
    "modifier",
    "event",
    "emit",
    "struct",
    "enum",
    "mapping",
    "returns",
    "return",
    "if",
    "else",
    "for",
    "while",
    "do",
    "break",
    "continue",
    "public",
    "private",
    "internal",
    "external",
    "view",
    "pure",
    "payable",
    "constant",
    "memory",
    "storage",
    "calldata",
    "new",
    "delete",
    "require",
    "revert",
    "assert",
    "true",
    "false",
    "this",
    "super",
    "virtual",
    "override",
    "immutable",
    "unchecked",
    # SolidVM additions
    "solidvm",
    "account",
    "record",
)
TYPES = r"\b(u?int\d*|bytes\d*|bool|string|address|byte|account)\b"
ERROR_RE = re.compile(r"line (\d+), column (\d+)")


# Each theme's syntax colours, every one at least WCAG AA's 4.5:1 against its editor background
# (the light theme's Base, the dark theme's; tests/gui/test_syntax_contrast.py computes them)
LIGHT_EDITOR_BACKGROUND = "#ffffff"
DARK_EDITOR_BACKGROUND = "#1e2024"  # app.ui.shell.theme.dark_palette's Base
SYNTAX_LIGHT = {
    "keyword": "#7a1fa2",
    "type": "#00778a",
    "number": "#a05a00",
    "string": "#2e7d32",
    "comment": "#666666",
    "function": "#1f5fbf",
}
SYNTAX_DARK = {
    "keyword": "#c678dd",
    "type": "#56b6c2",
    "number": "#d19a66",
    "string": "#98c379",
    "comment": "#959cab",
    "function": "#61afef",
}


def syntax_colours(dark: bool) -> dict[str, str]:
    return SYNTAX_DARK if dark else SYNTAX_LIGHT


def _fmt(color: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    f = QTextCharFormat()
    f.setForeground(QColor(color))
    if bold:
        f.setFontWeight(QFont.Weight.Bold)
    f.setFontItalic(italic)
    return f


class TreeSitterSolidity:
    """A tree-sitter parse of the whole source, as highlight spans per line.

    The grammar is Solidity's; SolidVM's own words (``account``, ``record``) are left to the
    regular-expression rules that run after these spans.
    """

    def __init__(self) -> None:
        import warnings
        from importlib.resources import files

        import tree_sitter
        import tree_sitter_solidity

        with warnings.catch_warnings():  # the grammar hands its language over as an int
            warnings.simplefilter("ignore", DeprecationWarning)
            self.language = tree_sitter.Language(tree_sitter_solidity.language())
        self.parser = tree_sitter.Parser(self.language)
        query = (
            files("app.ui.widgets").joinpath("solidity-highlights.scm").read_text(encoding="utf-8")
        )
        self.query = tree_sitter.Query(self.language, query)
        self._cursor = tree_sitter.QueryCursor

    def spans(self, text: str) -> dict[int, list[tuple[int, int, str]]]:
        """line number -> [(start column, end column, capture name)] in characters."""
        data = text.encode("utf-8")
        tree = self.parser.parse(data)
        lines = text.split("\n")
        out: dict[int, list[tuple[int, int, str]]] = {}
        for name, nodes in self._cursor(self.query).captures(tree.root_node).items():
            for node in nodes:
                (r0, c0), (r1, c1) = node.start_point, node.end_point
                for row in range(r0, min(r1, len(lines) - 1) + 1):
                    line = lines[row].encode("utf-8")
                    start = c0 if row == r0 else 0
                    end = c1 if row == r1 else len(line)
                    out.setdefault(row, []).append(
                        (
                            len(line[:start].decode("utf-8", "ignore")),
                            len(line[:end].decode("utf-8", "ignore")),
                            name,
                        )
                    )
        return out


def tree_sitter_or_none() -> TreeSitterSolidity | None:
    try:
        return TreeSitterSolidity()
    except Exception:  # no wheel for this platform, or a grammar/query mismatch
        return None


class SolidityHighlighter(QSyntaxHighlighter):
    """tree-sitter spans when available, then regular expressions (SolidVM words, and everything
    when tree-sitter is missing); multi-line comments included."""

    def __init__(self, document: QTextDocument, dark: bool = False) -> None:
        super().__init__(document)
        self.tree: TreeSitterSolidity | None = None
        self.line_spans: dict[int, list[tuple[int, int, str]]] = {}
        self._set_formats(dark)

    def set_dark(self, dark: bool) -> None:
        """Switch to the other theme's colours (the app's theme changed) and repaint."""
        if dark != self.dark:
            self._set_formats(dark)
            self.rehighlight()

    def _set_formats(self, dark: bool) -> None:
        self.dark = dark
        c = syntax_colours(dark)
        kw, ty, num, st = c["keyword"], c["type"], c["number"], c["string"]
        com, fn = c["comment"], c["function"]
        self.capture_formats = {
            "keyword": _fmt(kw, bold=True),
            "type": _fmt(ty),
            "number": _fmt(num),
            "constant": _fmt(num),
            "string": _fmt(st),
            "comment": _fmt(com, italic=True),
            "function": _fmt(fn),
        }
        self.solidvm_rule = (re.compile(r"\b(account|record|solidvm)\b"), _fmt(kw, bold=True))
        self.rules = [
            (re.compile(r"\b(" + "|".join(KEYWORDS) + r")\b"), _fmt(kw, bold=True)),
            (re.compile(TYPES), _fmt(ty)),
            (re.compile(r"\b(0x[0-9a-fA-F]+|\d[\d_]*(e\d+)?)\b"), _fmt(num)),
            (re.compile(r'"([^"\\]|\\.)*"|\'([^\'\\]|\\.)*\''), _fmt(st)),
            (re.compile(r"//.*$"), _fmt(com, italic=True)),
        ]
        self.comment = _fmt(com, italic=True)

    def use_tree_sitter(self, tree: TreeSitterSolidity | None) -> None:
        self.tree = tree
        self.reparse()

    def reparse(self) -> None:
        """Parse the whole document again and repaint (about 1 ms per 10 KB)."""
        if self.tree is not None:
            self.line_spans = self.tree.spans(self.document().toPlainText())
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        if self.tree is not None:
            for start, end, name in self.line_spans.get(self.currentBlock().blockNumber(), ()):
                fmt = self.capture_formats.get(name)
                if fmt is not None:
                    self.setFormat(start, end - start, fmt)
            rx, fmt = self.solidvm_rule
            for m in rx.finditer(text):
                self.setFormat(m.start(), m.end() - m.start(), fmt)
            return
        for rx, fmt in self.rules:
            for m in rx.finditer(text):
                self.setFormat(m.start(), m.end() - m.start(), fmt)
        # /* ... */ spanning lines: block state 1 = inside a comment
        self.setCurrentBlockState(0)
        start = 0 if self.previousBlockState() == 1 else text.find("/*")
        while start >= 0:
            end = text.find("*/", start + 2 if self.previousBlockState() != 1 or start else 0)
            if end < 0:
                self.setCurrentBlockState(1)
                self.setFormat(start, len(text) - start, self.comment)
                break
            self.setFormat(start, end + 2 - start, self.comment)
            start = text.find("/*", end + 2)


class _Gutter(QWidget):
    def __init__(self, editor: SourceEditor) -> None:
        super().__init__(editor)
        self.editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self.editor.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self.editor.paint_gutter(event)

    def line_at(self, y: int) -> int:
        """The 1-based line at height ``y`` of the gutter."""
        return self.editor.cursorForPosition(QPoint(0, y)).block().blockNumber() + 1

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.editor.toggle_breakpoint(self.line_at(round(event.position().y())))

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """Right-click: the line's breakpoint menu (a condition, remove, add)."""
        self.editor.breakpoint_menu(self.line_at(event.pos().y())).exec(event.globalPos())


_CLOSERS = {"{": "}", "(": ")", "[": "]"}  # what Enter indents after, and its pair


class SourceEditor(QPlainTextEdit):
    """Signals: breakpoints_changed(): a breakpoint was set or cleared (click, F9)."""

    breakpoints_changed = Signal()

    def __init__(self, parent: QWidget | None = None, dark: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("sourceEditor")
        self.setAccessibleName("Contract source")
        self.setToolTip("Tab indents; Ctrl+Tab moves on to the next control")
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabStopDistance(4 * self.fontMetrics().horizontalAdvance(" "))
        self.highlighter = SolidityHighlighter(self.document(), dark)
        self._tree_loaded = False  # the grammar loads with the first text (~15 ms), not at start
        self._reparse = QTimer(self)
        self._reparse.setSingleShot(True)
        self._reparse.setInterval(120)
        self._reparse.timeout.connect(self._reparse_now)
        self._reparsing = False  # a repaint of the colours changes no text: no new parse
        self.document().contentsChanged.connect(self._contents_changed)
        self.gutter = _Gutter(self)
        self.error_line: int | None = None
        self._error_sel: QTextEdit.ExtraSelection | None = None
        self._error_text = ""  # the marked line as compiled (a change of it clears the mark)
        self._jump_sel: QTextEdit.ExtraSelection | None = None  # a line jumped to, lit
        # a breakpoint is a cursor at its line's block with its condition: the document moves
        # the cursor when lines are inserted or removed above, so the breakpoint keeps its line
        self._anchors: list[tuple[QTextCursor, str | None]] = []
        self._bp_lines: dict[int, str | None] = {}  # as last reported (edits compare to it)
        self.condition_dialog: QInputDialog | None = None  # while one is open
        self._replacing = False  # setPlainText: the breakpoints keep their line numbers
        self._paused_sel: QTextEdit.ExtraSelection | None = None  # where the debugger stands
        self.document().contentsChange.connect(self._edited_at)
        self.cursorPositionChanged.connect(self._cursor_moved)
        self.blockCountChanged.connect(self._update_margin)
        self.updateRequest.connect(self._scroll_gutter)
        self._update_margin()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        changed = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)
        if event.type() in changed:  # the theme switched: its colours
            self.highlighter.set_dark(self.palette().base().color().lightness() < 128)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_F9 and not event.modifiers():
            self.toggle_breakpoint(self.textCursor().blockNumber() + 1)
            return
        ctrl = event.modifiers() & Qt.KeyboardModifier.ControlModifier
        if ctrl and event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
            back = event.key() == Qt.Key.Key_Backtab or bool(
                event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            )
            self.setTabChangesFocus(True)  # QPlainTextEdit refuses to move focus otherwise
            self.focusNextPrevChild(not back)
            self.setTabChangesFocus(False)
            return
        if not self.isReadOnly():  # (a cursor's edits would pass a read-only editor by)
            plain = not (event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier)
            if plain and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._new_line()
                return
            if event.text() == "}" and self._dedent_before_brace():
                return
        super().keyPressEvent(event)

    def indent_step(self) -> str:
        """One step of indentation: a tab when the file's first indented line starts with
        one, else four spaces."""
        block = self.document().begin()  # (to the first indented line only: a large file
        while block.isValid():  # costs what its first lines do)
            line = block.text()
            if line[:1] == "\t":
                return "\t"
            if line[:1] == " " and line.strip():
                return "    "
            block = block.next()
        return "    "

    def _new_line(self) -> None:
        """Enter: a new line with this line's indentation, a step more after an opener."""
        cur = self.textCursor()
        cur.beginEditBlock()
        cur.removeSelectedText()  # (as a plain Enter replaces a selection)
        line = cur.block().text()
        col = cur.positionInBlock()
        before, after = line[:col], line[col:]
        indent = before[: len(before) - len(before.lstrip(" \t"))]
        opener = before.rstrip()[-1:]
        if opener in _CLOSERS:
            cur.insertText("\n" + indent + self.indent_step())
            if after.lstrip(" \t")[:1] == _CLOSERS[opener]:
                keep = cur.position()  # the closer goes to a line of its own
                cur.insertText("\n" + indent)
                cur.setPosition(keep)
        else:
            cur.insertText("\n" + indent)
        cur.endEditBlock()
        self.setTextCursor(cur)
        self.ensureCursorVisible()

    def _dedent_before_brace(self) -> bool:
        """A ``}`` typed where only indentation precedes it, one step back; False (nothing
        done) anywhere else."""
        cur = self.textCursor()
        if cur.hasSelection():
            return False
        before = cur.block().text()[: cur.positionInBlock()]
        if not before or before.strip(" \t"):
            return False
        step = self.indent_step()
        if before.endswith(step):
            drop = len(step)
        elif before.endswith("\t"):
            drop = 1
        else:  # fewer spaces than a step
            drop = len(before) - len(before.rstrip(" "))
        cur.beginEditBlock()
        cur.movePosition(QTextCursor.MoveOperation.Left, QTextCursor.MoveMode.KeepAnchor, drop)
        cur.insertText("}")
        cur.endEditBlock()
        self.setTextCursor(cur)
        return True

    def _contents_changed(self) -> None:
        if not self._reparsing:
            self._reparse.start()

    def _reparse_now(self) -> None:
        self._reparsing = True
        try:
            if not self._tree_loaded:
                self._tree_loaded = True
                self.highlighter.use_tree_sitter(tree_sitter_or_none())
            else:
                self.highlighter.reparse()
        finally:
            self._reparsing = False

    def gutter_width(self) -> int:
        digits = max(3, len(str(self.blockCount())))
        return 8 + self.fontMetrics().horizontalAdvance("9") * digits

    def _update_margin(self, _count: int = 0) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _scroll_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        cr = self.contentsRect()
        self.gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def paint_gutter(self, event: QPaintEvent) -> None:
        painter = QPainter(self.gutter)
        pal = self.palette()
        painter.fillRect(event.rect(), pal.alternateBase())
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom = top + round(self.blockBoundingRect(block).height())
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                is_error = self.error_line == number + 1
                if number + 1 in self._bp_lines:
                    h = self.fontMetrics().height()
                    d = max(h - 6, 6)
                    y = top + (h - d) // 2
                    conditional = bool(self._bp_lines[number + 1])
                    painter.setBrush(QColor("#e67e22" if conditional else "#d0312d"))
                    painter.setPen(Qt.PenStyle.NoPen)
                    painter.drawEllipse(2, y, d, d)
                    if conditional:  # a conditional one: orange with a white bar (as "=")
                        painter.setBrush(QColor("white"))
                        painter.drawRect(2 + d // 4, y + d // 2 - 1, d // 2, 2)
                painter.setPen(QColor("#c0392b") if is_error else pal.placeholderText().color())
                painter.drawText(
                    0,
                    top,
                    self.gutter.width() - 4,
                    self.fontMetrics().height(),
                    Qt.AlignmentFlag.AlignRight,
                    ("● " if is_error else "") + str(number + 1),
                )
            block = block.next()
            top = bottom
            bottom = top + round(self.blockBoundingRect(block).height())
            number += 1
        painter.end()

    # ------------------------------------------------------------ error markers

    def mark_error(self, message: str) -> int | None:
        """Underline the place a ``line N, column M`` message names; returns the line."""
        m = ERROR_RE.search(message)
        if m is None:
            self.clear_error()
            return None
        line, column = int(m.group(1)), int(m.group(2))
        self.error_line = line
        block = self.document().findBlockByNumber(line - 1)
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        fmt.setUnderlineColor(QColor("#c0392b"))
        fmt.setBackground(QColor(192, 57, 43, 40))
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
        sel.format = fmt
        cursor = QTextCursor(block)
        cursor.movePosition(QTextCursor.MoveOperation.Right, n=max(column - 1, 0))
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        sel.cursor = cursor
        self._error_sel = sel
        self._error_text = block.text()
        self._show_selections()
        return line

    def clear_error(self) -> None:
        self.error_line = None
        self._error_sel = None
        self._show_selections()

    def highlight_line(self, line: int) -> None:
        """Light ``line`` (1-based) across the editor's width, until the caret leaves it: a jump
        to a test or a problem shows where it landed, not just a caret among the lines."""
        block = self.document().findBlockByNumber(max(line, 1) - 1)
        if not block.isValid():
            return
        sel = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        colour = QColor(self.palette().highlight().color())
        colour.setAlpha(70)
        fmt.setBackground(colour)
        fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
        sel.format = fmt
        sel.cursor = QTextCursor(block)
        self._jump_sel = sel
        self._show_selections()

    @property
    def highlighted_line(self) -> int | None:
        """The line lit by :meth:`highlight_line` (1-based), while it is."""
        return None if self._jump_sel is None else self._jump_sel.cursor.blockNumber() + 1

    def _show_selections(self) -> None:
        sels = (self._paused_sel, self._jump_sel, self._error_sel)
        self.setExtraSelections([s for s in sels if s is not None])
        self.gutter.update()

    # ------------------------------------------------------------ debugging

    @property
    def breakpoints(self) -> set[int]:
        """The lines (1-based) with a breakpoint."""
        return set(self._bp_lines)

    @property
    def conditions(self) -> dict[int, str]:
        """line -> condition of the conditional breakpoints."""
        return {n: c for n, c in self._bp_lines.items() if c}

    def _lines_now(self) -> dict[int, str | None]:
        out: dict[int, str | None] = {}
        kept: list[tuple[QTextCursor, str | None]] = []
        for cursor, cond in self._anchors:
            n = cursor.blockNumber() + 1
            if n not in out:  # two met (a line removed): one stays
                out[n] = cond
                kept.append((cursor, cond))
        self._anchors = kept
        return out

    def _anchor(self, line: int, condition: str | None) -> None:
        block = self.document().findBlockByNumber(line - 1)
        if block.isValid():
            self._anchors.append((QTextCursor(block), condition or None))

    def _breakpoints_moved(self) -> None:
        now = self._lines_now()
        if now != self._bp_lines:
            self._bp_lines = now
            self.gutter.update()
            self.breakpoints_changed.emit()

    def toggle_breakpoint(self, line: int) -> None:
        """Set or clear the breakpoint of ``line`` (1-based)."""
        if not 1 <= line <= self.blockCount():
            return
        if line in self._bp_lines:
            self._anchors = [(c, k) for c, k in self._anchors if c.blockNumber() + 1 != line]
        else:
            self._anchor(line, None)
        self._breakpoints_moved()

    def set_condition(self, line: int, condition: str | None) -> None:
        """Give ``line``'s breakpoint a condition (a SolidVM expression; empty: none), setting
        the breakpoint when the line has none."""
        self._anchors = [(c, k) for c, k in self._anchors if c.blockNumber() + 1 != line]
        self._anchor(line, (condition or "").strip() or None)
        self._breakpoints_moved()

    def set_breakpoints(
        self, lines: Iterable[int], conditions: Mapping[int, str] | None = None
    ) -> None:
        """Replace the breakpoints (a file (re)loaded: its kept ones); no signal."""
        self._anchors = []
        for n in sorted(set(lines)):
            if 1 <= n <= max(self.blockCount(), 1):
                self._anchor(n, (conditions or {}).get(n))
        self._bp_lines = self._lines_now()
        self.gutter.update()

    def setPlainText(self, text: str) -> None:
        """The whole text replaced (a file loaded): the breakpoints stay on their line numbers."""
        lines, conds = self.breakpoints, self.conditions
        self._replacing = True  # (the cursors all fall to line 1 meanwhile: not a move)
        try:
            super().setPlainText(text)
        finally:
            self._replacing = False
        self.set_breakpoints(lines, conds)

    def breakpoint_menu(self, line: int) -> QMenu:
        """The gutter's menu for ``line``: its condition, remove; or add one."""
        menu = QMenu(self)
        if line in self._bp_lines:
            menu.addAction("Condition…", lambda: self.edit_condition(line))
            menu.addAction("Remove breakpoint", lambda: self.toggle_breakpoint(line))
        else:
            menu.addAction("Add breakpoint", lambda: self.toggle_breakpoint(line))
            menu.addAction("Add conditional breakpoint…", lambda: self.edit_condition(line))
        return menu

    def edit_condition(self, line: int) -> QInputDialog:
        """Ask for ``line``'s condition (window-modal, not blocking): OK sets it."""
        dialog = QInputDialog(self)
        dialog.setWindowTitle("Breakpoint condition")
        dialog.setLabelText(
            f"Stop at line {line} only when this SolidVM expression is true (empty: always):"
        )
        dialog.setTextValue(self._bp_lines.get(line) or "")
        dialog.setObjectName("breakpointCondition")
        dialog.textValueSelected.connect(lambda text: self.set_condition(line, text))
        dialog.finished.connect(lambda _r: setattr(self, "condition_dialog", None))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.condition_dialog = dialog
        dialog.open()
        return dialog

    def set_paused_line(self, line: int | None) -> None:
        """Light the line a paused run stands on (None: it runs, or ended)."""
        if line is None:
            self._paused_sel = None
        else:
            block = self.document().findBlockByNumber(max(line, 1) - 1)
            sel = QTextEdit.ExtraSelection()
            fmt = QTextCharFormat()
            fmt.setBackground(QColor(255, 200, 0, 110))
            fmt.setProperty(QTextFormat.Property.FullWidthSelection, True)
            sel.format = fmt
            sel.cursor = QTextCursor(block)
            self._paused_sel = sel
        self._show_selections()

    @property
    def paused_line(self) -> int | None:
        """The line :meth:`set_paused_line` lit (1-based), while it is."""
        return None if self._paused_sel is None else self._paused_sel.cursor.blockNumber() + 1

    def _cursor_moved(self) -> None:
        if self._jump_sel is not None and (
            self.textCursor().blockNumber() != self._jump_sel.cursor.blockNumber()
        ):
            self._jump_sel = None
            self._show_selections()

    def _edited_at(self, _position: int, _removed: int, _added: int) -> None:
        """An edit of the marked line clears its compile error (the fix is being typed; the
        next compile says whether it holds); lines added or removed above move the marker and
        the breakpoints. (Colours repainted also report a change: only the line's text counts.)"""
        if self._anchors and not self._replacing:
            self._breakpoints_moved()
        if self._error_sel is None:
            return
        block = self._error_sel.cursor.block()
        marked = block.blockNumber()
        if not block.isValid() or block.text() != self._error_text:
            self.clear_error()
        elif self.error_line != marked + 1:
            self.error_line = marked + 1
            self.gutter.update()
