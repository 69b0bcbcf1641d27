"""A node started with --test-clock: the test runner's clock per contract, kept across a restart."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.client.http import StratoClient
from app.client.test_runner import RunReport, TestRunner
from tests.integration.conftest import make_node
from tests.integration.node_fixture import ROOT, RunningNode, call_tx, deploy, submit, upload_tx

CLOCK = """
contract Clock {
    uint public seen;
    function jump(uint secs) public returns (uint) {
        uint before = block.timestamp;
        fastForward(secs);
        seen = block.timestamp;
        return seen - before;
    }
    function time() public view returns (uint) { return block.timestamp; }
}
"""
YEAR = 365 * 24 * 3600
CLOCK_TESTS = ROOT / "tests" / "corpus" / "describe" / "clock"


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--test-clock", name="clock")
    try:
        yield n
    finally:
        n.stop()


def read_time(node: RunningNode, address: str) -> int:
    res = submit(node.client("alice"), call_tx(address, "time"))
    assert res[0]["status"] == "Success", res
    return int(res[0]["data"]["contents"][0])


def test_the_test_clock_starts_at_zero_moves_and_survives_a_restart(node: RunningNode) -> None:
    """Contracts read the platform's test clock, not the blocks' time: 0 when the contract is
    created, then what fastForward added; a second contract has its own."""
    c = node.client("alice")
    address = deploy(c, "Clock", CLOCK)
    assert read_time(node, address) == 0
    res = submit(c, call_tx(address, "jump", {"secs": YEAR}))
    assert res[0]["status"] == "Success", res
    assert res[0]["data"]["contents"] == [str(YEAR)]
    assert read_time(node, address) == YEAR
    other = deploy(c, "Clock", CLOCK)
    assert read_time(node, other) == 0
    node.restart()  # SIGTERM: from the snapshot written on the way out
    assert read_time(node, address) == YEAR
    assert read_time(node, other) == 0
    res = submit(node.client("alice"), call_tx(other, "jump", {"secs": 5}))
    assert res[0]["status"] == "Success", res
    node.kill9()
    node.restart()  # from the blocks replayed after the last snapshot
    assert read_time(node, address) == YEAR
    assert read_time(node, other) == 5


def test_the_xabi_route_accepts_fast_forward_on_this_node(node: RunningNode) -> None:
    r = node.client("alice").post("/bloc/v2.2/contracts/xabi", json={"src": CLOCK})
    assert r.status_code == 200, r.text
    assert "jump" in r.json()["src"]["Clock"]["funcs"]


def test_a_node_without_the_test_clock_refuses_the_upload(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """What the app's sandbox (no --test-clock) gives: the upload is refused, and the Tests
    view's runner reports the file's compile failure at the fastForward call."""
    plain = make_node(tmp_path_factory, name="plain-clock")
    try:
        res = submit(plain.client("alice"), upload_tx("Clock", CLOCK), expect=400)
        assert "undeclared function 'fastForward'" in str(res)
        token = plain.token("alice")

        async def provide() -> str:
            return token

        async def run() -> RunReport:
            async with StratoClient(plain.url, provide) as client:
                return await TestRunner(client).run([CLOCK_TESTS])

        report = asyncio.run(run())
        assert report.outcomes == []
        [failure] = report.failures
        assert (Path(failure.file).name, failure.line) == ("clock.sol", 8)
        assert "undeclared function 'fastForward'" in failure.message
    finally:
        plain.stop()
