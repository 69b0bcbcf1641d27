"""The test clock of ``solid-vm-cli test``: per contract, from 0, moved by fastForward(seconds)."""

from __future__ import annotations

import pytest

from app.node.solidvm import TxEnv, World, compile_source
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


def test_the_test_clock_starts_at_zero_and_fast_forward_moves_it() -> None:
    """As ``solid-vm-cli test``: block time 0 at the contract's creation, whatever the block's."""
    world, addr = clock_world()
    assert world.call(addr, "time", {}, make_env(ALICE)).values == ["0"]
    res = world.call(addr, "jump", {"secs": 3600}, make_env(ALICE))
    assert res.values == ["3600"]
    assert world.state(addr)["seen"] == "3600"
    # later transactions (whatever their block's time) read the moved clock
    assert world.call(addr, "time", {}, make_env(ALICE, timestamp=TIMESTAMP + 99)).values == [
        "3600"
    ]
    world.call(addr, "jump", {"secs": 60}, make_env(ALICE))
    assert world.call(addr, "time", {}, make_env(ALICE)).values == ["3660"]


def test_moves_accumulate_across_hooks_and_tests_as_in_the_platform_fast_forward_test() -> None:
    """The platform's tests/General/fastForward.test.sol: beforeEach moves 10 s before each
    test, so the first test reads 10 and the second, which moves 10 more itself, reads 30."""
    src = """
    contract Describe_FastForward {
        function beforeEach() public { fastForward(10); }
        function it_a() public { require(block.timestamp == 10, "want 10"); }
        function it_b() public {
            fastForward(10);
            require(block.timestamp == 30, "want 30");
        }
    }
    """
    world = World()
    world.test_clock = True
    unit = compile_source(src, test_clock=True)
    addr = world.deploy(unit.contracts["Describe_FastForward"], {}, make_env(ALICE)).address
    assert addr is not None
    for method in ("beforeEach", "it_a", "beforeEach", "it_b"):
        world.call(addr, method, {}, make_env(ALICE))


def test_each_contract_has_its_own_clock_and_a_new_one_starts_at_zero() -> None:
    world, first = clock_world()
    world.call(first, "jump", {"secs": 500}, make_env(ALICE))
    unit = compile_source(CLOCK, test_clock=True)
    second = world.deploy(unit.contracts["Clock"], {}, make_env(ALICE)).address
    assert second is not None
    assert world.call(second, "time", {}, make_env(ALICE)).values == ["0"]
    assert world.call(first, "time", {}, make_env(ALICE)).values == ["500"]


def test_a_contract_reads_the_clock_of_the_contract_the_transaction_was_sent_to() -> None:
    """The clock is the transaction's block time: a contract called from the test contract
    reads (and moves) the test contract's clock, not its own."""
    src = """
    contract Other {
        function time() public returns (uint) { return block.timestamp; }
        function jump(uint s) public { fastForward(s); }
    }
    contract Describe_T {
        Other o;
        constructor() { o = new Other(); fastForward(7); }
        function viaOther() public returns (uint) { o.jump(5); return o.time(); }
        function other() public returns (address) { return address(o); }
    }
    """
    world = World()
    world.test_clock = True
    unit = compile_source(src, test_clock=True)
    addr = world.deploy(unit.contracts["Describe_T"], {}, make_env(ALICE)).address
    assert addr is not None
    assert world.call(addr, "viaOther", {}, make_env(ALICE)).values == ["12"]
    other = world.call(addr, "other", {}, make_env(ALICE)).values[0]
    assert world.call(other, "time", {}, make_env(ALICE)).values == ["0"]  # its own, if sent to


def test_a_failed_transaction_keeps_what_it_moved_the_clock_by() -> None:
    """The platform's runner keeps the block header of a failed call for the next one."""
    world, addr = clock_world()
    with pytest.raises(ExecutionError, match="undo the jump"):
        world.call(addr, "jumpThenFail", {"secs": 500}, make_env(ALICE))
    assert world.call(addr, "time", {}, make_env(ALICE)).values == ["500"]
    assert world.state(addr)["seen"] == "0"  # the storage it wrote is undone


def test_a_caught_failure_keeps_the_move_too() -> None:
    src = """
    contract Other { function f() public { fastForward(40); require(false, "no"); } }
    contract C {
        function go() public returns (uint) {
            Other o = new Other();
            try o.f() { } catch { }
            return block.timestamp;
        }
    }
    """
    world = World()
    world.test_clock = True
    unit = compile_source(src, test_clock=True)
    addr = world.deploy(unit.contracts["C"], {}, make_env(ALICE)).address
    assert addr is not None
    assert world.call(addr, "go", {}, make_env(ALICE)).values == ["40"]


def test_the_block_fields_are_the_runners_zeros_with_the_test_clock() -> None:
    """The platform's runner calls with its default block header: number, gas limit and
    difficulty 0. Without the test clock they are the block's."""
    src = (
        "contract C { function n() public returns (uint, uint, uint) "
        "{ return (block.number, block.gaslimit, block.difficulty); } }"
    )
    for test_clock, want in ((True, ["0", "0", "0"]), (False, ["42", "1000", "7"])):
        world = World()
        world.test_clock = test_clock
        addr = world.deploy(compile_source(src).contracts["C"], {}, make_env(ALICE)).address
        assert addr is not None
        env = TxEnv(sender=ALICE, block_number=42, gas_limit=1000, difficulty=7)
        assert world.call(addr, "n", {}, env).values == want


def test_without_the_test_clock_contracts_read_the_blocks_time() -> None:
    src = "contract C { function t() public returns (uint) { return block.timestamp; } }"
    world = World()
    addr = world.deploy(compile_source(src).contracts["C"], {}, make_env(ALICE)).address
    assert addr is not None
    assert world.call(addr, "t", {}, make_env(ALICE)).values == [str(TIMESTAMP)]
    assert world.test_clocks == {}


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


def test_a_negative_move_takes_the_clock_back_as_on_the_platform() -> None:
    unit = compile_source(
        "contract C { function f(int s) public returns (uint) { fastForward(s); "
        "return block.timestamp; } }",
        test_clock=True,
    )
    world = World()
    world.test_clock = True
    addr = world.deploy(unit.contracts["C"], {}, make_env(ALICE)).address
    assert addr is not None
    assert world.call(addr, "f", {"s": 50}, make_env(ALICE)).values == ["50"]
    assert world.call(addr, "f", {"s": -20}, make_env(ALICE)).values == ["30"]
