"""What a request costs must not grow with the chain (issue 26, item 7: the mixed load's rounds).

Under a 64-connection mixed load the node's throughput fell round by round while transfers grew
the token's holders and its Transfer events. Two requests of that mix cost more with each
transfer: a Cirrus filter on an event's address argument (``Token.Transfer?to=eq.H``: event
tables had no index, so SQLite read every Transfer ever emitted) and a page of ``balances`` near
the mapping's end (the entries before it were counted each time). Both are checked here by what
they read, not by the clock: the query plan SQLite chooses and the entries a page walks.
"""

from __future__ import annotations

import sqlite3
import statistics
import time
from contextlib import closing
from typing import Any

import pytest

from tests.integration.node_fixture import (
    CONTRACTS,
    RunningNode,
    call_tx,
    deploy,
    submit,
)

SUPPLY = 10**30
HOLDERS = 3_000


def _holder(n: int) -> str:
    return f"d0d0d0d0{n:032x}"


@pytest.fixture(scope="module")
def token(node: RunningNode) -> str:
    alice = node.client("alice")
    src = (CONTRACTS / "Token.sol").read_text()
    address = deploy(alice, "Token", src, {"_name": "G", "_symbol": "G", "_supply": SUPPLY})
    for start in range(0, HOLDERS, 1_000):
        txs = [
            call_tx(address, "transfer", {"to": _holder(n), "amount": 1})
            for n in range(start, start + 1_000)
        ]
        res = submit(alice, *txs)
        assert {r["status"] for r in res} == {"Success"}, res[:1]
    return address


def _db(node: RunningNode) -> sqlite3.Connection:
    path = node.data_dir / "node.sqlite3"
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def _plan(db: sqlite3.Connection, sql: str, *args: Any) -> str:
    return " | ".join(str(r[-1]) for r in db.execute(f"EXPLAIN QUERY PLAN {sql}", args))


def test_event_address_arguments_are_indexed(node: RunningNode, token: str) -> None:
    """``Token.Transfer?to=eq.H`` is answered from an index on ``to`` (and ``from``), not by
    reading every Transfer: at 3,000 transfers as at 300,000."""
    alice = node.client("alice")
    h = _holder(1234)
    r = alice.get("/cirrus/search/Token.Transfer", params={"to": f"eq.{h}"})
    assert r.status_code == 200, r.text[:300]
    rows = r.json()
    assert [(x["to"], x["value"], x["address"]) for x in rows] == [(h, "1", token)]
    with closing(_db(node)) as db:
        indexes = {
            name
            for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type='index' AND tbl_name=?",
                ("cirrus:Token.Transfer",),
            )
        }
        assert {"cirrus:Token.Transfer:to", "cirrus:Token.Transfer:from"} <= indexes, indexes
        # value (a uint) gets none: nothing looks an event up by an amount
        assert "cirrus:Token.Transfer:value" not in indexes
        plan = _plan(db, 'SELECT * FROM "cirrus:Token.Transfer" WHERE "to" = ?', h)
        assert "USING INDEX" in plan and "to" in plan, plan


BOOK = """
contract Book {
    mapping(uint => uint) public entries;
    function fill(uint start, uint n) public {
        for (uint i = start; i < start + n; i++) {
            entries[i] = i + 1;
        }
    }
    function clear(uint k) public {
        entries[k] = 0;
    }
}
"""
BOOK_ENTRIES = 200_000


def _median_ms(client: Any, path: str, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        r = client.get(path)
        times.append((time.perf_counter() - t0) * 1000)
        assert r.status_code == 200, r.text[:300]
    return statistics.median(times)


def test_a_page_near_the_end_costs_what_the_first_page_costs(node: RunningNode) -> None:
    """A page of 50 at offset 199,900 of a 200,000-entry mapping counted the 199,900 entries
    before it on every read (12 ms here, growing with the mapping); now the first deep read at
    a block keeps where every 1,024th entry sits, and later reads at that block start there."""
    alice = node.client("alice")
    book = deploy(alice, "Book", BOOK)
    for start in range(0, BOOK_ENTRIES, 20_000):
        res = submit(alice, call_tx(book, "fill", {"start": start, "n": 20_000}))
        assert res[0]["status"] == "Success", res
    zeroed = [5, 70_000, 150_001]  # defaults are left out of pages: offsets count the others
    for k in zeroed:
        submit(alice, call_tx(book, "clear", {"k": k}))
    route = f"/bloc/v2.2/contracts/Book/{book}/state"
    shown = BOOK_ENTRIES - len(zeroed)
    r = alice.get(route, params={"name": "entries", "length": ""})
    assert r.json() == {"entries": shown}
    deep = f"{route}?name=entries&offset={shown - 100}&count=50"
    page = alice.get(deep).json()["entries"]
    keys = [str(k) for k in range(BOOK_ENTRIES) if k not in zeroed][shown - 100 : shown - 50]
    assert list(page) == keys and page[keys[0]] == str(int(keys[0]) + 1)
    mid = alice.get(f"{route}?name=entries&offset=100000&count=3").json()["entries"]
    assert list(mid) == ["100002", "100003", "100004"]  # (5 and 70,000 were cleared)
    first = f"{route}?name=entries&offset=0&count=50"
    firsts, deeps = [], []
    for _ in range(3):  # interleaved: the machine's load moves both alike
        firsts.append(_median_ms(alice, first, 7))
        deeps.append(_median_ms(alice, deep, 7))
    f, d = statistics.median(firsts), statistics.median(deeps)
    assert d < 2 * f + 2.0, f"page near the end {d:.1f} ms, first page {f:.1f} ms"


def test_an_event_table_made_before_gets_its_indexes_after_a_start(
    node: RunningNode, token: str
) -> None:
    """A data dir of an earlier version has event tables without the indexes: the first event
    written to one after a start makes them."""
    node.stop()
    path = node.data_dir / "node.sqlite3"
    with closing(sqlite3.connect(path)) as db:
        db.execute('DROP INDEX "cirrus:Token.Transfer:to"')
        db.execute('DROP INDEX "cirrus:Token.Transfer:from"')
        db.commit()
    node.restart()
    alice = node.client("alice")
    res = submit(alice, call_tx(token, "transfer", {"to": _holder(HOLDERS + 1), "amount": 2}))
    assert res[0]["status"] == "Success", res
    with closing(_db(node)) as db:
        (n,) = db.execute(
            "SELECT count(*) FROM sqlite_master WHERE type='index' AND name IN (?, ?)",
            ("cirrus:Token.Transfer:to", "cirrus:Token.Transfer:from"),
        ).fetchone()
    assert n == 2
    r = alice.get("/cirrus/search/Token.Transfer", params={"to": f"eq.{_holder(HOLDERS + 1)}"})
    assert [x["value"] for x in r.json()] == ["2"]
