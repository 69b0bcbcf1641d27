"""Failed calls leave no trace; runaway contracts are stopped with an error instead of hanging."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.node.solidvm.errors import ExecutionError, SolidVMError

from .conftest import CallFn, DeployFn
from .helpers import BOB, c, values

ATOMIC = """
contract Child {
    uint public v;
    constructor(uint _v) public { v = _v; }
    function set(uint _v) public { v = _v; }
}
contract Parent {
    uint public counter = 1;
    string public note = "start";
    uint[] public list;
    mapping(string => uint) public m;
    Child public child;
    Child public made;
    event Touched(uint n);

    constructor(address c) public { child = Child(c); list.push(1); }

    function failAfterEverything(bool fail) public returns (uint) {
        counter += 10;
        note = "changed";
        list.push(2);
        list[0] = 99;
        m["k"] = 5;
        emit Touched(counter);
        made = new Child(7);
        child.set(1234);
        require(!fail, "late failure");
        return counter;
    }
    function failInChild() public {
        counter = 50;
        child.set(0);
        Child(address(child)).set(77);
        assert(false);
    }
    function outOfBounds() public {
        counter = 2;
        list[5] = 1;  // storage: stored past the end, as SolidVM does
        uint[] memory copy = list;
        counter = copy[5];  // memory: out of bounds
    }
    function divide(uint d) public returns (uint) { counter = 3; return 10 / d; }
}
"""


def _setup(deploy: DeployFn) -> tuple[str, str]:
    child = deploy(ATOMIC, "Child", {"_v": 1})
    parent = deploy(ATOMIC, "Parent", {"c": child.address})
    return parent.address, child.address


@pytest.mark.parametrize(
    ("method", "args", "message"),
    [
        ("failAfterEverything", {"fail": True}, "solidity require failed: late failure"),
        ("failInChild", {}, "solidity assert failed"),
        (
            "outOfBounds",
            {},
            "index out of bounds: index value was 5, but the array length was 1",
        ),
        ("divide", {"d": 0}, "divide by zero error"),
    ],
)
def test_failed_call_changes_nothing(
    method: str, args: dict[str, Any], message: str, deploy: DeployFn, call: CallFn, world: Any
) -> None:
    parent, child = _setup(deploy)
    before_parent = copy.deepcopy(world.state(parent))
    before_child = copy.deepcopy(world.state(child))
    with pytest.raises(ExecutionError) as info:
        call(parent, method, args)
    assert info.value.message == message
    assert world.state(parent) == before_parent
    assert world.state(child) == before_child


def test_successful_call_after_failure_sees_old_state(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    parent, child = _setup(deploy)
    with pytest.raises(ExecutionError):
        call(parent, "failAfterEverything", {"fail": True})
    res = call(parent, "failAfterEverything", {"fail": False})
    assert values(res) == ["11"]
    assert [e.name for e in res.events] == ["Touched"]
    assert len(res.created) == 1
    made = res.created[0][1]
    assert world.state(parent)["made"] == made
    assert world.state(made)["v"] == "7"
    assert world.state(child)["v"] == "1234"
    assert world.state(parent)["list"] == ["99", "2"]


def test_failed_constructor_leaves_other_contracts_untouched(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    src = (
        ATOMIC
        + """
contract Breaker {
    constructor(address c) public {
        Child(c).set(555);
        new Child(9);
        revert("constructor gave up");
    }
}
"""
    )
    child = deploy(src, "Child", {"_v": 1}).address
    before = copy.deepcopy(world.state(child))
    with pytest.raises(ExecutionError) as info:
        deploy(src, "Breaker", {"c": child})
    assert info.value.message == "revert: constructor gave up"
    assert world.state(child) == before
    assert values(call(child, "v")) == ["1"]


def test_unknown_function_message(deploy: DeployFn, call: CallFn, world: Any) -> None:
    parent, _ = _setup(deploy)
    before = copy.deepcopy(world.state(parent))
    with pytest.raises(ExecutionError) as info:
        call(parent, "nope", {}, sender=BOB)
    assert info.value.message.startswith("unknown function")
    assert "nope" in info.value.message
    assert world.state(parent) == before


# ---------------------------------------------------------------- bounded execution

LIMIT_MESSAGES = ("out of gas", "memory limit exceeded", "integer overflow")

RUNAWAY = c(
    """
    uint[] public arr;
    uint public touched;
    function spin() public { touched = 1; while (true) {} }
    function spinFor() public { for (uint i = 0; i >= 0; i++) { touched = i; } }
    function recurse(uint n) public returns (uint) { return recurse(n + 1) + 1; }
    function grow() public { while (true) { arr.push(1); } }
    function growMemory() public pure returns (uint) {
        uint[] memory big = new uint[](10**12);
        return big.length;
    }
    function hugePower() public pure returns (uint) {
        uint e = 10**12;
        return 2**e;
    }
    function hugeString() public pure returns (uint) {
        string memory s = "xxxxxxxxxxxxxxxx";
        while (true) { s = s + s; }
        return 0;
    }
"""
)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("method", ["spin", "spinFor"])
def test_infinite_loop_runs_out_of_gas(
    method: str, deploy: DeployFn, call: CallFn, world: Any
) -> None:
    res = deploy(RUNAWAY, "C")
    before = copy.deepcopy(world.state(res.address))
    with pytest.raises(ExecutionError) as info:
        call(res.address, method, max_steps=100_000)
    err = info.value
    assert "out of gas" in err.message or "out of gas" in err.kind
    assert world.state(res.address) == before


@pytest.mark.timeout(120)
def test_infinite_loop_is_stopped_by_default_limit(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(RUNAWAY, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "spin")
    assert "out of gas" in info.value.message or "out of gas" in info.value.kind


@pytest.mark.timeout(60)
def test_infinite_recursion_is_stack_too_deep(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(RUNAWAY, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "recurse", {"n": 0})
    assert "stack too deep" in info.value.message


@pytest.mark.timeout(60)
@pytest.mark.parametrize("max_steps", [100_000, None], ids=["small-gas", "default-limits"])
def test_unbounded_push_fails(
    max_steps: int | None, deploy: DeployFn, call: CallFn, world: Any
) -> None:
    res = deploy(RUNAWAY, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "grow", max_steps=max_steps)
    msg = info.value.message
    assert "out of gas" in msg or "memory limit exceeded" in msg
    assert world.state(res.address).get("arr", []) == []


@pytest.mark.timeout(60)
@pytest.mark.parametrize("method", ["growMemory", "hugePower", "hugeString"])
def test_resource_exhaustion_is_an_error(method: str, deploy: DeployFn, call: CallFn) -> None:
    res = deploy(RUNAWAY, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, method)
    assert info.value.message.startswith(LIMIT_MESSAGES)


@pytest.mark.timeout(60)
def test_huge_constant_power_is_rejected(deploy: DeployFn, call: CallFn) -> None:
    src = c("    function f() public pure returns (uint) { return 2**(10**12); }")
    with pytest.raises(SolidVMError) as info:
        res = deploy(src, "C")
        call(res.address, "f")
    assert info.value.message.startswith(LIMIT_MESSAGES)


@pytest.mark.timeout(60)
def test_world_still_usable_after_runaway(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(RUNAWAY, "C")
    with pytest.raises(ExecutionError):
        call(res.address, "spin", max_steps=10_000)
    with pytest.raises(ExecutionError):
        call(res.address, "recurse", {"n": 0})
    assert values(call(res.address, "touched")) == ["0"]


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("contract A { uint[1000000][1000000] big; }", "is too large"),
        ("contract A { struct S { uint x; S y; } S s; }", "type S contains itself"),
        ("struct S { uint x; S[2] y; } contract A { }", "type S contains itself"),
        (
            "contract A { function f() public { uint[1000][1000][10] memory x; } }",
            "is too large",
        ),
    ],
)
def test_types_whose_zero_value_cannot_exist_are_compile_errors(src: str, message: str) -> None:
    from app.node.solidvm import CompileError, compile_source

    with pytest.raises(CompileError) as info:
        compile_source(src)
    assert message in info.value.message
    assert "line 1, column" in info.value.message


def test_struct_may_contain_a_dynamic_array_of_itself(deploy: DeployFn, call: CallFn) -> None:
    src = c(
        "    struct Node { uint v; Node[] kids; }\n"
        "    Node root;\n"
        "    function f() public returns (uint) { root.v = 3; return root.kids.length + root.v; }"
    )
    res = deploy(src, "C")
    assert values(call(res.address, "f")) == ["3"]


def test_copies_in_a_loop_cost_gas(deploy: DeployFn, call: CallFn) -> None:
    src = c(
        "    uint[] a;\n"
        "    function fill() public { for (uint i = 0; i < 5000; i++) a.push(i); }\n"
        "    function copies() public returns (uint s) {\n"
        "        for (uint i = 0; i < 100000; i++) { uint[] memory b = a; s += b.length; }\n"
        "    }"
    )
    res = deploy(src, "C")
    call(res.address, "fill")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "copies", max_steps=1_000_000)
    assert info.value.message.startswith("out of gas")
