"""STRATO 16's global Cirrus tables on a real node (``storage``, ``contract``, ``mapping``,
``event``, ``event_array``, ``history@storage``, ``history@mapping``): their columns and the
platform's value encodings, written per block beside the seed's tables. One node for the module.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import httpx
import pytest

from app.node.store import DB_FILE
from tests.integration.node_fixture import HEX64, RunningNode, call_tx, submit, upload_tx

SEARCH = "/cirrus/search"

SRC = """
contract Base {
    uint public baseCount;
    constructor() public { baseCount = 1; }
}
contract Vault is Base {
    enum Kind { Plain, Silver, Gold }
    struct Entry { uint amount; string note; bool open; address who; Kind kind; }
    event Moved(address from, address to, uint amount);
    event Tagged(string tag, uint[] ids);
    uint public total;
    bool public open;
    string public label;
    address public owner;
    address public nobody;
    Kind public kind;
    decimal public rate;
    Entry public top;
    mapping(address => uint) public balances;
    mapping(address => mapping(string => uint)) public grants;
    mapping(uint => Entry) public entries;
    uint[] public items;

    constructor(string _label) public {
        label = _label;
        owner = msg.sender;
        total = 1000;
        open = true;
        kind = Kind.Gold;
        rate = 1.5;
        balances[msg.sender] = 1000;
        top = Entry(5, "t", true, msg.sender, Kind.Silver);
    }
    function move(address to, uint v) public {
        balances[msg.sender] -= v;
        balances[to] += v;
        emit Moved(msg.sender, to, v);
    }
    function grant(address who, string what, uint v) public { grants[who][what] = v; }
    function put(uint id, uint amount, string note) public {
        entries[id] = Entry(amount, note, true, msg.sender, Kind.Gold);
    }
    function push(uint v) public { items.push(v); }
    function tag(string t) public {
        uint[] memory ids = new uint[](2);
        ids[0] = 4;
        ids[1] = 5;
        emit Tagged(t, ids);
        emit Moved(msg.sender, msg.sender, 0);
    }
}
"""


def search(client: httpx.Client, table: str, params: dict[str, str], status: int = 200) -> Any:
    r = client.get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == status, f"{table}: {r.status_code}: {r.text[:2000]}"
    return r.json()


def addr(n: int) -> str:
    return format(n, "040x")


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.new_client("alice")


@pytest.fixture(scope="module")
def me(node: RunningNode) -> str:
    return node.address("alice")


@pytest.fixture(scope="module")
def vault(alice: httpx.Client) -> str:
    res = submit(alice, upload_tx("Vault", SRC, {"_label": "it's mine"}))
    assert res[0]["status"] == "Success", res
    return str(res[0]["data"]["contents"]["address"])


def call(client: httpx.Client, address: str, method: str, **args: Any) -> dict[str, Any]:
    res = submit(client, call_tx(address, method, args))
    assert res[0]["status"] == "Success", res
    out: dict[str, Any] = res[0]
    return out


def test_storage_row(alice: httpx.Client, vault: str, me: str) -> None:
    (row,) = search(alice, "storage", {"address": f"eq.{vault}"})
    assert list(row) == ["address", "block_hash", "block_timestamp", "block_number", "data"]
    assert HEX64.match(row["block_hash"])
    assert isinstance(row["block_number"], int)
    assert row["block_timestamp"].endswith(" UTC") and len(row["block_timestamp"]) == 23
    data = row["data"]
    assert data["total"] == "1000"
    assert data["open"] == "true"
    assert data["label"] == "its mine"  # apostrophes dropped
    assert data["owner"] == me
    assert data["nobody"] == ""  # the zero address
    assert data["kind"] == "2"
    assert data["rate"] == "1.5"
    assert data["baseCount"] == "1"
    assert "balances" not in data and "items" not in data
    assert isinstance(data["top"], str)
    assert '"amount":"5"' in data["top"] and '"kind":"1"' in data["top"]


def test_contract_rows_parents_first(alice: httpx.Client, vault: str) -> None:
    rows = search(alice, "contract", {"address": f"eq.{vault}"})
    assert rows == [
        {"address": vault, "creator": "BlockApps", "contract_name": "Base"},
        {"address": vault, "creator": "BlockApps", "contract_name": "Vault"},
    ]


def test_mapping_rows(alice: httpx.Client, vault: str, me: str) -> None:
    call(alice, vault, "move", to=addr(0xB0B), v=30)
    rows = search(
        alice,
        "mapping",
        {"address": f"eq.{vault}", "collection_name": "eq.balances", "order": "path.asc"},
    )
    by_key = {r["key"]["key"]: r for r in rows}
    assert by_key[addr(0xB0B)]["value"] == 30
    assert by_key[me]["value"] == 970
    r = by_key[me]
    assert list(r) == [
        "address",
        "block_hash",
        "block_timestamp",
        "block_number",
        "collection_name",
        "collection_type",
        "key",
        "path",
        "value",
    ]
    assert r["collection_type"] == "Mapping"
    assert r["path"] == f"balances[{me}]"
    assert isinstance(r["block_number"], str)
    call(alice, vault, "grant", who=addr(7), what="x", v=3)
    (g,) = search(alice, "mapping", {"address": f"eq.{vault}", "collection_name": "eq.grants"})
    assert g["key"] == {"key": addr(7), "key2": "x"}
    assert g["path"] == f"grants[{addr(7)}][x]"
    assert g["value"] == 3
    call(alice, vault, "put", id=4, amount=9, note="n")
    (e,) = search(alice, "mapping", {"address": f"eq.{vault}", "collection_name": "eq.entries"})
    assert e["value"] == {"amount": "9", "note": "n", "open": True, "who": me, "kind": "2"}
    call(alice, vault, "push", v=8)
    (i,) = search(alice, "mapping", {"address": f"eq.{vault}", "collection_name": "eq.items"})
    assert i["collection_type"] == "Array" and i["key"] == {"key": "0"} and i["value"] == 8


def test_event_rows(alice: httpx.Client, vault: str, me: str) -> None:
    tx = call(alice, vault, "tag", t="hello")
    rows = search(
        alice,
        "event",
        {"address": f"eq.{vault}", "block_hash": f"eq.{tx['txResult']['blockHash']}"},
    )
    assert [r["event_name"] for r in rows] == ["Tagged", "Moved"]
    assert [r["event_index"] for r in rows] == [1, 2]
    t = rows[0]
    assert list(t) == [
        "id",
        "address",
        "block_hash",
        "block_timestamp",
        "block_number",
        "transaction_sender",
        "event_index",
        "event_name",
        "attributes",
    ]
    assert t["transaction_sender"] == me
    assert t["attributes"]["tag"] == "hello"
    assert rows[1]["attributes"] == {"from": me, "to": me, "amount": "0"}
    arr = search(alice, "event_array", {"address": f"eq.{vault}", "order": "key.asc"})
    assert [(a["key"], a["value"], a["event_name"]) for a in arr] == [
        ("0", 4, "Tagged"),
        ("1", 5, "Tagged"),
    ]
    assert arr[0]["collection_name"] == "ids" and arr[0]["collection_type"] == "Event Array"


def test_history_per_block(alice: httpx.Client, me: str) -> None:
    res = submit(alice, upload_tx("Vault", SRC, {"_label": "h"}))
    v = str(res[0]["data"]["contents"]["address"])
    call(alice, v, "move", to=addr(0xC0), v=1)
    call(alice, v, "move", to=addr(0xC0), v=2)
    hist = search(alice, "history@storage", {"address": f"eq.{v}", "order": "valid_from.asc"})
    # one row per block that wrote the address (a mapping entry counts, as on the platform)
    assert len(hist) == 3
    assert [h["valid_to"] for h in hist][-1] == "infinity"
    assert hist[0]["valid_to"] == hist[1]["valid_from"] and hist[0]["valid_from"][10] == "T"
    assert [int(h["block_number"]) for h in hist] == sorted(int(h["block_number"]) for h in hist)
    hm = search(
        alice,
        "history@mapping",
        {
            "address": f"eq.{v}",
            "key->>key": f"eq.{addr(0xC0)}",
            "select": "value,valid_from,valid_to",
        },
    )
    assert [h["value"] for h in hm] == [1, 3]
    assert hm[0]["valid_to"] == hm[1]["valid_from"]
    assert hm[1]["valid_to"] == "infinity"
    current = search(
        alice,
        "history@mapping",
        {"address": f"eq.{v}", "key->>key": f"eq.{me}", "valid_to": "eq.infinity"},
    )
    assert [h["value"] for h in current] == [997]


def test_a_data_dir_from_before_gets_its_rows(node: RunningNode, alice: httpx.Client) -> None:
    """Last in the module: restarts the node on its data dir with the STRATO 16 rows removed,
    as a data dir made before them has none."""
    res = submit(alice, upload_tx("Vault", SRC, {"_label": "old"}))
    v = str(res[0]["data"]["contents"]["address"])
    call(alice, v, "tag", t="before")
    before = {
        name: search(alice, name, {"address": f"eq.{v}", "select": "*"})
        for name in ("storage", "contract", "BlockApps-Vault", "BlockApps-Vault-balances")
    }
    events = search(alice, "BlockApps-Vault-Moved", {"address": f"eq.{v}", "select": "from,to"})
    node.stop()
    db = sqlite3.connect(node.data_dir / DB_FILE)
    for t in ("storage", "contract", "mapping", "event", "event_array"):
        db.execute(f'DELETE FROM "cirrus16:{t}"')
    db.execute("DELETE FROM cirrus16_views")
    db.execute("DELETE FROM meta WHERE key = 'cirrus16'")
    db.commit()
    db.close()
    node.restart()  # not running: starts again on its port
    client = node.new_client("alice")
    for name, rows in before.items():
        got = search(client, name, {"address": f"eq.{v}", "select": "*"})
        assert [r["address"] for r in got] == [r["address"] for r in rows], name
    (s,) = search(client, "storage", {"address": f"eq.{v}"})
    assert s["data"] == before["storage"][0]["data"]
    assert (
        search(client, "BlockApps-Vault-Moved", {"address": f"eq.{v}", "select": "from,to"})
        == events
    )
