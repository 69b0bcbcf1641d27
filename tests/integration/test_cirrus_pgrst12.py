"""PostgREST 12 over HTTP on a real node, as STRATO 16's backend queries Cirrus (reference
strato16-cirrus.md §9, §10): aggregates with the automatic GROUP BY, casts, JSON paths, embeds
with aliases, ``!inner``, to-one embeds and filters on embedded resources, and PostgREST's
error codes. On our own fixture contracts: a ``Coin`` (a balances mapping, a mapping of
structs, an event) and a ``Market`` whose contract-typed ``coin`` references one.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

SEARCH = "/cirrus/search"

SRC = """
contract Coin {
    struct Withdrawal { uint amount; uint requestedAt; uint status; }
    string public symbol;
    uint public supply;
    mapping(address => uint) public balances;
    mapping(uint => Withdrawal) public withdrawals;
    event Sent(address to, uint amount);

    constructor(string _symbol, uint _supply) public {
        symbol = _symbol;
        supply = _supply;
        balances[msg.sender] = _supply;
    }
    function send(address to, uint v) public {
        balances[msg.sender] -= v;
        balances[to] += v;
        emit Sent(to, v);
    }
    function request(uint id, uint amount, uint at, uint status) public {
        withdrawals[id] = Withdrawal(amount, at, status);
    }
}

contract Market {
    Coin public coin;
    uint public fee;
    constructor(address c, uint f) public {
        coin = Coin(c);
        fee = f;
    }
}
"""

BOB = format(0xB0B, "040x")
CAROL = format(0xCA201, "040x")


def ok(res: list[dict[str, Any]]) -> dict[str, Any]:
    assert res[0]["status"] == "Success", res
    return res[0]


def search(client: httpx.Client, table: str, params: dict[str, str], status: int = 200) -> Any:
    r = client.get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == status, f"{table}: {r.status_code}: {r.text[:2000]}"
    return r.json()


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.new_client("alice")


@pytest.fixture(scope="module")
def world(alice: httpx.Client) -> dict[str, str]:
    """Two coins (the second without transfers) and a market of the first."""
    coin = ok(submit(alice, upload_tx("Coin", SRC, {"_symbol": "AAA", "_supply": 1000})))
    a = str(coin["data"]["contents"]["address"])
    other = ok(submit(alice, upload_tx("Coin", SRC, {"_symbol": "BBB", "_supply": 5})))
    b = str(other["data"]["contents"]["address"])
    ok(submit(alice, call_tx(a, "send", {"to": BOB, "v": 30})))
    ok(submit(alice, call_tx(a, "send", {"to": BOB, "v": 20})))
    ok(submit(alice, call_tx(a, "send", {"to": CAROL, "v": 7})))
    for wid, amount, at, status in ((1, 10, 3, 1), (2, 20, 9, 2), (3, 30, 5, 3)):
        args = {"id": wid, "amount": amount, "at": at, "status": status}
        ok(submit(alice, call_tx(a, "request", args)))
    market = ok(submit(alice, upload_tx("Market", SRC, {"c": a, "f": 3})))
    return {"a": a, "b": b, "market": str(market["data"]["contents"]["address"])}


# ---------------------------------------------------------------------------- aggregates


def test_count_parentheses(alice: httpx.Client, world: dict[str, str]) -> None:
    assert search(alice, "Coin", {"select": "count()", "address": f"eq.{world['a']}"}) == [
        {"count": 1}
    ]
    assert search(alice, "Coin", {"select": "n:count()", "address": f"eq.{world['a']}"}) == [
        {"n": 1}
    ]


def test_column_count_groups_by_the_other_columns(
    alice: httpx.Client, world: dict[str, str]
) -> None:
    rows = search(
        alice,
        "Coin.Sent",
        {"select": "to,to.count()", "address": f"eq.{world['a']}", "order": "to.asc"},
    )
    assert rows == [{"to": BOB, "count": 2}, {"to": CAROL, "count": 1}]


def test_sum_avg_min_max_with_aliases(alice: httpx.Client, world: dict[str, str]) -> None:
    rows = search(
        alice,
        "Coin-balances",
        {
            "select": "total:value->>x::numeric.count(),s:value::numeric.sum(),lo:key.min()",
            "address": f"eq.{world['a']}",
        },
    )
    assert rows == [{"total": 0, "s": 1000, "lo": BOB}]
    rows = search(
        alice,
        "Coin-withdrawals",
        {"select": "a:value->>amount::numeric.avg()", "address": f"eq.{world['a']}"},
    )
    assert rows == [{"a": 20.0}]
    r = alice.get(
        f"{SEARCH}/Coin-withdrawals",
        params={"select": "a:value->>amount::numeric.avg()", "address": f"eq.{world['a']}"},
    )
    assert r.text.replace(" ", "") == '[{"a":20.0000000000000000}]'


def test_aggregate_errors(alice: httpx.Client, world: dict[str, str]) -> None:
    body = search(alice, "Coin", {"select": "symbol.sum()"}, 400)
    assert (body["code"], body["message"]) == ("42883", "function sum(text) does not exist")
    body = search(alice, "Coin", {"select": "symbol,count()", "order": "supply.asc"}, 400)
    assert body["code"] == "42803"


# ---------------------------------------------------------------------------- casts


def test_casts_with_aliases(alice: httpx.Client, world: dict[str, str]) -> None:
    rows = search(
        alice,
        "Coin",
        {"select": "supply::text,s:symbol,n:supply::int", "address": f"eq.{world['a']}"},
    )
    assert rows == [{"supply": "1000", "s": "AAA", "n": 1000}]
    rows = search(
        alice,
        "Coin-withdrawals",
        {"select": "key,value::text", "address": f"eq.{world['a']}", "key": "eq.1"},
    )
    assert rows == [{"key": 1, "value": '{"amount": "10", "status": "1", "requestedAt": "3"}'}]


def test_cast_errors(alice: httpx.Client) -> None:
    body = search(alice, "Coin", {"select": "symbol::numeric"}, 400)
    assert body["code"] == "22P02"
    body = search(alice, "Coin", {"select": "symbol::gadget"}, 400)
    assert (body["code"], body["message"]) == ("42704", 'type "gadget" does not exist')


# ---------------------------------------------------------------------------- JSON paths


def test_json_paths_in_select_filter_and_order(alice: httpx.Client, world: dict[str, str]) -> None:
    rows = search(
        alice,
        "Coin-withdrawals",
        {
            "select": "withdrawalId:key,value->>status,amt:value->>amount::numeric",
            "address": f"eq.{world['a']}",
            "or": "(value->>status.eq.1,value->>status.eq.2)",
            "order": "value->>requestedAt.desc",
        },
    )
    assert rows == [
        {"withdrawalId": 2, "status": "2", "amt": 20},
        {"withdrawalId": 1, "status": "1", "amt": 10},
    ]


# ---------------------------------------------------------------------------- embeds


def test_collection_embed_filtered_on_the_embedded_resource(
    alice: httpx.Client, world: dict[str, str]
) -> None:
    params = {
        "select": "symbol,balances:Coin-balances(user:key,balance:value::text)",
        "address": f"in.({world['a']},{world['b']})",
        "balances.key": f"eq.{BOB}",
        "order": "symbol.asc",
    }
    assert search(alice, "Coin", params) == [
        {"symbol": "AAA", "balances": [{"user": BOB, "balance": "50"}]},
        {"symbol": "BBB", "balances": []},
    ]
    params["select"] = "symbol,balances:Coin-balances!inner(user:key,balance:value::text)"
    assert search(alice, "Coin", params) == [
        {"symbol": "AAA", "balances": [{"user": BOB, "balance": "50"}]}
    ]


def test_to_one_embeds(alice: httpx.Client, world: dict[str, str]) -> None:
    rows = search(
        alice,
        "Coin-balances",
        {"select": "user:key,coin:Coin(symbol)", "key": f"eq.{BOB}", "address": f"eq.{world['a']}"},
    )
    assert rows == [{"user": BOB, "coin": {"symbol": "AAA"}}]
    rows = search(
        alice,
        "Market",
        {
            "select": "fee,c:Coin(symbol,holders:Coin-balances(key,value::text))",
            "address": f"eq.{world['market']}",
            "c.holders.key": f"eq.{CAROL}",
        },
    )
    assert rows == [{"fee": 3, "c": {"symbol": "AAA", "holders": [{"key": CAROL, "value": "7"}]}}]


def test_embedded_order_and_limit(alice: httpx.Client, world: dict[str, str]) -> None:
    rows = search(
        alice,
        "Coin",
        {
            "select": "symbol,w:Coin-withdrawals(key)",
            "address": f"eq.{world['a']}",
            "w.order": "value->>requestedAt.desc",
            "w.limit": "2",
        },
    )
    assert rows == [{"symbol": "AAA", "w": [{"key": 2}, {"key": 3}]}]


def test_embed_errors(alice: httpx.Client, world: dict[str, str]) -> None:
    body = search(alice, "Coin", {"select": "symbol,x:Nowhere(*)"}, 400)
    assert body["code"] == "PGRST200"
    body = search(alice, "Coin", {"select": "symbol", "balances.key": "eq.x"}, 400)
    assert body["code"] == "PGRST108"
    body = search(alice, "Coin", {"select": "symbol,b:Coin-balances(nope)"}, 400)
    assert (body["code"], body["message"]) == ("42703", "column Coin-balances.nope does not exist")
    body = search(alice, "Coin", {"select": "symbol,b:Coin-balances(key"}, 400)
    assert body["code"] == "PGRST100"
