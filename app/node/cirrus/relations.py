"""Relationships between Cirrus tables, for PostgREST's resource embedding (embedding.py).

A :class:`Relationship` says how rows of a source table find rows of a target: the target's key
columns equal SQL expressions over the parent row, and the embed is one object (to-one) or an
array (to-many). Relationships come from *sources* registered on the backend
(``CirrusBackend.relation_sources``): each is a function ``(schema, source table, name) ->
candidates`` for the name a ``select`` embeds, which need not be a table's (STRATO 16's
``<col>_fkey``). :func:`seed_relationships` gives the seed family's: a contract-typed column to
its contract's table (to-one, by ``record_id``), a contract table to its collection tables and
event tables (to-many, by address and chain) and back (to-one). Matching is by values, never
by rowid, so SQL views embed and are embedded like tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .query import QueryError

if TYPE_CHECKING:  # the backend imports this module
    from .backend import Table


@dataclass(frozen=True)
class Relationship:
    """How rows of ``source`` embed rows of ``target`` under the name ``name``: a target row
    belongs to a parent row when its columns ``target_keys`` equal the parent's
    ``parent_keys`` (SQL expressions over the parent row, so that a key may be computed)."""

    source: str
    target: str  # the table whose rows are embedded
    name: str  # what a select calls it: the target's name, or a computed one (`x_fkey`)
    to_one: bool  # one object (or null) rather than an array
    parent_keys: Callable[[str], list[str]]  # qualifier ("" for none) -> SQL of each key
    target_keys: tuple[str, ...]  # the target's columns they equal
    column: str | None = None  # the source column it follows (what `!hint` may name)

    @property
    def cardinality(self) -> str:
        return "many-to-one" if self.to_one else "one-to-many"


RelationSource = Callable[[dict[str, "Table"], "Table", str], list[Relationship]]


def quote(ident: str) -> str:
    return '"' + ident.replace('"', '""') + '"'


def qualified(qualifier: str, column: str) -> str:
    return f"{qualifier}.{quote(column)}" if qualifier else quote(column)


def follows(
    source: str,
    target: str,
    name: str,
    to_one: bool,
    columns: list[tuple[str, str]],
    column: str | None = None,
) -> Relationship:
    """A relationship of plain column equality: ``columns`` are (source column, target column)
    pairs. STRATO 16's ``<col>_fkey(...)`` is ``follows(view, "<creator>-<Target>",
    "<col>_fkey", True, [("<col>", "address")], "<col>")``."""
    return Relationship(
        source,
        target,
        name,
        to_one,
        lambda q: [qualified(q, s) for s, _ in columns],
        tuple(t for _, t in columns),
        column,
    )


def chain_sql(t: Table, q: str) -> str:
    """A row's chain (``''``: the main chain) as SQL."""
    if "chainId" in t.columns:
        return f"coalesce({qualified(q, 'chainId')}, '')"
    if t.kind == "event":
        return qualified(q, "_chain")
    return "''"


def chain_column(t: Table) -> str | None:
    if "chainId" in t.columns:
        return "chainId"
    return "_chain" if t.kind == "event" else None


def same_owner(src: Table, dst: Table, to_one: bool) -> Relationship:
    """Rows of the same contract: equal address and chain."""
    dst_chain = chain_column(dst)

    def keys(q: str) -> list[str]:
        return [qualified(q, "address")] + ([chain_sql(src, q)] if dst_chain else [])

    targets = ("address", dst_chain) if dst_chain else ("address",)
    return Relationship(src.name, dst.name, dst.name, to_one, keys, targets, "address")


def by_record_id(src: Table, target: str, column: str) -> Relationship:
    """A contract-typed column to the referenced row's ``record_id``: the bare address on the
    parent row's own chain, ``<address>:<chain>`` as written, ``<address>:main`` the main
    chain's row."""

    def keys(q: str) -> list[str]:
        v = qualified(q, column)
        chain = chain_sql(src, q)
        return [
            f"CASE WHEN {v} LIKE '%:main' THEN substr({v}, 1, length({v}) - 5) "
            f"WHEN instr({v}, ':') > 0 OR {chain} = '' THEN {v} ELSE {v} || ':' || {chain} END"
        ]

    return Relationship(src.name, target, target, True, keys, ("record_id",), column)


def seed_relationships(schema: dict[str, Table], t: Table, name: str) -> list[Relationship]:
    """The seed family's relationships from ``t`` to the table called ``name``."""
    target = schema.get(name)
    if target is None:
        return []
    base_name = name.rsplit("-", maxsplit=1)[-1]
    out = [
        by_record_id(t, name, c.name)
        for c in t.columns.values()
        if c.ref and c.ref in (name, base_name)
    ]
    if out:
        return out
    owner_of = {"collection": "-", "event": "."}
    if (
        t.kind == "contract"
        and target.kind in owner_of
        and name.rpartition(owner_of[target.kind])[0] == t.name
    ):
        return [same_owner(t, target, False)]
    if (
        target.kind == "contract"
        and t.kind in owner_of
        and t.name.rpartition(owner_of[t.kind])[0] == name
    ):
        return [same_owner(t, target, True)]
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
