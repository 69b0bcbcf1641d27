"""Unsigned values below zero fail where the platform's optimizer checks them (bounds.py).

mercata's tests/Math/Math.test.sol: `z = x - y;` with `x < y` throws (caught by `try {} catch
{}`, `z` unchanged), and the same in `unchecked { }` does not.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import values

UNDERFLOW = "integer out of bounds: underflow: : (Just 0,-1)"

SRC = """
contract C {
    uint public count;

    function assign(uint x, uint y) public returns (uint) {
        uint z = 0;
        z = x - y;
        return z;
    }
    function declare(uint x, uint y) public returns (uint) {
        uint z = x - y;
        return 7;
    }
    function caught(uint x, uint y) public returns (bool, uint) {
        uint z = 5;
        bool thrown = false;
        try {
            z = x - y;
        } catch {
            thrown = true;
        }
        return (thrown, z);
    }
    function caughtByName(uint x, uint y) public returns (uint) {
        uint z;
        try { z = x - y; } catch ArithmeticException { return 1; }
        return 2;
    }
    function inUnchecked(uint x, uint y) public returns (int) {
        uint z = 0;
        unchecked { z = x - y; }
        return int(z);  // a call's argument: not checked
    }
    function readAfterUnchecked(uint x, uint y) public returns (uint) {
        uint z = 0;
        unchecked { z = x - y; }
        return z + 1;  // reading z is checked
    }
    function signedIsFine(uint x, uint y) public returns (int) {
        int z = int(x) - int(y);
        return z;
    }
    function argumentsAreNotChecked(uint x, uint y) public returns (int) {
        return toInt(x - y);
    }
    function toInt(int v) public pure returns (int) { return v; }
    function stateAssign() public { count = count - 1; }
    function stateCompound() public { count -= 1; }
    function readCount() public returns (uint) { return count; }
}
"""


@pytest.fixture
def c(deploy: DeployFn) -> str:
    return str(deploy(SRC, "C").address)


@pytest.mark.parametrize("method", ["assign", "declare"])
def test_a_negative_value_for_an_unsigned_name_fails(method: str, c: str, call: CallFn) -> None:
    assert values(call(c, method, {"x": 5, "y": 3}))[0] in ("2", "7")
    with pytest.raises(ExecutionError) as info:
        call(c, method, {"x": 3, "y": 4})
    assert info.value.message == UNDERFLOW
    assert info.value.kind == "integer overflow"


def test_the_failure_is_caught_and_the_variable_keeps_its_value(c: str, call: CallFn) -> None:
    assert values(call(c, "caught", {"x": 1, "y": 2})) == ["true", "5"]
    assert values(call(c, "caught", {"x": 2, "y": 1})) == ["false", "1"]
    assert values(call(c, "caughtByName", {"x": 1, "y": 2})) == ["1"]


def test_unchecked_stores_the_negative_value(c: str, call: CallFn) -> None:
    assert values(call(c, "inUnchecked", {"x": 1, "y": 3})) == ["-2"]
    with pytest.raises(ExecutionError) as info:
        call(c, "readAfterUnchecked", {"x": 1, "y": 3})
    assert info.value.message == "integer out of bounds: underflow: : (Just 0,-2)"


@pytest.mark.parametrize("method", ["signedIsFine", "argumentsAreNotChecked"])
def test_signed_values_and_call_arguments_are_not_checked(
    method: str, c: str, call: CallFn
) -> None:
    assert values(call(c, method, {"x": 1, "y": 4})) == ["-3"]


def test_state_variables_assignment_checks_compound_does_not(c: str, call: CallFn) -> None:
    with pytest.raises(ExecutionError) as info:
        call(c, "stateAssign")
    assert info.value.message == UNDERFLOW
    call(c, "stateCompound")  # the old value (0) is read checked; the result is not
    with pytest.raises(ExecutionError) as info:
        call(c, "readCount")
    assert info.value.message == UNDERFLOW


def test_names_the_optimizer_does_not_know_are_not_checked(run: RunFn) -> None:
    src = """
contract C {
    modifier m() { uint z = 0; z = z - 1; _; }
    function loopVariable() public returns (uint) {
        for (uint i = 0; i < 1; i++) {
            unchecked { i = i - 5; }
            if (i < 100) { return 1; }  // `i` of the loop's first clause: not known
        }
        return 2;
    }
    function inModifier() public m returns (uint) { return 3; }
    function tupleDeclared() public returns (uint) {
        (uint a, uint b) = (1, 2);
        unchecked { a = a - 5; }
        if (a < 100) { return 4; }  // declared in a tuple: not known
        return 5;
    }
}
"""
    assert run(src, "loopVariable") == ["1"]
    assert run(src, "inModifier") == ["3"]
    assert run(src, "tupleDeclared") == ["4"]


def test_evm_contracts_wrap_around(run: RunFn) -> None:
    src = """
pragma solidity ^0.8.0;
contract C {
    function f(uint x) public pure returns (uint) { uint z = 0; unchecked { z = z - x; } return z; }
}
"""
    assert run(src, "f", {"x": 1}, vm="EVM") == [str(2**256 - 1)]


def test_message_shows_the_value(deploy: DeployFn, call: CallFn, world: Any) -> None:
    src = "contract C { function f(uint a) public returns (uint) { uint r = 10 - a; return r; } }"
    res = deploy(src, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "f", {"a": 1000})
    assert info.value.message == "integer out of bounds: underflow: : (Just 0,-990)"
