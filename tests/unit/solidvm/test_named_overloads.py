"""Overloads: chosen by argument count, then by the arguments' types (first fit in declaration
order), and for named arguments ``f({a: 1, b: 2})`` by the parameter names; the API's choice by
the JSON argument names agrees with the compiler's."""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import CompileError, ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import compile_src

OVERLOADS = """
contract C {
    uint public myNum = 0;
    string public myString = "";
    bool public myStatus = false;
    constructor() public {
        addToNum({x: 1, y: true});
        addToNum(0, randomFunc(3));
        addToNum(1, "hi");
        addToNum({y: " world", x: 3});
    }
    function randomFunc(uint x) public returns (uint) { return x; }
    function addToNum(uint x, uint y) public { myNum += x + y; }
    function addToNum(uint x, bool y) public { myNum += x; myStatus = y; }
    function addToNum(uint x, string y) public { myNum += x; myString += y; }
    function addToNum(uint x, string y, uint w) public { myNum += x + w; }
    function f(uint a, uint b) public returns (uint) { return a * 10 + b; }
    function f(uint c) public returns (uint) { return c + 1000; }
    function g() public returns (uint) { return f({b: 2, a: 7}); }
    function h() public returns (uint) { return f({c: 2}); }
    function p() public returns (uint) { return f(3); }
}
"""


@pytest.fixture
def c(deploy: DeployFn) -> str:
    return str(deploy(OVERLOADS, "C").address)


def test_same_arity_overloads_are_chosen_by_type(c: str, world: Any) -> None:
    assert world.state(c) == {"myNum": "8", "myString": "hi world", "myStatus": "true"}


@pytest.mark.parametrize(("method", "expected"), [("g", ["72"]), ("h", ["1002"]), ("p", ["1003"])])
def test_named_arguments_pick_the_overload_by_name(
    c: str, call: CallFn, method: str, expected: list[str]
) -> None:
    assert call(c, method).values == expected


@pytest.mark.parametrize(
    ("args", "state"),
    [
        ({"c": 5}, None),
        ({"a": 1, "b": 2}, None),
        ({"x": 1, "y": "Q"}, {"myNum": "9", "myString": "hi worldQ", "myStatus": "true"}),
        ({"x": 1, "y": False}, {"myNum": "9", "myString": "hi world", "myStatus": "false"}),
        ({"x": 1, "y": 4}, {"myNum": "13", "myString": "hi world", "myStatus": "true"}),
        ({"x": 1, "y": "s", "w": 3}, {"myNum": "12", "myString": "hi world", "myStatus": "true"}),
    ],
)
def test_the_api_picks_the_overload_by_the_json_names_and_types(
    c: str, call: CallFn, world: Any, args: dict[str, Any], state: dict[str, str] | None
) -> None:
    method = "f" if "c" in args or "a" in args else "addToNum"
    res = call(c, method, args)
    if method == "f":
        assert res.values == (["1005"] if "c" in args else ["12"])
    else:
        assert world.state(c) == state


def test_extra_json_names_are_ignored_and_the_largest_overload_wins(c: str, call: CallFn) -> None:
    assert call(c, "f", {"a": 1, "b": 2, "zzz": 0}).values == ["12"]
    assert call(c, "f", {"c": 1, "zzz": 0}).values == ["1001"]


def test_json_that_fits_no_overload_is_refused(c: str, call: CallFn) -> None:
    with pytest.raises(ExecutionError) as info:
        call(c, "f", {"q": 1})
    assert info.value.message.startswith("Argument names don't match")


def test_external_calls_pick_same_arity_overloads_by_type(run: RunFn) -> None:
    src = """
contract T {
    function pick(uint a) public returns (string) { return "uint"; }
    function pick(string a) public returns (string) { return "string"; }
    function pick(bool a) public returns (string) { return "bool"; }
}
contract C {
    T t;
    constructor() { t = new T(); }
    function f() public returns (string, string, string) {
        return (t.pick(1), t.pick("x"), t.pick(true));
    }
}
"""
    assert run(src, "f") == ["uint", "string", "bool"]


def test_overrides_and_overloads_across_inheritance(run: RunFn) -> None:
    src = """
contract A {
    function f(uint a) public virtual returns (string) { return "A.uint"; }
    function f(string a) public virtual returns (string) { return "A.string"; }
    function callBoth() public returns (string, string) { return (f(1), f("s")); }
}
contract C is A {
    function f(string a) public override returns (string) { return "C.string"; }
}
"""
    assert run(src, "callBoth") == ["A.uint", "C.string"]


def test_a_lone_override_with_other_type_spelling_still_overrides(run: RunFn) -> None:
    src = """
contract A {
    function f(uint a) public virtual returns (string) { return "A"; }
    function go() public returns (string) { return f(1); }
}
contract C is A {
    function f(int a) public override returns (string) { return "C"; }
}
"""
    assert run(src, "go") == ["C"]


@pytest.mark.parametrize(
    ("body", "line", "column", "text"),
    [
        ("f({q: 1});", 4, 25, "no overload of 'f' has the parameters (q)"),
        ("f({c: 1, c: 2});", 4, 25, "an argument is named twice"),
        ("f(1, 2, 3);", 4, 25, "function 'f' takes 1 or 2 arguments, 3 given"),
        ("k({x: 1, y: 2});", 4, 25, "no overload of 'k' with the parameters (x, y) accepts"),
    ],
)
def test_named_and_overload_errors(body: str, line: int, column: int, text: str) -> None:
    src = (
        "contract C {\n"
        "  function f(uint a, uint b) public {}\n  function f(uint c) public {}\n"
        f"  function g() public {{ {body} }}\n"
        "  function k(string x, bool y) public {}\n  function k(bool y, string x) public {}\n}"
    )
    with pytest.raises(CompileError) as info:
        compile_src(src)
    assert (info.value.line, info.value.column) == (line, column)
    assert text in info.value.message


def test_xabi_lists_every_overload() -> None:
    xabi = compile_src(OVERLOADS).contracts["C"].xabi
    add = xabi["funcs"]["addToNum"]
    selectors = [add["selector"]] + [o["selector"] for o in add["overloads"]]
    assert selectors == [
        "addToNum(uint256,uint256)",
        "addToNum(uint256,bool)",
        "addToNum(uint256,string)",
        "addToNum(uint256,string,uint256)",
    ]
