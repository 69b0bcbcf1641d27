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
    with _db(node) as db:
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
