"""Decoding large JSON bodies in bounded pieces, for a worker thread.

``json.loads`` is C code that holds the GIL from start to end: in a worker thread it still
stops the event loop for the whole decode (20-60 ms for 4 MB of numbers here; half a second
for 4 MB of small arrays, most of it in the garbage collector). :func:`loads_in_pieces` gives
the same value, but no single C call reads more than :data:`WINDOW` characters, so the loop
gets the GIL back between pieces, and the cyclic collector waits until the end. Containers
are read by this module; runs of their elements are handed to the C decoder a window at a
time, and an element too large for one window is read the same way, one level down.

A run is cut at a comma found by text search, which may lie inside a nested value or a
string; such a cut can never decode (the nested value or string is left open), so a run that
decodes is exactly the elements it covers. A body that is not valid JSON is decoded again by
the standard library's pure-Python scanner (:func:`loads_exactly`), which raises the same
error, with the same position, as ``json.loads`` (and gives the loop the GIL as it goes).
"""

from __future__ import annotations

import contextlib
import json
import json.decoder
import json.scanner
import re
from collections.abc import Callable
from json.decoder import JSONDecoder
from typing import Any

from .gcfreeze import collector_paused

Scan = Callable[[str, int], tuple[Any, int]]

WINDOW = 16 * 1024  # characters per C call: well under a millisecond of decoding
TRIES = 3  # run cuts tried per window before reading elements one by one
MAX_DEPTH = 32  # containers opened by this reader; deeper bodies are left to json.loads

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = JSONDecoder()
_SCAN: Scan = _DECODER.scan_once  # type: ignore[attr-defined]  # C: (value, end) or StopIteration
# not in typeshed: the C string scanner, and the pure-Python value scanner
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_py_make_scanner: Callable[[JSONDecoder], Scan] = json.scanner.py_make_scanner  # type: ignore[attr-defined]


class _Invalid(ValueError):
    """Not valid JSON (or a shape this reader leaves to the exact one)."""


class _TooDeep(Exception):
    """Each level re-reads a window: many levels, many windows."""


class NotDecoded(Exception):
    """The piecewise reader gave up, most likely on invalid JSON: :func:`loads_exactly` says
    what :func:`json.loads` would have said."""


def cyclic_gc_paused() -> contextlib.AbstractContextManager[None]:
    """No cyclic garbage collection meanwhile (``gcfreeze.collector_paused``: one count shared
    with the compiles'). Decoding creates objects by the hundred thousand, and each full
    collection they trigger scans every object of the process with the GIL held: 100+ ms
    stalls of the event loop for a 4 MB body of small arrays. A decoded body has no cycles.
    """
    return collector_paused()


def loads_in_pieces(raw: bytes) -> Any:
    """``json.loads(raw)`` with every C call bounded; raises NotDecoded where it gives up.

    RecursionError and UnicodeDecodeError pass through as ``json.loads`` raises them.
    """
    text = raw.decode(json.detect_encoding(raw), "surrogatepass")
    try:
        with cyclic_gc_paused():
            return _Reader(text).document()
    except (ValueError, IndexError, StopIteration):
        raise NotDecoded from None
    except _TooDeep:
        pass
    return json.loads(raw)  # in one call, as on the loop before: only for odd, deep bodies


def loads_exactly(raw: bytes) -> Any:
    """``json.loads(raw)`` by the standard library's pure-Python scanner: the same value or the
    same error and position, and the GIL is given up as it goes (seconds for megabytes)."""
    text = raw.decode(json.detect_encoding(raw), "surrogatepass")
    decoder = JSONDecoder()
    decoder.scan_once = _py_make_scanner(decoder)  # type: ignore[attr-defined]
    return decoder.decode(text)


class _Reader:
    def __init__(self, text: str) -> None:
        self.s = text
        self.depth = 0

    def ws(self, i: int) -> int:
        s = self.s
        if i < len(s) and s[i] not in " \t\n\r":
            return i
        return _WS.match(s, i).end()  # type: ignore[union-attr]

    def document(self) -> Any:
        s = self.s
        if s.startswith("\ufeff"):
            raise _Invalid
        value, end = self.value(self.ws(0))
        if self.ws(end) != len(s):
            raise _Invalid
        return value

    def value(self, i: int) -> tuple[Any, int]:
        """The value starting at ``i`` and the index after it."""
        s = self.s
        c = s[i]
        if len(s) - i <= WINDOW or c not in "[{":
            return _SCAN(s, i)  # a bounded rest, or a scalar (read to its own end only)
        try:  # most containers fit in a window: decode them at once
            window = s[i : i + WINDOW]
            value, end = _SCAN(window, 0)
            return value, i + end
        except (ValueError, StopIteration):
            pass
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _TooDeep
        try:
            return self.array(i) if c == "[" else self.object(i)
        finally:
            self.depth -= 1

    def run(self, i: int, opener: str, closer: str, before: str) -> tuple[Any, int] | None:
        """As many whole elements from ``i`` as one window holds, decoded at once, or None.

        ``before``: the characters an element can end with (a cut is tried only after one).
        """
        window = self.s[i : i + WINDOW]
        end = len(window)
        tries = 0
        while tries < TRIES:
            cut = window.rfind(",", 0, end)
            if cut <= 0:
                return None
            end = cut
            if before:
                j = cut - 1
                while j > 0 and window[j] in " \t\n\r":
                    j -= 1
                if window[j] not in before:
                    continue
            tries += 1
            try:
                return json.loads(opener + window[:cut] + closer), i + cut
            except ValueError:
                pass
        return None

    def array(self, i: int) -> tuple[list[Any], int]:
        s = self.s
        out: list[Any] = []
        i = self.ws(i + 1)
        if s[i] == "]":
            return out, i + 1
        ends = {"{": "}", "[": "]", '"': '"'}.get(s[i], "")  # elements are mostly alike
        one_by_one_until = i
        while True:
            batch = None
            if i >= one_by_one_until:
                batch = self.run(i, "[", "]", ends)
                if batch is None:  # no cut decoded: read this window's elements singly
                    one_by_one_until = i + WINDOW
            if batch is not None:
                items, i = batch
                out.extend(items)
            else:
                item, i = self.value(i)
                out.append(item)
            i = self.ws(i)
            c = s[i]
            if c == "]":
                return out, i + 1
            if c != ",":
                raise _Invalid
            i = self.ws(i + 1)

    def object(self, i: int) -> tuple[dict[str, Any], int]:
        s = self.s
        out: dict[str, Any] = {}
        i = self.ws(i + 1)
        if s[i] == "}":
            return out, i + 1
        one_by_one_until = i
        while True:
            batch = None
            if i >= one_by_one_until:
                batch = self.run(i, "{", "}", "")
                if batch is None:
                    one_by_one_until = i + WINDOW
            if batch is not None:
                members, i = batch
                out.update(members)  # a repeated key keeps its first place, the last value
            else:
                if s[i] != '"':
                    raise _Invalid
                key, i = _scanstring(s, i + 1)
                i = self.ws(i)
                if s[i] != ":":
                    raise _Invalid
                out[key], i = self.value(self.ws(i + 1))
            i = self.ws(i)
            c = s[i]
            if c == "}":
                return out, i + 1
            if c != ",":
                raise _Invalid
            i = self.ws(i + 1)
