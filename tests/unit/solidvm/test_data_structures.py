"""Structs, mappings and arrays: nesting, storage references vs memory copies, push/pop/delete."""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import ALICE, BOB, c, values

# ---------------------------------------------------------------- structs

STRUCTS = c(
    """
    struct Point { uint x; uint y; }
    struct Segment { Point a; Point b; string label; }
    Point public p;
    Segment seg;
    Point[] public points;
    mapping(string => Point) public named;

    function setP(uint x, uint y) public { p = Point(x, y); }
    function memoryCopy() public returns (uint, uint) {
        Point memory q = p;
        q.x = 1000;
        return (q.x, p.x);
    }
    function storageRef() public returns (uint) {
        Point storage q = p;
        q.x = 77;
        return p.x;
    }
    function nested() public returns (uint) {
        seg = Segment(Point(1, 2), Point(3, 4), "s1");
        seg.b.y = 40;
        return seg.a.x + seg.a.y + seg.b.x + seg.b.y;
    }
    function pushPoints() public returns (uint) {
        points.push(Point(1, 1));
        points.push(Point({x: 2, y: 5}));
        points[0].y = 9;
        return points.length;
    }
    function sumPoints() public view returns (uint) {
        uint s;
        for (uint i = 0; i < points.length; i++) { s += points[i].x * points[i].y; }
        return s;
    }
    function putNamed(string k, uint x, uint y) public { named[k] = Point(x, y); }
    function namedX(string k) public view returns (uint) { return named[k].x; }
    function copyIntoArray() public returns (uint, uint) {
        Point memory m = Point(5, 6);
        points.push(m);
        m.x = 500;
        return (points[points.length - 1].x, m.x);
    }
    function assignStorageToStorage() public returns (uint) {
        p = Point(1, 2);
        Point memory saved = p;
        p.x = 3;
        return saved.x;
    }
    function returnStruct() public view returns (Point) { return p; }
    function deleteP() public { delete p; }
    function localDefault() public pure returns (uint, uint) {
        Point memory z;
        return (z.x, z.y);
    }
"""
)


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("memoryCopy", ["1000", "3"]),
        ("storageRef", ["77"]),
        ("assignStorageToStorage", ["1"]),
        ("localDefault", ["0", "0"]),
    ],
)
def test_struct_reference_semantics(
    method: str, expected: list[str], deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(STRUCTS, "C")
    call(res.address, "setP", {"x": 3, "y": 4})
    assert values(call(res.address, method)) == expected


def test_memory_copy_does_not_write_storage(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(STRUCTS, "C")
    call(res.address, "setP", {"x": 3, "y": 4})
    call(res.address, "memoryCopy")
    assert world.state(res.address)["p"] == {"x": "3", "y": "4"}
    call(res.address, "storageRef")
    assert world.state(res.address)["p"] == {"x": "77", "y": "4"}


def test_nested_struct(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(STRUCTS, "C")
    assert values(call(res.address, "nested")) == [str(1 + 2 + 3 + 40)]
    assert world.state(res.address)["seg"] == {
        "a": {"x": "1", "y": "2"},
        "b": {"x": "3", "y": "40"},
        "label": "s1",
    }


def test_structs_in_arrays(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(STRUCTS, "C")
    assert values(call(res.address, "pushPoints")) == ["2"]
    assert values(call(res.address, "sumPoints")) == [str(1 * 9 + 2 * 5)]
    assert world.state(res.address)["points"] == [{"x": "1", "y": "9"}, {"x": "2", "y": "5"}]
    assert values(call(res.address, "copyIntoArray")) == ["5", "500"]
    assert world.state(res.address)["points"][2] == {"x": "5", "y": "6"}


def test_structs_in_mappings(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(STRUCTS, "C")
    call(res.address, "putNamed", {"k": "home", "x": 8, "y": 9})
    assert values(call(res.address, "namedX", {"k": "home"})) == ["8"]
    assert values(call(res.address, "namedX", {"k": "away"})) == ["0"]
    assert world.state(res.address)["named"] == {"home": {"x": "8", "y": "9"}}


def test_struct_return_and_delete(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(STRUCTS, "C")
    call(res.address, "setP", {"x": 3, "y": 4})
    assert values(call(res.address, "returnStruct")) == [{"x": "3", "y": "4"}]
    call(res.address, "deleteP")
    assert values(call(res.address, "returnStruct")) == [{"x": "0", "y": "0"}]
    assert world.state(res.address).get("p", {"x": "0", "y": "0"}) == {"x": "0", "y": "0"}


# ---------------------------------------------------------------- mappings

MAPPINGS = c(
    """
    mapping(address => uint) public byAddress;
    mapping(string => uint) public byString;
    mapping(int => string) public byInt;
    mapping(bool => uint) public byBool;
    mapping(address => mapping(string => uint)) public nested;
    mapping(uint => uint[]) public lists;

    function fill() public {
        byAddress[msg.sender] = 1;
        byString["red"] = 2;
        byInt[-5] = "minus five";
        byBool[true] = 3;
        nested[msg.sender]["k"] = 4;
        lists[7].push(70);
        lists[7].push(71);
    }
    function readAll(address a) public view returns (uint, uint, string, uint, uint, uint) {
        return (byAddress[a], byString["red"], byInt[-5], byBool[true], nested[a]["k"],
                lists[7][1]);
    }
    function missing() public view returns (uint, string, uint, uint) {
        return (byString["blue"], byInt[5], byBool[false], nested[address(0)]["k"]);
    }
    function remove() public {
        delete byString["red"];
        delete nested[msg.sender]["k"];
    }
    function counter(string k) public returns (uint) {
        byString[k]++;
        byString[k] += 10;
        return byString[k];
    }
"""
)


def test_mapping_key_types(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(MAPPINGS, "C")
    call(res.address, "fill")
    assert values(call(res.address, "readAll", {"a": ALICE})) == [
        "1",
        "2",
        "minus five",
        "3",
        "4",
        "71",
    ]
    assert values(call(res.address, "readAll", {"a": BOB})) == [
        "0",
        "2",
        "minus five",
        "3",
        "0",
        "71",
    ]


def test_mapping_missing_keys_are_defaults(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(MAPPINGS, "C")
    call(res.address, "fill")
    assert values(call(res.address, "missing")) == ["0", "", "0", "0"]


def test_mapping_delete_and_compound_update(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(MAPPINGS, "C")
    call(res.address, "fill")
    call(res.address, "remove")
    assert values(call(res.address, "readAll", {"a": ALICE}))[1] == "0"
    assert values(call(res.address, "readAll", {"a": ALICE}))[4] == "0"
    assert values(call(res.address, "counter", {"k": "z"})) == ["11"]
    assert values(call(res.address, "counter", {"k": "z"})) == ["22"]


def test_mapping_state_encoding(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(MAPPINGS, "C")
    call(res.address, "fill")
    state = world.state(res.address)
    assert state["byAddress"] == {ALICE: "1"}
    assert state["byString"] == {"red": "2"}
    assert state["lists"] == {"7": ["70", "71"]}


# ---------------------------------------------------------------- arrays

ARRAYS = c(
    """
    uint[] public dyn;
    uint[3] public fixedArr;
    uint[] public lit = [5, 6, 7];
    string[] public words;

    function push3() public returns (uint) {
        dyn.push(10);
        dyn.push(20);
        dyn.push(30);
        return dyn.length;
    }
    function popOne() public returns (uint, uint) {
        dyn.pop();
        return (dyn.length, dyn[dyn.length - 1]);
    }
    function deleteElement() public returns (uint, uint) {
        delete dyn[0];
        return (dyn.length, dyn[0]);
    }
    function deleteAll() public returns (uint) { delete dyn; return dyn.length; }
    function fixedOps() public returns (uint, uint) {
        fixedArr[0] = 1;
        fixedArr[2] = 3;
        return (fixedArr.length, fixedArr[0] + fixedArr[1] + fixedArr[2]);
    }
    function memoryArray(uint n) public pure returns (uint, uint) {
        uint[] memory m = new uint[](n);
        m[n - 1] = 9;
        return (m.length, m[n - 1] + m[0]);
    }
    function literal() public pure returns (uint, uint) {
        uint[3] memory a = [uint(1), 2, 3];
        return (a.length, a[0] + a[1] + a[2]);
    }
    function returnArray() public view returns (uint[]) { return lit; }
    function sumLit() public view returns (uint) { return lit[0] + lit[1] + lit[2]; }
    function nested() public pure returns (uint) {
        uint[][] memory grid = new uint[][](2);
        grid[0] = new uint[](2);
        grid[1] = new uint[](3);
        grid[1][2] = 8;
        return grid[0].length + grid[1].length + grid[1][2];
    }
    function passByReference() public pure returns (uint) {
        uint[] memory m = new uint[](1);
        bump(m);
        return m[0];
    }
    function bump(uint[] memory m) internal pure { m[0] = 41; m[0]++; }
    function addWord(string w) public returns (uint) { words.push(w); return words.length; }
    function readOut(uint i) public view returns (uint) {
        uint[] memory m = dyn;  // memory arrays check bounds; storage ones read defaults
        return m[i];
    }
"""
)


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("push3", {}, ["3"]),
        ("fixedOps", {}, ["3", "4"]),
        ("memoryArray", {"n": 4}, ["4", "9"]),
        ("literal", {}, ["3", "6"]),
        ("returnArray", {}, [["5", "6", "7"]]),
        ("sumLit", {}, ["18"]),
        ("nested", {}, ["13"]),
        ("passByReference", {}, ["42"]),
    ],
)
def test_array_operations(
    method: str, args: dict[str, Any], expected: list[Any], deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(ARRAYS, "C")
    assert values(call(res.address, method, args)) == expected


def test_push_pop_delete_sequence(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(ARRAYS, "C")
    call(res.address, "push3")
    assert world.state(res.address)["dyn"] == ["10", "20", "30"]
    assert values(call(res.address, "popOne")) == ["2", "20"]
    assert values(call(res.address, "deleteElement")) == ["2", "0"]
    assert world.state(res.address)["dyn"] == ["0", "20"]
    assert values(call(res.address, "deleteAll")) == ["0"]
    assert world.state(res.address).get("dyn", []) == []


def test_string_array_push(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(ARRAYS, "C")
    call(res.address, "addWord", {"w": "alpha"})
    assert values(call(res.address, "addWord", {"w": "beta"})) == ["2"]
    assert world.state(res.address)["words"] == ["alpha", "beta"]


def test_fixed_array_state(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(ARRAYS, "C")
    call(res.address, "fixedOps")
    assert world.state(res.address)["fixedArr"] == ["1", "0", "3"]
    assert world.state(res.address)["lit"] == ["5", "6", "7"]


@pytest.mark.parametrize(
    ("setup", "method", "args", "index", "length"),
    [
        ([], "readOut", {"i": 0}, 0, 0),
        (["push3"], "readOut", {"i": 3}, 3, 3),
        (["push3"], "readOut", {"i": 10}, 10, 3),
    ],
)
def test_index_out_of_bounds_message(
    setup: list[str],
    method: str,
    args: dict[str, Any],
    index: int,
    length: int,
    deploy: DeployFn,
    call: CallFn,
) -> None:
    res = deploy(ARRAYS, "C")
    for m in setup:
        call(res.address, m)
    with pytest.raises(ExecutionError) as info:
        call(res.address, method, args)
    assert info.value.message == (
        f"index out of bounds: index value was {index}, but the array length was {length}"
    )


def test_fixed_array_out_of_bounds(run: RunFn) -> None:
    src = c("    function f(uint i) public pure returns (uint) { uint[2] memory a; return a[i]; }")
    assert run(src, "f", {"i": 1}) == ["0"]
    with pytest.raises(ExecutionError) as info:
        run(src, "f", {"i": 2})
    assert "index out of bounds" in info.value.message


def test_pop_on_empty_array_fails(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(ARRAYS, "C")
    with pytest.raises(ExecutionError):
        call(res.address, "popOne")
