"""The requests of the platform's deployment script (mercata/contracts/deploy, blockapps-rest
8.4.0), in its order and shapes, against the sandbox node.

The script's own run is ``tools/run_platform_deploy.py`` (it needs Node.js and the platform's
checkout); this module sends the same requests with a small contract of our own shaped like the
deployed one: a constructor that creates implementations, each behind a proxy whose fallback
delegatecalls it, initializes them through the proxies and keeps their addresses.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from tests.integration.node_fixture import RunningNode

HEX40 = re.compile(r"^[0-9a-f]{40}$")
MANAGERS = ("registry", "vault", "pool", "oracle", "bridge", "escrow")

SRC = (
    """
contract Impl {
    address public owner;
    uint public setting;
    string public label;
    constructor(address o) { owner = o; }
    function initialize(uint s, string l) external { setting = s; label = l; }
}
contract record Proxy {
    address logicContract;
    address public owner;
    constructor(address l, address o) { logicContract = l; owner = o; }
    fallback(variadic args) external returns (variadic) {
        return logicContract.delegatecall(msg.sig, args);
    }
}
contract record Hub {
"""
    + "".join(f"    address public {m};\n" for m in MANAGERS)
    + "    constructor() public {\n"
    + "".join(
        f"        {m} = address(new Proxy(address(new Impl(address(0xdead))), this));\n"
        f'        {m}.call("initialize", {i + 1}, "{m}");\n'
        for i, m in enumerate(MANAGERS)
    )
    + "    }\n}\n"
)


def _basic(client_id: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode("ascii")


def _token(node: RunningNode) -> str:
    """As blockapps-rest's oauthUtil: the discovery document and the JWKS read with a trailing
    slash, then the password grant with HTTP Basic client authentication and its scope."""
    http = node.client()
    discovery_url = f"{node.url}/auth/.well-known/openid-configuration"
    d = http.get(discovery_url + "/")
    assert d.status_code == 200, d.text
    config = d.json()
    jwks = http.get(config["jwks_uri"] + "/")
    assert jwks.status_code == 200 and jwks.json()["keys"], jwks.text
    client_id, secret = node.oauth_client()
    r = http.post(
        config["token_endpoint"],
        data={
            "grant_type": "password",
            "username": "alice",
            "password": "alice",
            "scope": "email openid",
        },
        headers={"Authorization": _basic(client_id, secret)},
    )
    assert r.status_code == 200, r.text
    return str(r.json()["access_token"])


def test_the_deploy_scripts_requests_from_sign_in_to_the_printed_addresses(
    node: RunningNode,
) -> None:
    http = node.new_client(token=_token(node))
    body: dict[str, Any] = {
        "txs": [
            {
                "payload": {
                    "src": SRC,
                    "contract": "Hub",
                    "args": {},
                    "txParams": {"gasPrice": 10, "gasLimit": 5000000},
                    "metadata": {"history": "Hub"},  # no VM: SolidVM, as STRATO 16's bloc
                },
                "type": "CONTRACT",
            }
        ],
        "txParams": {"gasLimit": 32100000000, "gasPrice": 1},
    }
    r = http.post("/strato/v2.3/transaction/parallel?resolve=true", json=body)
    assert r.status_code == 200, r.text
    [created] = r.json()
    assert created["status"] == "Success", created
    address = created["data"]["contents"]["address"]
    assert created["data"]["contents"]["codeHash"]["kind"] == "SolidVM"

    # resolveResult: polls the results of the hash while Pending
    polled = http.post("/bloc/v2.2/transactions/results?", json=[created["hash"]])
    assert polled.status_code == 200, polled.text
    [result] = polled.json()
    assert result["status"] == "Success"
    assert len(result["txResult"]["contractsCreated"].split(",")) == 1 + 2 * len(MANAGERS)

    # getState until lendingPool (here: every manager) is set; the script prints these
    state = http.get(f"/bloc/v2.2/contracts/Hub/{address}/state", params={"resolve": "true"})
    assert state.status_code == 200, state.text
    managers = {m: state.json()[m] for m in MANAGERS}
    assert all(HEX40.match(a) for a in managers.values()), managers
    assert len(set(managers.values())) == len(MANAGERS)
    for a in managers.values():
        [acct] = http.get("/strato-api/eth/v1.2/account", params={"address": a}).json()
        assert acct["contractName"] == "Proxy"
        proxy_state = http.get(f"/bloc/v2.2/contracts/Proxy/{a}/state").json()
        assert proxy_state["owner"] == address


def test_the_deploy_transactions_state_diff_names_each_variable_once(node: RunningNode) -> None:
    """Every proxy is written through several delegatecalls (each on a fresh view of its
    account); the result's stateDiff still lists each of its variables once."""
    http = node.client("alice")
    r = http.post(
        "/strato/v2.3/transaction/parallel",
        params={"resolve": "true"},
        json={"txs": [{"type": "CONTRACT", "payload": {"contract": "Hub", "src": SRC}}]},
    )
    assert r.status_code == 200, r.text
    diff = json.loads(r.json()[0]["txResult"]["stateDiff"])
    seen = [(c["address"], c["variable"], c.get("key")) for c in diff["changes"]]
    assert len(seen) == len(set(seen)), [s for s in seen if seen.count(s) > 1][:4]
    assert {c["variable"] for c in diff["changes"]} >= {"logicContract", "owner", *MANAGERS}
