"""Operators, ``i++`` and ``return x`` on local variables, compiled to closures that read the
slots in place (fused.py), and underflow checks left out where the value cannot be negative
(bounds.known_nonnegative): the same values and the same errors as the general closures.

These pin behaviour that main already has; they guard the specialised paths.
"""

from __future__ import annotations

import pytest

from app.node.solidvm.errors import ExecutionError

from .conftest import RunFn


def underflow(v: int) -> str:
    return f"integer out of bounds: underflow: : (Just 0,{v})"


SRC = """
contract C {
    function less(uint x, uint y) public returns (bool) { return x < y; }
    function atMost(uint x, uint y) public returns (bool) { return x <= y; }
    function more(uint x, uint y) public returns (bool) { return x > y; }
    function atLeast(uint x, uint y) public returns (bool) { return x >= y; }
    function plus(uint x, uint y) public returns (uint) { return x + y; }
    function minus(uint x, uint y) public returns (int) { int r = int(x - y); return r; }
    function minusReturned(uint x, uint y) public returns (uint) { return x - y; }
    function signed(int x, int y) public returns (int) { return x - y; }
    function texts(string a, string b) public returns (string) { return a + b; }
    function compound(uint x, uint y) public returns (uint) { x += y; x -= 1; return x; }
    function steps() public returns (uint, uint, uint, uint) {
        uint a = 5;
        uint b = a++;
        uint c = ++a;
        uint d = a--;
        return (b, c, d, --a);
    }
    function negativeLeft(uint x, uint y) public returns (bool) {
        unchecked { x = x - 10; y = y - 20; }
        return x < y;  // both reads are checked: the left one fails first
    }
    function negativeRight(uint x, uint y) public returns (uint) {
        unchecked { y = y - 3; }
        return x + y;
    }
    function loopVariableIsNotChecked() public returns (uint) {
        for (uint i = 0; i < 1; i++) {
            uint limit = 100;
            unchecked { i = i - 5; }
            if (i < limit) { return 1; }  // `i` unknown to the optimizer, `limit` checked
        }
        return 2;
    }
    function returnedNegative() public returns (uint) {
        uint z = 0;
        unchecked { z = z - 3; }
        return z;
    }
    function incrementNegative() public returns (uint) {
        uint z = 0;
        unchecked { z = z - 1; }
        z++;
        return 7;
    }
    function incrementLoopVariable() public returns (int) {
        for (uint i = 0; i < 1; i++) {
            unchecked { i = i - 5; }
            i++;  // the loop's variable: its old value is not checked
            return int(i);
        }
        return 0;
    }
    function copiedNegative() public returns (uint) {
        uint r = 0;
        for (uint i = 0; i < 1; i++) {
            unchecked { i = i - 4; }
            r = i;  // `i` is not checked when read: the value assigned to `r` is
        }
        return r;
    }
    function declaredSum() public returns (uint) {
        for (uint i = 0; i < 1; i++) {
            unchecked { i = i - 4; }
            uint s = i + 1;  // `i` read unchecked, so the sum is checked
            return s;
        }
        return 0;
    }
    function many(uint a, uint b, uint c, uint d, uint e) internal returns (uint) {
        return a * 10000 + b * 1000 + c * 100 + d * 10 + e;
    }
    function none() internal returns (uint) { return 42; }
    function manyArgs() public returns (uint, uint) { return (many(1, 2, 3, 4, 5), none()); }
}
"""


@pytest.mark.parametrize(
    ("method", "x", "y", "want"),
    [
        ("less", 1, 2, "true"),
        ("less", 2, 2, "false"),
        ("atMost", 2, 2, "true"),
        ("more", 3, 2, "true"),
        ("atLeast", 1, 2, "false"),
        ("plus", 3, 4, "7"),
        ("minus", 3, 5, "-2"),
        ("minusReturned", 3, 5, "-2"),
        ("compound", 3, 4, "6"),
    ],
)
def test_operators_on_locals(method: str, x: int, y: int, want: str, run: RunFn) -> None:
    assert run(SRC, method, {"x": x, "y": y}) == [want]


def test_signed_and_text_operands(run: RunFn) -> None:
    assert run(SRC, "signed", {"x": -3, "y": 4}) == ["-7"]
    assert run(SRC, "texts", {"a": "ab", "b": "cd"}) == ["abcd"]


def test_increments_and_decrements_of_locals(run: RunFn) -> None:
    assert run(SRC, "steps") == ["5", "7", "7", "5"]


@pytest.mark.parametrize(
    ("method", "value"),
    [
        ("negativeLeft", -9),
        ("negativeRight", -2),
        ("returnedNegative", -3),
        ("incrementNegative", -1),
        ("copiedNegative", -4),
        ("declaredSum", -3),
    ],
)
def test_checked_reads_of_locals_fail_below_zero(method: str, value: int, run: RunFn) -> None:
    with pytest.raises(ExecutionError) as info:
        run(SRC, method, {"x": 1, "y": 1} if method.startswith("negative") else {})
    assert info.value.message == underflow(value)


def test_names_the_optimizer_does_not_know_stay_unchecked(run: RunFn) -> None:
    assert run(SRC, "loopVariableIsNotChecked") == ["1"]
    assert run(SRC, "incrementLoopVariable") == ["-4"]


def test_calls_with_many_and_no_arguments(run: RunFn) -> None:
    assert run(SRC, "manyArgs") == ["12345", "42"]


def test_evm_increment_of_a_local_wraps(run: RunFn) -> None:
    src = """
pragma solidity ^0.8.0;
contract C {
    function f() public pure returns (uint8, uint8) {
        uint8 x = 255;
        uint8 y = 0;
        unchecked { x++; y--; }
        return (x, y);
    }
}
"""
    assert run(src, "f", vm="EVM") == ["0", "255"]
