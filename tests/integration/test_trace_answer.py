"""A large call trace's answer (thousands of items, about 1 MB) is encoded off the event loop,
in pieces: the bytes are the node's compact JSON as before, and the loop answers ``/health``
meanwhile."""

from __future__ import annotations

import json
import threading
import time

from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit

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
