"""What the node takes for text: Unicode scalar values, never a lone UTF-16 surrogate.

JSON can spell a lone surrogate (``"\\ud800"``) and Python decodes it into a ``str`` that no
UTF-8 encoder accepts: stored in contract state it made every later block's Cirrus indexing
fail, and echoed in an answer it made the route fail. So request bodies holding one are refused
at the door (:func:`surrogate_path` names the field), and text written by older versions is
made writable where it is encoded (:func:`scrub`).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from .bulkwrite import insert_many

_SURROGATE = re.compile("[\ud800-\udfff]")
# what a UTF-8 JSON body holding a surrogate must contain: a \uD800-\uDFFF escape, or the
# bytes of one encoded as if it were a character (the decoder reads them with surrogatepass);
# two patterns without alternation search several times faster than one
_ESCAPE_HINT = re.compile(rb"\\u[dD][89abcdefABCDEF]")
_BYTES_HINT = re.compile(rb"\xed[\xa0-\xbf]")
_PIECE = 256 * 1024  # bytes per search: ~0.3 ms holding the GIL
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def has_surrogate(s: str) -> bool:
    return not s.isascii() and _SURROGATE.search(s) is not None


def may_hold_surrogate(raw: bytes) -> bool:
    """False when the JSON body ``raw`` cannot decode to text with a surrogate (cheap: most
    bodies need no walk of their decoded value)."""
    if json.detect_encoding(raw[:4]) != "utf-8":
        return True  # UTF-16/32: rare; walk the value
    for start in range(0, len(raw), _PIECE):
        end = start + _PIECE + 3  # a match may straddle two pieces
        if _ESCAPE_HINT.search(raw, start, end) or _BYTES_HINT.search(raw, start, end):
            return True
    return False


def _step(key: str | int) -> str:
    if isinstance(key, int):
        return f"[{key}]"
    if _NAME.fullmatch(key):
        return f".{key}"
    return f"[{json.dumps(key)}]"


# a path as a chain of (parent, step) links: built as a string only for the one reported
_Link = tuple[Any, str | int] | None


def _render(link: _Link) -> str:
    steps: list[str] = []
    while link is not None:
        link, key = link
        steps.append(_step(key))
    return "$" + "".join(reversed(steps))


def surrogate_path(value: Any) -> tuple[str, str] | None:
    """(where, what) of the first text in a decoded JSON value that holds a lone surrogate:
    ``("$.txs[0].payload.args.s", "text")``, or ``("$.txs[0].payload.args", "the key ...")``."""
    stack: list[tuple[_Link, Any]] = [(None, value)]
    while stack:
        link, v = stack.pop()
        if isinstance(v, str):
            if has_surrogate(v):
                return _render(link), "text"
        elif isinstance(v, dict):
            items: list[tuple[_Link, Any]] = []
            for k, x in v.items():
                if has_surrogate(k):
                    return _render(link), f"the key {json.dumps(k)}"
                items.append(((link, k), x))
            stack.extend(reversed(items))
        elif isinstance(v, list):
            stack.extend(((link, i), x) for i, x in reversed(list(enumerate(v))))
    return None


def refusal(where: str, what: str) -> str:
    """The 400 message for a surrogate found at ``where`` (ASCII only: it must not fail too)."""
    return (
        f"Error in {where}: {what} holds a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape "
        f"or its bytes without its pair), which is not Unicode text"
    )


def scrub(s: str) -> str:
    """``s`` with each lone surrogate replaced by U+FFFD (an escaped pair's halves, if stored
    apart, become their character): text any UTF-8 encoder accepts."""
    if not has_surrogate(s):
        return s
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _scrubbed(params: Any) -> Any:
    if isinstance(params, dict):
        return {k: scrub(v) if isinstance(v, str) else v for k, v in params.items()}
    return tuple(scrub(v) if isinstance(v, str) else v for v in params)


class TextSafeConnection(sqlite3.Connection):
    """The node's connection. While ``scrubbing`` is set (a block's Cirrus rows written again
    after a failure, or rebuilt at start), text parameters are :func:`scrub`-bed: state that
    older versions let hold a lone surrogate still gets its rows (with U+FFFD), while the
    usual path pays nothing."""

    scrubbing = False

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        if self.scrubbing:
            parameters = _scrubbed(parameters)
        return super().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> sqlite3.Cursor:
        rows = (_scrubbed(p) for p in parameters) if self.scrubbing else parameters
        # an INSERT's rows in statements of many rows (bulkwrite.py): one step per row gives
        # the interpreter away and waits for it back, up to a switch interval, each time
        return insert_many(self, sql, rows)


@contextmanager
def scrubbing(db: sqlite3.Connection) -> Iterator[None]:
    """:class:`TextSafeConnection.scrubbing` on meanwhile (no-op for another connection)."""
    if not isinstance(db, TextSafeConnection) or db.scrubbing:
        yield
        return
    db.scrubbing = True
    try:
        yield
    finally:
        db.scrubbing = False
