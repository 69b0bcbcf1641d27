"""Contract creation: ``new C{salt: s}(...)``, ``derive``, ``create(...)`` and ``create2(...)``.

The salted address follows the platform's rule exactly: the last 20 bytes of
keccak256(rlp([0xFF, creator, salt, keccak256(source), contractName, args...])). The expected
addresses below are built byte by byte, independently of the engine's encoder.
"""

from __future__ import annotations

from typing import Any

import pytest
from Crypto.Hash import keccak

from app.node.solidvm import TxEnv, contract_address
from app.node.solidvm.errors import CompileError, ExecutionError, ParseError

from .conftest import CallFn, DeployFn
from .helpers import ALICE, compile_src


def k256(data: bytes) -> bytes:
    h = keccak.new(digest_bits=256)
    h.update(data)
    return h.digest()


def rlp_string(b: bytes) -> bytes:
    if len(b) == 1 and b[0] < 0x80:
        return b
    assert len(b) <= 55
    return bytes([0x80 + len(b)]) + b


def rlp_list(items: list[bytes]) -> bytes:
    body = b"".join(items)
    if len(body) <= 55:
        return bytes([0xC0 + len(body)]) + body
    n = len(body).to_bytes((len(body).bit_length() + 7) // 8, "big")
    return bytes([0xF7 + len(n)]) + n + body


def expected(creator: str, salt: str, source: str, name: str, args: list[bytes]) -> str:
    items = [
        b"\x81\xff",
        rlp_string(bytes.fromhex(creator)),
        rlp_string(salt.encode()),
        rlp_string(k256(source.encode())),
        rlp_string(name.encode()),
        *args,
    ]
    return k256(rlp_list(items))[12:].hex()


REG = """
contract User {
    string public name;
    uint public n;
    address public maker;
    constructor(string _n, uint k) { name = _n; n = k; maker = msg.sender; }
}
contract Reg {
    User public last;
    function make(string u, uint k) public returns (address) {
        User x = new User{salt: u}(u, k);
        last = x;
        return address(x);
    }
    function predict(string u, uint k) public returns (address) {
        return this.derive(u, "User", u, k);
    }
    function predictFor(address a, string u, uint k) public returns (address) {
        return a.derive(u, "User", u, k);
    }
    function makeBytes(bytes32 s) public returns (address) {
        return address(new User{salt: s}("b", 1));
    }
    function deriveBytes(string s) public returns (address) {
        return address(this).derive(s, "User", "b", 1);
    }
}
"""


@pytest.fixture
def reg(deploy: DeployFn) -> str:
    return str(deploy(REG, "Reg").address)


@pytest.mark.parametrize(
    ("k", "encoded"),
    [
        (0, b"\x80"),
        (100, b"\x64"),
        (1000, b"\x82\x03\xe8"),
        (2**200, rlp_string((2**200).to_bytes(26, "big"))),
    ],
)
def test_salted_address_is_the_platforms(
    reg: str, call: CallFn, world: Any, k: int, encoded: bytes
) -> None:
    want = expected(reg, "alice", REG, "User", [rlp_string(b"alice"), encoded])
    assert call(reg, "predict", {"u": "alice", "k": k}).values == [want]
    res = call(reg, "make", {"u": "alice", "k": k})
    assert res.values == [want]
    assert res.created == [("", want)]
    assert world.state(want) == {"name": "alice", "n": str(k), "maker": reg}


def test_derive_from_outside_predicts_the_creators_address(
    deploy: DeployFn, reg: str, call: CallFn
) -> None:
    other = deploy(REG, "Reg").address
    predicted = call(other, "predictFor", {"a": reg, "u": "bob", "k": 2}).values
    assert call(reg, "make", {"u": "bob", "k": 2}).values == predicted


def test_a_second_creation_at_the_same_salted_address_fails(
    reg: str, call: CallFn, world: Any
) -> None:
    first = call(reg, "make", {"u": "carol", "k": 1}).values[0]
    nonce = world.nonces[("", int(reg, 16))]
    with pytest.raises(ExecutionError) as info:
        call(reg, "make", {"u": "carol", "k": 1})
    assert info.value.kind == "duplicate contract"
    assert info.value.message == (
        f"duplicate salted contract address: The address {first} already exists. "
        "Try using a different salt or constructor arguments."
    )
    assert world.nonces[("", int(reg, 16))] == nonce  # the failed transaction left no trace
    other = call(reg, "make", {"u": "carol", "k": 2}).values[0]  # other arguments: elsewhere
    assert other != first
    assert world.nonces[("", int(reg, 16))] == nonce + 1  # salted creation counts a nonce


def test_a_bytes32_salt_holding_text_is_that_text(reg: str, call: CallFn) -> None:
    salt = b"pepper".hex()
    made = call(reg, "makeBytes", {"s": salt.ljust(64, "0")}).values
    assert made == call(reg, "deriveBytes", {"s": "pepper"}).values


FROM_SOURCE = """
contract Maker {
    function mk(string name, string src, variadic args) public returns (address) {
        return create(name, src, args);
    }
    function mk2(string salt, string name, string src, variadic args) public returns (address) {
        return create2(salt, name, src, args);
    }
    function packed(variadic all) public returns (address) { return create2(all); }
    function readOnly(string name, string src) public returns (variadic) {
        return address(this).staticcall("mk", name, src, 1);
    }
}
"""
B_SRC = "contract Box { uint public x = 2; constructor(uint _x) { x = _x; } }"


@pytest.fixture
def maker(deploy: DeployFn) -> str:
    return str(deploy(FROM_SOURCE, "Maker").address)


def test_create_compiles_the_source_and_uses_the_next_nonce(
    maker: str, call: CallFn, world: Any
) -> None:
    nonce = world.nonces.get(("", int(maker, 16)), 0)
    res = call(maker, "mk", {"name": "Box", "src": B_SRC, "args": [4]})
    (addr,) = res.values
    assert addr == format(contract_address(int(maker, 16), nonce), "040x")
    assert res.created == [("", addr)]
    assert world.state(addr) == {"x": "4"}
    assert world.accounts[("", int(addr, 16))].creator == int(maker, 16)


def test_create2_uses_the_salted_address_of_the_given_source(
    maker: str, call: CallFn, world: Any
) -> None:
    want = expected(maker, "s", B_SRC, "Box", [b"\x05"])
    assert call(maker, "mk2", {"salt": "s", "name": "Box", "src": B_SRC, "args": [5]}).values == [
        want
    ]
    assert world.state(want) == {"x": "5"}
    with pytest.raises(ExecutionError) as info:
        call(maker, "mk2", {"salt": "s", "name": "Box", "src": B_SRC, "args": [5]})
    assert info.value.kind == "duplicate contract"
    # one variadic holding everything (the platform's UserOperation form) is spread
    other = call(maker, "packed", {"all": ["t", "Box", B_SRC, 6]}).values[0]
    assert other == expected(maker, "t", B_SRC, "Box", [b"\x06"])


@pytest.mark.parametrize(
    ("args", "kind", "text"),
    [
        ({"name": "", "src": B_SRC, "args": []}, "invalid arguments", "should not be empty"),
        ({"name": "Box", "src": "", "args": []}, "invalid arguments", "should not be empty"),
        ({"name": "Q", "src": B_SRC, "args": [1]}, "missing type", "create'/contract: Q"),
        ({"name": "Box", "src": "contract Box {", "args": [1]}, "parse error", "line 1, column 15"),
        ({"name": "Box", "src": B_SRC, "args": ["x"]}, "invalid arguments", "don't match"),
        ({"name": "Box", "src": B_SRC, "args": []}, "invalid arguments", "don't match"),
        (
            {"name": "I", "src": "interface I { function f() external; }", "args": []},
            "invalid contract",
            "cannot create interface 'I'",
        ),
    ],
)
def test_create_failures(
    maker: str, call: CallFn, world: Any, args: dict[str, Any], kind: str, text: str
) -> None:
    accounts = len(world.accounts)
    with pytest.raises(ExecutionError) as info:
        call(maker, "mk", args)
    assert info.value.kind == kind
    assert text in info.value.message
    assert len(world.accounts) == accounts


def test_no_creation_in_a_read_only_call(maker: str, call: CallFn) -> None:
    with pytest.raises(ExecutionError) as info:
        call(maker, "readOnly", {"name": "Box", "src": B_SRC})
    assert info.value.kind == "invalid write"


def test_runaway_recursive_create2_stops_at_the_depth_limit(deploy: DeployFn, world: Any) -> None:
    src = """
contract R {
    constructor(string me, uint depth) {
        create2(string(depth), "R", me, me, depth + 1);
    }
}
contract Start {
    function go(string me) public { create2("0", "R", me, me, 1); }
}
"""
    start = deploy(src, "Start").address
    with pytest.raises(ExecutionError) as info:
        world.call(start, "go", {"me": src}, TxEnv(sender=ALICE))
    assert info.value.kind in ("stack too deep", "out of gas")


@pytest.mark.parametrize(
    ("src", "error", "line", "column", "text"),
    [
        (
            "contract D {}\ncontract C {\n  function f() public { new D{value: 1}(); }\n}",
            ParseError,
            3,
            31,
            "expected 'salt: <expression>' after 'new'",
        ),
        (
            "contract D {}\ncontract C {\n  function f() public { new D{salt: 5}(); }\n}",
            CompileError,
            3,
            37,
            "the salt must be a string, not uint256",
        ),
        (
            "contract D { constructor(uint a) {} }\ncontract C {\n"
            '  function f() public { new D{salt: "s"}(); }\n}',
            CompileError,
            3,
            25,
            "constructor of D takes 1 arguments, 0 given",
        ),
        (
            'contract C {\n  function f() public { create("C"); }\n}',
            CompileError,
            2,
            25,
            "create takes a contract name and its source",
        ),
        (
            'contract C {\n  function f() public { create2(1, "C", "src"); }\n}',
            CompileError,
            2,
            33,
            "create2 expects a string here, not uint256",
        ),
    ],
)
def test_creation_compile_errors(src: str, error: type, line: int, column: int, text: str) -> None:
    with pytest.raises(error) as info:
        compile_src(src)
    err = info.value
    assert isinstance(err, ParseError)
    assert (err.line, err.column) == (line, column)
    assert text in err.message


def test_runtime_salt_must_be_text(deploy: DeployFn, call: CallFn) -> None:
    src = """
contract D {}
contract C {
    function f(variadic v) public returns (address) { return address(new D{salt: v[0]}()); }
}
"""
    c = deploy(src, "C").address
    with pytest.raises(ExecutionError) as info:
        call(c, "f", {"v": [5]})
    assert info.value.message == (
        "invalid arguments: the salt of new D must be a string, got an integer"
    )
