"""Embedded resources (``select=...,alias:Target!inner(cols)``) read for a page of parent rows.

The parent rows carry the key values of each embed's relationship (hidden members, computed by
the parent's own statement). One statement per embed and page reads the target rows whose key
columns hold those values and that pass the embed's own filters, in its order; they are matched
to their parents here. Everything is keyed by values, never by rowid, so views (which have
none) embed and are embedded alike. ``!inner`` embeds also become an ``EXISTS`` clause of the
parent's statement, so that limits and counts see only the parents that have a match.
"""

from __future__ import annotations

import json
import operator
import sqlite3
from typing import TYPE_CHECKING, Any

from .fields import cast_rows
from .query import Query
from .relations import Relationship, quote
from .values import Column, Ref, _from_sql

if TYPE_CHECKING:
    from .backend import CirrusBackend, Table

KEY = "\x00key"  # prefix of the hidden members holding embeds' keys


def key_names(i: int, rel: Relationship) -> list[str]:
    return [f"{KEY}{i}.{j}" for j in range(len(rel.target_keys))]


def hidden_keys(backend: CirrusBackend, t: Table, q: Query) -> list[Ref]:
    """The hidden members rows of ``t`` need for the embeds of ``q``: each relationship's key
    values, read raw (``text`` columns pass values through undecoded)."""
    refs: list[Ref] = []
    for i, e in enumerate(q.embeds):
        rel = backend.relationship(t, e.table, e.via)
        for name, sql in zip(key_names(i, rel), rel.parent_keys(""), strict=True):
            refs.append(Ref(name, sql, Column(name, "text")))
    return refs


def in_select_order(refs: list[Ref], q: Query, rows: list[dict[str, Any]]) -> None:
    """Put each row's members in the order of the select (embeds where they were written),
    when an embed comes before a column; ``refs`` are the selected columns' refs."""
    seen_embed = False
    for kind, _ in q.layout:
        if kind == "embed":
            seen_embed = True
        elif seen_embed:
            break
    else:
        return  # columns first, embeds after: the order the rows have
    names = [refs[i].name if kind == "field" else q.embeds[i].key for kind, i in q.layout]
    for row in rows:
        ordered = {n: row[n] for n in names if n in row}
        row.clear()
        row.update(ordered)


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
    if visible is not None and (chain in target.columns or target.kind in ("event", "strato16")):
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
        target = backend.table(rel.target)
        alias = f"e{depth}"
        sub = e.sub or Query()
        # the relationship finds the target rows through their index; the embed's filters
        # (unqualified: they name the innermost table, the target) test each
        where = [
            f"{alias}.{quote(col)} = {key}"
            for col, key in zip(rel.target_keys, rel.parent_keys(qualifier), strict=True)
        ]
        where += child_where(backend, target, sub, visible, params, depth + 1, alias)
        out.append(f"EXISTS (SELECT 1 FROM {target.aliased(alias)} WHERE {' AND '.join(where)})")
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
    """Add each embed of ``q`` to ``rows`` (which carry the hidden keys of hidden_keys); rows
    of an ``!inner`` embed without a match are removed. The hidden keys stay (the caller drops
    them)."""
    for i, e in enumerate(q.embeds):
        rel = backend.relationship(t, e.table, e.via)
        target = backend.table(rel.target)
        sub = e.sub or Query()
        n = len(rel.target_keys)
        # one key column: the value itself; several: a tuple of them
        getkey = operator.itemgetter(*key_names(i, rel))
        keys = [getkey(r) for r in rows]
        wanted = set(keys)
        wanted = (
            {k for k in wanted if k is not None} if n == 1 else {k for k in wanted if None not in k}
        )
        found: dict[Any, list[dict[str, Any]]] = {}
        if wanted:
            refs = backend.select_refs(target, sub)
            inner_keys = hidden_keys(backend, target, sub)
            params: list[Any] = []
            where = []
            for j, col in enumerate(rel.target_keys):
                where.append(f"{quote(col)} IN (SELECT value FROM json_each(?))")
                column = wanted if n == 1 else {k[j] for k in wanted}
                params.append(json.dumps(sorted(column, key=str)))
            where += child_where(backend, target, sub, visible, params, depth, target.qualifier)
            cols = [quote(c) for c in rel.target_keys] + [r.sql for r in [*refs, *inner_keys]]
            sql = (
                f"SELECT {', '.join(cols)} FROM {target.sql_name} WHERE {' AND '.join(where)}"
                + backend.render_order(target, sub, tiebreak=target.kind != "view")
            )
            children: list[tuple[Any, dict[str, Any]]] = []
            decoded = [*refs, *inner_keys]
            for rec in db.execute(sql, params):
                key = rec[0] if n == 1 else rec[:n]
                if key in wanted:
                    row = {
                        r.name: _from_sql(v, r.col) for r, v in zip(decoded, rec[n:], strict=True)
                    }
                    children.append((key, row))
            kids = [row for _, row in children]
            cast_rows(refs, kids)
            if sub.embeds:
                embed(backend, target, sub, kids, visible, db, depth + 1)
                for row in kids:
                    for hidden in inner_keys:
                        row.pop(hidden.name, None)
                kept = {id(k) for k in kids}
                children = [(k, row) for k, row in children if id(row) in kept]
                in_select_order(refs, sub, kids)
            for key, row in children:
                found.setdefault(key, []).append(row)
        member = e.key
        paged = bool(sub.offset) or sub.limit is not None
        if rel.to_one and not paged:
            first = {k: v[0] for k, v in found.items()}
            for parent, key in zip(rows, keys, strict=True):
                parent[member] = first.get(key)
        else:
            end = None if sub.limit is None else sub.offset + sub.limit
            for parent, key in zip(rows, keys, strict=True):
                matches = found.get(key, [])
                if paged:
                    matches = matches[sub.offset : end]
                parent[member] = (matches[0] if matches else None) if rel.to_one else matches
        if e.inner:
            rows[:] = [p for p in rows if p[member]]
