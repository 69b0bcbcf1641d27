"""Read-only calls (``POST /stratoscope/call``) share the node's one watchdog thread (issue 26).

Each call started a wall-clock watchdog thread of its own; now the ledger's watchdog watches
the call's world while it runs. 200 calls leave the node's set of threads as it was (counted
as the thread ids seen under /proc while they run), and a call that never ends is still
stopped at --tx-time-limit.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode, submit, upload_tx

LIMIT_S = 0.25
SRC = """
contract Busy {
    function work(uint n) public view returns (uint) {
        uint s = 0;
        for (uint i = 0; i < n; i++) { s = s + i; }
        return s;
    }
    function spin() public view returns (uint) {
        uint i = 0;
        while (true) { i = i + 1; }
        return i;
    }
}
"""


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--tx-time-limit", str(LIMIT_S), name="readdog")
    try:
        yield n
    finally:
        n.stop()


def thread_ids(pid: int) -> set[int]:
    try:
        return {int(t) for t in os.listdir(f"/proc/{pid}/task")}
    except FileNotFoundError:
        return set()


def call(client: httpx.Client, address: str, method: str, **args: int) -> httpx.Response:
    return client.post(
        "/stratoscope/call", json={"contractAddress": address, "method": method, "args": args}
    )


def test_reads_share_one_watchdog_and_a_runaway_read_is_stopped(node: RunningNode) -> None:
    alice = node.client("alice")
    (up,) = submit(alice, upload_tx("Busy", SRC))
    assert up["status"] == "Success", up
    address = str(up["data"]["contents"]["address"])
    r = call(alice, address, "work", n=10)
    assert r.status_code == 200 and r.json()["data"]["contents"] == ["45"], r.text
    before = thread_ids(node.pid)
    seen: set[int] = set()
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            seen.update(thread_ids(node.pid))
            time.sleep(0.001)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        for _ in range(200):
            r = call(alice, address, "work", n=3000)  # a few ms each
            assert r.status_code == 200 and r.json()["status"] == "Success", r.text
    finally:
        stop.set()
        sampler.join()
    new = seen - before
    print(f"threads that appeared during 200 read-only calls: {len(new)}")
    # a thread per call: hundreds; the worker pool may still grow by a few
    assert len(new) < 10, f"{len(new)} threads appeared during 200 read-only calls"
    # a read that never ends is stopped by the shared watchdog at the time limit
    t0 = time.monotonic()
    r = call(node.new_client("alice", timeout=60.0), address, "spin")
    took = time.monotonic() - t0
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "Failure", body
    assert "time limit" in body["txResult"]["message"], body
    assert took < LIMIT_S + 3.0, f"the runaway call took {took:.1f} s"
