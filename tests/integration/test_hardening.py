"""Issue 17, items 2, 4 and 5 over real HTTP: private-chain results stay with the members, bad
numbers are 400s naming the parameter (never 500s), and the data dir is private to its owner.
One node for the whole module.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.node_fixture import RunningNode, body, call_tx, upload_tx

SRC = """
contract Secret {
    uint public x;
    constructor(uint _x) public { x = _x; }
    function reveal(uint y) public returns (uint) { x = y; return x + 1; }
}
"""

CHAIN_SRC = """
contract Gov {
    constructor() public { }
}
"""


# ---------------------------------------------------------------------------- item 2


@pytest.fixture(scope="module")
def private_call(node: RunningNode) -> dict[str, Any]:
    """alice creates a chain with only Acme as member and calls a contract there."""
    alice = node.client("alice")
    r = alice.post(
        "/bloc/v2.2/chain",
        json={
            "label": "acme-only",
            "src": CHAIN_SRC,
            "contract": "Gov",
            "args": {},
            "members": [{"orgName": "Acme", "access": True}],
            "balances": [{"address": node.address("alice"), "balance": 1000}],
            "metadata": {"VM": "SolidVM"},
        },
    )
    assert r.status_code == 200, r.text
    chain = r.json()
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": chain},
        json=body(upload_tx("Secret", SRC, {"_x": 41})),
    )
    assert r.status_code == 200, r.text
    (up,) = r.json()
    assert up["status"] == "Success", up
    address = up["data"]["contents"]["address"]
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": chain},
        json=body(call_tx(address, "reveal", {"y": 777})),
    )
    assert r.status_code == 200, r.text
    (res,) = r.json()
    assert res["status"] == "Success", res
    assert res["data"]["contents"] == ["778"]
    return {"chain": chain, "upload": up["hash"], "call": res["hash"], "result": res}


def _unknown(h: str) -> dict[str, Any]:
    return {"status": "Pending", "hash": h, "txResult": None, "data": None}


@pytest.mark.parametrize("resolve", [False, True])
def test_result_of_private_tx_hidden_from_non_member(
    node: RunningNode, private_call: dict[str, Any], resolve: bool
) -> None:
    bob = node.client("bob")  # Globex: not a member
    params = {"resolve": "true"} if resolve else {}
    for h in (private_call["call"], private_call["upload"]):
        r = bob.get(f"/bloc/v2.2/transactions/{h}/result", params=params)
        assert r.status_code == 200, r.text
        assert r.json() == _unknown(h)
        assert private_call["chain"] not in r.text
    unknown = "ab" * 32
    hashes = [private_call["call"], unknown, private_call["upload"]]
    r = bob.post("/bloc/v2.2/transactions/results", params=params, json=hashes)
    assert r.status_code == 200, r.text
    assert r.json() == [_unknown(h) for h in hashes]
    assert private_call["chain"] not in r.text


def test_result_of_private_tx_shown_to_member(
    node: RunningNode, private_call: dict[str, Any]
) -> None:
    carol = node.client("carol")  # Acme: a member
    h = private_call["call"]
    r = carol.get(f"/bloc/v2.2/transactions/{h}/result")
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["status"] == "Success"
    assert got["txResult"]["chainId"] == private_call["chain"]
    assert got["data"]["contents"] == ["778"]
    r = carol.post("/bloc/v2.2/transactions/results", json=[h, private_call["upload"]])
    assert r.status_code == 200, r.text
    call, up = r.json()
    assert call["data"]["contents"] == ["778"]
    assert up["txResult"]["chainId"] == private_call["chain"]


def test_private_tx_details_hidden_from_non_member(
    node: RunningNode, private_call: dict[str, Any]
) -> None:
    h = private_call["call"]
    for prefix in ("/strato-api/eth/v1.2", "/svc-api/eth/v1.2"):
        r = node.client("bob").get(f"{prefix}/transaction", params={"hash": h})
        assert r.status_code == 200, r.text
        assert r.json() == []
        r = node.client("bob").get(f"{prefix}/transaction/last/100")
        assert r.status_code == 200, r.text
        assert h not in r.text
        r = node.client("carol").get(f"{prefix}/transaction", params={"hash": h})
        assert r.status_code == 200, r.text
        assert [t["hash"] for t in r.json()] == [h]
