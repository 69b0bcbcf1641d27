"""A token's holders, largest first, read from an index (issue 29): ``address=eq.X&
order=value.desc,key.asc&limit=N`` on a collection table (the seed's ``Token-_balances``) and on
a STRATO 16 collection view (``BlockApps-Token-balances`` over ``mapping``) reads N index
entries: no scan of the table, no sort (EXPLAIN QUERY PLAN), and the rows come in the order
PostgREST gives (numbers stored in their order-preserving text form: 10 after 9). A store from
before the index gets it at start."""

from __future__ import annotations

import sqlite3
from typing import Any

from app.node.cirrus.backend import CirrusBackend, quote
from app.node.cirrus.encoding import encode_json
from app.node.cirrus.entries import COLLECTION_COLUMNS
from app.node.cirrus.query import parse_query
from app.node.cirrus.values import Column
from app.node.cirrus.write16 import STAMP, write_mapping

from .test_mapping16 import addr, entry, make, rows

HOLDERS = "select=key,value&order=value.desc,key.asc&limit=4"


def steps_of(backend: CirrusBackend, db: sqlite3.Connection, name: str, query: str) -> str:
    params = [(k, v) for k, _, v in (p.partition("=") for p in query.split("&") if p)]
    plan = backend.plan(backend.table(name), parse_query(params), set(), db)
    assert not isinstance(plan, list) and plan.sql is not None
    return " | ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN " + plan.sql, plan.args))


def seed_table(db: sqlite3.Connection) -> CirrusBackend:
    b = CirrusBackend(db)
    cols = [Column(n, k) for n, k in COLLECTION_COLUMNS] + [Column("value", "json")]
    t = b.ensure_table("Token-_balances", "collection", [*cols, Column("key", "text")])
    values = [(addr(1), 9), (addr(1), 10), (addr(1), 700), (addr(1), 10), (addr(1), 3)]
    values += [(addr(2), 5000), (addr(2), 1)]
    for n, (a, v) in enumerate(values):
        db.execute(
            f'INSERT INTO {t.sql_name} ("address", "chainId", "key", "value") '
            "VALUES (?, '', ?, ?)",
            (a, addr(100 + n), encode_json(v)),
        )
    return b


def test_seed_holders_come_from_the_index_in_numeric_order() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    b = seed_table(db)
    query = f"address=eq.{addr(1)}&{HOLDERS}"
    steps = steps_of(b, db, "Token-_balances", query)
    assert "by_value" in steps and "TEMP B-TREE" not in steps and "SCAN" not in steps, steps
    params = [(k, v) for k, _, v in (p.partition("=") for p in query.split("&"))]
    got, _ = b.run("Token-_balances", parse_query(params), set(), False)
    assert [(r["key"], r["value"]) for r in got] == [
        (addr(102), 700), (addr(101), 10), (addr(103), 10), (addr(100), 9)
    ]  # fmt: skip


def test_a_seed_store_from_before_the_index_gets_it_at_start() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    seed_table(db)
    idx = "cirrus:Token-_balances:by_value"
    db.execute(f"DROP INDEX IF EXISTS {quote(idx)}")
    b = CirrusBackend(db)  # a start
    assert db.execute("SELECT 1 FROM sqlite_schema WHERE name = ?", (idx,)).fetchone()
    steps = steps_of(b, db, "Token-_balances", f"address=eq.{addr(1)}&{HOLDERS}")
    assert "TEMP B-TREE" not in steps, steps


def strato16_db() -> tuple[sqlite3.Connection, Any]:
    db = sqlite3.connect(":memory:", isolation_level=None)
    s = make(db)
    db.executemany(STAMP, [(addr(n), "BlockApps", "Token", "") for n in (1, 2)])
    for n, v in enumerate([9, 10, 700, 10, 3]):
        write_mapping(db, s.layout, [entry(addr(1), "balances", 100 + n, v)])
        write_mapping(db, s.layout, [entry(addr(2), "balances", 200 + n, 1000 + v)])
        write_mapping(db, s.layout, [entry(addr(1), "notes", n, f"n{n}")])
    return db, s


def test_strato16_holders_come_from_the_index_in_numeric_order() -> None:
    db, s = strato16_db()
    query = f"address=eq.{addr(1)}&{HOLDERS}"
    steps = steps_of(s.backend, db, "BlockApps-Token-balances", query)
    assert "by_value" in steps and "TEMP B-TREE" not in steps, steps
    got = rows(s, "BlockApps-Token-balances", query)
    assert [(r["key"], r["value"]) for r in got] == [
        (addr(102), 700), (addr(101), 10), (addr(103), 10), (addr(100), 9)
    ]  # fmt: skip
    # a page further down, from the same index
    got = rows(s, "BlockApps-Token-balances", query + "&offset=3")
    assert [(r["key"], r["value"]) for r in got] == [(addr(100), 9), (addr(104), 3)]


def test_a_strato16_store_from_before_the_index_gets_it_at_start() -> None:
    db, _ = strato16_db()
    db.execute(f"DROP INDEX IF EXISTS {quote('cirrus16:mapping:by_value')}")
    s = make(db)  # a start
    steps = steps_of(s.backend, db, "BlockApps-Token-balances", f"address=eq.{addr(1)}&{HOLDERS}")
    assert "by_value" in steps and "TEMP B-TREE" not in steps, steps


def test_strato16_holders_without_the_address_filter_keep_reading_the_range() -> None:
    """Without ``address=eq.`` the by-value index would walk the whole collection by address
    and sort it (11 s where the range's scan takes 1 s at a million holders)."""
    db, s = strato16_db()
    steps = steps_of(s.backend, db, "BlockApps-Token-balances", HOLDERS)
    assert "by_value" not in steps and "rowid>? AND rowid<?" in steps, steps
    got = rows(s, "BlockApps-Token-balances", HOLDERS)
    assert [r["value"] for r in got] == [1700, 1010, 1010, 1009]


def test_strato16_holders_of_one_contract_are_counted_from_the_kept_counts() -> None:
    """``address=eq.X&select=count()`` (a token sharing its view with other instances) sums
    the view's kept counts of that contract rather than reading its rows (8.8 s at a million
    holders on a busy machine)."""
    db, s = strato16_db()
    write_mapping(db, s.layout, [entry(addr(1), "balances", 150, 0)])  # a zero: no holder
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    got = rows(s, "BlockApps-Token-balances", f"address=eq.{addr(1)}&select=count()")
    db.set_trace_callback(None)
    assert got == [{"count": 5}]
    counting = [x for x in statements if "count" in x.lower()]
    assert counting and all('"cirrus16:mapping" m' not in x for x in counting), counting
    assert rows(s, "BlockApps-Token-balances", f"address=eq.{addr(2)}&select=count()") == [
        {"count": 5}
    ]
    assert rows(s, "BlockApps-Token-balances", f"address=eq.{addr(9)}&select=count()") == [
        {"count": 0}
    ]
    assert rows(s, "BlockApps-Token-balances", "select=count()") == [{"count": 10}]
