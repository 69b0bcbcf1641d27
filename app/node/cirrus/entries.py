"""Writes of collection tables: an entry's row is inserted, updated in place or deleted, and
left alone when its value did not change (so that it keeps the block of its last change)."""

from __future__ import annotations

from typing import Any

from .backend import CirrusBackend, Table, quote
from .encoding import encode_int, encode_json

# the columns of a collection table before its keys and value
COLLECTION_COLUMNS: list[tuple[str, str]] = [
    ("address", "text"),
    ("chainId", "text"),
    ("block_hash", "text"),
    ("block_timestamp", "text"),
    ("block_number", "int"),
    ("transaction_hash", "text"),
    ("transaction_sender", "text"),
    ("collection_name", "text"),
    ("collection_type", "text"),
]

# column kind -> what its values are stored as
_SQL_ENCODERS: dict[str, Any] = {"int": encode_int, "json": encode_json, "bool": int}


class EntryPlan:
    """The statements of a collection table's rows: the block columns, ``collection_name``,
    ``collection_type``, the keys and ``value``, in that order."""

    def __init__(self, t: Table) -> None:
        keys = t.key_columns
        owner = ["address", "chainId"]
        names = [n for n, _ in COLLECTION_COLUMNS] + keys + ["value"]
        self.key_enc = [_SQL_ENCODERS.get(t.columns[k].kind) for k in keys]
        self.select = (
            f"SELECT {', '.join(quote(n) for n in [*keys, 'value'])} FROM {t.sql_name} "
            'WHERE "address" = ? AND "chainId" = ?'
        )
        where = " AND ".join(f"{quote(n)} = ?" for n in owner + keys)
        self.delete = f"DELETE FROM {t.sql_name} WHERE {where}"
        values = [n for n in names if n not in owner + keys]
        self.upsert = (
            f"INSERT INTO {t.sql_name} ({', '.join(quote(n) for n in names)}) "
            f"VALUES ({', '.join('?' for _ in names)}) "
            f"ON CONFLICT ({', '.join(quote(n) for n in owner + keys)}) DO UPDATE SET "
            + ", ".join(f"{quote(n)} = excluded.{quote(n)}" for n in values)
            + ' WHERE "value" IS NOT excluded."value"'
        )


def sync_entries(
    backend: CirrusBackend,
    t: Table,
    owner: tuple[str, str],
    block: tuple[str, str, int],
    collection: tuple[str, str],
    tops: list[Any] | None,
    entries: list[tuple[tuple[Any, ...], Any, tuple[str, str]]],
) -> None:
    """Make collection table ``t`` hold exactly ``entries`` for one contract (``owner``:
    address, chain) under the top-level keys ``tops`` (all of its entries when None).

    An entry is (keys, JSON value, (transaction hash, sender)); ``block``: (hash, Cirrus
    timestamp, number) of the rows written; ``collection``: (name, type). Entries whose
    value did not change keep their row (and its block columns); changed ones are updated
    in place, new ones inserted, vanished ones deleted."""
    key = (t.name, len(t.columns))
    plan = backend.plans.get(key)
    if plan is None:
        plan = backend.plans[key] = EntryPlan(t)
    address, chain = owner
    block_hash, stamp, number = block
    head = (address, chain, block_hash, stamp, encode_int(number))
    name, kind = collection
    key_enc = plan.key_enc
    n_keys = len(key_enc)
    rows = [
        (
            *head,
            tx[0],
            tx[1],
            name,
            kind,
            *[f(k) if f else k for f, k in zip(key_enc, keys, strict=True)],
            encode_json(value),
        )
        for keys, value, tx in entries
    ]
    enc0 = key_enc[0]
    writes = backend.writes  # now, or behind the chain (deferred.py)
    if tops is not None and n_keys == 1:
        # one entry per top-level key: no need to read the old rows; the upsert leaves an
        # unchanged row alone, and a key without a row now loses its old one
        if rows:
            writes.executemany(t.name, plan.upsert, rows, (chain, address))
        kept = {r[9] for r in rows}
        gone = [k for k in (enc0(k) if enc0 else k for k in tops) if k not in kept]
        if gone:
            deletes = [(address, chain, k) for k in gone]
            writes.executemany(t.name, plan.delete, deletes, (chain, address))
        return
    wanted = None if tops is None else sorted({enc0(k) if enc0 else k for k in tops}, key=repr)
    writes.later(lambda: _sync_read_first(backend.db, plan, owner, wanted, rows), (chain, address))


def _sync_read_first(
    db: Any,
    plan: EntryPlan,
    owner: tuple[str, str],
    wanted: list[Any] | None,
    rows: list[tuple[Any, ...]],
) -> None:
    """The rows of ``owner`` under the (encoded) top-level keys ``wanted`` (all: None) made
    ``rows``: read first, then only what changed written."""
    address, chain = owner
    n_keys = len(plan.key_enc)
    old: dict[tuple[Any, ...], Any] = {}
    if wanted is None:
        found = db.execute(plan.select, (address, chain)).fetchall()
    else:
        found = []
        for i in range(0, len(wanted), 500):
            chunk = wanted[i : i + 500]
            found += db.execute(
                f'{plan.select} AND "key" IN ({", ".join("?" for _ in chunk)})',
                (address, chain, *chunk),
            ).fetchall()
    for rec in found:
        old[tuple(rec[:n_keys])] = rec[n_keys]
    changed = [r for r in rows if old.pop(r[9 : 9 + n_keys], None) != r[-1]]
    if old:
        db.executemany(plan.delete, [(address, chain, *k) for k in old])
    if changed:
        db.executemany(plan.upsert, changed)
