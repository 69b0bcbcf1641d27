"""Inheritance: inherited members, overriding, super, C3 order, base constructors.

Overriding functions say `override` and the functions they override `virtual`, as the platform's
typechecker requires.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import BOB, values

BASIC = """
contract Base {
    uint public baseValue = 1;
    string public name = "base";
    function who() public view returns (string) { return name; }
    function kind() public pure virtual returns (string) { return "Base"; }
    function setBase(uint v) public { baseValue = v; }
}
contract Child is Base {
    uint public childValue = 2;
    function kind() public pure override returns (string) { return "Child"; }
    function sum() public view returns (uint) { return baseValue + childValue; }
}
"""


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("baseValue", ["1"]),
        ("childValue", ["2"]),
        ("who", ["base"]),
        ("kind", ["Child"]),
        ("sum", ["3"]),
    ],
)
def test_child_inherits_storage_and_functions(method: str, expected: list[str], run: RunFn) -> None:
    assert run(BASIC, method, contract="Child") == expected


def test_inherited_setter_writes_child_storage(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(BASIC, "Child")
    call(res.address, "setBase", {"v": 40})
    assert values(call(res.address, "sum")) == ["42"]
    state = world.state(res.address)
    assert state["baseValue"] == "40"
    assert state["childValue"] == "2"
    assert state["name"] == "base"


DIAMOND = """
contract A {
    string public log;
    constructor() public { log = log + "A"; }
    function f() public view virtual returns (string) { return "A"; }
}
contract B is A {
    constructor() public { log = log + "B"; }
    function f() public view virtual override returns (string) { return "B" + super.f(); }
}
contract C is A {
    constructor() public { log = log + "C"; }
    function f() public view virtual override returns (string) { return "C" + super.f(); }
}
contract D is B, C {
    constructor() public { log = log + "D"; }
    function f() public view override(B, C) returns (string) { return "D" + super.f(); }
}
contract E is C, B {
    function f() public view override(C, B) returns (string) { return "E" + super.f(); }
}
"""


@pytest.mark.parametrize(
    ("contract", "expected"),
    [("B", "BA"), ("C", "CA"), ("D", "DCBA"), ("E", "EBCA")],
)
def test_super_follows_c3_linearization(contract: str, expected: str, run: RunFn) -> None:
    assert run(DIAMOND, "f", contract=contract) == [expected]


@pytest.mark.parametrize(
    ("contract", "expected"),
    [("B", "AB"), ("D", "ACABD"), ("E", "ABAC")],
)
def test_constructors_run_in_the_platforms_order(
    contract: str, expected: str, deploy: DeployFn, world: Any
) -> None:
    """Not Solidity's linearized order: each constructor runs its direct bases first, the last
    written first, and each base its own bases again (a diamond's top runs twice)."""
    res = deploy(DIAMOND, contract)
    assert world.state(res.address)["log"] == expected


PARENT_ARGS = """
contract Named {
    string public name;
    uint public level;
    constructor(string _name, uint _level) public { name = _name; level = _level; }
}
contract InHeader is Named("header", 1) {
    uint public extra;
    constructor(uint e) public { extra = e; }
}
contract InConstructor is Named {
    uint public extra;
    constructor(uint e) Named("ctor", e + 1) public { extra = e; }
}
contract Grand is InConstructor {
    constructor() InConstructor(20) public {}
}
"""


@pytest.mark.parametrize(
    ("contract", "args", "expected"),
    [
        # the platform's parser drops arguments in the inheritance list: Named is not run
        ("InHeader", {"e": 5}, {"name": "", "level": "0", "extra": "5"}),
        ("InConstructor", {"e": 5}, {"name": "ctor", "level": "6", "extra": "5"}),
        ("Grand", {}, {"name": "ctor", "level": "21", "extra": "20"}),
    ],
)
def test_parent_constructor_arguments(
    contract: str, args: dict[str, Any], expected: dict[str, str], deploy: DeployFn, world: Any
) -> None:
    res = deploy(PARENT_ARGS, contract, args)
    state = world.state(res.address)
    for key, value in expected.items():
        assert state[key] == value


def test_multiple_parents_with_separate_storage(run: RunFn) -> None:
    src = """
contract HasA { uint a = 3; function getA() public view returns (uint) { return a; } }
contract HasB { uint b = 4; function getB() public view returns (uint) { return b; } }
contract Both is HasA, HasB {
    function product() public view returns (uint) { return getA() * getB() + a + b; }
}
"""
    assert run(src, "product", contract="Both") == ["19"]


def test_parent_function_calls_overridden_child_version(run: RunFn) -> None:
    src = """
contract Shape {
    function sides() public pure virtual returns (uint) { return 0; }
    function describe() public pure returns (uint) { return sides() * 100; }
}
contract Square is Shape {
    function sides() public pure override returns (uint) { return 4; }
}
"""
    assert run(src, "describe", contract="Square") == ["400"]
    assert run(src, "describe", contract="Shape") == ["0"]


def test_modifier_inherited_from_parent(deploy: DeployFn, call: CallFn, world: Any) -> None:
    src = """
contract Owned {
    address public owner;
    constructor() public { owner = msg.sender; }
    modifier onlyOwner { require(msg.sender == owner, "not owner"); _; }
}
contract Vault is Owned {
    uint public secret;
    function store(uint s) public onlyOwner { secret = s; }
}
"""
    res = deploy(src, "Vault")
    call(res.address, "store", {"s": 9})
    assert world.state(res.address)["secret"] == "9"
    with pytest.raises(ExecutionError) as info:
        call(res.address, "store", {"s": 10}, sender=BOB)
    assert info.value.message == "solidity require failed: not owner"
    assert world.state(res.address)["secret"] == "9"
