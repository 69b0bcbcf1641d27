"""A source compiled at run time by ``create()`` is held to ``--compile-time-limit`` too.

Uploads, ``/contracts/compile`` and ``xabi`` were bounded; a contract that creates another from
source (``create("C", src)``) compiled it in the block producer without any bound, so one call
with a pathological source held the chain for as long as the compile took. Now the compile
stops at the bound, the call fails with a message that says so, nothing is created, the chain
goes on (a transfer right after is sealed), and a replay after a restart repeats the failure.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import (
    RunningNode,
    call_tx,
    deploy,
    submit,
    transfer_tx,
    wait_results,
)

LIMIT_S = 0.5
FACTORY = """
contract Factory {
    address public last;
    function make(string name, string src) public returns (address) {
        last = create(name, src);
        return last;
    }
}
"""


def chains_source(functions: int, terms: int) -> str:
    """``functions`` functions each returning ``1+1+...`` of ``terms`` terms (seconds to
    compile at 12 x 8,000)."""
    expr = "+".join(["1"] * terms)
    body = "".join(
        f"    function f{i}() public returns (uint) {{ return {expr}; }}\n"
        for i in range(functions)
    )
    return f"contract Slow {{\n{body}}}\n"


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--compile-time-limit", str(LIMIT_S), name="createbound")
    try:
        yield n
    finally:
        n.stop()


def test_a_slow_source_given_to_create_stops_at_the_bound(node: RunningNode) -> None:
    alice, anonymous = node.new_client("alice", timeout=60.0), node.client()
    factory = deploy(alice, "Factory", FACTORY)
    # a small source compiles at run time as before
    res = submit(alice, call_tx(factory, "make", {"name": "Tiny", "src": "contract Tiny {}"}))
    assert res[0]["status"] == "Success", res
    slow = chains_source(30, 8_000)  # 7-10 s to compile
    slowest = 0.0
    stop = threading.Event()

    def probe() -> None:
        nonlocal slowest
        while not stop.is_set():
            t0 = time.monotonic()
            assert anonymous.get("/health").status_code == 200
            slowest = max(slowest, time.monotonic() - t0)
            time.sleep(0.02)

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        t0 = time.monotonic()
        sent = submit(alice, call_tx(factory, "make", {"name": "Slow", "src": slow}), resolve=False)
        res = wait_results(alice, [sent[0]["hash"]], timeout=120.0)
        took = time.monotonic() - t0
    finally:
        stop.set()
        prober.join()
    assert res[0]["status"] == "Failure", str(res)[:300]
    failed = res[0]["hash"]
    message = res[0]["txResult"]["message"]
    assert "compile time limit exceeded" in message, message
    assert f"{LIMIT_S:g} s" in message and "--compile-time-limit" in message, message
    assert took < LIMIT_S + 4.0, f"the call took {took:.1f} s"
    assert slowest < 1.0, f"/health waited {slowest:.2f} s meanwhile"
    # nothing was created, and the chain goes on
    state = alice.get(f"/bloc/v2.2/contracts/Factory/{factory}/state").json()
    assert state["last"] != "0" * 40  # Tiny's
    tiny = state["last"]
    bob = node.address("bob")
    res = submit(alice, transfer_tx(bob, 1))
    assert res[0]["status"] == "Success", res
    # a replay after a kill (of the blocks after the last snapshot) repeats the failure
    node.kill9()
    node.restart()
    alice = node.new_client("alice", timeout=60.0)
    state = alice.get(f"/bloc/v2.2/contracts/Factory/{factory}/state").json()
    assert state["last"] == tiny
    r = alice.get(f"/bloc/v2.2/transactions/{failed}/result")
    assert r.status_code == 200 and r.json()["txResult"]["message"] == message
    assert "replay of" not in node.log_tail(400)
