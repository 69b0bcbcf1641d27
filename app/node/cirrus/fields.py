"""``select`` items beyond plain columns, as PostgreSQL computes them behind PostgREST 12: casts
(``col::text``, ``value::numeric``) and the aggregates ``count sum avg min max``.

Values arrive decoded (Python ints, Decimals, strings, booleans, JSON values); the casts follow
PostgreSQL's rules and error codes. ``sum`` and ``avg`` run as SQLite aggregate functions over
the stored forms (integers are stored as order-preserving text, see encoding.py), so that only
one row per group leaves SQLite. No SQL is built here.
"""

from __future__ import annotations

import decimal
import json
from typing import Any

from .encoding import decode_int, decode_json
from .query import QueryError
from .values import DECIMAL_TEXT, Ref, parse_json

# the type names a cast may use -> the PostgreSQL type it names
CAST_TYPES = {
    "text": "text",
    "varchar": "text",
    "char": "text",
    "character varying": "text",
    "numeric": "numeric",
    "decimal": "numeric",
    "int": "integer",
    "int4": "integer",
    "integer": "integer",
    "bigint": "bigint",
    "int8": "bigint",
    "smallint": "smallint",
    "int2": "smallint",
    "boolean": "boolean",
    "bool": "boolean",
    "json": "json",
    "jsonb": "jsonb",
}
_INT_RANGES = {"smallint": 2**15, "integer": 2**31, "bigint": 2**63}
# a column kind -> the PostgreSQL type of its values
PG_TYPES = {
    "text": "text",
    "int": "numeric",
    "decimal": "numeric",
    "serial": "integer",
    "bool": "boolean",
    "json": "jsonb",
}
_TRUE = ("t", "true", "y", "yes", "on", "1")
_FALSE = ("f", "false", "n", "no", "off", "0")
_WIDE = decimal.Context(prec=4000, rounding=decimal.ROUND_HALF_UP)


def pg_error(status: int, code: str, message: str, hint: str | None = None) -> QueryError:
    return QueryError(status, {"code": code, "details": None, "hint": hint, "message": message})


def cast_type(name: str) -> str:
    """The PostgreSQL type a cast names (42704 for a type PostgreSQL does not have)."""
    t = CAST_TYPES.get(name.strip().lower())
    if t is None:
        raise pg_error(400, "42704", f'type "{name}" does not exist')
    return t


def json_text(v: Any) -> str:
    """A JSON value as ``jsonb::text`` writes it (``{"a": 1, "b": [1, 2]}``)."""
    return json.dumps(v, separators=(", ", ": "), ensure_ascii=False, default=str)


def _number_text(v: int | decimal.Decimal) -> str:
    return format(v, "f") if isinstance(v, decimal.Decimal) else str(v)


def cast_value(v: Any, source: str, target: str) -> Any:
    """``v`` (of PostgreSQL type ``source``: text, numeric, integer, boolean, jsonb) cast to
    ``target`` (a name of CAST_TYPES' values)."""
    if v is None:
        return None
    if target == "text":
        if source == "jsonb":
            return json_text(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | decimal.Decimal):
            return _number_text(v)
        return str(v)
    if source == "jsonb" and target not in ("json", "jsonb"):
        if isinstance(v, bool):
            kind = "boolean"
        elif isinstance(v, int | decimal.Decimal):
            kind = "number"
        else:
            kind = (
                "string"
                if isinstance(v, str)
                else "array"
                if isinstance(v, list)
                else "object"
                if isinstance(v, dict)
                else "null"
            )
        ok = {"numeric": "number", "boolean": "boolean"}.get(target, "number")
        if kind != ok:
            raise pg_error(400, "22023", f"cannot cast jsonb {kind} to type {target}")
        source = target if target == "boolean" else "numeric"
    if target == "numeric":
        if isinstance(v, bool):
            raise pg_error(400, "42846", "cannot cast type boolean to numeric")
        if isinstance(v, int | decimal.Decimal):
            return v
        text = str(v).strip()
        if not DECIMAL_TEXT.match(text):
            raise pg_error(400, "22P02", f'invalid input syntax for type numeric: "{v}"')
        d = decimal.Decimal(text)
        return int(d) if "." not in text and "e" not in text.lower() else d
    if target in _INT_RANGES:
        if isinstance(v, bool):
            if source == "boolean" and target == "integer":
                return int(v)
            raise pg_error(400, "42846", f"cannot cast type boolean to {target}")
        if isinstance(v, decimal.Decimal):
            n = int(v.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP, context=_WIDE))
        elif isinstance(v, int):
            n = v
        else:
            text = str(v).strip()
            if not text.lstrip("+-").isdigit() or not text.isascii():
                raise pg_error(400, "22P02", f'invalid input syntax for type {target}: "{v}"')
            n = int(text)
        bound = _INT_RANGES[target]
        if not -bound <= n < bound:
            raise pg_error(400, "22003", f"{target} out of range")
        return n
    if target == "boolean":
        if isinstance(v, bool):
            return v
        if isinstance(v, int) and source == "integer":
            return v != 0
        if source in ("numeric", "integer"):
            raise pg_error(400, "42846", f"cannot cast type {source} to boolean")
        text = str(v).strip().lower()
        if text in _TRUE or (len(text) > 1 and any(w.startswith(text) for w in ("true", "yes"))):
            return True
        if text in _FALSE or (len(text) > 1 and any(w.startswith(text) for w in ("false",))):
            return False
        raise pg_error(400, "22P02", f'invalid input syntax for type boolean: "{v}"')
    # json, jsonb
    if source == "jsonb":
        return v
    if source != "text":
        raise pg_error(400, "42846", f"cannot cast type {source} to {target}")
    return parse_json(str(v))


def cast_rows(cols: list[Ref], rows: list[dict[str, Any]]) -> None:
    """Apply the ``::type`` casts of the selected columns (``Ref``s) to decoded rows."""
    for r in cols:
        if r.cast:
            source = PG_TYPES.get(r.col.kind, "text")
            for row in rows:
                row[r.name] = cast_value(row[r.name], source, r.cast)


def result_type(source: str, target: str) -> str:
    """The PostgreSQL type of a value of ``source`` after a cast to ``target``."""
    return "jsonb" if target == "json" else target if target else source


# ---------------------------------------------------------------- aggregates


def aggregate_type(func: str, source: str) -> str:
    """The result type of ``func`` over values of ``source``; 42883 where PostgreSQL has no such
    aggregate (``sum(text)``, ``min(jsonb)``, ``max(boolean)`` ...)."""
    if func == "count":
        return "bigint"
    numeric = source in ("numeric", "integer", "bigint", "smallint")
    if func in ("sum", "avg") and numeric:
        return "numeric" if func == "avg" or source == "numeric" else "bigint"
    if func in ("min", "max") and source in ("numeric", "integer", "bigint", "smallint", "text"):
        return source
    raise pg_error(
        400,
        "42883",
        f"function {func}({source}) does not exist",
        "No function matches the given name and argument types. You might need to add explicit "
        "type casts.",
    )


def decode_stored(v: Any, kind: str) -> Any:
    """A stored value of a column of ``kind`` as a Python value."""
    if v is None:
        return None
    if kind == "int":
        return decode_int(v) if isinstance(v, str) else int(v)
    if kind == "decimal":
        return decimal.Decimal(v)
    if kind == "json":
        return decode_json(v)
    if kind == "bool":
        return bool(v)
    return v


def pg_avg(total: int | decimal.Decimal, n: int, scale: int) -> decimal.Decimal:
    """``total / n`` with the scale PostgreSQL's numeric division gives (numeric.c,
    select_div_scale): at least 16 significant digits, never fewer places than the inputs."""

    def weight(d: decimal.Decimal) -> tuple[int, int]:
        if d == 0:
            return 0, 0
        w = abs(d).adjusted() // 4  # base-10000 digit groups, as numeric stores them
        return w, int(abs(d).scaleb(-4 * w, context=_WIDE))

    num = decimal.Decimal(total)
    w1, f1 = weight(num)
    w2, f2 = weight(decimal.Decimal(n))
    qweight = w1 - w2 - (1 if f1 <= f2 else 0)
    rscale = min(max(16 - qweight * 4, scale, 0), 1000)
    q = _WIDE.divide(num, decimal.Decimal(n))
    return q.quantize(decimal.Decimal(1).scaleb(-rscale), context=_WIDE)


class NumberAggregate:
    """``cirrus_sum(stored, kind, cast)`` / ``cirrus_avg(...)`` as SQLite aggregates: the
    values decoded, cast when asked, summed exactly. The result is text (``i:<int>``,
    ``d:<decimal>``, ``!<bad value>`` when one does not convert), or NULL over no values."""

    avg = False

    def __init__(self) -> None:
        self.total: int | decimal.Decimal = 0
        self.n = 0
        self.scale = 0
        self.bad: str | None = None

    def step(self, stored: Any, kind: str, cast: str) -> None:
        if stored is None or self.bad is not None:
            return
        try:
            v = decode_stored(stored, kind)
            if cast:
                v = cast_value(v, PG_TYPES.get(kind, "text"), cast)
            if isinstance(v, bool) or not isinstance(v, int | decimal.Decimal):
                raise ValueError
        except (QueryError, ValueError, decimal.InvalidOperation):
            self.bad = str(stored)
            return
        if isinstance(v, decimal.Decimal):
            self.scale = max(self.scale, -int(v.as_tuple().exponent))
            self.total = _WIDE.add(decimal.Decimal(self.total), v)
        else:
            self.total = self.total + v
        self.n += 1

    def finalize(self) -> str | None:
        if self.bad is not None:
            return "!" + self.bad
        if not self.n:
            return None
        if self.avg:
            return "d:" + format(pg_avg(self.total, self.n, self.scale), "f")
        if isinstance(self.total, decimal.Decimal):
            return "d:" + format(self.total, "f")
        return f"i:{self.total}"


class AvgAggregate(NumberAggregate):
    avg = True


def register(db: Any) -> None:
    """The aggregate functions on a connection (every connection that runs queries)."""
    db.create_aggregate("cirrus_sum", 3, NumberAggregate)
    db.create_aggregate("cirrus_avg", 3, AvgAggregate)


def number_result(v: str | None, cast: str) -> int | decimal.Decimal | None:
    """A ``cirrus_sum``/``cirrus_avg`` result as a value (22P02 for a value that did not
    convert)."""
    if v is None:
        return None
    if v.startswith("!"):
        target = cast or "numeric"
        raise pg_error(400, "22P02", f'invalid input syntax for type {target}: "{v[1:]}"')
    if v.startswith("i:"):
        return int(v[2:])
    return decimal.Decimal(v[2:])
