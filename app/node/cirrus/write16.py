"""The SQL that writes STRATO 16's ``storage`` and ``mapping`` rows with their history rows,
block by block or for several blocks at once (a drain, cirrus/behind16.py): a drain writes each
row once, its last version, beside one history row per block that changed it, and leaves the
tables as writing block by block does (tests/unit/cirrus/test_write16_once.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .mapping16 import CountKey, MappingLayout, add_counts, shown
from .strato16 import physical

_MAPPING_COLS = (
    "address, block_hash, block_timestamp, block_number, collection_name, collection_type, "
    "key, path, value, _chain, _k1"
)
# the first parameter is the rowid of a new row (mapping16.py), ignored for one that exists;
# the last whether a collection view shows it (mapping16.shown)
UPSERT_MAPPING = (
    f"INSERT INTO {physical('mapping')} (rowid, {_MAPPING_COLS}, _shown) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (address, path, _chain) DO UPDATE SET block_hash = excluded.block_hash, "
    "block_timestamp = excluded.block_timestamp, block_number = excluded.block_number, "
    "value = excluded.value, _shown = excluded._shown WHERE value IS NOT excluded.value"
)
UPSERT_STORAGE = (
    f"INSERT INTO {physical('storage')} (address, block_hash, block_timestamp, block_number, "
    "data, _chain) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (address, _chain) DO UPDATE SET "
    "block_hash = excluded.block_hash, block_timestamp = excluded.block_timestamp, "
    "block_number = excluded.block_number, data = excluded.data"
)
# the same, for rows known to differ from the stored ones (write_mapping_in_order): written
# whatever the stored value, as the last of several versions can equal what was stored
WRITE_MAPPING = UPSERT_MAPPING.rsplit(" WHERE ", 1)[0]
_HISTORY_COLS = _MAPPING_COLS.rsplit(", _chain", 1)[0]
INSERT_MAPPING_HISTORY = (
    f"INSERT INTO {physical('history@mapping')} ({_HISTORY_COLS}, valid_from, valid_to, _chain) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'infinity', ?)"
)
# an UPDATE of mapping rows handing back what their history rows hold
RETURNING_HISTORY = f" RETURNING {_HISTORY_COLS}, _chain"
STAMP = (
    f"INSERT OR IGNORE INTO {physical('contract')} (address, creator, contract_name, _chain) "
    "VALUES (?, ?, ?, ?)"
)


# ------------------------------------------------------------ mapping rows and their history


_NO_ROW: Any = object()  # (no row, or no value stored)


def valid_from(stamp: str) -> str:
    """A block's Cirrus timestamp as ``valid_from`` (PostgreSQL's ``timestamp``: the T form)."""
    return stamp[:19].replace(" ", "T")


def history_rows(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """``history@mapping`` rows of mapping rows (UPSERT_MAPPING's parameters, or as
    RETURNING_HISTORY hands them back: the chain is tenth in both)."""
    return [(*r[:9], valid_from(r[2]), r[9]) for r in rows]


def _stored_values(
    db: Any, keys: Iterable[tuple[str, str, str]]
) -> dict[tuple[str, str, str], Any]:
    """The stored values of mapping rows ``(address, chain, path)`` that exist, 500 paths a
    query."""
    paths: dict[tuple[str, str], list[str]] = {}
    for a, c, p in keys:
        paths.setdefault((a, c), []).append(p)
    out: dict[tuple[str, str, str], Any] = {}
    for (a, c), ps in paths.items():
        for i in range(0, len(ps), 500):
            part = ps[i : i + 500]
            found = db.execute(
                f"SELECT path, value FROM {physical('mapping')} WHERE address = ? AND "
                f"_chain = ? AND path IN ({', '.join('?' * len(part))})",
                (a, c, *part),
            )
            for p, v in found:
                out[(a, c, p)] = v
    return out


def write_mapping(db: Any, layout: MappingLayout, rows: list[tuple[Any, ...]]) -> None:
    """Upsert ``rows`` (UPSERT_MAPPING's parameters after the rowid), each whose value
    changed with its ``history@mapping`` row: rows whose value is the stored one are left as
    they are, as the platform's upsert leaves them. Written here rather than by a trigger,
    which cost about four times as much per row. New rows get rowids in their collection's
    range (mapping16.py), and the counts of shown rows follow (:func:`mapping16.add_counts`)."""
    latest = {(r[0], r[9], r[7]): r for r in rows}  # (address, chain, path): the last
    old = _stored_values(db, latest)
    changed = []
    counts: dict[CountKey, int] = {}
    for k, r in latest.items():
        if k in old and old[k] == r[8]:
            continue
        now = shown(r[8])
        changed.append((None if k in old else layout.next_rowid(r[4]), *r, now))
        was = shown(old[k]) if k in old else 0
        if now != was:
            ck = (r[4], r[0], r[9])
            counts[ck] = counts.get(ck, 0) + now - was
    if changed:
        db.executemany(UPSERT_MAPPING, changed)
        db.executemany(INSERT_MAPPING_HISTORY, history_rows([c[1:-1] for c in changed]))
        add_counts(db, counts)


def write_mapping_in_order(
    db: Any, layout: MappingLayout, calls: list[list[tuple[Any, ...]]]
) -> None:
    """:func:`write_mapping` of each of ``calls`` in turn (blocks in order), in a few
    statements: a row gets a history row when its value differs from the one before it
    (stored, or written by an earlier call), and the table its last version."""
    latest = [{(r[0], r[9], r[7]): r for r in rows} for rows in calls]
    current = _stored_values(db, {k for one in latest for k in one})
    # each changed row's history row, and one upsert per row: its last version, with the
    # rowid its first took when it was new (the table ends as when each version was upserted
    # in turn: its rowids are given, not taken in order); a sequential client's sender row is
    # written once per drain
    history = []
    last: dict[tuple[str, str, str], tuple[Any, ...]] = {}
    counts: dict[CountKey, int] = {}
    froms: dict[str, str] = {}  # block timestamp -> valid_from
    for one in latest:
        for k, r in one.items():
            v = r[8]
            old = current.get(k, _NO_ROW)
            if old is not _NO_ROW and old == v:
                continue
            now = shown(v)
            if old is _NO_ROW:
                last[k] = (layout.next_rowid(r[4]), *r, now)
                was = 0
            else:
                first = last.get(k)
                last[k] = (None if first is None else first[0], *r, now)
                was = shown(old)
            if now != was:
                ck = (r[4], r[0], r[9])
                counts[ck] = counts.get(ck, 0) + now - was
            vf = froms.get(r[2])
            if vf is None:
                vf = froms[r[2]] = valid_from(r[2])
            history.append((*r[:9], vf, r[9]))
            current[k] = v
    if history:
        db.executemany(WRITE_MAPPING, list(last.values()))
        db.executemany(INSERT_MAPPING_HISTORY, history)
        add_counts(db, counts)


def storage_upserts(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The ``storage`` upserts of several blocks (UPSERT_STORAGE's parameters, in block order)
    that leave the same rows and ``history@storage`` rows as all of them: per address and
    chain its first, each whose data differs from the one before it (the trigger adds a
    history row for those alone) and its last (the row the table keeps). A sequential
    client's blocks that write only collections upsert twice per drain, not once per block."""
    last: dict[tuple[Any, Any], int] = {}
    for i, r in enumerate(rows):
        last[(r[0], r[5])] = i
    if len(last) == len(rows):
        return rows
    out = []
    before: dict[tuple[Any, Any], Any] = {}
    for i, r in enumerate(rows):
        k = (r[0], r[5])
        prev = before.get(k, _NO_ROW)
        before[k] = r[4]
        if prev is _NO_ROW or prev != r[4] or last[k] == i:
            out.append(r)
    return out
