"""The wall-clock budget of a transaction (``--tx-time-limit``), besides its step budget.

A node with a 0.1 s limit: a transaction that loops forever stops at the time limit (2,000,000
steps cannot run in 0.1 s in this interpreter) with a message saying so, the next transaction
runs normally. A transaction that would finish within its steps but not within the time (a
finite loop of about 1,900,000 steps) fails too, and after a kill -9 the replay of its block
repeats the failure instead of racing the clock again: it must not come back as a success.
A pairing check over many pairs (~75 ms a pair) stops between two pairs, not after all of them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import (
    RunningNode,
    call_tx,
    deploy,
    result_of,
    submit,
    wait_results,
)

SPIN = """
contract Spin {
    uint public n;
    function spin() public { uint i = 0; while (true) { i = i + 1; } }
    function set(uint _n) public { n = _n; }
    function work(uint k) public { uint i = 0; while (i < k) { i = i + 1; } n = k; }
}
"""

PAIRS = """
contract Pairs {
    // n copies of the pair (G1 generator, G2 generator); g2: the G2 generator's coordinates
    function pair(uint n, uint[] g2) public returns (bool) {
        uint[] memory input = new uint[](6 * n);
        for (uint i = 0; i < n; i++) {
            input[6 * i] = 1;
            input[6 * i + 1] = 2;
            for (uint j = 0; j < 4; j++) { input[6 * i + 2 + j] = g2[j]; }
        }
        return ecPairing(input);
    }
}
"""
G2_GENERATOR = [
    "11559732032986387107991004021392285783925812861821192530917403151452391805634",
    "10857046999023057135944570762232829481370756359578518086990519993285655852781",
    "4082367875863433681332203403145435568316851327593401208105741076214120093531",
    "8495653923123431417604973247489272438418190587263600148770280649306958101930",
]


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--tx-time-limit", "0.1", name="timelimit")
    try:
        yield n
    finally:
        n.stop()


def test_a_transaction_past_its_time_limit_fails_and_a_replay_repeats_it(node: RunningNode) -> None:
    alice = node.client("alice")
    spin = deploy(alice, "Spin", SPIN)
    (pending,) = submit(alice, call_tx(spin, "spin"), resolve=False)
    (res,) = wait_results(alice, [pending["hash"]])
    assert res["status"] == "Failure", res
    message = res["txResult"]["message"]
    assert message.startswith("time limit exceeded"), message
    assert "0.1 s" in message, message
    assert res["txResult"]["status"]["type"]["contents"] == message
    ok = submit(alice, call_tx(spin, "set", {"_n": 5}))[0]
    assert ok["status"] == "Success", ok

    # steps per iteration of work(), to size a loop just under the 2,000,000 steps
    (probe,) = submit(alice, call_tx(spin, "work", {"k": 1000}))
    per_iteration = (int(probe["txResult"]["gasUsed"], 16) - 21_000) / 1000
    k = int(1_900_000 / per_iteration)
    submit(alice, call_tx(spin, "set", {"_n": 5}))
    time.sleep(5.5)  # the next block snapshots (every 5 s): the two after it are replayed
    submit(alice, call_tx(spin, "set", {"_n": 6}))
    (pending,) = submit(alice, call_tx(spin, "work", {"k": k}), resolve=False)
    (worked,) = wait_results(alice, [pending["hash"]])
    assert worked["status"] == "Failure", worked
    assert worked["txResult"]["message"] == message

    node.kill9()
    node.restart()
    alice = node.client("alice")
    again = result_of(alice, worked["hash"])
    assert again["status"] == "Failure"
    assert again["txResult"]["message"] == message
    state = alice.get(f"/bloc/v2.2/contracts/Spin/{spin}/state")
    assert state.status_code == 200, state.text
    assert state.json()["n"] == "6"  # not k: the replay did not let work() finish
    log = node.log_path.read_text(errors="replace")
    assert "replay of" not in log, log[-2000:]
    # the limit holds after the restart too
    body = submit(alice, call_tx(spin, "spin"), expect=422)
    assert body == f"Error running the transaction: {message}"


def test_a_long_pairing_stops_between_pairs_at_the_time_limit(node: RunningNode) -> None:
    alice = node.client("alice")
    pairs = deploy(alice, "Pairs", PAIRS)
    t0 = time.monotonic()
    # 60 Miller loops take 4 s or more; the 0.1 s limit stops them after one or two
    args = {"n": 60, "g2": G2_GENERATOR}
    (pending,) = submit(alice, call_tx(pairs, "pair", args), resolve=False)
    (res,) = wait_results(alice, [pending["hash"]])
    elapsed = time.monotonic() - t0
    assert res["status"] == "Failure", res
    assert res["txResult"]["message"].startswith("time limit exceeded"), res["txResult"]
    assert elapsed < 3.0, elapsed
