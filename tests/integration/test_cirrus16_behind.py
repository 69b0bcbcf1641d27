"""STRATO 16's rows are written behind the chain (cirrus/behind16.py): what a client can see.

The node here holds them back for a minute (``$STRATOSCOPE_CIRRUS16_DELAY_MS``), so that
nothing but a reader or a stop writes them: a Cirrus read right after a ``resolve=true`` write
must still find that write's rows (the read waits for them), and a node killed with rows
pending must rebuild them when it starts again, each row once.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.node.cirrus.behind16 import DELAY_ENV, THROUGH_KEY
from app.node.cirrus.mapping16 import COUNTS
from app.node.cirrus.strato16 import physical
from app.node.store import DB_FILE
from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

SEARCH = "/cirrus/search"
SRC = """
contract Till {
    event Paid(address to, uint amount, bool big);
    uint public total;
    mapping(address => uint) public paid;
    mapping(uint => mapping(uint => uint)) public grid;
    function pay(address to, uint amount) public {
        total += amount;
        paid[to] += amount;
        grid[amount][1] = total;
        emit Paid(to, amount, amount > 5);
    }
}
"""
BOB = "000000000000000000000000000000000000b0b0"
CAROL = "00000000000000000000000000000000000ca201"


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    before = os.environ.get(DELAY_ENV)
    os.environ[DELAY_ENV] = "60000"  # only readers, stops and restarts write them
    try:
        n = make_node(tmp_path_factory, name="behind16")
    finally:
        if before is None:
            os.environ.pop(DELAY_ENV, None)
        else:
            os.environ[DELAY_ENV] = before
    try:
        yield n
    finally:
        n.stop()


def deploy(client: httpx.Client) -> str:
    (res,) = submit(client, upload_tx("Till", SRC, {}))
    assert res["status"] == "Success", res
    return str(res["data"]["contents"]["address"])


def pay(client: httpx.Client, till: str, to: str, amount: int) -> None:
    (res,) = submit(client, call_tx(till, "pay", {"to": to, "amount": amount}, name="Till"))
    assert res["status"] == "Success", res


def rows(client: httpx.Client, table: str, **params: str) -> list[dict[str, Any]]:
    r = client.get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == 200, (table, r.text)
    body = r.json()
    assert isinstance(body, list)
    return body


def through(node: RunningNode) -> tuple[int | None, int]:
    """(the last block whose STRATO 16 rows are written, the last block) from the data dir."""
    db = sqlite3.connect(node.data_dir / DB_FILE)
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (THROUGH_KEY,)).fetchone()
        (head,) = db.execute("SELECT max(number) FROM blocks").fetchone()
    finally:
        db.close()
    return (int(row[0]) if row else None, int(head))


def test_a_read_after_a_resolved_write_sees_its_strato16_rows(node: RunningNode) -> None:
    client = node.client("alice")
    till = deploy(client)
    pay(client, till, BOB, 3)
    # at once, with the rows held back for a minute: the read waits for them
    assert rows(client, "BlockApps-Till", select="address,total") == [{"address": till, "total": 3}]
    paid = rows(client, "BlockApps-Till-paid", select="key,value", address=f"eq.{till}")
    assert paid == [{"key": BOB, "value": 3}]
    events = rows(client, "event", select="event_name,attributes", address=f"eq.{till}")
    assert events == [
        {"event_name": "Paid", "attributes": {"big": "false", "to": BOB, "amount": "3"}}
    ]
    pay(client, till, CAROL, 9)
    pay(client, till, BOB, 4)
    mapping = rows(
        client,
        "mapping",
        select="collection_name,key,value",
        address=f"eq.{till}",
        order="collection_name,key",
    )
    assert {(m["collection_name"], str(m["value"])) for m in mapping} >= {
        ("paid", "7"),
        ("paid", "9"),
    }
    history = rows(
        client,
        "history@mapping",
        select="value",
        address=f"eq.{till}",
        collection_name="eq.paid",
        order="block_number",
    )
    assert [h["value"] for h in history] == [3, 9, 7]
    assert rows(client, "BlockApps-Till-Paid", select="amount", order="block_number") == [
        {"amount": 3},
        {"amount": 9},
        {"amount": 4},
    ]


def pending_at_a_kill9(node: RunningNode, first_read: str) -> tuple[str, str]:
    """Till paid 2 (and its rows read, from ``first_read``: written), then paid 6 and 5 and a
    second Till paid 8 with nothing read, then ``kill -9``: returns (till, the second)."""
    client = node.client("alice")
    till = deploy(client)
    pay(client, till, BOB, 2)
    assert rows(client, first_read, select="address", address=f"eq.{till}") == [{"address": till}]
    # nothing reads Cirrus from here to the kill: these blocks' rows stay queued
    pay(client, till, CAROL, 6)
    pay(client, till, BOB, 5)
    later = deploy(client)  # a contract whose every row is pending
    pay(client, later, CAROL, 8)
    node.kill9()
    written, head = through(node)
    assert written is not None and written < head, (written, head)
    return till, later


def test_rows_pending_at_a_kill9_are_rebuilt_on_start(node: RunningNode) -> None:
    till, later = pending_at_a_kill9(node, "BlockApps-Till-paid")
    node.restart()
    assert through(node)[0] == through(node)[1]
    client = node.client("alice")
    paid = rows(
        client, "BlockApps-Till-paid", select="key,value", address=f"eq.{till}", order="key"
    )
    assert paid == sorted(
        [{"key": BOB, "value": 7}, {"key": CAROL, "value": 6}], key=lambda r: str(r["key"])
    )
    assert rows(client, "BlockApps-Till", select="total", address=f"eq.{till}") == [{"total": 13}]
    assert rows(client, "BlockApps-Till", select="total", address=f"eq.{later}") == [{"total": 8}]
    # every event once: those written before the kill and those rebuilt
    amounts = rows(client, "event", select="attributes", address=f"in.({till},{later})", order="id")
    assert sorted(int(a["attributes"]["amount"]) for a in amounts) == [2, 5, 6, 8]
    contract = rows(client, "contract", select="contract_name", address=f"eq.{later}")
    assert contract == [{"contract_name": "Till"}]


LOUD = """
contract Loud {
    enum Kind { Plain, Gold }
    event Said(string text, bool big, Kind kind, uint[] ids, address who);
    function say(string text, bool big) public {
        uint[] memory ids = new uint[](2);
        ids[0] = 4;
        ids[1] = 50;
        emit Said(text, big, big ? Kind.Gold : Kind.Plain, ids, msg.sender);
    }
}
"""


def raw_events(node: RunningNode, address: str) -> list[tuple[Any, ...]]:
    """The STRATO 16 ``event`` and ``event_array`` rows of ``address`` as stored (bytes)."""
    db = sqlite3.connect(node.data_dir / DB_FILE)
    try:
        ev = db.execute(
            f"SELECT block_number, event_index, event_name, CAST(attributes AS BLOB) FROM "
            f"{physical('event')} WHERE address = ? ORDER BY block_number, event_index",
            (address,),
        ).fetchall()
        arr = db.execute(
            f"SELECT block_number, event_index, key, CAST(value AS BLOB) FROM "
            f"{physical('event_array')} WHERE address = ? ORDER BY block_number, event_index, key",
            (address,),
        ).fetchall()
    finally:
        db.close()
    return [*ev, *arr]


def test_event_attributes_written_live_equal_those_parsed_from_the_events_table(
    node: RunningNode,
) -> None:
    """A block's event rows are built from the argument pairs execution kept; a rebuild builds
    them from the ``events`` table's JSON text: the stored bytes must be the same."""
    client = node.client("alice")
    (res,) = submit(client, upload_tx("Loud", LOUD, {}))
    assert res["status"] == "Success", res
    loud = str(res["data"]["contents"]["address"])
    for text, big in [('it\'s "quoted" ü \u2603 [1]', True), ("", False), ("[x", True)]:
        (r,) = submit(client, call_tx(loud, "say", {"text": text, "big": big}, name="Loud"))
        assert r["status"] == "Success", r
    assert len(rows(client, "event", select="id", address=f"eq.{loud}")) == 3  # (drains)
    live = raw_events(node, loud)
    assert len(live) == 3 + 3 * 2, live
    node.kill9()
    # the rows of every block after the deploy written again, from the events table
    deployed = min(int(r[0]) for r in live) - 1
    db = sqlite3.connect(node.data_dir / DB_FILE)
    try:
        with db:
            db.execute("UPDATE meta SET value = ? WHERE key = ?", (str(deployed), THROUGH_KEY))
    finally:
        db.close()
    node.restart()
    assert through(node)[0] == through(node)[1]
    assert raw_events(node, loud) == live


TALLY = """
contract Tally {
    mapping(address => uint) public paid;
    mapping(uint => mapping(uint => uint)) public grid;
    uint[] public items;
    function pay(address to, uint amount) public {
        paid[to] = amount;
        grid[amount][1] = amount;
        grid[amount][2] = 7;
        items.push(amount);
    }
    function drop(uint amount) public { delete grid[amount]; }
    function clear() public { items = new uint[](1); }
}
"""


def counts(node: RunningNode) -> tuple[dict[tuple[str, str, str], int], dict[Any, int]]:
    """(the kept counts of shown rows, the shown rows counted), non-zero, from the data dir."""
    db = sqlite3.connect(node.data_dir / DB_FILE)
    try:
        kept = db.execute(f"SELECT collection_name, address, _chain, n FROM {COUNTS} WHERE n")
        real = db.execute(
            f"SELECT collection_name, address, _chain, count(*) FROM {physical('mapping')} "
            "WHERE _shown GROUP BY collection_name, address, _chain"
        )
        return {tuple(r[:3]): r[3] for r in kept}, {tuple(r[:3]): r[3] for r in real}
    finally:
        db.close()


def tally(client: httpx.Client, address: str, method: str, **args: Any) -> None:
    (res,) = submit(client, call_tx(address, method, args, name="Tally"))
    assert res["status"] == "Success", res


def test_view_counts_stay_exact_across_a_restart_and_a_kill9_rebuild(node: RunningNode) -> None:
    """The writer counts the rows the collection views show (no trigger): entries set, set to
    zero, nested entries deleted, a whole array replaced; after a drain, a restart and the
    rebuild of a kill -9, the kept counts are the rows counted."""
    client = node.client("alice")
    (res,) = submit(client, upload_tx("Tally", TALLY, {}))
    assert res["status"] == "Success", res
    t = str(res["data"]["contents"]["address"])
    for to, amount in [(BOB, 3), (CAROL, 5), (BOB, 0), (CAROL, 8)]:
        tally(client, t, "pay", to=to, amount=amount)
    tally(client, t, "drop", amount=5)
    rows(client, "mapping", select="key", address=f"eq.{t}")  # (drains)
    kept, real = counts(node)
    assert kept == real
    mine = {k: n for k, n in kept.items() if k[1] == t}
    assert {k[0] for k in mine} == {"paid", "grid", "items"}, mine
    assert mine[("paid", t, "")] == 1  # BOB's went to zero
    tally(client, t, "clear")
    tally(client, t, "pay", to=BOB, amount=4)
    node.restart()  # a stop writes what is queued
    kept, real = counts(node)
    assert kept == real and kept[("paid", t, "")] == 2
    client = node.client("alice")
    tally(client, t, "pay", to=CAROL, amount=0)
    tally(client, t, "drop", amount=4)
    tally(client, t, "pay", to=BOB, amount=6)
    tally(client, t, "clear")
    node.kill9()
    written, head = through(node)
    assert written is not None and written < head, (written, head)
    node.restart()
    kept, real = counts(node)
    assert kept == real and kept[("paid", t, "")] == 1


# ------------------------------------------------------------ the seed's tables, behind too


def seed_count(node: RunningNode, table: str, address: str) -> int:
    """Rows of a seed table for ``address``, as stored (no read that would drain)."""
    db = sqlite3.connect(node.data_dir / DB_FILE)
    try:
        (n,) = db.execute(
            f'SELECT count(*) FROM "cirrus:{table}" WHERE address = ?', (address,)
        ).fetchone()
    finally:
        db.close()
    return int(n)


def test_a_read_after_a_resolved_write_sees_its_seed_rows(node: RunningNode) -> None:
    """The seed's contract, collection and event rows are written behind the chain too: a
    read right after the write finds them, an entry set, deleted and set again within one
    drain ends set, and one deleted ends deleted."""
    client = node.client("alice")
    till = deploy(client)
    pay(client, till, BOB, 3)
    assert seed_count(node, "Till", till) == 0  # (held back: the read below waits for it)
    assert rows(client, "Till", select="address,total", address=f"eq.{till}") == [
        {"address": till, "total": 3}
    ]
    assert rows(client, "Till-paid", select="key,value", address=f"eq.{till}") == [
        {"key": BOB, "value": 3}
    ]
    paid = rows(client, "Till.Paid", select="to,amount", address=f"eq.{till}")
    assert [(p["to"], str(p["amount"])) for p in paid] == [(BOB, "3")]
    (res,) = submit(client, upload_tx("Tally", TALLY, {}))
    assert res["status"] == "Success", res
    t = str(res["data"]["contents"]["address"])
    for to, amount in [(BOB, 3), (BOB, 0), (CAROL, 5), (BOB, 4), (CAROL, 0)]:
        tally(client, t, "pay", to=to, amount=amount)
    assert rows(client, "Tally-paid", select="key,value", address=f"eq.{t}") == [
        {"key": BOB, "value": 4}
    ]


def test_an_asset_application_reads_its_own_writes(node: RunningNode) -> None:
    """The asset routes read the seed's tables too: a car made is found at once."""
    alice = node.client("alice")
    args = {"vin": "VIN-BEHIND", "color": "red", "model": "T", "weight": 1000}
    made = alice.post("/apps/CarDemo/car", json={"carArgs": args})
    assert made.status_code == 200, made.text
    (chain,) = made.json()["data"]["chainIds"]
    got = alice.get(f"/apps/CarDemo/car/{chain}")
    assert got.status_code == 200, got.text
    assert got.json()["data"]["vin"] == "VIN-BEHIND"
    listed = alice.get("/apps/CarDemo/car", params={"vin": "VIN-BEHIND"})
    assert listed.status_code == 200, listed.text
    assert [c["chainId"] for c in listed.json()["data"]["cars"]] == [chain]


def test_seed_rows_pending_at_a_kill9_are_rebuilt_on_start(node: RunningNode) -> None:
    till, later = pending_at_a_kill9(node, "Till")
    assert seed_count(node, "Till.Paid", till) == 1  # (the rest was pending)
    assert seed_count(node, "Till", later) == 0

    node.restart()
    client = node.client("alice")
    assert rows(client, "Till", select="total", address=f"eq.{till}") == [{"total": 13}]
    assert rows(client, "Till", select="total", address=f"eq.{later}") == [{"total": 8}]
    paid = rows(client, "Till-paid", select="key,value", address=f"eq.{till}", order="key")
    assert paid == sorted(
        [{"key": BOB, "value": 7}, {"key": CAROL, "value": 6}], key=lambda r: str(r["key"])
    )
    # every event once, each with its own block: those written before the kill and the rebuilt
    events = rows(client, "Till.Paid", select="amount,block_number", address=f"in.({till},{later})")
    assert sorted(int(e["amount"]) for e in events) == [2, 5, 6, 8]
    assert len({int(e["block_number"]) for e in events}) == 4
    node.restart()  # a further start rebuilds nothing twice
    client = node.client("alice")
    again = rows(client, "Till.Paid", select="amount", address=f"in.({till},{later})")
    assert len(again) == 4
