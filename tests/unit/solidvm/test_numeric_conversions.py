"""Numeric odds and ends as SolidVM has them: ``>>>`` (the value taken as an unsigned 256-bit word,
then shifted), integers from bytes, ``uint(string)`` (hex unless base 10 is asked for) and hex
literals assigned to strings."""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import CompileError, ExecutionError, ParseError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import c, compile_src, values

MASK = 2**256


def fn(returns: str, body: str, params: str = "") -> str:
    return c(f"    function f({params}) public returns ({returns}) {{\n        {body}\n    }}")


# ---------------------------------------------------------------- shifts


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param("return 16 >>> 2;", 4, id="positive"),
        pytest.param("int x = -1; return x >>> 252;", 15, id="negative-as-unsigned"),
        pytest.param("int x = -16; return x >>> 0;", MASK - 16, id="negative-no-shift"),
        pytest.param("uint x = 2**256 + 5; return int(x >>> 0);", 5, id="wider-than-256-bits"),
        pytest.param("int x = -16; x >>>= 250; return x;", (MASK - 16) >> 250, id="compound"),
        pytest.param("int x = -16; return x >> 2;", -4, id="arithmetic-shift"),
        pytest.param("return 1 << 300;", 2**300, id="left-shift-unbounded"),
    ],
)
def test_shifts(body: str, expected: int, run: RunFn) -> None:
    assert run(fn("int", body), "f") == [str(expected)]


def test_negative_shift_amount_is_a_type_error(run: RunFn) -> None:
    with pytest.raises(ExecutionError) as info:
        run(fn("int", "int n = -1; return 8 >>> n;"), "f")
    assert info.value.kind == "type error"
    assert "negative shift amount" in info.value.message


# ---------------------------------------------------------------- integers from bytes


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param('return uint(hex"0102");', 258, id="uint(bytes)"),
        pytest.param('return uint(int(hex"ff"));', 255, id="int(bytes)-unsigned"),
        pytest.param("bytes32 b = bytes32(uint(7)); return uint(b);", 7, id="uint(bytes32)"),
        pytest.param('bytes4 b = bytes4(hex"00000100"); return uint(b);', 256, id="uint(bytes4)"),
        pytest.param("bytes memory b; return uint(b);", 0, id="empty-bytes"),
        # text kept in a bytes variable is SolidVM's string, read as hex like uint("7f")
        pytest.param('bytes memory b = "7f"; return uint(b);', 127, id="text-in-bytes"),
        pytest.param('bytes32 b = "0x10"; return uint(b);', 16, id="text-in-bytes32"),
    ],
)
def test_integers_from_bytes(body: str, expected: int, run: RunFn) -> None:
    assert run(fn("uint", body), "f") == [str(expected)]


# ---------------------------------------------------------------- integers from strings

PARSE = c(
    """
    function hex(string s) public pure returns (uint) { return uint(s); }
    function base(string s, uint b) public pure returns (int) { return int(s, b); }
    """
)


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        pytest.param("hex", {"s": "ff"}, 255, id="hex-by-default"),
        pytest.param("hex", {"s": "123"}, 0x123, id="digits-are-hex-too"),
        pytest.param("hex", {"s": "0x1F"}, 31, id="0x-prefix"),
        pytest.param("hex", {"s": "abc"}, 0xABC, id="odd-digit-count"),
        pytest.param("hex", {"s": ""}, 0, id="empty"),
        pytest.param("base", {"s": "123", "b": 10}, 123, id="base-10"),
        pytest.param("base", {"s": " -42 ", "b": 10}, -42, id="base-10-negative"),
        pytest.param("base", {"s": "ff", "b": 16}, 255, id="base-16"),
        pytest.param("base", {"s": "0x10", "b": 16}, 16, id="base-16-prefix"),
    ],
)
def test_uint_from_string(
    method: str, args: dict[str, Any], expected: int, deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(PARSE, "C")
    assert values(call(res.address, method, args)) == [str(expected)]


@pytest.mark.parametrize(
    ("method", "args", "message"),
    [
        pytest.param("hex", {"s": "xyz"}, "numeric cast - not a hex string", id="not-hex"),
        pytest.param("hex", {"s": "-5"}, "numeric cast - not a hex string", id="no-sign-in-hex"),
        pytest.param("hex", {"s": "0X1f"}, "numeric cast - not a hex string", id="upper-0X"),
        pytest.param("base", {"s": "12a", "b": 10}, "in base 10", id="not-decimal"),
        pytest.param("base", {"s": "", "b": 10}, "in base 10", id="empty-decimal"),
        pytest.param("base", {"s": "17", "b": 8}, "only 10 or 16", id="other-base"),
    ],
)
def test_bad_strings_are_type_errors(
    method: str, args: dict[str, Any], message: str, deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(PARSE, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, method, args)
    assert info.value.kind == "type error"
    assert message in info.value.message


@pytest.mark.parametrize(
    ("body", "needle", "message"),
    [
        pytest.param("return uint(5, 10);", "5,", "reads a string, not uint", id="not-a-string"),
        pytest.param('return uint("5", "10");', '"10"', "base must be an integer", id="base"),
        pytest.param('return uint("5", 10, 2);', "uint(", "takes one argument", id="three"),
    ],
)
def test_conversion_compile_errors(body: str, needle: str, message: str) -> None:
    src = fn("uint", body)
    with pytest.raises(CompileError) as info:
        compile_src(src)
    assert message in info.value.detail
    pos = src.index(needle)
    assert info.value.line == src.count("\n", 0, pos) + 1
    assert info.value.column == pos - src.rfind("\n", 0, pos)


# ---------------------------------------------------------------- hex literals as strings

HEXSTR = c(
    """
    string public greeting = hex"68656c6c6f";
    string public abc;
    bytes public raw = hex"00ff";
    constructor() { abc = hex'414243'; }
    function both() public view returns (string, uint, string) {
        return (greeting, bytes(abc).length, abc + "!");
    }
    """
)


def test_hex_literals_assigned_to_strings(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(HEXSTR, "C")
    assert values(call(res.address, "both")) == ["hello", "3", "ABC!"]
    state = world.state(res.address)
    assert state["greeting"] == "hello"
    assert state["abc"] == "ABC"
    assert state["raw"] == "00ff"


def test_hex_literal_that_is_not_utf8_becomes_one_character_per_byte(run: RunFn) -> None:
    # The platform reads such bytes as UTF-8 when they are, else as one character per byte
    # (its getString fallback), so hex"e9" is "é" (U+00E9) and keeps both bytes when stored.
    src = fn("string, uint", 'string s = hex"e941"; return (s, bytes(s).length);')
    assert run(src, "f") == ["\u00e9A", "3"]


def test_odd_hex_literal_is_a_parse_error() -> None:
    with pytest.raises(ParseError) as info:
        compile_src(c('string s = hex"414";'))
    assert "even number of digits" in info.value.detail
    assert (info.value.line, info.value.column) == (2, 12)


# ---------------------------------------------------------------- integer division


@pytest.mark.parametrize(
    ("body", "vm", "expected"),
    [
        pytest.param("int a = -7; a /= 2; return a;", "SolidVM", "-4", id="compound-floors"),
        pytest.param("int a = -7; return a / 2 * 2 + a % 2;", "SolidVM", "-9", id="div-and-rem"),
        pytest.param("int a = -7; return a / 2;", "EVM", "-3", id="evm-truncates"),
    ],
)
def test_integer_division_rounds_down(body: str, vm: str, expected: str, run: RunFn) -> None:
    assert run(fn("int", body), "f", vm=vm) == [expected]
