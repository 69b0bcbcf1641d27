"""Relationships between Cirrus tables, and embedding along them (PostgREST's resource
embedding).

A :class:`Relationship` says how rows of a source table find rows of a target: an SQL condition
between a parent row and a target row, and whether the embed is one object (to-one) or an
array (to-many). Relationships come from *sources* registered on the backend
(``CirrusBackend.relation_sources``): each is a function ``(schema, source table, name) ->
candidates`` for the name a ``select`` embeds. :func:`seed_relationships` gives the seed
family's: a contract-typed column to its contract's table (to-one, by ``record_id``), a
contract table to its collection tables and event tables (to-many, by address and chain) and
back (to-one). A STRATO 16 family adds its own source (views through ``address``, and the
``<col>_fkey`` computed relationships, whose name is not a table's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .query import QueryError

if TYPE_CHECKING:  # the backend imports this module
    from .backend import Table


ROWID = "\x00rowid"  # the hidden member of parent rows that embeds are matched on


@dataclass(frozen=True)
class Relationship:
    """How rows of ``source`` embed rows of ``target`` under the name ``name``."""

    source: str
    target: str  # the table whose rows are embedded
    name: str  # what a select calls it: the target's name, or a computed one (`x_fkey`)
    to_one: bool  # one object (or null) rather than an array
    on: Callable[[str, str], str]  # SQL: (parent qualifier, target alias) -> join condition
    column: str | None = None  # the source column it follows (what `!hint` may name)

    @property
    def cardinality(self) -> str:
        return "many-to-one" if self.to_one else "one-to-many"


RelationSource = Callable[[dict[str, "Table"], "Table", str], list[Relationship]]


def quote(ident: str) -> str:
    return '"' + ident.replace('"', '""') + '"'


def chain_sql(t: Table, p: str) -> str:
    """The parent row's chain (``''``: the main chain) as SQL."""
    if "chainId" in t.columns:
        return f"coalesce({p}.\"chainId\", '')"
    if t.kind == "event":
        return f'{p}."_chain"'
    return "''"


def same_owner(src: Table, dst: Table) -> Callable[[str, str], str]:
    """Rows of the same contract: equal address and chain."""

    def on(p: str, c: str) -> str:
        return f'{c}."address" = {p}."address" AND {chain_sql(dst, c)} = {chain_sql(src, p)}'

    return on


def by_record_id(src: Table, column: str) -> Callable[[str, str], str]:
    """A contract-typed column to the referenced row's ``record_id``: the bare address on the
    parent row's own chain, ``<address>:<chain>`` as written, ``<address>:main`` the main
    chain's row."""

    def on(p: str, c: str) -> str:
        v = f"{p}.{quote(column)}"
        return (
            f"{c}.\"record_id\" = CASE WHEN {v} LIKE '%:main' THEN substr({v}, 1, length({v}) - 5) "
            f"WHEN instr({v}, ':') > 0 OR {chain_sql(src, p)} = '' THEN {v} "
            f"ELSE {v} || ':' || {chain_sql(src, p)} END"
        )

    return on


def seed_relationships(schema: dict[str, Table], t: Table, name: str) -> list[Relationship]:
    """The seed family's relationships from ``t`` to the table called ``name``."""
    target = schema.get(name)
    if target is None:
        return []
    out: list[Relationship] = []
    base_name = name.rsplit("-", maxsplit=1)[-1]
    for c in t.columns.values():
        if c.ref and c.ref in (name, base_name):
            out.append(Relationship(t.name, name, name, True, by_record_id(t, c.name), c.name))
    if out:
        return out
    owner_of = {"collection": "-", "event": "."}
    if (
        t.kind == "contract"
        and target.kind in owner_of
        and name.rpartition(owner_of[target.kind])[0] == t.name
    ):
        return [Relationship(t.name, name, name, False, same_owner(t, target), "address")]
    if (
        target.kind == "contract"
        and t.kind in owner_of
        and t.name.rpartition(owner_of[t.kind])[0] == name
    ):
        return [Relationship(t.name, name, name, True, same_owner(t, target), "address")]
    return []


def no_relationship(source: str, target: str) -> QueryError:
    return QueryError(
        400,
        {
            "hint": "If a new foreign key between these entities was created in the database, "
            "try reloading the schema cache.",
            "details": None,
            "code": "PGRST200",
            "message": f"Could not find a relationship between {source} and {target} in the "
            "schema cache",
        },
    )


def choose(
    candidates: list[Relationship], source: str, target: str, via: str | None
) -> Relationship:
    """The one relationship an embed means: ``via`` (a ``!hint``) picks among several by the
    column they follow; none is PGRST200, more than one PGRST201."""
    if via is not None:
        chosen = [r for r in candidates if via in (r.column, r.name)]
        candidates = chosen if chosen or via != "left" else candidates
    if len(candidates) > 1:
        raise QueryError(
            300,
            {
                "hint": f"Try changing '{target}' to one of the following: "
                + ", ".join(f"'{target}!{r.column}'" for r in candidates)
                + ". Find the desired relationship in the 'details' key.",
                "details": [
                    {
                        "cardinality": r.cardinality,
                        "relationship": r.column,
                        "embedding": f"{source} with {target}",
                    }
                    for r in candidates
                ],
                "code": "PGRST201",
                "message": f"Could not embed because more than one relationship was found for "
                f"'{source}' and '{target}'",
            },
        )
    if not candidates:
        raise no_relationship(source, target)
    return candidates[0]


def group_rows(
    fetched: list[tuple[Any, dict[str, Any]]], to_one: bool, limit: int | None, offset: int
) -> dict[Any, Any]:
    """Embedded rows by their parent's rowid: one object (to-one) or a list, paged per parent as
    PostgREST pages an embed (``emb.limit``/``emb.offset``)."""
    by_parent: dict[Any, list[dict[str, Any]]] = {}
    for parent, row in fetched:
        by_parent.setdefault(parent, []).append(row)
    out: dict[Any, Any] = {}
    for parent, all_rows in by_parent.items():
        rows = all_rows
        if offset or limit is not None:
            rows = all_rows[offset : None if limit is None else offset + limit]
        out[parent] = (rows[0] if rows else None) if to_one else rows
    return out
