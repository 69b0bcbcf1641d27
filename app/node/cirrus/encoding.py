"""How Cirrus values are stored in SQLite so that SQLite's text order is PostgreSQL's order:
unbounded integers (``numeric``) and JSON values (``jsonb``); and the ``->``/``->>`` operators
that reach into stored JSON.

Pure Python, no SQL: the backend binds these forms and registers :func:`json_get` as an SQL
function.
"""

from __future__ import annotations

import decimal
import json
import re
from collections.abc import Iterable
from json.encoder import encode_basestring
from typing import Any

__all__ = [
    "decode_int",
    "decode_json",
    "encode_int",
    "encode_int_text",
    "encode_json",
    "json_get",
    "jsonb_key_order",
    "parse_json_path",
]


def encode_int(n: int) -> str:
    """Order-preserving text form of an unbounded integer.

    SQLite integers stop at 64 bits, and SolidVM's do not (token amounts in wei pass 2**63
    quickly). Text comparison of this form equals numeric comparison: zero is ``=``, positives
    ``>`` plus a 4-digit length and the digits, negatives ``<`` plus 9999 minus the length and
    the nines' complement of the digits.
    """
    if n == 0:
        return "="
    if n > 0:
        d = str(n)
        return f">{len(d):04d}{d}"
    d = str(-n)
    return f"<{9999 - len(d):04d}" + d.translate(_COMPLEMENT)


_COMPLEMENT = str.maketrans("0123456789", "9876543210")


def encode_int_text(v: Any) -> str:
    """:func:`encode_int` of an integer held as decimal text (the SQL function ``cirrus_int``:
    STRATO 16 views read numbers from text), 0 when it is none."""
    if isinstance(v, str) and 0 < len(v) < 4000:
        t = v[1:] if v[:1] in "+-" else v
        if t.isascii() and t.isdigit():
            return encode_int(int(v))
    return "="


def decode_int(s: str) -> int:
    if s == "=":
        return 0
    if s[0] == ">":
        return int(s[5:])
    return -int(s[5:].translate(_COMPLEMENT))


# one encoder for every call: json.dumps with options builds a new one each time
compact_json = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
json_string = encode_basestring  # compact_json of a str, without the encoder's set-up per call


def string_object(members: Iterable[tuple[str, str]]) -> str:
    """:func:`compact_json` of an object whose members are strings, in the order given, at
    half its cost for a few members (an event's arguments: the encoder is set up per call)."""
    return "{" + ",".join([json_string(k) + ":" + json_string(v) for k, v in members]) + "}"


def jsonb_key_order(d: dict[str, Any]) -> dict[str, Any]:
    """An object's members in the order PostgreSQL's jsonb keeps them: shorter keys first, then
    by bytes. Objects that differ only in member order are then stored alike."""
    return {k: d[k] for k in sorted(d, key=lambda k: (len(k.encode()), k.encode()))}


def _jsonb_form(v: Any) -> Any:
    if isinstance(v, dict):
        return jsonb_key_order({str(k): _jsonb_form(x) for k, x in v.items()})
    if isinstance(v, list):
        return [_jsonb_form(x) for x in v]
    return v


def encode_json(v: Any) -> str:
    """Order-preserving text form of a JSON value, in jsonb's order of types (null < string <
    number < boolean < array < object): a type digit, then a form that sorts within the type.
    Integers use :func:`encode_int`; a non-integral number (from a filter) sorts between the
    integers around it and equals none of them."""
    if v is None:
        return "0"
    if isinstance(v, bool):
        return "31" if v else "30"
    if isinstance(v, int):
        return "2" + encode_int(v)
    if isinstance(v, decimal.Decimal | float):
        d = decimal.Decimal(v)
        if d == d.to_integral_value():
            return "2" + encode_int(int(d))
        return "2" + encode_int(int(d.to_integral_value(decimal.ROUND_FLOOR))) + "~"
    if isinstance(v, str):
        return "1" + v
    if isinstance(v, list):
        return "4" + compact_json(_jsonb_form(v))
    if isinstance(v, dict):
        return "5" + compact_json(_jsonb_form(v))
    raise TypeError(f"not a JSON value: {v!r}")


def decode_json(s: str) -> Any:
    tag, rest = s[0], s[1:]
    if tag == "1":
        return rest
    if tag == "2":
        return decode_int(rest)
    if tag == "3":
        return rest == "1"
    if tag in "45":
        return json.loads(rest)
    return None


PATH_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*|-?[0-9]+")


def parse_json_path(ref: str) -> tuple[str, list[str], bool] | None:
    """``value->a->>b`` as (column, keys, as_text); None when ``ref`` has no arrow. Raises
    ValueError for arrows that are not a PostgREST JSON path (keys are names or indexes; only
    the last arrow may be ``->>``)."""
    i = ref.find("->")
    if i < 0:
        return None
    column, rest = ref[:i], ref[i:]
    keys: list[str] = []
    as_text = False
    while rest:
        if as_text:
            raise ValueError("->> gives text: nothing can follow it")
        if rest.startswith("->>"):
            as_text, rest = True, rest[3:]
        elif rest.startswith("->"):
            rest = rest[2:]
        else:
            raise ValueError("-> or ->>")
        j = rest.find("->")
        key, rest = (rest, "") if j < 0 else (rest[:j], rest[j:])
        if not PATH_KEY.fullmatch(key):
            raise ValueError("a member name or an array index after the arrow")
        keys.append(key)
    if not column:
        raise ValueError("a column name before the arrow")
    return column, keys, as_text


def json_get(stored: Any, path: str, as_text: int) -> Any:
    """The SQL function behind ``->`` and ``->>``: the member or element at ``path`` (keys joined
    by dots) of a stored JSON value, stored the same way (``->``) or as text (``->>``: strings
    as they are, other values as JSON), NULL when there is none (as PostgreSQL gives)."""
    if not isinstance(stored, str) or stored[:1] not in ("4", "5"):
        return None
    v: Any = json.loads(stored[1:])
    for key in path.split("."):
        if isinstance(v, dict):
            if key not in v:
                return None
            v = v[key]
        elif isinstance(v, list) and PATH_KEY.fullmatch(key) and key.lstrip("-").isdigit():
            n = int(key)
            if not -len(v) <= n < len(v):
                return None
            v = v[n]
        else:
            return None
    if not as_text:
        return encode_json(v)
    if v is None:
        return None
    if isinstance(v, str):
        return v
    return json.dumps(v, separators=(", ", ": "), ensure_ascii=False)
