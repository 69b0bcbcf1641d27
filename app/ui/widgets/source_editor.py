"""A Solidity/SolidVM source editor: line numbers, syntax colours, error markers.

Tab indents, as in any code editor; Ctrl+Tab and Ctrl+Shift+Tab leave the editor (so the
keyboard is never trapped in it).
"""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QRect, QSize, Qt, QTimer
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

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


class SourceEditor(QPlainTextEdit):
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
        ctrl = event.modifiers() & Qt.KeyboardModifier.ControlModifier
        if ctrl and event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
            back = event.key() == Qt.Key.Key_Backtab or bool(
                event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            )
            self.setTabChangesFocus(True)  # QPlainTextEdit refuses to move focus otherwise
            self.focusNextPrevChild(not back)
            self.setTabChangesFocus(False)
            return
        super().keyPressEvent(event)

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
        self.setExtraSelections([s for s in (self._jump_sel, self._error_sel) if s is not None])
        self.gutter.update()

    def _cursor_moved(self) -> None:
        if self._jump_sel is not None and (
            self.textCursor().blockNumber() != self._jump_sel.cursor.blockNumber()
        ):
            self._jump_sel = None
            self._show_selections()

    def _edited_at(self, _position: int, _removed: int, _added: int) -> None:
        """An edit of the marked line clears its compile error (the fix is being typed; the
        next compile says whether it holds); lines added or removed above move the marker.
        (Colours repainted also report a change: only the line's text counts.)"""
        if self._error_sel is None:
            return
        block = self._error_sel.cursor.block()
        marked = block.blockNumber()
        if not block.isValid() or block.text() != self._error_text:
            self.clear_error()
        elif self.error_line != marked + 1:
            self.error_line = marked + 1
            self.gutter.update()
