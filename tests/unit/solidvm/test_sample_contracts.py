"""End-to-end runs of the sample contracts in resources/contracts."""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ExecutionError

from .conftest import CallFn, DeployFn
from .helpers import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    TIMESTAMP,
    ZERO,
    compile_src,
    events,
    load_contract,
    values,
)

CAR = load_contract("CarAsset.sol")
STORAGE = load_contract("ExternalStorage.sol")
SHIPMENT = load_contract("Shipment.sol")
TOKEN = load_contract("Token.sol")

APP_CHAIN = "ab" * 32
CAR_ARGS = {
    "_appChainId": APP_CHAIN,
    "_vin": "VIN-1",
    "_color": "red",
    "_model": "Roadster",
    "_weight": 1200,
}
UPDATE = {"_vin": "VIN-2", "_color": "blue", "_model": "Coupe", "_weight": 1500}


@pytest.mark.parametrize(
    ("filename", "contracts"),
    [
        ("CarAsset.sol", {"Car"}),
        ("ExternalStorage.sol", {"ExternalStorage"}),
        ("Shipment.sol", {"Receipt", "Shipment"}),
        ("Token.sol", {"Token"}),
    ],
)
def test_sample_contracts_compile(filename: str, contracts: set[str]) -> None:
    unit = compile_src(load_contract(filename))
    assert contracts <= set(unit.contracts)


# ---------------------------------------------------------------- car asset


@pytest.fixture
def car(deploy: DeployFn) -> str:
    address: str = deploy(CAR, "Car", CAR_ARGS, sender=ALICE).address
    return address


def test_car_constructor(car: str, world: Any) -> None:
    state = world.state(car)
    assert state["owner"] == ALICE
    assert state["appChainId"] == APP_CHAIN
    assert state["ownerOrganization"] == "Acme"
    assert state["ownerOrganizationalUnit"] == "Engineering"
    assert state["ownerCommonName"] == "alice"
    assert state["vin"] == "VIN-1"
    assert state["color"] == "red"
    assert state["model"] == "Roadster"
    assert state["weight"] == "1200"


def test_car_getters(car: str, call: CallFn) -> None:
    assert values(call(car, "owner")) == [ALICE]
    assert values(call(car, "weight")) == ["1200"]
    assert values(call(car, "ownerCommonName")) == ["alice"]


ORIGINAL = {"vin": "VIN-1", "color": "red", "model": "Roadster", "weight": "1200"}
UPDATED = {"vin": "VIN-2", "color": "blue", "model": "Coupe", "weight": "1500"}


@pytest.mark.parametrize(
    ("scheme", "changed"),
    [
        (0, set()),
        (8, {"vin"}),
        (4, {"color"}),
        (2, {"model"}),
        (1, {"weight"}),
        (6, {"color", "model"}),
        (9, {"vin", "weight"}),
        (15, {"vin", "color", "model", "weight"}),
    ],
)
def test_car_update_scheme_bits(
    scheme: int, changed: set[str], car: str, call: CallFn, world: Any
) -> None:
    res = call(car, "update", {**UPDATE, "_scheme": scheme})
    assert values(res) == ["200"]
    state = world.state(car)
    for field, original in ORIGINAL.items():
        expected = UPDATED[field] if field in changed else original
        assert state[field] == expected, field


def test_car_update_by_non_owner_is_forbidden(car: str, call: CallFn, world: Any) -> None:
    before = dict(world.state(car))
    assert values(call(car, "update", {**UPDATE, "_scheme": 15}, sender=BOB)) == ["403"]
    assert world.state(car) == before


def test_car_transfer_to_other_org(car: str, call: CallFn, world: Any) -> None:
    res = call(car, "transferOwnership", {"_addr": BOB})
    assert values(res) == ["200"]
    assert events(res) == [
        ("OrganizationAdded", ["Globex"]),
        ("OrgAdded", ["Globex"]),
        ("OrganizationRemoved", ["Acme"]),
        ("OrgRemoved", ["Acme"]),
    ]
    assert all(e.address == car for e in res.events)
    state = world.state(car)
    assert state["owner"] == BOB
    assert state["ownerOrganization"] == "Globex"
    assert state["ownerOrganizationalUnit"] == "Logistics"
    assert state["ownerCommonName"] == "bob"
    # the new owner may update, the old one may not
    assert values(call(car, "update", {**UPDATE, "_scheme": 4}, sender=ALICE)) == ["403"]
    assert values(call(car, "update", {**UPDATE, "_scheme": 4}, sender=BOB)) == ["200"]
    assert world.state(car)["color"] == "blue"


def test_car_transfer_within_same_org(car: str, call: CallFn, world: Any) -> None:
    res = call(car, "transferOwnership", {"_addr": CAROL})
    assert values(res) == ["200"]
    assert res.events == []
    state = world.state(car)
    assert state["owner"] == CAROL
    assert state["ownerOrganization"] == "Acme"
    assert state["ownerOrganizationalUnit"] == "Sales"
    assert state["ownerCommonName"] == "carol"


def test_car_transfer_by_non_owner_is_forbidden(car: str, call: CallFn, world: Any) -> None:
    before = dict(world.state(car))
    res = call(car, "transferOwnership", {"_addr": BOB}, sender=BOB)
    assert values(res) == ["403"]
    assert res.events == []
    assert world.state(car) == before


def test_car_transfer_to_user_without_org(car: str, call: CallFn, world: Any) -> None:
    before = dict(world.state(car))
    res = call(car, "transferOwnership", {"_addr": DAVE})
    assert values(res) == ["404"]
    assert res.events == []
    assert world.state(car) == before


def test_car_xabi(car: str) -> None:
    xabi = compile_src(CAR).contracts["Car"].xabi
    assert set(xabi["funcs"]) >= {"update", "transferOwnership"}
    assert xabi["funcs"]["update"]["args"]["_scheme"]["index"] == 4
    assert set(xabi["events"]) >= {
        "OrganizationAdded",
        "OrganizationRemoved",
        "OrgAdded",
        "OrgRemoved",
    }
    assert xabi["vars"]["weight"]["tag"] == "Int"
    assert xabi["vars"]["weight"]["signed"] is True


# ---------------------------------------------------------------- external storage

STORAGE_ARGS = {
    "_fileKey": "1700000000000-report.pdf",
    "_uri": "https://bucket.example/1700000000000-report.pdf",
    "_host": "bucket.example",
    "_fileHash": "9f" * 32,
    "_metadata": "quarterly report",
}


@pytest.fixture
def storage(deploy: DeployFn) -> str:
    address: str = deploy(STORAGE, "ExternalStorage", STORAGE_ARGS, sender=ALICE).address
    return address


def test_storage_constructor(storage: str, world: Any) -> None:
    state = world.state(storage)
    assert state["fileKey"] == STORAGE_ARGS["_fileKey"]
    assert state["uri"] == STORAGE_ARGS["_uri"]
    assert state["host"] == "bucket.example"
    assert state["fileHash"] == "9f" * 32
    assert state["metadata"] == "quarterly report"
    assert state["signers"] == [ALICE]
    assert state["timeStamp"] == str(TIMESTAMP)


def test_storage_attest_by_two_users(storage: str, call: CallFn, world: Any) -> None:
    assert values(call(storage, "attest", sender=BOB)) == [[ALICE, BOB]]
    assert values(call(storage, "attest", sender=CAROL)) == [[ALICE, BOB, CAROL]]
    assert values(call(storage, "getSigners", sender=DAVE)) == [[ALICE, BOB, CAROL]]
    assert world.state(storage)["signers"] == [ALICE, BOB, CAROL]


@pytest.mark.parametrize("who", [ALICE, BOB])
def test_storage_duplicate_attest_fails(who: str, storage: str, call: CallFn, world: Any) -> None:
    if who != ALICE:
        call(storage, "attest", sender=who)
    before = world.state(storage)["signers"]
    with pytest.raises(ExecutionError) as info:
        call(storage, "attest", sender=who)
    assert info.value.message == "solidity require failed: You already signed this transaction"
    assert world.state(storage)["signers"] == before


def test_storage_timestamp_is_creation_time(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(STORAGE, "ExternalStorage", STORAGE_ARGS, timestamp=1_650_000_000)
    call(res.address, "attest", sender=BOB, timestamp=1_660_000_000)
    assert world.state(res.address)["timeStamp"] == "1650000000"


# ---------------------------------------------------------------- shipment


@pytest.fixture
def shipment(deploy: DeployFn) -> str:
    args = {"_id": "SH-1", "_receiverOrg": "Globex", "_receiver": BOB}
    address: str = deploy(SHIPMENT, "Shipment", args, sender=ALICE).address
    return address


def test_shipment_constructor(shipment: str, world: Any) -> None:
    state = world.state(shipment)
    assert state["id"] == "SH-1"
    assert state["sender"] == ALICE
    assert state["senderOrg"] == "Acme"
    assert state["receiverOrg"] == "Globex"
    assert state["receiver"] == BOB
    assert state.get("status", "0") == "0"
    assert state.get("receipt", ZERO) == ZERO


@pytest.mark.parametrize("who", [BOB, CAROL])
def test_shipment_deliver_by_non_sender_fails(
    who: str, shipment: str, call: CallFn, world: Any
) -> None:
    before = dict(world.state(shipment))
    with pytest.raises(ExecutionError) as info:
        call(shipment, "deliver", sender=who)
    assert info.value.message == (
        "solidity require failed: Only the sender must deliver the shipment"
    )
    assert world.state(shipment) == before


def test_shipment_deliver_creates_receipt(shipment: str, call: CallFn, world: Any) -> None:
    call(shipment, "ship")
    assert world.state(shipment)["status"] == "1"
    res = call(shipment, "deliver", timestamp=TIMESTAMP + 60)
    (receipt,) = values(res)
    assert [addr for _, addr in res.created] == [receipt]
    assert events(res) == [("OrganizationAdded", ["Globex"]), ("OrganizationRemoved", ["Acme"])]
    state = world.state(shipment)
    assert state["status"] == "2"
    assert state["receipt"] == receipt
    assert world.state(receipt) == {
        "shipmentId": "SH-1",
        "receiver": BOB,
        "deliveredAt": str(TIMESTAMP + 60),
    }
    assert values(call(receipt, "deliveredAt")) == [str(TIMESTAMP + 60)]


def test_shipment_cannot_be_delivered_twice(shipment: str, call: CallFn) -> None:
    call(shipment, "deliver")
    with pytest.raises(ExecutionError) as info:
        call(shipment, "deliver")
    assert info.value.message == "solidity require failed: Shipment already delivered"


def test_shipment_ship_twice_fails(shipment: str, call: CallFn) -> None:
    call(shipment, "ship")
    with pytest.raises(ExecutionError) as info:
        call(shipment, "ship")
    assert info.value.message == "solidity require failed: Shipment already left"


# ---------------------------------------------------------------- token


@pytest.fixture
def token(deploy: DeployFn) -> str:
    res = deploy(TOKEN, "Token", {"_name": "Gold", "_symbol": "GLD", "_supply": 1000})
    assert events(res) == [("Transfer", [ZERO, ALICE, "1000"])]
    address: str = res.address
    return address


def test_token_constructor(token: str, call: CallFn, world: Any) -> None:
    state = world.state(token)
    assert state["name"] == "Gold"
    assert state["symbol"] == "GLD"
    assert state["totalSupply"] == "1000"
    assert state["balances"] == {ALICE: "1000"}
    assert values(call(token, "balanceOf", {"who": ALICE})) == ["1000"]
    assert values(call(token, "balanceOf", {"who": BOB})) == ["0"]


def test_token_transfer(token: str, call: CallFn, world: Any) -> None:
    res = call(token, "transfer", {"to": BOB, "amount": 250})
    assert values(res) == ["true"]
    assert events(res) == [("Transfer", [ALICE, BOB, "250"])]
    assert values(call(token, "balanceOf", {"who": ALICE})) == ["750"]
    assert values(call(token, "balanceOf", {"who": BOB})) == ["250"]
    call(token, "transfer", {"to": CAROL, "amount": "50"}, sender=BOB)
    assert world.state(token)["balances"] == {ALICE: "750", BOB: "200", CAROL: "50"}


@pytest.mark.parametrize(("sender", "amount"), [(ALICE, 1001), (BOB, 1)])
def test_token_insufficient_balance(
    sender: str, amount: int, token: str, call: CallFn, world: Any
) -> None:
    before = world.state(token)
    with pytest.raises(ExecutionError) as info:
        call(token, "transfer", {"to": CAROL, "amount": amount}, sender=sender)
    assert info.value.message == "solidity require failed: insufficient balance"
    assert world.state(token) == before


def test_token_allowance_flow(token: str, call: CallFn, world: Any) -> None:
    res = call(token, "approve", {"spender": BOB, "amount": 100})
    assert values(res) == ["true"]
    assert events(res) == [("Approval", [ALICE, BOB, "100"])]
    assert world.state(token)["allowance"] == {ALICE: {BOB: "100"}}
    res = call(token, "transferFrom", {"from": ALICE, "to": CAROL, "amount": 60}, sender=BOB)
    assert values(res) == ["true"]
    assert events(res) == [("Transfer", [ALICE, CAROL, "60"])]
    assert world.state(token)["allowance"] == {ALICE: {BOB: "40"}}
    assert values(call(token, "balanceOf", {"who": CAROL})) == ["60"]
    assert values(call(token, "balanceOf", {"who": ALICE})) == ["940"]


@pytest.mark.parametrize(
    ("spender", "amount"),
    [(BOB, 41), (CAROL, 1)],
    ids=["over-allowance", "no-allowance"],
)
def test_token_transfer_from_over_allowance(
    spender: str, amount: int, token: str, call: CallFn, world: Any
) -> None:
    call(token, "approve", {"spender": BOB, "amount": 40})
    before = world.state(token)
    with pytest.raises(ExecutionError) as info:
        call(token, "transferFrom", {"from": ALICE, "to": CAROL, "amount": amount}, sender=spender)
    assert info.value.message == "solidity require failed: insufficient allowance"
    assert world.state(token) == before


def test_token_transfer_from_beyond_balance(token: str, call: CallFn) -> None:
    call(token, "approve", {"spender": BOB, "amount": 5000})
    with pytest.raises(ExecutionError) as info:
        call(token, "transferFrom", {"from": ALICE, "to": CAROL, "amount": 1001}, sender=BOB)
    assert info.value.message == "solidity require failed: insufficient balance"
