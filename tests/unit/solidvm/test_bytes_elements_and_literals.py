"""Forms of the platform's contract library: bytestring elements, `[]`, locals named like a
return value."""

from __future__ import annotations

import pytest

from app.node.solidvm.errors import ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import c

HEXER = c(
    """
    bytes public stored = hex"00ff";
    function toHex(uint x) internal pure returns (uint) {
        uint y = x & 0xf;
        if (y >= 0xa) { y += 0x27; }
        return y + 0x30;
    }
    function b16(bytes b) public pure returns (string) {
        bytes dst = new bytes(2 * b.length);
        for (uint i = 0; i < b.length; i++) {
            dst[2 * i] = toHex((b[i] >> 4) & 0xf);
            dst[2 * i + 1] = toHex(b[i] & 0xf);
        }
        return string(dst);
    }
    function first(bytes b) public pure returns (uint) { return b[0]; }
    function poke(uint i, uint v) public returns (bytes) { stored[i] = v; return stored; }
    function outside() public pure { bytes b = new bytes(1); b[3] = 1; }
"""
)


def test_bytes_elements_read_and_write_integers(run: RunFn) -> None:
    assert run(HEXER, "b16", {"b": "1aff"}) == ["1aff"]
    assert run(HEXER, "first", {"b": "7f00"}) == ["127"]


def test_writing_a_stored_bytestring_element_persists(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(HEXER, "C").address
    assert call(addr, "poke", {"i": 0, "v": 0x141}).values == ["41ff"]  # v & 0xff
    assert call(addr, "stored").values == ["41ff"]


def test_writing_outside_a_bytestring_is_an_invalid_write(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(HEXER, "C").address
    with pytest.raises(ExecutionError, match="outside the allocated space for a bytestring"):
        call(addr, "outside")


LISTS = c(
    """
    string[] public names;
    function set(string[] xs) public returns (uint) { names = xs; return names.length; }
    function clear() public returns (uint) { return set([]); }
    function covered(uint amount) public pure returns (uint covered) {
        uint covered = amount;
        if (covered > 10) covered = 10;
        return covered;
    }
"""
)


def test_an_empty_array_literal_takes_the_type_it_is_given(run: RunFn) -> None:
    assert run(LISTS, "clear") == ["0"]


def test_a_local_may_reuse_a_named_return_value(run: RunFn) -> None:
    assert run(LISTS, "covered", {"amount": 25}) == ["10"]
    assert run(LISTS, "covered", {"amount": 3}) == ["3"]


TUPLES = c(
    """
    function g() public pure returns (uint, uint, uint, uint) { return (1, 2, 3, 4); }
    function f() public pure returns (uint) {
        (,, uint x,) = g();
        (uint p, , , uint q) = g();
        return 100 * x + 10 * p + q;
    }
"""
)


def test_skipped_components_of_a_tuple_declaration_count_each_comma(run: RunFn) -> None:
    assert run(TUPLES, "f") == ["314"]
