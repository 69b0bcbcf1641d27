"""A node started with --gas: the faucet funds accounts and every transaction pays for its gas."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import (
    HEX64,
    RunningNode,
    call_tx,
    submit,
    transfer_tx,
    upload_tx,
    wait_results,
)

TOKEN = 10**18
FAUCET = 2000 * TOKEN
COUNTER = """
contract Counter {
    uint public n;
    function inc() public returns (uint) { n = n + 1; return n; }
    function check(uint v) public { require(v > 10, "too small"); n = v; }
}
"""


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--gas", name="gas")
    try:
        yield n
    finally:
        n.stop()


def balance(client: httpx.Client, address: str) -> int:
    r = client.get("/svc-api/eth/v1.2/account", params={"address": address})
    assert r.status_code == 200, r.text
    rows = r.json()
    return int(rows[0]["balance"]) if rows else 0


def fill(client: httpx.Client, address: str, resolve: bool = True) -> dict[str, object]:
    r = client.post(
        f"/bloc/v2.2/users/user/{address}/fill", params={"resolve": str(resolve).lower()}
    )
    assert r.status_code == 200, r.text
    out: dict[str, object] = r.json()
    return out


def new_funded_user(node: RunningNode, name: str) -> tuple[httpx.Client, str]:
    node.add_user(name, "Gasworks", password=f"{name}-pw")
    c = node.client(name)
    address = str(c.post("/svc/v2.3/key").json()["address"])
    res = fill(c, address)
    assert res["status"] == "Success"
    return c, address


def test_health_reports_gas_on(node: RunningNode) -> None:
    assert node.client().get("/health").json()["gas"] is True


def test_faucet_credits_2000_tokens(node: RunningNode) -> None:
    c = node.client("alice")
    a = node.address("alice")
    before = balance(c, a)
    res = fill(c, a)
    assert res["status"] == "Success"
    assert isinstance(res["hash"], str) and HEX64.match(res["hash"])
    assert res["hash"] != "0" * 64
    assert balance(c, a) == before + FAUCET
    [rec] = c.get("/svc-api/eth/v1.2/account", params={"address": a}).json()
    assert rec["balance"] == str(before + FAUCET)


def test_faucet_async_returns_pending_hash_that_resolves(node: RunningNode) -> None:
    c = node.client("bob")
    a = node.address("bob")
    before = balance(c, a)
    res = fill(c, a, resolve=False)
    assert res["status"] == "Pending"
    assert res["txResult"] is None and res["data"] is None
    assert isinstance(res["hash"], str) and HEX64.match(res["hash"])
    [done] = wait_results(c, [res["hash"]])
    assert done["status"] == "Success"
    assert balance(c, a) == before + FAUCET


def test_faucet_twice_credits_twice(node: RunningNode) -> None:
    c, a = new_funded_user(node, "gus")
    fill(c, a)
    assert balance(c, a) == 2 * FAUCET


def test_faucet_accepts_real_username_segment_and_0x(node: RunningNode) -> None:
    node.add_user("hal", "Gasworks", password="hal-pw")
    c = node.client("hal")
    a = c.post("/svc/v2.3/key").json()["address"]
    r = c.post(f"/bloc/v2.2/users/hal/0x{a}/fill", params={"resolve": "true"})
    assert r.status_code == 200
    assert balance(c, a) == FAUCET


def test_unfunded_new_user_cannot_transact(node: RunningNode) -> None:
    node.add_user("ned", "Gasworks", password="ned-pw")
    c = node.client("ned")
    created = c.post("/svc/v2.3/key")
    assert created.status_code == 200
    address = created.json()["address"]
    assert balance(c, address) == 0
    r = c.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={
            "txs": [upload_tx("Counter", COUNTER)],
            "txParams": {"gasLimit": 10**6, "gasPrice": 1},
        },
    )
    assert r.status_code == 422, r.text
    msg = r.json()
    assert msg.startswith("Error running the transaction: ")
    assert "insufficient balance" in msg
    assert balance(c, address) == 0  # nothing charged: it held nothing

    # funded by the faucet, the same account now works and pays for its gas
    fill(c, address)
    assert balance(c, address) == FAUCET
    res = submit(c, upload_tx("Counter", COUNTER), tx_params={"gasLimit": 10**6, "gasPrice": 1})
    assert res[0]["status"] == "Success"
    used = int(res[0]["txResult"]["gasUsed"], 16)
    assert used > 0
    assert balance(c, address) == FAUCET - used


def test_unfunded_user_batch_gets_failure_elements(node: RunningNode) -> None:
    node.add_user("olga", "Gasworks", password="olga-pw")
    c = node.client("olga")
    c.post("/svc/v2.3/key")
    res = submit(c, upload_tx("Counter", COUNTER), upload_tx("Counter", COUNTER))
    assert [r["status"] for r in res] == ["Failure", "Failure"]
    assert all("insufficient balance" in r["txResult"]["message"] for r in res)


def test_fee_is_gas_used_times_gas_price(node: RunningNode) -> None:
    c, a = new_funded_user(node, "pia")
    price = 3
    params = {"gasLimit": 10**7, "gasPrice": price}
    before = balance(c, a)
    up = submit(c, upload_tx("Counter", COUNTER), tx_params=params)[0]
    tr = up["txResult"]
    used = int(tr["gasUsed"], 16)
    assert int(tr["etherUsed"], 16) == used * price
    after_upload = balance(c, a)
    assert after_upload == before - used * price

    address = up["data"]["contents"]["address"]
    call = submit(c, call_tx(address, "inc"), tx_params=params)[0]
    assert call["data"]["contents"] == ["1"]
    fee = int(call["txResult"]["gasUsed"], 16) * price
    assert int(call["txResult"]["etherUsed"], 16) == fee
    assert balance(c, a) == after_upload - fee


def test_failed_call_still_pays_for_gas(node: RunningNode) -> None:
    c, a = new_funded_user(node, "quin")
    address = submit(c, upload_tx("Counter", COUNTER))[0]["data"]["contents"]["address"]
    before = balance(c, a)
    res = submit(c, call_tx(address, "check", {"v": 1}), call_tx(address, "check", {"v": 20}))
    assert [r["status"] for r in res] == ["Failure", "Success"]
    fees = sum(int(r["txResult"]["gasUsed"], 16) for r in res)
    assert balance(c, a) == before - fees


def test_transfer_with_gas_moves_value_and_pays_fee(node: RunningNode) -> None:
    c, a = new_funded_user(node, "rex")
    to = node.address("carol")
    before_from, before_to = balance(c, a), balance(c, to)
    value = 5 * TOKEN
    r = submit(c, transfer_tx(to, value), tx_params={"gasLimit": 10**6, "gasPrice": 2})[0]
    assert r["data"]["tag"] == "Send"
    fee = int(r["txResult"]["gasUsed"], 16) * 2
    assert fee > 0
    assert balance(c, to) == before_to + value
    assert balance(c, a) == before_from - value - fee


def test_transfer_of_whole_balance_cannot_cover_fee(node: RunningNode) -> None:
    """value + gasUsed * gasPrice exceeds the balance: the transfer must fail (InsufficientFunds).

    The fee may not be waived by taking the value first and charging what is left.
    """
    c, a = new_funded_user(node, "sam")
    bob = node.address("bob")
    have, bob_before = balance(c, a), balance(c, bob)
    r = c.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [transfer_tx(bob, have)], "txParams": {"gasLimit": 10**6, "gasPrice": 1}},
    )
    assert r.status_code == 422, r.text[:300]
    assert "insufficient balance" in r.json()
    assert balance(c, bob) == bob_before
    assert balance(c, a) <= have


def test_asset_shard_owners_can_pay_for_updates(node: RunningNode) -> None:
    """An asset's shard gives its creator gas money, and its new owner after a transfer."""
    alice, bob = node.client("alice"), node.client("bob")
    fill(alice, node.address("alice"))  # creating the shard is paid on the main chain
    made = alice.post(
        "/apps/CarDemo/car",
        json={"carArgs": {"vin": "GAS-1", "color": "red", "model": "T", "weight": 900}},
    )
    assert made.status_code == 200, made.text
    chain = made.json()["data"]["chainIds"][0]
    [info] = alice.get("/bloc/v2.2/chain", params={"chainid": chain}).json()
    assert info["info"]["balances"] == [{"address": node.address("alice"), "balance": str(FAUCET)}]
    gov = made.json()["data"]["address"]
    r = alice.put(
        "/apps/CarDemo/car/update",
        json={"address": gov, "chainId": chain, "updates": {"color": "blue"}},
    )
    assert r.status_code == 200, r.text
    r = alice.post(
        "/apps/CarDemo/car/transferOwnership",
        json={"address": gov, "chainId": chain, "newOwner": node.address("bob")},
    )
    assert r.status_code == 200, r.text
    r = bob.put(
        "/apps/CarDemo/car/update",
        json={"address": gov, "chainId": chain, "updates": {"weight": 950}},
    )
    assert r.status_code == 200, r.text
    car = bob.get(f"/apps/CarDemo/car/{chain}").json()["data"]
    assert (car["color"], car["weight"]) == ("blue", 950)
