"""Storage references into mappings and arrays; SolidVM's rules for storage and memory arrays.

Platform facts (SolidVM.hs ``expToVar'``/``runStatement``, SetGet.hs, Builtins.hs ``push``): a
storage array element is a storage path, read or written at any index; a read past the end finds
the default (spec "can array index with uninitialized numbers"), a write past the end stores the
element without touching ``length`` (spec "can assign directly to index of an array"); a memory
array refuses writes outside its length ("Cannot assign a value outside the allocated space for
an array", spec "can't assign a value to an unallocated index in an array") and reads outside it
("index out of bounds"). A local bound to a storage place is a reference to it.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import CompileError, ExecutionError
from app.node.solidvm.persist import dump_value, load_value

from .conftest import CallFn, DeployFn
from .helpers import c, compile_src, values

REFS = c(
    """
    struct S { uint f; uint[] list; mapping(uint => uint) inner; }
    struct P { uint x; uint y; }
    mapping(uint => S) m;
    mapping(uint => mapping(uint => P)) mm;
    mapping(uint => P[]) mp;
    mapping(string => uint[]) public lists;
    S[] arr;

    function pushThroughRef(string k, uint v) public returns (uint) {
        uint[] storage r = lists[k];
        r.push(v);
        return lists[k].length;
    }
    function pushThroughPlainLocal(string k, uint v) public returns (uint) {
        uint[] r = lists[k];  // no location: still a reference to storage
        r.push(v);
        return lists[k].length;
    }
    function structRef() public returns (uint, uint, uint) {
        S storage s = m[1];
        s.f = 1;
        s.list.push(4);
        s.inner[2] = 3;
        return (m[1].f, m[1].list[0], m[1].inner[2]);
    }
    function nestedRef() public returns (uint) {
        P storage p = mm[1][2];
        p.x = 9;
        return mm[1][2].x;
    }
    function arrayOfStructsRef() public returns (uint) {
        P[] storage ps = mp[5];
        ps.push(P(1, 2));
        P storage q = ps[0];
        q.y = 7;
        return mp[5][0].y;
    }
    function refToRef() public returns (uint) {
        uint[] storage r = lists["a"];
        uint[] storage r2 = r;
        r2.push(2);
        return lists["a"].length;
    }
    function memoryCopy() public returns (uint, uint) {
        mm[3][3].x = 5;
        P memory p = mm[3][3];
        p.x = 100;
        return (p.x, mm[3][3].x);
    }
    function readThroughRef() public view returns (uint) {
        P storage p = mm[7][8];
        return p.x;
    }
    function mY(uint k) public view returns (uint) { return mp[k].length; }
"""
)


@pytest.fixture
def refs(deploy: DeployFn) -> str:
    return str(deploy(REFS, "C").address)


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("pushThroughRef", {"k": "x", "v": 4}, ["1"]),
        ("pushThroughPlainLocal", {"k": "x", "v": 4}, ["1"]),
        ("structRef", {}, ["1", "4", "3"]),
        ("nestedRef", {}, ["9"]),
        ("arrayOfStructsRef", {}, ["7"]),
        ("refToRef", {}, ["1"]),
        ("memoryCopy", {}, ["100", "5"]),
        ("readThroughRef", {}, ["0"]),
    ],
)
def test_references_into_storage(
    method: str, args: dict[str, Any], expected: list[str], refs: str, call: CallFn
) -> None:
    assert values(call(refs, method, args)) == expected


def test_pushes_through_a_reference_persist(refs: str, call: CallFn, world: Any) -> None:
    call(refs, "pushThroughRef", {"k": "x", "v": 4})
    call(refs, "pushThroughRef", {"k": "x", "v": 5})
    assert values(call(refs, "lists", {"key": "x"})) == [["4", "5"]]
    assert world.state(refs)["lists"] == {"x": ["4", "5"]}
    call(refs, "structRef")
    assert world.state(refs)["m"] == {"1": {"f": "1", "list": ["4"], "inner": {"2": "3"}}}


def test_reading_through_a_reference_leaves_no_entry(refs: str, call: CallFn, world: Any) -> None:
    call(refs, "readThroughRef")
    assert world.state(refs)["mm"] == {}  # a default entry reads as absent, as in SolidVM


def test_failed_call_undoes_writes_through_references(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    boom = '    function boom() public { structRef(); require(false, "no"); }\n'
    res = deploy(REFS.replace("    function mY(", boom + "    function mY("), "C")
    with pytest.raises(ExecutionError):
        call(res.address, "boom")
    assert world.state(res.address)["m"] == {}


# ---------------------------------------------------------------- storage arrays

ARRAYS = c(
    """
    uint[] public xs;
    struct P { uint x; }
    P[] ps;
    function write(uint i, uint v) public { xs[i] = v; }
    function read(uint i) public view returns (uint) { return xs[i]; }
    function len() public view returns (uint) { return xs.length; }
    function grow(uint n) public { xs.length = n; }
    function add(uint v) public returns (uint) { xs.push(v); return xs.length; }
    function bump(uint i) public returns (uint) { xs[i] += 2; return xs[i]; }
    function structBeyond() public returns (uint, uint) {
        ps[3].x = 4;
        return (ps[3].x, ps.length);
    }
    function uninitialised() public view returns (uint) { uint idx; return xs[idx]; }
    function memoryWrite(uint i) public pure returns (uint) {
        uint[] memory a = new uint[](1);
        a[i] = 1;
        return a[i];
    }
    function localWrite() public pure returns (uint) { uint[] x; x[0] = 1; return x[0]; }
    function memoryRead(uint i) public pure returns (uint) {
        uint[] memory a = new uint[](2);
        return a[i];
    }
    function failAfterWrite() public { xs[8] = 1; require(false, "late"); }
"""
)


@pytest.fixture
def arrays(deploy: DeployFn) -> str:
    return str(deploy(ARRAYS, "C").address)


def test_read_past_the_end_of_a_storage_array_is_the_default(arrays: str, call: CallFn) -> None:
    assert values(call(arrays, "read", {"i": 10})) == ["0"]
    assert values(call(arrays, "uninitialised")) == ["0"]


def test_write_past_the_end_keeps_the_length(arrays: str, call: CallFn, world: Any) -> None:
    call(arrays, "write", {"i": 5, "v": 3})
    assert values(call(arrays, "read", {"i": 5})) == ["3"]
    assert values(call(arrays, "len")) == ["0"]
    assert values(call(arrays, "xs", {"index": 5})) == ["3"]
    assert world.state(arrays)["xs"] == []


def test_push_overwrites_what_was_written_at_its_index(arrays: str, call: CallFn) -> None:
    call(arrays, "write", {"i": 0, "v": 9})
    call(arrays, "write", {"i": 3, "v": 7})
    assert values(call(arrays, "add", {"v": 1})) == ["1"]
    assert values(call(arrays, "read", {"i": 0})) == ["1"]
    assert values(call(arrays, "read", {"i": 3})) == ["7"]


def test_growing_the_length_reveals_elements_written_past_the_end(
    arrays: str, call: CallFn, world: Any
) -> None:
    call(arrays, "write", {"i": 2, "v": 8})
    call(arrays, "grow", {"n": 3})
    assert world.state(arrays)["xs"] == ["0", "0", "8"]


def test_compound_assignment_and_structs_past_the_end(arrays: str, call: CallFn) -> None:
    assert values(call(arrays, "bump", {"i": 9})) == ["2"]
    assert values(call(arrays, "structBeyond")) == ["4", "0"]


def test_failed_call_undoes_writes_past_the_end(arrays: str, call: CallFn) -> None:
    with pytest.raises(ExecutionError):
        call(arrays, "failAfterWrite")
    assert values(call(arrays, "read", {"i": 8})) == ["0"]


@pytest.mark.parametrize(
    ("method", "args", "message"),
    [
        (
            "memoryWrite",
            {"i": 3},
            "invalid write: Cannot assign a value outside the allocated space for an array "
            "(index 3, length 1)",
        ),
        (
            "localWrite",
            {},
            "invalid write: Cannot assign a value outside the allocated space for an array "
            "(index 0, length 0)",
        ),
        (
            "memoryRead",
            {"i": 2},
            "index out of bounds: index value was 2, but the array length was 2",
        ),
    ],
)
def test_memory_arrays_keep_their_bounds(
    method: str, args: dict[str, Any], message: str, arrays: str, call: CallFn
) -> None:
    with pytest.raises(ExecutionError) as info:
        call(arrays, method, args)
    assert info.value.message == message


def test_a_bool_array_index_is_a_compile_error() -> None:
    # the platform's typechecker refuses it; the run-time check stays for untyped values
    src = c(
        "function f() public pure returns (uint) { uint[] memory a = new uint[](2); "
        "return a[true]; }"
    )
    with pytest.raises(CompileError, match="an array index must be an integer, not bool"):
        compile_src(src)


def test_elements_past_the_end_survive_persistence(arrays: str, call: CallFn, world: Any) -> None:
    call(arrays, "add", {"v": 1})
    call(arrays, "write", {"i": 4, "v": 6})
    acct = world.get_account(arrays)
    sv = acct.cdef.svars["xs"]
    stored = dump_value(acct.storage["xs"], sv.type)
    assert stored == {"items": [1], "beyond": [[4, 6]]}
    back = load_value(stored, sv.type)
    assert list(back) == [1] and back.beyond == {4: 6}
    assert load_value([1, 2], sv.type).beyond is None  # the older form still loads


def test_huge_index_write_costs_no_memory(arrays: str, call: CallFn) -> None:
    call(arrays, "write", {"i": 10**30, "v": 1})
    assert values(call(arrays, "read", {"i": 10**30})) == ["1"]
    assert values(call(arrays, "len")) == ["0"]
