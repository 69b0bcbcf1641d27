"""Private chains under STRATO 16's Cirrus names: the platform has no chain column, and the
sandbox still shows a private chain's rows only to its members, under every name (global
tables, history tables, typed views). One node for the module.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, upload_tx

SEARCH = "/cirrus/search"

SRC = """
contract Safe {
    event Put(string what, uint n);
    string public secret;
    mapping(uint => uint) public slots;
    constructor(string _s) public { secret = _s; slots[1] = 11; emit Put(_s, 1); }
    function put(uint k, uint v) public { slots[k] = v; emit Put(secret, v); }
}
"""


def search(client: httpx.Client, table: str, params: dict[str, str] | None = None) -> Any:
    r = client.get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == 200, f"{table}: {r.status_code}: {r.text[:2000]}"
    return r.json()


def send(client: httpx.Client, tx: dict[str, Any], chain: str | None = None) -> dict[str, Any]:
    params = {"resolve": "true"} | ({"chainid": chain} if chain else {})
    r = client.post(
        "/bloc/v2.2/transaction",
        params=params,
        json={"txs": [tx], "txParams": {"gasLimit": 100_000_000, "gasPrice": 1}},
    )
    assert r.status_code == 200, r.text
    res: dict[str, Any] = r.json()[0]
    assert res["status"] == "Success", res
    return res


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.new_client("alice")


@pytest.fixture(scope="module")
def bob(node: RunningNode) -> httpx.Client:
    return node.new_client("bob")


@pytest.fixture(scope="module")
def safes(node: RunningNode, alice: httpx.Client) -> dict[str, str]:
    """A Safe on a chain of the organization Acme (alice's, not bob's) and one on main."""
    r = alice.post(
        "/bloc/v2.2/chain",
        json={
            "label": "acme-only",
            "members": [{"orgName": "Acme", "access": True}],
            "balances": [{"address": node.address("alice"), "balance": 1000}],
            "src": SRC,
            "contract": "Safe",
            "args": {"_s": "governance"},
            "metadata": {"VM": "SolidVM"},
        },
    )
    assert r.status_code == 200, r.text
    chain = str(r.json())
    private = send(alice, upload_tx("Safe", SRC, {"_s": "hidden"}), chain)
    address = private["data"]["contents"]["address"]
    send(alice, call_tx(address, "put", {"k": 2, "v": 22}), chain)
    public = send(alice, upload_tx("Safe", SRC, {"_s": "public"}))
    return {"chain": chain, "private": address, "public": public["data"]["contents"]["address"]}


NAMES = [
    "storage",
    "contract",
    "mapping",
    "event",
    "history@storage",
    "history@mapping",
    "BlockApps-Safe",
    "BlockApps-Safe-slots",
    "BlockApps-Safe-Put",
]


@pytest.mark.parametrize("name", NAMES)
def test_members_see_the_chain_others_do_not(
    alice: httpx.Client, bob: httpx.Client, safes: dict[str, str], name: str
) -> None:
    # addresses repeat across chains (the governance contract's, a sender's nonce): count
    for address in (safes["private"], "0" * 37 + "100"):
        where = {"address": f"eq.{address}", "select": "count"}
        (mine,) = search(alice, name, where)
        (theirs,) = search(bob, name, where)
        assert mine["count"] > theirs["count"], address
    rows = search(bob, name)
    assert "hidden" not in str(rows) and "governance" not in str(rows)
    assert safes["public"] in {r["address"] for r in rows}


def test_typed_values_of_the_chain(alice: httpx.Client, safes: dict[str, str]) -> None:
    (row,) = search(alice, "BlockApps-Safe", {"address": f"eq.{safes['private']}"})
    assert row["secret"] == "hidden"
    rows = search(alice, "BlockApps-Safe-slots", {"address": f"eq.{safes['private']}"})
    assert sorted((r["key"], r["value"]) for r in rows) == [(1, 11), (2, 22)]


def test_embeds_stay_on_the_row_chain(
    alice: httpx.Client, bob: httpx.Client, safes: dict[str, str]
) -> None:
    # the governance contract's address is on main and on the private chain: each storage row
    # embeds its own chain's mapping rows, and bob's never the private chain's
    gov = "0" * 37 + "100"
    where = {"address": f"eq.{gov}", "select": "data,mapping(collection_name,value)"}
    rows = search(alice, "storage", where)
    private = [r for r in rows if "governance" in str(r["data"])]
    assert len(private) == 1 and len(rows) == 2
    assert [m["value"] for m in private[0]["mapping"] if m["collection_name"] == "slots"] == [11]
    others = [r for r in rows if r is not private[0]]
    assert not [m for m in others[0]["mapping"] if m["collection_name"] == "slots"]
    assert "slots" not in str(search(bob, "storage", where))
    (row,) = search(
        alice,
        "BlockApps-Safe-slots",
        {
            "address": f"eq.{safes['private']}",
            "key": "eq.2",
            "select": "value,safe:BlockApps-Safe(secret)",
        },
    )
    assert row == {"value": 22, "safe": {"secret": "hidden"}}
    events = search(bob, "event", {"select": "event_name,storage(data)"})
    assert "hidden" not in str(events) and "governance" not in str(events)
