"""Compiling a source: parse, compile, xabi; what ``compile_source`` returns.

Its own module (the package re-exports it) so that code running inside the world, such as the
``create``/``create2`` builtins compiling a source at run time, can use it without an import
cycle through the package.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .abi import contract_xabi
from .compiler import UnitCompiler
from .defs import ContractDef
from .errors import ParseError, SolidVMError
from .imports import check_imports
from .parser import parse

VMS = ("SolidVM", "EVM")
_JSON_START = re.compile(r"\s*[\[{]")


@dataclass
class CompiledUnit:
    """Every contract of one source text, compiled for one VM kind."""

    source: str
    vm: str
    contracts: dict[str, ContractDef]
    # a multi-file upload's files as joined: (name, first line in ``source``, lines)
    files: list[tuple[str, int, int]] = field(default_factory=list)

    def locate(self, line: int) -> tuple[str, int] | None:
        """(file, line in that file) of a line of ``source``; None for a single text."""
        for name, first, n in self.files:
            if first <= line < first + n:
                return name, line - first + 1
        return None

    @property
    def names(self) -> list[str]:
        """Names of the deployable contracts, in source order."""
        return [n for n, c in self.contracts.items() if c.kind == "contract"]

    def xabis(self) -> dict[str, dict[str, Any]]:
        return {n: c.xabi for n, c in self.contracts.items()}


def code_collection(text: str) -> str | dict[str, str] | list[Any]:
    """A source text as the platform reads one (an upload's, or a ``create``/``create2``
    argument): JSON ``[[file, text], ...]`` or ``{file: text}`` is a code collection of several
    files (in name order, as its map keeps them); anything else is one source text."""
    if _JSON_START.match(text) is None:
        return text
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if isinstance(data, dict) and data and all(isinstance(v, str) for v in data.values()):
        return {str(k): data[k] for k in sorted(data, key=str)}
    if (
        isinstance(data, list)
        and data
        and all(
            isinstance(i, list) and len(i) == 2 and all(isinstance(x, str) for x in i) for i in data
        )
    ):
        return {i[0]: i[1] for i in sorted(data)}
    return text


def _file_spans(src: str | dict[str, str] | list[Any]) -> list[tuple[str, int, int]]:
    """Where each file of a multi-file upload starts in :func:`join_sources`' text."""
    if isinstance(src, str):
        return []
    items = (
        list(src.items())
        if isinstance(src, dict)
        else [
            (str(i[0]), i[1]) if isinstance(i, list | tuple) and len(i) == 2 else ("", i)
            for i in src
        ]
    )
    spans: list[tuple[str, int, int]] = []
    line = 1
    for name, text in items:
        n = str(text).count("\n") + 1
        spans.append((str(name), line, n))
        line += n
    return spans


def join_sources(src: str | dict[str, str] | list[Any]) -> str:
    """Multi-file uploads (``{file: text}`` or ``[[file, text], ...]``) become one unit."""
    if isinstance(src, str):
        return src
    if isinstance(src, dict):
        return "\n".join(str(v) for v in src.values())
    parts: list[str] = []
    for item in src:
        if isinstance(item, list | tuple) and len(item) == 2:
            parts.append(str(item[1]))
        else:
            parts.append(str(item))
    return "\n".join(parts)


def compile_source(
    src: str | dict[str, str] | list[Any],
    vm: str = "SolidVM",
    *,
    test_clock: bool = False,
    checks: bool = True,
) -> CompiledUnit:
    """Parse and compile ``src``. Raises :class:`ParseError` / :class:`CompileError`.

    ``test_clock`` declares the ``fastForward(seconds)`` builtin (a node started with
    ``--test-clock``, like the platform's test runner); elsewhere it is an undeclared function.
    ``checks=False`` skips the platform's static checks (``compiler/checks.py``, the imports of
    a ``{file: text}`` upload): for code accepted once already, which must load as it was.
    """
    if vm not in VMS:
        raise SolidVMError(f"Invalid value for VM choice: {vm!r}; valid values are SolidVM, EVM")
    if isinstance(src, str):
        src = code_collection(src)  # a JSON collection of files, as the platform reads one
    text = join_sources(src)
    try:
        if checks and vm == "SolidVM" and not isinstance(src, str):
            check_imports(src)
        unit = parse(text, vm)
        contracts = UnitCompiler(unit, text, vm, test_clock, checks).compile()
    except RecursionError:
        raise ParseError("source nests too deeply", 1, 1) from None
    result = CompiledUnit(text, vm, contracts, _file_spans(src))
    for c in contracts.values():
        c.unit = result
        c.xabi = contract_xabi(c)
    return result
