"""Malformed and hostile input: every refusal is a 4xx with a JSON body that says what was wrong.

The node must never answer 500 and must keep working afterwards (last test of the module).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, deploy, transfer_tx, upload_tx

MAX_BODY = 4 * 1024 * 1024

TARGET = """
contract Target {
    uint public x;
    mapping(address => uint) public m;
    function set(uint _x) public { x = _x; }
    function flag(bool b) public returns (bool) { return b; }
    function who(address a) public returns (address) { return a; }
    function many(uint[] a) public returns (uint) { return a.length; }
}
"""

EVM_TARGET = """
contract Narrow {
    uint8 public y;
    function set8(uint8 _y) public { y = _y; }
    function set(uint _x) public { }
}
"""


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.client("alice")


@pytest.fixture(scope="module")
def target(alice: httpx.Client) -> str:
    return deploy(alice, "Target", TARGET)


@pytest.fixture(scope="module")
def narrow(alice: httpx.Client) -> str:
    return deploy(alice, "Narrow", EVM_TARGET, vm="EVM")


def message_of(r: httpx.Response) -> str:
    """The error text of a refusal: a JSON string or an object with an 'error' string."""
    assert r.headers["content-type"].startswith("application/json"), r.headers
    body = r.json()
    if isinstance(body, dict):
        body = body.get("error")
    assert isinstance(body, str), r.text
    assert body.strip(), r.text
    return body


def refused(r: httpx.Response, status: int = 400, *fragments: str) -> str:
    assert r.status_code != 500, r.text
    assert r.status_code == status, f"{r.status_code}: {r.text[:500]}"
    msg = message_of(r)
    for f in fragments:
        assert f in msg, msg
    return msg


def post_tx(client: httpx.Client, payload: Any, resolve: bool = True) -> httpx.Response:
    return client.post(
        "/svc/v2.3/transaction", params={"resolve": str(resolve).lower()}, json=payload
    )


def post_raw(client: httpx.Client, path: str, data: bytes) -> httpx.Response:
    return client.post(path, content=data, headers={"Content-Type": "application/json"})


# ------------------------------------------------------------------------ malformed bodies


JSON_ROUTES = [
    "/svc/v2.3/transaction",
    "/bloc/v2.2/transaction/parallel",
    "/bloc/v2.2/transactions/results",
    "/bloc/v2.2/contracts/xabi",
    "/bloc/v2.2/contracts/compile",
]


@pytest.mark.parametrize("path", JSON_ROUTES)
@pytest.mark.parametrize(
    "data",
    [b"{", b'{"txs": [}', b"not json", b"\xff\xfe\x00", b"{'txs': []}"],
    ids=["truncated", "bad-array", "text", "binary", "single-quotes"],
)
def test_malformed_json_is_400(alice: httpx.Client, path: str, data: bytes) -> None:
    msg = refused(post_raw(alice, path, data), 400)
    assert "not valid JSON" in msg


@pytest.mark.parametrize("path", JSON_ROUTES)
def test_empty_body_is_400(alice: httpx.Client, path: str) -> None:
    refused(post_raw(alice, path, b""), 400, "empty")


@pytest.mark.parametrize("path", ["/svc/v2.3/transaction", "/bloc/v2.2/transactions/results"])
def test_deeply_nested_json_is_400(alice: httpx.Client, path: str) -> None:
    depth = 100_000
    refused(post_raw(alice, path, b"[" * depth + b"]" * depth), 400)
    nested = b'{"txs": [' + b"[" * depth + b"]" * depth + b"]}"
    refused(post_raw(alice, path, nested), 400)


@pytest.mark.parametrize("body", [[], "txs", 5, None, True], ids=repr)
def test_transaction_body_not_an_object(alice: httpx.Client, body: Any) -> None:
    refused(post_tx(alice, body), 400)


@pytest.mark.parametrize(
    "txs",
    [None, {}, "x", 5, [], {"type": "FUNCTION"}],
    ids=["null", "obj", "str", "int", "empty", "tx-obj"],
)
def test_txs_not_a_non_empty_list(alice: httpx.Client, txs: Any) -> None:
    refused(post_tx(alice, {"txs": txs}), 400, "txs must be a non-empty array")


def test_txs_missing(alice: httpx.Client) -> None:
    refused(post_tx(alice, {"txParams": {"gasLimit": 1}}), 400, "txs")


@pytest.mark.parametrize("tx", [5, "tx", None, [1]], ids=repr)
def test_tx_element_not_an_object(alice: httpx.Client, tx: Any) -> None:
    refused(post_tx(alice, {"txs": [tx]}), 400, "txs[0]")


@pytest.mark.parametrize("kind", [None, "CALL", "function", 3, "GENESIS"], ids=repr)
def test_unknown_tx_type(alice: httpx.Client, kind: Any) -> None:
    tx = {"type": kind, "payload": {"toAddress": "11" * 20, "value": 1}}
    refused(post_tx(alice, {"txs": [tx]}), 400, "txs[0].type must be one of")


@pytest.mark.parametrize("payload", [None, [], "p", 7], ids=repr)
def test_payload_not_an_object(alice: httpx.Client, payload: Any) -> None:
    refused(post_tx(alice, {"txs": [{"type": "FUNCTION", "payload": payload}]}), 400, "payload")


def test_second_bad_tx_names_its_index(alice: httpx.Client, target: str) -> None:
    txs = [call_tx(target, "set", {"_x": 1}), {"type": "FUNCTION", "payload": "x"}]
    refused(post_tx(alice, {"txs": txs}), 400, "txs[1]")


# ------------------------------------------------------------------------ addresses and hashes


BAD_ADDRESSES = ["xyz", "0x123", "g" * 40, "11" * 21, "", 5, None, ["11" * 20]]


@pytest.mark.parametrize("address", BAD_ADDRESSES, ids=repr)
def test_bad_contract_address(alice: httpx.Client, address: Any) -> None:
    refused(post_tx(alice, {"txs": [call_tx(address, "set", {"_x": 1})]}), 400, "contractAddress")


@pytest.mark.parametrize("address", BAD_ADDRESSES, ids=repr)
def test_bad_transfer_address(alice: httpx.Client, address: Any) -> None:
    refused(post_tx(alice, {"txs": [transfer_tx(address, 1)]}), 400, "toAddress")


@pytest.mark.parametrize("address", ["xyz", "0x" + "1" * 39, "z" * 40])
def test_bad_address_in_queries(alice: httpx.Client, address: str) -> None:
    refused(alice.get("/svc-api/eth/v1.2/account", params={"address": address}), 400)
    refused(alice.get("/svc-api/eth/v1.2/transaction", params={"address": address}), 400)
    refused(alice.get("/svc-api/eth/v1.2/transaction", params={"from": address}), 400)
    refused(alice.get("/svc/v2.3/users", params={"address": address}), 400)
    refused(alice.post(f"/bloc/v2.2/users/user/{address}/fill"), 400)


def test_bad_address_argument(alice: httpx.Client, target: str) -> None:
    refused(post_tx(alice, {"txs": [call_tx(target, "who", {"a": "xyz"})]}), 400, "address")


@pytest.mark.parametrize("h", ["xyz", "ab" * 31, "ab" * 33, "zz" * 32])
def test_bad_hash_format(alice: httpx.Client, h: str) -> None:
    refused(alice.get(f"/bloc/v2.2/transactions/{h}/result"), 400, "64 hex")
    refused(alice.post("/bloc/v2.2/transactions/results", json=[h]), 400, "64 hex")


@pytest.mark.parametrize(
    "bad",
    [
        "ab" * 31 + "  ",
        "ab" * 31 + " \u00e9",
        "ab" * 31 + "\u0661\u0662",
        "0x" + "ab" * 31,
        "\t" * 64,
    ],
    ids=["spaces", "accent", "arabic-digits", "short-0x", "tabs"],
)
def test_a_bad_hash_among_many_is_named(alice: httpx.Client, bad: str) -> None:
    """The many hashes are checked in one go first (routes/tx.py): one that is 64 characters
    but not 64 hex digits (whitespace, which the one-go check skips, or digits of another
    script) is still found and named; hashes in upper case or with 0x stay fine."""
    good = ["0x" + "AB" * 32, "cd" * 32] * 600
    msg = refused(
        alice.post("/bloc/v2.2/transactions/results", json=[*good, bad, *good]), 400, "64 hex"
    )
    assert repr(bad.lower().removeprefix("0x"))[:40] in msg
    r = alice.post("/bloc/v2.2/transactions/results", json=good)
    assert r.status_code == 200 and len(r.json()) == len(good)


@pytest.mark.parametrize("body", [{"a": 1}, [1, 2], "ab" * 32, [None], [["ab" * 32]]], ids=repr)
def test_results_body_must_be_a_list_of_strings(alice: httpx.Client, body: Any) -> None:
    refused(alice.post("/bloc/v2.2/transactions/results", json=body), 400)


def test_too_many_hashes(alice: httpx.Client) -> None:
    refused(alice.post("/bloc/v2.2/transactions/results", json=["ab" * 32] * 10_001), 400)


@pytest.mark.parametrize("chain", ["zz", "main2", "1" * 65])
def test_bad_chainid(alice: httpx.Client, target: str, chain: str) -> None:
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": chain},
        json={"txs": [call_tx(target, "set", {"_x": 1})]},
    )
    refused(r, 400, "chainid")


def test_unknown_chain(alice: httpx.Client, target: str) -> None:
    tx = call_tx(target, "set", {"_x": 1}, chainid="ab" * 32)
    # the answer of a chain alice is not a member of: no one learns which chains exist
    refused(post_tx(alice, {"txs": [tx]}), 403, "txs[0].payload.chainid", "no such chain")


# ------------------------------------------------------------------------ numbers


@pytest.mark.parametrize(
    "gas_limit",
    [-1, -(2**70), 2**256, 10**400, 1.5, "abc", "-5", True, [1], {"n": 1}],
    ids=repr,
)
def test_bad_gas_limit(alice: httpx.Client, target: str, gas_limit: Any) -> None:
    body = {"txs": [call_tx(target, "set", {"_x": 1})], "txParams": {"gasLimit": gas_limit}}
    refused(post_tx(alice, body), 400, "gasLimit")


@pytest.mark.parametrize("gas_price", [-1, 2**300, "1e3"], ids=repr)
def test_bad_gas_price(alice: httpx.Client, target: str, gas_price: Any) -> None:
    body = {"txs": [call_tx(target, "set", {"_x": 1})], "txParams": {"gasPrice": gas_price}}
    refused(post_tx(alice, body), 400, "gasPrice")


def test_infinite_gas_limit_literal(alice: httpx.Client, target: str) -> None:
    raw = json.dumps({"txs": [call_tx(target, "set", {"_x": 1})]})[:-1]
    data = (raw + ', "txParams": {"gasLimit": Infinity}}').encode()
    refused(post_raw(alice, "/svc/v2.3/transaction", data), 400)


@pytest.mark.parametrize("params", [5, "x", [1]], ids=repr)
def test_tx_params_not_an_object(alice: httpx.Client, target: str, params: Any) -> None:
    body = {"txs": [call_tx(target, "set", {"_x": 1})], "txParams": params}
    refused(post_tx(alice, body), 400, "txParams")


@pytest.mark.parametrize("value", [-1, "1e5", 1.5, "x", None, 2**256], ids=repr)
def test_bad_transfer_value(node: RunningNode, alice: httpx.Client, value: Any) -> None:
    refused(post_tx(alice, {"txs": [transfer_tx(node.address("bob"), value)]}), 400, "value")


def test_transfer_without_value(node: RunningNode, alice: httpx.Client) -> None:
    tx = {"type": "TRANSFER", "payload": {"toAddress": node.address("bob")}}
    refused(post_tx(alice, {"txs": [tx]}), 400, "value")


@pytest.mark.parametrize(
    ("method", "args", "fragment"),
    [
        ("set", {"_x": "abc"}, "_x"),
        ("set", {"_x": 1.5}, "_x"),
        ("set", {"_x": [1]}, "_x"),
        ("set", {"_x": None}, "_x"),
        ("set", {"_x": True}, "_x"),
        ("flag", {"b": "yes"}, "bool"),
        ("many", {"a": "x"}, "uint256[]"),
        ("set", "x", "args"),
    ],
    ids=repr,
)
def test_wrong_argument_types(
    alice: httpx.Client, target: str, method: str, args: Any, fragment: str
) -> None:
    tx = call_tx(target, method)
    tx["payload"]["args"] = args
    refused(post_tx(alice, {"txs": [tx]}), 400, fragment)


@pytest.mark.parametrize(
    ("method", "args"),
    [("set8", {"_y": 256}), ("set8", {"_y": -1}), ("set", {"_x": -1}), ("set", {"_x": 2**256})],
    ids=repr,
)
def test_evm_argument_out_of_range(
    alice: httpx.Client, narrow: str, method: str, args: dict[str, Any]
) -> None:
    refused(post_tx(alice, {"txs": [call_tx(narrow, method, args)]}), 400, "out of range")


def test_wrong_constructor_argument_type(alice: httpx.Client) -> None:
    src = "contract C { uint public n; constructor(uint _n) public { n = _n; } }"
    refused(post_tx(alice, {"txs": [upload_tx("C", src, {"_n": "many"})]}), 400, "_n")


@pytest.mark.parametrize("src", [5, None, "", "   ", [], {}], ids=repr)
def test_bad_source(alice: httpx.Client, src: Any) -> None:
    tx = upload_tx("C", "x")
    tx["payload"]["src"] = src
    refused(post_tx(alice, {"txs": [tx]}), 400)


@pytest.mark.parametrize("metadata", ["SolidVM", [1], {"VM": ["SolidVM"]}, {"VM": 5}], ids=repr)
def test_bad_metadata(alice: httpx.Client, metadata: Any) -> None:
    tx = upload_tx("Target", TARGET)
    tx["payload"]["metadata"] = metadata
    refused(post_tx(alice, {"txs": [tx]}), 400)


@pytest.mark.parametrize(
    "body",
    [{"src": 5}, {"source": "contract A {}"}, [], "x", {"src": "contract A {}", "vm": "X"}],
    ids=repr,
)
def test_bad_xabi_requests(alice: httpx.Client, body: Any) -> None:
    refused(alice.post("/bloc/v2.2/contracts/xabi", json=body), 400)


@pytest.mark.parametrize(
    "body",
    [[], [5], [{"contractName": "A"}], [{"source": "contract A {}", "vm": 5}], "x"],
    ids=repr,
)
def test_bad_compile_requests(alice: httpx.Client, body: Any) -> None:
    refused(alice.post("/bloc/v2.2/contracts/compile", json=body), 400)


@pytest.mark.parametrize(
    "query",
    [
        "block?number=abc",
        "block?number=-1",
        "block?minnumber=1.5",
        "block?number=99999999999999999999999",
        "block/last/abc",
        "block/last/-1",
        "transaction/last/x",
        "transaction?from=11&limit=abc",
        "transaction?chainid=xyz",
        "account?contractName=A&chainid=xyz",
    ],
)
def test_bad_query_parameters(alice: httpx.Client, query: str) -> None:
    refused(alice.get(f"/svc-api/eth/v1.2/{query}"), 400)


def test_bad_state_query_parameters(alice: httpx.Client, target: str) -> None:
    base = f"/bloc/v2.2/contracts/Target/{target}/state"
    refused(alice.get(base, params={"name": "nope"}), 400, "nope")
    refused(alice.get(f"{base}/m/xyz"), 400)
    refused(alice.get(f"{base}/x/1"), 400, "not a mapping")
    refused(alice.get(base, params={"chainid": "xyz"}), 400)


def test_too_many_transactions(node: RunningNode, alice: httpx.Client) -> None:
    txs = [transfer_tx(node.address("bob"), 0)] * 5001
    refused(post_tx(alice, {"txs": txs}, resolve=False), 400, "5000")


# ------------------------------------------------------------------------ size limits


def test_body_over_4_mb_is_413(alice: httpx.Client) -> None:
    data = b"x" * (MAX_BODY + 1)
    refused(post_raw(alice, "/svc/v2.3/transaction", data), 413, "too large")


def test_chunked_body_over_4_mb_is_413(alice: httpx.Client) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(5):
            yield b" " * (1024 * 1024)

    r = alice.post("/svc/v2.3/transaction", content=chunks())
    refused(r, 413, "too large")


def test_valid_json_over_4_mb_is_413(alice: httpx.Client, target: str) -> None:
    big = {"txs": [call_tx(target, "set", {"_x": 1})], "pad": "p" * MAX_BODY}
    refused(post_tx(alice, big), 413, "too large")


def test_body_just_under_the_limit_is_parsed(alice: httpx.Client, target: str) -> None:
    body = {"txs": [call_tx(target, "set", {"_x": 4})]}
    raw = json.dumps(body).encode()
    data = raw + b" " * (MAX_BODY - len(raw))
    assert len(data) == MAX_BODY
    r = post_raw(alice, "/svc/v2.3/transaction?resolve=true", data)
    assert r.status_code == 200, r.text[:300]
    assert r.json()[0]["status"] == "Success"


# ------------------------------------------------------------------------ routing


@pytest.mark.parametrize(
    "path", ["/nope", "/svc/v2.3/nope", "/bloc/v2.2/transactions", "/svc-api/eth/v1.3/block", "/"]
)
@pytest.mark.parametrize("user", [None, "alice"])
def test_unknown_route_is_404_json(node: RunningNode, path: str, user: str | None) -> None:
    r = node.client(user).get(path)
    refused(r, 404, path)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/svc/v2.3/transaction"),
        ("PUT", "/svc/v2.3/transaction"),
        ("DELETE", "/svc/v2.3/key"),
        ("GET", "/bloc/v2.2/transactions/results"),
        ("POST", "/bloc/v2.2/contracts"),
        ("POST", "/health"),
        ("GET", "/bloc/v2.2/users/user/" + "11" * 20 + "/fill"),
    ],
)
def test_wrong_method_is_405_json(alice: httpx.Client, method: str, path: str) -> None:
    r = alice.request(method, path)
    msg = refused(r, 405, method)
    assert "not allowed" in msg


@pytest.mark.parametrize(
    "header", ["Bearer", "Token abc", "bearer " + "x" * 10_000, "Bearer a.b.c"]
)
def test_bad_authorization_headers_are_403(node: RunningNode, header: str) -> None:
    r = node.client().get("/svc/v2.3/key", headers={"Authorization": header})
    assert r.status_code == 403, r.text
    assert "invalid jwt" in r.text


def test_node_still_healthy_afterwards(node: RunningNode, alice: httpx.Client, target: str) -> None:
    r = node.client().get("/health")
    assert r.status_code == 200
    assert r.json()["healthInfo"]["isHealthy"] is True
    res = post_tx(alice, {"txs": [call_tx(target, "set", {"_x": 99})]})
    assert res.status_code == 200
    state = alice.get(f"/bloc/v2.2/contracts/Target/{target}/state").json()
    assert state["x"] == "99"
    assert node.running
