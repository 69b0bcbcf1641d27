"""STRATO 16's Cirrus names for proxies on a real node: a delegatecall stamps the proxy with the
logic contract's names, so ``BlockApps-<Logic>`` lists the proxy with the proxy's storage and the
logic's events carry the proxy's address. One node for the module.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

SEARCH = "/cirrus/search"

LOGIC = """
contract Named { string public title; }
contract Logic is Named {
    event Set(uint v, address who);
    uint public level;
    mapping(address => uint) public credits;
    function set(uint v) external {
        level = v;
        credits[msg.sender] = v;
        title = "set";
        emit Set(v, msg.sender);
    }
}
"""

PROXY = """
contract Ownable {
    address public owner;
    constructor() public { owner = msg.sender; }
}
contract Proxy is Ownable {
    address logicContract;
    constructor(address logic) public { logicContract = logic; }
    fallback(variadic args) external returns (variadic) {
        return logicContract.delegatecall(msg.sig, args);
    }
}
"""


def search(client: httpx.Client, table: str, params: dict[str, str], status: int = 200) -> Any:
    r = client.get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == status, f"{table}: {r.status_code}: {r.text[:2000]}"
    return r.json()


def created(client: httpx.Client, name: str, src: str, args: dict[str, Any]) -> str:
    res = submit(client, upload_tx(name, src, args))
    assert res[0]["status"] == "Success", res
    return str(res[0]["data"]["contents"]["address"])


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.new_client("alice")


@pytest.fixture(scope="module")
def deployed(alice: httpx.Client) -> tuple[str, str]:
    logic = created(alice, "Logic", LOGIC, {})
    proxy = created(alice, "Proxy", PROXY, {"logic": logic})
    res = submit(alice, call_tx(proxy, "set", {"v": 42}))
    assert res[0]["status"] == "Success", res
    return logic, proxy


def test_the_proxy_carries_the_logic_names(alice: httpx.Client, deployed: tuple[str, str]) -> None:
    logic, proxy = deployed
    names = [r["contract_name"] for r in search(alice, "contract", {"address": f"eq.{proxy}"})]
    assert names == ["Ownable", "Proxy", "Named", "Logic"]
    assert [r["contract_name"] for r in search(alice, "contract", {"address": f"eq.{logic}"})] == [
        "Named",
        "Logic",
    ]


def test_the_logic_view_lists_the_proxy(
    alice: httpx.Client, deployed: tuple[str, str], node: RunningNode
) -> None:
    logic, proxy = deployed
    rows = search(
        alice, "BlockApps-Logic", {"order": "level.asc", "address": f"in.({logic},{proxy})"}
    )
    assert [(r["address"], r["level"], r["title"]) for r in rows] == [
        (logic, 0, ""),
        (proxy, 42, "set"),
    ]
    assert rows[1]["contract_name"] == "Logic"
    (base,) = search(alice, "BlockApps-Named", {"address": f"eq.{proxy}"})
    assert base["title"] == "set"
    (own,) = search(alice, "BlockApps-Proxy", {"address": f"eq.{proxy}"})
    assert own["owner"] == node.address("alice")
    (data,) = search(alice, "storage", {"address": f"eq.{proxy}", "select": "data"})
    assert data["data"]["level"] == "42" and data["data"]["logicContract"] == logic


def test_logic_events_carry_the_proxy_address(
    alice: httpx.Client, deployed: tuple[str, str], node: RunningNode
) -> None:
    _, proxy = deployed
    (ev,) = search(alice, "BlockApps-Logic-Set", {"address": f"eq.{proxy}"})
    assert ev["v"] == 42 and ev["contract_name"] == "Logic"
    assert ev["transaction_sender"] == node.address("alice")
    (raw,) = search(alice, "event", {"address": f"eq.{proxy}", "event_name": "eq.Set"})
    assert raw["attributes"]["v"] == "42"


def test_the_logic_collections_of_the_proxy(
    alice: httpx.Client, deployed: tuple[str, str], node: RunningNode
) -> None:
    _, proxy = deployed
    rows = search(alice, "BlockApps-Logic-credits", {"address": f"eq.{proxy}"})
    assert [(r["key"], r["value"]) for r in rows] == [(node.address("alice"), 42)]
    # the seed's tables are as before: the proxy's own contract has no such collection
    search(alice, "Proxy-credits", {}, status=404)
