"""JSON argument decoding: numbers, strings, nested arrays, structs, mappings, and mismatches."""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ArgumentError, ExecutionError

from .conftest import CallFn, DeployFn
from .helpers import BOB, c, values

ARGS = c(
    """
    struct Point { uint x; int y; }
    struct Line { Point a; Point b; string name; }
    function num(uint amount) public pure returns (uint) { return amount; }
    function signed(int delta) public pure returns (int) { return delta; }
    function flag(bool enabled) public pure returns (bool) { return !enabled; }
    function text(string label) public pure returns (string) { return label + "!"; }
    function list(uint[] items) public pure returns (uint, uint) {
        uint s;
        for (uint i = 0; i < items.length; i++) { s += items[i]; }
        return (items.length, s);
    }
    function fixedList(uint[3] triple) public pure returns (uint) {
        return triple[0] * 100 + triple[1] * 10 + triple[2];
    }
    function grid(uint[][] rows) public pure returns (uint, uint) {
        uint s;
        for (uint i = 0; i < rows.length; i++) {
            for (uint j = 0; j < rows[i].length; j++) { s += rows[i][j] * (i + 1); }
        }
        return (rows.length, s);
    }
    function words(string[] wordList) public pure returns (string) {
        string memory out = "";
        for (uint i = 0; i < wordList.length; i++) { out = out + wordList[i]; }
        return out;
    }
    function point(Point spot) public pure returns (int) { return int(spot.x) * 10 + spot.y; }
    function line(Line segment) public pure returns (string, int) {
        Line memory l = segment;
        return (l.name, int(l.a.x) + l.a.y + int(l.b.x) + l.b.y);
    }
    function points(Point[] pointList) public pure returns (uint) {
        uint s;
        for (uint i = 0; i < pointList.length; i++) { s += pointList[i].x; }
        return s;
    }
    function colors(mapping(string => uint) palette) public view returns (uint, uint) {
        return (palette["red"], palette["blue"]);
    }
    function addrs(address[] who) public pure returns (uint, address) {
        return (who.length, who[who.length - 1]);
    }
    function two(uint first, string second) public pure returns (string, uint) {
        return (second, first);
    }
"""
)


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("num", {"amount": 7}, ["7"]),
        ("num", {"amount": "7"}, ["7"]),
        ("num", {"amount": "123456789012345678901234567890"}, ["123456789012345678901234567890"]),
        ("num", {"amount": 2**70}, [str(2**70)]),
        ("signed", {"delta": -5}, ["-5"]),
        ("signed", {"delta": "-5"}, ["-5"]),
        ("flag", {"enabled": True}, ["false"]),
        ("flag", {"enabled": "false"}, ["true"]),
        ("text", {"label": "hey"}, ["hey!"]),
        ("text", {"label": ""}, ["!"]),
        ("list", {"items": [1, "2", 3]}, ["3", "6"]),
        ("list", {"items": []}, ["0", "0"]),
        ("fixedList", {"triple": [1, 2, 3]}, ["123"]),
        ("grid", {"rows": [[1, 2], [3], []]}, ["3", str(3 + 6)]),
        ("words", {"wordList": ["a", "b", "c"]}, ["abc"]),
        ("point", {"spot": {"x": 4, "y": -2}}, ["38"]),
        ("point", {"spot": {"x": "4", "y": "2"}}, ["42"]),
        (
            "line",
            {"segment": {"a": {"x": 1, "y": 2}, "b": {"x": 3, "y": 4}, "name": "diag"}},
            ["diag", "10"],
        ),
        ("points", {"pointList": [{"x": 1, "y": 0}, {"x": 5, "y": 0}]}, ["6"]),
        ("colors", {"palette": {"'red'": 5, "'blue'": 9}}, ["5", "9"]),
        ("addrs", {"who": [BOB, "0x" + "c3" * 20]}, ["2", "c3" * 20]),
        ("two", {"second": "s", "first": 1}, ["s", "1"]),
        ("two", {"first": 1, "second": "s", "extra": "ignored"}, ["s", "1"]),
    ],
)
def test_json_arguments_decode(
    method: str, args: dict[str, Any], expected: list[str], deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(ARGS, "C")
    assert values(call(res.address, method, args)) == expected


@pytest.mark.parametrize(
    ("method", "args", "param"),
    [
        ("num", {"amount": "abc"}, "amount"),
        ("num", {"amount": [1]}, "amount"),
        ("num", {"amount": {"x": 1}}, "amount"),
        ("num", {"amount": 1.5}, "amount"),
        ("signed", {"delta": "1e"}, "delta"),
        ("flag", {"enabled": "maybe"}, "enabled"),
        ("flag", {"enabled": 3}, "enabled"),
        ("text", {"label": ["x"]}, "label"),
        ("list", {"items": 5}, "items"),
        ("list", {"items": ["a"]}, "items"),
        ("fixedList", {"triple": [1, 2]}, "triple"),
        ("grid", {"rows": [1, 2]}, "rows"),
        ("point", {"spot": [1, 2]}, "spot"),
        ("point", {"spot": {"x": "one", "y": 2}}, "spot"),
        ("addrs", {"who": ["not-an-address"]}, "who"),
        ("addrs", {"who": ["12" * 21]}, "who"),
    ],
)
def test_json_argument_mismatch_names_parameter(
    method: str, args: dict[str, Any], param: str, deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(ARGS, "C")
    with pytest.raises(ArgumentError) as info:
        call(res.address, method, args)
    assert param in info.value.message


@pytest.mark.parametrize(
    ("method", "args", "missing"),
    [
        ("num", {}, "amount"),
        ("two", {"first": 1}, "second"),
        ("two", {"second": "x"}, "first"),
        ("point", {"place": {"x": 1, "y": 2}}, "spot"),
    ],
)
def test_missing_argument_is_an_error(
    method: str, args: dict[str, Any], missing: str, deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(ARGS, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, method, args)
    assert missing in info.value.message


def test_constructor_arguments_are_checked(deploy: DeployFn) -> None:
    src = c("    uint public n;\n    constructor(uint count) public { n = count; }")
    with pytest.raises(ArgumentError) as info:
        deploy(src, "C", {"count": "lots"})
    assert "count" in info.value.message
    with pytest.raises(ExecutionError) as missing:
        deploy(src, "C", {})
    assert "count" in missing.value.message


@pytest.mark.parametrize(
    ("value", "ok"),
    [("ab" * 32, True), ("0x" + "ab" * 32, True), ("ab" * 31, False), ("zz" * 32, False)],
)
def test_bytes32_argument_length(value: str, ok: bool, deploy: DeployFn, call: CallFn) -> None:
    src = c("    function f(bytes32 digest) public pure returns (bytes32) { return digest; }")
    res = deploy(src, "C")
    if ok:
        assert values(call(res.address, "f", {"digest": value})) == ["ab" * 32]
    else:
        with pytest.raises(ArgumentError) as info:
            call(res.address, "f", {"digest": value})
        assert "digest" in info.value.message


@pytest.mark.parametrize(
    ("vm", "value", "ok"),
    [("SolidVM", -1, False), ("SolidVM", 2**300, True), ("EVM", -1, False), ("EVM", 2**256, False)],
)
def test_unsigned_arguments_are_never_negative(
    vm: str, value: int, ok: bool, deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(c("    function f(uint n) public pure returns (uint) { return n; }"), "C", vm=vm)
    if ok:
        assert values(call(res.address, "f", {"n": str(value)})) == [str(value)]
        return
    with pytest.raises(ArgumentError) as info:
        call(res.address, "f", {"n": value})
    assert "argument 'n'" in info.value.message
