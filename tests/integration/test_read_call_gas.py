"""``POST /stratoscope/call`` on a node started with --gas: a read costs nothing (the balance,
nonce and height stay), while the same function sent as a transaction pays for its gas; a
function that never ends is stopped by the node's budget and answered as a Failure, and the node
keeps answering meanwhile (it runs on a worker thread)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

SRC = """
contract Meter {
    uint public n;
    constructor() { n = 3; }
    function get() public view returns (uint) { return n; }
    function spin() public view returns (uint) {
        uint i = 0;
        while (true) { i = i + 1; }
        return i;
    }
}
"""


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--gas", "--tx-time-limit", "1", name="gas")
    try:
        yield n
    finally:
        n.stop()


def account(client: httpx.Client, address: str) -> tuple[int, int]:
    r = client.get("/strato-api/eth/v1.2/account", params={"address": address})
    assert r.status_code == 200, r.text
    row = r.json()[0]
    return int(row["balance"]), int(row["nonce"])


@pytest.fixture(scope="module")
def meter(node: RunningNode) -> str:
    alice = node.client("alice")
    r = alice.post(
        f"/bloc/v2.2/users/user/{node.address('alice')}/fill", params={"resolve": "true"}
    )
    assert r.status_code == 200, r.text
    (up,) = submit(alice, upload_tx("Meter", SRC))
    assert up["status"] == "Success", up
    return str(up["data"]["contents"]["address"])


def test_a_read_costs_no_gas_a_transaction_does(node: RunningNode, meter: str) -> None:
    alice, me = node.client("alice"), node.address("alice")
    before = account(alice, me)
    r = alice.post("/stratoscope/call", json={"contractAddress": meter, "method": "get"})
    assert r.status_code == 200, r.text
    assert r.json()["data"]["contents"] == ["3"]
    assert int(r.json()["txResult"]["gasUsed"], 16) > 0  # what it would have cost
    assert account(alice, me) == before
    (tx,) = submit(alice, call_tx(meter, "get"))
    assert tx["data"]["contents"] == ["3"]
    balance, nonce = account(alice, me)
    assert balance < before[0] and nonce == before[1] + 1


def test_a_call_that_never_ends_is_stopped_and_the_node_answers_meanwhile(
    node: RunningNode, meter: str
) -> None:
    out: dict[str, httpx.Response] = {}

    def spin() -> None:
        c = node.new_client("alice")  # its own connection, beside the probes
        out["r"] = c.post(
            "/stratoscope/call", json={"contractAddress": meter, "method": "spin"}, timeout=60
        )

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.2)
    worst = 0.0
    while t.is_alive():
        t0 = time.monotonic()
        assert node.client("alice").get("/health").status_code == 200
        worst = max(worst, time.monotonic() - t0)
        time.sleep(0.05)
    t.join()
    r = out["r"]
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "Failure"
    message = r.json()["txResult"]["message"].lower()
    assert "time limit" in message or "gas" in message, message
    assert worst < 0.5, worst
