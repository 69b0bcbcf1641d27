"""try/catch: Solidity's expression form and SolidVM's block form, what each failure is caught
as (the platform's Error/Panic mapping and exception names), what a caught failure undoes, and
the budgets a try cannot escape."""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import CompileError, ExecutionError, ParseError

from .conftest import CallFn, DeployFn
from .helpers import compile_src, events, values

CALLEE = """
error Nope(uint code, string why);

contract Callee {
    uint public v;
    uint[] public list;
    event Hit(uint n);

    function set(uint x) public returns (uint) { v = x; emit Hit(x); return x * 2; }
    function pair() public returns (uint, string) { return (7, "seven"); }
    function none() public { v = 1; }
    function req(uint x) public { v = x; emit Hit(x); require(x < 10, "too big"); }
    function reqBare() public { v = 3; require(false); }
    function fails() public { assert(false); }
    function div(uint a) public returns (uint) { v = 9; return 10 / a; }
    function oob() public returns (uint) { uint[] memory m = new uint[](1); return m[4]; }
    function rev() public { v = 4; revert("plain"); }
    function revBare() public { revert(); }
    function custom(uint c) public { v = c; emit Hit(c); revert Nope(c, "no"); }
    function thrown(uint c) public { throw Nope(c, "thrown"); }
    function forever() public { uint i = 0; while (true) { i++; } }
    function deep(uint n) public returns (uint) { return this.deep(n + 1); }
    function maker(bool fail) public returns (address) {
        Made m = new Made(fail);
        emit Hit(5);
        return address(m);
    }
}

contract Made {
    uint public x;
    constructor(bool fail) public { x = 1; require(!fail, "made failed"); }
}
"""

CALLER_PARTS = """
contract Caller {
    Callee public c;
    uint public mine;
    uint public code;
    string public reason;
    uint public got;
    uint public count;
    bytes public data;
    event Caught(string what);

    constructor(address callee) public { c = Callee(callee); }
"""


def caller(body: str) -> str:
    return CALLEE + CALLER_PARTS + body + "\n}\n"


def setup(deploy: DeployFn, body: str) -> tuple[str, str]:
    src = caller(body)
    callee = deploy(src, "Callee").address
    return deploy(src, "Caller", {"callee": callee}).address, callee


# ---------------------------------------------------------------- Solidity's form: success


def test_success_binds_the_returns_and_runs_the_block(
    world: Any, deploy: DeployFn, call: CallFn
) -> None:
    addr, callee = setup(
        deploy,
        """
        function f() public returns (uint, string) {
            try c.set(21) returns (uint r) { got = r; } catch { got = 999; }
            try c.pair() returns (uint n, string memory s) { return (n + got, s); }
            catch { return (0, "caught"); }
        }
        """,
    )
    res = call(addr, "f")
    assert values(res) == ["49", "seven"]
    assert events(res) == [("Hit", ["21"])]
    assert world.state(callee)["v"] == "21"


def test_success_without_returns(world: Any, deploy: DeployFn, call: CallFn) -> None:
    addr, callee = setup(
        deploy, "function f() public { try c.none() { count = 1; } catch { count = 2; } }"
    )
    call(addr, "f")
    assert world.state(addr)["count"] == "1"
    assert world.state(callee)["v"] == "1"


def test_a_failure_in_the_success_block_is_not_caught(
    world: Any, deploy: DeployFn, call: CallFn
) -> None:
    addr, _ = setup(
        deploy,
        """
        function f() public {
            mine = 5;
            try c.set(1) returns (uint r) { require(r > 5, "small"); } catch { count = 9; }
        }
        """,
    )
    with pytest.raises(ExecutionError) as info:
        call(addr, "f")
    assert info.value.message == "solidity require failed: small"
    assert world.state(addr)["mine"] == "0"


def test_try_new_contract(world: Any, deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy,
        """
        function f(bool fail) public returns (address) {
            try new Made(fail) returns (Made m) { count = m.x(); return address(m); }
            catch Error(string memory r) { reason = r; }
            return address(0);
        }
        """,
    )
    res = call(addr, "f", {"fail": True})
    assert values(res) == ["0" * 40]
    assert res.created == []
    assert world.state(addr)["reason"] == "made failed"
    res = call(addr, "f", {"fail": False})
    made = values(res)[0]
    assert res.created == [("", made)]
    assert world.state(made)["x"] == "1"


# ---------------------------------------------------------------- Solidity's form: failures


CLAUSES = (
    "catch Error(string memory r) { reason = r; } "
    "catch Panic(uint p) { code = p; } "
    "catch (bytes memory d) { count = 1; }"
)
TARGETS = [
    "c.req(50)",
    "c.reqBare()",
    "c.fails()",
    "c.div(0)",
    "c.oob()",
    "c.rev()",
    "c.custom(3)",
    "Callee(address(0x1234)).none()",
    "c.thrown(1)",
]
CLASSIFY = (
    "function f(uint which) public returns (uint, string) {\n"
    + "".join(
        f"    if (which == {i}) {{ try {t} {{ }} {CLAUSES} }}\n" for i, t in enumerate(TARGETS)
    )
    + "    return (code, reason);\n}\n"
)


@pytest.mark.parametrize(
    ("which", "code", "reason"),
    [
        pytest.param(0, "0", "too big", id="require-message"),
        pytest.param(1, "0", "Require Error", id="require-bare"),
        pytest.param(2, "0", "Assertion Error", id="assert"),
        pytest.param(3, "12", "", id="divide-by-zero"),
        pytest.param(4, "4", "", id="index-out-of-bounds"),
        pytest.param(5, "33", "", id="revert-is-a-panic"),
        pytest.param(6, "34", "", id="custom-error"),
        pytest.param(7, "13", "", id="no-contract-there"),
        pytest.param(8, "34", "", id="thrown-custom-error"),
    ],
)
def test_what_each_failure_is_caught_as(
    deploy: DeployFn, call: CallFn, which: int, code: str, reason: str
) -> None:
    addr, _ = setup(deploy, CLASSIFY)
    assert values(call(addr, "f", {"which": which})) == [code, reason]


def test_catch_all_receives_empty_bytes(world: Any, deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy,
        """
        function f() public {
            data = "x";
            try c.rev() { } catch Error(string memory r) { reason = r; }
            catch (bytes memory d) { data = d; count = 1; }
            try c.custom(1) { } catch { count += 1; }
        }
        """,
    )
    call(addr, "f")
    assert world.state(addr)["count"] == "2"
    assert world.state(addr)["data"] == ""


def test_an_unmatched_failure_propagates_unchanged(deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy,
        """
        function onlyError() public {
            try c.div(0) { } catch Error(string memory r) { reason = r; }
        }
        function onlyPanic() public { try c.req(11) { } catch Panic(uint p) { code = p; } }
        """,
    )
    with pytest.raises(ExecutionError) as info:
        call(addr, "onlyError")
    assert info.value.kind == "divide by zero"
    with pytest.raises(ExecutionError) as info:
        call(addr, "onlyPanic")
    assert info.value.message == "solidity require failed: too big"


# ---------------------------------------------------------------- what a caught failure undoes


def test_the_callee_is_undone_the_caller_is_not(world: Any, deploy: DeployFn, call: CallFn) -> None:
    addr, callee = setup(
        deploy,
        """
        function f() public {
            mine = 1;
            c.set(2);
            try c.custom(8) { } catch { mine += 10; }
            try c.maker(true) returns (address a) { } catch { mine += 100; }
            emit Caught("done");
        }
        """,
    )
    accounts = len(world.accounts)
    res = call(addr, "f")
    assert world.state(addr)["mine"] == "111"
    assert world.state(callee)["v"] == "2"  # set(2) stays, custom(8)'s write is gone
    assert events(res) == [("Hit", ["2"]), ("Caught", ["done"])]  # Hit(8) went with custom(8)
    assert res.created == []  # the Made of the failed maker() was never created
    assert len(world.accounts) == accounts
    assert [a for _, a in res.touched] == [addr, callee]


def test_a_callee_touched_only_by_a_failed_call_is_not_reported(
    deploy: DeployFn, call: CallFn
) -> None:
    addr, _ = setup(deploy, "function f() public { try c.custom(1) { } catch { mine = 3; } }")
    res = call(addr, "f")
    assert [a for _, a in res.touched] == [addr]


def test_internal_call_in_try_is_undone_too(world: Any, deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy,
        """
        function bump() public returns (uint) {
            mine += 5;
            require(mine > 100, "low");
            return mine;
        }
        function f() public {
            mine = 1;
            try this.bump() returns (uint m) { code = m; }
            catch Error(string memory r) { reason = r; }
            try bump() returns (uint m) { code = m; } catch Error(string memory r) { count = 1; }
        }
        """,
    )
    call(addr, "f")
    st = world.state(addr)
    assert (st["mine"], st["reason"], st["count"], st["code"]) == ("1", "low", "1", "0")


def test_a_whole_failed_transaction_still_undoes_everything(
    world: Any, deploy: DeployFn, call: CallFn
) -> None:
    addr, callee = setup(
        deploy,
        """
        function f() public {
            mine = 4;
            try c.custom(1) { } catch { c.set(6); }
            require(false, "late");
        }
        """,
    )
    with pytest.raises(ExecutionError):
        call(addr, "f")
    assert world.state(addr)["mine"] == "0"
    assert world.state(callee)["v"] == "0"


# ---------------------------------------------------------------- SolidVM's block form


def test_block_form_catches_by_exception_name(world: Any, deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy,
        """
        function f(uint which) public returns (string) {
            try {
                if (which == 0) { mine = 1 / (which * 0); }
                if (which == 1) { c.req(99); }
                if (which == 2) { c.rev(); }
                if (which == 3) { c.oob(); }
                if (which == 4) { c.fails(); }
                reason = "none";
            } catch DivideByZero { reason = "DivideByZero"; }
            catch Require { reason = "Require"; }
            catch RevertError { reason = "RevertError"; }
            catch Assert { reason = "Assert"; }
            catch { reason = "other"; }
            return reason;
        }
        """,
    )
    got = [values(call(addr, "f", {"which": w}))[0] for w in range(6)]
    assert got == ["DivideByZero", "Require", "RevertError", "other", "Assert", "none"]


def test_block_form_binds_custom_error_values(world: Any, deploy: DeployFn, call: CallFn) -> None:
    addr, callee = setup(
        deploy,
        """
        function f() public returns (uint, string) {
            try { c.custom(42); } catch Nope(n, why) { code = n + 1; reason = why; }
            try { c.thrown(7); } catch Nope(n) { count = n; }
            return (code, reason);
        }
        """,
    )
    assert values(call(addr, "f")) == ["43", "no"]
    assert world.state(addr)["count"] == "7"
    assert world.state(callee)["v"] == "0"


def test_block_form_keeps_the_writes_of_its_own_function(
    world: Any, deploy: DeployFn, call: CallFn
) -> None:
    # the platform drops the frame of a failed call, not the writes the try block made itself
    addr, _ = setup(
        deploy,
        """
        function f() public {
            try { mine = 7; emit Caught("in"); require(false, "x"); mine = 8; }
            catch Require { count = 1; }
        }
        """,
    )
    res = call(addr, "f")
    assert world.state(addr)["mine"] == "7"
    assert world.state(addr)["count"] == "1"
    assert events(res) == [("Caught", ["in"])]


def test_uncaught_in_block_form_propagates(deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy, "function f() public { try { c.div(0); } catch Require { count = 1; } }"
    )
    with pytest.raises(ExecutionError) as info:
        call(addr, "f")
    assert info.value.kind == "divide by zero"


def test_modifier_with_try_around_the_body(world: Any, deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy,
        """
        modifier fallbackOnFailure() {
            try { _; } catch { reason = "fell back"; }
        }
        function f(uint x) public fallbackOnFailure { mine = x; require(x < 10, "big"); }
        """,
    )
    call(addr, "f", {"x": 50})
    st = world.state(addr)
    assert (st["mine"], st["reason"]) == ("50", "fell back")


# ---------------------------------------------------------------- nesting, loops, budgets


def test_nested_try(world: Any, deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy,
        """
        function f() public returns (uint, string) {
            try c.set(1) returns (uint r) {
                try c.div(0) returns (uint q) { code = q; }
                catch Error(string memory e) { reason = e; }
            } catch Panic(uint p) { code = 1000 + p; }
            return (code, reason);
        }
        function g() public returns (uint, string) {
            try c.req(20) { } catch Error(string memory e) {
                try c.custom(2) { } catch Panic(uint p) { code = p; reason = e; }
            }
            return (code, reason);
        }
        function h() public returns (uint) {
            try { try { c.rev(); } catch Require { code = 1; } } catch RevertError { code = 2; }
            return code;
        }
        """,
    )
    # the inner try does not catch a Panic; the outer try does not cover its success block
    with pytest.raises(ExecutionError) as info:
        call(addr, "f")
    assert info.value.kind == "divide by zero"
    assert values(call(addr, "g")) == ["34", "too big"]
    assert values(call(addr, "h")) == ["2"]


def test_try_in_a_loop_restores_the_call_depth(world: Any, deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy,
        """
        function f(uint n) public returns (uint) {
            for (uint i = 0; i < n; i++) {
                try c.custom(i) { } catch { count++; }
                try { c.thrown(i); } catch Nope(k) { got = k; }
            }
            return count;
        }
        """,
    )
    # far more caught failures than the call-depth limit (96): depth must not leak
    assert values(call(addr, "f", {"n": 300})) == ["300"]
    assert world.state(addr)["got"] == "299"


def test_a_try_loop_cannot_escape_the_step_budget(deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy,
        """
        function spin() public { while (true) { try c.custom(1) { } catch { count++; } } }
        function spinBlock() public { while (true) { try { c.rev(); } catch { count++; } } }
        """,
    )
    for method in ("spin", "spinBlock"):
        with pytest.raises(ExecutionError) as info:
            call(addr, method, max_steps=20_000)
        assert info.value.kind == "out of gas"


def test_out_of_gas_inside_try_is_not_caught(world: Any, deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy,
        """
        function f() public { mine = 1; try c.forever() { } catch { count = 1; } }
        function g() public {
            try { c.forever(); } catch TooMuchGas { count = 2; } catch { count = 3; }
        }
        """,
    )
    for method in ("f", "g"):
        with pytest.raises(ExecutionError) as info:
            call(addr, method, max_steps=50_000)
        assert info.value.kind == "out of gas"
    assert world.state(addr)["count"] == "0"
    assert world.state(addr)["mine"] == "0"


def test_stack_too_deep_is_not_caught(deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(deploy, "function f() public { try c.deep(0) { } catch { count = 1; } }")
    with pytest.raises(ExecutionError) as info:
        call(addr, "f")
    assert info.value.kind == "stack too deep"


# ---------------------------------------------------------------- compile and parse errors


def _src(stmt: str) -> str:
    return caller(f"function f() public {{\n        {stmt}\n    }}")


def _line_of_stmt() -> int:
    return _src("X").split("\n").index("        X") + 1


@pytest.mark.parametrize(
    ("stmt", "column", "text"),
    [
        (
            "try c.set(1) returns (uint a, uint b) { } catch { }",
            9,
            "try/catch statement expected a tuple of the same length as the returns statement",
        ),
        ("try c.set(1) returns (string s) { } catch { }", 31, "not implicitly convertible"),
        ("try c.pair() returns (uint n) { } catch { }", 9, "returns 2 values, returns declares 1"),
        ("try c.none() { } catch { } catch { }", 36, "duplicate catch clause"),
        ("try c.none() { } catch Error { } catch Error(string r) { }", 42, "duplicate catch"),
        ("try { c.none(); } catch Missing { }", 27, "unknown error 'Missing' in catch clause"),
        ("try { c.none(); } catch Nope(a, b, extra) { }", 27, "names 3 values"),
        ("try { c.none(); } catch Require(m) { reason = m; }", 55, "undeclared"),
    ],
)
def test_compile_errors(stmt: str, column: int, text: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_src(_src(stmt))
    assert text in info.value.message
    assert (info.value.line, info.value.column) == (_line_of_stmt(), column)


@pytest.mark.parametrize(
    ("stmt", "column", "text"),
    [
        ("try c.none() { } catch Oops { }", 32, "valid identifier such as 'Error' or 'Panic'"),
        (
            "try c.none() { } catch Error(uint x) { }",
            38,
            "'Error' catch statement parameter type must be string",
        ),
        (
            "try c.none() { } catch Error(string a, string b) { }",
            32,
            "'Error' catch statement must only have one or zero",
        ),
        (
            "try c.none() { } catch Panic(string s) { }",
            38,
            "'Panic' catch statement parameter type must be uint",
        ),
        (
            "try c.none() { } catch (uint x) { }",
            33,
            "the empty catch statement parameter type must be bytes",
        ),
        ("try c.none() { }", 5, "expected 'catch' after the try block"),
        ("try c.none() returns (uint x); catch { }", 38, "expected '{' to open the try block"),
        ("try { } catch Nope(uint a) { }", 33, "expected ',' or ')'"),
        ("try { } catch", 5, "expected '{' to open the catch block"),
    ],
)
def test_parse_errors(stmt: str, column: int, text: str) -> None:
    with pytest.raises(ParseError) as info:
        compile_src(_src(stmt))
    assert not isinstance(info.value, CompileError)
    assert text in info.value.message
    line = _line_of_stmt() + (1 if stmt in ("try c.none() { }", "try { } catch") else 0)
    assert (info.value.line, info.value.column) == (line, column)


def test_returned_arrays_are_copies(deploy: DeployFn, call: CallFn) -> None:
    addr, _ = setup(
        deploy,
        """
        uint[] stash;
        function items() public returns (uint[] memory) { return stash; }
        function f() public returns (uint, uint) {
            stash.push(1);
            try items() returns (uint[] memory got) { got[0] = 50; } catch { }
            try this.items() returns (uint[] memory again) { again[0] = 60; } catch { }
            return (stash[0], stash.length);
        }
        """,
    )
    assert values(call(addr, "f")) == ["1", "1"]
