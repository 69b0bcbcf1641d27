"""Large request bodies do not stop the node's event loop (issue 17, bodies off the loop).

A 4 MB body of 5,000 contract calls whose arguments hold small arrays took the node about half
a second to decode on its event loop, mostly in the garbage collector: ``GET /health`` waited
that long. Large bodies are now decoded on a worker thread in pieces (json.loads holds the GIL
throughout, even on a thread) with the cyclic collector paused, and long answers are encoded
there too. The bound below is generous (the figures are in the lead's report); the answers
themselves must not change.
"""

from __future__ import annotations

import json
import statistics
import threading
import time

from app.node.jsonenc import compact_json
from tests.integration.node_fixture import RunningNode, call_tx, transfer_tx, wait_results

NOWHERE = "00" * 20
POSTS = 5
BOUND_S = 0.2  # median over the posts of the slowest /health answer during each post


def test_health_answers_while_large_bodies_are_decoded(node: RunningNode) -> None:
    txs = [
        call_tx(NOWHERE, "set", {"pairs": [[j] for j in range(110)], "i": i}) for i in range(5000)
    ]
    raw = json.dumps({"txs": txs}).encode()
    assert 3_500_000 < len(raw) < 4 * 1024 * 1024  # under the node's body limit
    alice, anonymous = node.client("alice"), node.client()
    alice.get("/svc/v2.3/key")
    probes: list[tuple[float, float]] = []
    stop = threading.Event()

    def probe() -> None:
        while not stop.is_set():
            t0 = time.monotonic()
            r = anonymous.get("/health")
            probes.append((t0, time.monotonic()))
            assert r.status_code == 200
            time.sleep(0.002)

    prober = threading.Thread(target=probe)
    prober.start()
    spans = []
    try:
        time.sleep(0.2)
        for _ in range(POSTS):
            t0 = time.monotonic()
            r = alice.post(
                "/bloc/v2.2/transaction",
                params={"resolve": "false"},
                content=raw,
                headers={"content-type": "application/json"},
            )
            spans.append((t0, time.monotonic()))
            # decoded in full: the first call's missing contract is what is refused
            assert r.status_code == 400, r.text[:300]
            assert "Couldn't find contract details" in r.text, r.text[:300]
            time.sleep(0.05)
    finally:
        stop.set()
        prober.join()
    worst = []
    for start, end in spans:
        during = [e - s for s, e in probes if s < end and e > start]
        assert during, "no /health answer during a post"
        worst.append(max(during))
    assert statistics.median(worst) < BOUND_S, [round(w, 3) for w in worst]


def test_large_bodies_answer_as_before(node: RunningNode) -> None:
    alice = node.client("alice")
    carol = node.address("carol")
    pad = " " * 70_000  # over the size above which bodies are decoded off the loop
    cases = [
        ('{"txs": [1,}' + pad, "Error in $: request body is not valid JSON ("),
        ('{"txs": [' + "1" * 5000 + "]}" + pad, "more than 4300 digits"),
        # deeper than the node's recursion limit (20,000)
        ("[" * 25_000 + "]" * 25_000 + pad, "request body nests too deeply"),
    ]
    for text, said in cases:
        r = alice.post("/bloc/v2.2/transaction", content=text.encode())
        assert r.status_code == 400, r.text[:300]
        assert said in r.text, r.text[:300]
    text = '{"txs": [1,}' + pad
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:  # the position is json.loads's own
        r = alice.post("/bloc/v2.2/transaction", content=text.encode())
        assert str(exc) in r.json(), r.text[:300]
    # 300 transfers: a body and an answer both big enough to leave the loop
    body = {"txs": [transfer_tx(carol, 1) for _ in range(300)]}
    before = int(
        alice.get("/strato-api/eth/v1.2/account", params={"address": carol}).json()[0]["balance"]
    )
    r = alice.post(
        "/bloc/v2.2/transaction",
        params={"resolve": "false"},
        content=json.dumps(body, indent=2).encode(),
    )
    assert r.status_code == 200, r.text[:300]
    assert r.headers["content-type"] == "application/json"
    answer = r.json()
    assert len(answer) == 300 and {a["status"] for a in answer} == {"Pending"}
    assert r.content == json.dumps(answer, separators=(",", ":")).encode()  # compact, as before
    hashes = [a["hash"] for a in answer]
    results = wait_results(alice, hashes)
    assert {res["status"] for res in results} == {"Success"}
    after = int(
        alice.get("/strato-api/eth/v1.2/account", params={"address": carol}).json()[0]["balance"]
    )
    assert after == before + 300
    r = alice.post("/bloc/v2.2/transactions/results", json=hashes)
    assert r.status_code == 200 and [x["hash"] for x in r.json()] == hashes
    # the node's compact encoding (a result's float ``time`` in orjson's digits: 0.000041)
    assert r.content == compact_json(r.json())


def test_health_answers_while_a_large_source_compiles(node: RunningNode) -> None:
    """A large upload (the platform's Mercata bundle is 330,000 characters) is compiled on a
    worker thread: the event loop answers ``/health`` meanwhile (it stalled ~0.4 s before)."""
    line = "    function f{0}(uint a) public returns (uint) {{ return a + {0}; }}"
    body = "\n".join(line.format(i) for i in range(4000))
    src = "contract Wide {\n" + body + "\n}"
    assert len(src) > 200_000
    alice, anonymous = node.client("alice"), node.client()
    alice.get("/svc/v2.3/key")
    slowest = 0.0
    stop = threading.Event()

    def probe() -> None:
        nonlocal slowest
        while not stop.is_set():
            t0 = time.monotonic()
            assert anonymous.get("/health").status_code == 200
            slowest = max(slowest, time.monotonic() - t0)
            time.sleep(0.005)

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        time.sleep(0.1)
        started = time.monotonic()
        r = alice.post(
            "/strato/v2.3/transaction/parallel",
            params={"resolve": "true"},
            json={"txs": [{"type": "CONTRACT", "payload": {"contract": "Wide", "src": src}}]},
        )
        took = time.monotonic() - started
    finally:
        stop.set()
        prober.join()
    assert r.status_code == 200, r.text[:300]
    assert r.json()[0]["status"] == "Success"
    assert took > 0.2  # the compile is long enough to have stalled the loop
    assert slowest < took / 2, (slowest, took)


UPLOAD_BOUND_S = 0.6  # the slowest /health answer during a 1.2 MB upload (it was 0.9-3.5 s)


def test_health_answers_while_a_1_2_mb_upload_is_processed(node: RunningNode) -> None:
    """A CONTRACT upload near the body limit, polled every 50 ms: no /health answer waits long.

    Three things held the loop (or the GIL) for a 1.2 MB source of 17,000 functions: the first
    collection after the compile (paused meanwhile) walked the million objects it made, the
    import check parsed the whole source with the collector on, and the 8 MB answer (the source
    three times and the xabi) was encoded on the loop, as was the stored result in the block
    producer in one C call."""
    line = "    function f{0}(uint a) public returns (uint) {{ return a + {0}; }}"
    src = "contract Huge {\n" + "\n".join(line.format(i) for i in range(17_000)) + "\n}"
    assert 1_150_000 < len(src) < 1_300_000
    alice, anonymous = node.client("alice"), node.client()
    alice.get("/svc/v2.3/key")
    gaps: list[tuple[float, float]] = []
    stop = threading.Event()

    def probe() -> None:
        while not stop.is_set():
            t0 = time.monotonic()
            assert anonymous.get("/health").status_code == 200
            gaps.append((t0, time.monotonic() - t0))
            time.sleep(0.05)

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        time.sleep(0.3)
        started = time.monotonic()
        r = alice.post(
            "/strato/v2.3/transaction/parallel",
            params={"resolve": "true"},
            json={"txs": [{"type": "CONTRACT", "payload": {"contract": "Huge", "src": src}}]},
            timeout=300,
        )
        took = time.monotonic() - started
        time.sleep(0.2)
    finally:
        stop.set()
        prober.join()
    assert r.status_code == 200, r.text[:300]
    (res,) = r.json()
    assert res["status"] == "Success", str(res)[:300]
    contents = res["data"]["contents"]
    assert contents["src"] == src and len(contents["xabi"]["funcs"]) == 17_000
    during = [g for t, g in gaps if started <= t <= started + took]
    assert len(during) > 10, (len(during), took)
    assert max(during) < UPLOAD_BOUND_S, sorted(round(g, 3) for g in during)[-5:]
    # the stored result reads back the same
    stored = alice.get(f"/bloc/v2.2/transactions/{res['hash']}/result")
    assert (
        stored.status_code == 200 and stored.json()["data"]["contents"]["xabi"] == contents["xabi"]
    )
