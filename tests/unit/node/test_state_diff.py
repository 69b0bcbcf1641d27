"""The sandbox's ``stateDiff``: old -> new of scalars and one-level mapping entries, from the
transaction's undo journal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.node import state_diff
from app.node.solidvm import TxEnv, World, compile_source
from app.node.solidvm.world import ExecResult
from app.node.state_diff import tx_state_diff

SENDER = "00000000000000000000000000000000000000aa"
SRC = """
contract Coin {
    uint public supply;
    string public label;
    mapping(address => uint) public balances;
    mapping(address => mapping(address => uint)) public allowance;
    uint[] public marks;
    constructor(uint n) public { supply = n; balances[msg.sender] = n; }
    function transfer(address to, uint n) public {
        balances[msg.sender] -= n;
        balances[to] += n;
    }
    function twice(address to) public { balances[to] += 1; balances[to] += 1; }
    function same() public { supply = supply; balances[msg.sender] += 0; }
    function other(address s) public { allowance[msg.sender][s] = 3; marks.push(4); label = "x"; }
}
"""


def diff(world: World, res: ExecResult) -> dict[str, Any]:
    accts = [world.accounts[(c, int(a, 16))] for c, a in res.touched]
    created = {(c, int(a, 16)) for c, a in res.created}
    out: dict[str, Any] = json.loads(tx_state_diff(res.journal, accts, created))
    return out


def changes(d: dict[str, Any]) -> list[tuple[str, Any, Any, Any]]:
    return [(c["variable"], c.get("key"), c["before"], c["after"]) for c in d["changes"]]


def setup() -> tuple[World, str, ExecResult]:
    world = World()
    cdef = compile_source(SRC).contracts["Coin"]
    res = world.deploy(cdef, {"n": 100}, TxEnv(sender=SENDER))
    assert res.address is not None
    return world, res.address, res


def test_a_new_contract_lists_what_its_constructor_set() -> None:
    world, _, res = setup()
    assert changes(diff(world, res)) == [
        ("supply", None, None, 100),
        ("balances", SENDER, None, 100),
    ]


def test_a_transfer_gives_old_and_new_of_both_entries() -> None:
    world, address, _ = setup()
    to = "00000000000000000000000000000000000000bb"
    res = world.call(address, "transfer", {"to": to, "n": 30}, TxEnv(sender=SENDER))
    d = diff(world, res)
    assert changes(d) == [("balances", SENDER, 100, 70), ("balances", to, 0, 30)]
    assert d["changes"][0]["address"] == address
    assert "mapping" in d["covers"] and "arrays" in d["skips"]
    twice = world.call(address, "twice", {"to": to}, TxEnv(sender=SENDER))
    assert changes(diff(world, twice)) == [("balances", to, 30, 32)]  # first old, last new


def test_writes_of_the_same_values_change_nothing() -> None:
    world, address, _ = setup()
    res = world.call(address, "same", {}, TxEnv(sender=SENDER))
    assert diff(world, res)["changes"] == []


def test_nested_mappings_and_arrays_are_not_compared() -> None:
    world, address, _ = setup()
    spender = "00000000000000000000000000000000000000cc"
    res = world.call(address, "other", {"s": spender}, TxEnv(sender=SENDER))
    assert changes(diff(world, res)) == [("label", None, "", "x")]


def test_a_long_diff_gives_the_number_past_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state_diff, "MAX_CHANGES", 1)
    world, address, _ = setup()
    to = "00000000000000000000000000000000000000bb"
    res = world.call(address, "transfer", {"to": to, "n": 30}, TxEnv(sender=SENDER))
    d = diff(world, res)
    assert changes(d) == [("balances", SENDER, 100, 70)] and d["omitted"] == 1


def test_a_new_proxy_set_up_through_delegatecalls_lists_each_variable_once() -> None:
    """The platform's deployment creates proxies and initializes them through delegatecalls in
    the same transaction: every variable of every new contract appears once."""
    src = """
contract Logic {
    uint public v;
    function set(uint x) public { v = x; }
}
contract Proxy {
    address public logic;
    uint public v;
    constructor(address l) { logic = l; }
    fallback(variadic args) external returns (variadic) {
        return logic.delegatecall(msg.sig, args);
    }
}
contract Main {
    address public proxy;
    constructor() {
        proxy = address(new Proxy(address(new Logic())));
        proxy.call("set", 1);
        proxy.call("set", 2);
    }
}
"""
    world = World()
    res = world.deploy(compile_source(src).contracts["Main"], {}, TxEnv(sender=SENDER))
    found = [(c["address"], c["variable"]) for c in diff(world, res)["changes"]]
    assert len(found) == len(set(found))
    proxy = world.state(res.address or "")["proxy"]
    assert (proxy, "v") in found and (proxy, "logic") in found
