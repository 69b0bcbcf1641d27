"""The routes STRATO 16 serves beyond the seeds, over real HTTP, in the platform's shapes
(reference strato16-cirrus.md §11): ``eth/v1.2/metadata``, ``eth/v1.2/storage``,
``eth/v1.2/account`` searched, ``contracts/contract/<address>/details`` and
``/transaction/parallel``. One node for the module.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import (
    HEX40,
    RunningNode,
    call_tx,
    deploy,
    submit,
    transfer_tx,
    upload_tx,
)

ETH = ("/strato-api/eth/v1.2", "/svc-api/eth/v1.2")
PARALLEL = ("/strato/v2.3/transaction/parallel", "/bloc/v2.2/transaction/parallel")

SHOP = """
pragma solidvm 12.0;
contract Item { }
contract Base {
    uint public baseCount;
    function baseOnly(uint n) public { baseCount = n; }
    function hidden() private { }
}
contract Shop is Base {
    enum State { Closed, Open, Sold }
    struct Sale { uint price; string buyer; }
    event Sold(address indexed who, uint price);
    error TooLow(uint wanted);

    string public name;
    uint256 public total;
    bool public open;
    address public owner;
    State public state;
    Item public item;
    decimal public rate;
    bytes32 public tag;
    mapping(address => uint) public balances;
    mapping(string => Sale) public sales;
    uint[] public prices;

    constructor(string _name) {
        name = _name;
        owner = msg.sender;
        open = true;
        state = State.Open;
        item = new Item();
        rate = 1.25;
    }

    function sell(string who, uint price) public returns (uint) {
        sales[who] = Sale(price, who);
        balances[msg.sender] += price;
        prices.push(price);
        total += price;
        return total;
    }

    function fail() public { require(false, "nope"); }
    function spin(uint n) public { uint x; for (uint i = 0; i < n; i++) { x += i; } total = x; }

    function quote(uint a, string memory b) external view returns (uint, string) {
        return (a, b);
    }
}
"""

LOGIC = """
contract Counter {
    uint public count;
    function bump(uint by) public returns (uint) { count += by; return count; }
}
contract Proxy {
    address public logicContract;
    address public owner;
    constructor(address _logic) { logicContract = _logic; owner = msg.sender; }
    function setLogicContract(address _logic) public { logicContract = _logic; }
    fallback(variadic args) external returns (variadic) {
        return logicContract.delegatecall(msg.sig, args);
    }
}
"""


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.client("alice")


@pytest.fixture(scope="module")
def shop(node: RunningNode, alice: httpx.Client) -> str:
    address = deploy(alice, "Shop", SHOP, {"_name": 'Corner\'s "best"'})
    res = submit(alice, call_tx(address, "sell", {"who": "bob", "price": 7}))
    assert res[0]["status"] == "Success", res
    return address


def get(client: httpx.Client, path: str, **params: Any) -> httpx.Response:
    return client.get(path, params=params)


# ------------------------------------------------------------ metadata


@pytest.mark.parametrize("prefix", ETH)
def test_metadata_answers_what_the_platform_backend_reads_at_start_up(
    node: RunningNode, alice: httpx.Client, prefix: str
) -> None:
    r = alice.get(f"{prefix}/metadata")
    assert r.status_code == 200, r.text
    m = r.json()
    assert set(m) == {
        "nodePubKey",
        "nodeAddress",
        "validators",
        "isSynced",
        "isVaultPasswordSet",
        "networkID",
        "urls",
    }
    assert re.fullmatch(r"04[0-9a-f]{128}", m["nodePubKey"])
    assert HEX40.match(m["nodeAddress"])
    assert m["validators"] == [m["nodeAddress"]]
    assert m["isSynced"] is True and m["isVaultPasswordSet"] is True
    assert isinstance(m["networkID"], str) and m["networkID"].isdigit()
    assert set(m["urls"]) == {
        "vault",
        "oauthDiscovery",
        "notificationServer",
        "fileServer",
        "monitor",
    }
    # the sandbox's own issuer: the discovery document is really there
    discovery = httpx.get(m["urls"]["oauthDiscovery"], timeout=10)
    assert discovery.status_code == 200
    assert discovery.json()["token_endpoint"].startswith(node.url)


def test_metadata_needs_a_token_like_every_api_route(node: RunningNode) -> None:
    assert node.client().get("/strato-api/eth/v1.2/metadata").status_code == 401


# ------------------------------------------------------------ storage


def rows(client: httpx.Client, **params: Any) -> list[dict[str, str]]:
    r = get(client, "/strato-api/eth/v1.2/storage", **params)
    assert r.status_code == 200, r.text
    out: list[dict[str, str]] = r.json()
    return out


def test_storage_of_a_contract_is_its_stored_paths_with_the_platforms_value_texts(
    node: RunningNode, alice: httpx.Client, shop: str
) -> None:
    found = {r["key"]: r["value"] for r in rows(alice, address=shop)}
    me = node.address("alice")
    item = found["item"]
    assert found["name"] == '"Corner\'s "best""'  # its quotes, nothing escaped
    assert found["total"] == "7"
    assert found["open"] == "true"
    assert found["owner"] == f"address({me})"
    assert found["state"] == "State.Open.1"
    assert re.fullmatch(r"Item\([0-9a-f]{40}\)", item)
    assert found["rate"] == '"1.25"'
    assert found[f"balances[{me}]"] == "7"
    assert found["sales[bob].price"] == "7"
    assert found["sales[bob].buyer"] == '"bob"'
    assert found["prices.length"] == "1"
    assert found["prices[0]"] == "7"
    assert "baseCount" not in found and "tag" not in found  # defaults are not stored
    keys = [r["key"] for r in rows(alice, address=shop)]
    assert keys == sorted(keys)
    assert all(r["address"] == shop for r in rows(alice, address=shop))


def test_storage_filters_by_key_value_ranges_and_search(
    node: RunningNode, alice: httpx.Client, shop: str
) -> None:
    assert rows(alice, address=shop, key="total") == [
        {"key": "total", "value": "7", "address": shop}
    ]
    assert [r["key"] for r in rows(alice, address=shop, value="7")] == [
        f"balances[{node.address('alice')}]",
        "prices[0]",
        "sales[bob].price",
        "total",
    ]
    assert [r["key"] for r in rows(alice, address=shop, value='"bob"')] == ["sales[bob].buyer"]
    assert [r["key"] for r in rows(alice, address=shop, minkey="s", maxkey="t")] == [
        "sales[bob].buyer",
        "sales[bob].price",
        "state",
    ]
    assert [r["key"] for r in rows(alice, address=shop, value="State.Open.1")] == ["state"]
    # search: any term, case-sensitive, over address, contract name, path and value
    assert {r["key"] for r in rows(alice, address=shop, search="buyer, rate")} == {
        "sales[bob].buyer",
        "rate",
    }
    assert rows(alice, address=shop, search="BUYER") == []
    everything = rows(alice, search="Shop")
    assert {r["address"] for r in everything} == {shop}
    assert len(rows(alice, address=shop, limit=2, offset=1)) == 2
    assert len(rows(alice)) <= 1000


@pytest.mark.parametrize(
    ("param", "value"),
    [("key", "a..b"), ("key", "[x]"), ("minkey", "m[open"), ("value", "'x'"), ("value", "1.5")],
)
def test_storage_refuses_malformed_paths_and_values(
    alice: httpx.Client, param: str, value: str
) -> None:
    r = get(alice, "/strato-api/eth/v1.2/storage", **{param: value})
    assert r.status_code == 400, r.text
    assert f"query parameter {param}" in r.json()


# ------------------------------------------------------------ accounts


def accounts(client: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    r = get(client, "/strato-api/eth/v1.2/account", **params)
    assert r.status_code == 200, r.text
    out: list[dict[str, Any]] = r.json()
    return out


def test_account_search_matches_address_or_name_case_insensitively(
    node: RunningNode, alice: httpx.Client, shop: str
) -> None:
    found = accounts(alice, search="sHoP")
    assert [a["address"] for a in found] == [shop]
    assert found[0]["kind"] == "AddressStateRef" and found[0]["contractName"] == "Shop"
    me = node.address("alice")
    both = accounts(alice, search=f"shop, {me[:12].upper()}")
    assert {a["address"] for a in both} == {shop, me}
    assert [a["address"] for a in both] == sorted(a["address"] for a in both)


def test_account_external_contract_name_and_paging(
    node: RunningNode, alice: httpx.Client, shop: str
) -> None:
    contracts = accounts(alice, external="false")
    assert all(a["contractName"] for a in contracts)
    assert shop in {a["address"] for a in contracts}
    users = accounts(alice, external="true")
    assert all(a["contractName"] is None for a in users)
    assert node.address("alice") in {a["address"] for a in users}
    named = accounts(alice, contractName="Shop", external="false")
    assert [a["address"] for a in named] == [shop]
    everyone = accounts(alice, limit=5000)
    assert len(everyone) <= 1000
    page = accounts(alice, limit=2, offset=1)
    assert page == everyone[1:3]
    assert accounts(alice, minnonce=1, external="true")  # alice has sent transactions


def test_account_keeps_todays_answers_and_refusals(alice: httpx.Client, shop: str) -> None:
    one = accounts(alice, address=shop)
    assert [a["contractName"] for a in one] == ["Shop"]
    r = get(alice, "/strato-api/eth/v1.2/account")
    assert r.status_code == 400 and r.text.startswith("Need one of: ")
    r = get(alice, "/strato-api/eth/v1.2/account", external="maybe")
    assert r.status_code == 400 and "external" in r.json()


# ------------------------------------------------------------ contract details


def details(client: httpx.Client, address: str) -> httpx.Response:
    return client.get(f"/bloc/v2.2/contracts/contract/{address}/details")


def test_details_is_the_contract_in_the_platforms_encoding(alice: httpx.Client, shop: str) -> None:
    r = details(alice, "0x" + shop.upper())
    assert r.status_code == 200, r.text
    c = r.json()
    assert list(c) == [
        "_contractName",
        "_parents",
        "_constants",
        "_storageDefs",
        "_userDefined",
        "_enums",
        "_structs",
        "_errors",
        "_events",
        "_functions",
        "_constructor",
        "_modifiers",
        "_usings",
        "_contractType",
        "_importedFrom",
        "_contractContext",
    ]
    assert c["_contractName"] == "Shop" and c["_parents"] == ["Base"]
    assert c["_contractType"] == "ContractType" and c["_importedFrom"] is None
    sell = c["_functions"]["sell"]
    assert sell["_funcArgs"] == [
        ["who", {"index": 0, "type": {"tag": "String", "dynamic": True}, "location": None}],
        ["price", {"index": 1, "type": {"tag": "Int", "signed": False}, "location": None}],
    ]
    assert sell["_funcVals"] == [
        [None, {"index": 0, "type": {"tag": "Int", "signed": False}, "location": None}]
    ]
    assert sell["_funcVisibility"] == "public" and sell["_funcStateMutability"] is None
    quote = c["_functions"]["quote"]
    assert quote["_funcArgs"][1][1]["location"] == "Memory"
    assert quote["_funcVisibility"] == "external" and quote["_funcStateMutability"] == "view"
    # inherited: the base's storage and public functions, not its private ones
    assert "baseOnly" in c["_functions"] and "hidden" not in c["_functions"]
    assert c["_storageDefs"]["baseCount"]["_varType"] == {"tag": "Int", "signed": False}
    defs = c["_storageDefs"]
    assert defs["total"]["_varType"] == {"tag": "Int", "signed": False, "bytes": 32}
    assert defs["owner"]["_varType"] == {"tag": "Address", "isPayable": False}
    assert defs["item"]["_varType"] == {"tag": "UnknownLabel", "contents": "Item"}
    assert defs["balances"]["_varType"] == {
        "tag": "Mapping",
        "dynamic": True,
        "key": {"tag": "Address", "isPayable": False},
        "value": {"tag": "Int", "signed": False},
    }
    assert defs["prices"]["_varType"] == {"tag": "Array", "entry": {"tag": "Int", "signed": False}}
    assert c["_enums"]["State"][0] == ["Closed", "Open", "Sold"]
    assert [f[0] for f in c["_structs"]["Sale"]] == ["price", "buyer"]
    assert c["_structs"]["Sale"][1][1] == {"atBytes": 1, "type": {"tag": "String", "dynamic": True}}
    assert c["_events"]["Sold"]["logs"][0] == {
        "name": "who",
        "indexed": True,
        "type": {"index": 0, "type": {"tag": "Address", "isPayable": False}, "location": None},
    }
    assert c["_errors"]["TooLow"][0][:2] == [
        "wanted",
        {"index": 0, "type": {"tag": "Int", "signed": False}, "location": None},
    ]
    assert c["_constructor"]["_funcArgs"][0][0] == "_name"


def test_details_of_an_unknown_address_is_the_platforms_400(alice: httpx.Client) -> None:
    r = details(alice, "0x" + "ab" * 20)
    assert r.status_code == 400
    assert r.json() == (
        "getContractsDetails': couldn't find contract details for address " + "ab" * 20
    )
    assert details(alice, "nonsense").status_code == 400


def test_details_of_a_proxy_merges_its_logic_contract(alice: httpx.Client) -> None:
    logic = deploy(alice, "Counter", LOGIC)
    proxy = deploy(alice, "Proxy", LOGIC, {"_logic": logic})
    c = details(alice, proxy).json()
    assert c["_contractName"] == "Proxy"
    assert {"setLogicContract", "fallback", "bump"} <= set(c["_functions"])
    assert {"logicContract", "owner", "count"} <= set(c["_storageDefs"])
    assert c["_constructor"]["_funcArgs"][0][0] == "_logic"  # the proxy's own first
    plain = details(alice, logic).json()
    assert set(plain["_functions"]) == {"bump"}


# ------------------------------------------------------------ /transaction/parallel


@pytest.mark.parametrize("route", PARALLEL)
def test_parallel_results_come_back_grouped_by_type(
    node: RunningNode, alice: httpx.Client, shop: str, route: str
) -> None:
    bob = node.address("bob")
    res = submit(
        alice,
        call_tx(shop, "sell", {"who": "carol", "price": 1}),
        upload_tx("Item", SHOP),
        transfer_tx(bob, 0),
        call_tx(shop, "sell", {"who": "dave", "price": 2}),
        route=route,
    )
    assert [r["status"] for r in res] == ["Success"] * 4
    assert [r["data"]["tag"] for r in res] == ["Send", "Upload", "Call", "Call"]
    first, second = (int(r["data"]["contents"][0]) for r in res[2:])
    assert second == first + 2  # request order within a group: the price-1 sale ran first


def test_transaction_keeps_the_request_order(alice: httpx.Client, shop: str) -> None:
    res = submit(alice, call_tx(shop, "sell", {"who": "x", "price": 0}), upload_tx("Item", SHOP))
    assert [r["data"]["tag"] for r in res] == ["Call", "Upload"]


def test_parallel_failure_is_422_in_a_group_of_one_else_a_failure_entry(
    node: RunningNode, alice: httpx.Client, shop: str
) -> None:
    r = alice.post(
        PARALLEL[0],
        params={"resolve": "true"},
        json={"txs": [call_tx(shop, "fail"), transfer_tx(node.address("bob"), 0)]},
    )
    assert r.status_code == 422, r.text  # the FUNCTION group is one failing transaction
    assert r.json().startswith("Error running the transaction: ")
    assert "nope" in r.json()
    res = submit(alice, call_tx(shop, "fail"), call_tx(shop, "fail"), route=PARALLEL[0])
    assert [x["status"] for x in res] == ["Failure", "Failure"]


def test_parallel_keeps_the_senders_pending_transactions(
    node: RunningNode, alice: httpx.Client, shop: str
) -> None:
    """A resolve=true request to /transaction discards the sender's queued resolve=false
    ones (seed rule 3); /transaction/parallel hands out consecutive nonces and keeps them."""
    # a long call keeps the producer busy while the next two requests arrive
    slow = submit(alice, call_tx(shop, "spin", {"n": 300000}), resolve=False, route=PARALLEL[1])
    pending = slow + submit(
        alice, call_tx(shop, "sell", {"who": "p", "price": 1}), resolve=False, route=PARALLEL[1]
    )
    done = submit(alice, call_tx(shop, "sell", {"who": "q", "price": 1}), route=PARALLEL[1])
    assert done[0]["status"] == "Success"
    hashes = [p["hash"] for p in pending]
    r = alice.post("/bloc/v2.2/transactions/results", params={"resolve": "1"}, json=hashes)
    assert {x["status"] for x in r.json()} == {"Success"}


def test_concurrent_parallel_requests_get_consecutive_nonces(node: RunningNode, shop: str) -> None:
    client = node.new_client("carol")
    before = accounts(client, address=node.address("carol"))
    start = before[0]["nonce"] if before else 0
    results: list[Any] = []

    def send(i: int) -> None:
        c = node.new_client("carol")
        results.extend(
            submit(c, call_tx(shop, "sell", {"who": f"c{i}", "price": 1}), route=PARALLEL[0])
        )

    threads = [threading.Thread(target=send, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r["status"] for r in results] == ["Success"] * 6
    nonces = sorted(
        client.get(f"/strato-api/eth/v1.2/transaction?hash={r['hash']}").json()[0]["nonce"]
        for r in results
    )
    assert nonces == list(range(start, start + 6))


# ------------------------------------------------------------ private chains


def test_a_non_member_never_sees_a_private_chains_storage_or_accounts(
    node: RunningNode, alice: httpx.Client
) -> None:
    r = alice.post(
        "/bloc/v2.2/chain",
        json={
            "label": "shop-chain",
            "src": SHOP,
            "contract": "Shop",
            "args": {"_name": "secretshop"},
            "members": [{"orgName": "Acme", "access": True}],
            "balances": [{"address": node.address("alice"), "balance": 1000}],
        },
    )
    assert r.status_code == 200, r.text
    chain = r.json()
    gov = "0000000000000000000000000000000000000100"
    mine = rows(alice, chainid=chain, address=gov)
    assert any(x["value"] == '"secretshop"' for x in mine)
    bob = node.client("bob")  # Globex: not a member
    assert get(bob, "/strato-api/eth/v1.2/storage", chainid=chain).status_code == 403
    assert get(bob, "/strato-api/eth/v1.2/account", chainid=chain, search="shop").status_code == 403
    assert not any(x["value"] == '"secretshop"' for x in rows(bob, search="secretshop"))
    assert details(bob, gov).status_code == 400  # on the main chain there is none
    r = bob.get(f"/bloc/v2.2/contracts/contract/{gov}/details", params={"chainid": chain})
    assert r.status_code == 403
    assert accounts(alice, chainid=chain, search="shop")[0]["chainId"] == chain
