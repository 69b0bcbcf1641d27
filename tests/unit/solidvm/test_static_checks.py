"""The platform's compile-time checks (compiler/checks.py, imports.py): each error with its
position and wording, and the code next to it that must still compile.

In the sources, ``/*@*/`` marks where the error points: the character right after it.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm import CompileError, compile_source
from app.node.solidvm.errors import ExecutionError
from app.node.solidvm.imports import check_imports

from .conftest import CallFn, DeployFn
from .helpers import BLOCK_NUMBER

MARK = "/*@*/"


def marked(src: str) -> tuple[int, int]:
    """``(line, column)`` of the character after the marker."""
    before = src[: src.index(MARK) + len(MARK)]
    line = before.count("\n") + 1
    return line, len(before) - (before.rfind("\n") + 1) + 1


ERRORS: list[tuple[str, str, str]] = [
    # ---- pure and view (the platform's constant-function detector)
    (
        "pure-reads-state",
        """contract C {
    uint x = 1;
    function f() public pure returns (uint) { return /*@*/x + 1; }
}""",
        "Pure function reading state variable x",
    ),
    (
        "pure-reads-inherited-state",
        """contract A { uint internal x = 1; }
contract C is A {
    function f(uint y) public pure returns (uint) { return y * /*@*/x; }
}""",
        "Pure function reading state variable x",
    ),
    (
        "pure-reads-through-index",
        """contract C {
    uint[] xs;
    function f() public pure { /*@*/xs[0] = 1; }
}""",
        "Pure function reading state variable xs",
    ),
    (
        "view-assigns-state",
        """contract C {
    uint x;
    function f(uint y) public view returns (uint) { /*@*/x = y; return y; }
}""",
        "View function mutating state variable x",
    ),
    (
        "pure-compound-assigns-state",
        """contract C {
    uint x;
    function f() public pure { /*@*/x += 2; }
}""",
        "Pure function mutating state variable x",
    ),
    (
        "view-increments-state",
        """contract C {
    uint count;
    function f() public view { /*@*/count++; }
}""",
        "View function mutating state variable count",
    ),
    # ---- declarations
    (
        "local-redeclared-in-a-branch",
        """contract C {
    function f(bool c) public returns (uint) {
        uint x = 1;
        if (c) { /*@*/uint x = 2; }
        return x;
    }
}""",
        "Multiple declaration.",
    ),
    (
        "local-redeclared-in-a-loop",
        """contract C {
    function f() public returns (uint) {
        uint i = 5;
        for (/*@*/uint i = 0; i < 2; i++) {}
        return i;
    }
}""",
        "Multiple declaration.",
    ),
    (
        "overload-with-the-same-parameter-types",
        """contract C {
    function add(uint a, uint b) public returns (uint) { return a + b; }
    /*@*/function add(uint x, uint y) public returns (uint) { return x - y; }
}""",
        "Function is already defined with similar params: add",
    ),
    (
        "state-variable-and-function",
        """contract C {
    /*@*/uint total;
    function total() public returns (uint) { return 1; }
}""",
        "Multiple definitions for total in contract C",
    ),
    (
        "function-and-modifier",
        """contract C {
    /*@*/function guard() public {}
    modifier guard() { _; }
}""",
        "Multiple definitions for guard in contract C",
    ),
    (
        "inherited-getter-name-and-function",
        """contract A { /*@*/uint public owner; }
contract C is A {
    function owner() public returns (uint) { return 1; }
}""",
        "Multiple definitions for owner in contract C",
    ),
    # ---- receive() and fallback()
    (
        "receive-not-external",
        """contract C {
    /*@*/receive() public payable {}
}""",
        "Function `receive` must be External and Payable, but has not been declared so",
    ),
    (
        "receive-not-payable",
        """contract C {
    /*@*/receive() external {}
}""",
        "Function `receive` must be External and Payable, but has not been declared so",
    ),
    (
        "receive-with-an-argument",
        """contract C {
    /*@*/receive(uint i) external payable {}
}""",
        "Function `receive` must take no arguments",
    ),
    (
        "receive-with-a-return-value",
        """contract C {
    /*@*/receive() external payable returns (uint) { return 5; }
}""",
        "Function `receive` must have no return values",
    ),
    (
        "fallback-not-external",
        """contract C {
    /*@*/fallback() public payable {}
}""",
        "Function `fallback` must be External, but has not been declared so",
    ),
    (
        "receive-declared-with-function",
        """contract C {
    /*@*/function receive() external payable {}
}""",
        "'receive' is a reserved word",
    ),
    # ---- overriding
    (
        "override-missing",
        """contract A { function f() public virtual returns (uint) { return 1; } }
contract C is A {
    /*@*/function f() public returns (uint) { return 2; }
}""",
        "Function f is not marked as override, but its parent(s) A have a function by the same "
        "name",
    ),
    (
        "override-without-parent",
        """contract C {
    /*@*/function f() public override returns (uint) { return 2; }
}""",
        "Function f is declared override, but none of its parents have a function by the same name",
    ),
    (
        "override-of-a-non-virtual-function",
        """contract A { function f() public returns (uint) { return 1; } }
contract C is A {
    /*@*/function f() public override returns (uint) { return 2; }
}""",
        "Function f is marked as override, but parent contract A does not mark the function as "
        "virtual",
    ),
    # ---- visibility of calls
    (
        "own-external-function-called-internally",
        """contract C {
    function f() external returns (uint) { return 1; }
    function g() public returns (uint) { return /*@*/f(); }
}""",
        "cannot access function f because it is marked as external",
    ),
    (
        "inherited-private-function",
        """contract A { function secret() private returns (uint) { return 1; } }
contract C is A {
    function g() public returns (uint) { return /*@*/secret(); }
}""",
        "cannot access function secret because it is marked as private",
    ),
    (
        "super-of-a-private-function",
        """contract A { function f() private {} }
contract C is A {
    function g() public { /*@*/super.f(); }
}""",
        "cannot access function f because it is marked as private",
    ),
    (
        "base-call-of-a-private-function",
        """contract A { function f() private {} }
contract C is A {
    function g() public { /*@*/A.f(); }
}""",
        "cannot access function f because it is marked as private",
    ),
    # ---- types
    (
        "signedness-of-an-operation",
        """contract C {
    function f() public returns (uint) {
        uint x = 7;
        int y = 9;
        uint z = /*@*/x + y;
        return z;
    }
}""",
        "Mismatched signedness between integer values",
    ),
    (
        "signedness-of-an-assignment",
        """contract C {
    int balance;
    function f(uint amount) public { balance = /*@*/amount; }
}""",
        "Mismatched signedness between integer values",
    ),
    (
        "signedness-of-a-return",
        """contract C {
    function f(int a) public returns (uint) { return /*@*/a; }
}""",
        "Mismatched signedness between integer values",
    ),
    (
        "state-variable-initializer-type",
        """contract C {
    uint x = /*@*/"hello";
}""",
        "type string is not implicitly convertible to uint256",
    ),
    (
        "argument-type-of-an-internal-call",
        """contract C {
    uint x;
    constructor() { x = f(/*@*/6, 5); }
    function f(string s, uint n) public returns (uint) { return n; }
}""",
        "type uint256 is not implicitly convertible to string",
    ),
    (
        "argument-type-of-an-event",
        """contract C {
    event Paid(address to, uint amount);
    function f() public { emit Paid(msg.sender, /*@*/"ten"); }
}""",
        "type string is not implicitly convertible to uint256",
    ),
    (
        "mapping-key-type",
        """contract C {
    mapping(string => uint) byName;
    function f(uint i) public returns (uint) { return byName[/*@*/i]; }
}""",
        "Type mismatch: mapping key type string and index type uint256",
    ),
    (
        "array-index-type",
        """contract C {
    uint[] xs;
    function f() public { xs[/*@*/true] = 2112; }
}""",
        "Type mismatch: an array index must be an integer, not bool",
    ),
    (
        "string-concat-argument",
        """contract C {
    function f(string x) public returns (string) { return string.concat(x, /*@*/7); }
}""",
        "Type mismatch: string.concat takes strings, not uint256",
    ),
    (
        "blockhash-without-argument",
        """contract C {
    function f() public returns (bytes32) { return /*@*/blockhash(); }
}""",
        "blockhash takes one argument, 0 given",
    ),
    (
        "blockhash-of-a-string",
        """contract C {
    function f() public returns (bytes32) { return blockhash(/*@*/"latest"); }
}""",
        "Type mismatch: blockhash takes an integer, not string",
    ),
    # ---- low-level calls need an address; the platform types type(C) as a label
    (
        "delegatecall-of-type",
        """contract A {
    int ok = address(0xdeadbeef).delegatecall("garbage()");
    int bad = /*@*/type(A).delegatecall("garbage()");
}""",
        "Type mismatch: address and label type do not match.",
    ),
    (
        "call-of-type-in-a-body",
        """contract A {
    function f() public { /*@*/type(A).call("f"); }
}""",
        "Type mismatch: address and label type do not match.",
    ),
    # ---- account(a, chain): a third argument only counts after "ancestor"
    (
        "account-with-three-arguments",
        """contract C {
    function f() public { account b = account(0x1234, 0x5678, /*@*/3); }
}""",
        'account(): only account(a, "ancestor", n) takes a third argument',
    ),
    (
        "account-with-a-chain-name-then-more",
        """contract C {
    function f() public { account b = account(0x1234, "parent", /*@*/"self"); }
}""",
        'account(): only account(a, "ancestor", n) takes a third argument',
    ),
]


@pytest.mark.parametrize(
    ("src", "message"), [(s, m) for _, s, m in ERRORS], ids=[i for i, _, _ in ERRORS]
)
def test_rejected_with_position_and_wording(src: str, message: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_source(src)
    line, column = marked(src)
    assert (info.value.line, info.value.column) == (line, column), info.value.message
    assert info.value.detail.startswith(message)
    assert str(info.value).startswith(f"line {line}, column {column}: {message}")


ACCEPTED: list[tuple[str, str]] = [
    (
        "pure-reads-constants-and-shadowing-parameters",
        """contract C {
    uint constant K = 3;
    uint x = 1;
    function f(uint x) public pure returns (uint) { return x * K; }
    function g(uint a) public pure returns (uint) { uint x = a; return x; }
}""",
    ),
    (
        "view-reads-and-what-the-platform-lets-it-write",
        # The platform looks at assignments to a state variable's own name only: writes through
        # an index or a member, push, delete, `++x`, modifiers and calls are not its concern.
        """contract C {
    uint x;
    uint[] xs;
    modifier touch() { x = 2; _; }
    function g() public returns (uint) { x = 3; return x; }
    function f() public view touch returns (uint) {
        xs[0] = 1;
        xs.push(2);
        delete xs;
        ++x;
        g();
        return x;
    }
}""",
    ),
    (
        "payable-and-plain-functions-write-state",
        """contract C {
    uint x;
    function f() public payable { x = msg.value; }
    function g() public { x++; }
}""",
    ),
    (
        "redeclarations-the-platform-allows",
        """contract C {
    function f(bool c) public returns (uint) {
        if (c) { uint x = 1; } else { uint x = 2; }
        for (uint i = 0; i < 2; i++) {}
        for (uint i = 0; i < 2; i++) {}
        uint y;
        if (c) { uint y = 3; }
        uint x = 4;
        return x;
    }
}""",
    ),
    (
        "overloads-and-distinct-names",
        """contract A { function hidden() private {} }
contract C is A {
    uint hidden;
    function add(uint a) public returns (uint) { return a; }
    function add(uint a, uint b) public returns (uint) { return a + b; }
    modifier m() { _; }
}""",
    ),
    (
        "account-of-an-ancestor-chain",
        """contract C {
    function f() public returns (account) { return account(0x1234, "ancestor", 2); }
}""",
    ),
    (
        "receive-and-fallback",
        """contract C {
    receive() external payable {}
    fallback() external payable {}
}""",
    ),
    (
        "virtual-and-override",
        """interface I { function size() external returns (uint); }
contract A { function f() public virtual returns (uint) { return 1; } }
contract B is A { function f() public virtual override returns (uint) { return 2 + super.f(); } }
contract C is B, I {
    function f() public override returns (uint) { return super.f(); }
    function size() external override returns (uint) { return 3; }
}""",
    ),
    (
        "calls-the-platform-allows",
        """contract A {
    function inner() internal returns (uint) { return 1; }
    function outer() external virtual returns (uint) { return 2; }
}
contract C is A {
    function f() public returns (uint) { return inner() + this.g() + super.inner() + A.inner(); }
    function g() external returns (uint) { return 3; }
    function outer() external override returns (uint) { return super.outer(); }
}""",
    ),
    (
        "integers-the-platform-allows",
        """contract C {
    uint x;
    int y;
    function f(uint a, int b) public returns (int) {
        x = -1;
        x = a * 2 + zero();
        y = b - int(a);
        x = uint(b) + a;
        return b < 0 ? b : int(a);
    }
    function zero() internal returns (uint) { return 0; }
}""",
    ),
    (
        "types-the-platform-allows",
        """contract C {
    enum E { A, B }
    mapping(bytes32 => uint) byHash;
    mapping(address => uint) byAddress;
    uint[] xs;
    string s = string.concat("a", "b");
    event Paid(address to, uint amount);
    function f(string a) public returns (string) {
        byHash["key"] = 1;
        byAddress[msg.sender] = xs[uint(E.B)] + xs[0];
        emit Paid(msg.sender, 10);
        string memory z = string.concat(a, s);
        return z;
    }
}""",
    ),
]


@pytest.mark.parametrize("src", [s for _, s in ACCEPTED], ids=[i for i, _ in ACCEPTED])
def test_accepted(src: str) -> None:
    assert compile_source(src).contracts


def test_code_accepted_once_compiles_without_the_checks() -> None:
    # A node reloads stored code with checks=False: what it accepted before stays loadable.
    src = ERRORS[0][1]
    with pytest.raises(CompileError):
        compile_source(src)
    assert "C" in compile_source(src, checks=False).contracts


def test_evm_sources_are_not_checked_as_solidvm() -> None:
    assert compile_source(ERRORS[0][1], vm="EVM").contracts


# ---------------------------------------------------------------- blockhash at run time


BLOCKHASH = """contract C {
    function f(int n) public returns (bytes32) { return blockhash(uint(n)); }
}"""


def test_blockhash_of_a_past_or_the_current_block(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(BLOCKHASH, "C")
    for n in (0, BLOCK_NUMBER - 1, BLOCK_NUMBER):
        assert len(call(res.address, "f", {"n": n}).values[0]) == 64


@pytest.mark.parametrize(
    ("n", "message"),
    [
        (-1, "invalid arguments: blockhash() only accepts arguments greater than or equal to 0"),
        (BLOCK_NUMBER + 1, "invalid arguments: the block number given does not exist"),
    ],
)
def test_blockhash_out_of_range_fails(
    n: int, message: str, deploy: DeployFn, call: CallFn, world: Any
) -> None:
    res = deploy(BLOCKHASH, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "f", {"n": n})
    assert info.value.message.startswith(message)
    assert info.value.kind == "invalid arguments"


# ---------------------------------------------------------------- imports of an upload

LIB = (
    "contract Lib { function one() public returns (uint) { return 1; } }\nstruct Pair { uint a; }\n"
)


def test_braced_import_of_a_file_not_uploaded() -> None:
    files = {"main.sol": 'import {Lib} from "./lib.sol";\ncontract C is Lib {}\n'}
    with pytest.raises(CompileError) as info:
        compile_source(files)
    assert str(info.value) == "line 1, column 9: Could not find file lib.sol"


def test_braced_import_of_a_name_the_file_lacks() -> None:
    files = {
        "lib/lib.sol": LIB,
        "main.sol": 'pragma solidvm 12.0;\nimport {Lib, Missing as M} from "./lib/lib.sol";\n',
    }
    with pytest.raises(CompileError) as info:
        compile_source(files)
    # lib/lib.sol takes lines 1-3 of the joined text; main.sol starts at line 4
    assert str(info.value) == "line 5, column 14: Could not find item Missing in file lib/lib.sol"


def test_imports_the_platform_resolves_or_ignores() -> None:
    files = [
        ["contracts/lib.sol", LIB],
        ["contracts/app/main.sol", 'import {Lib, Pair} from "../lib.sol";\ncontract C is Lib {}\n'],
        ["other.sol", 'import "missing.sol";\nimport * as X from "gone.sol";\ncontract D {}\n'],
    ]
    assert set(compile_source(files).contracts) >= {"Lib", "C", "D"}


def test_import_checks_follow_the_checks_switch() -> None:
    files = {"main.sol": 'import {Lib} from "lib.sol";\ncontract C {}\n'}
    assert compile_source(files, checks=False).contracts
    # one text: every braced import names a file that is not part of it
    text = files["main.sol"]
    with pytest.raises(CompileError, match=r"Could not find file lib\.sol"):
        check_imports(text)
