"""resolve=true past --resolve-timeout: 504 with a JSON error naming the hashes; nothing is lost.

The node seals a block every 2 s but waits at most 1 s for a result (DESIGN: "waits
--resolve-timeout, then 504 with a JSON error; nothing is lost, the tx stays readable").
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import (
    HEX64,
    RunningNode,
    call_tx,
    submit,
    upload_tx,
    wait_for,
    wait_results,
)

SRC = "contract Slow { uint public x; function set(uint _x) public { x = _x; } }"


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--block-time", "2", "--resolve-timeout", "1", name="timeout")
    try:
        yield n
    finally:
        n.stop()


def settle(node: RunningNode) -> None:
    wait_for(
        lambda: not node.client().get("/health").json()["healthInfo"]["isLastPending"],
        10,
        "empty queue",
    )


def test_resolve_timeout_gives_504_and_the_tx_resolves_later(node: RunningNode) -> None:
    alice = node.client("alice")
    settle(node)
    t0 = time.monotonic()
    r = alice.post(
        "/svc/v2.3/transaction", params={"resolve": "true"}, json={"txs": [upload_tx("Slow", SRC)]}
    )
    elapsed = time.monotonic() - t0
    assert r.status_code == 504, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert isinstance(body["error"], str) and body["error"]
    assert len(body["hashes"]) == 1
    h = body["hashes"][0]
    assert HEX64.match(h)
    assert 0.9 <= elapsed < 1.9  # the timeout, not the block
    [done] = wait_results(alice, [h], timeout=10)
    assert done["status"] == "Success"
    assert done["data"]["tag"] == "Upload"
    address = done["data"]["contents"]["address"]
    assert alice.get(f"/bloc/v2.2/contracts/Slow/{address}/state").status_code == 200


def test_batch_timeout_lists_every_hash_in_order(node: RunningNode) -> None:
    alice = node.client("alice")
    settle(node)
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [upload_tx("Slow", SRC), upload_tx("Slow", SRC), upload_tx("Slow", SRC)]},
    )
    assert r.status_code == 504
    hashes = r.json()["hashes"]
    assert len(hashes) == 3 and len(set(hashes)) == 3
    done = wait_results(alice, hashes, timeout=10)
    assert [d["status"] for d in done] == ["Success"] * 3
    assert [d["hash"] for d in done] == hashes
    addresses = [d["data"]["contents"]["address"] for d in done]
    assert len(set(addresses)) == 3


def test_async_requests_return_at_once(node: RunningNode) -> None:
    alice = node.client("alice")
    settle(node)
    t0 = time.monotonic()
    [p] = submit(alice, upload_tx("Slow", SRC), resolve=False)
    assert time.monotonic() - t0 < 1.0
    assert p["status"] == "Pending"
    [done] = wait_results(alice, [p["hash"]], timeout=10)
    assert done["status"] == "Success"


def test_timed_out_tx_is_not_discarded_by_the_next_resolve_true(node: RunningNode) -> None:
    # keep this test late in the module: its second request wakes the block producer while it
    # sleeps, which leaves one idle block-time cycle that would shorten a later test's wait
    alice = node.client("alice")
    settle(node)
    r = alice.post(
        "/svc/v2.3/transaction", params={"resolve": "true"}, json={"txs": [upload_tx("Slow", SRC)]}
    )
    assert r.status_code == 504
    [h] = r.json()["hashes"]
    # a second resolve=true request right away: the first was resolve=true, so it is kept
    r2 = alice.post(
        "/svc/v2.3/transaction", params={"resolve": "true"}, json={"txs": [upload_tx("Slow", SRC)]}
    )
    assert r2.status_code in (200, 504)
    [done] = wait_results(alice, [h], timeout=10)
    assert done["status"] == "Success"
    address = done["data"]["contents"]["address"]
    settle(node)
    [set_ok] = submit(alice, call_tx(address, "set", {"_x": 3}), resolve=False)
    [ran] = wait_results(alice, [set_ok["hash"]], timeout=10)
    assert ran["status"] == "Success"


def test_node_healthy_after_timeouts(node: RunningNode) -> None:
    r = node.client().get("/health")
    assert r.status_code == 200
    assert r.json()["healthInfo"]["isHealthy"] is True
