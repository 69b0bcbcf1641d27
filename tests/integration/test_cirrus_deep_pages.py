"""Deep Cirrus pages over HTTP on a real node: however the node reads a page (from the far end of
the table with the order reversed, sorting only keys, without the chain clause when nothing is
hidden from the user), every ``offset``/``limit`` window equals the same slice of the whole
ordered result, for a member of a private chain and for a user who cannot see its rows.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import HEX64, RunningNode, upload_tx

SEARCH = "/cirrus/search/Tie"
MAIN_ROWS = 230
CHAIN_ROWS = 40
TIE_SRC = """
contract Tie {
    uint public v;
    string public tag;
    constructor(uint _v, string _tag) public { v = _v; tag = _tag; }
}
"""
ORDERS = ["", "v.desc", "v.asc,tag.desc", "tag.asc,v.desc"]


def tie(i: int) -> dict[str, Any]:
    return upload_tx("Tie", TIE_SRC, {"_v": i % 5, "_tag": f"t{(i * 7) % 11}"})


def create(client: httpx.Client, txs: list[dict[str, Any]], chain: str | None = None) -> None:
    params = {"resolve": "true", **({"chainid": chain} if chain else {})}
    r = client.post(
        "/svc/v2.3/transaction",
        params=params,
        json={"txs": txs, "txParams": {"gasLimit": 100_000_000, "gasPrice": 1}},
    )
    assert r.status_code == 200, r.text
    assert all(res["status"] == "Success" for res in r.json()), r.text[:2000]


@pytest.fixture(scope="module")
def clients(node: RunningNode) -> dict[str, httpx.Client]:
    """alice (member of a private chain holding some Tie rows) and bob (member of none); the
    rows of the two kinds are interleaved in insertion order."""
    alice, bob = node.new_client("alice"), node.new_client("bob")
    r = alice.post(
        "/bloc/v2.2/chain",
        json={
            "label": "acme-ties",
            "members": [{"orgName": "Acme", "access": True}],
            "balances": [{"address": node.address("alice"), "balance": 1000}],
            "src": TIE_SRC,
            "contract": "Tie",
            "args": {"_v": 3, "_tag": "governance"},
            "metadata": {"VM": "SolidVM"},
        },
    )
    assert r.status_code == 200, r.text
    chain = str(r.json())
    assert HEX64.match(chain)
    batches = CHAIN_ROWS // 10
    for k in range(batches):
        lo, hi = MAIN_ROWS * k // batches, MAIN_ROWS * (k + 1) // batches
        create(alice, [tie(i) for i in range(lo, hi)])
        create(alice, [tie(1000 + 10 * k + i) for i in range(10)], chain)
    return {"alice": alice, "bob": bob}


def get(client: httpx.Client, order: str, **params: Any) -> Any:
    query = {**({"order": order} if order else {}), **{k: str(v) for k, v in params.items()}}
    r = client.get(SEARCH, params=query, headers={"Prefer": "count=exact"})
    assert r.status_code in (200, 206), r.text
    return r.json(), r.headers.get("content-range")


@pytest.mark.parametrize("user", ["alice", "bob"])
@pytest.mark.parametrize("order", ORDERS)
def test_every_window_is_the_slice_of_the_whole_result(
    clients: dict[str, httpx.Client], user: str, order: str
) -> None:
    client = clients[user]
    whole, rng = get(client, order)  # offset 0: read forward, as PostgREST does
    n = len(whole)
    private = sum(1 for r in whole if r["chainId"])
    assert (n, private) == (
        (MAIN_ROWS + CHAIN_ROWS + 1, CHAIN_ROWS + 1) if user == "alice" else (MAIN_ROWS, 0)
    )
    assert rng == f"0-{n - 1}/{n}"
    for limit in (1, 13, 50):
        for offset in [*range(1, n + 2, 17), n - limit, n - 1, n]:
            rows, rng = get(client, order, offset=offset, limit=limit)
            want = whole[offset : offset + limit]
            assert [r["address"] for r in rows] == [r["address"] for r in want], (offset, limit)
            assert rows == want
            if want:
                assert rng == f"{offset}-{offset + len(want) - 1}/{n}"


def test_count_with_and_without_hidden_rows(clients: dict[str, httpx.Client]) -> None:
    counts = {
        user: client.get(SEARCH, params={"select": "count"}).json()
        for user, client in clients.items()
    }
    assert counts == {
        "alice": [{"count": MAIN_ROWS + CHAIN_ROWS + 1}],
        "bob": [{"count": MAIN_ROWS}],
    }
