"""The call trace route: a large trace's answer (thousands of items, about 1 MB) is encoded off
the event loop, in pieces (the bytes are the node's compact JSON as before, and the loop answers
``/health`` meanwhile); a private chain's genesis, listed on the main chain, has its trace shown
to the chain's members only."""

from __future__ import annotations

import json
import threading
import time

from tests.integration.node_fixture import RunningNode, call_tx, create_chain, deploy, submit

GOV = "contract Gov { string secret; constructor() public { secret = 'acme-only'; } }"

TRACE = "/strato-api/eth/v1.2/transaction/trace"
LOOP = """
contract Loop { mapping(uint => uint) m; event Tick(uint i);
    function go(uint n) { for (uint i = 0; i < n; i++) { m[i] = i + 1; emit Tick(i); } } }
"""


def test_a_large_trace_answers_compact_json_and_the_loop_keeps_answering(
    node: RunningNode,
) -> None:
    alice = node.client("alice")
    addr = deploy(alice, "Loop", LOOP)
    [res] = submit(alice, call_tx(addr, "go", {"n": 2400}))
    assert res["status"] == "Success", res
    r = alice.get(TRACE, params={"hash": res["hash"]})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    trace = r.json()
    assert trace["hash"] == res["hash"]
    assert len(trace["root"]["items"]) >= 4_800
    # compact, as every answer of the node: no space after separators
    assert r.content == json.dumps(trace, separators=(",", ":"), ensure_ascii=False).encode()

    slowest = 0.0
    done = threading.Event()

    def reads() -> None:
        for _ in range(5):
            node.client("bob").get(TRACE, params={"hash": res["hash"]})
        done.set()

    t = threading.Thread(target=reads)
    t.start()
    health = node.client("carol")
    while not done.is_set():
        t0 = time.perf_counter()
        assert health.get("/health").status_code == 200
        slowest = max(slowest, time.perf_counter() - t0)
    t.join()
    assert slowest < 0.5, slowest


def test_a_private_chains_genesis_trace_is_for_its_members(node: RunningNode) -> None:
    alice, bob = node.client("alice"), node.client("bob")
    chain = create_chain(alice, node.address("alice"), GOV, "Gov", label="acme-genesis", balance=1)
    recent = alice.get("/strato-api/eth/v1.2/transaction/last/20")
    assert recent.status_code == 200, recent.text
    genesis = None
    for tx in recent.json():
        t = alice.get(TRACE, params={"hash": tx["hash"]})
        if t.status_code == 200 and t.json()["root"].get("chainId") == chain:
            genesis = tx["hash"]
    assert genesis is not None, "the genesis transaction's trace, for a member"
    assert "acme-only" in alice.get(TRACE, params={"hash": genesis}).text  # Acme: a member
    refused = bob.get(TRACE, params={"hash": genesis})  # Globex: not a member
    assert refused.status_code == 404, refused.text
    assert "unknown transaction" in refused.text and "acme-only" not in refused.text


def test_a_private_chains_genesis_result_is_for_its_members(node: RunningNode) -> None:
    alice, bob = node.client("alice"), node.client("bob")
    chain = create_chain(
        alice, node.address("alice"), GOV, "Gov", label="acme-genesis-result", balance=1
    )
    hashes = [t["hash"] for t in alice.get("/strato-api/eth/v1.2/transaction/last/20").json()]
    genesis = None
    for h in hashes:
        res = alice.get(f"/bloc/v2.2/transactions/{h}/result").json()
        contents = (res.get("data") or {}).get("contents")
        if isinstance(contents, dict) and contents.get("chainId") == chain:
            genesis = h
    assert genesis is not None, "the genesis transaction's result, for a member"
    assert "acme-only" in alice.get(f"/bloc/v2.2/transactions/{genesis}/result").text
    for refused in (
        bob.get(f"/bloc/v2.2/transactions/{genesis}/result").json(),
        bob.post("/bloc/v2.2/transactions/results", json=[genesis]).json()[0],
    ):  # as an unknown hash is answered
        assert refused == {"status": "Pending", "hash": genesis, "txResult": None, "data": None}
