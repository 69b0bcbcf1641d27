"""Built-ins: require/assert/revert, events, msg/tx/block, this, hashes, identity, pragma."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from Crypto.Hash import keccak

from app.node.solidvm.errors import CompileError, ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import (
    ALICE,
    BLOCK_NUMBER,
    BOB,
    CAROL,
    TIMESTAMP,
    c,
    compile_src,
    event_arg_names,
    event_args,
    events,
    values,
)


def keccak_hex(text: str) -> str:
    h = keccak.new(digest_bits=256)
    h.update(text.encode("utf-8"))
    return str(h.hexdigest())


# ---------------------------------------------------------------- require / assert / revert

CHECKS = c(
    """
    uint public x;
    function req(uint v) public returns (uint) {
        x = v;
        require(v > 10, "v must exceed 10");
        return v;
    }
    function reqNoMessage(uint v) public pure returns (uint) { require(v > 0); return v; }
    function asrt(uint v) public pure returns (uint) { assert(v != 3); return v; }
    function rev(uint v) public pure returns (uint) {
        if (v == 0) { revert("zero is not allowed"); }
        return v;
    }
"""
)


@pytest.mark.parametrize(
    ("method", "arg", "message"),
    [
        ("req", 5, "solidity require failed: v must exceed 10"),
        ("asrt", 3, "solidity assert failed"),
        ("rev", 0, "revert: zero is not allowed"),
    ],
)
def test_failure_messages(
    method: str, arg: int, message: str, deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(CHECKS, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, method, {"v": arg})
    assert info.value.message == message


@pytest.mark.parametrize(("method", "arg"), [("req", 11), ("asrt", 4), ("rev", 1)])
def test_checks_pass(method: str, arg: int, deploy: DeployFn, call: CallFn) -> None:
    res = deploy(CHECKS, "C")
    assert values(call(res.address, method, {"v": arg})) == [str(arg)]


def test_require_without_message(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(CHECKS, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "reqNoMessage", {"v": 0})
    assert info.value.message.startswith("solidity require failed")
    assert values(call(res.address, "reqNoMessage", {"v": 2})) == ["2"]


def test_failed_require_rolls_back_write(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(CHECKS, "C")
    call(res.address, "req", {"v": 20})
    with pytest.raises(ExecutionError):
        call(res.address, "req", {"v": 1})
    assert world.state(res.address)["x"] == "20"


# ---------------------------------------------------------------- events

EVENTS = c(
    """
    enum Kind { Small, Large }
    event Simple();
    event Everything(uint u, int i, string s, bool b, address a, Kind k);
    event Indexed(address indexed who, uint amount);
    function fire() public {
        emit Simple();
        emit Everything(42, -7, "text", true, msg.sender, Kind.Large);
        emit Indexed(0x00000000000000000000000000000000000000aa, 5);
    }
    function falseBool() public { emit Everything(0, 0, "", false, address(0), Kind.Small); }
"""
)


def test_emit_records_events_in_order(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(EVENTS, "C")
    out = call(res.address, "fire", sender=BOB)
    assert events(out) == [
        ("Simple", []),
        ("Everything", ["42", "-7", "text", "True", BOB, "Kind.Large"]),
        ("Indexed", ["0" * 38 + "aa", "5"]),
    ]
    assert event_arg_names(out.events[1]) in ([], ["u", "i", "s", "b", "a", "k"])
    for e in out.events:
        assert e.address == res.address
        assert e.contract == "C"
        assert e.chain_id == ""


def test_event_false_bool_and_zero_address(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(EVENTS, "C")
    out = call(res.address, "falseBool")
    assert events(out) == [("Everything", ["0", "0", "", "False", "0" * 40, "Kind.Small"])]


def test_events_emitted_by_constructor_and_inner_contracts(deploy: DeployFn, call: CallFn) -> None:
    src = """
contract Inner {
    event Born(uint v);
    constructor(uint v) public { emit Born(v); }
}
contract Outer {
    event Made(address child);
    constructor() public { emit Made(address(0)); }
    function make() public returns (address) {
        Inner i = new Inner(3);
        emit Made(address(i));
        return address(i);
    }
}
"""
    outer = deploy(src, "Outer")
    assert events(outer) == [("Made", ["0" * 40])]
    out = call(outer.address, "make")
    (child,) = values(out)
    assert [(e.contract, e.name, e.address) for e in out.events] == [
        ("Inner", "Born", child),
        ("Outer", "Made", outer.address),
    ]
    assert event_args(out.events[0]) == ["3"]
    assert event_args(out.events[1]) == [child]


def test_account_event_argument(deploy: DeployFn, call: CallFn) -> None:
    src = c(
        """
    event Moved(account who, uint amount);
    function move(address a) public { emit Moved(account(a, "main"), 3); }
"""
    )
    res = deploy(src, "C")
    assert events(call(res.address, "move", {"a": CAROL})) == [("Moved", [CAROL + ":main", "3"])]


def test_calls_without_emit_have_no_events(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(CHECKS, "C")
    assert call(res.address, "req", {"v": 11}).events == []


@pytest.mark.parametrize(
    "body",
    [
        "emit Undeclared(1);",
        "emit Declared();",
        "emit Declared(1, 2);",
    ],
    ids=["undeclared", "too-few-args", "too-many-args"],
)
def test_bad_emit_is_a_compile_error(body: str) -> None:
    src = c(f"    event Declared(uint a);\n    function f() public {{ {body} }}")
    with pytest.raises(CompileError):
        compile_src(src)


# ---------------------------------------------------------------- transaction context

CONTEXT = c(
    """
    function sender() public view returns (address) { return msg.sender; }
    function origin() public view returns (address) { return tx.origin; }
    function username() public view returns (string) { return tx.username; }
    function organization() public view returns (string) { return tx.organization; }
    function timestamp() public view returns (uint) { return block.timestamp; }
    function nowValue() public view returns (uint) { return now; }
    function number() public view returns (uint) { return block.number; }
    function me() public view returns (address) { return address(this); }
    function certOf(address a, string key) public view returns (string) {
        return getUserCert(account(a))[key];
    }
    function myUnit() public view returns (string) {
        return getUserCert(msg.sender)["organizationalUnit"];
    }
"""
)


@pytest.mark.parametrize(
    ("method", "sender", "expected"),
    [
        ("sender", ALICE, ALICE),
        ("sender", BOB, BOB),
        ("origin", CAROL, CAROL),
        ("username", ALICE, "alice"),
        ("username", BOB, "bob"),
        ("organization", BOB, "Globex"),
        ("organization", CAROL, "Acme"),
        ("myUnit", CAROL, "Sales"),
        ("timestamp", ALICE, str(TIMESTAMP)),
        ("nowValue", ALICE, str(TIMESTAMP)),
        ("number", ALICE, str(BLOCK_NUMBER)),
    ],
)
def test_transaction_context(
    method: str, sender: str, expected: str, deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(CONTEXT, "C")
    assert values(call(res.address, method, sender=sender)) == [expected]


def test_block_values_follow_the_environment(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(CONTEXT, "C")
    later = call(res.address, "timestamp", timestamp=TIMESTAMP + 3600, block_number=99)
    assert values(later) == [str(TIMESTAMP + 3600)]
    assert values(call(res.address, "number", block_number=99)) == ["99"]


def test_block_gas_limit_and_difficulty_come_from_the_block() -> None:
    from app.node.solidvm import TxEnv, World

    src = c(
        "    function header() public view returns (uint, uint) {\n"
        "        return (block.gaslimit, block.difficulty);\n    }"
    )
    world = World()
    addr = world.deploy(compile_src(src).contracts["C"], {}, TxEnv(sender=ALICE)).address
    assert addr is not None
    told = TxEnv(sender=ALICE, gas_limit=750_000, difficulty=12)
    assert world.call(addr, "header", {}, told).values == ["750000", "12"]
    # a block that says nothing: the transaction's step budget and difficulty 0, as before
    plain = TxEnv(sender=ALICE, max_steps=123_456)
    assert world.call(addr, "header", {}, plain).values == ["123456", "0"]


def test_this_is_the_contract_address(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(CONTEXT, "C")
    assert values(call(res.address, "me")) == [res.address]


@pytest.mark.parametrize(
    ("who", "key", "expected"),
    [
        (ALICE, "commonName", "alice"),
        (ALICE, "organization", "Acme"),
        (ALICE, "organizationalUnit", "Engineering"),
        (BOB, "organization", "Globex"),
        (BOB, "organizationalUnit", "Logistics"),
        (CAROL, "commonName", "carol"),
    ],
)
def test_get_user_cert(who: str, key: str, expected: str, deploy: DeployFn, call: CallFn) -> None:
    res = deploy(CONTEXT, "C")
    assert values(call(res.address, "certOf", {"a": who, "key": key})) == [expected]


# ---------------------------------------------------------------- hashes

HASHES = c(
    """
    function k(string s) public pure returns (bytes32) { return keccak256(s); }
    function sh(string s) public pure returns (bytes32) { return sha256(s); }
    function same(string a, string b) public pure returns (bool) {
        return keccak256(a) == keccak256(b);
    }
"""
)


@pytest.mark.parametrize("text", ["", "abc", "hello world", "päivää ☀"])
def test_keccak256_of_string(text: str, deploy: DeployFn, call: CallFn) -> None:
    res = deploy(HASHES, "C")
    assert values(call(res.address, "k", {"s": text})) == [keccak_hex(text)]


@pytest.mark.parametrize("text", ["", "abc", "päivää"])
def test_sha256_of_string(text: str, deploy: DeployFn, call: CallFn) -> None:
    res = deploy(HASHES, "C")
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert values(call(res.address, "sh", {"s": text})) == [expected]


def test_keccak_comparison(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(HASHES, "C")
    assert values(call(res.address, "same", {"a": "x", "b": "x"})) == ["true"]
    assert values(call(res.address, "same", {"a": "x", "b": "y"})) == ["false"]


# ---------------------------------------------------------------- pragma


def test_pragma_solidvm_is_accepted(run: RunFn) -> None:
    src = "pragma solidvm 3.2;\n" + c(
        "    function f() public pure returns (uint) {\n"
        "        uint s;\n"
        "        for (uint i = 0; i < 10; i++) { if (i == 5) break; s += i; }\n"
        "        return s;\n    }"
    )
    assert run(src, "f") == ["10"]
