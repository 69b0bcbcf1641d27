"""Cirrus columns and their values: a column's kind, a filter's text converted for SQL, rows
read back as JSON values, and the decimal collation."""

from __future__ import annotations

import decimal
import json
import re
from dataclasses import dataclass
from typing import Any

from .encoding import decode_int, decode_json, encode_int, encode_json
from .query import QueryError


@dataclass
class Column:
    name: str
    kind: str  # "text" | "int" (unbounded, stored order-preserving) | "bool" | "serial"
    #          | "decimal" (text such as "1.50", compared as numbers through DECIMAL_COLLATION)
    #          | "json" (any JSON value, stored order-preserving as jsonb orders them)
    ref: str | None = None  # contract type name of a contract-typed variable (join target)


@dataclass
class Ref:
    """What a query names: a column, or a JSON path into one (then ``col`` is a stand-in of the
    path's kind, text for ``->>``, json for ``->``)."""

    name: str  # the key in the result rows
    sql: str
    col: Column
    cast: str | None = None  # PostgreSQL type the value is cast to (`col::text`)


def bad_value(kind: str, value: str) -> QueryError:
    if kind == "json":
        return QueryError(
            400,
            {
                "hint": None,
                "details": f'Token "{value[:200]}" is invalid.',
                "code": "22P02",
                "message": "invalid input syntax for type json",
            },
        )
    typ = {"int": "numeric", "decimal": "numeric", "bool": "boolean"}.get(kind, "text")
    return QueryError(
        400,
        {
            "hint": None,
            "details": None,
            "code": "22P02",
            "message": f'invalid input syntax for type {typ}: "{value[:200]}"',
        },
    )


def _casefold(v: Any) -> Any:
    return v.casefold() if isinstance(v, str) else v


def glob_pattern(pattern: str) -> str:
    """PostgREST like pattern (``*`` or ``%`` any run, ``_`` one char) as a GLOB pattern."""
    out = []
    for ch in pattern:
        if ch in ("*", "%"):
            out.append("*")
        elif ch == "_":
            out.append("?")
        elif ch in ("?", "["):
            out.append(f"[{ch}]")
        else:
            out.append(ch)
    return "".join(out)


def convert(value: str, col: Column) -> Any:
    if col.kind in ("int", "serial"):
        v = value.strip()
        try:
            n = int(v) if len(v) < 4000 and v.isascii() else int("x")
        except ValueError:
            raise bad_value("int", value) from None
        return encode_int(n) if col.kind == "int" else n
    if col.kind == "decimal":
        v = value.strip()
        if not DECIMAL_TEXT.match(v) or not _exponent_ok(v):
            raise bad_value("decimal", value)
        return v
    if col.kind == "json":
        return encode_json(parse_json(value))
    if col.kind == "bool":
        v = value.strip().lower()
        if v in ("true", "t", "1", "yes", "on"):
            return 1
        if v in ("false", "f", "0", "no", "off"):
            return 0
        raise bad_value("bool", value)
    return value


MAX_EXPONENT = 1000  # PostgreSQL's numeric input refuses a written exponent beyond +-1000


def _exponent_ok(number: str) -> bool:
    """True unless ``number`` (a valid numeric text) writes an exponent PostgreSQL refuses; also
    what keeps ``1e999999999`` from being expanded into a billion-digit integer."""
    _, e, exp = number.lower().partition("e")
    return not e or abs(int(exp)) <= MAX_EXPONENT


def _json_number(token: str) -> decimal.Decimal:
    if not _exponent_ok(token):
        raise bad_value("decimal", token)
    return decimal.Decimal(token)


def _json_constant(token: str) -> Any:
    raise bad_value("json", token)  # NaN, Infinity, -Infinity: not JSON (Python accepts them)


def parse_json(text: str) -> Any:
    """A filter's or cast's JSON text as PostgreSQL's jsonb input reads it: numbers exact
    (Decimal), NaN/Infinity refused (22P02 json), a written exponent beyond +-1000 refused
    (22P02 numeric)."""
    try:
        return json.loads(text, parse_float=_json_number, parse_constant=_json_constant)
    except (ValueError, RecursionError):
        raise bad_value("json", text) from None


DECIMAL_COLLATION = "decimal_value"
DECIMAL_TEXT = re.compile(
    r"[+-]?(?:[0-9]{1,2800}(?:\.[0-9]{0,2800})?|\.[0-9]{1,2800})(?:[eE][+-]?[0-9]{1,6})?\Z"
)


def compare_decimals(a: str, b: str) -> int:
    """The collation of decimal columns: numeric order of texts such as "1.50" (exact)."""
    try:
        x, y = decimal.Decimal(a), decimal.Decimal(b)
    except decimal.InvalidOperation:
        return (a > b) - (a < b)
    return (x > y) - (x < y)


def _to_sql(v: Any) -> Any:
    if v is True:
        return 1
    if v is False:
        return 0
    return v


def _from_sql(v: Any, c: Column) -> Any:
    if v is None:
        return None
    if c.kind == "bool":
        return bool(v)
    if c.kind == "int":
        n = decode_int(v) if isinstance(v, str) else int(v)
        return str(n) if c.name == "block_number" else n
    if c.kind == "decimal":
        return decimal.Decimal(v)  # rendered as a JSON number with its places ("1.50")
    if c.kind == "json":
        return decode_json(v)
    return v
