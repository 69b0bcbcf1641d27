"""A collection view's ``count()`` comes from counts the indexer keeps (cirrus/mapping16.py):
through a real node, after every kind of write a contract makes to its collections, the count
equals the rows the view lists, for the main chain and a private one. One node for the module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

SEARCH = "/cirrus/search"

SRC = """
contract Ledger {
    mapping(address => uint) public balances;
    mapping(uint => mapping(uint => uint)) public grid;
    uint[] public items;
    function set(address a, uint v) public { balances[a] = v; }
    function put(uint i, uint j, uint v) public { grid[i][j] = v; }
    function clear(uint i) public { delete grid[i]; }
    function push(uint v) public { items.push(v); }
    function reset(uint n) public { items = new uint[](n); }
}
"""
VIEWS = ["BlockApps-Ledger-balances", "BlockApps-Ledger-grid", "BlockApps-Ledger-items"]


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory)
    try:
        yield n
    finally:
        n.stop()


def deploy(client: httpx.Client) -> str:
    res = submit(client, upload_tx("Ledger", SRC, {}))
    assert res[0]["status"] == "Success", res
    return str(res[0]["data"]["contents"]["address"])


def call(client: httpx.Client, address: str, method: str, args: dict[str, Any]) -> None:
    res = submit(client, call_tx(address, method, args))
    assert res[0]["status"] == "Success", res


def counts(client: httpx.Client) -> dict[str, tuple[int, int]]:
    """Per view: (count() answered, rows listed), also with Prefer: count=exact."""
    out = {}
    for view in VIEWS:
        r = client.get(f"{SEARCH}/{view}", params={"select": "count()"})
        assert r.status_code == 200, r.text
        listed = client.get(f"{SEARCH}/{view}", headers={"Prefer": "count=exact"})
        assert listed.status_code == 200, listed.text
        total = int(listed.headers["Content-Range"].rpartition("/")[2])
        assert total == len(listed.json())
        out[view] = (r.json()[0]["count"], len(listed.json()))
    return out


def agree(client: httpx.Client) -> dict[str, int]:
    got = counts(client)
    for view, (counted, listed) in got.items():
        assert counted == listed, (view, got)
    return {view: c for view, (c, _) in got.items()}


def test_counts_follow_every_kind_of_write(node: RunningNode) -> None:
    alice = node.new_client("alice")
    a = deploy(alice)
    b = deploy(alice)
    assert agree(alice) == dict.fromkeys(VIEWS, 0)
    for i in range(1, 4):
        call(alice, a, "set", {"a": format(i, "040x"), "v": i})
        call(alice, b, "set", {"a": format(i, "040x"), "v": 10 * i})
    assert agree(alice)["BlockApps-Ledger-balances"] == 6
    call(alice, a, "set", {"a": format(1, "040x"), "v": 0})  # to zero: leaves the view
    call(alice, a, "set", {"a": format(2, "040x"), "v": 7})  # changed: stays
    assert agree(alice)["BlockApps-Ledger-balances"] == 5
    call(alice, a, "set", {"a": format(1, "040x"), "v": 4})  # back from zero
    assert agree(alice)["BlockApps-Ledger-balances"] == 6
    for j in range(3):
        call(alice, a, "put", {"i": 1, "j": j, "v": j + 1})
        call(alice, a, "put", {"i": 2, "j": j, "v": j + 1})
    assert agree(alice)["BlockApps-Ledger-grid"] == 6
    call(alice, a, "clear", {"i": 1})  # a nested mapping deleted: its entries go
    assert agree(alice)["BlockApps-Ledger-grid"] == 3
    for v in (5, 6, 7):
        call(alice, a, "push", {"v": v})
    assert agree(alice)["BlockApps-Ledger-items"] == 3
    call(alice, a, "reset", {"n": 5})  # the array replaced by zeros: none shown
    assert agree(alice)["BlockApps-Ledger-items"] == 0
    call(alice, a, "push", {"v": 9})
    assert agree(alice)["BlockApps-Ledger-items"] == 1


def send(client: httpx.Client, tx: dict[str, Any], chain: str) -> str:
    r = client.post(
        "/bloc/v2.2/transaction",
        params={"resolve": "true", "chainid": chain},
        json={"txs": [tx], "txParams": {"gasLimit": 100_000_000, "gasPrice": 1}},
    )
    assert r.status_code == 200, r.text
    res: dict[str, Any] = r.json()[0]
    assert res["status"] == "Success", res
    return str(res["data"]["contents"].get("address", "")) if res["data"]["contents"] else ""


def test_private_chain_rows_are_counted_for_members_only(node: RunningNode) -> None:
    alice = node.new_client("alice")
    bob = node.new_client("bob")
    before = agree(bob)
    r = alice.post(
        "/bloc/v2.2/chain",
        json={
            "label": "counts",
            "members": [{"orgName": "Acme", "access": True}],
            "balances": [{"address": node.address("alice"), "balance": 1000}],
            "src": SRC,
            "contract": "Ledger",
            "args": {},
            "metadata": {"VM": "SolidVM"},
        },
    )
    assert r.status_code == 200, r.text
    chain = str(r.json())
    ledger = send(alice, upload_tx("Ledger", SRC, {}), chain)
    send(alice, call_tx(ledger, "set", {"a": format(9, "040x"), "v": 1}), chain)
    send(alice, call_tx(ledger, "set", {"a": format(8, "040x"), "v": 2}), chain)
    assert agree(bob) == before  # not a member: nothing more
    assert agree(alice)["BlockApps-Ledger-balances"] == before["BlockApps-Ledger-balances"] + 2
