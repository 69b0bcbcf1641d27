"""Two SolidVM forms the platform's contract library leans on: a modifier's `return v;` becomes
the wrapped function's result, and `string(n, base[, bytes])` formats integers."""

from __future__ import annotations

import pytest

from app.node.solidvm.errors import ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import c

GOVERNED = c(
    """
    address public owner;
    uint public calls;
    constructor() public { owner = msg.sender; }
    modifier onlyOwner() {
        if (msg.sender == owner) {
            _;
        } else {
            return 42;
        }
    }
    modifier pair() {
        if (msg.sender != owner) { return (7, "queued"); }
        _;
    }
    function work() public onlyOwner returns (uint) { calls += 1; return 1; }
    function both() public pair returns (uint, string) { return (1, "done"); }
    function quiet() public onlyOwner { calls += 1; }
"""
)

OWNER = "a1" * 20
OTHER = "b2" * 20


def test_a_modifier_return_value_is_the_function_result(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(GOVERNED, "C", sender=OWNER).address
    assert call(addr, "work", sender=OWNER).values == ["1"]
    assert call(addr, "work", sender=OTHER).values == ["42"]
    assert call(addr, "both", sender=OTHER).values == ["7", "queued"]
    assert call(addr, "both", sender=OWNER).values == ["1", "done"]
    # a function without returns just stops; the body did not run
    call(addr, "quiet", sender=OTHER)
    assert call(addr, "calls", sender=OWNER).values == ["1"]


def test_a_modifier_return_of_the_wrong_arity_fails(deploy: DeployFn, call: CallFn) -> None:
    src = c(
        "modifier m() { return 1; } function f() public m returns (uint, uint) { return (1, 2); }"
    )
    addr = deploy(src, "C").address
    with pytest.raises(ExecutionError, match="the modifier returned an integer for 2"):
        call(addr, "f")


STRINGS = c(
    """
    function dec(uint n) public pure returns (string) { return string(n, 10); }
    function hexa(uint n) public pure returns (string) { return string(n, 16); }
    function padded(uint n, uint b) public pure returns (string) { return string(n, 16, b); }
    function bad(uint n) public pure returns (string) { return string(n, 8); }
    function msg(uint x) public pure returns (string) { return "digit: " + string(x, 16); }
"""
)


def test_string_of_an_integer_in_base_10_and_16(run: RunFn) -> None:
    assert run(STRINGS, "dec", {"n": 1234}) == ["1234"]
    assert run(STRINGS, "hexa", {"n": 255}) == ["0xff"]
    assert run(STRINGS, "padded", {"n": 255, "b": 4}) == ["0x000000ff"]
    assert run(STRINGS, "msg", {"x": 0x4A}) == ["digit: 0x4a"]


def test_string_of_an_integer_in_another_base_fails(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(STRINGS, "C").address
    with pytest.raises(ExecutionError, match="base 8 is not 10 or 16"):
        call(addr, "bad", {"n": 8})
