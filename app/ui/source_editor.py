"""A Solidity/SolidVM source editor: line numbers, syntax colours, error markers."""

from __future__ import annotations

import re

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
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


def _fmt(color: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    f = QTextCharFormat()
    f.setForeground(QColor(color))
    if bold:
        f.setFontWeight(QFont.Weight.Bold)
    f.setFontItalic(italic)
    return f


class SolidityHighlighter(QSyntaxHighlighter):
    """Keywords, types, numbers, strings and comments (multi-line comments included)."""

    def __init__(self, document: QTextDocument, dark: bool = False) -> None:
        super().__init__(document)
        kw, ty, num, st, com = (
            ("#c678dd", "#56b6c2", "#d19a66", "#98c379", "#7f848e")
            if dark
            else ("#7a1fa2", "#00778a", "#a05a00", "#2e7d32", "#7a7a7a")
        )
        self.rules = [
            (re.compile(r"\b(" + "|".join(KEYWORDS) + r")\b"), _fmt(kw, bold=True)),
            (re.compile(TYPES), _fmt(ty)),
            (re.compile(r"\b(0x[0-9a-fA-F]+|\d[\d_]*(e\d+)?)\b"), _fmt(num)),
            (re.compile(r'"([^"\\]|\\.)*"|\'([^\'\\]|\\.)*\''), _fmt(st)),
            (re.compile(r"//.*$"), _fmt(com, italic=True)),
        ]
        self.comment = _fmt(com, italic=True)

    def highlightBlock(self, text: str) -> None:
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
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabStopDistance(4 * self.fontMetrics().horizontalAdvance(" "))
        self.highlighter = SolidityHighlighter(self.document(), dark)
        self.gutter = _Gutter(self)
        self.error_line: int | None = None
        self.blockCountChanged.connect(self._update_margin)
        self.updateRequest.connect(self._scroll_gutter)
        self._update_margin()

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
        self.setExtraSelections([sel])
        self.gutter.update()
        return line

    def clear_error(self) -> None:
        self.error_line = None
        self.setExtraSelections([])
        self.gutter.update()
