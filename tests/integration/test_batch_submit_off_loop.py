"""A request of many transactions is checked, signed and recorded off the event loop.

100-200 transfers are several milliseconds of checking and signing and a commit that may wait
for the producer's; done on the loop, every other request waited for them (``GET /health`` p99
above 80 ms while one client sent batches of 100). Here a second connection's ``/health``
probes must be answered while the batches are being taken in.
"""

from __future__ import annotations

import threading
import time

from tests.integration.node_fixture import RunningNode, submit, transfer_tx, wait_results

BATCHES = 10
SIZE = 200


def test_health_is_answered_while_batches_are_taken_in(node: RunningNode) -> None:
    alice = node.client("alice")
    bob = node.address("bob")
    prober = node.client()
    probes: list[tuple[float, float]] = []  # (sent, answered) of each GET /health
    done = threading.Event()

    def probe() -> None:
        while not done.is_set():
            t0 = time.perf_counter()
            r = prober.get("/health")
            probes.append((t0, time.perf_counter()))
            assert r.status_code == 200

    t = threading.Thread(target=probe)
    t.start()
    spans: list[tuple[float, float]] = []
    hashes: list[str] = []
    try:
        time.sleep(0.1)
        for _ in range(BATCHES):
            txs = [transfer_tx(bob, 1) for _ in range(SIZE)]
            t0 = time.perf_counter()
            out = submit(alice, *txs, resolve=False)
            spans.append((t0, time.perf_counter()))
            assert [r["status"] for r in out] == ["Pending"] * SIZE
            hashes += [r["hash"] for r in out]
    finally:
        done.set()
        t.join()
    # probes sent and answered while a batch was being submitted: the loop served them
    inside = [(a, b) for a, b in probes if any(start < a and b < end for start, end in spans)]
    assert len(inside) >= BATCHES, (
        f"only {len(inside)} /health answers during {BATCHES} batches "
        f"({sum(e - s for s, e in spans):.3f} s of submitting)"
    )
    results = wait_results(alice, hashes, timeout=120)
    assert {r["status"] for r in results} == {"Success"}
