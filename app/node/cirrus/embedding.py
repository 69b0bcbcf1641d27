"""Embedded resources (``select=...,alias:Target!inner(cols)``) read for a page of parent rows.

Two statements per embed and page, each over one table so that the backend's column, filter and
order rendering applies unchanged: the pairs (parent rowid, target rowid) that the relationship
joins, then the target rows that pass the embed's own filters, in its order. ``!inner`` embeds
also become an ``EXISTS`` clause of the parent's query, so that limits and counts see only the
parents that have a match.
"""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Any

from .fields import cast_rows
from .query import Query
from .relations import ROWID, group_rows, quote
from .values import _from_sql

if TYPE_CHECKING:
    from .backend import CirrusBackend, Table


def child_where(
    backend: CirrusBackend,
    target: Table,
    sub: Query,
    visible: set[str] | None,
    params: list[Any],
    depth: int,
    qualifier: str,
) -> list[str]:
    """The conditions on an embedded table's rows (named ``qualifier`` in the statement): the
    embed's filters, the chains the user may see, and its own ``!inner`` embeds."""
    where = [backend.render_group(target, sub.where, params)] if sub.where.items else []
    chain = target.chain_column
    if visible is not None and (chain in target.columns or target.kind == "event"):
        if visible:
            marks = ", ".join("?" for _ in visible)
            where.append(f"(+{quote(chain)} = '' OR +{quote(chain)} IN ({marks}))")
            params.extend(sorted(visible))
        else:
            where.append(f"+{quote(chain)} = ''")
    where.extend(inner_clauses(backend, target, sub, visible, params, qualifier, depth))
    return where


def inner_clauses(
    backend: CirrusBackend,
    t: Table,
    q: Query,
    visible: set[str] | None,
    params: list[Any],
    qualifier: str,
    depth: int,
) -> list[str]:
    """``EXISTS`` conditions for the ``!inner`` embeds of ``q`` (rows of ``t``, named
    ``qualifier`` in the statement)."""
    out = []
    for e in q.embeds:
        if not e.inner:
            continue
        rel = backend.relationship(t, e.table, e.via)
        target = backend.schema[rel.target]
        alias = f"e{depth}"
        sub = e.sub or Query()
        # the relationship finds the target rows through their index, the embed's filters
        # (unqualified: they name the innermost table, the target) test each
        where = [rel.on(qualifier, alias)]
        where += child_where(backend, target, sub, visible, params, depth + 1, alias)
        out.append(
            f"EXISTS (SELECT 1 FROM {target.sql_name} AS {alias} WHERE {' AND '.join(where)})"
        )
    return out


def embed(
    backend: CirrusBackend,
    t: Table,
    q: Query,
    rows: list[dict[str, Any]],
    visible: set[str] | None,
    db: sqlite3.Connection,
    depth: int,
) -> None:
    """Add each embed of ``q`` to ``rows`` (which carry their rowid under ROWID); rows of an
    ``!inner`` embed without a match are removed."""
    ids = json.dumps([r[ROWID] for r in rows])
    for e in q.embeds:
        rel = backend.relationship(t, e.table, e.via)
        target = backend.schema[rel.target]
        sub = e.sub or Query()
        pairs = db.execute(
            f"SELECT p.rowid, c.rowid FROM {t.sql_name} AS p JOIN {target.sql_name} AS c "
            f"ON {rel.on('p', 'c')} WHERE p.rowid IN (SELECT value FROM json_each(?))",
            (ids,),
        ).fetchall()
        found: dict[Any, Any] = {}
        if pairs:
            refs = backend.select_refs(target, sub)
            params: list[Any] = [json.dumps(sorted({c for _, c in pairs}))]
            where = child_where(backend, target, sub, visible, params, depth, target.sql_name)
            cols = ", ".join(["rowid", *(r.sql for r in refs)])
            sql = (
                f"SELECT {cols} FROM {target.sql_name} WHERE rowid IN "
                f"(SELECT value FROM json_each(?))"
                + "".join(f" AND {w}" for w in where)
                + backend.render_order(target, sub)
            )
            children: dict[Any, dict[str, Any]] = {}
            for rec in db.execute(sql, params):
                children[rec[0]] = {
                    r.name: _from_sql(v, r.col) for r, v in zip(refs, rec[1:], strict=True)
                }
                children[rec[0]][ROWID] = rec[0]
            cast_rows(refs, list(children.values()))
            if sub.embeds:
                kids = list(children.values())
                embed(backend, target, sub, kids, visible, db, depth + 1)
                kept = {id(k) for k in kids}
                children = {k: v for k, v in children.items() if id(v) in kept}
            rank = {c: i for i, c in enumerate(children)}
            ordered = sorted(
                ((p, c) for p, c in pairs if c in children), key=lambda pc: (pc[0], rank[pc[1]])
            )
            found = group_rows(
                [(p, children[c]) for p, c in ordered], rel.to_one, sub.limit, sub.offset
            )
            for child in children.values():
                child.pop(ROWID, None)
        empty: list[Any] | None = None if rel.to_one else []
        key = e.key
        for r in rows:
            r[key] = found.get(r[ROWID], empty)
        if e.inner:
            rows[:] = [r for r in rows if r[key]]
