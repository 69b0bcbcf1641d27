"""User-defined value types: ``type Price is uint256;`` with ``Price.wrap`` / ``Price.unwrap``.

A value type is its own type for the compiler (no implicit conversion either way, no operators)
and the underlying value everywhere else: JSON arguments, results, state, events, signatures.
The xabi describes it as ``{"tag": "UserDefined", "alias": ..., "actual": ...}``.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ArgumentError, CompileError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import compile_src, events

SHOP = """
type Price is uint256;
type Owner is address;
type Flag is bool;

struct Offer { string item; Price price; }

function addPrices(Price a, Price b) pure returns (Price) {
    return Price.wrap(Price.unwrap(a) + Price.unwrap(b));
}

library PriceMath {
    function plus(Price a, uint b) internal pure returns (Price) {
        return Price.wrap(Price.unwrap(a) + b);
    }
    function isFree(Price a) internal pure returns (bool) { return Price.unwrap(a) == 0; }
}

contract Shop {
    using PriceMath for Price;
    type Sku is uint64;

    Price public floor;
    Owner public owner;
    Flag public open;
    mapping(string => Price) public prices;
    Offer public best;
    Sku public lastSku;

    event Priced(string item, Price price);

    constructor(Price _floor) public {
        floor = _floor;
        owner = Owner.wrap(msg.sender);
        open = Flag.wrap(true);
    }
    function setPrice(string item, Price p) public {
        require(Price.unwrap(p) >= Price.unwrap(floor), "below floor");
        prices[item] = p;
        best = Offer(item, p);
        emit Priced(item, p);
    }
    function total(string a, string b) public view returns (Price) {
        return addPrices(prices[a], prices[b]);
    }
    function raised(string item, uint by) public view returns (Price) {
        return prices[item].plus(by).plus(1);
    }
    function free(string item) public view returns (bool) { return prices[item].isFree(); }
    function raw(Price p) public pure returns (uint) { return Price.unwrap(p); }
    function isOpen() public view returns (bool) { return Flag.unwrap(open); }
    function ownerAddress() public view returns (address) { return Owner.unwrap(owner); }
    function sku(uint64 n) public returns (Sku) { lastSku = Sku.wrap(n); return lastSku; }
}

contract Viewer {
    function skuOf(uint64 n) public pure returns (Shop.Sku) { return Shop.Sku.wrap(n); }
}
"""


@pytest.fixture
def shop(deploy: DeployFn) -> str:
    address: str = deploy(SHOP, "Shop", {"_floor": "5"}).address
    return address


def test_wrap_unwrap_and_state(shop: str, call: CallFn, world: Any) -> None:
    call(shop, "setPrice", {"item": "tea", "p": 7})
    call(shop, "setPrice", {"item": "cake", "p": "12"})
    assert call(shop, "total", {"a": "tea", "b": "cake"}).values == ["19"]
    assert call(shop, "raw", {"p": "0x10"}).values == ["16"]
    state = world.state(shop)
    assert state["floor"] == "5"
    assert state["prices"] == {"tea": "7", "cake": "12"}
    assert state["best"] == {"item": "cake", "price": "12"}
    assert state["owner"] == "a1" * 20
    assert state["open"] == "true"


def test_getters_and_results_render_the_underlying_value(shop: str, call: CallFn) -> None:
    call(shop, "setPrice", {"item": "tea", "p": 9})
    assert call(shop, "prices", {"key": "tea"}).values == ["9"]
    assert call(shop, "floor").values == ["5"]
    assert call(shop, "isOpen").values == ["true"]
    assert call(shop, "ownerAddress").values == ["a1" * 20]
    assert call(shop, "sku", {"n": 3}).values == ["3"]


def test_events_carry_the_underlying_value(shop: str, call: CallFn) -> None:
    assert events(call(shop, "setPrice", {"item": "tea", "p": 8})) == [("Priced", ["tea", "8"])]


def test_library_functions_attached_to_a_value_type(shop: str, call: CallFn) -> None:
    call(shop, "setPrice", {"item": "tea", "p": 10})
    assert call(shop, "raised", {"item": "tea", "by": 5}).values == ["16"]
    assert call(shop, "free", {"item": "none"}).values == ["true"]
    assert call(shop, "free", {"item": "tea"}).values == ["false"]


def test_require_on_unwrapped_values(shop: str, call: CallFn) -> None:
    from app.node.solidvm.errors import ExecutionError

    with pytest.raises(ExecutionError, match="below floor"):
        call(shop, "setPrice", {"item": "tea", "p": 4})


def test_contract_level_type_used_from_another_contract(run: RunFn) -> None:
    assert run(SHOP, "skuOf", {"n": 42}, contract="Viewer") == ["42"]


def test_bad_json_argument_names_the_parameter_and_underlying_type(shop: str, call: CallFn) -> None:
    with pytest.raises(ArgumentError) as info:
        call(shop, "raw", {"p": "lots"})
    assert "argument 'p'" in info.value.message
    assert "not an integer" in info.value.message


def test_xabi_describes_value_types() -> None:
    x = compile_src(SHOP).contracts["Shop"].xabi
    uint = {"tag": "Int", "signed": False, "bytes": 32}
    assert x["funcs"]["raw"]["args"]["p"] == {
        "tag": "UserDefined",
        "alias": "Price",
        "actual": uint,
        "index": 0,
    }
    assert x["funcs"]["total"]["vals"]["#0"]["tag"] == "UserDefined"
    assert x["vars"]["owner"]["tag"] == "UserDefined"
    assert x["vars"]["owner"]["actual"] == {"tag": "Address"}
    assert x["vars"]["lastSku"]["actual"] == {"tag": "Int", "signed": False, "bytes": 8}
    assert x["constr"]["args"]["_floor"]["alias"] == "Price"
    # the ABI signature uses the underlying type, as Solidity does
    assert x["funcs"]["raw"]["selector"] == "raw(uint256)"
    assert x["funcs"]["sku"]["selector"] == "sku(uint64)"


P = "type Price is uint;\n"

ERRORS = [
    pytest.param(
        P + "contract C {\n    function g(string s) public returns (Price) {\n"
        "        return Price.wrap(s);\n    }\n}\n",
        4,
        27,
        "Price.wrap expects a uint256, not a string",
        id="wrap-wrong-type",
    ),
    pytest.param(
        P + "type Cost is uint;\ncontract C {\n    function g(Cost c) public returns (Price) {\n"
        "        return Price.wrap(c);\n    }\n}\n",
        5,
        27,
        "Price.wrap expects a uint256, not a Cost",
        id="wrap-another-value-type",
    ),
    pytest.param(
        P + "contract C {\n    function g(uint x) public returns (uint) {\n"
        "        return Price.unwrap(x);\n    }\n}\n",
        4,
        29,
        "Price.unwrap expects a Price, not a uint256",
        id="unwrap-wrong-type",
    ),
    pytest.param(
        P + "contract C {\n    function g(Price a, Price b) public returns (Price) {\n"
        "        return a + b;\n    }\n}\n",
        4,
        16,
        "operator '+' is not defined for user-defined value type Price; use Price.unwrap(...)",
        id="arithmetic-without-unwrap",
    ),
    pytest.param(
        P + "contract C {\n    function g(Price a) public returns (Price) {\n"
        "        a += Price.wrap(1);\n        return a;\n    }\n}\n",
        4,
        9,
        "operator '+' is not defined for user-defined value type Price",
        id="compound-assignment",
    ),
    pytest.param(
        P + "contract C {\n    function g(Price a, Price b) public returns (bool) {\n"
        "        return a == b;\n    }\n}\n",
        4,
        16,
        "operator '==' is not defined for user-defined value type Price",
        id="comparison",
    ),
    pytest.param(
        P + "contract C {\n    function g(Price a) public returns (Price) {\n"
        "        a++;\n        return a;\n    }\n}\n",
        4,
        9,
        "operator '++' is not defined for user-defined value type Price",
        id="increment",
    ),
    pytest.param(
        P + "contract C {\n    function g(Price a) public returns (Price) {\n"
        "        return -a;\n    }\n}\n",
        4,
        16,
        "operator '-' is not defined for user-defined value type Price",
        id="negation",
    ),
    pytest.param(
        P + "contract C {\n    function g(uint a) public returns (Price) {\n"
        "        Price p = a;\n        return p;\n    }\n}\n",
        4,
        19,
        "type uint256 is not implicitly convertible to Price; use Price.wrap(...)",
        id="implicit-wrap",
    ),
    pytest.param(
        P + "contract C {\n    Price public p = 5;\n}\n",
        3,
        22,
        "type uint256 is not implicitly convertible to Price",
        id="state-initializer",
    ),
    pytest.param(
        P + "contract C {\n    function g(Price a) public returns (uint) {\n"
        "        return a;\n    }\n}\n",
        4,
        16,
        "type Price is not implicitly convertible to uint256; use Price.unwrap(...)",
        id="implicit-unwrap",
    ),
    pytest.param(
        P + "contract C {\n    function g(Price a) public returns (uint) {\n"
        "        return uint(a);\n    }\n}\n",
        4,
        16,
        "conversion from Price to uint256 is not allowed; use Price.unwrap(...)",
        id="explicit-conversion",
    ),
    pytest.param(
        P + "contract C {\n    function g(uint a) public returns (Price) {\n"
        "        return Price(a);\n    }\n}\n",
        4,
        16,
        "use Price.wrap(...) to make a Price",
        id="conversion-call",
    ),
    pytest.param(
        P + "function h(Price p) pure returns (uint) { return 1; }\ncontract C {\n"
        "    function g() public returns (uint) {\n        return h(3);\n    }\n}\n",
        5,
        18,
        "type uint256 is not implicitly convertible to Price",
        id="argument",
    ),
    pytest.param(
        "type Flag is bool;\ncontract C {\n    function g(Flag f) public returns (uint) {\n"
        "        if (f) { return 1; }\n        return 0;\n    }\n}\n",
        4,
        13,
        "condition must be a bool, not Flag",
        id="condition",
    ),
    pytest.param(
        "struct S { uint a; }\ntype Bad is S;\n",
        2,
        13,
        "user-defined value type 'Bad' must be based on an elementary value type",
        id="non-elementary-underlying",
    ),
    pytest.param(
        P + "type Price is int;\n",
        2,
        1,
        "type 'Price' is already declared",
        id="declared-twice",
    ),
    pytest.param(
        P + "contract C {\n    function g(Price a) public returns (uint) {\n"
        "        return Price.value(a);\n    }\n}\n",
        4,
        16,
        "user-defined value type Price has no member 'value'",
        id="unknown-member",
    ),
]


@pytest.mark.parametrize(("src", "line", "column", "message"), ERRORS)
def test_compile_errors(src: str, line: int, column: int, message: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_src(src)
    assert (info.value.line, info.value.column) == (line, column)
    assert message in info.value.message
