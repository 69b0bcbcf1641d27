"""The platform's texts that the STRATO 16 routes reproduce: storage paths and values
(Haskell's ``show`` of strings, LIKE patterns) and the parser's type encoding in a contract's
definition."""

from __future__ import annotations

import pytest

from app.node.errors import ApiError
from app.node.platform_contract import contract_json, definition
from app.node.solidvm import compile_source
from app.node.storage_search import StorageQuery, hs_show, like, parse_path, parse_value


def test_strings_are_stored_as_haskell_shows_them() -> None:
    assert hs_show("abc") == '"abc"'
    assert hs_show('a"b\\c\n') == '"a\\"b\\\\c\\n"'
    assert hs_show("é1") == '"\\233\\&1"'  # a numeric escape followed by a digit
    assert hs_show("éx") == '"\\233x"'


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("x", "x"),
        ("s.f", "s.f"),
        ("m[abc]", "m[abc]"),
        ("m[a\\]b][0].f", "m[a\\]b][0].f"),
        ("a.length", "a.length"),
    ],
)
def test_paths_keep_the_platforms_grammar(text: str, stored: str) -> None:
    assert parse_path(text, "key") == stored


@pytest.mark.parametrize("text", ["", ".x", "a..b", "a[", "a b", "[0]"])
def test_malformed_paths_are_400(text: str) -> None:
    with pytest.raises(ApiError) as caught:
        parse_path(text, "key")
    assert caught.value.status == 400


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("123", "123"),
        ("007", "7"),
        ("true", "true"),
        ('"hi"', '"hi"'),
        ('"a\\"b"', '"a\\"b"'),
        ("address(0xAB)", "address(" + "0" * 38 + "ab)"),
        ("State.Open.1", "State.Open.1"),
        ("Token(" + "1" * 40 + ")", "Token(" + "1" * 40 + ")"),
    ],
)
def test_values_are_compared_as_stored(text: str, stored: str) -> None:
    assert parse_value(text, "value") == stored


@pytest.mark.parametrize("text", ["1.5", "'x'", "-1", "maybe", ""])
def test_malformed_values_are_400(text: str) -> None:
    with pytest.raises(ApiError):
        parse_value(text, "value")


def test_like_has_sql_wildcards() -> None:
    assert like("a_c").search("xxabcxx")
    assert like("a%c").search("a-long-c")
    assert not like("A").search("a")
    assert like("A", 2).search("a")  # re.I: ILIKE


def test_the_query_caps_rows_without_an_address() -> None:
    assert StorageQuery.from_params({}).cap() == 1000
    assert StorageQuery.from_params({"limit": "5000"}).cap() == 1000
    assert StorageQuery.from_params({"address": "ab" * 20}).cap() is None
    assert StorageQuery.from_params({"address": "ab" * 20, "limit": "5000"}).cap() == 5000


SRC = """
library L { function twice(uint x) internal pure returns (uint) { return x * 2; } }
contract A { uint8 public small; function a() public {} function p() private {} }
contract B is A {
    using L for uint;
    int public signed;
    address payable public pay;
    bytes32 public b32;
    A[] public as_;
    mapping(uint => mapping(string => bool)) public deep;
    uint constant K = 3;
    modifier only(uint who) { _; }
    function f(A x, uint[3] memory xs) public only(1) returns (bool ok) { return true; }
    function f(uint y) public {}
    receive() external payable {}
}
"""


def test_types_are_the_parsers() -> None:
    unit = compile_source(SRC)
    b = contract_json(unit.contracts["B"])
    defs = {k: v["_varType"] for k, v in b["_storageDefs"].items()}
    assert defs["small"] == {"tag": "Int", "signed": False, "bytes": 1}  # inherited
    assert defs["signed"] == {"tag": "Int", "signed": True}
    assert defs["pay"] == {"tag": "Address", "isPayable": True}
    assert defs["b32"] == {"tag": "Bytes", "bytes": 32}
    assert defs["as_"] == {"tag": "Array", "entry": {"tag": "UnknownLabel", "contents": "A"}}
    assert defs["deep"]["value"] == {
        "tag": "Mapping",
        "dynamic": True,
        "key": {"tag": "String", "dynamic": True},
        "value": {"tag": "Bool"},
    }
    assert b["_constants"]["K"]["_constType"] == {"tag": "Int", "signed": False}
    f = b["_functions"]["f"]
    assert f["_funcArgs"][1][1]["type"] == {
        "tag": "Array",
        "entry": {"tag": "Int", "signed": False},
        "length": 3,
    }
    assert f["_funcVals"][0][0] == "ok"
    assert f["_funcModifiers"] == [["only", []]]
    assert [o["_funcArgs"][0][0] for o in f["_funcOverload"]] == ["y"]
    assert "receive" in b["_functions"] and "a" in b["_functions"] and "p" not in b["_functions"]
    assert b["_modifiers"]["only"]["args"][0][0] == "who"
    assert b["_usings"] == {
        "uint": [{"using": "L", "for": "uint", "context": b["_usings"]["uint"][0]["context"]}]
    }
    assert "twice" in b["_functions"]  # a used library's functions are merged, as on the platform
    assert contract_json(unit.contracts["L"])["_contractType"] == "LibraryType"


def test_a_proxy_definition_puts_its_own_members_first() -> None:
    unit = compile_source(SRC)
    merged = definition(unit.contracts["A"], unit.contracts["B"])
    assert merged["_contractName"] == "A"
    assert merged["_parents"] == ["A"]  # A's (none) then B's
    assert {"a", "f", "receive"} <= set(merged["_functions"])
