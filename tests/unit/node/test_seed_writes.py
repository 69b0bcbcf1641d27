"""SeedWrites (cirrus/deferred.py): the seed tables' row statements, now or behind the chain.

A real SQLite database: statements taken as jobs run only when the jobs do; a drain's batch
merges one table's consecutive statements and keeps their order; a failed batch's jobs run
again unchanged; contract-by-contract writes keep one contract's rows only.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, cast

import pytest

from app.node.cirrus.deferred import SeedJob, SeedLater, SeedWrites

UPSERT = "INSERT INTO t (k, v, owner) VALUES (?, ?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v"
DELETE = "DELETE FROM t WHERE k = ?"
INSERT_E = "INSERT INTO e (v) VALUES (?)"


@pytest.fixture
def db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER, owner TEXT)")
    conn.execute("CREATE TABLE e (id INTEGER PRIMARY KEY, v INTEGER)")
    return conn


def table(db: sqlite3.Connection) -> dict[str, int]:
    return dict(db.execute("SELECT k, v FROM t"))


class Counted:
    """A real connection whose ``executemany`` calls are listed (statement, rows)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.calls: list[tuple[str, int]] = []

    def executemany(self, sql: str, rows: Any) -> sqlite3.Cursor:
        rows = list(rows)
        self.calls.append((sql, len(rows)))
        return self.db.executemany(sql, rows)


def test_without_capture_statements_run_at_once(db: sqlite3.Connection) -> None:
    w = SeedWrites(db)
    w.executemany("t", UPSERT, [("a", 1, "x")], ("", "x"))
    ran: list[int] = []
    w.later(lambda: ran.append(len(table(db))), ("", "x"))
    assert table(db) == {"a": 1} and ran == [1]


def test_captured_statements_wait_for_their_jobs(db: sqlite3.Connection) -> None:
    w = SeedWrites(db)
    jobs: list[Callable[[], None]] = []
    w.capture = jobs
    w.executemany("t", UPSERT, [("a", 1, "x")], ("", "x"))

    def tenfold() -> None:
        db.execute("UPDATE t SET v = v * 10")

    w.later(tenfold, ("", "x"))
    assert table(db) == {} and len(jobs) == 2
    assert isinstance(jobs[0], SeedJob) and isinstance(jobs[1], SeedLater)
    w.capture = None
    for job in jobs:
        job()
    assert table(db) == {"a": 10}


def test_a_batch_merges_one_tables_runs_and_keeps_their_order(db: sqlite3.Connection) -> None:
    counted = Counted(db)
    w = SeedWrites(cast(sqlite3.Connection, counted))
    jobs: list[Callable[[], None]] = []
    w.capture = jobs
    for block in range(1, 4):  # three blocks: an upsert of a and an event each
        w.executemany("t", UPSERT, [("a", block, "x")], ("", "x"))
        w.executemany("e", INSERT_E, [(block,)], ("", "x"))
    w.executemany("t", DELETE, [("a",)], ("", "x"))  # then deleted, then set again
    w.executemany("t", UPSERT, [("a", 7, "x"), ("b", 8, "y")], ("", "x"))
    w.capture = None
    w.begin_batch()
    for job in jobs:
        job()
    assert counted.calls == []  # nothing yet: the batch holds them
    w.write_batch()
    w.end_batch()
    assert table(db) == {"a": 7, "b": 8}
    assert [v for (v,) in db.execute("SELECT v FROM e ORDER BY id")] == [1, 2, 3]
    # t: the three upserts as one run, the delete, the last upsert; e: one run of three
    assert counted.calls == [(UPSERT, 3), (DELETE, 1), (UPSERT, 2), (INSERT_E, 3)]


def test_a_later_write_reads_what_was_batched_before_it(db: sqlite3.Connection) -> None:
    w = SeedWrites(db)
    jobs: list[Callable[[], None]] = []
    w.capture = jobs
    w.executemany("t", UPSERT, [("a", 2, "x")], ("", "x"))
    read: list[dict[str, int]] = []
    w.later(lambda: read.append(table(db)), ("", "x"))
    w.capture = None
    w.begin_batch()
    for job in jobs:
        job()
    w.end_batch()
    assert read == [{"a": 2}]


def test_a_failed_batch_runs_its_jobs_again_unchanged(db: sqlite3.Connection) -> None:
    w = SeedWrites(db)
    jobs: list[Callable[[], None]] = []
    w.capture = jobs
    w.executemany("t", UPSERT, [("a", 1, "x")], ("", "x"))
    w.executemany("t", UPSERT, [("b", 2, "y")], ("", "y"))
    w.capture = None
    w.begin_batch()
    for job in jobs:
        job()
    w.end_batch()  # dropped, as a rolled-back drain's
    assert table(db) == {}
    for job in jobs:  # block by block: each job's own rows, once
        job()
    assert table(db) == {"a": 1, "b": 2}
    assert [len(j.rows) for j in jobs if isinstance(j, SeedJob)] == [1, 1]


def test_contract_by_contract_writes_keep_one_owners_rows(db: sqlite3.Connection) -> None:
    w = SeedWrites(db)
    jobs: list[Callable[[], None]] = []
    w.capture = jobs
    rows = [("a", 1, "x"), ("b", 2, "y"), ("c", 3, "x")]
    w.executemany("t", UPSERT, rows, lambda: [("", r[2]) for r in rows])
    later: list[str] = []
    w.later(lambda: later.append("y"), ("", "y"))
    w.capture = None
    (job, late) = jobs
    assert isinstance(job, SeedJob) and isinstance(late, SeedLater)
    assert job.owners() == [("", "x"), ("", "y"), ("", "x")]
    job.run_for(("", "x"))
    late.run_for(("", "x"))
    assert table(db) == {"a": 1, "c": 3} and later == []
    job.run_for(("", "y"))
    late.run_for(("", "y"))
    assert table(db) == {"a": 1, "b": 2, "c": 3} and later == ["y"]
