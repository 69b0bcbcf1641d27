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
    """A filter's text as the SQL parameter compared with column ``col``'s stored values, read
    as PostgreSQL 14 reads input of the column's type (22P02 when it does not)."""
    if col.kind == "int":
        return _encode_numeric(numeric_input(value))
    if col.kind == "serial":
        return integer_input(value)
    if col.kind == "decimal":
        d = numeric_input(value)
        return str(d) if d.is_infinite() else value.strip(_PG_SPACE)
    if col.kind == "json":
        try:
            return encode_json(_nested_numbers(parse_json(value)))
        except RecursionError:
            raise bad_value("json", value) from None
    if col.kind == "bool":
        v = value.strip().lower()
        if v in ("true", "t", "1", "yes", "on"):
            return 1
        if v in ("false", "f", "0", "no", "off"):
            return 0
        raise bad_value("bool", value)
    return value


_PG_SPACE = " \t\n\r\f\v"  # what PostgreSQL's number inputs skip around the number
# numeric's non-finite inputs (case-insensitive; Infinity since PostgreSQL 14). NaN sorts above
# every number there, Infinity included; stored values are never NaN or infinite, so against
# them NaN compares exactly as +Infinity does and is read as that.
_NON_FINITE = {
    "nan": "Infinity",
    "infinity": "Infinity",
    "+infinity": "Infinity",
    "inf": "Infinity",
    "+inf": "Infinity",
    "-infinity": "-Infinity",
    "-inf": "-Infinity",
}
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+\Z")


def numeric_input(value: str) -> decimal.Decimal:
    """A filter's text as PostgreSQL's ``numeric`` input reads it (spaces around, a sign, digits,
    a point, an exponent up to +-1000, NaN, Infinity); 22P02 otherwise."""
    v = value.strip(_PG_SPACE)
    special = _NON_FINITE.get(v.lower())
    if special is not None:
        return decimal.Decimal(special)
    if not DECIMAL_TEXT.match(v) or not _exponent_ok(v):
        raise bad_value("decimal", value)
    return decimal.Decimal(v)


def _encode_numeric(d: decimal.Decimal) -> str:
    """:func:`encode_int`'s order for any number: infinities beyond every integer's form, a
    fraction just after its floor (so it equals no integer and sorts between two)."""
    if d.is_infinite():
        return ">~" if d > 0 else "<"
    whole = d.to_integral_value(decimal.ROUND_FLOOR)
    return encode_int(int(whole)) + ("" if whole == d else "~")


def integer_input(value: str) -> int:
    """A filter's text as PostgreSQL's ``integer`` input reads it: 22P02 for anything but
    optionally signed digits, 22003 outside 32 bits."""
    v = value.strip(_PG_SPACE)
    if not _INTEGER_TEXT.match(v):
        raise QueryError(
            400,
            {
                "hint": None,
                "details": None,
                "code": "22P02",
                "message": f'invalid input syntax for type integer: "{value[:200]}"',
            },
        )
    digits = v.lstrip("+-").lstrip("0")
    n = int(v) if len(digits) <= 10 else 2**31
    if not -(2**31) <= n < 2**31:
        raise QueryError(
            400,
            {
                "hint": None,
                "details": None,
                "code": "22003",
                "message": f'value "{value[:200]}" is out of range for type integer',
            },
        )
    return n


MAX_EXPONENT = 1000  # PostgreSQL's numeric input refuses a written exponent beyond +-1000


def _exponent_ok(number: str) -> bool:
    """True unless ``number`` (a valid numeric text) writes an exponent PostgreSQL refuses; also
    what keeps ``1e999999999`` from being expanded into a billion-digit integer."""
    _, e, exp = number.lower().partition("e")
    return not e or abs(int(exp)) <= MAX_EXPONENT


def _json_number(token: str) -> decimal.Decimal:
    d = decimal.Decimal(token)
    # the stored form writes a number's whole part in decimal digits (at most 4,300 in Python)
    if not _exponent_ok(token) or d.adjusted() >= 4000:
        raise bad_value("decimal", token)
    return d


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


def _nested_numbers(v: Any) -> Any:
    """Numbers inside an array or object as the stored form's JSON text can hold them: stored
    containers only ever hold integers, so a fraction there (written as a float) equals none."""
    if isinstance(v, dict):
        return {k: _nested(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_nested(x) for x in v]
    return v


def _nested(v: Any) -> Any:
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    return _nested_numbers(v)


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
