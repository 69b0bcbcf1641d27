"""Types: unbounded and fixed-width integers, bool, string, bytes, address, account, enums."""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ArgumentError, ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import ALICE, BOB, CAROL, ZERO, c, event_args, values


def fn(returns: str, body: str, params: str = "") -> str:
    """A contract C with one function ``f(params) returns (returns) { body }``."""
    return c(f"    function f({params}) public returns ({returns}) {{\n        {body}\n    }}")


# ---------------------------------------------------------------- integers

BIG = 2**300


@pytest.mark.parametrize(
    ("returns", "body", "expected"),
    [
        pytest.param("uint", "uint x = 2**300; return x;", str(BIG), id="2**300"),
        pytest.param("uint", "uint x = 2**256; return x + 1;", str(2**256 + 1), id="2**256+1"),
        pytest.param("uint", "uint a = 10**40; return a * a;", str(10**80), id="10**80"),
        pytest.param("int", "int a = -(2**200); return a * 3;", str(-3 * 2**200), id="neg-big"),
        pytest.param("uint8", "uint8 x = 255; x = x + 1; return x;", "256", id="uint8-unbounded"),
        pytest.param("int8", "int8 x = -128; x = x - 1; return x;", "-129", id="int8-unbounded"),
        pytest.param("uint", "uint x = 2**300; return x / 2**299;", "2", id="big-division"),
        pytest.param("uint", "uint x = 2**300 + 5; return x % 2**300;", "5", id="big-modulo"),
    ],
)
def test_solidvm_integers_are_unbounded(returns: str, body: str, expected: str, run: RunFn) -> None:
    assert run(fn(returns, body), "f") == [expected]


@pytest.mark.parametrize(
    ("returns", "body", "expected"),
    [
        pytest.param("uint8", "uint8 x = 255; x = x + 1; return x;", "0", id="uint8-add"),
        pytest.param("bool", "uint8 x = 255; return x + 1 == 0;", "true", id="uint8-compare"),
        pytest.param("uint8", "uint8 x = 255; x++; return x;", "0", id="uint8-increment"),
        pytest.param("uint8", "uint8 x = 0; x -= 1; return x;", "255", id="uint8-underflow"),
        pytest.param("int8", "int8 x = -128; x = x - 1; return x;", "127", id="int8-underflow"),
        pytest.param("int8", "int8 x = 127; x = x + 1; return x;", "-128", id="int8-overflow"),
        pytest.param(
            "uint", "uint x = 0; x = x - 1; return x;", str(2**256 - 1), id="uint256-underflow"
        ),
        pytest.param(
            "uint16", "uint16 x = 300; x = x * x; return x;", str(90000 % 65536), id="uint16-mul"
        ),
        pytest.param("uint8", "uint8 x = 0; x = ~x; return x;", "255", id="uint8-not"),
    ],
)
def test_evm_integers_wrap_around(returns: str, body: str, expected: str, run: RunFn) -> None:
    assert run(fn(returns, body), "f", vm="EVM") == [expected]


def test_evm_storage_wraps_too(deploy: DeployFn, call: CallFn, world: Any) -> None:
    src = c("    uint8 public small = 250;\n    function add(uint8 n) public { small += n; }")
    res = deploy(src, "C", vm="EVM")
    call(res.address, "add", {"n": 10})
    assert world.state(res.address)["small"] == "4"


# ---------------------------------------------------------------- bool


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("return !true;", "false"),
        ("bool a = true; bool b = false; return a && !b;", "true"),
        ("bool a; return a;", "false"),
        ("return true == true;", "true"),
        ("return true != false;", "true"),
    ],
)
def test_bool_values(body: str, expected: str, run: RunFn) -> None:
    assert run(fn("bool", body), "f") == [expected]


def test_bool_argument_and_state(deploy: DeployFn, call: CallFn, world: Any) -> None:
    src = c(
        "    bool public on;\n    function set(bool v) public returns (bool) { on = v; return !v; }"
    )
    res = deploy(src, "C")
    assert values(call(res.address, "set", {"v": True})) == ["false"]
    assert world.state(res.address)["on"] == "true"


# ---------------------------------------------------------------- strings


@pytest.mark.parametrize(
    ("returns", "body", "expected"),
    [
        ("string", 'return "foo" + "bar";', "foobar"),
        ("string", 'string a = "x"; string b = a + "-" + a; return b;', "x-x"),
        ("uint", 'string s = "hello"; return s.length;', "5"),
        ("uint", "string s; return s.length;", "0"),
        ("uint", 'return ("ab" + "cde").length;', "5"),
        ("bool", 'string a = "abc"; return a == "abc";', "true"),
        ("bool", 'string a = "abc"; return a != "abd";', "true"),
        ("string", 'string s = "line\\nnext"; return s;', "line\nnext"),
    ],
)
def test_strings(returns: str, body: str, expected: str, run: RunFn) -> None:
    assert run(fn(returns, body), "f") == [expected]


def test_string_state_concatenation(deploy: DeployFn, call: CallFn, world: Any) -> None:
    src = c(
        '    string public text = "a";\n'
        "    function add(string s) public returns (uint) { text = text + s; return text.length; }"
    )
    res = deploy(src, "C")
    assert values(call(res.address, "add", {"s": "bc"})) == ["3"]
    assert values(call(res.address, "add", {"s": "d"})) == ["4"]
    assert world.state(res.address)["text"] == "abcd"


# ---------------------------------------------------------------- bytes

HASH = "00" * 31 + "ff"
BYTES_SRC = c(
    """
    bytes public data;
    bytes32 public fixed32;
    function setData(bytes d) public returns (uint) { data = d; return d.length; }
    function echo32(bytes32 b) public returns (bytes32) { fixed32 = b; return b; }
    function echo(bytes b) public pure returns (bytes) { return b; }
    function literal() public pure returns (bytes) { return hex"00ff10"; }
    function zero32() public pure returns (bytes32) { bytes32 z; return z; }
"""
)


def test_bytes_argument_roundtrip(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(BYTES_SRC, "C")
    assert values(call(res.address, "setData", {"d": "deadbeef"})) == ["4"]
    assert values(call(res.address, "echo", {"b": "0a0b0c"})) == ["0a0b0c"]
    assert world.state(res.address)["data"] == "deadbeef"


def test_bytes32_argument_roundtrip(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(BYTES_SRC, "C")
    assert values(call(res.address, "echo32", {"b": HASH})) == [HASH]
    assert world.state(res.address)["fixed32"] == HASH


@pytest.mark.parametrize(("method", "expected"), [("literal", "00ff10"), ("zero32", "00" * 32)])
def test_bytes_literals_and_defaults(method: str, expected: str, run: RunFn) -> None:
    assert run(BYTES_SRC, method) == [expected]


# ---------------------------------------------------------------- address

ADDR_SRC = c(
    """
    address public stored;
    function set(address a) public returns (address) { stored = a; return stored; }
    function zero() public pure returns (address) { return address(0); }
    function me() public view returns (address) { return address(this); }
    function sender() public view returns (address) { return msg.sender; }
    function same(address a, address b) public pure returns (bool) { return a == b; }
    function literal() public pure returns (address) {
        return 0x00000000000000000000000000000000000000FF;
    }
"""
)


@pytest.mark.parametrize("given", [BOB, "0x" + BOB, BOB.upper()], ids=["bare", "0x", "upper"])
def test_address_argument_forms(given: str, deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(ADDR_SRC, "C")
    assert values(call(res.address, "set", {"a": given})) == [BOB]
    assert world.state(res.address)["stored"] == BOB


def test_address_builtins(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(ADDR_SRC, "C")
    assert values(call(res.address, "zero")) == [ZERO]
    assert values(call(res.address, "me")) == [res.address]
    assert values(call(res.address, "sender", sender=BOB)) == [BOB]
    assert values(call(res.address, "literal")) == ["0" * 38 + "ff"]
    assert values(call(res.address, "same", {"a": ALICE, "b": "0x" + ALICE})) == ["true"]
    assert values(call(res.address, "same", {"a": ALICE, "b": BOB})) == ["false"]


# ---------------------------------------------------------------- account

ACCOUNT_SRC = c(
    """
    account public acct;
    function plain(address a) public pure returns (account) { return account(a); }
    function onMain(address a) public pure returns (account) { return account(a, "main"); }
    function onSelf(address a) public view returns (account) { return account(a, "self"); }
    function chainOfPlain(address a) public view returns (uint) { return account(a).chainId; }
    function chainOfMain(address a) public view returns (uint) {
        return account(a, "main").chainId;
    }
    function chainOfSelf(address a) public view returns (uint) {
        return account(a, "self").chainId;
    }
    function back(address a) public pure returns (address) { return address(account(a, "main")); }
    function echo(account x) public pure returns (account) { return x; }
    function store(address a) public { acct = account(a, "main"); }
    function senderIs(address a) public view returns (bool) { return msg.sender == account(a); }
"""
)


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("plain", BOB),
        ("onMain", BOB + ":main"),
        ("onSelf", BOB + ":main"),
        ("chainOfPlain", "0"),
        ("chainOfMain", "0"),
        ("chainOfSelf", "0"),
        ("back", BOB),
    ],
)
def test_account_construction(method: str, expected: str, deploy: DeployFn, call: CallFn) -> None:
    res = deploy(ACCOUNT_SRC, "C")
    assert values(call(res.address, method, {"a": BOB})) == [expected]


@pytest.mark.parametrize("given", [BOB, BOB + ":main"])
def test_account_argument_roundtrip(given: str, deploy: DeployFn, call: CallFn) -> None:
    res = deploy(ACCOUNT_SRC, "C")
    assert values(call(res.address, "echo", {"x": given})) == [given]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("c0ffee", "c0ffee"), ("c0ffee:main", "c0ffee"), ("0xc0ffee:abc123", "c0ffee")],
)
def test_address_of_account_text_drops_the_chain(text: str, expected: str, run: RunFn) -> None:
    # address("addr:chain") reads the text as an account and keeps only the address part,
    # as the platform's address cast of a string did while accounts carried chains
    src = c(
        "    function f(string s) public pure returns (address, account) {\n"
        "        return (address(s), account(s));\n    }"
    )
    got = run(src, "f", {"s": text})
    assert got[0] == expected.rjust(40, "0")
    assert got[1].startswith(expected.rjust(40, "0"))


def test_account_state_and_comparison(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(ACCOUNT_SRC, "C")
    call(res.address, "store", {"a": CAROL})
    assert world.state(res.address)["acct"] == CAROL + ":main"
    assert values(call(res.address, "senderIs", {"a": ALICE})) == ["true"]
    assert values(call(res.address, "senderIs", {"a": BOB})) == ["false"]


# ---------------------------------------------------------------- enums

ENUM_SRC = c(
    """
    enum Color { Red, Green, Blue }
    Color public color = Color.Green;
    event Painted(Color c);
    function asUint() public view returns (uint) { return uint(color); }
    function fromUint(uint i) public pure returns (Color) { return Color(i); }
    function isGreen() public view returns (bool) { return color == Color.Green; }
    function castEquals() public pure returns (bool) { return Color(2) == Color.Blue; }
    function paint(Color newColor) public returns (Color) {
        color = newColor;
        emit Painted(newColor);
        return color;
    }
    function ordering() public pure returns (bool) { return uint(Color.Red) < uint(Color.Blue); }
"""
)


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("asUint", {}, "1"),
        ("fromUint", {"i": 2}, "2"),
        ("isGreen", {}, "true"),
        ("castEquals", {}, "true"),
        ("ordering", {}, "true"),
        ("color", {}, "1"),
    ],
)
def test_enum_operations(
    method: str, args: dict[str, Any], expected: str, deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(ENUM_SRC, "C")
    assert values(call(res.address, method, args)) == [expected]


@pytest.mark.parametrize("given", ["Blue", 2, "2"], ids=["name", "index", "index-string"])
def test_enum_arguments(given: Any, deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(ENUM_SRC, "C")
    out = call(res.address, "paint", {"newColor": given})
    assert values(out) == ["2"]
    assert world.state(res.address)["color"] == "2"
    assert [(e.name, event_args(e)) for e in out.events] == [("Painted", ["Color.Blue"])]


def test_enum_unknown_name_is_an_argument_error(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(ENUM_SRC, "C")
    with pytest.raises(ArgumentError) as info:
        call(res.address, "paint", {"newColor": "Purple"})
    assert "newColor" in info.value.message


def test_enum_cast_out_of_range_fails(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(ENUM_SRC, "C")
    with pytest.raises(ExecutionError):
        call(res.address, "fromUint", {"i": 7})
