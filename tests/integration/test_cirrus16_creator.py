"""The creator in STRATO 16's Cirrus names: ``BlockApps`` for a transaction's upload and for
``new`` in its code, the first ``username`` string up the call stack when the ``create``
builtin registers a code collection. One node for the module.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

SEARCH = "/cirrus/search"

ITEM = "contract Item { uint public n; constructor(uint _n) public { n = _n; } }"

WALLET = """
contract Child { uint public made; constructor() public { made = 1; } }
contract Factory {
    address public last;
    function make(string src, uint n) public returns (address) {
        last = create("Item", src, n);
        return last;
    }
}
contract Wallet {
    string public username;
    address public last;
    constructor(string _u) public { username = _u; }
    function make(string src, uint n) public returns (address) {
        last = create("Item", src, n);
        return last;
    }
    function child() public returns (address) {
        last = address(new Child());
        return last;
    }
    function via(address factory, string src, uint n) public returns (address) {
        last = Factory(factory).make(src, n);
        return last;
    }
}
contract Anonymous {
    address public last;
    function make(string src, uint n) public { last = create("Item", src, n); }
}
"""


def search(client: httpx.Client, table: str, params: dict[str, str], status: int = 200) -> Any:
    r = client.get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == status, f"{table}: {r.status_code}: {r.text[:2000]}"
    return r.json()


def deploy(client: httpx.Client, name: str, args: dict[str, Any]) -> str:
    res = submit(client, upload_tx(name, WALLET, args))
    assert res[0]["status"] == "Success", res
    return str(res[0]["data"]["contents"]["address"])


def made(client: httpx.Client, address: str, method: str, **args: Any) -> str:
    res = submit(client, call_tx(address, method, args))
    assert res[0]["status"] == "Success", res
    (row,) = search(client, "storage", {"address": f"eq.{address}", "select": "data"})
    return str(row["data"]["last"])


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.new_client("alice")


def test_create_under_a_username_names_the_views_after_it(alice: httpx.Client) -> None:
    wallet = deploy(alice, "Wallet", {"_u": "carla"})
    item = made(alice, wallet, "make", src=ITEM, n=7)
    (row,) = search(alice, "carla-Item", {"address": f"eq.{item}"})
    assert row["creator"] == "carla" and row["n"] == 7
    assert search(alice, "contract", {"address": f"eq.{item}"}) == [
        {"address": item, "creator": "carla", "contract_name": "Item"}
    ]
    assert search(alice, "BlockApps-Item", {"address": f"eq.{item}"}, status=404)
    (w,) = search(alice, "BlockApps-Wallet", {"address": f"eq.{wallet}"})
    assert w["username"] == "carla"


def test_create_without_a_username_is_blockapps(alice: httpx.Client) -> None:
    anon = deploy(alice, "Anonymous", {})
    item = made(alice, anon, "make", src=ITEM, n=3)
    (row,) = search(alice, "BlockApps-Item", {"address": f"eq.{item}"})
    assert row["creator"] == "BlockApps" and row["n"] == 3


def test_new_keeps_the_collection_of_its_code(alice: httpx.Client) -> None:
    wallet = deploy(alice, "Wallet", {"_u": "dora"})
    child = made(alice, wallet, "child")
    (row,) = search(alice, "BlockApps-Child", {"address": f"eq.{child}"})
    assert row["creator"] == "BlockApps" and row["made"] == 1
    search(alice, "dora-Child", {}, status=404)


def test_the_first_username_up_the_call_stack_names_the_views(alice: httpx.Client) -> None:
    """A wallet calls a factory (no ``username``) that creates: the wallet's name, found
    further up the stack; a wallet calling another wallet: the innermost one's."""
    factory = deploy(alice, "Factory", {})
    erin = deploy(alice, "Wallet", {"_u": "erin"})
    item = made(alice, erin, "via", factory=factory, src=ITEM, n=5)
    (row,) = search(alice, "erin-Item", {"address": f"eq.{item}"})
    assert row["creator"] == "erin" and row["n"] == 5
    assert search(alice, "contract", {"address": f"eq.{item}", "select": "creator"}) == [
        {"creator": "erin"}
    ]
    fay = deploy(alice, "Wallet", {"_u": "fay"})
    inner = made(alice, erin, "via", factory=fay, src=ITEM, n=6)
    (row,) = search(alice, "fay-Item", {"address": f"eq.{inner}"})
    assert row["creator"] == "fay"
