"""A failing call reports where it failed: the innermost statement, in the contract that ran it."""

from __future__ import annotations

import pytest

from app.node.solidvm.errors import ExecutionError, where_of

from .conftest import CallFn, DeployFn

SRC = """\
pragma solidvm 12.0;
library Checks {
    function atLeast(uint a, uint b) internal returns (uint) {
        uint doubled = a * 2;
        require(a >= b, "too small");
        return doubled;
    }
}
contract Target {
    uint[] public xs;
    function boom(uint d) public returns (uint) {
        uint one = 1;
        return one / d;
    }
}
contract C {
    uint public n = 5;
    Target t;
    constructor() public { t = new Target(); }
    function req() public {
        n = 6;
        require(n > 100, "n too low");
    }
    function nested(bool deep) public {
        n = 7;
        if (deep) {
            n = 8;
            for (uint i = 0; i < 3; i++) {
                if (i == 2)
                    revert("deep");
            }
        }
    }
    function viaLibrary() public returns (uint) {
        uint a = 1;
        uint b = Checks.atLeast(a, 3);
        return b;
    }
    function viaContract() public returns (uint) {
        uint zero = 0;
        n = 1;
        uint r = t.boom(zero);
        return r;
    }
    function index() public returns (uint) {
        uint[] memory xs = new uint[](2);
        uint a = 1;
        uint b = 2;
        uint c = 3;
        return xs[a + b + c];
    }
    function fine() public returns (uint) {
        return n;
    }
    function caughtThenFails() public {
        try t.boom(0) returns (uint r) {
            n = r;
        } catch {
            n = 9;
        }
        require(n == 0, "after the catch");
    }
}
"""


def fail(deploy: DeployFn, call: CallFn, method: str) -> ExecutionError:
    addr = deploy(SRC, "C").address
    with pytest.raises(ExecutionError) as info:
        call(addr, method, {"deep": True} if method == "nested" else {})
    return info.value


@pytest.mark.parametrize(
    ("method", "where", "message"),
    [
        ("req", ("C", 22, 9), "solidity require failed: n too low"),
        # the innermost statement, even under an `if` and a `for` without braces
        ("nested", ("C", 30, 21), "revert: deep"),
        # a library function's own statement, not the call in C
        ("viaLibrary", ("Checks", 5, 9), "solidity require failed: too small"),
        # inside the called contract
        ("viaContract", ("Target", 13, 9), None),
        ("index", ("C", 50, 9), None),
        # a failure caught on the way does not lend its position to a later one
        ("caughtThenFails", ("C", 61, 9), "solidity require failed: after the catch"),
    ],
)
def test_a_failure_carries_the_innermost_statement(
    deploy: DeployFn, call: CallFn, method: str, where: tuple[str, int, int], message: str | None
) -> None:
    err = fail(deploy, call, method)
    assert where_of(err) == where
    if message is not None:
        assert err.message == message  # the platform's text, no position added


def test_a_failure_outside_any_statement_has_no_position(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(SRC, "C").address
    assert call(addr, "fine").values == ["5"]
    with pytest.raises(ExecutionError) as info:  # the arguments do not fit: nothing ran yet
        call(addr, "nested", {"deep": "maybe"})
    assert where_of(info.value) is None
