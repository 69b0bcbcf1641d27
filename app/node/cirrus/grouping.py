"""Aggregates in ``select`` (PostgREST 12 with ``db-aggregates-enabled``, as STRATO 16 runs it):
``count()``, ``col.count()``, ``col.sum()``, ``col.avg()``, ``col.min()``, ``col.max()``, with
aliases and casts, grouped by the other selected columns (PostgREST's automatic GROUP BY).

One statement: the grouped columns and the aggregates, ``sum``/``avg`` through the exact
aggregate functions of fields.py, ``min``/``max`` over the stored forms (which sort as the values
do). An ``order`` may name grouped columns only (PostgreSQL's 42803 otherwise).
"""

from __future__ import annotations

import decimal
import json
import sqlite3
from typing import TYPE_CHECKING, Any

from . import fields as fx
from .query import Field, Query, QueryError
from .values import DECIMAL_COLLATION, Column, _from_sql

if TYPE_CHECKING:
    from .backend import CirrusBackend, Table


def unsupported(what: str) -> QueryError:
    return QueryError(
        400,
        {
            "code": "PGRST100",
            "details": f"the sandbox's Cirrus does not support {what}",
            "hint": None,
            "message": f"{what} are not supported",
        },
    )


def not_grouped(table: str, column: str) -> QueryError:
    return QueryError(
        400,
        {
            "hint": None,
            "details": None,
            "code": "42803",
            "message": f'column "{table}.{column}" must appear in the GROUP BY clause or be used '
            "in an aggregate function",
        },
    )


def aggregate_rows(
    backend: CirrusBackend,
    t: Table,
    q: Query,
    where_sql: str,
    params: list[Any],
    db: sqlite3.Connection,
) -> list[dict[str, Any]]:
    """The rows of an aggregating query: one per group (one in all without grouped columns)."""
    if q.columns is None:
        raise not_grouped(t.name, next(iter(t.columns)))
    exprs: list[str] = []
    groups: list[str] = []
    outs: list[tuple[str, Any]] = []  # (result key, how to read the value)
    for f in q.fields:
        if not f.aggregate:
            r = backend.selected(t, f)
            collate = f" COLLATE {DECIMAL_COLLATION}" if r.col.kind == "decimal" else ""
            groups.append(r.sql + collate)
            exprs.append(r.sql)
            outs.append((r.name, ("column", r)))
            continue
        func = f.aggregate
        out_cast = fx.cast_type(f.result_cast) if f.result_cast else None
        if not f.expr:
            exprs.append("count(*)")
            outs.append((f.alias or func, ("count", out_cast)))
            continue
        r = backend.ref(t, f.expr)
        cast = fx.cast_type(f.cast) if f.cast else ""
        source = cast or fx.PG_TYPES.get(r.col.kind, "text")
        typ = fx.aggregate_type(func, source)
        key = f.alias or func
        if func == "count":
            exprs.append(f"count({r.sql})")
            outs.append((key, ("count", out_cast)))
        elif func in ("sum", "avg") or cast:
            if func in ("min", "max"):
                raise unsupported("casts of a min() or max() input")
            # kind and cast come from fixed sets (column kinds, CAST_TYPES): safe as literals
            exprs.append(f"cirrus_{func}({r.sql}, '{r.col.kind}', '{cast}')")
            outs.append((key, ("number", (cast, out_cast, typ))))
        else:
            collate = f" COLLATE {DECIMAL_COLLATION}" if r.col.kind == "decimal" else ""
            exprs.append(f"{func}({r.sql}{collate})")
            outs.append((key, ("minmax", (r.col, out_cast, typ))))
    grouped = {g.removesuffix(f" COLLATE {DECIMAL_COLLATION}") for g in groups}
    for o in q.order:
        if backend.ref(t, o.column).sql not in grouped:
            raise not_grouped(t.name, o.column)
    sql = f"SELECT {', '.join(exprs)} FROM {t.sql_name}{where_sql}"
    if groups:
        sql += f" GROUP BY {', '.join(groups)}"
    sql += backend.render_order(t, q, tiebreak=False)
    limit = backend.max_rows if q.limit is None else min(q.limit, backend.max_rows)
    sql += " LIMIT ? OFFSET ?"
    rows = []
    for rec in db.execute(sql, [*params, limit, q.offset]):
        row: dict[str, Any] = {}
        for (key, (how, arg)), v in zip(outs, rec, strict=True):
            row[key] = read(how, arg, v)
        rows.append(row)
    return rows


def read(how: str, arg: Any, v: Any) -> Any:
    """One value of an aggregate row as JSON gets it."""
    if how == "column":
        value = _from_sql(v, arg.col)
        if arg.cast:
            value = fx.cast_value(value, fx.PG_TYPES.get(arg.col.kind, "text"), arg.cast)
        return value
    if how == "count":
        return fx.cast_value(v, "bigint", arg) if arg else v
    if how == "number":
        cast, out_cast, typ = arg
        value = fx.number_result(v, cast)
        return fx.cast_value(value, typ, out_cast) if out_cast else value
    col, out_cast, typ = arg
    value = _from_sql(v, Column("", col.kind))  # not block_number's text form
    return fx.cast_value(value, typ, out_cast) if out_cast else value


def aggregate_embedded(
    backend: CirrusBackend,
    t: Table,
    q: Query,
    visible: set[str] | None,
    db: sqlite3.Connection,
) -> list[dict[str, Any]]:
    """Aggregates beside embeds (``select=event_name,event_name.count(),storage!inner(...)``):
    the embeds are part of the grouping, as PostgREST groups by their JSON. The rows are read
    with their embeds and grouped here (no single statement holds the embeds)."""
    if q.columns is None:
        raise not_grouped(t.name, next(iter(t.columns)))
    groups = [f for f in q.fields if not f.aggregate]
    grouped = {backend.ref(t, f.expr).sql for f in groups}
    for o in q.order:
        if backend.ref(t, o.column).sql not in grouped:
            raise not_grouped(t.name, o.column)
    inputs: list[Field] = []
    kinds: list[tuple[Field, str, str | None]] = []  # (aggregate, its result type, result cast)
    for i, f in enumerate(q.fields):
        if not f.aggregate:
            continue
        out_cast = fx.cast_type(f.result_cast) if f.result_cast else None
        if not f.expr:
            kinds.append((f, "bigint", out_cast))
            continue
        r = backend.ref(t, f.expr)
        cast = fx.cast_type(f.cast) if f.cast else ""
        kinds.append(
            (f, fx.aggregate_type(f.aggregate, cast or fx.PG_TYPES.get(r.col.kind, "")), out_cast)
        )
        inputs.append(Field(f.expr, f"\x00agg{i}", f.cast))
    plain = Query(
        columns=[f.expr for f in groups + inputs],
        embeds=q.embeds,
        where=q.where,
        order=q.order,
        fields=groups + inputs,
    )
    rows, _ = backend.run(t.name, plain, visible, False, db)
    names = [backend.selected(t, f).name for f in groups] + [e.key for e in q.embeds]
    buckets: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        key = json.dumps([row[n] for n in names], sort_keys=True, default=str)
        buckets.setdefault(key, []).append(row)
    out = []
    for members in buckets.values():
        first = members[0] if members else {}
        res: dict[str, Any] = {}
        agg_at = 0
        for i, f in enumerate(q.fields):
            if not f.aggregate:
                name = backend.selected(t, f).name
                res[name] = first.get(name)
                continue
            _, typ, out_cast = kinds[agg_at]
            agg_at += 1
            values = (
                [1] * len(members)
                if not f.expr
                else [m[f"\x00agg{i}"] for m in members if m[f"\x00agg{i}"] is not None]
            )
            value = combine(f.aggregate or "", values)
            res[f.alias or f.aggregate or ""] = (
                fx.cast_value(value, typ, out_cast) if out_cast else value
            )
        for e in q.embeds:
            res[e.key] = first.get(e.key)
        out.append(res)
    end = None if q.limit is None else q.offset + min(q.limit, backend.max_rows)
    return out[q.offset : end]


def combine(func: str, values: list[Any]) -> Any:
    """One aggregate over decoded values (NULLs left out)."""
    if func == "count":
        return len(values)
    if not values:
        return None
    if func == "min":
        return min(values)
    if func == "max":
        return max(values)
    total = sum(values)
    if func == "sum":
        return total
    scale = max(
        (-int(v.as_tuple().exponent) for v in values if isinstance(v, decimal.Decimal)), default=0
    )
    return fx.pg_avg(total, len(values), scale)
