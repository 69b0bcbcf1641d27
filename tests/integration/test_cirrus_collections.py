"""Cirrus collection tables over HTTP on a real node: one row per entry of each mapping and array
state variable, in a table named ``<contract table>-<variable>`` (STRATO 16).

Rows carry the block columns, ``collection_name``, ``collection_type``, ``key`` (``key2`` ... for
nested levels; numbers for integer keys and indexes) and ``value`` (jsonb as the platform's view
gives it: integers as numbers, a struct as an object whose integers are strings). Entries holding
a zero value have no row. One node for the module; each test deploys its own contract.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.node.store import DB_FILE
from tests.integration.conftest import make_node
from tests.integration.node_fixture import (
    HEX64,
    RunningNode,
    body,
    call_tx,
    submit,
    upload_tx,
)

SEARCH = "/cirrus/search"

BOOK_SRC = """
contract Book {
    enum Kind { Plain, Silver, Gold }
    struct Entry {
        uint amount;
        string note;
        bool open;
        address who;
        Kind kind;
    }

    string public title;
    mapping(address => uint) public balances;
    mapping(address => mapping(string => uint)) public grants;
    mapping(string => bool) public flags;
    uint[] public items;
    uint[][] public grid;
    mapping(uint => Entry) public entries;
    mapping(address => uint[]) public lists;

    constructor(string _title) public {
        title = _title;
        balances[msg.sender] = 100;
        items.push(7);
    }

    function setBalance(address who, uint v) public { balances[who] = v; }
    function move(address from, address to, uint v) public {
        balances[from] -= v;
        balances[to] += v;
    }
    function fill(uint n) public {
        for (uint i = 1; i <= n; i++) {
            balances[address(i)] = i;
        }
    }
    function grant(address who, string what, uint v) public { grants[who][what] = v; }
    function flag(string name, bool on) public { flags[name] = on; }
    function push(uint v) public { items.push(v); }
    function pop() public { items.pop(); }
    function setItem(uint i, uint v) public { items[i] = v; }
    function clearItems() public { delete items; }
    function addRow(uint a, uint b) public {
        uint[] memory r = new uint[](2);
        r[0] = a;
        r[1] = b;
        grid.push(r);
    }
    function setCell(uint i, uint j, uint v) public { grid[i][j] = v; }
    function put(uint id, uint amount, string note, bool open) public {
        entries[id] = Entry(amount, note, open, msg.sender, Kind.Gold);
    }
    function setAmount(uint id, uint amount) public { entries[id].amount = amount; }
    function drop(uint id) public { delete entries[id]; }
    function append(address who, uint v) public { lists[who].push(v); }
    function failAfterWrites(address who, uint v) public {
        balances[who] = v;
        grants[who]["x"] = v;
        items.push(v);
        entries[v].amount = v;
        require(false, "refused on purpose");
    }
}
"""


# ---------------------------------------------------------------------------- helpers


def deploy(client: httpx.Client, title: str) -> str:
    res = submit(client, upload_tx("Book", BOOK_SRC, {"_title": title}))
    assert res[0]["status"] == "Success", res
    return str(res[0]["data"]["contents"]["address"])


def call(client: httpx.Client, address: str, method: str, **args: Any) -> dict[str, Any]:
    res = submit(client, call_tx(address, method, args))
    assert res[0]["status"] == "Success", res
    out: dict[str, Any] = res[0]
    return out


def search(client: httpx.Client, table: str, params: dict[str, str], status: int = 200) -> Any:
    r = client.get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == status, f"{table}: {r.status_code}: {r.text[:2000]}"
    return r.json()


def entries(client: httpx.Client, variable: str, book: str, columns: str) -> list[Any]:
    """The rows of one collection for one contract, sorted by their columns."""
    rows = search(client, f"Book-{variable}", {"address": f"eq.{book}", "select": columns})
    return sorted(rows, key=lambda r: [str(r[c]) for c in columns.split(",")])


def addr(n: int) -> str:
    return format(n, "040x")


def snapshot_rows(client: httpx.Client, book: str) -> dict[str, list[Any]]:
    """Every row of every collection of one contract (all columns)."""
    out = {}
    for var in ("balances", "grants", "flags", "items", "grid", "entries", "lists"):
        rows = search(client, f"Book-{var}", {"address": f"eq.{book}", "order": "key.asc"})
        out[var] = sorted(rows, key=repr)
    return out


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.new_client("alice")


@pytest.fixture(scope="module")
def me(node: RunningNode) -> str:
    return node.address("alice")


# ---------------------------------------------------------------------------- tests


def test_mapping_of_integers(alice: httpx.Client, me: str) -> None:
    book = deploy(alice, "ints")
    assert entries(alice, "balances", book, "key,value") == [{"key": me, "value": 100}]
    tx = call(alice, book, "move", **{"from": me, "to": addr(0xB0B), "v": 30})
    rows = search(alice, "Book-balances", {"address": f"eq.{book}", "key": f"eq.{addr(0xB0B)}"})
    (row,) = rows
    block_hash = tx["txResult"]["blockHash"]
    assert row == {
        "address": book,
        "chainId": "",
        "block_hash": block_hash,
        "block_timestamp": row["block_timestamp"],
        "block_number": row["block_number"],
        "transaction_hash": tx["hash"],
        "transaction_sender": me,
        "collection_name": "balances",
        "collection_type": "Mapping",
        "value": 30,
        "key": addr(0xB0B),
    }
    assert list(row) == list(row)  # the platform's column order: value before the keys
    assert list(row)[-2:] == ["value", "key"]
    assert HEX64.match(row["block_hash"])
    assert row["block_number"].isdigit()
    assert row["block_timestamp"].endswith(" UTC")
    assert entries(alice, "balances", book, "key,value") == sorted(
        [{"key": me, "value": 70}, {"key": addr(0xB0B), "value": 30}],
        key=lambda r: [str(r["key"]), str(r["value"])],
    )


def test_unchanged_entries_keep_their_block(alice: httpx.Client, me: str) -> None:
    book = deploy(alice, "blocks")
    first = search(alice, "Book-balances", {"address": f"eq.{book}", "key": f"eq.{me}"})
    call(alice, book, "setBalance", who=addr(5), v=5)
    again = search(alice, "Book-balances", {"address": f"eq.{book}", "key": f"eq.{me}"})
    assert again == first


def test_large_integers_stay_exact(alice: httpx.Client) -> None:
    book = deploy(alice, "big")
    big = 2**200 + 1
    call(alice, book, "setBalance", who=addr(9), v=str(big))
    r = alice.get(
        f"{SEARCH}/Book-balances", params={"address": f"eq.{book}", "key": f"eq.{addr(9)}"}
    )
    assert f'"value":{big}' in r.text.replace(" ", "")
    rows = search(alice, "Book-balances", {"address": f"eq.{book}", "value": f"eq.{big}"})
    assert [r["key"] for r in rows] == [addr(9)]


def test_nested_mapping_has_key_and_key2(alice: httpx.Client, me: str) -> None:
    book = deploy(alice, "nested")
    call(alice, book, "grant", who=addr(1), what="read", v=1)
    call(alice, book, "grant", who=addr(1), what="write", v=2)
    call(alice, book, "grant", who=addr(2), what="read", v=3)
    assert entries(alice, "grants", book, "key,key2,value") == [
        {"key": addr(1), "key2": "read", "value": 1},
        {"key": addr(1), "key2": "write", "value": 2},
        {"key": addr(2), "key2": "read", "value": 3},
    ]
    (row,) = search(
        alice,
        "Book-grants",
        {"address": f"eq.{book}", "key": f"eq.{addr(1)}", "key2": "eq.write"},
    )
    assert row["collection_type"] == "Mapping"
    assert list(row)[-3:] == ["value", "key", "key2"]
    # an inner entry zeroed leaves; its sibling stays as it was
    before = search(
        alice, "Book-grants", {"address": f"eq.{book}", "key": f"eq.{addr(1)}", "key2": "eq.read"}
    )
    call(alice, book, "grant", who=addr(1), what="write", v=0)
    assert entries(alice, "grants", book, "key,key2,value") == [
        {"key": addr(1), "key2": "read", "value": 1},
        {"key": addr(2), "key2": "read", "value": 3},
    ]
    after = search(
        alice, "Book-grants", {"address": f"eq.{book}", "key": f"eq.{addr(1)}", "key2": "eq.read"}
    )
    assert after == before


def test_array_rows_follow_push_set_pop_and_delete(alice: httpx.Client) -> None:
    book = deploy(alice, "array")
    call(alice, book, "push", v=8)
    call(alice, book, "push", v=0)  # a zero element has no row
    call(alice, book, "push", v=9)
    assert entries(alice, "items", book, "key,value") == [
        {"key": 0, "value": 7},
        {"key": 1, "value": 8},
        {"key": 3, "value": 9},
    ]
    (row,) = search(alice, "Book-items", {"address": f"eq.{book}", "key": "eq.3"})
    assert row["collection_type"] == "Array"
    call(alice, book, "setItem", i=2, v=5)
    call(alice, book, "pop")
    assert entries(alice, "items", book, "key,value") == [
        {"key": 0, "value": 7},
        {"key": 1, "value": 8},
        {"key": 2, "value": 5},
    ]
    call(alice, book, "clearItems")
    assert entries(alice, "items", book, "key") == []
    call(alice, book, "push", v=4)
    assert entries(alice, "items", book, "key,value") == [{"key": 0, "value": 4}]


def test_array_of_arrays_and_mapping_of_arrays(alice: httpx.Client, me: str) -> None:
    book = deploy(alice, "grid")
    call(alice, book, "addRow", a=1, b=2)
    call(alice, book, "addRow", a=3, b=0)
    call(alice, book, "setCell", i=1, j=1, v=4)
    assert entries(alice, "grid", book, "key,key2,value") == [
        {"key": 0, "key2": 0, "value": 1},
        {"key": 0, "key2": 1, "value": 2},
        {"key": 1, "key2": 0, "value": 3},
        {"key": 1, "key2": 1, "value": 4},
    ]
    (row,) = search(alice, "Book-grid", {"address": f"eq.{book}", "key": "eq.1", "key2": "eq.1"})
    assert row["collection_type"] == "Array"
    call(alice, book, "append", who=me, v=10)
    call(alice, book, "append", who=me, v=11)
    assert entries(alice, "lists", book, "key,key2,value") == [
        {"key": me, "key2": 0, "value": 10},
        {"key": me, "key2": 1, "value": 11},
    ]
    (row,) = search(alice, "Book-lists", {"address": f"eq.{book}", "key2": "eq.1"})
    assert row["collection_type"] == "Mapping"  # after the outermost container


def test_mapping_of_structs(alice: httpx.Client, me: str) -> None:
    book = deploy(alice, "structs")
    call(alice, book, "put", id=1, amount=5, note="first", open=True)
    call(alice, book, "put", id=2, amount=0, note="", open=False)  # who and kind are set
    rows = search(alice, "Book-entries", {"address": f"eq.{book}", "order": "key.asc"})
    assert [list(r)[-2:] for r in rows] == [["key", "value"]] * 2  # keys first for structs
    assert [(r["key"], r["value"]) for r in rows] == [
        (1, {"who": me, "kind": "Gold", "note": "first", "open": True, "amount": "5"}),
        (2, {"who": me, "kind": "Gold", "note": "", "open": False, "amount": "0"}),
    ]
    # members in jsonb's order: shorter names first
    r = alice.get(f"{SEARCH}/Book-entries", params={"address": f"eq.{book}", "key": "eq.1"})
    assert r.text.index('"who"') < r.text.index('"kind"') < r.text.index('"amount"')
    call(alice, book, "setAmount", id=1, amount=6)
    (row,) = search(alice, "Book-entries", {"address": f"eq.{book}", "key": "eq.1"})
    assert row["value"]["amount"] == "6"
    # a struct deleted (all members zero) has no row; a member set on a missing entry adds one
    call(alice, book, "drop", id=1)
    call(alice, book, "setAmount", id=3, amount=1)
    assert entries(alice, "entries", book, "key") == [{"key": 2}, {"key": 3}]
    (row,) = search(alice, "Book-entries", {"address": f"eq.{book}", "key": "eq.3"})
    assert row["value"] == {"who": "", "kind": "Plain", "note": "", "open": False, "amount": "1"}
    # a filter on the object value (jsonb equality, member order free)
    value = '{"amount": "1", "open": false, "note": "", "kind": "Plain", "who": ""}'
    rows = search(alice, "Book-entries", {"address": f"eq.{book}", "value": f"eq.{value}"})
    assert [r["key"] for r in rows] == [3]


def test_json_paths_reach_into_struct_values(alice: httpx.Client, me: str) -> None:
    """PostgREST's ``->`` (jsonb) and ``->>`` (text) in select, filters and order."""
    book = deploy(alice, "paths")
    call(alice, book, "put", id=1, amount=5, note="first", open=True)
    call(alice, book, "put", id=2, amount=12, note="second", open=False)
    call(alice, book, "put", id=3, amount=7, note="third", open=True)
    base = {"address": f"eq.{book}"}
    rows = search(
        alice,
        "Book-entries",
        {**base, "select": "key,value->>note,amt:value->>amount", "order": "key.asc"},
    )
    assert rows == [
        {"key": 1, "note": "first", "amt": "5"},
        {"key": 2, "note": "second", "amt": "12"},
        {"key": 3, "note": "third", "amt": "7"},
    ]
    rows = search(
        alice, "Book-entries", {**base, "select": "key", "value->>open": "eq.true", "order": "key"}
    )
    assert rows == [{"key": 1}, {"key": 3}]
    rows = search(alice, "Book-entries", {**base, "select": "key", "value->>note": "like.*ir*"})
    assert rows == [{"key": 1}, {"key": 3}]
    # members that hold integers are text: they sort and compare as text, as on the platform
    rows = search(alice, "Book-entries", {**base, "select": "key", "order": "value->>amount.desc"})
    assert [r["key"] for r in rows] == [3, 1, 2]
    # -> keeps jsonb: a JSON literal compares with it
    rows = search(
        alice, "Book-entries", {**base, "select": "key,value->open", "value->open": "eq.false"}
    )
    assert rows == [{"key": 2, "open": False}]
    rows = search(
        alice, "Book-entries", {**base, "select": "key", "or": "(value->>note.eq.third,key.eq.1)"}
    )
    assert sorted(r["key"] for r in rows) == [1, 3]
    # a member that is not there is NULL
    rows = search(alice, "Book-entries", {**base, "select": "key,value->>nothing", "key": "eq.1"})
    assert rows == [{"key": 1, "nothing": None}]
    # paths on values that are not objects give NULL; on columns that are not jsonb, an error
    rows = search(alice, "Book-balances", {**base, "select": "key,value->>x", "key": f"eq.{me}"})
    assert rows == [{"key": me, "x": None}]
    err = search(alice, "Book-entries", {**base, "key->>x": "eq.1"}, status=400)
    assert err["code"] == "42883"
    assert "numeric ->>" in err["message"]
    err = search(alice, "Book-entries", {**base, "select": "value->>a->b"}, status=400)
    assert err["code"] == "PGRST100"
    err = search(alice, "Book-entries", {**base, "select": "value->'a'"}, status=400)
    assert err["code"] == "PGRST100"


def test_zero_values_are_not_listed(alice: httpx.Client, me: str) -> None:
    book = deploy(alice, "zeros")
    call(alice, book, "flag", name="on", on=True)
    call(alice, book, "flag", name="off", on=False)
    assert entries(alice, "flags", book, "key,value") == [{"key": "on", "value": True}]
    call(alice, book, "flag", name="on", on=False)
    assert entries(alice, "flags", book, "key") == []
    # an emptied balance leaves the collection
    call(alice, book, "move", **{"from": me, "to": addr(7), "v": 100})
    assert entries(alice, "balances", book, "key,value") == [{"key": addr(7), "value": 100}]


def test_failed_transaction_leaves_no_rows(alice: httpx.Client, me: str) -> None:
    book = deploy(alice, "failure")
    call(alice, book, "setBalance", who=addr(3), v=3)
    before = snapshot_rows(alice, book)
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json=body(call_tx(book, "failAfterWrites", {"who": addr(3), "v": 42})),
    )
    assert r.status_code == 422, r.text
    assert "refused on purpose" in r.text
    assert snapshot_rows(alice, book) == before
    # a failing transaction in a block with a successful one: only the latter's rows
    res = submit(
        alice,
        call_tx(book, "failAfterWrites", {"who": addr(4), "v": 43}),
        call_tx(book, "setBalance", {"who": addr(4), "v": 4}),
        expect=None,
    )
    assert [x["status"] for x in res] == ["Failure", "Success"], res
    assert res[0]["txResult"]["blockHash"] == res[1]["txResult"]["blockHash"]
    assert entries(alice, "balances", book, "key,value") == sorted(
        [{"key": me, "value": 100}, {"key": addr(3), "value": 3}, {"key": addr(4), "value": 4}],
        key=lambda r: [str(r["key"]), str(r["value"])],
    )
    assert entries(alice, "grants", book, "key") == []
    assert entries(alice, "entries", book, "key") == []


def test_one_block_with_many_writes(alice: httpx.Client, me: str) -> None:
    """Several transactions of one block on the same entries: the last write wins, the row
    names the transaction that made it."""
    book = deploy(alice, "batch")
    res = submit(
        alice,
        call_tx(book, "grant", {"who": addr(1), "what": "a", "v": 1}),
        call_tx(book, "grant", {"who": addr(1), "what": "b", "v": 2}),
        call_tx(book, "grant", {"who": addr(1), "what": "a", "v": 0}),
        call_tx(book, "push", {"v": 1}),
        call_tx(book, "push", {"v": 2}),
        call_tx(book, "pop", {}),
        call_tx(book, "put", {"id": 4, "amount": 4, "note": "n", "open": True}),
        call_tx(book, "setAmount", {"id": 4, "amount": 5}),
    )
    assert {x["status"] for x in res} == {"Success"}
    assert len({x["txResult"]["blockHash"] for x in res}) == 1
    assert entries(alice, "grants", book, "key,key2,value,transaction_hash") == [
        {"key": addr(1), "key2": "b", "value": 2, "transaction_hash": res[1]["hash"]}
    ]
    assert entries(alice, "items", book, "key,value") == [
        {"key": 0, "value": 7},
        {"key": 1, "value": 1},
    ]
    (row,) = search(alice, "Book-entries", {"address": f"eq.{book}"})
    assert row["value"]["amount"] == "5"
    assert row["transaction_hash"] == res[7]["hash"]


def test_filters_and_order_on_key_and_value(alice: httpx.Client) -> None:
    book = deploy(alice, "queries")
    call(alice, book, "fill", n=12)
    base = {"address": f"eq.{book}", "select": "key,value"}
    rows = search(alice, "Book-balances", {**base, "value": "gt.9", "order": "value.desc"})
    assert [r["value"] for r in rows] == [100, 12, 11, 10]  # numbers compare as numbers
    rows = search(alice, "Book-balances", {**base, "value": "lte.10", "order": "value.asc"})
    assert [r["value"] for r in rows] == list(range(1, 11))
    rows = search(alice, "Book-balances", {**base, "value": "in.(2,3)", "order": "key.asc"})
    assert rows == [{"key": addr(2), "value": 2}, {"key": addr(3), "value": 3}]
    rows = search(alice, "Book-balances", {**base, "key": f"eq.{addr(5)}"})
    assert rows == [{"key": addr(5), "value": 5}]
    rows = search(
        alice, "Book-balances", {**base, "or": "(value.lt.2,value.eq.12)", "order": "value.asc"}
    )
    assert [r["value"] for r in rows] == [1, 12]
    counted = search(alice, "Book-balances", {"address": f"eq.{book}", "select": "count"})
    assert counted == [{"count": 13}]
    rows = search(
        alice,
        "Book-balances",
        {**base, "key": f"lte.{addr(12)}", "order": "key.desc", "limit": "2"},
    )
    assert [r["key"] for r in rows] == [addr(12), addr(11)]
    # integer keys sort as numbers
    call(alice, book, "push", v=1)
    for i in range(10):
        call(alice, book, "push", v=i + 2)
    rows = search(alice, "Book-items", {**base, "key": "gte.9", "order": "key.desc"})
    assert [r["key"] for r in rows] == [11, 10, 9]


def test_bad_filters_on_value_are_clear_errors(alice: httpx.Client) -> None:
    book = deploy(alice, "errors")
    base = {"address": f"eq.{book}"}
    err = search(alice, "Book-balances", {**base, "value": "eq.abc"}, status=400)
    assert err["code"] == "22P02"
    assert err["message"] == "invalid input syntax for type json"
    err = search(alice, "Book-balances", {**base, "value": "like.*1*"}, status=400)
    assert err["code"] == "42883"
    assert "jsonb ~~" in err["message"]
    err = search(alice, "Book-flags", {**base, "value": "is.true"}, status=400)
    assert err["code"] == "42804"
    err = search(alice, "Book-items", {**base, "key": "eq.x"}, status=400)
    assert err["code"] == "22P02"
    assert search(alice, "Book-balances", {**base, "value": "is.null"}) == []
    # a JSON string literal compares with string values
    call(alice, book, "flag", name="yes", on=True)
    assert search(alice, "Book-flags", {**base, "value": "eq.true", "select": "key"}) == [
        {"key": "yes"}
    ]
    assert search(alice, "Book-flags", {**base, "value": 'eq."true"'}) == []


PRIVATE_SRC = """
contract Vaulted {
    mapping(string => uint) public secrets;
    constructor(uint v) public { secrets["genesis"] = v; }
    function keep(string name, uint v) public { secrets[name] = v; }
}
"""


def test_entries_of_a_private_chain_only_for_members(
    node: RunningNode, alice: httpx.Client, me: str
) -> None:
    r = alice.post(
        "/bloc/v2.2/chain",
        json={
            "label": "collections",
            "src": PRIVATE_SRC,
            "contract": "Vaulted",
            "args": {"v": 1},
            "members": [{"orgName": "Acme"}],  # alice's organisation, not bob's
            "balances": [{"address": me, "balance": 1}],
            "metadata": {"VM": "SolidVM"},
        },
    )
    assert r.status_code == 200, r.text
    chain = r.json()
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": chain},
        json=body(call_tx("0" * 37 + "100", "keep", {"name": "plan", "v": 2})),
    )
    assert r.status_code == 200, r.text
    assert r.json()[0]["status"] == "Success", r.text
    bob = node.client("bob")
    for client, seen in ((alice, [("genesis", 1, chain), ("plan", 2, chain)]), (bob, [])):
        rows = search(client, "Vaulted-secrets", {"order": "key.asc"})
        assert [(x["key"], x["value"], x["chainId"]) for x in rows] == seen
        rows = search(client, "Vaulted-secrets", {"chainId": f"eq.{chain}", "value": "gt.0"})
        assert len(rows) == len(seen)
        rows = search(client, "Vaulted-secrets", {"address": f"eq.{'0' * 37}100"})
        assert len(rows) == len(seen)
        assert search(client, "Vaulted-secrets", {"select": "count"}) == [{"count": len(seen)}]


def test_openapi_describes_collection_tables(alice: httpx.Client) -> None:
    deploy(alice, "schema")
    r = alice.get(f"{SEARCH}/")
    assert r.status_code == 200
    defs = r.json()["definitions"]
    balances = defs["Book-balances"]
    props = balances["properties"]
    assert list(props) == [
        "address",
        "chainId",
        "block_hash",
        "block_timestamp",
        "block_number",
        "transaction_hash",
        "transaction_sender",
        "collection_name",
        "collection_type",
        "value",
        "key",
    ]
    assert props["key"] == {"type": "string", "format": "text"}
    assert props["value"] == {"format": "jsonb"}
    assert "record_id" not in props
    assert "Collection `balances`" in balances["description"]
    assert "table `Book`" in balances["description"]
    items = defs["Book-items"]["properties"]
    assert items["key"] == {"type": "number", "format": "numeric"}
    grants = defs["Book-grants"]["properties"]
    assert list(grants)[-3:] == ["value", "key", "key2"]
    entries_ = defs["Book-entries"]["properties"]
    assert list(entries_)[-2:] == ["key", "value"]
    assert r.json()["paths"]["/Book-balances"] == {"get": {"tags": ["Book-balances"]}}
    # the contract table is as it was: the mapping is a column of 40 zeros, arrays none
    book = defs["Book"]["properties"]
    assert "balances" in book
    assert "items" not in book


def test_unknown_collection_is_404(alice: httpx.Client) -> None:
    err = search(alice, "Book-nothing", {}, status=404)
    assert err["code"] == "42P01"


# ---------------------------------------------------------------------------- restarts


@pytest.fixture(scope="module")
def durable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    """A node of its own for the restarts (the module node keeps running)."""
    n = make_node(tmp_path_factory, name="durable")
    try:
        yield n
    finally:
        n.stop()


def fill_book(client: httpx.Client, book: str, me: str, salt: int) -> None:
    call(client, book, "setBalance", who=addr(salt), v=salt)
    call(client, book, "grant", who=addr(1), what=f"r{salt}", v=salt)
    call(client, book, "grant", who=addr(2), what="w", v=salt)
    call(client, book, "push", v=salt)
    call(client, book, "addRow", a=salt, b=salt + 1)
    call(client, book, "put", id=salt, amount=salt, note=f"n{salt}", open=True)
    call(client, book, "setAmount", id=1, amount=salt)
    call(client, book, "append", who=me, v=salt)
    call(client, book, "flag", name=f"f{salt}", on=True)


def test_restart_and_replay_give_the_same_rows(durable: RunningNode) -> None:
    client = durable.client("alice")
    me = durable.address("alice")
    book = deploy(client, "durable")
    fill_book(client, book, me, 1)
    before = snapshot_rows(client, book)
    assert all(before.values())

    durable.restart()  # SIGTERM: the state is snapshot, nothing is replayed
    client = durable.client("alice")
    assert snapshot_rows(client, book) == before
    # writes into entries that existed before the restart (nested ones included) still land
    fill_book(client, book, me, 2)
    call(client, book, "grant", who=addr(1), what="r1", v=0)
    after = snapshot_rows(client, book)
    assert [r["key2"] for r in after["grants"] if r["key"] == addr(1)] == ["r2"]
    assert {r["key"]: r["value"]["amount"] for r in after["entries"]} == {1: "2", 2: "2"}

    durable.kill9()  # no snapshot: the blocks since the last one are replayed
    durable.restart()
    client = durable.client("alice")
    assert snapshot_rows(client, book) == after
    fill_book(client, book, me, 3)
    call(client, book, "drop", id=2)
    final = snapshot_rows(client, book)
    assert sorted(r["key"] for r in final["entries"]) == [1, 3]
    assert {r["key"]: r["value"] for r in final["balances"]} == {
        me: 100,
        addr(1): 1,
        addr(2): 2,
        addr(3): 3,
    }


def test_data_dir_without_collection_tables_gets_them_at_start(durable: RunningNode) -> None:
    """A data dir written before collection tables existed: the node indexes every entry
    once when it starts (the block columns then name each contract's last update)."""
    client = durable.client("alice")
    me = durable.address("alice")
    book = deploy(client, "older")
    fill_book(client, book, me, 4)
    want = snapshot_rows(client, book)
    durable.stop()
    db = sqlite3.connect(durable.data_dir / DB_FILE)
    try:
        names = [
            str(n) for (n,) in db.execute("SELECT name FROM cirrus_tables WHERE kind='collection'")
        ]
        assert "Book-balances" in names
        for n in names:
            db.execute(f'DROP TABLE "cirrus:{n}"')
        db.execute("DELETE FROM cirrus_tables WHERE kind='collection'")
        db.execute("DELETE FROM meta WHERE key='cirrus_collections'")
        db.commit()
    finally:
        db.close()
    durable.start(durable.port)
    client = durable.client("alice")
    got = snapshot_rows(client, book)

    def entry_columns(rows: dict[str, list[Any]]) -> dict[str, list[Any]]:
        keep = ("collection_name", "collection_type", "key", "key2", "value", "address")
        return {
            v: sorted(({c: r[c] for c in keep if c in r} for r in rs), key=repr)
            for v, rs in rows.items()
        }

    assert entry_columns(got) == entry_columns(want)
    # later blocks keep them up to date
    call(client, book, "setBalance", who=me, v=0)
    assert me not in {r["key"] for r in search(client, "Book-balances", {"address": f"eq.{book}"})}
