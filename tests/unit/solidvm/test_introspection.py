"""Account introspection: ``a.code``, ``a.code(name)``, ``a.codehash``, ``a.nonce``,
``a.creator`` and ``a.root``, on addresses, accounts, contracts and ``this``."""

from __future__ import annotations

from typing import Any

import pytest
from Crypto.Hash import keccak

from app.node.solidvm.errors import CompileError, ExecutionError

from .conftest import CallFn, DeployFn
from .helpers import ALICE, BOB, compile_src

SRC = """contract Child {
  uint public k;
  function make() public returns (address) { return address(new Grandchild()); }
}
contract Grandchild {
  function ping() public returns (uint) { return 1; }
}
contract Parent {
  Child public c;
  uint constant LIMIT = 5;
  struct S { uint a; }
  enum E { X, Y }
  event Ev(uint a);
  modifier m() { _; }
  constructor() { c = new Child(); }
  function whole() public returns (string) { return this.code; }
  function part(string n) public returns (string) { return account(this).code(n); }
  function contractOnly() public returns (string) { return address(this).code(); }
  function hash() public returns (string) { return this.codehash; }
  function childHash() public returns (string) { return c.codehash; }
  function nonceOf(address a) public returns (uint) { return a.nonce; }
  function who(address a) public returns (string, address) { return (a.creator, a.root); }
  function mine() public returns (string, address) { return (this.creator, this.root); }
  function eoaCode(address a) public returns (string) { return a.code; }
}"""


def k256hex(text: str) -> str:
    h = keccak.new(digest_bits=256)
    h.update(text.encode())
    return h.hexdigest()


@pytest.fixture
def parent(deploy: DeployFn) -> str:
    return str(deploy(SRC, "Parent").address)


def test_code_is_the_whole_source(parent: str, call: CallFn) -> None:
    assert call(parent, "whole").values == [SRC]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # printed back in the platform's layout (test_code_layout.py has the details)
        ("S", "struct S {\n  uint a;\n}\n"),
        ("E", "enum E {\n  X,\n  Y\n}\n"),
        ("m", "modifier m() {\n        _;\n    }\n"),
        ("Ev", "event Ev(\n    uint a);\n"),
        ("LIMIT", "uint constant LIMIT = 5;\n"),
        ("c", "Child public c;\n"),
        ("hash", "function hash () public returns (string ) {\n    return this.codehash;\n    }\n"),
        ("nothing", ""),
    ],
)
def test_code_of_a_name_is_that_declaration(
    parent: str, call: CallFn, name: str, text: str
) -> None:
    assert call(parent, "part", {"n": name}).values == [text]


def test_code_without_a_name_is_the_contract(parent: str, call: CallFn) -> None:
    (text,) = call(parent, "contractOnly").values
    assert text.startswith("contract Parent {") and text.endswith("}\n")
    assert "contract Child" not in text
    assert call(parent, "part", {"n": "Parent"}).values == [text]


def test_codehash_is_the_hash_of_the_code_collection(parent: str, call: CallFn) -> None:
    assert call(parent, "hash").values == [k256hex(SRC)]
    assert call(parent, "childHash").values == [k256hex(SRC)]  # created from the same source


def test_nonce_counts_creations(parent: str, call: CallFn, world: Any) -> None:
    child = world.state(parent)["c"]
    assert call(parent, "nonceOf", {"a": parent}).values == ["1"]
    assert call(parent, "nonceOf", {"a": child}).values == ["0"]
    call(child, "make", sender=BOB)
    assert call(parent, "nonceOf", {"a": child}).values == ["1"]


def test_creator_and_root_name_the_user_at_the_root(parent: str, call: CallFn, world: Any) -> None:
    child = world.state(parent)["c"]
    grandchild = call(child, "make", sender=BOB).values[0]  # bob runs it; alice is the root
    for a in (parent, child, grandchild):
        assert call(parent, "who", {"a": a}).values == ["alice", ALICE]
    assert call(parent, "mine").values == ["alice", ALICE]
    assert call(parent, "who", {"a": BOB}).values == ["bob", BOB]  # a user is its own root


def test_code_of_an_account_without_code_fails(parent: str, call: CallFn) -> None:
    with pytest.raises(ExecutionError) as info:
        call(parent, "eoaCode", {"a": BOB})
    assert info.value.kind == "missing code collection"
    assert info.value.message.endswith(BOB)


def test_code_takes_one_name() -> None:
    src = (
        "contract C {\n  function f() public returns (string) {\n"
        '    return this.code("a", "b");\n  }\n}'
    )
    with pytest.raises(CompileError) as info:
        compile_src(src)
    assert (info.value.line, info.value.column) == (3, 12)
    assert "Too many arguments were given, expected 1 argument/s, but received 2" in (
        info.value.message
    )


def test_type_of_a_contract_gives_its_name_and_code() -> None:
    from app.node.solidvm import TxEnv, World, compile_source

    src = (
        "contract A {\n  uint x;\n}\n"
        "contract B {\n"
        "  string public n = type(A).name;\n"
        "  string public code = type(A).runTimeCode;\n"
        "  string public created = type(A).creationCode;\n"
        "}\n"
    )
    world = World()
    addr = world.deploy(compile_source(src).contracts["B"], {}, TxEnv(sender="aa" * 20)).address
    assert addr is not None
    state = world.state(addr)
    assert state["n"] == "A"
    assert state["code"] == state["created"] == "contract A {\n  uint x;\n}"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("int x = type(A).name;", "type string is not implicitly convertible to int256"),
        ("string x = type(A).size;", r"type\(A\) has no member 'size'"),
        ("string x = type(uint).name;", r"type\(\.\.\.\) takes a contract name"),
    ],
)
def test_type_members_are_strings_of_contracts(body: str, message: str) -> None:
    from app.node.solidvm import compile_source
    from app.node.solidvm.errors import CompileError

    with pytest.raises(CompileError, match=message):
        compile_source(f"contract A {{ {body} }}")
