"""Import statements of an upload, checked as the platform's import resolver does.

The node compiles an upload (one text, or ``{file: text}``) as one unit; the imports themselves
only name the files. The platform ignores ``import "f.sol";`` when ``f.sol`` is not part of the
upload (nor on its disk, and a node has none), but ``import {A} from "f.sol";`` needs the file
and a top-level ``A`` declared in it: ``Could not find file f.sol`` /
``Could not find item A in file f.sol``. Paths resolve against the importing file's folder
(``./``, ``../``; a leading ``/`` is the root). Positions are those of the joined text.
"""

from __future__ import annotations

from typing import Any

from .errors import CompileError, ParseError
from .parser import parse


def upload_files(src: str | dict[str, str] | list[Any]) -> list[tuple[str, str]]:
    """``(file name, text)`` of every file of an upload, in the order ``join_sources`` joins."""
    if isinstance(src, str):
        return [("", src)]
    if isinstance(src, dict):
        return [(str(k), str(v)) for k, v in src.items()]
    files: list[tuple[str, str]] = []
    for item in src:
        if isinstance(item, list | tuple) and len(item) == 2:
            files.append((str(item[0]), str(item[1])))
        else:
            files.append(("", str(item)))
    return files


def resolve_path(importer: str, target: str) -> str:
    """The upload file name an import of ``target`` from file ``importer`` refers to."""
    resolved = _resolve(importer.split("/")[:-1], target.split("/"))
    return target if resolved is None else resolved


def _resolve(folder: list[str], parts: list[str]) -> str | None:
    while parts:
        head = parts[0]
        if head == "":
            return "/".join(parts)
        if head == "..":
            if not folder:
                return None
            folder, parts = folder[:-1], parts[1:]
        elif head == ".":
            parts = parts[1:]
        else:
            return "/".join(folder + parts)
    return None


def check_imports(src: str | dict[str, str] | list[Any]) -> None:
    """Raise :class:`CompileError` for a braced import of a file or name the upload lacks.

    A file that does not parse on its own is left to the compiler, which reports it.
    """
    files = upload_files(src)
    units = []
    first_line = 1
    for name, text in files:
        try:
            unit = parse(text)
        except (ParseError, RecursionError):
            unit = None
        units.append((name, unit, first_line))
        first_line += text.count("\n") + 1
    declared: dict[str, set[str] | None] = {}  # None: the file does not parse
    for name, unit, _ in units:
        if unit is None:
            declared[name] = None
        elif declared.get(name, set()) is not None:
            found = {getattr(i, "name", None) for i in unit.items}
            known = declared.get(name) or set()
            declared[name] = known | {n for n in found if isinstance(n, str)}
    for name, unit, offset in units:
        if unit is None:
            continue
        for imp in unit.imports:
            if imp.items is None or imp.path is None:
                continue
            path = resolve_path(name, imp.path)
            where = imp.items[0][1] if imp.items else imp.pos
            if path not in declared:
                raise CompileError(f"Could not find file {path}", where[0] + offset - 1, where[1])
            names = declared[path]
            for item, (line, col) in imp.items:
                if names is not None and item not in names:
                    raise CompileError(
                        f"Could not find item {item} in file {path}", line + offset - 1, col
                    )
