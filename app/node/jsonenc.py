"""The node's JSON bodies: compact, as the platform's services write them. Its own module so
that bodies can be encoded in worker threads (Cirrus streams) as well as by responses."""

from __future__ import annotations

import contextlib
import decimal
import json
import re
import secrets
from collections.abc import Callable
from typing import Any

import orjson

_RAW_TAG = "\0num" + secrets.token_hex(8) + ":"  # cannot be guessed by contract data
_RAW_RE = re.compile(r'"\\u0000' + _RAW_TAG[1:] + r'([-+.0-9eE]+)\\u0000"')


# what orjson must not write itself (json refuses them): dataclasses, dates and times
ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


def _raw_number(o: Any) -> str:
    if isinstance(o, decimal.Decimal) and o.is_finite():
        return f"{_RAW_TAG}{format(o, 'f')}\0"
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def compact_json(content: Any) -> bytes:
    """Compact JSON. A ``decimal.Decimal`` (Cirrus decimal columns) is written as a JSON number
    with its exact digits (``1.50``), as PostgreSQL writes numerics.

    orjson writes what it writes as json does (UTF-8, ~5x faster: every answer's body); the
    rest goes to json (a Decimal, an integer past 64 bits, a key that is not a string, a lone
    surrogate: orjson refuses them). A float keeps its value, not always json's digits
    (``0.000041`` where json wrote ``4.1e-05``)."""
    with contextlib.suppress(TypeError):  # what orjson refuses: json, below
        return orjson.dumps(content, option=ORJSON_OPTIONS)
    try:
        return json.dumps(content, separators=(",", ":"), ensure_ascii=False).encode()
    except TypeError:
        pass  # a decimal.Decimal: the slower encoder below writes it exactly
    except UnicodeEncodeError:
        return _escaped(content)
    text = json.dumps(content, separators=(",", ":"), ensure_ascii=False, default=_raw_number)
    try:
        return _RAW_RE.sub(r"\1", text).encode()
    except UnicodeEncodeError:
        return _escaped(content)


def _escaped(content: Any) -> bytes:
    """Content holding a lone surrogate (text stored by versions that accepted one): JSON
    escapes it (``\\ud800``), which is valid JSON in ASCII, so a read never fails on it."""
    text = json.dumps(content, separators=(",", ":"), default=_raw_number)
    return _RAW_RE.sub(r"\1", text).encode()


def compact_json_in_pieces(items: list[Any], piece: int = 256) -> bytes:
    """``compact_json(items)`` encoded ``piece`` items at a time, byte for byte the same (but
    for a float's digits when only some pieces go to json: see :func:`compact_json`).

    The C encoder holds the GIL for a whole call; in a worker thread, pieces let the event
    loop run between them.
    """
    if not items:
        return b"[]"
    parts = [compact_json(items[k : k + piece])[1:-1] for k in range(0, len(items), piece)]
    return b"[" + b",".join(parts) + b"]"


def heavy(content: Any, nodes: int = 2_000, chars: int = 64 * 1024) -> bool:
    """Whether encoding ``content`` may hold the GIL long enough to be felt (a contract
    upload's answer holds its source three times and its xabi: 8 MB for a 1.2 MB source): more
    than ``nodes`` values or ``chars`` characters of strings, looked at no further than that.
    About 2 us for a transaction's result (a third of encoding it)."""
    stack = [content]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is str:
            chars -= len(v)
        elif t is dict or t is list or t is tuple:
            members = v.values() if t is dict else v
            nodes -= 2 * len(v) if t is dict else len(v)
            if nodes < 0:
                return True
            for x in members:
                tx = type(x)
                if tx is str:
                    chars -= len(x)
                elif tx is dict or tx is list or tx is tuple:
                    stack.append(x)
        if chars < 0:
            return True
    return False


def encode_in_pieces(content: Any, encode: Callable[[Any], bytes], piece: int = 256) -> bytes:
    """``encode(content)``, byte for byte, for an ``encode`` that writes JSON as compactly as
    :func:`compact_json` does (other escaping allowed), with every object or array of more
    than ``piece`` members encoded ``piece`` members at a time (see
    :func:`compact_json_nested_in_pieces`)."""
    if not _has_big(content, piece):
        return encode(content)
    if isinstance(content, list):
        return b"[" + b",".join(_pieces(content, piece, lambda g: g, encode)) + b"]"
    items = list(content.items())
    return b"{" + b",".join(_pieces(items, piece, dict, encode)) + b"}"


def compact_json_nested_in_pieces(content: Any, piece: int = 256) -> bytes:
    """``compact_json(content)``, byte for byte (a float's digits aside, as above), with every
    object or array of more than ``piece`` members (at any depth, under string keys) encoded
    ``piece`` members at a time: a contract's state, one mapping of which may hold 100,000
    entries, lets the event loop run while a worker thread encodes it (see
    :func:`compact_json_in_pieces`)."""
    return encode_in_pieces(content, compact_json, piece)


def _has_big(v: Any, piece: int) -> bool:
    if isinstance(v, dict):
        return len(v) > piece or any(
            isinstance(k, str) and isinstance(x, dict | list) and _has_big(x, piece)
            for k, x in v.items()
        )
    if isinstance(v, list):
        return len(v) > piece or any(isinstance(x, dict | list) and _has_big(x, piece) for x in v)
    return False


def _pieces(
    members: list[Any], piece: int, make: Any, encode: Callable[[Any], bytes]
) -> list[bytes]:
    """The members (list elements, or an object's (key, value) pairs) encoded without their
    brackets: runs of small members ``piece`` at a time, a large member on its own."""
    is_obj = make is dict
    out: list[bytes] = []
    run: list[Any] = []

    def flush() -> None:
        if run:
            out.append(encode(make(run))[1:-1])
            run.clear()

    for m in members:
        value = m[1] if is_obj else m
        big = isinstance(value, dict | list) and _has_big(value, piece)
        if big and (not is_obj or isinstance(m[0], str)):
            flush()
            inner = encode_in_pieces(value, encode, piece)
            out.append(encode(m[0]) + b":" + inner if is_obj else inner)
            continue
        run.append(m)
        if len(run) >= piece:
            flush()
    flush()
    return out
