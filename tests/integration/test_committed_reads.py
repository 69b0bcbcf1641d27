"""Reads see the state as of the last committed block while the producer's worker executes.

The worker writes contract storage, balances and the contract list in place while it runs a
transaction; the routes served meanwhile (contract state, one mapping entry, accounts, the
contract list, Cirrus) must show none of it: not the writes of a transaction that the step or
time budget later kills, not those of one that reverts, not those of one still running that
will succeed. Each case polls from another client while the transaction runs, and checks that
some of those reads did happen while it ran.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import (
    RunningNode,
    call_tx,
    deploy,
    submit,
    wait_for,
    wait_results,
)

DIRTY = """
pragma solidvm 11.4;
contract Child {
    uint public v;
    constructor(uint _v) { v = _v; }
}
contract Dirty {
    uint public n;
    string public label;
    mapping(uint => uint) public m;
    uint[] public arr;
    event Touched(uint v);

    function set(uint v) public { n = v; m[1] = v; label = "set"; arr.push(v); }

    // writes everything, then loops until the step or the time budget stops it
    function runaway(uint v) public {
        n = v; m[1] = v; m[2] = v; label = "dirty"; arr.push(v); arr[0] = v;
        new Child(v);
        emit Touched(v);
        uint i = 0;
        while (true) { i = i + 1; }
    }

    // writes, works for k iterations, then reverts
    function revertLate(uint v, uint k) public {
        n = v; m[1] = v; label = "reverted"; arr.push(v);
        new Child(v);
        uint i = 0;
        while (i < k) { i = i + 1; }
        require(false, "changed my mind");
    }

    // writes, works for k iterations, then succeeds
    function slowSet(uint v, uint k) public {
        n = v; m[1] = v; label = "slow"; arr.push(v);
        uint i = 0;
        while (i < k) { i = i + 1; }
    }
}
"""


# steps of the transactions that must finish: long enough for several reads meanwhile, short
# enough to stay under the node's 1.5 s limit beside CPU-bound processes (1,500,000 steps
# passed it there, on a 2-core machine with two busy loops beside the suite)
LONG_STEPS = 600_000


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--tx-time-limit", "1.5", name="committed")
    try:
        yield n
    finally:
        n.stop()


def _state(client: httpx.Client, address: str) -> dict[str, Any]:
    r = client.get(f"/bloc/v2.2/contracts/Dirty/{address}/state")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _snapshot(client: httpx.Client, address: str, table: str) -> dict[str, Any]:
    """Everything the routes say about the contract, in one comparable object."""
    state = _state(client, address)
    entry = client.get(f"/bloc/v2.2/contracts/Dirty/{address}/state/m/2")
    assert entry.status_code == 200, entry.text
    children = client.get("/bloc/v2.2/contracts")
    assert children.status_code == 200, children.text
    accounts = client.get("/strato-api/eth/v1.2/account", params={"contractName": "Child"})
    assert accounts.status_code == 200, accounts.text
    rows = client.get(f"/cirrus/search/{table}", params={"address": f"eq.{address}"})
    assert rows.status_code == 200, rows.text
    (row,) = rows.json()
    return {
        "state": state,
        "entry": entry.json(),
        "children": sorted(c["address"] for c in children.json().get("Child", [])),
        "accounts": sorted(a["address"] for a in accounts.json()),
        "cirrus": {k: row[k] for k in ("n", "label")},
    }


def _table(client: httpx.Client) -> str:
    schema = client.get("/cirrus/search/").json()
    names = [n for n in schema["definitions"] if n == "Dirty" or n.endswith("-Dirty")]
    assert names, sorted(schema["definitions"])
    return str(names[0])


def _while_running(
    node: RunningNode, start: Callable[[], str], read: Callable[[httpx.Client], Any]
) -> tuple[list[Any], dict[str, Any]]:
    """Start a transaction, read with another client until it has a result; returns the reads
    made while it was still pending, and its result."""
    reader = node.client("bob")
    tx_hash = start()
    seen: list[Any] = []
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            r = reader.post("/bloc/v2.2/transactions/results", json=[tx_hash])
            pending = r.json()[0]["status"] == "Pending"
            value = read(reader)
            again = reader.post("/bloc/v2.2/transactions/results", json=[tx_hash])
            if pending and again.json()[0]["status"] == "Pending":
                seen.append(value)  # read while the transaction was queued or running

    t = threading.Thread(target=poll)
    t.start()
    try:
        (res,) = wait_results(node.client("alice"), [tx_hash], timeout=60)
    finally:
        done.set()
        t.join()
    return seen, res


@pytest.fixture(scope="module")
def dirty(node: RunningNode) -> tuple[str, str]:
    alice = node.client("alice")
    address = deploy(alice, "Dirty", DIRTY)
    res = submit(alice, call_tx(address, "set", {"v": 7}))[0]
    assert res["status"] == "Success", res
    table = wait_for(lambda: _table(alice), 10, "the Dirty table")
    return address, table


def _steps_per_iteration(node: RunningNode, address: str) -> float:
    alice = node.client("alice")
    (a,) = submit(alice, call_tx(address, "slowSet", {"v": 7, "k": 1000}))
    (b,) = submit(alice, call_tx(address, "slowSet", {"v": 7, "k": 2000}))
    restore = submit(alice, call_tx(address, "set", {"v": 7}))[0]
    assert restore["status"] == "Success"
    return (int(b["txResult"]["gasUsed"], 16) - int(a["txResult"]["gasUsed"], 16)) / 1000


def test_a_runaway_transactions_writes_are_never_visible(
    node: RunningNode, dirty: tuple[str, str]
) -> None:
    address, table = dirty
    alice = node.client("alice")
    before = _snapshot(alice, address, table)
    assert before["state"]["n"] == "7"
    assert before["entry"] == {"m": {"2": "0"}}

    def start() -> str:
        (p,) = submit(alice, call_tx(address, "runaway", {"v": 99}), resolve=False)
        return str(p["hash"])

    seen, res = _while_running(node, start, lambda c: _snapshot(c, address, table))
    assert res["status"] == "Failure", res
    assert len(seen) >= 3, f"only {len(seen)} reads while the transaction ran"
    for snap in seen:
        assert snap == before
    assert _snapshot(alice, address, table) == before


def test_a_reverted_transactions_writes_are_never_visible(
    node: RunningNode, dirty: tuple[str, str]
) -> None:
    address, table = dirty
    alice = node.client("alice")
    # a transaction of LONG_STEPS: under the step budget, reverting after a while
    k = int(LONG_STEPS / _steps_per_iteration(node, address))
    before = _snapshot(alice, address, table)

    def start() -> str:
        (p,) = submit(alice, call_tx(address, "revertLate", {"v": 55, "k": k}), resolve=False)
        return str(p["hash"])

    seen, res = _while_running(node, start, lambda c: _snapshot(c, address, table))
    assert res["status"] == "Failure", res
    assert "changed my mind" in res["txResult"]["message"], res
    assert len(seen) >= 3, f"only {len(seen)} reads while the transaction ran"
    for snap in seen:
        assert snap == before
    assert _snapshot(alice, address, table) == before


def test_a_running_transaction_shows_only_once_committed(
    node: RunningNode, dirty: tuple[str, str]
) -> None:
    address, _ = dirty
    alice = node.client("alice")
    assert _state(alice, address)["n"] == "7"
    k = int(LONG_STEPS / _steps_per_iteration(node, address))

    def start() -> str:
        (p,) = submit(alice, call_tx(address, "slowSet", {"v": 42, "k": k}), resolve=False)
        return str(p["hash"])

    def read(c: httpx.Client) -> tuple[str, str, str]:
        s = _state(c, address)
        return s["n"], s["label"], s["m"].get("1", "0")

    seen, res = _while_running(node, start, read)
    assert res["status"] == "Success", res
    assert len(seen) >= 3, f"only {len(seen)} reads while the transaction ran"
    assert set(seen) == {("7", "set", "7")}
    after = _state(alice, address)
    assert (after["n"], after["label"], after["m"]["1"]) == ("42", "slow", "42")
