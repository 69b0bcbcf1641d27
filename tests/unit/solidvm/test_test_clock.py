"""fastForward(seconds): only with a test clock; moves block.timestamp; undone on failure."""

from __future__ import annotations

import pytest

from app.node.solidvm import World, compile_source
from app.node.solidvm.errors import CompileError, ExecutionError

from .helpers import ALICE, TIMESTAMP, make_env

CLOCK = """
contract Clock {
    uint public seen;
    function jump(uint secs) public returns (uint) {
        uint before = block.timestamp;
        fastForward(secs);
        seen = block.timestamp;
        require(now == seen, "now follows block.timestamp");
        return seen - before;
    }
    function jumpThenFail(uint secs) public {
        fastForward(secs);
        require(false, "undo the jump");
    }
    function time() public view returns (uint) { return block.timestamp; }
}
"""


def clock_world() -> tuple[World, str]:
    world = World()
    world.test_clock = True
    unit = compile_source(CLOCK, test_clock=True)
    res = world.deploy(unit.contracts["Clock"], {}, make_env(ALICE))
    assert res.address is not None
    return world, res.address


def test_fast_forward_moves_the_clock_within_and_after_the_transaction() -> None:
    world, addr = clock_world()
    res = world.call(addr, "jump", {"secs": 3600}, make_env(ALICE))
    assert res.values == ["3600"]
    assert world.state(addr)["seen"] == str(TIMESTAMP + 3600)
    # later transactions (same block time) read the moved clock
    assert world.call(addr, "time", {}, make_env(ALICE)).values == [str(TIMESTAMP + 3600)]
    world.call(addr, "jump", {"secs": 60}, make_env(ALICE))
    assert world.call(addr, "time", {}, make_env(ALICE)).values == [str(TIMESTAMP + 3660)]


def test_a_failed_transaction_does_not_move_the_clock() -> None:
    world, addr = clock_world()
    with pytest.raises(ExecutionError, match="undo the jump"):
        world.call(addr, "jumpThenFail", {"secs": 500}, make_env(ALICE))
    assert world.clock["offset"] == 0
    assert world.call(addr, "time", {}, make_env(ALICE)).values == [str(TIMESTAMP)]


def test_without_a_test_clock_fast_forward_is_undeclared() -> None:
    with pytest.raises(CompileError) as err:
        compile_source(CLOCK)
    assert "undeclared function 'fastForward'" in str(err.value)
    assert "--test-clock" in str(err.value)
    assert "line 6, column 9" in str(err.value)  # the source starts with a newline


def test_a_contract_may_declare_its_own_fast_forward() -> None:
    unit = compile_source(
        "contract C { uint public n; function fastForward(uint s) public { n = s; } "
        "function go() public { fastForward(7); } }"
    )
    world = World()
    addr = world.deploy(unit.contracts["C"], {}, make_env(ALICE)).address
    assert addr is not None
    world.call(addr, "go", {}, make_env(ALICE))
    assert world.state(addr)["n"] == "7"


def test_stored_code_compiled_with_the_builtin_refuses_to_run_without_the_test_clock() -> None:
    world = World()  # test_clock off, as a node restarted without --test-clock
    unit = compile_source(CLOCK, test_clock=True)
    addr = world.deploy(unit.contracts["Clock"], {}, make_env(ALICE)).address
    assert addr is not None
    with pytest.raises(ExecutionError, match="fastForward can only be called during testing"):
        world.call(addr, "jump", {"secs": 1}, make_env(ALICE))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("fastForward();", "fastForward takes one argument"),
        ('fastForward("soon");', "needs an integer operand"),
    ],
)
def test_bad_calls_are_compile_errors(body: str, message: str) -> None:
    with pytest.raises(CompileError, match=message):
        compile_source(f"contract C {{ function f() public {{ {body} }} }}", test_clock=True)


def test_moving_backwards_is_refused() -> None:
    unit = compile_source(
        "contract C { function f(int s) public { fastForward(s); } }", test_clock=True
    )
    world = World()
    world.test_clock = True
    addr = world.deploy(unit.contracts["C"], {}, make_env(ALICE)).address
    assert addr is not None
    with pytest.raises(ExecutionError, match="cannot move the clock backwards"):
        world.call(addr, "f", {"s": -5}, make_env(ALICE))
