"""Public getters with fewer keys than the full path, singleton tuples, implicit returns.

Platform facts (strato/VM/SolidVM/solid-vm/src/Blockchain/SolidVM.hs, ``call'``): a getter called
with fewer keys returns what that shorter storage path holds (``p.x()[0]`` works, spec "can index
access a contract array from the builtin getter"); the parser turns ``(e)`` into ``e`` and
``var (z) = 247`` into a plain declaration ("can parse a singleton tuple"); a function that ends
without ``return`` answers only its named return values (``runTheCallWithVars``).
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm import compile_source
from app.node.solidvm.errors import CompileError, ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import c, values

GETTERS = """
contract Store {
    uint[] public items;
    uint[][] public grid;
    mapping(string => uint[]) public lists;
    mapping(uint => mapping(uint => uint)) public table;
    struct Pair { uint a; string b; }
    Pair[] public pairs;
    constructor() public {
        items.push(10);
        items.push(20);
        grid.push([uint(1), 2]);
        grid.push([uint(3), 4]);
        lists["k"].push(7);
        table[1][2] = 12;
        pairs.push(Pair(5, "five"));
    }
}
contract Reader {
    Store s;
    constructor(address a) public { s = Store(a); }
    function first() public view returns (uint) { return s.items()[0]; }
    function count() public view returns (uint) { return s.items().length; }
    function all() public view returns (uint[]) { return s.items(); }
    function row(uint i) public view returns (uint[]) { return s.grid(i); }
    function cell() public view returns (uint) { return s.grid(1, 0); }
    function list() public view returns (uint) { return s.lists("k")[0]; }
}
"""


@pytest.fixture
def store(deploy: DeployFn) -> str:
    return str(deploy(GETTERS, "Store").address)


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("items", {}, [["10", "20"]]),
        ("items", {"index": 1}, ["20"]),
        ("items", {"index": 9}, ["0"]),  # storage reads past the end give the default
        ("grid", {}, [[["1", "2"], ["3", "4"]]]),
        ("grid", {"index": 1}, [["3", "4"]]),
        ("grid", {"index": 1, "index1": 1}, ["4"]),
        ("lists", {}, [{"k": ["7"]}]),
        ("lists", {"key": "k"}, [["7"]]),
        ("table", {"key": 1}, [{"2": "12"}]),
        ("table", {"key": 1, "key1": 2}, ["12"]),
        ("pairs", {}, [[{"a": "5", "b": "five"}]]),
        ("pairs", {"index": 0}, ["5", "five"]),
    ],
)
def test_getter_with_fewer_keys_answers_the_container(
    method: str, args: dict[str, Any], expected: list[Any], store: str, call: CallFn
) -> None:
    assert values(call(store, method, args)) == expected


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("first", {}, ["10"]),
        ("count", {}, ["2"]),
        ("all", {}, [["10", "20"]]),
        ("row", {"i": 0}, [["1", "2"]]),
        ("cell", {}, ["3"]),
        ("list", {}, ["7"]),
    ],
)
def test_getter_without_index_from_another_contract(
    method: str,
    args: dict[str, Any],
    expected: list[Any],
    store: str,
    deploy: DeployFn,
    call: CallFn,
) -> None:
    reader = deploy(GETTERS, "Reader", {"a": store})
    assert values(call(reader.address, method, args)) == expected


def test_whole_array_getter_is_not_a_number() -> None:
    src = GETTERS + c("    function f(Store s) public returns (uint) { uint b = s.items(); }", "D")
    with pytest.raises(CompileError) as info:
        compile_source(src)
    assert "uint256[] is not implicitly convertible to uint256" in info.value.message
    assert info.value.message.startswith("line 30, column 58: ")


def test_getter_shapes_stay_out_of_the_xabi() -> None:
    xabi = compile_source(GETTERS).contracts["Store"].xabi
    assert "items" not in xabi["funcs"]
    assert xabi["vars"]["items"]["public"] is True


# ---------------------------------------------------------------- singleton tuples

TUPLES = c(
    """
    function one() public pure returns (uint) { return (7); }
    function two() public pure returns (uint, uint) { return (1, 2); }
    function typed() public pure returns (uint) { (uint x) = one(); return x; }
    function untyped() public pure returns (uint) { var (z) = 247; return z; }
    function parens() public pure returns (uint) { uint x; (x) = one(); return x; }
    function trailing() public pure returns (uint) { (uint x, ) = two(); return x; }
    function leading() public pure returns (uint) { var (_, y) = two(); return y; }
    function swap() public pure returns (uint, uint) {
        uint a = 1;
        uint b = 2;
        (a, b) = (b, a);
        return (a, b);
    }
    function named() public pure returns (uint r) { (r) = (9); }
"""
)


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("one", ["7"]),
        ("typed", ["7"]),
        ("untyped", ["247"]),
        ("parens", ["7"]),
        ("trailing", ["1"]),
        ("leading", ["2"]),
        ("swap", ["2", "1"]),
        ("named", ["9"]),
    ],
)
def test_singleton_tuples(method: str, expected: list[str], run: RunFn) -> None:
    assert run(TUPLES, method) == expected


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("(uint x, uint y) = one(); return x;", "line 4, column 47: expected 2 values, got one"),
        ("uint x = two(); return x;", "expected 1 value, got a tuple of 2 components"),
        ("return (1, 2);", "line 4, column 54: function returns 1 value, 2 given"),
        ("(uint x, uint y, uint z) = two(); return x;", "tuple has 2 components but 3 are"),
        ("uint a; uint b; (a, b) = one(); return a;", "cannot assign 1 value to 2 targets"),
        ("(uint a, ) = one(); return a;", "expected 2 values, got one uint256"),
    ],
)
def test_tuple_arity_mismatch_is_a_compile_error(body: str, message: str) -> None:
    src = c(
        "    function one() public pure returns (uint) { return 1; }\n"
        "    function two() public pure returns (uint, uint) { return (1, 2); }\n"
        f"    function f() public pure returns (uint) {{ {body} }}"
    )
    with pytest.raises(CompileError) as info:
        compile_source(src)
    assert message in info.value.message


def test_returning_one_value_where_two_are_declared() -> None:
    src = c("    function f() public pure returns (uint, uint) { return 1; }")
    with pytest.raises(CompileError) as info:
        compile_source(src)
    assert info.value.message == "line 2, column 60: function returns 2 values, 1 given"


# ---------------------------------------------------------------- implicit returns

IMPLICIT = """
library L {
    function f(uint a) internal pure returns (uint) { if (a > 1) { return a; } }
    function g(uint a) internal pure returns (uint r) { if (a > 1) { r = a; } }
}
contract C {
    function none() public pure returns (uint, string) { }
    function bare() public pure returns (uint) { return; }
    function named() public pure returns (uint a, string b) { a = 3; }
    function mixed() public pure returns (uint a, uint) { a = 4; }
    function inner() public pure returns (uint, string) {
        (uint x, string s) = none();
        return (x + 1, s);
    }
    function lib(uint a) public pure returns (uint) { return L.f(a); }
    function libNamed(uint a) public pure returns (uint) { return L.g(a); }
}
"""


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("none", {}, []),  # unnamed values: the platform answers none
        ("bare", {}, []),
        ("named", {}, ["3", ""]),
        ("mixed", {}, ["4"]),
        ("inner", {}, ["1", ""]),  # internal callers see the defaults
        ("lib", {"a": 5}, ["5"]),
        ("libNamed", {"a": 0}, ["0"]),
    ],
)
def test_function_without_return(
    method: str, args: dict[str, Any], expected: list[str], deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(IMPLICIT, "C")
    assert values(call(res.address, method, args)) == expected


def test_library_function_must_return_its_unnamed_value(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(IMPLICIT, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "lib", {"a": 0})
    assert info.value.message == "type error: Library function 'f' must return a value"
