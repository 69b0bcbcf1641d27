"""Seed rule 3 on a node that seals a block every 2 s (--block-time 2).

"A transaction sent with resolve=false must have completed before a transaction with resolve=true
is sent; otherwise the earlier one is discarded." Discarded transactions never run and say so in
their result; other users' pending transactions and completed ones are not affected.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import (
    RunningNode,
    call_tx,
    deploy,
    result_of,
    submit,
    wait_for,
    wait_results,
)

BLOCK_TIME = 2.0
COUNTER = """
contract Box {
    uint public x;
    uint public writes;
    function set(uint _x) public returns (uint) { x = _x; writes = writes + 1; return x; }
}
"""


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(
        tmp_path_factory,
        "--block-time",
        str(BLOCK_TIME),
        "--resolve-timeout",
        "20",
        name="blocktime",
    )
    try:
        yield n
    finally:
        n.stop()


@pytest.fixture(scope="module")
def box(node: RunningNode) -> str:
    return deploy(node.client("alice"), "Box", COUNTER)


def state(client: httpx.Client, address: str) -> dict[str, Any]:
    out: dict[str, Any] = client.get(f"/bloc/v2.2/contracts/Box/{address}/state").json()
    return out


def settle(client: httpx.Client) -> None:
    """Wait until the node has nothing queued (so one test's queue does not leak into the next)."""
    wait_for(
        lambda: not client.get("/health").json()["healthInfo"]["isLastPending"],
        3 * BLOCK_TIME + 5,
        "empty queue",
    )


def quiet(client: httpx.Client) -> None:
    """Empty queue and no block-time sleep left over from an earlier wake-up of the producer."""
    settle(client)
    time.sleep(BLOCK_TIME + 0.3)


def test_resolve_true_returns_the_completed_result(node: RunningNode, box: str) -> None:
    alice = node.client("alice")
    settle(alice)
    res = submit(alice, call_tx(box, "set", {"_x": 1}))
    assert res[0]["status"] == "Success"
    assert res[0]["data"]["contents"] == ["1"]
    assert result_of(alice, res[0]["hash"]) == res[0]


def test_async_is_pending_until_the_block(node: RunningNode, box: str) -> None:
    alice = node.client("alice")
    quiet(alice)
    [p] = submit(alice, call_tx(box, "set", {"_x": 2}), resolve=False)
    assert p["status"] == "Pending"
    assert result_of(alice, p["hash"])["status"] == "Pending"
    assert node.client().get("/health").json()["healthInfo"]["isLastPending"] is True
    [done] = wait_results(alice, [p["hash"]], timeout=3 * BLOCK_TIME + 5)
    assert done["status"] == "Success"


def test_resolve_true_discards_the_same_users_pending_tx(node: RunningNode, box: str) -> None:
    alice = node.client("alice")
    quiet(alice)  # no leftover block-time sleep may seal the async txs early
    before = state(alice, box)
    [first] = submit(alice, call_tx(box, "set", {"_x": 111}), resolve=False)
    assert first["status"] == "Pending"
    [second] = submit(alice, call_tx(box, "set", {"_x": 222}))  # resolve=true, before the block
    assert second["status"] == "Success"
    assert second["data"]["contents"] == ["222"]

    discarded = result_of(alice, first["hash"])
    assert discarded["status"] == "Discarded"
    assert discarded["hash"] == first["hash"]
    assert discarded["data"] is None
    assert "discarded" in discarded["txResult"]["message"]

    after = state(alice, box)
    assert after["x"] == "222"
    assert int(after["writes"]) == int(before["writes"]) + 1  # the first one never ran

    # it stays discarded: a later block does not run it
    submit(alice, call_tx(box, "set", {"_x": 223}))
    assert result_of(alice, first["hash"])["status"] == "Discarded"
    many = alice.post("/bloc/v2.2/transactions/results", json=[first["hash"], second["hash"]])
    assert [r["status"] for r in many.json()] == ["Discarded", "Success"]


def test_every_pending_tx_of_the_user_is_discarded(node: RunningNode, box: str) -> None:
    alice = node.client("alice")
    quiet(alice)  # no leftover block-time sleep may seal the async txs early
    pending = submit(
        alice, call_tx(box, "set", {"_x": 5}), call_tx(box, "set", {"_x": 6}), resolve=False
    )
    [more] = submit(alice, call_tx(box, "set", {"_x": 7}), resolve=False)
    hashes = [p["hash"] for p in pending] + [more["hash"]]
    submit(alice, call_tx(box, "set", {"_x": 8}))
    r = alice.post("/bloc/v2.2/transactions/results", json=hashes)
    assert [x["status"] for x in r.json()] == ["Discarded"] * 3
    assert state(alice, box)["x"] == "8"


def test_other_users_pending_txs_are_kept(node: RunningNode, box: str) -> None:
    alice, bob = node.client("alice"), node.client("bob")
    settle(alice)
    [bobs] = submit(bob, call_tx(box, "set", {"_x": 31}), resolve=False)
    [alices] = submit(alice, call_tx(box, "set", {"_x": 32}))
    assert alices["status"] == "Success"
    [done] = wait_results(bob, [bobs["hash"]], timeout=3 * BLOCK_TIME + 5)
    assert done["status"] == "Success"
    assert state(alice, box)["x"] == "32"


def test_completed_async_txs_are_not_discarded(node: RunningNode, box: str) -> None:
    alice = node.client("alice")
    settle(alice)
    [early] = submit(alice, call_tx(box, "set", {"_x": 41}), resolve=False)
    [done] = wait_results(alice, [early["hash"]], timeout=3 * BLOCK_TIME + 5)
    assert done["status"] == "Success"
    submit(alice, call_tx(box, "set", {"_x": 42}))
    assert result_of(alice, early["hash"])["status"] == "Success"


def test_resolve_false_after_resolve_true_is_kept(node: RunningNode, box: str) -> None:
    """The rule only looks back: an async tx sent after a pending resolve=true one still runs."""
    alice = node.client("alice")
    settle(alice)
    with node.new_client("alice") as other:
        out: list[Any] = []
        t = threading.Thread(
            target=lambda: out.append(submit(other, call_tx(box, "set", {"_x": 51})))
        )
        t.start()
        time.sleep(0.3)  # the resolve=true request is now waiting for the block
        [later] = submit(alice, call_tx(box, "set", {"_x": 52}), resolve=False)
        t.join(3 * BLOCK_TIME + 5)
    assert out and out[0][0]["status"] == "Success"
    [done] = wait_results(alice, [later["hash"]], timeout=3 * BLOCK_TIME + 5)
    assert done["status"] == "Success"
    assert state(alice, box)["x"] == "52"
