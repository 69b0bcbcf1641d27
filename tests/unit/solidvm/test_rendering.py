"""Values as the platform renders them: bytes that hold text show as text, raw bytes as hex.

Platform facts: a string assigned to a bytes type stays a string (Value.hs ``coerceType``) and is
stored as a string (SetGet.hs ``toBasic``, Storable.hs ``BString``); casts, hashes and ``hex``
literals make raw bytes (``SBytes``/``BBytes``), which the bloc API shows as hex
(SolidityVarReader.hs ``svmToSol``) and Cirrus too (``formatBasicValueForSQL``). A mapping entry
holding the default is absent from storage.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.persist import dump_value, load_value
from app.node.solidvm.values import TextBytes

from .conftest import CallFn, DeployFn, RunFn
from .helpers import c, values

BYTES = c(
    """
    bytes32 public greeting = "hello";
    bytes public note = 'ab';
    bytes32 public raw;
    bytes public data = hex"00ff";
    mapping(bytes32 => uint) public byKey;
    mapping(address => bool) public members;
    event Saw(bytes32 text, bytes32 digest);

    function results() public returns (bytes32, bytes32, bytes, bytes32, bytes32) {
        raw = bytes32(uint(65));
        return (greeting, bytes32("hello"), bytes("hi"), keccak256(note), raw);
    }
    function local() public pure returns (bytes32, uint, string) {
        bytes32 x = "abc";
        return (x, x.length, string(x));
    }
    function param(bytes32 b) public pure returns (bytes32) { return b; }
    function key() public returns (uint) {
        byKey["k1"] = 5;
        return byKey[bytes32("k1")];
    }
    function joined() public pure returns (bytes) {
        bytes memory a = "ab";
        bytes memory b = "cd";
        return a + b;
    }
    function emitIt() public { emit Saw(greeting, sha256(note)); }
    function toggle(address a, bool on) public { members[a] = on; }
    function unset() public pure returns (bytes32) { bytes32 z; return z; }
"""
)


@pytest.fixture
def contract(deploy: DeployFn) -> str:
    return str(deploy(BYTES, "C").address)


def test_call_results(contract: str, call: CallFn) -> None:
    got = values(call(contract, "results"))
    assert got[0] == "hello"  # text assigned to bytes32: text, no padding
    assert got[1] == "68656c6c6f"  # bytes32("hello") is a cast: raw bytes, unpadded
    assert got[2] == "6869"
    assert len(got[3]) == 64  # a hash: hex
    assert got[4] == "00" * 31 + "41"


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("local", {}, ["abc", "3", "abc"]),
        ("param", {"b": "11" * 32}, ["11" * 32]),  # hex in, hex out
        ("key", {}, ["5"]),  # text and cast keys find the same entry
        ("joined", {}, ["abcd"]),
        ("unset", {}, ["00" * 32]),
    ],
)
def test_bytes_values(
    method: str, args: dict[str, Any], expected: list[str], contract: str, call: CallFn
) -> None:
    assert values(call(contract, method, args)) == expected


def test_state(contract: str, call: CallFn, world: Any) -> None:
    call(contract, "results")
    call(contract, "key")
    state = world.state(contract)
    assert state["greeting"] == "hello"
    assert state["note"] == "ab"
    assert state["raw"] == "00" * 31 + "41"
    assert state["data"] == "00ff"
    assert state["byKey"] == {"k1": "5"}


def test_getters(contract: str, call: CallFn) -> None:
    assert values(call(contract, "greeting")) == ["hello"]
    assert values(call(contract, "data")) == ["00ff"]


def test_events(contract: str, call: CallFn) -> None:
    res = call(contract, "emitIt")
    (ev,) = res.events
    assert ev.values["text"] == "hello"
    assert len(ev.values["digest"]) == 64


def test_default_mapping_entries_read_as_absent(contract: str, call: CallFn, world: Any) -> None:
    a, b = "a1" * 20, "b2" * 20
    call(contract, "toggle", {"a": a, "on": True})
    call(contract, "toggle", {"a": b, "on": True})
    call(contract, "toggle", {"a": b, "on": False})
    assert world.state(contract)["members"] == {a: "true"}
    assert values(call(contract, "members", {"key": b})) == ["false"]


def test_text_in_bytes_survives_persistence(contract: str, world: Any) -> None:
    acct = world.get_account(contract)
    for name, dumped in (("greeting", {"text": "hello"}), ("data", "00ff")):
        t = acct.cdef.svars[name].type
        assert dump_value(acct.storage[name], t) == dumped
        back = load_value(dumped, t)
        assert back == acct.storage[name]
        assert type(back) is type(acct.storage[name])
    assert type(load_value({"text": "hi"}, acct.cdef.svars["greeting"].type)) is TextBytes


def test_evm_contracts_keep_padded_hex(deploy: DeployFn, call: CallFn) -> None:
    src = c('    function f() public pure returns (bytes32) { bytes32 x = "hi"; return x; }')
    res = deploy(src, "C", vm="EVM")
    assert values(call(res.address, "f")) == [b"hi".hex() + "00" * 30]


def test_text_in_bytes_compares_with_strings(run: RunFn) -> None:
    src = c(
        "    function f() public pure returns (bool, bool, bool) {\n"
        '        bytes32 b = "abc";\n'
        '        return (b == "abc", bytes("abc") == "abc", b != "abd");\n'
        "    }"
    )
    assert run(src, "f") == ["true", "true", "true"]
