"""File-level declarations: free functions, constants, structs and enums shared by a unit.

Free functions have no ``this`` and no state; they run in the calling contract's account, like
library functions, and every contract of the unit (and every library) can call them.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import CompileError, ExecutionError, ParseError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import compile_src

UNIT = """
pragma solidvm 11.4;

uint constant MAX = 10;
uint constant DOUBLE_MAX = MAX * 2;
string constant GREETING = "hi";

struct Point { uint x; uint y; }
enum Axis { X, Y }

function clamp(uint v) pure returns (uint) { return v > MAX ? MAX : v; }
function fact(uint n) pure returns (uint) { return n <= 1 ? 1 : n * fact(n - 1); }
function coord(Point memory p, Axis a) pure returns (uint) { return a == Axis.X ? p.x : p.y; }
function moveRight(Point storage p, uint by) { p.x += by; }
function caller() view returns (address) { return msg.sender; }

contract A {
    Point public pos;
    uint[MAX] public slots;
    function clamped(uint v) public pure returns (uint) { return clamp(v); }
    function factorial(uint n) public pure returns (uint) { return fact(n); }
    function limits() public pure returns (uint, uint, string) {
        return (MAX, DOUBLE_MAX, GREETING);
    }
    function step(uint by) public returns (uint) { moveRight(pos, by); return pos.x; }
    function y() public pure returns (uint) { return coord(Point(1, 2), Axis.Y); }
    function slotCount() public view returns (uint) { return slots.length; }
    function who() public view returns (address) { return caller(); }
    function named() public pure returns (uint) { return clamp({v: 99}); }
}

contract B {
    function twiceClamped(uint v) public pure returns (uint) { return clamp(v) * 2 + MAX; }
}
"""


def test_free_functions_are_shared_by_every_contract(deploy: DeployFn, call: CallFn) -> None:
    a = deploy(UNIT, "A").address
    b = deploy(UNIT, "B").address
    assert call(a, "clamped", {"v": 3}).values == ["3"]
    assert call(a, "clamped", {"v": 30}).values == ["10"]
    assert call(b, "twiceClamped", {"v": 30}).values == ["30"]
    assert call(a, "named").values == ["10"]


def test_free_functions_call_free_functions_recursively(run: RunFn) -> None:
    assert run(UNIT, "factorial", {"n": 10}, contract="A") == [str(3628800)]


def test_file_constants_in_expressions_and_array_lengths(run: RunFn) -> None:
    assert run(UNIT, "limits", contract="A") == ["10", "20", "hi"]
    assert run(UNIT, "slotCount", contract="A") == ["10"]


def test_file_structs_and_enums_in_free_functions(run: RunFn) -> None:
    assert run(UNIT, "y", contract="A") == ["2"]


def test_storage_passed_to_a_free_function_persists(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    a = deploy(UNIT, "A").address
    assert call(a, "step", {"by": 3}).values == ["3"]
    assert call(a, "step", {"by": 4}).values == ["7"]
    assert world.state(a)["pos"] == {"x": "7", "y": "0"}


def test_free_function_sees_the_caller_s_msg_sender(deploy: DeployFn, call: CallFn) -> None:
    a = deploy(UNIT, "A").address
    assert call(a, "who", sender="b2" * 20).values == ["b2" * 20]


def test_this_in_a_free_function_is_the_calling_contract(deploy: DeployFn, call: CallFn) -> None:
    src = """
    function self() view returns (address) { return address(this); }
    function selfAccount() view returns (address a) { a = account(this); }
    contract P {
        function me() public view returns (address, address) { return (self(), selfAccount()); }
    }
    contract Q { function me() public view returns (address) { return self(); } }
    """
    p = deploy(src, "P").address
    q = deploy(src, "Q").address
    assert call(p, "me").values == [p, p]
    assert call(q, "me").values == [q]


def test_free_functions_across_files_of_one_upload(deploy: DeployFn, call: CallFn) -> None:
    src = {
        "Math.sol": "uint constant BASE = 7;\nfunction plusBase(uint v) pure returns (uint) "
        "{ return v + BASE; }\n",
        "Main.sol": 'import "Math.sol";\ncontract M {\n    function f() public pure returns '
        "(uint) { return plusBase(1); }\n}\n",
    }
    m = deploy(src, "M").address
    assert call(m, "f").values == ["8"]


def test_free_functions_are_not_contracts_or_xabi_entries() -> None:
    unit = compile_src(UNIT)
    assert unit.names == ["A", "B"]
    assert "clamp" not in unit.contracts["A"].xabi["funcs"]
    assert "MAX" not in unit.contracts["A"].xabi["vars"]


def test_free_function_limits(deploy: DeployFn, call: CallFn) -> None:
    src = """
    function down(uint n) pure returns (uint) { return n == 0 ? 0 : down(n - 1); }
    function spin(uint n) pure returns (uint s) { for (uint i = 0; i < n; i++) { s += i; } }
    contract C {
        function deep(uint n) public pure returns (uint) { return down(n); }
        function busy(uint n) public pure returns (uint) { return spin(n); }
    }
    """
    c = deploy(src, "C").address
    assert call(c, "deep", {"n": 10}).values == ["0"]
    with pytest.raises(ExecutionError) as deep:
        call(c, "deep", {"n": 1000})
    assert deep.value.kind == "stack too deep"
    with pytest.raises(ExecutionError) as busy:
        call(c, "busy", {"n": 10**9}, max_steps=2_000)
    assert busy.value.kind == "out of gas"


ERRORS = [
    pytest.param(
        "function f() public pure returns (uint) { return 1; }\n",
        1,
        1,
        "free function 'f' cannot be public: free functions are always internal",
        CompileError,
        id="public-free-function",
    ),
    pytest.param(
        "function f() pure onlyOwner returns (uint) { return 1; }\n",
        1,
        19,
        "free function 'f' cannot have modifiers",
        CompileError,
        id="modifier-on-free-function",
    ),
    pytest.param(
        "function f(uint a) pure returns (uint) { return a; }\n"
        "function f(uint b) pure returns (uint) { return b; }\n",
        2,
        1,
        "free function 'f' with 1 parameters is declared twice (overloads must differ",
        CompileError,
        id="duplicate-free-function",
    ),
    pytest.param(
        "contract C {\n    uint count;\n}\nfunction f() view returns (uint) {\n"
        "    return count;\n}\n",
        5,
        12,
        "undeclared identifier 'count'",
        CompileError,
        id="free-function-has-no-state",
    ),
    pytest.param(
        "function f(uint a) pure returns (uint) { return a; }\ncontract C {\n"
        "    function g() public pure returns (uint) {\n        return f(1, 2);\n    }\n}\n",
        4,
        16,
        "function 'f' takes 1 arguments, 2 given",
        CompileError,
        id="free-function-argument-count",
    ),
    pytest.param(
        "uint constant M = 1;\ncontract C {\n    function g() public {\n        M = 2;\n    }\n}\n",
        4,
        9,
        "cannot assign to constant 'M'",
        CompileError,
        id="assign-file-constant",
    ),
    pytest.param(
        "uint constant M = 1;\nuint constant M = 2;\n",
        2,
        1,
        "identifier 'M' is already declared",
        CompileError,
        id="duplicate-file-constant",
    ),
    pytest.param(
        'uint constant M = "text";\n',
        1,
        19,
        "type string is not implicitly convertible to uint256",
        CompileError,
        id="file-constant-of-wrong-type",
    ),
    pytest.param(
        "uint total = 5;\ncontract C {}\n",
        1,
        1,
        "only constants can be declared at file level",
        ParseError,
        id="file-level-variable",
    ),
    pytest.param(
        "uint constant M;\n",
        1,
        1,
        "constant 'M' needs a value",
        ParseError,
        id="file-constant-without-value",
    ),
    pytest.param(
        "uint constant M = ;\n",
        1,
        19,
        "unexpected ';'",
        ParseError,
        id="file-constant-bad-expression",
    ),
    pytest.param(
        "contract C {}\nnonsense + here;\n",
        2,
        1,
        "expected a contract, interface, library or pragma but found 'nonsense'",
        ParseError,
        id="garbage-at-file-level",
    ),
]


@pytest.mark.parametrize(("src", "line", "column", "message", "kind"), ERRORS)
def test_errors(src: str, line: int, column: int, message: str, kind: type[Exception]) -> None:
    with pytest.raises(kind) as info:
        compile_src(src)
    err = info.value
    assert isinstance(err, ParseError)
    assert type(err) is kind
    assert (err.line, err.column) == (line, column)
    assert message in err.message
