"""``POST /stratoscope/call`` over real HTTP: a read-only call answers the function's values
and writes nothing (no block, no nonce, no state change), fails like a transaction, refuses bad
input with a 400 naming the field and a non-member of a private chain with a 403."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from app.client.errors import RequestError
from app.client.http import StratoClient
from tests.integration.node_fixture import (
    RunningNode,
    body,
    call_tx,
    create_chain,
    deploy,
    submit,
    upload_tx,
)

SRC = """
contract Counter {
    uint public count;
    string public label;
    constructor(uint _c) { count = _c; label = "ten"; }
    function get() public view returns (uint) { return count; }
    function pair(uint a) public view returns (uint, string) { return (count + a, label); }
    function bump() public returns (uint) { count = count + 1; return count; }
    function must(uint a) public view returns (uint) { require(a > 3, "a is too small"); return a; }
}
"""
GOV_SRC = "contract Gov { constructor() public { } }"
PATH = "/stratoscope/call"


@pytest.fixture(scope="module")
def counter(node: RunningNode) -> str:
    return deploy(node.client("alice"), "Counter", SRC, {"_c": 10})


def read(client: httpx.Client, address: str, method: str, **extra: Any) -> httpx.Response:
    return client.post(PATH, json={"contractAddress": address, "method": method, **extra})


def height(node: RunningNode) -> int:
    r = node.client("alice").get("/strato-api/eth/v1.2/block/last/1")
    assert r.status_code == 200, r.text
    return int(r.json()[0]["blockData"]["number"])


def nonce(node: RunningNode) -> int:
    r = node.client("alice").get(
        "/strato-api/eth/v1.2/account", params={"address": node.address("alice")}
    )
    return int(r.json()[0]["nonce"]) if r.json() else 0


def state(node: RunningNode, address: str) -> dict[str, Any]:
    r = node.client("alice").get(f"/bloc/v2.2/contracts/Counter/{address}/state")
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_a_view_call_answers_its_values_and_writes_nothing(node: RunningNode, counter: str) -> None:
    before = (height(node), nonce(node), state(node, counter))
    alice = node.client("alice")
    r = read(alice, counter, "get", args={})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "Success"
    assert r.json()["data"] == {"tag": "Call", "contents": ["10"]}, r.text
    r = read(alice, counter, "pair", args={"a": 5}, contractName="Counter")
    assert r.status_code == 200, r.text
    assert [str(v) for v in r.json()["data"]["contents"]] == ["15", "ten"]
    assert r.json()["readOnly"] is True
    assert "hash" not in r.json()
    assert (height(node), nonce(node), state(node, counter)) == before


def test_the_values_are_those_a_transaction_gets(node: RunningNode, counter: str) -> None:
    """The same shape as a resolved function call's data.contents."""
    alice = node.client("alice")
    (tx,) = submit(alice, call_tx(counter, "pair", {"a": 1}))
    r = read(alice, counter, "pair", args={"a": 1})
    assert r.json()["data"]["contents"] == tx["data"]["contents"]


def test_a_state_changing_function_changes_nothing(node: RunningNode, counter: str) -> None:
    alice = node.client("alice")
    before = (height(node), nonce(node), state(node, counter))
    first = read(alice, counter, "bump")
    second = read(alice, counter, "bump")
    assert first.status_code == second.status_code == 200, first.text
    # it ran on a throwaway copy: each call sees the committed count, and none is kept
    assert first.json()["data"]["contents"] == second.json()["data"]["contents"]
    assert (height(node), nonce(node), state(node, counter)) == before


def test_a_failing_call_answers_its_message(node: RunningNode, counter: str) -> None:
    before = height(node)
    r = read(node.client("alice"), counter, "must", args={"a": 1})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "Failure"
    assert "a is too small" in r.json()["txResult"]["message"]
    assert r.json()["data"] is None
    assert height(node) == before


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"contractAddress": "12" * 20, "method": "get"}, "contractAddress"),
        ({"contractAddress": "zz", "method": "get"}, "contractAddress"),
        ({"contractAddress": None, "method": "get"}, "contractAddress"),
        ({"method": "nope"}, "method"),
        ({"method": ""}, "method"),
        ({"method": "pair", "args": {"a": "x"}}, "a"),
        ({"method": "pair", "args": []}, "args"),
        ({"method": "get", "value": 5}, "value"),
        ({"method": "get", "chainid": "xyz"}, "chainid"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(
    node: RunningNode, counter: str, payload: dict[str, Any], field: str
) -> None:
    r = node.client("alice").post(PATH, json={"contractAddress": counter, **payload})
    assert r.status_code == 400, r.text
    assert field in r.text


def test_a_private_chain_is_for_its_members(node: RunningNode) -> None:
    alice = node.client("alice")
    chain = create_chain(
        alice, node.address("alice"), GOV_SRC, "Gov", label="acme-reads", balance=1
    )
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": chain},
        json=body(upload_tx("Counter", SRC, {"_c": 7})),
    )
    assert r.status_code == 200, r.text
    address = r.json()[0]["data"]["contents"]["address"]
    ok = read(alice, address, "get", chainid=chain)
    assert ok.status_code == 200, ok.text
    assert [str(v) for v in ok.json()["data"]["contents"]] == ["7"]
    refused = read(node.client("bob"), address, "get", chainid=chain)
    assert refused.status_code == 403, refused.text
    assert "7" not in refused.text.replace(chain, "")
    # on the main chain the contract is unknown
    assert read(alice, address, "get").status_code == 400


def _token(node: RunningNode, user: str) -> Callable[[], Awaitable[str]]:
    tok = node.token(user)

    async def provide() -> str:
        return tok

    return provide


def test_the_client_reads_and_falls_back_on_a_node_without_the_route(
    node: RunningNode, counter: str
) -> None:
    async def body() -> None:
        async with StratoClient(node.url, _token(node, "alice")) as client:
            res = await client.read_call(counter, "pair", {"a": 2})
            assert res is not None and res.ok and res.values == ["12", "ten"]
            assert res.hash == ""
            failed = await client.read_call(counter, "must", {"a": 0})
            assert failed is not None and failed.status == "Failure"
            assert "a is too small" in failed.message
            with pytest.raises(RequestError) as info:
                await client.read_call(counter, "nope")
            assert info.value.status == 400 and "method" in info.value.message
        # a node that does not serve the route (here: the real node under another prefix,
        # which answers 404 as a STRATO node does): None, the caller sends a transaction
        async with StratoClient(f"{node.url}/strato", _token(node, "alice")) as other:
            assert await other.read_call(counter, "get") is None

    before = height(node)
    asyncio.run(body())
    assert height(node) == before
