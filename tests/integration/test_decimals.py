"""Decimals over HTTP on a real node: a decimal in a call result, in the contract state
(``/bloc/v2.2/contracts/<name>/<address>/state``), in a Cirrus row (a numeric column, compared as a
number, written as a JSON number with its places) and in an event row; bad arguments and a
division by zero as transaction failures.

One node for the module (the ``node`` fixture of conftest.py, gas off).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

PRICED_SRC = """
contract Priced {
    string public item;
    decimal public price;
    decimal public rate = 0.0500;
    uint public qty;
    mapping(uint => decimal) public history;
    event Repriced(string item, decimal price);

    constructor(string _item, decimal _price) public {
        item = _item;
        price = _price;
    }

    function reprice(decimal p) public returns (decimal, decimal) {
        history[qty] = price;
        qty += 1;
        price = p;
        emit Repriced(item, p);
        return (p * (1 + rate), p / 3);
    }

    function split(decimal total, uint parts) public pure returns (decimal) {
        return total / decimal(parts);
    }
}
"""


def deploy_priced(client: httpx.Client, item: str, price: Any) -> str:
    res = submit(client, upload_tx("Priced", PRICED_SRC, {"_item": item, "_price": price}))
    assert res[0]["status"] == "Success", res
    return str(res[0]["data"]["contents"]["address"])


def search(client: httpx.Client, table: str, params: dict[str, str]) -> httpx.Response:
    r = client.get(f"/cirrus/search/{table}", params=params)
    assert r.status_code == 200, r.text
    return r


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.client("alice")


@pytest.fixture(scope="module")
def contracts(alice: httpx.Client) -> dict[str, str]:
    """Three contracts: 'tea' repriced to 2.50 by a call; 'cake' at 12.000 and 'bun' at 9.5."""
    tea = deploy_priced(alice, "tea", "1.50")
    cake = deploy_priced(alice, "cake", "12.000")
    bun = deploy_priced(alice, "bun", 9.5)  # a JSON number, as the platform's API takes it
    return {"tea": tea, "cake": cake, "bun": bun}


def test_call_result(alice: httpx.Client, contracts: dict[str, str]) -> None:
    res = submit(alice, call_tx(contracts["tea"], "reprice", {"p": "2.50"}, "Priced"))
    assert res[0]["status"] == "Success", res
    assert res[0]["data"]["contents"] == ["2.6250", "0.83"]  # rate has 4 places, 1 + rate too
    res = submit(alice, call_tx(contracts["tea"], "split", {"total": "10.00", "parts": 3}))
    assert res[0]["data"]["contents"] == ["3.33"]


def test_contract_state(alice: httpx.Client, contracts: dict[str, str]) -> None:
    submit(alice, call_tx(contracts["cake"], "reprice", {"p": "12.000"}))
    r = alice.get(f"/bloc/v2.2/contracts/Priced/{contracts['cake']}/state")
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["price"] == "12.000"
    assert state["rate"] == "0.0500"
    assert state["history"] == {"0": "12.000"}
    r = alice.get(f"/bloc/v2.2/contracts/Priced/{contracts['bun']}/state")
    assert r.json()["price"] == "9.5"
    r = alice.get(f"/bloc/v2.2/contracts/Priced/{contracts['cake']}/state/history/0")
    assert r.status_code == 200, r.text
    assert r.json() == {"history": {"0": "12.000"}}


def test_cirrus_row_has_a_numeric_column(alice: httpx.Client, contracts: dict[str, str]) -> None:
    submit(alice, call_tx(contracts["tea"], "reprice", {"p": "2.50"}))
    r = search(alice, "Priced", {"address": f"eq.{contracts['tea']}", "select": "item,price,rate"})
    # the body carries the number with its places, as PostgREST writes a numeric
    assert '"price":2.50' in r.text and '"rate":0.0500' in r.text
    (row,) = json.loads(r.text, parse_float=Decimal)
    assert row == {"item": "tea", "price": Decimal("2.50"), "rate": Decimal("0.0500")}
    defs = alice.get("/cirrus/search/").json()["definitions"]
    assert defs["Priced"]["properties"]["price"] == {"type": "number", "format": "numeric"}


def test_cirrus_filters_and_orders_decimals_as_numbers(
    alice: httpx.Client, contracts: dict[str, str]
) -> None:
    mine = f"in.({','.join(contracts.values())})"
    r = search(alice, "Priced", {"address": mine, "select": "item", "order": "price.desc"})
    assert [x["item"] for x in r.json()] == ["cake", "bun", "tea"]  # 12.000 > 9.5 > 2.50
    r = search(alice, "Priced", {"address": mine, "select": "item", "price": "gt.9.49"})
    assert sorted(x["item"] for x in r.json()) == ["bun", "cake"]
    r = search(alice, "Priced", {"address": mine, "select": "item", "price": "eq.12"})
    assert [x["item"] for x in r.json()] == ["cake"]
    r = alice.get("/cirrus/search/Priced", params={"price": "gt.cheap"})
    assert r.status_code == 400
    assert r.json()["message"] == 'invalid input syntax for type numeric: "cheap"'


def test_event_row(alice: httpx.Client, contracts: dict[str, str]) -> None:
    submit(alice, call_tx(contracts["bun"], "reprice", {"p": "0.75"}))
    r = search(alice, "Priced.Repriced", {"address": f"eq.{contracts['bun']}", "select": "price"})
    assert r.json() == [{"price": "0.75"}]


def test_bad_argument_is_refused(alice: httpx.Client, contracts: dict[str, str]) -> None:
    body = submit(alice, call_tx(contracts["tea"], "reprice", {"p": "two"}), expect=400)
    assert body == "type error: argument 'p' expects decimal, got 'two' (not a decimal number)"
    body = submit(
        alice, call_tx(contracts["tea"], "reprice", {"p": 0.1234567890123456}), expect=400
    )
    assert "send the decimal as a string" in body


def test_division_by_zero_fails_the_transaction(
    alice: httpx.Client, contracts: dict[str, str]
) -> None:
    res = submit(
        alice,
        call_tx(contracts["tea"], "split", {"total": "1.0", "parts": 0}),
        call_tx(contracts["tea"], "split", {"total": "1.0", "parts": 4}),
    )
    assert [x["status"] for x in res] == ["Failure", "Success"]
    assert res[0]["txResult"]["message"] == "divide by zero error"
    assert res[1]["data"]["contents"] == ["0.2"]  # 0.25 to one place, half to even


def test_decimals_survive_a_restart(node: RunningNode, contracts: dict[str, str]) -> None:
    """Last in the module: the stored state keeps each decimal's places across a restart."""
    before = node.client("alice").get(f"/bloc/v2.2/contracts/Priced/{contracts['cake']}/state")
    node.restart()
    alice = node.client("alice")
    after = alice.get(f"/bloc/v2.2/contracts/Priced/{contracts['cake']}/state")
    assert after.status_code == 200, after.text
    assert after.json() == before.json()
    assert after.json()["price"] == "12.000"
    res = submit(alice, call_tx(contracts["cake"], "reprice", {"p": "0.10"}))
    assert res[0]["data"]["contents"] == ["0.1050", "0.03"]
