"""Variadic calls, low-level calls and contracts created at run time, through the node's API:
call results and state as the API returns them, and contracts compiled by create()/create2()
surviving a restart of the node."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit

SRC = """
contract Maker {
    address public made;
    function mk2(string salt, string name, string src, variadic args) public returns (address) {
        made = create2(salt, name, src, args);
        return made;
    }
    function predict(string u) public returns (address) { return this.derive(u, "Kid", u); }
    function kid(string u) public returns (address) { return address(new Kid{salt: u}(u)); }
    function echo(variadic v) public returns (variadic) { return v; }
    function ask(address a, string f, variadic v) public returns (variadic) {
        return a.call(f, v);
    }
    function origin(address a) public returns (string, address) { return (a.creator, a.root); }
}
contract Kid {
    string public name;
    constructor(string n) { name = n; }
}
"""
BOX = (
    "contract Box { uint public x; constructor(uint _x) { x = _x; }\n"
    "  function add(uint d) public returns (uint) { x += d; return x; } }"
)


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, name="calls")
    try:
        yield n
    finally:
        n.stop()


def run(node: RunningNode, address: str, method: str, args: dict[str, Any]) -> Any:
    res = submit(node.client("alice"), call_tx(address, method, args))
    assert res[0]["status"] == "Success", res
    return res[0]


def test_variadic_and_created_contracts_over_the_api(node: RunningNode) -> None:
    alice = node.client("alice")
    maker = deploy(alice, "Maker", SRC)
    assert run(node, maker, "echo", {"v": [1, "x", True]})["data"]["contents"] == [
        ["1", "x", "true"]
    ]
    predicted = run(node, maker, "predict", {"u": "zed"})["data"]["contents"]
    made = run(node, maker, "kid", {"u": "zed"})
    assert made["data"]["contents"] == predicted
    assert made["txResult"]["contractsCreated"] == predicted[0]

    box = run(node, maker, "mk2", {"salt": "s1", "name": "Box", "src": BOX, "args": [5]})
    (box_addr,) = box["data"]["contents"]
    assert box["txResult"]["contractsCreated"] == box_addr
    assert run(node, maker, "ask", {"a": box_addr, "f": "add", "v": [2]})["data"]["contents"] == [
        ["7"]
    ]

    node.restart()
    alice = node.client("alice")
    r = alice.get(f"/bloc/v2.2/contracts/Box/{box_addr}/state")
    assert r.status_code == 200, r.text
    assert r.json()["x"] == "7"
    # the contract compiled at run time is still callable after the restart
    again = submit(alice, call_tx(box_addr, "add", {"d": 1}))
    assert again[0]["status"] == "Success", again
    assert again[0]["data"]["contents"] == ["8"]
    assert run(node, maker, "origin", {"a": box_addr})["data"]["contents"] == [
        "alice",
        node.address("alice"),
    ]
