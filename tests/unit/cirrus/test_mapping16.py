"""The layout of STRATO 16's ``mapping`` table (cirrus/mapping16.py): rowids grouped by
collection name, the counts a collection view's ``count()`` reads, and the renumbering of a data
dir written before it. On a real SQLite database, through the query engine."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from app.node.cirrus.backend import CirrusBackend
from app.node.cirrus.encoding import encode_int, encode_json
from app.node.cirrus.mapping16 import COUNTS, SEQ_BITS, MappingLayout, bounds
from app.node.cirrus.query import parse_query
from app.node.cirrus.strato16 import Strato16, physical
from app.node.cirrus.write16 import STAMP, UPSERT_STORAGE, write_mapping, write_mapping_in_order
from app.node.solidvm import compile_source

SRC = """
contract Token {
    string public name;
    mapping(address => uint) public balances;
    mapping(uint => string) public notes;
}
"""
TS = "2025-01-15 10:20:30 UTC"
PRIVATE = "c" * 64


def addr(n: int) -> str:
    return format(n, "040x")


def entry(a: str, var: str, key: Any, value: Any, chain: str = "") -> tuple[Any, ...]:
    k = addr(key) if var == "balances" else str(key)
    return (
        a,
        "h1",
        TS,
        "7",
        var,
        "Mapping",
        encode_json({"key": k}),
        f"{var}[{k}]",
        encode_json(value),
        chain,
        k if var == "balances" else encode_int(key),
    )


def make(db: sqlite3.Connection) -> Strato16:
    s = Strato16(CirrusBackend(db))
    for cdef in compile_source(SRC).contracts.values():
        s.register("BlockApps", cdef)
    return s


@pytest.fixture
def db() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None)
    s = make(db)
    db.executemany(
        STAMP, [(addr(1), "BlockApps", "Token", ""), (addr(2), "BlockApps", "Token", "")]
    )
    db.executemany(STAMP, [(addr(3), "BlockApps", "Token", PRIVATE)])
    db.executemany(
        UPSERT_STORAGE,
        [(addr(n), "h1", TS, 7, encode_json({"name": "G"}), "") for n in (1, 2)]
        + [(addr(3), "h1", TS, 7, encode_json({"name": "P"}), PRIVATE)],
    )
    # two collections written in turns, two tokens, a private chain, a zero (hidden) value
    for i in range(1, 6):
        write_mapping(db, s.layout, [entry(addr(1), "balances", 100 + i, i)])
        write_mapping(db, s.layout, [entry(addr(2), "notes", i, f"n{i}")])
        write_mapping(db, s.layout, [entry(addr(2), "balances", 200 + i, 10 * i)])
    write_mapping(db, s.layout, [entry(addr(3), "balances", 300, 7, PRIVATE)])
    write_mapping(db, s.layout, [entry(addr(1), "balances", 400, 0)])
    return db


def rows(s: Strato16, name: str, query: str = "", visible: set[str] | None = None) -> Any:
    params = [(k, v) for k, _, v in (p.partition("=") for p in query.split("&") if p)]
    out, _ = s.backend.run(name, parse_query(params), set() if visible is None else visible, False)
    return out


def test_a_collections_rows_are_one_range_in_insertion_order(db: sqlite3.Connection) -> None:
    ids = dict(db.execute("SELECT name, id FROM cirrus16_collections"))
    got = db.execute(
        f"SELECT rowid, collection_name, _k1 FROM {physical('mapping')} ORDER BY rowid"
    ).fetchall()
    for rowid, name, _ in got:
        lo, hi = bounds(ids[name])
        assert lo < rowid <= hi
    balances = [k for _, n, k in got if n == "balances"]
    assert balances[:3] == [addr(101), addr(201), addr(102)]  # as first written
    assert len(balances) == 12 and [n for _, n, _ in got].count("notes") == 5


def test_a_view_scan_reads_its_range_not_an_index(db: sqlite3.Connection) -> None:
    s = make(db)
    t = s.lookup("BlockApps-Token-balances")
    assert t is not None
    plan = " ".join(
        r[3] for r in db.execute(f"EXPLAIN QUERY PLAN SELECT count(*) FROM {t.sql_name}")
    )
    assert "rowid>? AND rowid<?" in plan, plan
    # and a key lookup uses the key index
    plan = " ".join(
        r[3]
        for r in db.execute(
            f"EXPLAIN QUERY PLAN SELECT * FROM {t.sql_name} WHERE key = ?", (addr(103),)
        )
    )
    assert "cirrus16:mapping:k1" in plan, plan


def counted(s: Strato16, name: str, visible: set[str] | None = None) -> tuple[int, int]:
    """(what count() answers, how many rows the view lists)."""
    (c,) = rows(s, name, "select=count()", visible)
    return c["count"], len(rows(s, name, "", visible))


def test_count_reads_the_kept_counts_and_agrees_with_the_rows(db: sqlite3.Connection) -> None:
    s = make(db)
    assert counted(s, "BlockApps-Token-balances") == (10, 10)  # the zero and the private hidden
    assert counted(s, "BlockApps-Token-balances", {PRIVATE}) == (11, 11)
    assert counted(s, "BlockApps-Token-notes") == (5, 5)
    kept = {
        (a, c): n
        for a, c, n in db.execute(
            f"SELECT address, _chain, n FROM {COUNTS} WHERE collection_name = 'balances'"
        )
    }
    assert kept == {(addr(1), ""): 5, (addr(2), ""): 5, (addr(3), PRIVATE): 1}
    # a value set to zero leaves the view, one set from zero joins it, an unchanged one is no
    # change
    write_mapping(db, s.layout, [entry(addr(1), "balances", 101, 0)])
    write_mapping(db, s.layout, [entry(addr(1), "balances", 400, 9)])
    write_mapping(db, s.layout, [entry(addr(1), "balances", 102, 2)])
    write_mapping(db, s.layout, [entry(addr(1), "balances", 500, 0)])  # new and zero
    assert counted(s, "BlockApps-Token-balances") == (10, 10)
    write_mapping(db, s.layout, [entry(addr(2), "balances", 201, 0)])
    assert counted(s, "BlockApps-Token-balances") == (9, 9)
    # a filter is not answered from the counts
    (c,) = rows(s, "BlockApps-Token-balances", f"select=count()&address=eq.{addr(2)}")
    assert c["count"] == 4


def test_a_far_page_is_counted_from_the_kept_counts(db: sqlite3.Connection) -> None:
    s = make(db)
    everything = rows(s, "BlockApps-Token-balances")
    page = rows(s, "BlockApps-Token-balances", "offset=8&limit=5")
    assert page == everything[8:]
    assert [r["key"] for r in rows(s, "BlockApps-Token-balances", "offset=1&limit=2")] == [
        addr(201),
        addr(102),
    ]


def downgrade(db: sqlite3.Connection) -> None:
    """Make ``db`` look written before mapping16's layout: small rowids in insertion order
    across collections, the old key index, views without the range or their counts."""
    m = physical("mapping")
    db.execute("BEGIN")
    order = db.execute(f"SELECT rowid FROM {m} ORDER BY block_hash, rowid").fetchall()
    for n, (rowid,) in enumerate(sorted(order, key=lambda r: r[0] & ((1 << SEQ_BITS) - 1)), 1):
        db.execute(f"UPDATE {m} SET rowid = ? WHERE rowid = ?", (n, rowid))
    db.execute('DROP INDEX "cirrus16:mapping:k1"')
    db.execute(f'CREATE INDEX "cirrus16:mapping:key" ON {m} (collection_name, _k1, address)')
    for name, source in db.execute("SELECT name, source FROM cirrus16_views").fetchall():
        old = source
        for cid in (1, 2, 3):
            lo, hi = bounds(cid)
            var = "balances" if "balances" in name else "notes"
            old = old.replace(
                f"m.rowid BETWEEN {lo} AND {hi} AND m._shown AND (+m.address, +m._chain)",
                f"m.collection_name = '{var}' AND m.value NOT IN ('0', '1', '2=', '30') AND "
                "(m.address, m._chain)",
            )
        db.execute("UPDATE cirrus16_views SET source = ? WHERE name = ?", (old, name))
    db.execute("ALTER TABLE cirrus16_views DROP COLUMN counted")
    db.execute('DROP TRIGGER IF EXISTS "cirrus16:mapping:count:insert"')
    db.execute('DROP TRIGGER IF EXISTS "cirrus16:mapping:count:update"')
    db.execute(f"ALTER TABLE {m} DROP COLUMN _shown")
    db.execute(f"DROP TABLE {COUNTS}")
    db.execute("DELETE FROM cirrus16_collections")
    db.execute("COMMIT")


def test_a_data_dir_from_before_is_renumbered_once(db: sqlite3.Connection) -> None:
    s = make(db)
    before = {
        q: rows(s, "BlockApps-Token-balances", q)
        for q in ("", "order=value.desc&limit=3", "offset=7&limit=10", "select=count()")
    }
    notes = rows(s, "BlockApps-Token-notes")
    downgrade(db)
    assert db.execute(f"SELECT max(rowid) FROM {physical('mapping')}").fetchone()[0] == 17
    s = make(db)  # the start that migrates
    after = {q: rows(s, "BlockApps-Token-balances", q) for q in before}
    assert after == before
    assert rows(s, "BlockApps-Token-notes") == notes
    assert db.execute("SELECT count(*) FROM cirrus16_views WHERE counted = ''").fetchone()[0] > 0
    t = s.lookup("BlockApps-Token-balances")
    assert t is not None and t.counted()
    (low,) = db.execute(
        f"SELECT count(*) FROM {physical('mapping')} WHERE rowid < ?", (1 << SEQ_BITS,)
    ).fetchone()
    assert low == 0
    # new rows go after the renumbered ones, and a second start changes nothing
    write_mapping(db, s.layout, [entry(addr(1), "balances", 999, 5)])
    assert rows(s, "BlockApps-Token-balances")[-1]["key"] == addr(999)
    snapshot = db.execute(f"SELECT rowid, path FROM {physical('mapping')}").fetchall()
    make(db)
    assert db.execute(f"SELECT rowid, path FROM {physical('mapping')}").fetchall() == snapshot


def plan_of(s: Strato16, name: str, query: str) -> tuple[list[Any], str]:
    params = [(k, v) for k, _, v in (p.partition("=") for p in query.split("&") if p)]
    t = s.backend.table(name)
    plan = s.backend.plan(t, parse_query(params), set(), s.db)
    assert not isinstance(plan, list) and plan.sql is not None
    steps = " ".join(r[3] for r in s.db.execute("EXPLAIN QUERY PLAN " + plan.sql, plan.args))
    return rows(s, name, query), steps


def test_the_mapping_table_read_by_collection_name_reads_its_range(
    db: sqlite3.Connection,
) -> None:
    s = make(db)
    got, steps = plan_of(s, "mapping", "collection_name=eq.notes&select=key")
    assert "rowid>? AND rowid<?" in steps, steps
    assert [r["key"]["key"] for r in got] == ["1", "2", "3", "4", "5"]
    # a contract holding much of the collection: its first rows from the range, in order
    got, steps = plan_of(
        s, "mapping", f"collection_name=eq.balances&address=eq.{addr(1)}&limit=2&select=key"
    )
    assert "rowid>? AND rowid<?" in steps, steps
    assert [r["key"]["key"] for r in got] == [addr(101), addr(102)]
    # one holding little of it: found through the address index
    got, steps = plan_of(
        s, "mapping", f"collection_name=eq.balances&address=eq.{addr(3)}&limit=2&select=key"
    )
    assert "rowid>? AND rowid<?" not in steps and "address=?" in steps, steps
    assert got == []  # a private chain's row: not for a user who is no member


def test_many_blocks_written_in_order_match_block_by_block() -> None:
    """write_mapping_in_order (a drain of several blocks, behind16.py) leaves the same rows,
    rowids, counts and history as write_mapping called block by block."""
    calls = [
        [entry(addr(1), "balances", 500, 5), entry(addr(1), "balances", 501, 1)],
        [entry(addr(1), "balances", 500, 5)],  # unchanged: no new version
        [entry(addr(1), "balances", 500, 7), entry(addr(1), "balances", 501, 0)],
        [entry(addr(1), "balances", 502, 3), entry(addr(1), "balances", 500, 9)],
    ]
    out = []
    for together in (False, True):
        db = sqlite3.connect(":memory:", isolation_level=None)
        s = make(db)
        write_mapping(db, s.layout, [entry(addr(1), "balances", 500, 2)])  # stored before
        if together:
            write_mapping_in_order(db, s.layout, calls)
        else:
            for rows_ in calls:
                write_mapping(db, s.layout, rows_)
        out.append(
            (
                db.execute(
                    f"SELECT rowid, path, value, _shown FROM {physical('mapping')} ORDER BY rowid"
                ).fetchall(),
                db.execute(f"SELECT * FROM {COUNTS}").fetchall(),
                db.execute(
                    f"SELECT path, value FROM {physical('history@mapping')} ORDER BY rowid"
                ).fetchall(),
            )
        )
    assert out[0] == out[1]
    history = out[1][2]
    versions = [v for p, v in history if p.endswith(f"[{addr(500)}]")]
    assert versions == [encode_json(v) for v in (2, 5, 7, 9)]


OLD_TRIGGERS = [  # the counts' triggers of a data dir written before the writer kept them
    f'CREATE TRIGGER "cirrus16:mapping:count:insert" AFTER INSERT ON {physical("mapping")} '
    f"WHEN NEW._shown BEGIN INSERT INTO {COUNTS} (collection_name, address, _chain, n) "
    "VALUES (NEW.collection_name, NEW.address, NEW._chain, 1) "
    "ON CONFLICT (collection_name, address, _chain) DO UPDATE SET n = n + 1; END",
    f'CREATE TRIGGER "cirrus16:mapping:count:update" AFTER UPDATE OF _shown ON '
    f"{physical('mapping')} WHEN NEW._shown IS NOT OLD._shown BEGIN INSERT INTO {COUNTS} "
    "(collection_name, address, _chain, n) VALUES (NEW.collection_name, NEW.address, "
    "NEW._chain, NEW._shown - OLD._shown) ON CONFLICT (collection_name, address, _chain) "
    "DO UPDATE SET n = n + excluded.n; END",
]


def real_counts(db: sqlite3.Connection) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    kept = db.execute(f"SELECT collection_name, address, _chain, n FROM {COUNTS} WHERE n")
    real = db.execute(
        f"SELECT collection_name, address, _chain, count(*) FROM {physical('mapping')} "
        "WHERE _shown GROUP BY collection_name, address, _chain"
    )
    return set(map(tuple, kept)), set(map(tuple, real))


def test_a_data_dir_with_the_count_triggers_loses_them_and_its_counts_stay_exact(
    db: sqlite3.Connection,
) -> None:
    for sql in OLD_TRIGGERS:
        db.execute(sql)
    # (written by this version with the triggers still there: counted twice)
    write_mapping(db, MappingLayout(db), [entry(addr(1), "balances", 600, 4)])
    db.execute(f"UPDATE {COUNTS} SET n = n - 1 WHERE address = ?", (addr(1),))
    before = db.execute(f"SELECT * FROM {COUNTS} ORDER BY 1, 2, 3").fetchall()
    s = make(db)  # a start: the migration
    triggers = db.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'").fetchall()
    assert not [t for (t,) in triggers if "count" in t], triggers
    assert db.execute(f"SELECT * FROM {COUNTS} ORDER BY 1, 2, 3").fetchall() == before
    kept, real = real_counts(db)
    assert kept == real
    # the writer counts: shown, hidden, shown again, in one call and across calls
    write_mapping(db, s.layout, [entry(addr(1), "balances", 601, 1)])
    write_mapping(db, s.layout, [entry(addr(1), "balances", 600, 0)])
    write_mapping_in_order(
        db,
        s.layout,
        [
            [entry(addr(2), "notes", 9, "x"), entry(addr(1), "balances", 602, 0)],
            [entry(addr(2), "notes", 9, ""), entry(addr(1), "balances", 600, 8)],
            [entry(addr(2), "notes", 10, "y"), entry(addr(3), "balances", 301, 2, PRIVATE)],
        ],
    )
    kept, real = real_counts(db)
    assert kept == real
    assert (("balances", addr(1), "", 7)) in kept
