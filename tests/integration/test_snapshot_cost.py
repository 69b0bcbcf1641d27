"""Snapshots do not stall writers, and a transaction's row stays small (issue 26, item 7).

The node writes contract storage in snapshots (every 5 s of blocks). A snapshot used to write
each changed contract's whole storage as one JSON text inside the seal of the block that
triggered it: with 150,000 holders in a mapping, that transfer took half a second. Now only the
entries changed since the last snapshot are written. Here: a large mapping, transfers across
several snapshots, each fast; a SIGKILL afterwards loses nothing (the node restarts from the
incremental snapshot and replays the blocks after it); a clean restart gives back the exact
state, nested values and mapping order included, also from a data dir of the older format.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.node.traces import TRACES_FILE, hash_key
from tests.integration.conftest import make_node
from tests.integration.node_fixture import (
    RunningNode,
    call_tx,
    deploy,
    read_contract,
    result_of,
    submit,
    upload_tx,
    wait_results,
)

HOLDERS = 150_000
MINT_BATCH = 25_000
SNAPSHOT_SECONDS = 5.0  # the node's snapshot interval (ledger.common.SNAPSHOT_EVERY_SECONDS)
SNAPSHOT_TRANSFER_BOUND = 0.15  # seconds; a snapshot of the whole mapping took 0.35-1.5 s here
TRANSFER_BOUND = 1.0  # seconds, any transfer: a stall, not the machine's noise
BYTES_PER_TRANSFER = 2_500  # the database's growth per token transfer: 3,080 before, 2,110 now
# (both without its call trace, stored apart since traces came: ~1,280 bytes more per transfer)
TRACE_BYTES_PER_TRANSFER = 1_600

HOLDERS_SRC = """
contract Holders {
    mapping(address => uint) public balances;
    uint public holders;

    constructor() public {
        balances[msg.sender] = 1000000000;
    }

    function mint(uint start, uint count) public {
        for (uint i = start; i < start + count; i++) {
            balances[address(i)] = i;
        }
        holders += count;
    }

    function balanceOf(address who) public returns (uint) {
        return balances[who];
    }

    function transfer(address to, uint amount) public returns (bool) {
        require(balances[msg.sender] >= amount, "insufficient balance");
        balances[msg.sender] -= amount;
        balances[to] += amount;
        return true;
    }

    function checksum(uint start, uint count) public returns (uint) {
        uint s = 0;
        for (uint i = start; i < start + count; i++) {
            s += i * balances[address(i)];
        }
        return s;
    }
}
"""

BOOK_SRC = """
contract Book {
    struct Holder { uint n; string tag; }
    mapping(uint => uint) public plain;
    mapping(address => Holder) public holders;
    mapping(address => mapping(address => uint)) public allow;
    mapping(uint => uint[]) public lists;
    uint public count;

    function fill() public {
        plain[1] = 1;
        plain[2] = 2;
        plain[3] = 3;
        holders[address(7)] = Holder(1, "seven");
        holders[address(8)] = Holder(2, "eight");
        allow[address(7)][address(8)] = 1;
        lists[1].push(1);
        count = 1;
    }

    function churn() public {
        delete plain[1];
        plain[1] = 10;
        plain[4] = 4;
        plain[2] = 20;
        delete plain[3];
        holders[address(7)].n += 5;
        holders[address(8)].tag = "changed";
        allow[address(7)][address(9)] = 3;
        allow[address(7)][address(8)] = 2;
        lists[2].push(5);
        lists[2][4] = 8;  // past the end: kept aside (SolidVM), in a dict made now
        count = 2;
    }

    function far() public {
        lists[1][3] = 9;  // the only write: into a dict that did not exist before
    }

    function past() public returns (uint, uint) {
        return (lists[1][3], lists[2][4]);
    }
}
"""


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, name="snapshots")
    try:
        yield n
    finally:
        n.stop()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    """A second node without the large mapping: its restarts are quick."""
    n = make_node(tmp_path_factory, name="restarts")
    try:
        yield n
    finally:
        n.stop()


def _db(node: RunningNode) -> sqlite3.Connection:
    """A read-only connection to the node's database (it runs in WAL mode)."""
    path = node.data_dir / "node.sqlite3"
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)


def _snapshot_block(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT value FROM meta WHERE key='snapshot_block'").fetchone()
    return int(row[0]) if row else -1


def _call(client: httpx.Client, address: str, method: str, args: dict[str, Any]) -> Any:
    res = submit(client, call_tx(address, method, args))[0]
    assert res["status"] == "Success", res
    return res["data"]["contents"]


def _hex(n: int) -> str:
    return format(n, "040x")


def test_transfers_stay_fast_across_snapshots_of_a_large_mapping(node: RunningNode) -> None:
    alice = node.client("alice")
    holders = deploy(alice, "Holders", HOLDERS_SRC)
    for start in range(1, HOLDERS + 1, MINT_BATCH):
        _call(alice, holders, "mint", {"start": start, "count": MINT_BATCH})
    assert _call(alice, holders, "holders", {}) == [str(HOLDERS)]
    bob = node.address("bob")
    db = _db(node)
    try:
        # the minted entries go to disk in the first snapshot after them: a one-time cost
        first = _snapshot_block(db)
        warm_up = 0
        while _snapshot_block(db) == first:
            _call(alice, holders, "transfer", {"to": bob, "amount": 1})
            warm_up += 1
        last = _snapshot_block(db)
        latencies = []
        took_snapshot = []  # the transfers whose block took a snapshot (before answering)
        end = time.monotonic() + 2 * SNAPSHOT_SECONDS + 1.5
        while time.monotonic() < end:
            t0 = time.perf_counter()
            _call(alice, holders, "transfer", {"to": bob, "amount": 1})
            latencies.append(time.perf_counter() - t0)
            now = _snapshot_block(db)
            if now != last:
                took_snapshot.append(latencies[-1])
                last = now
    finally:
        db.close()
    assert len(took_snapshot) >= 2, f"the transfers spanned {len(took_snapshot)} snapshots"
    # The machine is shared: any one request can wait a few hundred ms for a core. Those
    # whose block took a snapshot are the ones a snapshot would slow down (by 0.4-1.5 s
    # before, at this size); every transfer gets a bound that only a stall exceeds.
    snaps = [round(x * 1000) for x in took_snapshot]
    assert max(took_snapshot) < SNAPSHOT_TRANSFER_BOUND, (
        f"transfers that took a snapshot: {snaps} ms"
    )
    latencies.sort()
    worst = [round(x * 1000) for x in latencies[-5:]]
    assert latencies[-1] < TRANSFER_BOUND, (
        f"slowest transfers of {len(latencies)} across snapshots: {worst} ms "
        f"(median {latencies[len(latencies) // 2] * 1000:.1f} ms; those that took a "
        f"snapshot: {snaps} ms)"
    )
    transfers = len(latencies) + warm_up

    # a SIGKILL loses nothing: the incremental snapshot plus the blocks after it
    before = int(_call(alice, holders, "checksum", {"start": 1, "count": HOLDERS})[0])
    sent: list[tuple[str, int, int]] = []  # (hash, holder index, amount)
    for round_ in range(8):
        batch = [(1 + (round_ * 7919 + j * 104_729) % HOLDERS, j + 1) for j in range(20)]
        res = submit(
            alice,
            *(call_tx(holders, "transfer", {"to": _hex(i), "amount": a}) for i, a in batch),
            resolve=False,
        )
        sent.extend((r["hash"], i, a) for r, (i, a) in zip(res, batch, strict=True))
    node.kill9()
    node.restart()
    alice = node.client("alice")
    results = wait_results(alice, [h for h, _, _ in sent], timeout=60)
    assert [r["status"] for r in results] == ["Success"] * len(sent)
    after = int(_call(alice, holders, "checksum", {"start": 1, "count": HOLDERS})[0])
    assert after == before + sum(i * a for _, i, a in sent)
    assert _call(alice, holders, "balanceOf", {"who": bob}) == [str(transfers)]
    spent = transfers + sum(a for _, _, a in sent)
    assert _call(alice, holders, "balanceOf", {"who": node.address("alice")}) == [
        str(1_000_000_000 - spent)
    ]


def _state(client: httpx.Client, address: str) -> dict[str, Any]:
    r = client.get(f"/bloc/v2.2/contracts/Book/{address}/state")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _ordered(state: dict[str, Any]) -> str:
    """The state as text: key order included."""
    return json.dumps(state)


def _to_old_format(path: Path) -> None:
    """Turn a data dir back into the format of schema version 1: mappings inline."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        names = {
            int(i): (c, a, n)
            for i, c, a, n in db.execute("SELECT id, chain, address, name FROM storage_vars")
        }
        inline: dict[tuple[str, str], dict[str, Any]] = {}
        for var, key, value in db.execute(
            "SELECT var, key, value FROM storage_entries ORDER BY rowid"
        ):
            c, a, n = names[var]
            inline.setdefault((c, a), {}).setdefault(n, []).append(
                [json.loads(key), json.loads(value)]
            )
        db.execute("BEGIN")
        for c, a, n in names.values():
            row = db.execute(
                "SELECT storage FROM contracts WHERE chain=? AND address=?", (c, a)
            ).fetchone()
            storage = json.loads(row[0])
            storage[n] = inline.get((c, a), {}).get(n, [])
            db.execute(
                "UPDATE contracts SET storage=? WHERE chain=? AND address=?",
                (json.dumps(storage), c, a),
            )
        db.execute("DROP TABLE storage_entries")
        db.execute("DROP TABLE storage_vars")
        db.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
        db.execute("COMMIT")
    finally:
        db.close()


def test_entries_come_back_exactly_after_a_restart(small: RunningNode) -> None:
    node = small
    alice = node.client("alice")
    book = deploy(alice, "Book", BOOK_SRC)
    _call(alice, book, "fill", {})
    time.sleep(SNAPSHOT_SECONDS + 0.2)
    _call(alice, book, "count", {})  # seals a block: the snapshot writes fill's entries
    _call(alice, book, "far", {})
    _call(alice, book, "churn", {})
    state = _state(alice, book)
    assert list(state["plain"]) == ["2", "1", "4"]  # 1 deleted and set again: at the end
    assert state["holders"][_hex(7)]["n"] == "6"
    node.stop()  # the shutdown snapshot writes churn's entries only
    node.restart()
    alice = node.client("alice")
    assert _ordered(_state(alice, book)) == _ordered(state)
    assert _call(alice, book, "past", {}) == ["9", "8"]  # not in the state: read by the code

    # a data dir of the older format (mappings inline) loads, and is converted
    node.stop()
    _to_old_format(node.data_dir / "node.sqlite3")
    node.restart()
    alice = node.client("alice")
    assert _ordered(_state(alice, book)) == _ordered(state)
    node.stop()
    db = sqlite3.connect(node.data_dir / "node.sqlite3")
    try:
        stored = json.loads(
            db.execute("SELECT storage FROM contracts WHERE address=?", (book,)).fetchone()[0]
        )
        entries = db.execute(
            "SELECT COUNT(*) FROM storage_entries e JOIN storage_vars v ON v.id = e.var "
            "WHERE v.address=?",
            (book,),
        ).fetchone()[0]
    finally:
        db.close()
    assert sorted(stored) == ["count"]
    assert entries == 3 + 2 + 1 + 2
    node.restart()
    alice = node.client("alice")
    assert _ordered(_state(alice, book)) == _ordered(state)
    assert _call(alice, book, "past", {}) == ["9", "8"]


MIX_SRC = """
contract Mix {
    struct P { uint a; string s; uint[] xs; }
    mapping(uint => uint) public plain;
    mapping(uint => P) public ps;
    mapping(uint => mapping(uint => uint)) public nest;
    mapping(uint => uint[]) public arrs;

    function op(uint kind, uint k, uint j, uint v) public {
        if (kind == 0) { plain[k] = v; }
        else if (kind == 1) { delete plain[k]; }
        else if (kind == 2) { ps[k].a = v; }
        else if (kind == 3) { ps[k].xs.push(v); }
        else if (kind == 4) { delete ps[k]; }
        else if (kind == 5) { nest[k][j] = v; }
        else if (kind == 6) { delete nest[k][j]; }
        else if (kind == 7) { arrs[k].push(v); }
        else if (kind == 8) { if (arrs[k].length > 0) { arrs[k].pop(); } }
        else if (kind == 9) { arrs[k][j] = v; }
        else { ps[k].s = "changed"; }
    }

    function at(uint k, uint i) public returns (uint) {
        return arrs[k][i];
    }
}
"""


def test_random_writes_survive_incremental_snapshots(small: RunningNode) -> None:
    """Rounds of random writes into mappings of every shape, each round ended by a clean
    restart (whose shutdown snapshot writes only that round's entries): the state, order
    included, and the elements past arrays' ends (not in the state) come back."""
    node = small
    rng = random.Random(26)
    alice = node.client("alice")
    mix = deploy(alice, "Mix", MIX_SRC)
    far: set[tuple[int, int]] = set()
    for _ in range(3):
        ops = []
        for _ in range(60):
            kind, k, j, v = rng.randrange(11), rng.randrange(6), rng.randrange(5), rng.randrange(99)
            ops.append({"kind": kind, "k": k, "j": j, "v": v})
            if kind == 9:
                far.add((k, j))
        for i in range(0, len(ops), 20):
            res = submit(alice, *(call_tx(mix, "op", o) for o in ops[i : i + 20]))
            assert {r["status"] for r in res} == {"Success"}, res
        r = alice.get(f"/bloc/v2.2/contracts/Mix/{mix}/state")
        assert r.status_code == 200, r.text
        want = r.text
        probes = [call_tx(mix, "at", {"k": k, "i": i}) for k, i in sorted(far)]
        values = [x["data"]["contents"] for x in submit(alice, *probes)]
        node.restart()
        alice = node.client("alice")
        assert json.dumps(alice.get(f"/bloc/v2.2/contracts/Mix/{mix}/state").json()) == (
            json.dumps(json.loads(want))
        )
        assert [x["data"]["contents"] for x in submit(alice, *probes)] == values


def _used_bytes(node: RunningNode) -> tuple[int, int]:
    """Bytes used: (the node's database, the call traces' file beside it)."""
    db = _db(node)
    tdb = _traces_db(node)
    try:
        rest = db.execute("SELECT SUM(pgsize - unused) FROM dbstat").fetchone()[0]
        traces = tdb.execute("SELECT SUM(pgsize - unused) FROM dbstat").fetchone()[0]
        return int(rest), int(traces or 0)
    finally:
        db.close()
        tdb.close()


def _traces_db(node: RunningNode) -> sqlite3.Connection:
    path = node.data_dir / TRACES_FILE
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)


def _stored_traces(tdb: sqlite3.Connection) -> int:
    return int(tdb.execute("SELECT COALESCE(SUM(count), 0) FROM trace_batches").fetchone()[0])


def _traces_through_last(node: RunningNode) -> int:
    """The traces stored once the last transaction's is (the writer stores them in order).
    Counting the stored ones and adding the last one's raced the writer, which may have
    stored it already."""
    deadline = time.monotonic() + 30
    while True:
        db = _db(node)
        tdb = _traces_db(node)
        try:
            last = db.execute("SELECT hash FROM txs ORDER BY seq DESC LIMIT 1").fetchone()[0]
            if tdb.execute("SELECT 1 FROM trace_index WHERE h=?", (hash_key(last),)).fetchone():
                return _stored_traces(tdb)
        finally:
            db.close()
            tdb.close()
        assert time.monotonic() < deadline, f"no trace of the last transaction {last}"
        time.sleep(0.05)


def _settled(node: RunningNode, traces: int) -> None:
    """Wait for what the node writes after answering: the call traces (in their own file)
    and STRATO 16's Cirrus rows of every block (written behind the chain)."""
    deadline = time.monotonic() + 30
    while True:
        db = _db(node)
        tdb = _traces_db(node)
        try:
            have = _stored_traces(tdb)
            head = db.execute("SELECT MAX(number) FROM blocks").fetchone()[0]
            row = db.execute("SELECT value FROM meta WHERE key='cirrus16_through'").fetchone()
        finally:
            db.close()
            tdb.close()
        if have >= traces and row is not None and int(row[0]) >= head:
            return
        assert time.monotonic() < deadline, f"{have} of {traces} traces, rows through {row}"
        time.sleep(0.05)


def test_a_stored_transfer_is_small(small: RunningNode) -> None:
    node = small
    alice = node.client("alice")
    token = deploy(
        alice, "Token", read_contract("Token.sol"), {"_name": "T", "_symbol": "T", "_supply": 10**9}
    )
    to = [node.address(u) for u in ("bob", "carol", "dave")]
    n = 1_000
    traced = _traces_through_last(node)  # the deploy's included
    _settled(node, traced)
    start, start_traces = _used_bytes(node)
    for k in range(n // 50):
        res = submit(
            alice,
            *(call_tx(token, "transfer", {"to": to[(k + j) % 3], "amount": 1}) for j in range(50)),
        )
        assert {r["status"] for r in res} == {"Success"}
    _settled(node, traced + n)
    rest, traces = _used_bytes(node)
    per = (rest - start) / n
    assert per < BYTES_PER_TRANSFER, f"{per:.0f} bytes per stored transfer (traces apart)"
    per_trace = (traces - start_traces) / n
    assert 0 < per_trace < TRACE_BYTES_PER_TRANSFER, f"{per_trace:.0f} trace bytes per transfer"

    # the stored (packed) results read back exactly as the node answered them
    sent = submit(
        alice,
        call_tx(token, "transfer", {"to": to[0], "amount": 2}),
        call_tx(token, "transfer", {"to": to[0], "amount": 10**12}),
        call_tx(token, "name", {}),
        upload_tx("Book", BOOK_SRC),
        resolve=False,
    )
    answered = wait_results(alice, [r["hash"] for r in sent])
    assert [r["status"] for r in answered] == ["Success", "Failure", "Success", "Success"]
    node.restart()  # an empty results cache: they come from the database
    client = node.client("alice")
    for r in answered:
        assert result_of(client, r["hash"]) == r
    stored = client.post("/bloc/v2.2/transactions/results", json=[r["hash"] for r in answered])
    assert stored.json() == answered
