"""The layout of STRATO 16's ``mapping`` table, chosen so that its collection views read fast.

A collection view (``<creator>-<Contract>-<var>``) is the ``mapping`` rows of one
``collection_name``. Three things keep its queries near the cost of the same query on a seed
collection table (``benchmarks/cirrus_bench.py --strato16``):

- **Rowids grouped by collection name.** A row's rowid is ``(id << SEQ_BITS) + n``: ``id`` the
  collection name's number (``cirrus16_collections``), ``n`` counting its rows in the order they
  were first written. A view reads one contiguous range of the table, in insertion order, as a
  seed table reads itself: a scan, an ordered page or a page counted from the end walks only
  its own rows, with no index and no sort.
- **Counts kept per collection and contract** (``cirrus16:mapping_count``): the rows a view
  shows (``_shown``: the value is not hidden) by ``(collection_name, address, _chain)``, kept by
  the writer (:func:`add_counts`): it knows each row's value before and after, and adds up
  the changes of a whole write (many blocks) into one row per collection and contract,
  which costs less than the triggers that did it row by row (dropped at start: ``DROPPED``).
  An unfiltered ``count()``, or the total a far page needs, sums a few of them.
- Lookups by key use the index ``(_k1, collection_name, address)``.

Data dirs from before this layout are renumbered once at start (:func:`migrate`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from .backend import quote

SEQ_BITS = 39  # rows per collection name: 2**39; names: 2**24
MAPPING = quote("cirrus16:mapping")
COUNTS = quote("cirrus16:mapping_count")
KEY_INDEX = quote("cirrus16:mapping:k1")
# a collection's entries of one contract, largest value first (a token's holders: see
# strato16.Table16.order_hint); values are stored in an order-preserving text form
BY_VALUE = quote("cirrus16:mapping:by_value")
OLD_KEY_INDEX = quote("cirrus16:mapping:key")  # (collection_name, _k1, address): before
# the stored forms (encoding.encode_json) of the values a collection view hides: null, "", 0,
# false
HIDDEN = ("0", "1", "2=", "30")
HIDDEN_VALUES = "(" + ", ".join(f"'{v}'" for v in HIDDEN) + ")"

# one statement each (run inside the migration's transaction, which executescript would end)
SCHEMA = [
    "CREATE TABLE IF NOT EXISTS cirrus16_collections (id INTEGER PRIMARY KEY, "
    "name TEXT NOT NULL UNIQUE)",
    f"CREATE TABLE IF NOT EXISTS {COUNTS} (collection_name TEXT NOT NULL, address TEXT NOT NULL, "
    "_chain TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (collection_name, address, _chain)) "
    "WITHOUT ROWID",
    # the counts' triggers of earlier versions (the writer keeps the counts: add_counts); the
    # counts they kept are exact, and stay
    'DROP TRIGGER IF EXISTS "cirrus16:mapping:count:insert"',
    'DROP TRIGGER IF EXISTS "cirrus16:mapping:count:update"',
]
UPSERT_COUNT = (
    f"INSERT INTO {COUNTS} (collection_name, address, _chain, n) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (collection_name, address, _chain) DO UPDATE SET n = n + excluded.n"
)
ZERO_COUNT = f"UPDATE {COUNTS} SET n = 0 WHERE collection_name = ? AND address = ? AND _chain = ?"

CountKey = tuple[str, str, str]  # (collection_name, address, _chain)


def add_counts(db: sqlite3.Connection, changes: dict[CountKey, int]) -> None:
    """Add ``changes`` (rows shown more, or fewer) to the kept counts, in one statement. A
    collection and contract whose rows' visibility changed gets its row even when the changes
    add up to 0, as if counted row by row."""
    if changes:
        db.executemany(UPSERT_COUNT, [(*k, n) for k, n in changes.items()])


def shown(value: Any) -> int:
    """1 when a collection view shows a row of this stored value, else 0 (None: no row)."""
    return 0 if value is None or value in HIDDEN else 1


def bounds(cid: int) -> tuple[int, int]:
    """The rowids of the rows of collection name number ``cid``."""
    lo = cid << SEQ_BITS
    return lo, lo + (1 << SEQ_BITS) - 1


class MappingLayout:
    """Collection name numbers and the next free rowid of each (cached; ``reset`` after a
    rollback, so that nothing rolled back is reused)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self._ids: dict[str, int] = {}
        self._next: dict[int, int] = {}

    def reset(self) -> None:
        self._ids.clear()
        self._next.clear()

    def collection_id(self, name: str) -> int:
        cid = self._ids.get(name)
        if cid is None:
            self.db.execute("INSERT OR IGNORE INTO cirrus16_collections (name) VALUES (?)", (name,))
            (cid,) = self.db.execute(
                "SELECT id FROM cirrus16_collections WHERE name = ?", (name,)
            ).fetchone()
            self._ids[name] = cid
        return cid

    def next_rowid(self, name: str) -> int:
        """A fresh rowid in the range of collection ``name``."""
        cid = self.collection_id(name)
        nxt = self._next.get(cid)
        if nxt is None:
            lo, hi = bounds(cid)
            (last,) = self.db.execute(
                f"SELECT max(rowid) FROM {MAPPING} WHERE rowid BETWEEN ? AND ?", (lo, hi)
            ).fetchone()
            nxt = lo + 1 if last is None else last + 1
        self._next[cid] = nxt + 1
        return nxt


def migrate(db: sqlite3.Connection, had_counts: bool) -> None:
    """Bring a data dir written before this layout to it: number its collection names,
    renumber its ``mapping`` rows into their ranges, count what the views show, and drop the
    former key index, add ``_shown`` (the collection views' SQL is rewritten by the caller)."""
    db.execute(f"DROP INDEX IF EXISTS {OLD_KEY_INDEX}")
    shown_before = "_shown" in [r[1] for r in db.execute(f"PRAGMA table_info({MAPPING})")]
    if not shown_before:
        db.execute(f"ALTER TABLE {MAPPING} ADD COLUMN _shown INTEGER NOT NULL DEFAULT 1")
        db.execute(f"UPDATE {MAPPING} SET _shown = 0 WHERE value IN {HIDDEN_VALUES}")
        had_counts = False
    for statement in SCHEMA:  # after _shown exists: the triggers read it
        db.execute(statement)
    db.execute(
        f"CREATE INDEX IF NOT EXISTS {KEY_INDEX} ON {MAPPING} (_k1, collection_name, address)"
    )
    db.execute(
        f"CREATE INDEX IF NOT EXISTS {BY_VALUE} ON {MAPPING} "
        "(collection_name, address, value DESC, _k1)"
    )
    old = db.execute(f"SELECT 1 FROM {MAPPING} WHERE rowid < ? LIMIT 1", (1 << SEQ_BITS,))
    if old.fetchone() is not None:
        db.execute(
            "INSERT OR IGNORE INTO cirrus16_collections (name) SELECT collection_name FROM "
            f"{MAPPING} WHERE rowid < ? GROUP BY collection_name ORDER BY min(rowid)",
            (1 << SEQ_BITS,),
        )
        db.execute("DROP TABLE IF EXISTS temp.cirrus16_renumber")
        db.execute("CREATE TEMP TABLE cirrus16_renumber (old INTEGER PRIMARY KEY, new INTEGER)")
        # after the rows already in the new layout (none, unless a start was interrupted)
        db.execute(
            "INSERT INTO temp.cirrus16_renumber (old, new) SELECT m.rowid, "
            f"coalesce((SELECT max(x.rowid) FROM {MAPPING} x WHERE x.rowid BETWEEN "
            f"c.id << {SEQ_BITS} AND ((c.id + 1) << {SEQ_BITS}) - 1), c.id << {SEQ_BITS}) + "
            "row_number() OVER (PARTITION BY m.collection_name ORDER BY m.rowid) "
            f"FROM {MAPPING} m JOIN cirrus16_collections c ON c.name = m.collection_name "
            "WHERE m.rowid < ?",
            (1 << SEQ_BITS,),
        )
        db.execute(
            f"UPDATE {MAPPING} SET rowid = (SELECT new FROM temp.cirrus16_renumber r "
            f"WHERE r.old = {MAPPING}.rowid) WHERE rowid < ?",
            (1 << SEQ_BITS,),
        )
        db.execute("DROP TABLE temp.cirrus16_renumber")
        had_counts = False
    if not had_counts:
        db.execute(f"DELETE FROM {COUNTS}")
        db.execute(
            f"INSERT INTO {COUNTS} (collection_name, address, _chain, n) SELECT "
            f"collection_name, address, _chain, count(*) FROM {MAPPING} WHERE value NOT IN "
            f"{HIDDEN_VALUES} GROUP BY collection_name, address, _chain"
        )
