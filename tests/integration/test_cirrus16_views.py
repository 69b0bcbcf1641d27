"""STRATO 16's typed Cirrus views on a real node: ``<creator>-<Contract>`` (index view),
``<creator>-<Contract>-<var>`` (collection view), ``<creator>-<Contract>-<Event>`` and
``<creator>-<Contract>-<Event>-<arg>``, with the platform's columns, types and defaults, served by
the query engine (filters, select, order, limit, offset, count). One node for the module.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

SEARCH = "/cirrus/search"

SRC = """
contract Ownable {
    address public owner;
    constructor() public { owner = msg.sender; }
}
contract Coin is Ownable {
    enum Kind { Plain, Silver, Gold }
    struct Info { uint amount; string note; bool open; address who; Kind kind; }
    event Sent(address from, address to, uint amount, bool flag);
    event Batch(string address, uint[] ids);
    string public name;
    uint public supply;
    bool public paused;
    Kind public kind;
    uint public creator;
    address public spare;
    mapping(address => uint) public balances;
    mapping(address => mapping(uint => bool)) public marks;
    mapping(uint => Info) public infos;
    address[] public holders;

    constructor(string _name, uint _supply) public {
        name = _name;
        supply = _supply;
        kind = Kind.Silver;
        creator = 77;
        balances[msg.sender] = _supply;
        holders.push(msg.sender);
    }
    function send(address to, uint v) public {
        balances[msg.sender] -= v;
        balances[to] += v;
        emit Sent(msg.sender, to, v, true);
    }
    function mark(address who, uint i, bool on) public { marks[who][i] = on; }
    function info(uint id, uint amount) public {
        infos[id] = Info(amount, "x", true, address(0), Kind.Gold);
    }
    function batch() public {
        uint[] memory ids = new uint[](2);
        ids[0] = 1;
        ids[1] = 2;
        emit Batch("here", ids);
    }
}
contract Empty { uint x; }
"""


def search(client: httpx.Client, table: str, params: dict[str, str], status: int = 200) -> Any:
    r = client.get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == status, f"{table}: {r.status_code}: {r.text[:2000]}"
    return r.json()


def addr(n: int) -> str:
    return format(n, "040x")


def call(client: httpx.Client, address: str, method: str, **args: Any) -> dict[str, Any]:
    res = submit(client, call_tx(address, method, args))
    assert res[0]["status"] == "Success", res
    out: dict[str, Any] = res[0]
    return out


def deploy(client: httpx.Client, name: str, supply: int) -> str:
    res = submit(client, upload_tx("Coin", SRC, {"_name": name, "_supply": supply}))
    assert res[0]["status"] == "Success", res
    return str(res[0]["data"]["contents"]["address"])


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.new_client("alice")


@pytest.fixture(scope="module")
def me(node: RunningNode) -> str:
    return node.address("alice")


@pytest.fixture(scope="module")
def coin(alice: httpx.Client) -> str:
    return deploy(alice, "Gold", 1000)


def test_index_view(alice: httpx.Client, coin: str, me: str) -> None:
    (row,) = search(alice, "BlockApps-Coin", {"address": f"eq.{coin}"})
    assert list(row) == [
        "address",
        "block_hash",
        "block_timestamp",
        "block_number",
        "creator",
        "contract_name",
        "owner",
        "name",
        "supply",
        "paused",
        "kind",
        "arg_creator",
        "spare",
    ]
    assert isinstance(row["block_number"], int)
    assert row["creator"] == "BlockApps" and row["contract_name"] == "Coin"
    assert row["owner"] == me and row["name"] == "Gold"
    assert row["supply"] == 1000 and row["paused"] is False
    assert row["kind"] == "1" and row["arg_creator"] == 77 and row["spare"] == ""


def test_index_view_queries(alice: httpx.Client, coin: str) -> None:
    other = deploy(alice, "Silver", 5)
    assert [r["name"] for r in search(alice, "BlockApps-Coin", {"supply": "gt.100"})] == ["Gold"]
    rows = search(
        alice,
        "BlockApps-Coin",
        {"address": f"in.({coin},{other})", "select": "name,supply", "order": "supply.asc"},
    )
    assert rows == [{"name": "Silver", "supply": 5}, {"name": "Gold", "supply": 1000}]
    assert search(
        alice,
        "BlockApps-Coin",
        {
            "order": "supply.desc",
            "limit": "1",
            "offset": "1",
            "address": f"in.({coin},{other})",
            "select": "name",
        },
    ) == [{"name": "Silver"}]
    assert search(
        alice, "BlockApps-Coin", {"address": f"in.({coin},{other})", "select": "count"}
    ) == [{"count": 2}]


def test_base_view_lists_descendants(alice: httpx.Client, coin: str, me: str) -> None:
    rows = search(alice, "BlockApps-Ownable", {"address": f"eq.{coin}"})
    assert rows == [
        {
            "address": coin,
            "block_hash": rows[0]["block_hash"],
            "block_timestamp": rows[0]["block_timestamp"],
            "block_number": rows[0]["block_number"],
            "creator": "BlockApps",
            "contract_name": "Coin",
            "owner": me,
        }
    ]


def test_views_of_every_contract_of_the_collection(alice: httpx.Client) -> None:
    assert search(alice, "BlockApps-Empty", {}) == []
    search(alice, "BlockApps-Nothing", {}, status=404)


def test_collection_view(alice: httpx.Client, coin: str, me: str) -> None:
    call(alice, coin, "send", to=addr(0xB0B), v=30)
    call(alice, coin, "send", to=addr(0xB0B), v=0)
    rows = search(alice, "BlockApps-Coin-balances", {"address": f"eq.{coin}", "order": "key.asc"})
    assert [(r["key"], r["value"]) for r in rows] == sorted([(me, 970), (addr(0xB0B), 30)])
    assert list(rows[0]) == [
        "address",
        "block_hash",
        "block_timestamp",
        "block_number",
        "collection_name",
        "collection_type",
        "value",
        "key",
    ]
    assert isinstance(rows[0]["block_number"], str)
    one = search(
        alice,
        "BlockApps-Coin-balances",
        {"address": f"eq.{coin}", "key": f"eq.{addr(0xB0B)}", "select": "value"},
    )
    assert one == [{"value": 30}]
    assert search(
        alice,
        "BlockApps-Coin-balances",
        {"address": f"eq.{coin}", "value": "gt.100", "select": "key"},
    ) == [{"key": me}]
    # an entry back to zero is hidden (the raw mapping row stays, holding 0)
    call(alice, coin, "send", to=addr(0xC0C), v=970)
    keys = [r["key"] for r in search(alice, "BlockApps-Coin-balances", {"address": f"eq.{coin}"})]
    assert me not in keys and addr(0xC0C) in keys
    (raw,) = search(
        alice, "mapping", {"address": f"eq.{coin}", "path": f"eq.balances[{me}]", "select": "value"}
    )
    assert raw == {"value": 0}


def test_nested_and_struct_collections(alice: httpx.Client, coin: str, me: str) -> None:
    call(alice, coin, "mark", who=addr(3), i=2, on=True)
    call(alice, coin, "mark", who=addr(3), i=5, on=False)
    rows = search(alice, "BlockApps-Coin-marks", {"address": f"eq.{coin}"})
    assert [(r["key"], r["key2"], r["value"]) for r in rows] == [(addr(3), 2, True)]
    assert search(alice, "BlockApps-Coin-marks", {"key2": "eq.2", "select": "key2"}) == [
        {"key2": 2}
    ]
    call(alice, coin, "info", id=9, amount=12)
    (info,) = search(alice, "BlockApps-Coin-infos", {"address": f"eq.{coin}"})
    assert info["key"] == 9
    assert info["value"] == {"amount": "12", "note": "x", "open": True, "who": addr(0), "kind": "2"}
    rows = search(alice, "BlockApps-Coin-infos", {"value->>amount": "eq.12", "select": "key"})
    assert rows == [{"key": 9}]
    (h,) = search(alice, "BlockApps-Coin-holders", {"address": f"eq.{coin}"})
    assert h["key"] == 0 and h["value"] == me and h["collection_type"] == "Array"


def test_event_views(alice: httpx.Client, coin: str, me: str) -> None:
    tx = call(alice, coin, "send", to=addr(0xD0D), v=1)
    rows = search(
        alice,
        "BlockApps-Coin-Sent",
        {"address": f"eq.{coin}", "block_hash": f"eq.{tx['txResult']['blockHash']}"},
    )
    (row,) = rows
    assert list(row) == [
        "id",
        "address",
        "block_hash",
        "block_timestamp",
        "block_number",
        "transaction_sender",
        "event_index",
        "creator",
        "contract_name",
        "from",
        "to",
        "amount",
        "flag",
    ]
    assert row["transaction_sender"] == me and row["event_index"] == 1
    assert row["to"] == addr(0xD0D) and row["amount"] == 1 and row["flag"] is True
    assert row["contract_name"] == "Coin" and isinstance(row["block_number"], str)
    n = search(alice, "BlockApps-Coin-Sent", {"address": f"eq.{coin}", "select": "count"})
    assert n[0]["count"] >= 3
    call(alice, coin, "batch")
    (b,) = search(alice, "BlockApps-Coin-Batch", {"address": f"eq.{coin}"})
    assert b["arg_address"] == "here" and b["address"] == coin
    assert b["ids"] == "[1, 2]" or b["ids"] == "[1,2]"
    arr = search(alice, "BlockApps-Coin-Batch-ids", {"address": f"eq.{coin}", "order": "key.asc"})
    assert [(a["key"], a["value"]) for a in arr] == [("0", 1), ("1", 2)]


def test_the_default_serves_both_families(alice: httpx.Client, coin: str) -> None:
    for name in ("Coin", "Coin.Sent", "Coin-balances", "BlockApps-Coin"):
        assert search(alice, name, {"address": f"eq.{coin}", "select": "address"})
    names = set(alice.get(f"{SEARCH}/").json()["definitions"])
    assert {"Coin", "Coin.Sent", "BlockApps-Coin", "BlockApps-Coin-Sent"} <= names
    assert {"storage", "contract", "mapping", "event", "history@storage"} <= names
