"""Finding the ``Describe_`` tests of SolidVM files without the network.

A light scan of each file's own text (comments and strings skipped): top-level ``contract``
declarations whose name starts with ``Describe_``, their constructor's parameter count, and their
``it_*`` / ``property_*`` functions in source order with the line of the ``function`` keyword.
Types, visibility and return values are checked later against the node's xabi, as the platform's
runner checks them after compiling. Files that cannot be read or bundled (a missing import, a
malformed import statement) come back as :class:`CompileFailure`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .bundler import Bundle, BundleError, Problem, _Tok, _tokens, bundle
from .test_runner import CompileFailure, TestCase

__all__ = ["DescribeContract", "discover", "scan_file", "sol_files"]

DESCRIBE = "Describe_"
UNIT = "it_"
PROPERTY = "property_"


@dataclass
class DescribeContract:
    """One ``Describe_`` contract as written in a file."""

    name: str
    line: int
    constructor_params: int = 0  # parameters of its constructor (0 when it declares none)
    abstract: bool = False
    cases: list[TestCase] = field(default_factory=list)


def _key(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))


def read_source(path: str, sources: Mapping[str, str] | None) -> str:
    """The text of ``path``: the override of ``sources`` (keyed by absolute path) or the disk."""
    if sources:
        for k, v in sources.items():
            if _key(k) == _key(path):
                return v.removeprefix("\ufeff")
    with open(path, encoding="utf-8-sig") as fh:
        return fh.read()


def _params(toks: list[_Tok], i: int) -> tuple[int, int]:
    """Count the parameters of the list opening at ``toks[i]`` (``(``); returns (count, index
    after the closing ``)``)."""
    depth, count, seen = 0, 0, False
    n = len(toks)
    while i < n:
        t = toks[i]
        if t.kind == "op" and t.text in "([":
            depth += 1
        elif t.kind == "op" and t.text in ")]":
            depth -= 1
            if depth == 0:
                return (count + 1 if seen else 0), i + 1
        elif depth == 1 and t.kind == "op" and t.text == ",":
            count += 1
        elif depth >= 1:
            seen = True
        i += 1
    return (count + 1 if seen else 0), n


def scan_file(name: str, text: str) -> list[DescribeContract]:
    """The ``Describe_`` contracts declared in ``text`` (the file ``name``), in source order."""
    toks = _tokens(text, name, [])
    out: list[DescribeContract] = []
    depth = 0
    current: DescribeContract | None = None
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        if t.kind == "op" and t.text == "{":
            depth += 1
        elif t.kind == "op" and t.text == "}":
            depth = max(0, depth - 1)
            if depth == 0:
                current = None
        elif t.kind == "ident" and depth == 0 and t.text == "contract" and i + 1 < n:
            nxt = toks[i + 1]
            abstract = i > 0 and toks[i - 1].text == "abstract"
            if nxt.kind == "ident" and nxt.text.startswith(DESCRIBE):
                current = DescribeContract(nxt.text, t.line, abstract=abstract)
                out.append(current)
            else:
                current = None
        elif current is not None and depth == 1 and t.kind == "ident":
            if t.text == "constructor" and i + 1 < n and toks[i + 1].text == "(":
                current.constructor_params, i = _params(toks, i + 1)
                continue
            if t.text == "function" and i + 2 < n and toks[i + 1].kind == "ident":
                fname = toks[i + 1].text
                kind = (
                    "unit"
                    if fname.startswith(UNIT)
                    else "property"
                    if fname.startswith(PROPERTY)
                    else None
                )
                if kind is not None and not any(c.name == fname for c in current.cases):
                    current.cases.append(TestCase(name, current.name, fname, kind, t.line))
        i += 1
    return out


def _has_describe(path: Path, sources: Mapping[str, str] | None) -> bool:
    try:
        return DESCRIBE in read_source(str(path), sources)
    except (OSError, UnicodeDecodeError):
        return False


def sol_files(paths: Sequence[Path], sources: Mapping[str, str] | None = None) -> Iterator[str]:
    """The ``.sol`` files of ``paths``: files as given, and every ``*.sol`` under a folder
    (hidden folders skipped, sorted) that mentions ``Describe_``. Missing paths are yielded
    as given (reading them reports the error)."""
    seen: set[str] = set()
    for p in paths:
        found: list[str] = []
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for f in sorted(files):
                    full = Path(root) / f
                    if f.endswith(".sol") and _has_describe(full, sources):
                        found.append(os.path.normpath(full))
        else:
            found.append(os.path.normpath(p))
        for f in found:
            if _key(f) not in seen:
                seen.add(_key(f))
                yield f


def _failure(p: Problem) -> CompileFailure:
    return CompileFailure(p.file, p.line, p.column, p.message)


def discover_file(
    name: str, sources: Mapping[str, str] | None
) -> tuple[list[DescribeContract], list[CompileFailure], Bundle | None]:
    """The deployable ``Describe_`` contracts of one file and its bundled source (what a run
    sends), or why the file cannot run."""
    try:
        text = read_source(name, sources)
    except FileNotFoundError:
        return [], [CompileFailure(name, 0, 0, "no such file or folder")], None
    except IsADirectoryError:
        return [], [CompileFailure(name, 0, 0, "is a folder")], None
    except UnicodeDecodeError as exc:
        return [], [CompileFailure(name, 0, 0, f"not UTF-8 text (byte {exc.start})")], None
    except OSError as exc:
        return [], [CompileFailure(name, 0, 0, f"cannot read: {exc.strerror or exc}")], None
    contracts = [c for c in scan_file(name, text) if not c.abstract and c.constructor_params == 0]
    if not contracts:
        return [], [], None
    try:
        source = bundle(name, sources)
    except BundleError as exc:
        return contracts, [_failure(p) for p in exc.problems], None
    return contracts, [], source


def discover(
    paths: Sequence[Path], sources: Mapping[str, str] | None = None
) -> tuple[list[TestCase], list[CompileFailure]]:
    """Every test case of ``paths`` in order (files as given, folders sorted; within a file,
    contracts and functions in source order), and the files that cannot run."""
    cases: list[TestCase] = []
    failures: list[CompileFailure] = []
    for name in sol_files(paths, sources):
        contracts, problems, _ = discover_file(name, sources)
        failures.extend(problems)
        for c in contracts:
            cases.extend(c.cases)
    return cases, failures
