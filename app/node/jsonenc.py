"""The node's JSON bodies: compact, as the platform's services write them. Its own module so
that bodies can be encoded in worker threads (Cirrus streams) as well as by responses."""

from __future__ import annotations

import decimal
import json
import re
import secrets
from typing import Any

_RAW_TAG = "\0num" + secrets.token_hex(8) + ":"  # cannot be guessed by contract data
_RAW_RE = re.compile(r'"\\u0000' + _RAW_TAG[1:] + r'([-+.0-9eE]+)\\u0000"')


def _raw_number(o: Any) -> str:
    if isinstance(o, decimal.Decimal) and o.is_finite():
        return f"{_RAW_TAG}{format(o, 'f')}\0"
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def compact_json(content: Any) -> bytes:
    """Compact JSON. A ``decimal.Decimal`` (Cirrus decimal columns) is written as a JSON number
    with its exact digits (``1.50``), as PostgreSQL writes numerics."""
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
    """``compact_json(items)`` encoded ``piece`` items at a time, byte for byte the same.

    The C encoder holds the GIL for a whole call; in a worker thread, pieces let the event
    loop run between them.
    """
    if not items:
        return b"[]"
    parts = [compact_json(items[k : k + piece])[1:-1] for k in range(0, len(items), piece)]
    return b"[" + b",".join(parts) + b"]"
