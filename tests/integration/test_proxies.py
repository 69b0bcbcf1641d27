"""A deployment in the shape of the platform's ``Mercata``, through the node's API.

One upload (``POST /strato/v2.3/transaction/parallel``, no ``metadata.VM``) of
``tests/corpus/proxy_deploy``: a contract whose constructor creates 21 logic contracts and 21
``Proxy`` contracts (43 with itself), initializes each through its proxy (typed calls reaching the
proxy's fallback), wires some managers to others' proxies and hands every proxy to a council.
Then: the contracts exist, the proxies' state holds their logic's variables, methods run through
a proxy over the API, and all of it survives a restart of the node.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import ROOT, RunningNode, call_tx, submit, upload_tx

FIXTURE = ROOT / "tests" / "corpus" / "proxy_deploy"
MANAGERS = {  # Deployment's state variable -> the logic contract behind that proxy
    "council": "Council",
    "feeVault": "FeeVault",
    "tokenFactory": "TokenFactory",
    "poolFactory": "PoolFactory",
    "lendingRegistry": "LendingRegistry",
    "collateralVault": "CollateralVault",
    "liquidityPool": "LiquidityPool",
    "rateStrategy": "RateStrategy",
    "priceOracle": "PriceOracle",
    "poolConfigurator": "PoolConfigurator",
    "safetyModule": "SafetyModule",
    "lendingPool": "LendingPool",
    "bridge": "Bridge",
    "rewards": "Rewards",
    "savingsVault": "SavingsVault",
    "cdpRegistry": "CDPRegistry",
    "cdpVault": "CDPVault",
    "cdpEngine": "CDPEngine",
    "cdpReserve": "CDPReserve",
    "escrow": "Escrow",
    "metalForge": "MetalForge",
}
NOT_INITIALIZED = {"lendingRegistry", "cdpRegistry"}  # wired by others, no initialize()


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, name="proxies")
    try:
        yield n
    finally:
        n.stop()


def sources() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(Path(FIXTURE).glob("*.sol"))}


@pytest.fixture(scope="module")
def deployment(node: RunningNode) -> dict[str, Any]:
    """The upload's result: the Deployment's address and state."""
    res = submit(
        node.client("alice"),
        upload_tx("Deployment", sources(), vm=None),  # no metadata.VM: SolidVM
        route="/strato/v2.3/transaction/parallel",
    )
    assert res[0]["status"] == "Success", res
    address = str(res[0]["data"]["contents"]["address"])
    state = get(node, f"/bloc/v2.2/contracts/Deployment/{address}/state")
    return {"address": address, "state": state, "result": res[0]}


def get(node: RunningNode, path: str, **params: Any) -> Any:
    r = node.client("alice").get(path, params=params)
    assert r.status_code == 200, f"{path}: {r.status_code} {r.text[:500]}"
    return r.json()


def call(node: RunningNode, address: str, method: str, args: dict[str, Any]) -> Any:
    res = submit(node.client("alice"), call_tx(address, method, args, name="Proxy"))
    return res[0]


def proxy_state(node: RunningNode, address: str) -> dict[str, Any]:
    state: dict[str, Any] = get(node, f"/bloc/v2.2/contracts/Proxy/{address}/state")
    return state


def test_one_upload_creates_the_43_contracts(node: RunningNode, deployment: dict[str, Any]) -> None:
    listed = get(node, "/bloc/v2.2/contracts")
    proxies = {c["address"] for c in listed["Proxy"]}
    assert {deployment["state"][v] for v in MANAGERS} <= proxies
    assert len(proxies) == 21
    for logic in MANAGERS.values():
        assert len(listed[logic]) == 1, logic
    assert [c["address"] for c in listed["Deployment"]] == [deployment["address"]]
    assert 1 + 21 + 21 == 43


def test_the_proxies_hold_their_logic_contracts_state(
    node: RunningNode, deployment: dict[str, Any]
) -> None:
    st = deployment["state"]
    council = st["council"]
    listed = get(node, "/bloc/v2.2/contracts")
    logics = {c["address"] for name in MANAGERS.values() for c in listed[name]}
    for var in MANAGERS:
        s = proxy_state(node, st[var])
        assert s["_owner"] == council, var  # handed over to the council
        assert s["logicContract"] in logics, var
        assert s["initialized"] == ("false" if var in NOT_INITIALIZED else "true"), var
    assert proxy_state(node, st["feeVault"])["feeBps"] == "30"
    assert proxy_state(node, st["council"])["members"] == [
        deployment["address"],
        node.address("alice"),
    ]
    savings = proxy_state(node, st["savingsVault"])
    assert (savings["name"], savings["symbol"], savings["asset"]) == (
        "Savings",
        "SAVE",
        st["feeVault"],
    )
    # written by the configurator's code through the registry's proxy
    registry = proxy_state(node, st["lendingRegistry"])
    assert registry["priceOracle"] == st["priceOracle"]
    assert registry["lendingPool"] == st["lendingPool"]
    assert proxy_state(node, st["poolConfigurator"])["configured"] == "1"
    assert proxy_state(node, st["priceOracle"])["prices"] == {"GOLD": "2000"}
    assert proxy_state(node, st["tokenFactory"])["tokenCount"] == "1"
    # typed results that came back through proxies during the deployment
    assert (st["firstPool"], st["quotedValue"], st["quotedFee"]) == ("1", "6000", "18")
    # the logic contracts' own storage is untouched
    logic = proxy_state(node, st["feeVault"])["logicContract"]
    assert get(node, f"/bloc/v2.2/contracts/FeeVault/{logic}/state")["feeBps"] == "0"


def test_a_proxys_state_answers_to_its_logic_contracts_name(
    node: RunningNode, deployment: dict[str, Any]
) -> None:
    pool = deployment["state"]["lendingPool"]
    s = get(node, f"/bloc/v2.2/contracts/LendingPool/{pool}/state")
    assert s["registry"] == deployment["state"]["lendingRegistry"]
    one = get(node, f"/bloc/v2.2/contracts/Proxy/{pool}/state", name="fees")
    assert one == {"fees": deployment["state"]["feeVault"]}
    oracle = deployment["state"]["priceOracle"]
    entry = get(node, f"/bloc/v2.2/contracts/PriceOracle/{oracle}/state/prices/GOLD")
    assert entry == {"prices": {"GOLD": "2000"}}
    r = node.client("alice").get(f"/bloc/v2.2/contracts/FeeVault/{pool}/state")
    assert r.status_code == 400  # a name that has nothing to do with this address


def test_a_proxys_details_show_its_logic_contracts_functions(
    node: RunningNode, deployment: dict[str, Any]
) -> None:
    pool = deployment["state"]["lendingPool"]
    details = get(node, f"/bloc/v2.2/contracts/Proxy/{pool}")
    funcs = details["xabi"]["funcs"]
    assert {"quote", "initialize", "setLogicContract", "transferOwnership"} <= set(funcs)


def test_methods_run_through_a_proxy_over_the_api(
    node: RunningNode, deployment: dict[str, Any]
) -> None:
    st = deployment["state"]
    res = call(node, st["lendingPool"], "quote", {"asset": "GOLD", "amount": 5})
    assert res["status"] == "Success", res
    assert res["data"]["contents"] == ["10000", "30"]
    res = call(node, st["poolFactory"], "createPool", {"name": "SILVER-USD"})
    assert res["data"]["contents"] == ["2"]
    assert proxy_state(node, st["poolFactory"])["pools"] == "2"
    assert proxy_state(node, st["tokenFactory"])["tokenNames"] == {
        "1": "GOLD-USD",
        "2": "SILVER-USD",
    }
    # the owner checks of the logic's code see the proxy's owner: the council, not alice
    b = st["bridge"]
    args = {"_vault": b, "_engine": b, "_reserve": b, "_oracle": b}
    res = submit(
        node.client("alice"),
        call_tx(st["cdpRegistry"], "setAllComponents", args, name="Proxy"),
        expect=422,
    )
    assert res == "Error running the transaction: solidity require failed: caller is not the owner"
    assert proxy_state(node, st["cdpRegistry"])["vault"] == st["cdpVault"]
    # a name neither the proxy nor its logic has is refused before anything runs
    r = node.client("alice").post(
        "/strato/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [call_tx(st["lendingPool"], "nothing", {}, name="Proxy")]},
    )
    assert r.status_code == 400
    assert "Contract doesn't have a method named 'nothing'" in r.text


def test_proxy_state_survives_a_restart(node: RunningNode, deployment: dict[str, Any]) -> None:
    st = deployment["state"]
    before = {v: proxy_state(node, st[v]) for v in MANAGERS}
    node.restart()
    after = {v: proxy_state(node, st[v]) for v in MANAGERS}
    assert after == before
    res = call(node, st["lendingPool"], "quote", {"asset": "GOLD", "amount": 1})
    assert res["data"]["contents"] == ["2000", "6"]
