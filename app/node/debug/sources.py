"""Which file a line of the compiled text is in, and back: breakpoints are set by file and line.

A debug session compiles one text: a single file, a ``{file: text}`` collection (joined in name
order, one newline between files, as the node compiles uploads), or a bundle the test runner's
bundler made (imports resolved, each file starting on a known line).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FileSpan:
    name: str
    first_line: int  # line of the compiled text where the file's line 1 is
    lines: int


class SourceMap:
    """The files of a compiled text and where each starts."""

    def __init__(self, text: str, spans: Sequence[FileSpan]) -> None:
        self.text = text
        self.spans = list(spans) or [FileSpan("", 1, text.count("\n") + 1)]

    @classmethod
    def single(cls, name: str, text: str) -> SourceMap:
        return cls(text, [FileSpan(name, 1, text.count("\n") + 1)])

    @classmethod
    def collection(cls, files: Mapping[str, str]) -> SourceMap:
        """``{file: text}`` joined as :func:`join_sources` joins it (sorted by name)."""
        spans: list[FileSpan] = []
        line = 1
        parts: list[str] = []
        for name in sorted(files):
            text = files[name]
            n = text.count("\n") + 1
            spans.append(FileSpan(name, line, n))
            parts.append(text)
            line += n
        return cls("\n".join(parts), spans)

    @classmethod
    def bundled(cls, text: str, files: Sequence[Any]) -> SourceMap:
        """A bundle's text and its files (objects with name, first_line and lines, as the
        test runner's bundler makes them: dependencies first, the root last)."""
        return cls(text, [FileSpan(f.name, f.first_line, f.lines) for f in files])

    def locate(self, line: int) -> tuple[str, int]:
        """(file, line in that file) of a line of the compiled text."""
        for s in self.spans:
            if s.first_line <= line < s.first_line + s.lines:
                return s.name, line - s.first_line + 1
        s = self.spans[-1]
        return s.name, max(1, line - s.first_line + 1)

    def find(self, name: str) -> FileSpan | None:
        """The file called ``name``: the exact name, else the same normalised path, else the
        only file with that base name (editors send absolute paths, old clients base names)."""
        for s in self.spans:
            if s.name == name:
                return s
        norm = os.path.normpath(os.path.abspath(name)) if name else name
        for s in self.spans:
            if s.name and os.path.normpath(os.path.abspath(s.name)) == norm:
                return s
        base = [s for s in self.spans if os.path.basename(s.name) == os.path.basename(name)]
        return base[0] if len(base) == 1 else None

    def compiled_line(self, name: str, line: int) -> int | None:
        s = self.find(name)
        if s is None or not 1 <= line <= s.lines:
            return None
        return s.first_line + line - 1

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.spans]
