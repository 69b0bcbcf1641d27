"""Libraries, free functions and value types through a real node: upload, call, xabi, Cirrus.

One node for the module (gas off). The contract keeps a value-type state variable and a counter
struct changed by a library through ``using``; Cirrus indexes the value type as its underlying
type.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

SRC = """
type Price is uint256;
uint constant FEE = 2;

function withFee(uint v) pure returns (uint) { return v + FEE; }

library Counters {
    struct Counter { uint value; }
    function bump(Counter storage c, uint by) internal { c.value += by; }
}

library PriceMath {
    function add(Price a, uint b) internal pure returns (Price) {
        return Price.wrap(Price.unwrap(a) + b);
    }
}

contract Register {
    using Counters for Counters.Counter;
    using PriceMath for Price;
    Counters.Counter public sales;
    Price public price;
    uint public lastPaid;

    constructor(Price start) public { price = start; }

    function sell(uint n) public returns (Price) {
        sales.bump(n);
        lastPaid = withFee(Price.unwrap(price));
        price = price.add(n);
        return price;
    }
}
"""


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.new_client("alice")


@pytest.fixture(scope="module")
def upload(alice: httpx.Client) -> dict[str, Any]:
    res = submit(alice, upload_tx("Register", SRC, {"start": "10"}))
    assert res[0]["status"] == "Success", res
    contents: dict[str, Any] = res[0]["data"]["contents"]
    return contents


def test_upload_xabi_has_using_and_value_types(upload: dict[str, Any]) -> None:
    xabi = upload["xabi"]
    assert xabi["using"] == {
        "Counters.Counter": [{"using": "Counters", "for": "Counters.Counter"}],
        "Price": [{"using": "PriceMath", "for": "Price"}],
    }
    assert xabi["constr"]["args"]["start"]["tag"] == "UserDefined"
    assert xabi["vars"]["price"]["alias"] == "Price"
    assert xabi["vars"]["price"]["actual"]["tag"] == "Int"
    assert "withFee" not in xabi["funcs"]


def test_call_through_using_and_free_function(alice: httpx.Client, upload: dict[str, Any]) -> None:
    address = upload["address"]
    res = submit(alice, call_tx(address, "sell", {"n": 3}))
    assert res[0]["status"] == "Success", res
    assert res[0]["data"]["contents"] == ["13"]
    r = alice.get(f"/bloc/v2.2/contracts/Register/{address}/state")
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["price"] == "13"
    assert state["lastPaid"] == "12"
    assert state["sales"] == {"value": "3"}


def test_cirrus_row_has_the_value_type_as_its_underlying_type(
    alice: httpx.Client, upload: dict[str, Any]
) -> None:
    address = upload["address"]
    submit(alice, call_tx(address, "sell", {"n": 1}))
    r = alice.get("/cirrus/search/Register", params={"address": f"eq.{address}"})
    assert r.status_code == 200, r.text
    (row,) = r.json()
    assert isinstance(row["price"], int)
    assert row["price"] == int(
        alice.get(f"/bloc/v2.2/contracts/Register/{address}/state").json()["price"]
    )
    assert "sales" not in row  # structs get no column


def test_compile_error_of_a_value_type_is_400_with_position(alice: httpx.Client) -> None:
    bad = (
        "type Price is uint;\ncontract Bad {\n    function f(Price a) public returns (uint) {\n"
        "        return a + 1;\n    }\n}\n"
    )
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [upload_tx("Bad", bad)], "txParams": {"gasLimit": 100_000_000, "gasPrice": 1}},
    )
    assert r.status_code == 400, r.text
    assert "line 4, column 16" in r.text
    assert "user-defined value type Price" in r.text
