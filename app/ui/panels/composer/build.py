"""Compile the file in front with what it imports: bundle on a worker thread (open tabs' unsaved
text takes the place of the disk's), ask the node, and map its errors back to file and line."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from app.client.abi_types import ContractSpec
from app.client.bundler import Bundle, BundleError, bundle
from app.client.errors import StratoError, error_text
from app.client.models import SourcePosition
from app.services.composer import ComposerService
from app.ui.widgets.source_editor import ERROR_RE

SCRATCH_NAME = "Untitled.sol"


@dataclass
class Problem:
    """A compile problem at a place: ``path`` None is the scratch buffer; line 0 = no line."""

    path: Path | None
    line: int
    column: int
    message: str

    def where(self) -> str:
        name = self.path.name if self.path is not None else "Untitled"
        return f"{name}, line {self.line}, column {self.column}" if self.line else name


@dataclass
class Build:
    source: str = ""
    specs: dict[str, ContractSpec] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    files: int = 1
    bundle: Bundle | None = None  # to map the node's positions in ``source`` back to files
    scratch: str | None = None  # the scratch buffer's name in the bundle, when it is the root


async def compile_front(
    composer: ComposerService,
    path: Path | None,
    text: str,
    overrides: dict[str, str],
    folder: Path | None,
    vm: str,
) -> Build:
    """``path`` is the front tab's file (None: the scratch text, whose imports are read from the
    project ``folder``, or the working directory)."""
    root = str(path) if path is not None else os.path.join(str(folder or Path.cwd()), SCRATCH_NAME)
    files = {**overrides, root: text}

    def back(name: str) -> Path | None:
        return None if path is None and _same(name, root) else Path(name)

    try:
        b: Bundle = await asyncio.to_thread(bundle, root, files)
    except BundleError as exc:
        return Build(
            problems=[Problem(back(p.file), p.line, p.column, p.message) for p in exc.problems]
        )
    try:
        specs = await composer.compile(b.source, vm)
    except StratoError as exc:
        message = error_text(exc)
        found = []
        for m in ERROR_RE.finditer(message):
            loc = b.locate(int(m[1]), int(m[2]))
            found.append(Problem(back(loc.file), loc.line, loc.column, ""))

        def rewrite(m: object) -> str:
            assert hasattr(m, "group")
            loc = b.locate(int(m.group(1)), int(m.group(2)))
            p = back(loc.file)
            return f"{p.name if p else 'Untitled'} line {loc.line}, column {loc.column}"

        lead = ERROR_RE.search(message)
        if lead is not None and message[lead.end() :].startswith(": "):
            # "The node refused the request (HTTP 400): line 3, column 9: unexpected ';'": the
            # detail alone, the place is said apart
            message = message[lead.end() + 2 :]
        text_out = ERROR_RE.sub(rewrite, message)
        if not found:
            return Build(problems=[Problem(None if path is None else path, 0, 0, text_out)])
        for p in found:
            p.message = text_out
        return Build(problems=found[:1] + [p for p in found[1:] if p != found[0]])
    scratch = root if path is None else None
    return Build(source=b.source, specs=specs, files=len(b.files), bundle=b, scratch=scratch)


def failure_place(
    pos: SourcePosition, build: Build | None, contracts: Collection[str]
) -> Problem | None:
    """The file and line where a failed transaction failed, when the node named a contract of
    the last build (its lines are those of the bundle sent)."""
    if build is None or build.bundle is None or pos.name not in contracts:
        return None
    loc = build.bundle.locate(pos.line, pos.column)
    scratch = build.scratch is not None and _same(loc.file, build.scratch)
    return Problem(None if scratch else Path(loc.file), loc.line, loc.column, "")


def _same(a: str, b: str) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))
