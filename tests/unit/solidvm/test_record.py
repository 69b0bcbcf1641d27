"""The `record` keyword: accepted on contracts, state variables and struct members, with no effect.

On today's platform (16.x) the parser reads `record` and drops it: contracts and mappings are
indexed by Cirrus whether or not they carry it, and the xabi does not show it. It is a reserved
word, so it can never name anything.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ParseError
from app.node.solidvm.parser import parse

from .conftest import CallFn, DeployFn
from .helpers import ALICE, BOB, compile_src, values

LEDGER = """
struct Entry {
    uint record amount;
    string memo;
}

contract record Ledger {
    mapping(address => uint) public record balances;
    mapping(string => mapping(address => uint)) private record nested;
    uint record public total;
    string[] record names;
    address[] public record admins;
    Entry[] public record entries;

    constructor() public {
        admins.push(msg.sender);
    }

    function credit(address who, uint amount, string memo) public {
        balances[who] += amount;
        nested[memo][who] = amount;
        total += amount;
        names.push(memo);
        entries.push(Entry(amount, memo));
    }

    function nestedOf(string memo, address who) public view returns (uint) {
        return nested[memo][who];
    }

    function nameCount() public view returns (uint) {
        return names.length;
    }
}
"""


def test_record_contract_and_variables_behave_as_without(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(LEDGER, "Ledger").address
    call(addr, "credit", {"who": BOB, "amount": 5, "memo": "rent"})
    call(addr, "credit", {"who": BOB, "amount": 2, "memo": "food"})
    assert values(call(addr, "balances", {"key": BOB})) == ["7"]
    assert values(call(addr, "total")) == ["7"]
    assert values(call(addr, "nestedOf", {"memo": "food", "who": BOB})) == ["2"]
    assert values(call(addr, "nameCount")) == ["2"]
    assert values(call(addr, "admins", {"index": 0})) == [ALICE]
    assert values(call(addr, "entries", {"index": 1})) == ["2", "food"]


def test_record_is_kept_in_the_syntax_tree() -> None:
    unit = parse(LEDGER)
    contract = unit.items[1]
    assert contract.record is True  # type: ignore[attr-defined]
    flags = {p.name: p.record for p in contract.parts if hasattr(p, "record")}  # type: ignore[attr-defined]
    assert flags["balances"] and flags["total"] and flags["names"]


def _without_record(src: str) -> str:
    return src.replace(" record ", " ")


def test_record_does_not_change_the_xabi() -> None:
    with_kw = compile_src(LEDGER).contracts["Ledger"].xabi
    without = compile_src(_without_record(LEDGER)).contracts["Ledger"].xabi
    assert with_kw == without
    assert with_kw["vars"]["balances"]["tag"] == "Mapping"
    assert "record" not in repr(with_kw)


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        ("contract record", "contract"),
        ("abstract contract record", "abstract"),
        ("interface record", "interface"),
        ("library record", "library"),
    ],
)
def test_record_after_every_contract_kind(head: str, kind: str) -> None:
    body = "function f() external;" if kind == "interface" else "uint constant K = 1;"
    unit = compile_src(f"{head} Thing {{ {body} }}")
    assert unit.contracts["Thing"].kind == kind


def test_record_inherited_contract_deploys(deploy: DeployFn, call: CallFn) -> None:
    src = """
    abstract contract record Owned {
        address public record owner;
        constructor() public { owner = msg.sender; }
    }
    contract record Shop is Owned {
        mapping(uint => string) public record items;
        function add(uint id, string name) public { items[id] = name; }
    }
    """
    addr = deploy(src, "Shop").address
    call(addr, "add", {"id": 3, "name": "pen"})
    assert values(call(addr, "items", {"key": 3})) == ["pen"]
    assert values(call(addr, "owner")) == [ALICE]


@pytest.mark.parametrize(
    ("src", "line", "column", "text"),
    [
        ("contract C {\n    uint record;\n}\n", 2, 16, "expected state variable name"),
        ("contract C {\n    function record() public {}\n}\n", 2, 14, "reserved word"),
        ("contract record record {}\n", 1, 17, "reserved word"),
        (
            "contract C {\n    function f() public {\n        uint record = 1;\n    }\n}\n",
            3,
            14,
            "'record' is a reserved word",
        ),
        ("contract C {\n    function f(uint record) public {}\n}\n", 2, 21, "reserved word"),
        ("struct record { uint a; }\n", 1, 8, "reserved word"),
    ],
)
def test_record_is_a_reserved_word(src: str, line: int, column: int, text: str) -> None:
    with pytest.raises(ParseError) as info:
        compile_src(src)
    assert (info.value.line, info.value.column) == (line, column)
    assert text in info.value.message


def test_record_keyword_in_any_order(deploy: DeployFn, call: CallFn) -> None:
    src = """
    contract C {
        uint record public constant LIMIT = 3;
        uint public record immutable start = 5;
        function both() public view returns (uint, uint) { return (LIMIT, start); }
    }
    """
    addr = deploy(src, "C").address
    out: list[Any] = values(call(addr, "both"))
    assert out == ["3", "5"]


def test_asset_applications_refuse_reserved_field_names() -> None:
    from app.node.appgen import DefinitionError, app_source, parse_definition

    for word in ("record", "try", "throw"):
        with pytest.raises(DefinitionError, match="not a valid identifier"):
            parse_definition({"name": "Pets", "assets": {"dog": {word: "string"}}})
    # words that stay usable still compile once generated
    app = parse_definition({"name": "Pets", "assets": {"dog": {"error": "string", "catch": "int"}}})
    assert "Dog" in compile_src(app_source(app)).contracts


def test_record_is_a_plain_name_in_evm_sources(deploy: DeployFn, call: CallFn) -> None:
    src = """
    contract C {
        uint record;
        function set(uint v) public { uint local = v; record = local; }
        function get() public view returns (uint) { return record; }
    }
    """
    addr = deploy(src, "C", vm="EVM").address
    call(addr, "set", {"v": 4})
    assert values(call(addr, "get")) == ["4"]
    with pytest.raises(ParseError):
        compile_src(src)
