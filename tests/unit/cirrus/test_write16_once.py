"""A drain of several blocks (cirrus/behind16.py) writes each ``storage`` and ``mapping`` row
once, its last version, and leaves the tables exactly as writing block by block does: the
same rows (rowids included) and the same history rows, on a real database."""

from __future__ import annotations

import sqlite3
from typing import Any

from app.node.cirrus.backend import CirrusBackend
from app.node.cirrus.encoding import encode_json
from app.node.cirrus.indexer16 import Indexer16, Stored, stored_json
from app.node.cirrus.strato16 import Strato16, physical
from app.node.cirrus.write16 import UPSERT_STORAGE, write_mapping
from app.node.solidvm.types import IntType, StringType
from app.node.solidvm.world import World

A = format(1, "040x")
B = format(2, "040x")


def fresh() -> tuple[Strato16, Indexer16]:
    db = sqlite3.connect(":memory:", isolation_level=None)
    schema = Strato16(CirrusBackend(db))
    # rows the statements write into storage and mapping, counted (the history rows too)
    db.executescript(
        "CREATE TABLE written (tbl TEXT); "
        f"CREATE TRIGGER s_ins AFTER INSERT ON {physical('storage')} "
        "BEGIN INSERT INTO written VALUES ('storage'); END; "
        f"CREATE TRIGGER s_upd AFTER UPDATE ON {physical('storage')} "
        "BEGIN INSERT INTO written VALUES ('storage'); END; "
        f"CREATE TRIGGER m_ins AFTER INSERT ON {physical('mapping')} "
        "BEGIN INSERT INTO written VALUES ('mapping'); END; "
        f"CREATE TRIGGER m_upd AFTER UPDATE ON {physical('mapping')} "
        "BEGIN INSERT INTO written VALUES ('mapping'); END;"
    )
    return schema, Indexer16(schema, World())


def stamp(n: int) -> tuple[str, str]:
    return f"h{n}", f"2025-01-15 10:20:{n:02d} UTC"


def storage_row(n: int, address: str, data: dict[str, str]) -> tuple[Any, ...]:
    h, ts = stamp(n)
    return (address, h, ts, n, encode_json(data), "")


def mapping_row(n: int, address: str, who: int, value: int) -> tuple[Any, ...]:
    h, ts = stamp(n)
    k = format(who, "040x")
    head = (address, h, ts, str(n), "balances", "Mapping")
    return (*head, encode_json({"key": k}), f"balances[{k}]", encode_json(value), "", k)


# blocks 1-6: A's data stays, changes, changes back; B's is new in block 3; a balance moves
# each block, goes back to a value it had, to zero (hidden) and back
STORAGE = [
    [storage_row(1, A, {"name": "Gold"})],
    [storage_row(2, A, {"name": "Gold"})],
    [storage_row(3, A, {"name": "Gold"}), storage_row(3, B, {"n": "1"})],
    [storage_row(4, A, {"name": "Silver"}), storage_row(4, B, {"n": "1"})],
    [storage_row(5, A, {"name": "Gold"})],
    [storage_row(6, A, {"name": "Gold"}), storage_row(6, B, {"n": "2"})],
]
MAPPING = [
    [mapping_row(1, A, 5, 10), mapping_row(1, A, 6, 1)],
    [mapping_row(2, A, 5, 9), mapping_row(2, A, 7, 1)],
    [mapping_row(3, A, 5, 9), mapping_row(3, B, 5, 4)],
    [mapping_row(4, A, 5, 0), mapping_row(4, A, 8, 2)],
    [mapping_row(5, A, 5, 10), mapping_row(5, A, 6, 0)],
    [mapping_row(6, A, 6, 1), mapping_row(6, A, 7, 3)],
]


def tables(db: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the tables written, with its rowid and the type of each value."""
    out = {}
    for name in ("storage", "history@storage", "mapping", "history@mapping", "mapping_count"):
        cur = db.execute(f"SELECT * FROM {physical(name)}")
        cols = [d[0] for d in cur.description]
        order = "" if name == "mapping_count" else "rowid, "
        picked = ", ".join(f"{c}, typeof({c})" for c in [*(["rowid"] if order else []), *cols])
        out[name] = db.execute(f"SELECT {picked} FROM {physical(name)} ORDER BY 1, 2").fetchall()
    return out


def written(db: sqlite3.Connection, table: str) -> int:
    (n,) = db.execute("SELECT count(*) FROM written WHERE tbl = ?", (table,)).fetchone()
    return int(n)


def test_a_drain_leaves_the_rows_and_history_of_writing_block_by_block() -> None:
    by_block, _ = fresh()
    for rows, entries in zip(STORAGE, MAPPING, strict=True):
        by_block.db.executemany(UPSERT_STORAGE, rows)
        write_mapping(by_block.db, by_block.layout, entries)
    schema, ix = fresh()
    ix.begin_batch()
    assert ix.batch is not None
    for rows, entries in zip(STORAGE, MAPPING, strict=True):
        ix.batch.storage += rows
        ix.batch.mapping.append(entries)
    ix.end_batch()
    assert tables(schema.db) == tables(by_block.db)
    history = schema.db.execute(
        f"SELECT address, block_number, data FROM {physical('history@storage')} ORDER BY rowid"
    ).fetchall()
    # one history row per block that changed a contract's data
    want = [("1", "1"), ("2", "3"), ("1", "4"), ("1", "5"), ("2", "6")]
    assert [(a[-1], n) for a, n, _ in history] == want
    # each row written once or, when its data changed within the drain, once per change; a
    # mapping row once (its last version)
    assert written(by_block.db, "storage") == 9
    assert written(schema.db, "storage") == 6  # A: 1, 4, 5, 6; B: 3, 6
    assert written(by_block.db, "mapping") == 11  # (the rows whose value changed)
    assert written(schema.db, "mapping") == 5  # A's 5, 6, 7, 8 and B's 5


def test_a_mapping_row_changed_and_changed_back_within_a_drain_gets_the_last_stamp() -> None:
    """Stored 10, then 9, then 10 again: the row keeps 10 with the last block's stamp, as
    when written block by block (the upsert skips a row whose value is the stored one)."""
    by_block, _ = fresh()
    write_mapping(by_block.db, by_block.layout, [mapping_row(1, A, 5, 10)])
    write_mapping(by_block.db, by_block.layout, [mapping_row(2, A, 5, 9)])
    write_mapping(by_block.db, by_block.layout, [mapping_row(3, A, 5, 10)])
    schema, ix = fresh()
    write_mapping(schema.db, schema.layout, [mapping_row(1, A, 5, 10)])
    ix.begin_batch()
    assert ix.batch is not None
    ix.batch.mapping += [[mapping_row(2, A, 5, 9)], [mapping_row(3, A, 5, 10)]]
    ix.end_batch()
    assert tables(schema.db) == tables(by_block.db)
    (number,) = schema.db.execute(f"SELECT block_number FROM {physical('mapping')}").fetchone()
    assert number == "3"


def test_storage_text_is_made_once_per_change() -> None:
    """The values taken of an account that did not change between blocks make the same
    text; equal numbers and strings count as the same values, different ones do not."""
    u, s = IntType(False), StringType()
    taken = Stored([("n", 5, u), ("name", "Gold", s)])
    assert taken.text() == stored_json(taken.values) == '5{"n":"5","name":"Gold"}'
    assert taken.same([("n", 5, u), ("name", "Go" + "ld", s)])
    assert not taken.same([("n", 6, u), ("name", "Gold", s)])
    assert not taken.same([("n", True, u), ("name", "Gold", s)])  # (True == 1: not the text)
    assert not taken.same([("n", 5, u)])
