"""Issue 17, items 2, 4 and 5 over real HTTP: private-chain results stay with the members, bad
numbers are 400s naming the parameter (never 500s), and the data dir is private to its owner.
One node for the whole module.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.integration.node_fixture import RunningNode, body, call_tx, create_chain, upload_tx

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
    chain = create_chain(alice, node.address("alice"), CHAIN_SRC, "Gov", label="acme-only")
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


# ---------------------------------------------------------------------------- item 4

# "¹" passes str.isdigit() but int() refuses it; int() reads "٣" (Arabic-Indic three) as 3.
BAD_DIGITS = ["¹", "٣", "1²"]
ETH = "/strato-api/eth/v1.2"

QUERY_ROUTES = [
    (f"{ETH}/block/last/{{v}}", "n"),
    ("/svc-api/eth/v1.2/block/last/{v}", "n"),
    (f"{ETH}/transaction/last/{{v}}", "n"),
    (f"{ETH}/block?number={{v}}", "number"),
    (f"{ETH}/block?minnumber={{v}}", "minnumber"),
    (f"{ETH}/transaction?blocknumber={{v}}", "blocknumber"),
    (f"{ETH}/transaction?from={'1' * 40}&limit={{v}}", "limit"),
    (f"{ETH}/transaction?from={'1' * 40}&offset={{v}}", "offset"),
    ("/svc/v2.3/users?limit={v}", "limit"),
    ("/strato/v2.3/users?offset={v}", "offset"),
    ("/bloc/v2.2/chain?limit={v}", "limit"),
    ("/cirrus/search/Certificate?limit={v}", "limit"),
    ("/cirrus/search/Certificate?offset={v}", "offset"),
    # a filter value gets PostgreSQL's own error, as PostgREST relays it (no column name there)
    ("/cirrus/search/Certificate?block_number=eq.{v}", "invalid input syntax for type numeric"),
    ("/cirrus/search/Certificate?block_number=gt.{v}", "invalid input syntax for type numeric"),
    ("/apps/CarDemo/car?limit={v}", "limit"),
]


@pytest.mark.parametrize("digits", BAD_DIGITS)
@pytest.mark.parametrize(("route", "name"), QUERY_ROUTES)
def test_non_ascii_digits_in_query_are_400(
    node: RunningNode, route: str, name: str, digits: str
) -> None:
    r = node.client("alice").get(route.format(v=digits))
    assert r.status_code == 400, (r.status_code, r.text)
    assert name in r.text


def test_ascii_digits_still_accepted(node: RunningNode) -> None:
    alice = node.client("alice")
    for route, _ in QUERY_ROUTES:
        r = alice.get(route.format(v="3"))
        assert r.status_code == 200, (route, r.text)


@pytest.fixture(scope="module")
def target(node: RunningNode) -> str:
    r = node.client("alice").post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json=body(upload_tx("Secret", SRC, {"_x": 1})),
    )
    assert r.status_code == 200, r.text
    return str(r.json()[0]["data"]["contents"]["address"])


@pytest.mark.parametrize("digits", BAD_DIGITS)
def test_non_ascii_digits_in_transaction_body_are_400(
    node: RunningNode, target: str, digits: str
) -> None:
    alice = node.client("alice")
    to = node.address("bob")
    cases = [
        ({"type": "TRANSFER", "payload": {"toAddress": to, "value": digits}}, "value"),
        (call_tx(target, "reveal", {"y": digits}), "y"),
        (upload_tx("Secret", SRC, {"_x": digits}), "_x"),
    ]
    for tx, name in cases:
        for resolve in ("true", "false"):
            r = alice.post("/svc/v2.3/transaction", params={"resolve": resolve}, json=body(tx))
            assert r.status_code == 400, (tx, r.status_code, r.text)
            assert name in r.text
    for param in ("gasLimit", "gasPrice"):
        tx = {"type": "TRANSFER", "payload": {"toAddress": to, "value": 1}}
        r = alice.post("/svc/v2.3/transaction", json=body(tx, tx_params={param: digits}))
        assert r.status_code == 400, (param, r.status_code, r.text)
        assert f"txParams.{param}" in r.text
    r = alice.post(
        "/bloc/v2.2/chain",
        json={
            "label": "bad-balance",
            "src": CHAIN_SRC,
            "contract": "Gov",
            "args": {},
            "members": [{"orgName": "Acme", "access": True}],
            "balances": [{"address": node.address("alice"), "balance": digits}],
        },
    )
    assert r.status_code == 400, r.text
    assert "balance" in r.text


HUGE = "1" * 5000  # beyond Python's int max-str-digits limit (4300)
JSON_ROUTES = [
    "/svc/v2.3/transaction",
    "/strato/v2.3/transaction/parallel",
    "/bloc/v2.2/transaction",
    "/bloc/v2.2/transactions/results",
    "/bloc/v2.2/chain",
    "/bloc/v2.2/chains",
    "/bloc/v2.2/contracts/compile",
    "/bloc/v2.2/contracts/xabi",
    "/apps/CarDemo/car",
    "/apps",
]


@pytest.mark.parametrize("route", JSON_ROUTES)
@pytest.mark.parametrize("where", ["top", "nested"])
def test_huge_json_integer_is_400(node: RunningNode, route: str, where: str) -> None:
    raw = HUGE if where == "top" else '{"txs": [{"type": "TRANSFER", "payload": {"value": %s}}]}'
    if where == "nested":
        raw = raw % HUGE
    r = node.client("alice").post(
        route, content=raw.encode(), headers={"content-type": "application/json"}
    )
    assert r.status_code == 400, (r.status_code, r.text)
    assert "4300 digits" in r.text
    assert node.client("alice").get("/_ping").status_code == 200


# ---------------------------------------------------------------------------- item 5


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.lstat().st_mode)


def _node_files(data_dir: Path) -> list[Path]:
    return [p for p in data_dir.rglob("*") if p.is_file() and not p.is_symlink()]


def _assert_private(data_dir: Path, skip: Path | None = None) -> None:
    assert _mode(data_dir) == 0o700
    names = {p.name for p in data_dir.iterdir()}
    # the database with its WAL files, the node secret, the signing key, the state and lock files
    for name in ("node.sqlite3", "node.sqlite3-wal", "node.sqlite3-shm", "node-secret"):
        assert name in names, sorted(names)
    for name in ("oidc-signing-key.pem", "node.json", "node.lock", "node-intake.log", "files"):
        assert name in names, sorted(names)
    loose = {
        str(p.relative_to(data_dir)): oct(_mode(p)) for p in _node_files(data_dir) if p != skip
    }
    assert all(m == oct(0o600) for m in loose.values()), loose
    dirs = {str(p): oct(_mode(p)) for p in data_dir.rglob("*") if p.is_dir()}
    assert all(m == oct(0o700) for m in dirs.values()), dirs


def test_data_dir_and_files_are_private(node: RunningNode, private_call: dict[str, Any]) -> None:
    node.add_user("erin", "Acme")  # the CLI writes to the database too
    assert node.client("erin").post("/svc/v2.3/key").status_code in (200, 201)
    _assert_private(node.data_dir)


def test_existing_data_dir_is_tightened_at_start(node: RunningNode) -> None:
    """A data dir left by an older node (0755, files 0644) is private once the node starts.
    Last test of the module: it restarts the node."""
    node.stop()
    os.chmod(node.data_dir, 0o755)
    for p in node.data_dir.rglob("*"):
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    stranger = node.data_dir / "keep-me.txt"  # not the node's: left as it is
    stranger.write_text("not the node's")
    os.chmod(stranger, 0o644)
    node.restart()
    assert node.client("alice").get("/svc/v2.3/key").status_code == 200
    _assert_private(node.data_dir, skip=stranger)
    assert _mode(stranger) == 0o644
