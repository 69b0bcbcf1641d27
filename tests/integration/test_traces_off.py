"""A node started with ``serve --traces off`` keeps no traces, and says so (issue 28)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.client.http import StratoClient
from app.client.traces import NO_ROUTE, TraceUnavailable
from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode, call_tx, deploy, run_cli, submit

TRACE = "/strato-api/eth/v1.2/transaction/trace"


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--traces", "off", name="traces-off")
    try:
        yield n
    finally:
        n.stop()


def test_no_trace_is_recorded_and_the_route_says_why(node: RunningNode) -> None:
    c = node.client("alice")
    addr = deploy(c, "C", "contract C { uint x; function set(uint v) { x = v; } }")
    res = submit(c, call_tx(addr, "set", {"v": 3}))
    assert res[0]["status"] == "Success"
    r = c.get(TRACE, params={"hash": res[0]["hash"]})
    assert r.status_code == 404 and "keeps no call traces" in r.text and "--traces" in r.text
    r = c.get(TRACE, params={"hash": "ab" * 32})
    assert r.status_code == 404 and "unknown transaction" in r.text

    tok = node.token("alice")

    async def provide() -> str:
        return tok

    async def go() -> TraceUnavailable:
        async with StratoClient(node.url, provide) as client:
            with pytest.raises(TraceUnavailable) as exc:
                await client.trace(res[0]["hash"])
            return exc.value

    err = asyncio.run(go())
    assert err.reason == NO_ROUTE


def test_trace_keep_must_be_positive(tmp_path: Path) -> None:
    r = run_cli(tmp_path / "data", "serve", "--trace-keep", "0", "--port", "0", check=False)
    assert r.returncode == 2 and "--trace-keep must be 1 or more" in r.stderr
