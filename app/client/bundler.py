"""One SolidVM source text from a folder of files with relative imports, and the way back.

STRATO projects are trees of ``.sol`` files joined by ``import "../x/Y.sol";``; the node's compile
and upload routes take a single text. :func:`bundle` follows the file imports from a root file,
includes each file once, dependencies first (cycles are allowed, as on the platform), and blanks
the import statements so that every other character keeps its line and column within its file.
:meth:`Bundle.locate` and :meth:`Bundle.map_message` turn a node error's ``line N, column M``
back into ``file:line:column``. Imports of deployed code (``import <address>;``) stay in the text
for the node. A name declared in two files is kept where the platform keeps it, the other
declaration blanked (:func:`_repeated_declarations`). Pure Python: no Qt, no network.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = [
    "Bundle",
    "BundleError",
    "Import",
    "Location",
    "Problem",
    "SourceFile",
    "bundle",
    "find_imports",
]


@dataclass(frozen=True, slots=True)
class Location:
    """A place in one file: ``file:line:column`` (both 1-based, as the node counts them)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong (or worth a warning) at a place in a file; ``line`` 0 means the file."""

    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        return f"{where}: {self.message}"


class BundleError(Exception):
    """The files cannot be bundled: missing or unreadable imports, malformed import statements."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Import:
    """One import statement of a file, as written."""

    line: int  # of the `import` keyword
    column: int
    start: int  # offsets in the file's text: [start, end) spans the statement with its ';'
    end: int
    target: str  # the file name, or `<...>` for an import of deployed code
    target_line: int
    target_column: int
    is_file: bool
    items: tuple[str, ...] = ()  # names of `import {A, B as C} from ...` (A, B)
    aliases: tuple[tuple[str, int, int], ...] = ()  # (alias, line, column) the sandbox ignores


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One file of a bundle: its name as resolved, its text, and where it starts in the bundle."""

    name: str
    text: str
    first_line: int  # line of the bundle where the file's line 1 is
    lines: int  # lines the file occupies in the bundle


@dataclass
class Bundle:
    """The bundled source (dependencies first, root last) and the map back to the files."""

    source: str
    files: list[SourceFile]
    warnings: list[Problem] = field(default_factory=list)

    @property
    def root(self) -> str:
        return self.files[-1].name

    def locate(self, line: int, column: int) -> Location:
        """The file position of a ``line``/``column`` of :attr:`source`."""
        chosen = self.files[-1]
        for f in self.files:
            if line < f.first_line + f.lines:
                chosen = f
                break
        if line < chosen.first_line:  # line 0 or negative: clamp to the first file
            chosen = self.files[0]
            return Location(chosen.name, 1, column)
        return Location(chosen.name, line - chosen.first_line + 1, column)

    def map_message(self, text: str) -> str:
        """Rewrite every ``line N, column M`` of a node error into ``file:line:column``.

        ``"line 12, column 5: detail"`` (a ParseError or CompileError, or the JSON string of a
        400 answer) becomes ``"path:3:5: detail"``; text without a position is returned as is.
        """
        return _POSITION_RE.sub(lambda m: str(self.locate(int(m[1]), int(m[2]))), text)

    def map_error(self, error: BaseException | str) -> str:
        """:meth:`map_message` for an exception: one with ``line``, ``column`` and ``detail``
        attributes (the node's ParseError/CompileError) reads those; others their text."""
        if isinstance(error, str):
            return self.map_message(error)
        line, column = getattr(error, "line", None), getattr(error, "column", None)
        detail = getattr(error, "detail", None)
        if isinstance(line, int) and isinstance(column, int) and isinstance(detail, str):
            return f"{self.locate(line, column)}: {detail}"
        text = str(error)
        mapped = self.map_message(text)
        return mapped if mapped != text else f"{self.root}: {text}"


_POSITION_RE = re.compile(r"\bline (\d+), column (\d+)")

# ------------------------------------------------------------------ scanning

_TOKEN_RE = re.compile(
    r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v\ufeff]+)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<badcomment>/\*)
  | (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<num>[0-9][0-9A-Za-z_.]*)
  | (?P<op>.)
    """,
    re.VERBOSE | re.DOTALL,
)

#: Top-level declarations whose name follows the keyword (for `import {A} from` checks).
_DECLARING = frozenset(
    {
        "contract",
        "interface",
        "library",
        "struct",
        "enum",
        "error",
        "event",
        "function",
        "type",
        "constant",
    }
)


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # ident, str, num, op
    text: str
    line: int
    column: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Decl:
    """A top-level declaration: its kind (contract, struct, enum, error, function, constant),
    name and the span of its text, from its first keyword to its closing '}' or ';'."""

    kind: str
    name: str
    start: int
    end: int
    line: int
    column: int


@dataclass
class _Scan:
    imports: list[Import]
    declared: set[str]
    problems: list[Problem]
    unclosed: _Tok | None  # outermost '{' still open at the end of the file
    decls: list[_Decl] = field(default_factory=list)


def _tokens(text: str, name: str, problems: list[Problem]) -> list[_Tok]:
    out: list[_Tok] = []
    pos, line, line_start, n = 0, 1, 0, len(text)
    while pos < n:
        m = _TOKEN_RE.match(text, pos)
        assert m is not None  # the last alternative matches any character
        kind, tok = m.lastgroup, m.group()
        col = pos - line_start + 1
        if kind == "nl":
            line += 1
            line_start = m.end()
        elif kind == "bcomment":
            if "\n" in tok:
                line += tok.count("\n")
                line_start = pos + tok.rfind("\n") + 1
        elif kind == "badcomment":
            # It would swallow the files after this one in the bundle: stop here.
            problems.append(Problem(name, line, col, "unterminated block comment"))
            break
        elif kind in ("str", "ident", "num", "op"):
            out.append(_Tok(str(kind), tok, line, col, pos, m.end()))
        pos = m.end()
    return out


def _unquote(tok: _Tok) -> str:
    return re.sub(r"\\(.)", r"\1", tok.text[1:-1])


def find_imports(text: str, name: str = "<source>") -> list[Import]:
    """Every top-level import statement of ``text``. Raises :class:`BundleError` when one is
    malformed (the node would skip it silently)."""
    scan = _scan(text, name)
    if scan.problems:
        raise BundleError(scan.problems)
    return scan.imports


def _scan(text: str, name: str) -> _Scan:
    problems: list[Problem] = []
    toks = _tokens(text, name, problems)
    imports: list[Import] = []
    declared: set[str] = set()
    opened: list[_Tok] = []
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        if t.kind == "op":
            if t.text == "{":
                opened.append(t)
            elif t.text == "}" and opened:
                opened.pop()
        elif t.kind == "ident" and not opened:
            if t.text == "import":
                j, imp = _parse_import(toks, i, name, problems)
                if imp is not None:
                    imports.append(imp)
                i = j
                continue
            if t.text in _DECLARING and i + 1 < n and toks[i + 1].kind == "ident":
                declared.add(toks[i + 1].text)
        i += 1
    scan = _Scan(imports, declared, problems, opened[0] if opened else None)
    if not problems and not opened:
        scan.decls = _declarations(toks)
    return scan


_BRACED = {"contract": "contract", "interface": "contract", "library": "contract"}
_BRACED.update(struct="struct", enum="enum")


def _declarations(toks: list[_Tok]) -> list[_Decl]:
    """The top-level declarations of a file that parses (balanced braces), with their spans."""
    out: list[_Decl] = []
    i, n = 0, len(toks)
    while i < n:
        first = toks[i]
        j = i + 1 if first.text == "abstract" and first.kind == "ident" else i
        head = toks[j] if j < n else first
        braced = _BRACED.get(head.text) if head.kind == "ident" else None
        depth, k, end = 0, i, -1
        name_tok: _Tok | None = None
        while k < n:
            t = toks[k]
            if t.kind == "op" and t.text in "{([":
                depth += 1
            elif t.kind == "op" and t.text in "})]":
                depth -= 1
                if depth == 0 and t.text == "}" and (braced or head.text == "function"):
                    end = k
                    break
            elif depth == 0 and t.kind == "op" and t.text == ";":
                end = k
                break
            elif depth == 0 and t.kind == "op" and t.text == "=" and name_tok is None:
                name_tok = toks[k - 1]  # `uint constant X = ...`: the name before '='
            k += 1
        if end < 0:
            break
        kind = braced
        name = ""
        if head.kind == "ident" and (braced or head.text in ("error", "function")):
            kind = kind or head.text
            m = j + 1
            if m < n and toks[m].text == "record":
                m += 1
            if m < n and toks[m].kind == "ident":
                name = toks[m].text
        elif any(t.text == "constant" and t.kind == "ident" for t in toks[i:k]) and name_tok:
            kind, name = "constant", name_tok.text
        if kind and name and first.text not in ("import", "pragma"):
            out.append(_Decl(kind, name, first.start, toks[end].end, first.line, first.column))
        i = end + 1
    return out


_FORMS = (
    'expected import "file.sol";  import {A, B} from "file.sol";  import * as X from "file.sol";'
    "  or import <address>;"
)


def _parse_import(
    toks: list[_Tok], i: int, name: str, problems: list[Problem]
) -> tuple[int, Import | None]:
    """Parse the statement starting at ``toks[i]`` (``import``); returns the index after it."""
    kw = toks[i]
    end = i + 1
    while end < len(toks) and not (toks[end].kind == "op" and toks[end].text == ";"):
        end += 1
    if end == len(toks):
        problems.append(Problem(name, kw.line, kw.column, "expected ';' after import"))
        return end, None
    body = toks[i + 1 : end]
    after = end + 1

    def bad(at: _Tok | None = None) -> tuple[int, None]:
        where = at or (body[0] if body else kw)
        problems.append(Problem(name, where.line, where.column, f"unsupported import: {_FORMS}"))
        return after, None

    items: list[str] = []
    aliases: list[tuple[str, int, int]] = []
    k = 0

    def take(text: str) -> bool:
        nonlocal k
        if k < len(body) and body[k].text == text and body[k].kind in ("op", "ident"):
            k += 1
            return True
        return False

    def alias() -> bool:
        nonlocal k
        if k < len(body) and body[k].kind in ("ident", "str"):
            tok = body[k]
            aliases.append((_unquote(tok) if tok.kind == "str" else tok.text, tok.line, tok.column))
            k += 1
            return True
        return False

    if take("{"):
        while True:
            if k >= len(body) or body[k].kind != "ident":
                return bad(body[k] if k < len(body) else None)
            items.append(body[k].text)
            k += 1
            if take("as") and not alias():
                return bad()
            if take(","):
                continue
            if take("}"):
                break
            return bad(body[k] if k < len(body) else None)
        if not take("from"):
            return bad(body[k] if k < len(body) else None)
    elif take("*") and not (take("as") and alias() and take("from")):
        return bad()
    if k >= len(body):
        return bad()
    src = body[k]
    k += 1
    if src.kind == "str":
        target, is_file = _unquote(src), True
    elif src.kind == "op" and src.text == "<":
        close = k
        while close < len(body) and body[close].text != ">":
            close += 1
        if close == len(body) or close == k:
            return bad(src)
        target, is_file = "<" + "".join(t.text for t in body[k:close]) + ">", False
        k = close + 1
    else:
        return bad(src)
    if not items and not aliases and take("as") and not alias():
        return bad()
    if k != len(body):
        return bad(body[k])
    imp = Import(
        line=kw.line,
        column=kw.column,
        start=kw.start,
        end=toks[end].end,
        target=target,
        target_line=src.line,
        target_column=src.column,
        is_file=is_file,
        items=tuple(items),
        aliases=tuple(aliases),
    )
    return after, imp


@dataclass
class _Frame:
    name: str
    scan: _Scan
    next: int = 0  # index of the next import to follow


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the characters of ``spans`` turned to spaces (newlines kept)."""
    if not spans:
        return text
    parts: list[str] = []
    last = 0
    for start, end in spans:
        parts.append(text[last:start])
        parts.append(re.sub(r"[^\n]", " ", text[start:end]))
        last = end
    parts.append(text[last:])
    return "".join(parts)


# ------------------------------------------------------------------ bundling


def _repeated_declarations(
    order: list[str],
    texts: dict[str, tuple[str, str, _Scan]],
    deps: dict[str, list[str]],
    warnings: list[Problem],
) -> dict[str, list[tuple[int, int]]]:
    """Spans to leave out: declarations whose name another bundled file declares too.

    The platform compiles each file with what it imports (its own declarations winning), then
    merges the files in the order of their names, the first keeping a repeated name: what
    ``tests/Lending/X.test.sol`` declares beats ``tests/Util.sol``'s declaration of the same
    name. The bundle keeps that declaration and blanks the others (one text cannot hold both).
    A name that two imports of one file both declare is left alone: the platform refuses it
    ("Duplicate values"), the compiler will too.
    """
    where: dict[tuple[str, str], dict[str, list[_Decl]]] = {}
    for key in order:
        for d in texts[key][2].decls:
            where.setdefault((d.kind, d.name), {}).setdefault(key, []).append(d)
    out: dict[str, list[tuple[int, int]]] = {}
    for (kind, name), files in where.items():
        if len(files) < 2 or any(
            len({d for d in imported if d in files}) > 1 for imported in deps.values()
        ):
            continue
        winner = None
        for key in sorted(order, key=lambda k: texts[k][0]):
            if key in files:
                winner = key
                break
            imported = [d for d in deps.get(key, []) if d in files]
            if imported:
                winner = imported[0]
                break
        if winner is None:
            continue
        for key, decls in files.items():
            if key == winner:
                continue
            for d in decls:
                out.setdefault(key, []).append((d.start, d.end))
                warnings.append(
                    Problem(
                        texts[key][0],
                        d.line,
                        d.column,
                        f"{kind} '{name}' is left out: {texts[winner][0]} declares it too, and "
                        "the platform keeps that one",
                    )
                )
    return out


def _key(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))


def _resolve(importer: str, target: str) -> str:
    """The platform's rule: anything but an absolute path is taken from the importing file's
    folder (``./`` and ``../`` steps included; a plain ``Foo.sol`` or ``sub/Foo.sol`` too)."""
    if os.path.isabs(target):
        return os.path.normpath(target)
    return os.path.normpath(os.path.join(os.path.dirname(importer), target))


class _Reader:
    def __init__(self, files: Mapping[str, str] | None, disk: bool) -> None:
        self.files = {_key(k): v for k, v in (files or {}).items()}
        self.disk = disk

    def read(self, path: str) -> str:
        """The text of ``path``; raises OSError (or UnicodeDecodeError) like ``open``."""
        text = self.files.get(_key(path))
        if text is not None:
            return text.removeprefix("\ufeff")
        if not self.disk:
            raise FileNotFoundError(2, "No such file or directory", path)
        with open(path, encoding="utf-8-sig") as fh:
            return fh.read()


def _read_problem(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    if isinstance(exc, IsADirectoryError):
        return "is a folder"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


def bundle(
    root: str | os.PathLike[str], files: Mapping[str, str] | None = None, *, disk: bool = True
) -> Bundle:
    """Bundle ``root`` with the files it imports, transitively.

    ``files`` gives texts by path (absolute, or relative to the working directory) that take the
    place of the disk's (an editor's unsaved buffers); with ``disk=False`` only they are read.
    File names in the result and in errors are built from ``root`` as given plus each import's
    relative path. Raises :class:`BundleError` listing every missing, unreadable or malformed
    import (and the root's own read error).
    """
    reader = _Reader(files, disk)
    root_name = os.path.normpath(os.fspath(root))
    texts: dict[str, tuple[str, str, _Scan]] = {}  # key -> (name, text, scan)
    order: list[str] = []
    problems: list[Problem] = []
    warnings: list[Problem] = []

    try:
        root_text = reader.read(root_name)
    except (OSError, UnicodeDecodeError) as exc:
        raise BundleError(
            [Problem(root_name, 0, 0, f"cannot read: {_read_problem(exc)}")]
        ) from None

    # Depth-first without recursion (chains can be long), dependencies before dependents; a
    # file already entered (on the way: a cycle; or done) is not entered again: include-once, as
    # the platform's resolver does.
    entered: set[str] = set()
    stack: list[_Frame] = []
    deps: dict[str, list[str]] = {}  # file key -> keys of the files it imports, as written

    def enter(name: str, text: str) -> None:
        key = _key(name)
        entered.add(key)
        scan = _scan(text, name)
        texts[key] = (name, text, scan)
        problems.extend(scan.problems)
        for imp in scan.imports:
            for alias, line, col in imp.aliases:
                warnings.append(
                    Problem(
                        name,
                        line,
                        col,
                        f"alias '{alias}' is ignored: the sandbox bundles "
                        "the imported file's declarations under their own names",
                    )
                )
        stack.append(_Frame(name, scan))

    enter(root_name, root_text)
    while stack:
        frame = stack[-1]
        if frame.next == len(frame.scan.imports):
            stack.pop()
            order.append(_key(frame.name))
            continue
        imp = frame.scan.imports[frame.next]
        frame.next += 1
        if not imp.is_file:
            continue
        name = frame.name
        path = _resolve(name, imp.target)
        dep = _key(path)
        if dep not in entered:
            try:
                dep_text = reader.read(path)
            except FileNotFoundError:
                problems.append(
                    Problem(
                        name,
                        imp.target_line,
                        imp.target_column,
                        f"missing import file '{imp.target}': {path} does not exist",
                    )
                )
                continue
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(
                    Problem(
                        name,
                        imp.target_line,
                        imp.target_column,
                        f"cannot read import file '{imp.target}' ({path}): {_read_problem(exc)}",
                    )
                )
                continue
            enter(path, dep_text)
        deps.setdefault(_key(name), []).append(dep)
        declared = texts[dep][2].declared
        for item in imp.items:
            if item not in declared:
                warnings.append(
                    Problem(
                        name,
                        imp.target_line,
                        imp.target_column,
                        f"'{item}' is not declared in '{imp.target}'",
                    )
                )
    for key in order[:-1]:  # a dependency's unclosed '{' would run into the next file
        name, _, scan = texts[key]
        if scan.unclosed is not None:
            t = scan.unclosed
            problems.append(Problem(name, t.line, t.column, "'{' is never closed in this file"))
    if problems:
        raise BundleError(problems)

    left_out = _repeated_declarations(order, texts, deps, warnings)
    parts: list[str] = []
    out_files: list[SourceFile] = []
    line = 1
    for key in order:
        name, text, scan = texts[key]
        spans = [(imp.start, imp.end) for imp in scan.imports if imp.is_file]
        spans.extend(left_out.get(key, []))
        body = _blank(text, sorted(spans))
        if not body.endswith("\n"):
            body += "\n"
        count = body.count("\n")
        out_files.append(SourceFile(name, text, line, count))
        parts.append(body)
        line += count
    warnings.sort(key=lambda w: (w.file, w.line, w.column))
    return Bundle("".join(parts), out_files, warnings)
