"""INSERTs of many rows as multi-row VALUES statements (app/node/bulkwrite.py), and the node's
connection using them for executemany (text.py): the same rows as executemany writes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from app.node import bulkwrite
from app.node.bulkwrite import insert_rows
from app.node.text import TextSafeConnection

SCHEMA = (
    "CREATE TABLE t (k INTEGER PRIMARY KEY, a TEXT, b, status TEXT, n INTEGER DEFAULT 0);"
    "CREATE TABLE u (k TEXT PRIMARY KEY, v INTEGER)"
)


def fresh(factory: type[sqlite3.Connection] = sqlite3.Connection) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", factory=factory, isolation_level=None)
    db.executescript(SCHEMA)
    return db


def both(sql: str, rows: list[tuple[object, ...]], table: str = "t") -> list[tuple[object, ...]]:
    """The table after insert_rows, checked against the same rows by plain executemany."""
    mine, plain = fresh(), fresh()
    assert insert_rows(mine, sql, rows) is True
    plain.executemany(sql, rows)
    got = mine.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
    assert got == plain.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
    return got


def test_rows_with_a_literal_in_the_group_and_every_type() -> None:
    rows: list[tuple[object, ...]] = [
        (i, f"text {i} ' \" ?", b"\x00\xff" if i % 3 == 0 else 2.5 * i if i % 3 == 1 else None)
        for i in range(50)
    ]
    got = both("INSERT INTO t (k, a, b, status) VALUES (?, ?, ?, 'Pending')", rows)
    assert len(got) == 50
    assert got[3] == (3, "text 3 ' \" ?", b"\x00\xff", "Pending", 0)
    assert got[4][2] == 10.0


def test_chunks_past_the_parameter_bound_keep_every_row_in_order() -> None:
    per = bulkwrite.MAX_PARAMS // 3
    rows: list[tuple[object, ...]] = [(i, str(i), i * i) for i in range(per * 2 + 7)]
    got = both("INSERT INTO t (k, a, b) VALUES (?, ?, ?)", rows)
    assert [r[0] for r in got] == list(range(per * 2 + 7))


def test_a_conflict_clause_applies_to_each_row_in_order() -> None:
    sql = "INSERT INTO u (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = v + excluded.v"
    got = both(sql, [("a", 1), ("b", 10), ("a", 2), ("a", 4)], table="u")
    assert got == [("a", 7), ("b", 10)]
    got = both("INSERT OR REPLACE INTO u (k, v) VALUES (?, ?)", [("a", 1), ("a", 2)], table="u")
    assert got == [("a", 2)]


def test_a_failing_row_fails_the_statement_as_executemany_fails() -> None:
    db = fresh()
    db.execute("BEGIN")
    with pytest.raises(sqlite3.IntegrityError):
        insert_rows(db, "INSERT INTO u (k, v) VALUES (?, ?)", [("a", 1), ("a", 2)])
    db.execute("ROLLBACK")
    assert db.execute("SELECT COUNT(*) FROM u").fetchone() == (0,)


@pytest.mark.parametrize(
    ("sql", "rows"),
    [
        ("UPDATE t SET a = ? WHERE k = ?", [("x", 1)]),  # not an INSERT
        ("INSERT INTO t (k, a) VALUES (:k, :a)", [{"k": 1, "a": "x"}]),  # named
        ("INSERT INTO t (k, a) SELECT ?, ?", [(1, "x")]),  # no VALUES group
        ("INSERT INTO t (k, a) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET a = ?", [(1, "x", "y")]),
        ("INSERT INTO t (k, a) VALUES (?, ?)", [(1, "x"), (2, "y", "z")]),  # a row too long
        ("INSERT INTO t (k, a) VALUES (?, ?)", [{"k": 1, "a": "x"}]),  # not a sequence
    ],
)
def test_other_shapes_are_left_to_executemany(sql: str, rows: list[object]) -> None:
    db = fresh()
    assert insert_rows(db, sql, rows) is False
    assert db.execute("SELECT COUNT(*) FROM t").fetchone() == (0,)


def test_the_nodes_connection_writes_many_rows_in_one_statement() -> None:
    db = fresh(TextSafeConnection)
    seen: list[str] = []
    db.set_trace_callback(seen.append)
    db.executemany("INSERT INTO t (k, a) VALUES (?, ?)", ((i, "x") for i in range(256)))
    assert len(seen) == 1  # (plain executemany: one per row)
    assert db.execute("SELECT COUNT(*), SUM(k) FROM t").fetchone() == (256, sum(range(256)))
    seen.clear()
    db.executemany("UPDATE t SET a = ? WHERE k = ?", [("y", 1), ("z", 2)])
    assert len(seen) == 2  # not an INSERT: as before
    with pytest.raises(sqlite3.ProgrammingError):  # a wrong row: executemany's own error
        db.executemany("INSERT INTO t (k, a) VALUES (?, ?)", [(1000, "x"), (1001,)])


def test_updates_of_many_rows_match_executemany() -> None:
    per = bulkwrite.MAX_PARAMS // 4
    n = per * 2 + 5  # three statements
    mine, plain = fresh(TextSafeConnection), fresh()
    for db in (mine, plain):
        db.executemany(
            "INSERT INTO t (k, a, status) VALUES (?, ?, 'Pending')",
            [(i, "x") for i in range(n + 10)],
        )
    rows = [(f"new {i}", i * 1.5 if i % 2 else None, "Done", i) for i in range(n)]
    seen: list[str] = []
    mine.set_trace_callback(seen.append)
    bulkwrite.update_rows(mine, "t", ("a", "b", "status"), "k", rows)
    assert len(seen) == (4 if bulkwrite.UPDATE_FROM else n)  # per, per, 4, 1
    plain.executemany("UPDATE t SET a = ?, b = ?, status = ? WHERE k = ?", rows)
    got = mine.execute("SELECT * FROM t ORDER BY k").fetchall()
    assert got == plain.execute("SELECT * FROM t ORDER BY k").fetchall()
    assert got[-1] == (n + 9, "x", None, "Pending", 0)  # rows not named are as they were
    assert got[3] == (3, "new 3", 4.5, "Done", 0)
    with pytest.raises(sqlite3.ProgrammingError):
        bulkwrite.update_rows(mine, "t", ("a",), "k", [("y", 1, 2), ("z",)])  # (4 values)


def test_an_iterator_of_rows_is_read_a_statement_at_a_time() -> None:
    db = fresh(TextSafeConnection)
    per = bulkwrite.MAX_PARAMS // 2
    taken = 0
    at_statements: list[int] = []

    def rows() -> Iterator[tuple[int, str]]:
        nonlocal taken
        for i in range(per * 3 + 1):
            taken += 1
            yield (i, "x")

    db.set_trace_callback(lambda _sql: at_statements.append(taken))
    db.executemany("INSERT INTO t (k, a) VALUES (?, ?)", rows())
    assert at_statements == [per, 2 * per, 3 * per, 3 * per + 1]  # never all of them at once
    assert db.execute("SELECT COUNT(*) FROM t").fetchone() == (per * 3 + 1,)


def test_a_piece_of_another_shape_goes_to_executemany() -> None:
    db = fresh()
    rows: list[object] = [(1, "a"), {"k": 2}, (3, "c")]
    sql = "INSERT INTO t (k, a) VALUES (?, ?)"
    with pytest.raises(sqlite3.ProgrammingError):  # executemany's own error for the dict
        bulkwrite.insert_many(db, sql, rows)
    bulkwrite.insert_many(db, "INSERT INTO u (k, v) VALUES (:k, :v)", [{"k": "a", "v": 1}])
    assert db.execute("SELECT * FROM u").fetchall() == [("a", 1)]


def test_statements_come_in_a_few_sizes_that_the_connection_keeps_compiled() -> None:
    """Any number of rows is written by statements of ``per`` rows or a power of 4: the
    same few texts whatever the count, each compiled once and kept by the connection's
    statement cache (a 25-row INSERT compiled took twice as long as it ran)."""
    db = fresh(TextSafeConnection)
    seen: list[str] = []
    db.set_trace_callback(seen.append)
    k = 0
    for count in range(1, 80):
        db.executemany("INSERT INTO t (k, a) VALUES (?, ?)", [(k + i, "x") for i in range(count)])
        k += count
    assert db.execute("SELECT COUNT(*), SUM(k) FROM t").fetchone() == (k, sum(range(k)))
    sizes = {t.count("'x')") for t in seen if t.startswith("INSERT")}  # (shows values)
    assert sizes == {1, 4, 16, 64}
    seen.clear()
    db.executemany("INSERT INTO t (k, a) VALUES (?, ?)", [(k + i, "x") for i in range(23)])
    assert [text.count("'x')") for text in seen] == [16, 4, 1, 1, 1]
