"""The xabi description of compiled contracts."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import compile_src

SRC = """
contract Base {
    uint public baseCount;
    modifier onlyPositive(uint v) { require(v > 0); _; }
}
contract Shop is Base {
    enum State { Open, Closed }
    struct Item { string name; uint price; }
    event Sold(address buyer, uint price);

    string public title;
    int8 public small;
    bool public open;
    address public owner;
    bytes32 public digest;
    uint[] public prices;
    mapping(address => uint) public spent;
    State public state;
    Item public featured;

    modifier onlyOpen() { require(open); _; }

    constructor(string _title, uint _count) public { title = _title; baseCount = _count; }
    function buy(uint price, address buyer, string note) public onlyPositive(price)
        returns (bool ok, uint total)
    {
        ok = true;
        total = price;
    }
    function plain() public view returns (uint) { return 1; }
    function nothing() public {}
}
interface IShop {
    function buy(uint price, address buyer, string note) external returns (bool, uint);
}
"""

UINT = {"tag": "Int", "signed": False, "bytes": 32}


@pytest.fixture(scope="module")
def unit() -> Any:
    return compile_src(SRC)


@pytest.fixture(scope="module")
def xabi(unit: Any) -> dict[str, Any]:
    result: dict[str, Any] = unit.contracts["Shop"].xabi
    return result


def _strip(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != "index"}


def test_xabi_top_level_keys(xabi: dict[str, Any]) -> None:
    for key in ("funcs", "vars", "constr", "types", "events", "modifiers", "kind"):
        assert key in xabi, key


def test_xabis_covers_every_contract(unit: Any) -> None:
    xabis = unit.xabis()
    assert set(xabis) >= {"Base", "Shop", "IShop"}
    assert xabis["Shop"] == unit.contracts["Shop"].xabi


def test_kind_distinguishes_interfaces(unit: Any) -> None:
    xabis = unit.xabis()
    assert isinstance(xabis["Shop"]["kind"], str)
    assert xabis["Shop"]["kind"] == xabis["Base"]["kind"]
    assert xabis["IShop"]["kind"] != xabis["Shop"]["kind"]


@pytest.mark.parametrize(
    ("name", "index", "expected"),
    [
        ("price", 0, UINT),
        ("buyer", 1, {"tag": "Address"}),
        ("note", 2, {"tag": "String", "dynamic": True}),
    ],
)
def test_function_args_have_index_and_tag(
    xabi: dict[str, Any], name: str, index: int, expected: dict[str, Any]
) -> None:
    arg = xabi["funcs"]["buy"]["args"][name]
    assert arg["index"] == index
    assert _strip(arg) == expected


def test_uint_arg_exact_shape(xabi: dict[str, Any]) -> None:
    assert xabi["funcs"]["buy"]["args"]["price"] == {
        "tag": "Int",
        "signed": False,
        "bytes": 32,
        "index": 0,
    }


def test_named_and_unnamed_return_values(xabi: dict[str, Any]) -> None:
    vals = xabi["funcs"]["buy"]["vals"]
    assert set(vals) == {"ok", "total"}
    assert vals["ok"]["tag"] == "Bool"
    assert vals["total"]["tag"] == "Int"
    plain = xabi["funcs"]["plain"]["vals"]
    assert set(plain) == {"#0"}
    assert _strip(plain["#0"]) == UINT
    assert xabi["funcs"]["nothing"]["vals"] == {}
    assert xabi["funcs"]["nothing"]["args"] == {}


def test_constructor_args(xabi: dict[str, Any]) -> None:
    args = xabi["constr"]["args"] if "args" in xabi["constr"] else xabi["constr"]
    assert args["_title"]["index"] == 0
    assert args["_title"]["tag"] == "String"
    assert args["_count"]["index"] == 1
    assert _strip(args["_count"]) == UINT


@pytest.mark.parametrize(
    ("var", "tag"),
    [
        ("title", "String"),
        ("small", "Int"),
        ("open", "Bool"),
        ("owner", "Address"),
        ("digest", "Bytes"),
        ("prices", "Array"),
        ("spent", "Mapping"),
        ("state", "Enum"),
        ("featured", "Struct"),
    ],
)
def test_vars_types(xabi: dict[str, Any], var: str, tag: str) -> None:
    assert xabi["vars"][var]["tag"] == tag


def test_var_details(xabi: dict[str, Any]) -> None:
    small = xabi["vars"]["small"]
    assert small["signed"] is True
    assert small["bytes"] == 1
    assert xabi["vars"]["prices"]["entry"]["tag"] == "Int"
    assert xabi["vars"]["spent"]["key"]["tag"] == "Address"
    assert xabi["vars"]["spent"]["value"]["tag"] == "Int"
    assert xabi["vars"]["digest"]["bytes"] == 32


def test_types_events_modifiers(xabi: dict[str, Any]) -> None:
    assert "State" in xabi["types"]
    assert "Item" in xabi["types"]
    assert "Sold" in xabi["events"]
    assert "onlyOpen" in xabi["modifiers"]
    assert set(xabi["funcs"]) >= {"buy", "plain", "nothing"}


def test_base_contract_xabi(unit: Any) -> None:
    base = unit.contracts["Base"].xabi
    assert base["vars"]["baseCount"]["tag"] == "Int"
    assert "onlyPositive" in base["modifiers"]
