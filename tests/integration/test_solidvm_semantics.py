"""The platform's SolidVM semantics over HTTP: whole-array getters, bytes rendered as text or hex,
log(...) lines in the transaction result's trace and the node log, storage written past the end
of an array; all of it kept across a restart."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit

SRC = """
contract Semantics {
    uint[] public items;
    bytes32 public greeting = "hello";
    bytes32 public digest;
    constructor() public {
        items.push(10);
        items.push(20);
        digest = keccak256(bytes("x"));
    }
    function shout(string what) public { log("said", what, items.length); }
    function stash(uint i, uint v) public { items[i] = v; }
    function read(uint i) public view returns (uint) { return items[i]; }
    function nothing() public pure returns (uint) { }
}
"""


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.client("alice")


@pytest.fixture(scope="module")
def contract(alice: httpx.Client) -> str:
    return deploy(alice, "Semantics", SRC)


def _call(alice: httpx.Client, address: str, method: str, args: dict[str, Any]) -> dict[str, Any]:
    r = submit(alice, call_tx(address, method, args))[0]
    assert r["status"] == "Success", r
    return dict(r)


def test_getter_without_index_answers_the_whole_array(alice: httpx.Client, contract: str) -> None:
    assert _call(alice, contract, "items", {})["data"]["contents"] == [["10", "20"]]
    assert _call(alice, contract, "items", {"index": 1})["data"]["contents"] == ["20"]


def test_bytes_as_text_or_hex(alice: httpx.Client, contract: str) -> None:
    assert _call(alice, contract, "greeting", {})["data"]["contents"] == ["hello"]
    state = alice.get(f"/bloc/v2.2/contracts/Semantics/{contract}/state").json()
    assert state["greeting"] == "hello"
    assert len(state["digest"]) == 64 and int(state["digest"], 16) > 0


def test_log_lines_go_to_the_trace_and_the_node_log(
    node: RunningNode, alice: httpx.Client, contract: str
) -> None:
    r = _call(alice, contract, "shout", {"what": "boo"})
    assert r["txResult"]["trace"] == "said\nboo\n2"
    assert f"log Semantics {contract}: boo" in node.log_tail(200)


def test_function_without_return_answers_no_value(alice: httpx.Client, contract: str) -> None:
    assert _call(alice, contract, "nothing", {})["data"]["contents"] == []


def test_writes_past_the_end_survive_a_restart(
    node: RunningNode, alice: httpx.Client, contract: str
) -> None:
    _call(alice, contract, "stash", {"i": 5, "v": 55})
    node.restart()
    client = node.client("alice")
    assert _call(client, contract, "read", {"i": 5})["data"]["contents"] == ["55"]
    assert _call(client, contract, "items", {})["data"]["contents"] == [["10", "20"]]
    state = client.get(f"/bloc/v2.2/contracts/Semantics/{contract}/state").json()
    assert state["greeting"] == "hello"
