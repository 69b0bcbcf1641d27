"""Contracts as values: `new`, contract-typed variables, casts, interfaces, cross-contract calls."""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ExecutionError

from .conftest import CallFn, DeployFn
from .helpers import ALICE, BOB, values

FACTORY = """
contract Child {
    uint public value;
    address public parent;
    string public tag;
    constructor(uint v, string t) public { value = v; parent = msg.sender; tag = t; }
    function double() public view returns (uint) { return value * 2; }
    function set(uint v) public { value = v; }
}
contract Factory {
    Child public last;
    Child[] public children;
    function make(uint v) public returns (address) {
        Child ch = new Child(v, "made");
        last = ch;
        children.push(ch);
        return address(ch);
    }
    function makeAndUse(uint v) public returns (uint) {
        Child ch = new Child(v, "used");
        ch.set(v + 1);
        return ch.double();
    }
    function doubleOf(address a) public view returns (uint) { return Child(a).double(); }
    function lastValue() public view returns (uint) { return last.value(); }
    function count() public view returns (uint) { return children.length; }
    function makeTwo() public returns (address, address) {
        Child a = new Child(1, "one");
        Child b = new Child(2, "two");
        return (address(a), address(b));
    }
}
"""


def test_new_creates_contract_with_state(deploy: DeployFn, call: CallFn, world: Any) -> None:
    factory = deploy(FACTORY, "Factory")
    res = call(factory.address, "make", {"v": 21})
    (child,) = values(res)
    assert len(child) == 40
    assert [addr for _, addr in res.created] == [child]
    assert [chain for chain, _ in res.created] == [""]
    state = world.state(child)
    assert state["value"] == "21"
    assert state["parent"] == factory.address
    assert state["tag"] == "made"
    factory_state = world.state(factory.address)
    assert factory_state["last"] == child
    assert factory_state["children"] == [child]


def test_calls_on_created_contract_from_outside(deploy: DeployFn, call: CallFn) -> None:
    factory = deploy(FACTORY, "Factory")
    (child,) = values(call(factory.address, "make", {"v": 5}))
    assert values(call(child, "double")) == ["10"]
    call(child, "set", {"v": 8})
    assert values(call(factory.address, "lastValue")) == ["8"]
    assert values(call(factory.address, "doubleOf", {"a": child})) == ["16"]


def test_calls_on_local_created_contract(deploy: DeployFn, call: CallFn, world: Any) -> None:
    factory = deploy(FACTORY, "Factory")
    res = call(factory.address, "makeAndUse", {"v": 10})
    assert values(res) == ["22"]
    assert len(res.created) == 1
    assert world.state(res.created[0][1])["value"] == "11"


def test_several_creations_get_distinct_addresses(deploy: DeployFn, call: CallFn) -> None:
    factory = deploy(FACTORY, "Factory")
    res = call(factory.address, "makeTwo")
    a, b = values(res)
    assert a != b
    assert a != factory.address
    assert [addr for _, addr in res.created] == [a, b]
    first = values(call(factory.address, "make", {"v": 1}))[0]
    second = values(call(factory.address, "make", {"v": 2}))[0]
    assert first != second
    assert values(call(factory.address, "count")) == ["2"]


CALLS = """
contract Target {
    address public lastSender;
    address public lastOrigin;
    uint public hits;
    function hit() public returns (address, address) {
        lastSender = msg.sender;
        lastOrigin = tx.origin;
        hits += 1;
        return (msg.sender, tx.origin);
    }
}
interface IHit {
    function hit() external returns (address, address);
}
contract Caller {
    Target target;
    constructor(address t) public { target = Target(t); }
    function viaTyped() public returns (address, address) { return target.hit(); }
    function viaInterface(address t) public returns (address, address) { return IHit(t).hit(); }
    function hitTwice() public returns (uint) {
        target.hit();
        target.hit();
        return target.hits();
    }
}
contract Relay {
    function relay(address caller) public returns (address, address) {
        return Caller(caller).viaTyped();
    }
}
"""


@pytest.mark.parametrize("method", ["viaTyped", "viaInterface"])
def test_msg_sender_is_calling_contract(
    method: str, deploy: DeployFn, call: CallFn, world: Any
) -> None:
    target = deploy(CALLS, "Target")
    caller = deploy(CALLS, "Caller", {"t": target.address})
    args = {"t": target.address} if method == "viaInterface" else {}
    res = call(caller.address, method, args, sender=BOB)
    assert values(res) == [caller.address, BOB]
    state = world.state(target.address)
    assert state["lastSender"] == caller.address
    assert state["lastOrigin"] == BOB


def test_two_level_call_chain_keeps_origin(deploy: DeployFn, call: CallFn) -> None:
    target = deploy(CALLS, "Target")
    caller = deploy(CALLS, "Caller", {"t": target.address})
    relay = deploy(CALLS, "Relay")
    res = call(relay.address, "relay", {"caller": caller.address}, sender=ALICE)
    assert values(res) == [caller.address, ALICE]


def test_cross_contract_state_updates(deploy: DeployFn, call: CallFn, world: Any) -> None:
    target = deploy(CALLS, "Target")
    caller = deploy(CALLS, "Caller", {"t": target.address})
    assert values(call(caller.address, "hitTwice")) == ["2"]
    assert world.state(target.address)["hits"] == "2"


def test_direct_call_has_user_as_sender(deploy: DeployFn, call: CallFn) -> None:
    target = deploy(CALLS, "Target")
    assert values(call(target.address, "hit", sender=BOB)) == [BOB, BOB]


def test_calling_a_missing_function_through_a_cast_fails(deploy: DeployFn, call: CallFn) -> None:
    src = """
contract Plain { uint public x = 1; }
interface Fancy { function fancy() external returns (uint); }
contract User {
    function use(address a) public returns (uint) { return Fancy(a).fancy(); }
}
"""
    plain = deploy(src, "Plain")
    user = deploy(src, "User")
    with pytest.raises(ExecutionError) as info:
        call(user.address, "use", {"a": plain.address})
    assert "unknown function" in info.value.message


def test_contract_typed_parameter_and_return(deploy: DeployFn, call: CallFn) -> None:
    src = """
contract Leaf { uint public v = 77; }
contract Holder {
    Leaf public leaf;
    function setLeaf(Leaf l) public returns (Leaf) { leaf = l; return leaf; }
    function read() public view returns (uint) { return leaf.v(); }
    function me() public view returns (Holder) { return this; }
}
"""
    leaf = deploy(src, "Leaf")
    holder = deploy(src, "Holder")
    assert values(call(holder.address, "setLeaf", {"l": leaf.address})) == [leaf.address]
    assert values(call(holder.address, "read")) == ["77"]
    assert values(call(holder.address, "me")) == [holder.address]
