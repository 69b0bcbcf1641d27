"""Transactions, results, contracts and the explorer on a node with gas off (seed 000, §1.4-1.9)."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import (
    HEX40,
    HEX64,
    RunningNode,
    body,
    call_tx,
    deploy,
    result_of,
    submit,
    transfer_tx,
    upload_tx,
    wait_results,
)

STORE = """
contract Store {
    uint public x;
    string public label;
    bool public flag;
    address public owner;
    mapping(address => uint) public credits;
    event Changed(uint value);

    constructor(uint _x, string _label) public {
        x = _x;
        label = _label;
        owner = msg.sender;
        flag = true;
    }

    function set(uint _x) public returns (uint) {
        x = _x;
        emit Changed(_x);
        return x;
    }

    function credit(address who, uint amount) public {
        credits[who] += amount;
    }

    function info() public view returns (uint, string, bool, address) {
        return (x, label, flag, owner);
    }

    function guarded(uint v) public returns (uint) {
        require(v > 100, "too small");
        x = v;
        return v;
    }
}
"""

WRAP = """
contract Wrap {
    uint8 public v;
    function add(uint8 a, uint8 b) public returns (uint8) {
        v = a + b;
        return v;
    }
}
"""

TX_RESULT_FIELDS = {
    "deletedStorage",
    "status",
    "contractsDeleted",
    "gasUsed",
    "stateDiff",
    "time",
    "kind",
    "chainId",
    "response",
    "blockHash",
    "transactionHash",
    "etherUsed",
    "newStorage",
    "message",
    "trace",
    "contractsCreated",
}
UPLOAD_FIELDS = {"bin", "chainId", "address", "bin-runtime", "codeHash", "name", "src", "xabi"}
SEND_FIELDS = {"hash", "gasLimit", "codeOrData", "gasPrice", "to", "from", "value", "r", "s", "v"}

TX_ROUTES = [
    "/svc/v2.3/transaction",
    "/strato/v2.3/transaction",
    "/bloc/v2.2/transaction",
    "/svc/v2.3/transaction/parallel",
    "/strato/v2.3/transaction/parallel",
    "/bloc/v2.2/transaction/parallel",
]
ETH_PREFIXES = ["/svc-api/eth/v1.2", "/strato-api/eth/v1.2"]

BLOCK_NEED = "Need one of: number, minnumber, maxnumber, hash, blockid, index, chainid"
TX_NEED = "Need one of: address, from, to, hash, blocknumber, chainid"
ACCOUNT_NEED = (
    "Need one of: address, balance, minbalance, maxbalance, nonce, minnonce, maxnonce, maxnumber, "
    "index, codeHash, contractName, codePtrAddress, codePtrChainId, chainid, external, limit, "
    "offset, ignoreChain"
)

LINE_COLUMN = re.compile(r"line \d+, column \d+")


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.client("alice")


@pytest.fixture(scope="module")
def store(node: RunningNode) -> str:
    """A Store contract of alice's, shared by the read-mostly tests of this module."""
    return deploy(node.client("alice"), "Store", STORE, {"_x": 5, "_label": "hello"})


def _balance(client: httpx.Client, address: str, prefix: str = "/svc-api/eth/v1.2") -> int:
    r = client.get(f"{prefix}/account", params={"address": address})
    assert r.status_code == 200, r.text
    rows = r.json()
    if not rows:
        return 0
    assert isinstance(rows[0]["balance"], str)
    return int(rows[0]["balance"])


def _assert_success_tx_result(tr: dict[str, Any], tx_hash: str, kind: str) -> None:
    assert set(tr) == TX_RESULT_FIELDS
    assert tr["status"] == "success"
    assert tr["message"] == "Success!"
    assert tr["kind"] == kind
    assert tr["transactionHash"] == tx_hash
    assert HEX64.match(tr["blockHash"])
    assert HEX64.match(tr["gasUsed"]) and int(tr["gasUsed"], 16) > 0
    assert HEX64.match(tr["etherUsed"])
    assert isinstance(tr["time"], int | float) and tr["time"] >= 0
    assert tr["chainId"] is None
    for text_field in ("deletedStorage", "contractsDeleted", "stateDiff", "newStorage", "trace"):
        assert isinstance(tr[text_field], str)
    assert isinstance(tr["response"], str)


# ------------------------------------------------------------------------ uploads


def test_upload_solidvm_resolve_true(node: RunningNode, alice: httpx.Client) -> None:
    res = submit(alice, upload_tx("Store", STORE, {"_x": 7, "_label": "seven"}))
    assert isinstance(res, list) and len(res) == 1
    r = res[0]
    assert set(r) == {"status", "hash", "txResult", "data"}
    assert r["status"] == "Success"
    assert HEX64.match(r["hash"])
    _assert_success_tx_result(r["txResult"], r["hash"], "SolidVM")
    assert r["data"]["tag"] == "Upload"
    c = r["data"]["contents"]
    assert set(c) >= UPLOAD_FIELDS
    assert HEX40.match(c["address"])
    assert r["txResult"]["contractsCreated"].split(",")[0] == c["address"]
    assert c["name"] == "Store"
    assert c["src"] == STORE
    assert c["chainId"] == ""
    assert c["codeHash"]["kind"] == "SolidVM"
    assert c["codeHash"]["name"] == "Store"
    assert HEX64.match(c["codeHash"]["digest"])
    xabi = c["xabi"]
    assert {"set", "info", "guarded", "credit"} <= set(xabi["funcs"])
    assert set(xabi["constr"]["args"]) == {"_x", "_label"}
    assert {"x", "label", "flag", "owner", "credits"} <= set(xabi["vars"])


def test_upload_state_reflects_constructor(node: RunningNode, alice: httpx.Client) -> None:
    address = deploy(alice, "Store", STORE, {"_x": 9, "_label": "nine"})
    r = alice.get(f"/bloc/v2.2/contracts/Store/{address}/state")
    assert r.status_code == 200
    state = r.json()
    assert state["x"] == "9"
    assert state["label"] == "nine"
    assert state["owner"] == node.address("alice")


def test_upload_without_contract_name_when_source_has_one(alice: httpx.Client) -> None:
    tx = upload_tx("Store", STORE, {"_x": 1, "_label": "a"})
    del tx["payload"]["contract"]
    res = submit(alice, tx)
    assert res[0]["data"]["contents"]["name"] == "Store"


def test_upload_evm_wraps_uint8(alice: httpx.Client) -> None:
    res = submit(alice, upload_tx("Wrap", WRAP, vm="EVM"))
    up = res[0]
    assert up["status"] == "Success"
    assert up["txResult"]["kind"] == "EVM"
    assert up["data"]["contents"]["codeHash"]["kind"] == "EVM"
    address = up["data"]["contents"]["address"]
    call = submit(alice, call_tx(address, "add", {"a": 200, "b": 100}))[0]
    assert call["txResult"]["kind"] == "EVM"
    assert call["data"]["contents"] == ["44"]  # (200 + 100) mod 256
    assert alice.get(f"/bloc/v2.2/contracts/Wrap/{address}/state").json()["v"] == "44"


def test_upload_defaults_to_solidvm_without_metadata(alice: httpx.Client) -> None:
    """STRATO 16's bloc forces SolidVM: a CONTRACT with no metadata.VM (the platform's deploy
    script sends none) runs on SolidVM, so `uint8` does not wrap and SolidVM syntax compiles."""
    res = submit(alice, upload_tx("Wrap", WRAP, vm=None))
    assert res[0]["status"] == "Success"
    assert res[0]["txResult"]["kind"] == "SolidVM"
    assert res[0]["data"]["contents"]["codeHash"]["kind"] == "SolidVM"
    src = "contract Acct { account public a; constructor() { a = account(msg.sender); } }"
    res = submit(alice, upload_tx("Acct", src, vm=None))
    assert res[0]["status"] == "Success", res[0]
    assert res[0]["txResult"]["kind"] == "SolidVM"


@pytest.mark.parametrize("vm", ["Foo", "solidvm", ""])
def test_invalid_vm_is_400(alice: httpx.Client, vm: str) -> None:
    res = submit(alice, upload_tx("Store", STORE, {"_x": 1, "_label": "a"}, vm=vm), expect=400)
    assert isinstance(res, str)
    assert res.startswith("Invalid value for VM choice")


def test_parse_error_reports_line_and_column(alice: httpx.Client) -> None:
    res = submit(alice, upload_tx("Bad", "contract Bad {\n  uint x\n}\n"), expect=400)
    assert isinstance(res, str)
    assert LINE_COLUMN.search(res), res
    assert "line 3, column 1" in res


def test_missing_constructor_args_is_400(alice: httpx.Client) -> None:
    res = submit(alice, upload_tx("Store", STORE, {"_x": 1}), expect=400)
    assert res.startswith("Argument names don't match - Expected Arguments:")
    assert res == (
        "Argument names don't match - Expected Arguments: (_label, _x); Received Arguments: (_x)"
    )


def test_unknown_contract_name_in_source_is_400(alice: httpx.Client) -> None:
    res = submit(alice, upload_tx("Nope", STORE, {}), expect=400)
    assert res.startswith("Could not find global contract metadataId for Nope")


def test_multi_contract_source_without_name_is_400(alice: httpx.Client) -> None:
    src = "contract A { uint a; }\ncontract B { uint b; }\n"
    tx = upload_tx("A", src)
    del tx["payload"]["contract"]
    res = submit(alice, tx, expect=400)
    assert res.startswith("When you upload multiple contracts, you need to specify")


# ------------------------------------------------------------------------ calls


def test_call_resolve_true_every_value_a_string(
    node: RunningNode, alice: httpx.Client, store: str
) -> None:
    res = submit(alice, call_tx(store, "info", name="Store"))
    r = res[0]
    assert r["status"] == "Success"
    _assert_success_tx_result(r["txResult"], r["hash"], "SolidVM")
    assert r["txResult"]["contractsCreated"] == ""
    assert r["data"]["tag"] == "Call"
    contents = r["data"]["contents"]
    assert all(isinstance(v, str) for v in contents), contents
    assert contents[1:] == ["hello", "true", node.address("alice")]


def test_call_changes_state_and_returns_value(alice: httpx.Client) -> None:
    address = deploy(alice, "Store", STORE, {"_x": 1, "_label": "s"})
    r = submit(alice, call_tx(address, "set", {"_x": 77}))[0]
    assert r["data"] == {"tag": "Call", "contents": ["77"]}
    assert alice.get(f"/bloc/v2.2/contracts/Store/{address}/state").json()["x"] == "77"


def test_call_accepts_numeric_string_for_int(alice: httpx.Client) -> None:
    address = deploy(alice, "Store", STORE, {"_x": 1, "_label": "s"})
    r = submit(alice, call_tx(address, "set", {"_x": "12345678901234567890"}))[0]
    assert r["data"]["contents"] == ["12345678901234567890"]


def test_call_accepts_0x_contract_address(alice: httpx.Client, store: str) -> None:
    r = submit(alice, call_tx("0x" + store.upper(), "info"))[0]
    assert r["status"] == "Success"


def test_unknown_method_is_400(alice: httpx.Client, store: str) -> None:
    res = submit(alice, call_tx(store, "x2"), expect=400)
    assert res == "Contract doesn't have a method named 'x2'"


def test_unknown_method_refused_up_front_in_async_batch(alice: httpx.Client, store: str) -> None:
    before = alice.get("/svc-api/eth/v1.2/transaction/last/1").json()
    res = submit(
        alice,
        call_tx(store, "set", {"_x": 3}),
        call_tx(store, "nope"),
        resolve=False,
        expect=400,
    )
    assert res == "Contract doesn't have a method named 'nope'"
    after = alice.get("/svc-api/eth/v1.2/transaction/last/1").json()
    assert after == before  # nothing of the request was queued


def test_call_with_wrong_argument_names_is_400(alice: httpx.Client, store: str) -> None:
    res = submit(alice, call_tx(store, "set", {"y": 1}), expect=400)
    assert res.startswith("Argument names don't match - Expected Arguments: (_x)")


def test_call_on_unknown_contract_is_400(alice: httpx.Client) -> None:
    res = submit(alice, call_tx("12" * 20, "set", {"_x": 1}), expect=400)
    assert "Couldn't find contract details for contract at address " + "12" * 20 in res


def test_single_failing_call_resolve_true_is_422(alice: httpx.Client, store: str) -> None:
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [call_tx(store, "guarded", {"v": 3})]},
    )
    assert r.status_code == 422
    assert r.json() == "Error running the transaction: solidity require failed: too small"


def test_batch_with_a_failure_is_200_with_failure_element(alice: httpx.Client, store: str) -> None:
    res = submit(alice, call_tx(store, "guarded", {"v": 3}), call_tx(store, "guarded", {"v": 150}))
    assert [r["status"] for r in res] == ["Failure", "Success"]
    fail = res[0]
    assert fail["data"] is None
    tr = fail["txResult"]
    # the platform's keys, and the sandbox's one addition: where the contract failed
    assert set(tr) == TX_RESULT_FIELDS | {"sourcePosition"}
    assert tr["sourcePosition"]["name"] == "Store"
    assert tr["message"] == "solidity require failed: too small"
    assert tr["status"]["stage"] == "Execution"
    assert tr["status"]["type"] == {
        "tag": "ExecutionFailure",
        "contents": "solidity require failed: too small",
    }
    assert res[1]["data"]["contents"] == ["150"]
    # the failed call changed nothing; the second one did
    assert alice.get(f"/bloc/v2.2/contracts/Store/{store}/state").json()["x"] == "150"
    # the failure stays readable by hash
    assert result_of(alice, fail["hash"])["status"] == "Failure"


def test_user_without_identity_gets_422(node: RunningNode, store: str) -> None:
    dave = node.client("dave")
    r = dave.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [call_tx(store, "set", {"_x": 1})]},
    )
    assert r.status_code == 422
    body = r.json()
    assert body.startswith("Error running the transaction: ")
    assert "registered cert" in body
    assert node.address("dave") in body


def test_user_without_identity_upload_is_422(node: RunningNode) -> None:
    r = node.client("dave").post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [upload_tx("Store", STORE, {"_x": 1, "_label": "d"})]},
    )
    assert r.status_code == 422
    assert "registered cert" in r.json()


@pytest.mark.parametrize("route", TX_ROUTES)
def test_every_transaction_route(alice: httpx.Client, store: str, route: str) -> None:
    res = submit(alice, call_tx(store, "info"), route=route)
    assert res[0]["status"] == "Success"
    assert res[0]["data"]["tag"] == "Call"


@pytest.mark.parametrize("query", ["resolve", "resolve=1", "resolve=true", "resolve=TRUE"])
def test_resolve_flag_spellings(alice: httpx.Client, store: str, query: str) -> None:
    r = alice.post(f"/svc/v2.3/transaction?{query}", json={"txs": [call_tx(store, "info")]})
    assert r.status_code == 200
    assert r.json()[0]["status"] == "Success"


def test_txparams_optional(alice: httpx.Client, store: str) -> None:
    r = alice.post(
        "/svc/v2.3/transaction", params={"resolve": "true"}, json={"txs": [call_tx(store, "info")]}
    )
    assert r.status_code == 200
    assert r.json()[0]["status"] == "Success"


# ------------------------------------------------------------------------ async and results


def test_async_upload_then_results(alice: httpx.Client) -> None:
    res = submit(alice, upload_tx("Store", STORE, {"_x": 2, "_label": "async"}), resolve=False)
    assert len(res) == 1
    assert res[0]["status"] == "Pending"
    assert res[0]["txResult"] is None
    assert res[0]["data"] is None
    assert HEX64.match(res[0]["hash"])
    h = res[0]["hash"]
    [done] = wait_results(alice, [h])
    assert done["status"] == "Success"
    assert done["hash"] == h
    assert done["data"]["tag"] == "Upload"
    one = result_of(alice, h)
    assert one == done


def test_async_results_keep_request_order(alice: httpx.Client, store: str) -> None:
    res = submit(
        alice,
        call_tx(store, "set", {"_x": 11}),
        call_tx(store, "set", {"_x": 12}),
        call_tx(store, "set", {"_x": 13}),
        resolve=False,
    )
    assert [r["status"] for r in res] == ["Pending"] * 3
    hashes = [r["hash"] for r in res]
    assert len(set(hashes)) == 3
    wait_results(alice, hashes)
    # ask in another order: the answer follows the order asked
    asked = [hashes[2], hashes[0], hashes[1], hashes[2]]
    r = alice.post("/bloc/v2.2/transactions/results", json=asked)
    assert r.status_code == 200
    out = r.json()
    assert [x["hash"] for x in out] == asked
    assert [x["data"]["contents"] for x in out] == [["13"], ["11"], ["12"], ["13"]]
    assert alice.get(f"/bloc/v2.2/contracts/Store/{store}/state").json()["x"] == "13"


def test_results_accept_0x_and_uppercase_hashes(alice: httpx.Client, store: str) -> None:
    h = submit(alice, call_tx(store, "info"))[0]["hash"]
    r = alice.post("/bloc/v2.2/transactions/results", json=["0x" + h.upper()])
    assert r.status_code == 200
    assert r.json()[0]["status"] == "Success"
    assert alice.get(f"/bloc/v2.2/transactions/{h.upper()}/result").json()["status"] == "Success"


def test_unknown_hash_is_pending(alice: httpx.Client) -> None:
    h = "ab" * 32
    assert result_of(alice, h) == {"status": "Pending", "hash": h, "txResult": None, "data": None}
    r = alice.post("/bloc/v2.2/transactions/results", json=[h, "cd" * 32])
    assert r.status_code == 200
    assert [x["status"] for x in r.json()] == ["Pending", "Pending"]
    assert [x["hash"] for x in r.json()] == [h, "cd" * 32]


def test_results_of_empty_list(alice: httpx.Client) -> None:
    r = alice.post("/bloc/v2.2/transactions/results", json=[])
    assert r.status_code == 200
    assert r.json() == []


# ------------------------------------------------------------------------ batches and transfers


def test_batch_of_mixed_types_keeps_request_order(
    node: RunningNode, alice: httpx.Client, store: str
) -> None:
    bob = node.address("bob")
    res = submit(
        alice,
        call_tx(store, "set", {"_x": 21}),
        transfer_tx(bob, 5),
        upload_tx("Store", STORE, {"_x": 22, "_label": "batch"}),
        call_tx(store, "info"),
    )
    assert [r["status"] for r in res] == ["Success"] * 4
    assert [r["data"]["tag"] for r in res] == ["Call", "Send", "Upload", "Call"]
    assert res[0]["data"]["contents"] == ["21"]
    assert res[3]["data"]["contents"][0] == "21"
    blocks = {r["txResult"]["blockHash"] for r in res}
    assert len(blocks) == 1  # one request, one block (gas off, no block time)


def test_transfer_moves_balance(node: RunningNode, alice: httpx.Client) -> None:
    a, b = node.address("alice"), node.address("carol")
    before_a, before_b = _balance(alice, a), _balance(alice, b)
    assert before_a > 10**18  # demo users start with tokens when gas is off
    value = 123_456_789
    r = submit(alice, transfer_tx(b, value))[0]
    assert r["status"] == "Success"
    _assert_success_tx_result(r["txResult"], r["hash"], r["txResult"]["kind"])
    assert r["data"]["tag"] == "Send"
    c = r["data"]["contents"]
    assert set(c) >= SEND_FIELDS
    assert c["to"] == b
    assert c["from"] == a
    assert c["value"] == str(value)
    assert c["hash"] == r["hash"]
    assert _balance(alice, a) == before_a - value  # gas off: no fee
    assert _balance(alice, b) == before_b + value
    assert _balance(alice, b, "/strato-api/eth/v1.2") == before_b + value


def test_transfer_value_as_decimal_string(node: RunningNode) -> None:
    bob = node.client("bob")
    a, c = node.address("bob"), node.address("carol")
    before_a, before_c = _balance(bob, a), _balance(bob, c)
    r = submit(bob, transfer_tx(c, "1000000000000000000"))[0]
    assert r["data"]["contents"]["value"] == "1000000000000000000"
    assert _balance(bob, c) == before_c + 10**18
    assert _balance(bob, a) == before_a - 10**18


def test_transfer_more_than_balance_fails(node: RunningNode) -> None:
    carol = node.client("carol")
    have = _balance(carol, node.address("carol"))
    r = carol.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [transfer_tx(node.address("bob"), have + 1)]},
    )
    assert r.status_code == 422
    assert r.json().startswith("Error running the transaction: ")
    assert "insufficient balance" in r.json()
    assert _balance(carol, node.address("carol")) == have


def test_faucet_with_gas_off(node: RunningNode, alice: httpx.Client) -> None:
    a = node.address("alice")
    before = _balance(alice, a)
    for query in ({}, {"resolve": "true"}):
        r = alice.post(f"/bloc/v2.2/users/user/{a}/fill", params=query)
        assert r.status_code == 200
        assert r.json() == {"status": "Success", "hash": "0" * 64, "txResult": None, "data": None}
    r = alice.post(f"/bloc/v2.2/users/alice/0x{a}/fill")
    assert r.status_code == 200
    assert _balance(alice, a) == before  # it does nothing


# ------------------------------------------------------------------------ contracts (bloc)


def test_xabi_endpoint(alice: httpx.Client) -> None:
    r = alice.post("/bloc/v2.2/contracts/xabi", json={"src": STORE})
    assert r.status_code == 200
    out = r.json()
    assert set(out) == {"src"}
    assert set(out["src"]) == {"Store"}
    x = out["src"]["Store"]
    assert set(x["funcs"]["set"]["args"]) == {"_x"}
    assert "#0" in x["funcs"]["set"]["vals"]
    assert "Changed" in x["events"]


def test_xabi_parse_error_is_400(alice: httpx.Client) -> None:
    r = alice.post("/bloc/v2.2/contracts/xabi", json={"src": "contract {"})
    assert r.status_code == 400
    assert LINE_COLUMN.search(r.json())


def test_compile_endpoint(alice: httpx.Client) -> None:
    r = alice.post(
        "/bloc/v2.2/contracts/compile",
        json=[
            {"contractName": "Store", "source": STORE},
            {"contractName": "Wrap", "source": WRAP, "vm": "EVM"},
        ],
    )
    assert r.status_code == 200
    out = r.json()
    assert [o["contractName"] for o in out] == ["Store", "Wrap"]
    assert out[0]["codeHash"]["kind"] == "SolidVM"
    assert out[1]["codeHash"]["kind"] == "EVM"
    assert all(HEX64.match(o["codeHash"]["digest"]) for o in out)


def test_compile_digest_matches_upload(alice: httpx.Client) -> None:
    compiled = alice.post(
        "/bloc/v2.2/contracts/compile", json=[{"contractName": "Store", "source": STORE}]
    ).json()
    up = submit(alice, upload_tx("Store", STORE, {"_x": 1, "_label": "d"}))[0]
    assert compiled[0]["codeHash"]["digest"] == up["data"]["contents"]["codeHash"]["digest"]


def test_compile_syntax_error_is_400(alice: httpx.Client) -> None:
    r = alice.post(
        "/bloc/v2.2/contracts/compile", json=[{"contractName": "X", "source": "contract X {"}]
    )
    assert r.status_code == 400
    assert LINE_COLUMN.search(r.json())


def test_contracts_listing(alice: httpx.Client, store: str) -> None:
    r = alice.get("/bloc/v2.2/contracts")
    assert r.status_code == 200
    listing = r.json()
    entries = {e["address"]: e for e in listing["Store"]}
    assert store in entries
    e = entries[store]
    assert e["chainId"] == ""
    assert isinstance(e["createdAt"], int) and e["createdAt"] > 1_600_000_000_000  # ms


def test_contract_details(alice: httpx.Client, store: str) -> None:
    r = alice.get(f"/bloc/v2.2/contracts/Store/{store}")
    assert r.status_code == 200
    d = r.json()
    assert set(d) >= UPLOAD_FIELDS
    assert d["name"] == "Store"
    assert d["address"] == store
    assert d["src"] == STORE
    assert d["codeHash"]["kind"] == "SolidVM"
    assert "set" in d["xabi"]["funcs"]


def test_contract_state_variable_and_mapping(node: RunningNode, alice: httpx.Client) -> None:
    address = deploy(alice, "Store", STORE, {"_x": 1, "_label": "m"})
    bob = node.address("bob")
    submit(alice, call_tx(address, "credit", {"who": bob, "amount": 40}))
    state = alice.get(f"/bloc/v2.2/contracts/Store/{address}/state").json()
    assert state["credits"] == {bob: "40"}
    one = alice.get(f"/bloc/v2.2/contracts/Store/{address}/state", params={"name": "label"})
    assert one.status_code == 200
    assert one.json() == {"label": "m"}
    entry = alice.get(f"/bloc/v2.2/contracts/Store/{address}/state/credits/{bob}")
    assert entry.status_code == 200
    assert entry.json() == {"credits": {bob: "40"}}
    missing = alice.get(f"/bloc/v2.2/contracts/Store/{address}/state", params={"name": "nope"})
    assert missing.status_code == 400


@pytest.mark.parametrize(
    ("name", "address_of"),
    [
        ("Nope", lambda store: store),
        ("Store", lambda store: "zz"),
        ("Store", lambda store: "12" * 20),
        ("Store", lambda store: store + "00"),
    ],
    ids=["bad-name", "non-hex", "unknown-address", "too-long"],
)
@pytest.mark.parametrize("suffix", ["", "/state"])
def test_contract_bad_name_or_address_is_400(
    alice: httpx.Client, store: str, name: str, address_of: Any, suffix: str
) -> None:
    r = alice.get(f"/bloc/v2.2/contracts/{name}/{address_of(store)}{suffix}")
    assert r.status_code == 400
    assert r.json().startswith(f"Couldn't find contract {name} at address")


# ------------------------------------------------------------------------ explorer


@pytest.mark.parametrize("prefix", ETH_PREFIXES)
def test_block_queries(alice: httpx.Client, store: str, prefix: str) -> None:
    h = submit(alice, call_tx(store, "set", {"_x": 31}))[0]
    block_hash = h["txResult"]["blockHash"]
    r = alice.get(f"{prefix}/block", params={"hash": block_hash})
    assert r.status_code == 200
    [b] = r.json()
    assert b["kind"] == "Block"
    assert b["blockHash"] == block_hash
    number = b["blockData"]["number"]
    assert [t["hash"] for t in b["receiptTransactions"]] == [h["hash"]]
    by_number = alice.get(f"{prefix}/block", params={"number": number}).json()
    assert [x["blockHash"] for x in by_number] == [block_hash]
    parent = alice.get(f"{prefix}/block", params={"number": number - 1}).json()[0]
    assert b["blockData"]["parentHash"] == parent["blockHash"]
    genesis = alice.get(f"{prefix}/block", params={"number": 0}).json()
    assert genesis[0]["blockData"]["number"] == 0
    assert genesis[0]["blockData"]["parentHash"] == "0" * 64
    rng = alice.get(f"{prefix}/block", params={"minnumber": number - 1, "maxnumber": number})
    assert [x["blockData"]["number"] for x in rng.json()] == [number - 1, number]


@pytest.mark.parametrize("prefix", ETH_PREFIXES)
def test_last_blocks(alice: httpx.Client, store: str, prefix: str) -> None:
    submit(alice, call_tx(store, "info"))
    r = alice.get(f"{prefix}/block/last/3")
    assert r.status_code == 200
    blocks = r.json()
    numbers = [b["blockData"]["number"] for b in blocks]
    assert len(numbers) == 3
    assert numbers == sorted(numbers, reverse=True)
    assert numbers[0] - numbers[2] == 2
    health = alice.get("/health").json()
    assert numbers[0] == health["lastBlock"]["number"]
    assert alice.get(f"{prefix}/block/last/0").json() == []
    assert len(alice.get(f"{prefix}/block/last/100000").json()) <= 100


@pytest.mark.parametrize("prefix", ETH_PREFIXES)
def test_transaction_by_hash(
    node: RunningNode, alice: httpx.Client, store: str, prefix: str
) -> None:
    res = submit(alice, call_tx(store, "set", {"_x": 41}), transfer_tx(node.address("bob"), 1))
    call_hash, send_hash = res[0]["hash"], res[1]["hash"]
    r = alice.get(f"{prefix}/transaction", params={"hash": call_hash})
    assert r.status_code == 200, r.text
    [t] = r.json()
    assert t["hash"] == call_hash
    assert t["from"] == node.address("alice")
    assert t["to"] == store
    assert t["transactionType"] == "FunctionCall"
    assert t["metadata"]["funcName"] == "set"
    assert isinstance(t["value"], str)
    send = alice.get(f"{prefix}/transaction", params={"hash": send_hash}).json()[0]
    assert send["transactionType"] == "Transfer"
    assert send["value"] == "1"
    assert send["to"] == node.address("bob")


@pytest.mark.parametrize("prefix", ETH_PREFIXES)
def test_transaction_queries_by_sender_recipient_and_block(
    node: RunningNode, alice: httpx.Client, store: str, prefix: str
) -> None:
    me = node.address("alice")
    res = submit(alice, call_tx(store, "set", {"_x": 42}), transfer_tx(node.address("bob"), 1))
    call_hash, send_hash = res[0]["hash"], res[1]["hash"]
    mine = alice.get(f"{prefix}/transaction", params={"from": me})
    assert mine.status_code == 200
    assert mine.json() and all(x["from"] == me for x in mine.json())
    to_store = alice.get(f"{prefix}/transaction", params={"to": store}).json()
    assert call_hash in {x["hash"] for x in to_store}
    assert all(x["to"] == store for x in to_store)
    involving_bob = alice.get(f"{prefix}/transaction", params={"address": node.address("bob")})
    assert send_hash in {x["hash"] for x in involving_bob.json()}
    number = res[0]["txResult"]["blockHash"]
    [block] = alice.get(f"{prefix}/block", params={"hash": number}).json()
    in_block = alice.get(
        f"{prefix}/transaction", params={"blocknumber": block["blockData"]["number"]}
    ).json()
    assert [x["hash"] for x in in_block] == [call_hash, send_hash]
    assert all(x["blockNumber"] == block["blockData"]["number"] for x in in_block)


@pytest.mark.parametrize("prefix", ETH_PREFIXES)
def test_last_transactions(alice: httpx.Client, store: str, prefix: str) -> None:
    res = submit(alice, call_tx(store, "set", {"_x": 51}), call_tx(store, "set", {"_x": 52}))
    r = alice.get(f"{prefix}/transaction/last/2")
    assert r.status_code == 200
    assert [t["hash"] for t in r.json()] == [res[1]["hash"], res[0]["hash"]]
    up = submit(alice, upload_tx("Store", STORE, {"_x": 1, "_label": "last"}))[0]
    [t] = alice.get(f"{prefix}/transaction/last/1").json()
    assert t["hash"] == up["hash"]
    assert t["transactionType"] == "Contract"


@pytest.mark.parametrize("prefix", ETH_PREFIXES)
def test_transactions_by_block_range_newest_first_type_status_and_pages(
    node: RunningNode, alice: httpx.Client, store: str, prefix: str
) -> None:
    """The Explorer's reads: the platform's minblocknumber/maxblocknumber and sortby=desc with
    limit/offset pages; the sandbox's own type and status filters."""
    hashes = []
    for i in range(3):
        hashes.append(submit(alice, call_tx(store, "set", {"_x": 60 + i}))[0]["hash"])
        hashes.append(submit(alice, transfer_tx(node.address("bob"), 1))[0]["hash"])
    mine = alice.get(f"{prefix}/transaction", params={"hash": hashes[0]}).json()[0]
    low = mine["blockNumber"]
    top = alice.get(f"{prefix}/transaction", params={"hash": hashes[-1]}).json()[0]["blockNumber"]
    rng = {"minblocknumber": low, "maxblocknumber": top}
    asc = alice.get(f"{prefix}/transaction", params=rng).json()
    assert [t["hash"] for t in asc] == hashes
    assert all(low <= t["blockNumber"] <= top for t in asc)
    desc = alice.get(f"{prefix}/transaction", params={**rng, "sortby": "desc"}).json()
    assert [t["hash"] for t in desc] == hashes[::-1]
    pages = [
        alice.get(
            f"{prefix}/transaction", params={**rng, "sortby": "desc", "limit": 4, "offset": o}
        ).json()
        for o in (0, 4)
    ]
    assert [t["hash"] for page in pages for t in page] == hashes[::-1]
    assert len(pages[1]) == 2
    only_top = alice.get(f"{prefix}/transaction", params={"minblocknumber": top}).json()
    assert [t["hash"] for t in only_top] == hashes[-1:]
    transfers = alice.get(f"{prefix}/transaction", params={**rng, "type": "Transfer"}).json()
    assert [t["hash"] for t in transfers] == hashes[1::2]
    calls = alice.get(f"{prefix}/transaction", params={**rng, "type": "FunctionCall"}).json()
    assert [t["hash"] for t in calls] == hashes[0::2]
    ok = alice.get(f"{prefix}/transaction", params={**rng, "status": "success"}).json()
    assert len(ok) == 6
    assert alice.get(f"{prefix}/transaction", params={**rng, "status": "Failure"}).json() == []
    bad = alice.get(f"{prefix}/transaction", params={**rng, "type": "Magic"})
    assert bad.status_code == 400
    assert "type must be one of: Contract, FunctionCall, Transfer" in bad.text
    bad = alice.get(f"{prefix}/transaction", params={**rng, "sortby": "up"})
    assert bad.status_code == 400 and "sortby" in bad.text
    blocks = alice.get(
        f"{prefix}/block", params={"minnumber": low, "maxnumber": top, "sortby": "desc"}
    ).json()
    numbers = [b["blockData"]["number"] for b in blocks]
    assert numbers == sorted(numbers, reverse=True) and numbers[0] == top


def test_transaction_pages_leave_out_private_chains_whole_pages(node: RunningNode) -> None:
    """A non-member's pages hold none of a private chain's transactions and stay full: the
    filter is in the query, so offset paging over what the caller sees holds."""
    from tests.integration.test_chains import chain_body, create

    alice, bob = node.client("alice"), node.client("bob")
    chain = create(alice, chain_body(node.address("alice")))  # Acme: alice and carol
    first = submit(alice, transfer_tx(node.address("bob"), 1))[0]["hash"]
    for _ in range(3):
        r = alice.post(
            "/svc/v2.3/transaction",
            params={"resolve": "true", "chainid": chain},
            json=body(transfer_tx(node.address("alice"), 1)),
        )
        assert r.status_code == 200 and r.json()[0]["status"] == "Success", r.text
    last = submit(alice, transfer_tx(node.address("bob"), 1))[0]["hash"]
    low = alice.get("/svc-api/eth/v1.2/transaction", params={"hash": first}).json()[0][
        "blockNumber"
    ]
    rng = {"minblocknumber": low, "sortby": "desc", "limit": 1}
    seen_by_bob = [
        bob.get("/svc-api/eth/v1.2/transaction", params={**rng, "offset": o}).json()
        for o in range(3)
    ]
    assert [len(p) for p in seen_by_bob] == [1, 1, 0]
    assert [p[0]["hash"] for p in seen_by_bob[:2]] == [last, first]
    seen_by_alice = alice.get("/svc-api/eth/v1.2/transaction", params={**rng, "limit": 10}).json()
    assert len(seen_by_alice) == 5
    assert sum(1 for t in seen_by_alice if t.get("chainId") == chain) == 3


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("block", BLOCK_NEED),
        ("transaction", TX_NEED),
        ("account", ACCOUNT_NEED),
    ],
)
@pytest.mark.parametrize("prefix", ETH_PREFIXES)
def test_explorer_without_filter_is_400_need_one_of(
    alice: httpx.Client, prefix: str, path: str, text: str
) -> None:
    r = alice.get(f"{prefix}/{path}")
    assert r.status_code == 400
    assert r.text == text


def test_account_lists_a_user_with_a_key_before_any_transaction(node: RunningNode) -> None:
    node.add_user("ivy", "Acme", password="ivy-pw")
    ivy = node.client("ivy")
    address = ivy.post("/svc/v2.3/key").json()["address"]
    r = ivy.get("/svc-api/eth/v1.2/account", params={"address": address})
    assert r.status_code == 200
    [acct] = r.json()
    assert acct["address"] == address
    assert acct["kind"] == "AddressStateRef"
    assert acct["balance"] == "0"
    assert acct["nonce"] == 0


def test_account_of_a_contract(alice: httpx.Client, store: str) -> None:
    [acct] = alice.get("/svc-api/eth/v1.2/account", params={"address": store}).json()
    assert acct["contractName"] == "Store"
    details = alice.get(f"/bloc/v2.2/contracts/Store/{store}").json()
    assert acct["codeHash"] == details["codeHash"]["digest"]
    by_name = alice.get("/svc-api/eth/v1.2/account", params={"contractName": "Store"}).json()
    assert store in {a["address"] for a in by_name}


def test_unknown_account_is_empty_list(alice: httpx.Client) -> None:
    r = alice.get("/svc-api/eth/v1.2/account", params={"address": "ee" * 20})
    assert r.status_code == 200
    assert r.json() == []


def test_nonce_counts_transactions(node: RunningNode) -> None:
    carol = node.client("carol")
    me = node.address("carol")
    before = carol.get("/svc-api/eth/v1.2/account", params={"address": me}).json()[0]["nonce"]
    submit(carol, upload_tx("Store", STORE, {"_x": 1, "_label": "n"}))
    submit(carol, transfer_tx(node.address("bob"), 1))
    after = carol.get("/svc-api/eth/v1.2/account", params={"address": me}).json()[0]["nonce"]
    assert after == before + 2


def test_version_routes(alice: httpx.Client) -> None:
    for path in ("/bloc/v2.2", "/bloc/v2.2/", "/strato-api/eth/v1.2/version"):
        r = alice.get(path)
        assert r.status_code == 200
        assert "monostrato" in r.json()
