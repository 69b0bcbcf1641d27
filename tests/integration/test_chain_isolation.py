"""Issue 26, item 3 over real HTTP: a private chain stays private.

No builtin of a contract reads a chain it has no access to (its own chain and its ancestors, the
main chain included, as for calls): bob (Globex), from his main-chain contract, asks about
alice's Acme-only chain through every introspection builtin and gets ``inaccessible chain``, the
same answer a made-up chain ID gets. On the HTTP routes a real chain a user is no member of and a
chain that does not exist get one and the same 403, wherever a chain ID is accepted.
One node for the whole module.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import (
    RunningNode,
    body,
    call_tx,
    create_chain,
    deploy,
    upload_tx,
)

PIN = "271828"  # a constant of alice's private contract: must never reach bob

SECRET_SRC = f"""
contract Secret {{
    uint constant PIN = {PIN};
    uint public x = 5;
    function peek() public returns (uint) {{ return PIN; }}
}}
"""

GOV_SRC = """
contract Gov {
    constructor() public { }
}
"""

# every builtin that looks at another account, each behind a function taking (a, chain id)
SPY_SRC = """
interface ISecret {
    function x() external returns (uint);
}

contract Spy {
    function readCode(address a, string c) public returns (string) {
        return account(a, c).code;
    }
    function readCodeOf(address a, string c) public returns (string) {
        return account(a, c).code("Secret");
    }
    function readCodeAll(address a, string c) public returns (string) {
        return account(a, c).code();
    }
    function readCodehash(address a, string c) public returns (string) {
        return account(a, c).codehash;
    }
    function readBalance(address a, string c) public returns (uint) {
        return account(a, c).balance;
    }
    function readNonce(address a, string c) public returns (uint) {
        return account(a, c).nonce;
    }
    function readCreator(address a, string c) public returns (string) {
        return account(a, c).creator;
    }
    function readRoot(address a, string c) public returns (address) {
        return account(a, c).root;
    }
    function readDerive(address a, string c) public returns (address) {
        return account(a, c).derive("s", "Secret");
    }
    function readTyped(address a, string c) public returns (uint) {
        return ISecret(account(a, c)).x();
    }
    function readCall(address a, string c) public returns (uint) {
        return account(a, c).call("x");
    }
    function readStaticcall(address a, string c) public returns (uint) {
        return account(a, c).staticcall("x");
    }
    function readDelegatecall(address a, string c) public returns (uint) {
        return account(a, c).delegatecall("peek");
    }
}
"""

BUILTINS = [
    "readCode",
    "readCodeOf",
    "readCodeAll",
    "readCodehash",
    "readBalance",
    "readNonce",
    "readCreator",
    "readRoot",
    "readDerive",
    "readTyped",
    "readCall",
    "readStaticcall",
    "readDelegatecall",
]

MADE_UP = "ab" * 32


@pytest.fixture(scope="module")
def private(node: RunningNode) -> dict[str, str]:
    """alice's chain (members: Acme) holding a Secret, and bob's Spy on the main chain."""
    alice = node.client("alice")
    chain = create_chain(
        alice, node.address("alice"), GOV_SRC, "Gov", label="acme-secrets", balance=31337
    )
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": chain},
        json=body(upload_tx("Secret", SECRET_SRC)),
    )
    assert r.status_code == 200, r.text
    (up,) = r.json()
    assert up["status"] == "Success", up
    spy = deploy(node.client("bob"), "Spy", SPY_SRC)
    return {"chain": chain, "secret": up["data"]["contents"]["address"], "spy": spy}


def spy_call(client: httpx.Client, spy: str, method: str, a: str, c: str) -> httpx.Response:
    return client.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json=body(call_tx(spy, method, {"a": a, "c": c})),
    )


def refusal(r: httpx.Response, chain: str) -> str:
    """The answer to a refused call, with the chain ID asked about blanked out."""
    assert r.status_code == 422, f"{r.status_code}: {r.text[:500]}"
    text = r.json()
    assert isinstance(text, str), r.text
    return text.replace(chain, "<chain>")


@pytest.mark.parametrize("method", BUILTINS)
def test_main_chain_contract_cannot_read_a_private_chain(
    node: RunningNode, private: dict[str, str], method: str
) -> None:
    bob = node.client("bob")
    for target in (private["secret"], node.address("alice")):
        r = spy_call(bob, private["spy"], method, target, private["chain"])
        assert r.status_code == 422, f"{method} on {target}: {r.text[:500]}"
        assert "inaccessible chain" in r.json(), r.text
        assert PIN not in r.text and "31337" not in r.text, r.text


@pytest.mark.parametrize("method", BUILTINS)
def test_a_private_chain_and_a_made_up_one_look_the_same_from_a_contract(
    node: RunningNode, private: dict[str, str], method: str
) -> None:
    bob = node.client("bob")
    real = refusal(spy_call(bob, private["spy"], method, private["secret"], private["chain"]),
                   private["chain"])  # fmt: skip
    made_up = refusal(spy_call(bob, private["spy"], method, private["secret"], MADE_UP), MADE_UP)
    assert real == made_up
    assert "inaccessible chain" in real


def test_reads_of_own_chain_and_ancestors_still_work(
    node: RunningNode, private: dict[str, str]
) -> None:
    bob, alice = node.client("bob"), node.client("alice")
    # bob's contract reads the main chain, named or not
    for c in ("main", "self"):
        r = spy_call(bob, private["spy"], "readCodeOf", private["spy"], c)
        assert r.status_code == 200, r.text
        assert r.json()[0]["status"] == "Success", r.text
    # a contract on alice's chain reads its own chain by ID and the main chain (its ancestor)
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": private["chain"]},
        json=body(upload_tx("Spy", SPY_SRC)),
    )
    assert r.status_code == 200, r.text
    inner = r.json()[0]["data"]["contents"]["address"]

    def inside(method: str, a: str, c: str) -> list[Any]:
        r = alice.post(
            "/svc/v2.3/transaction",
            params={"resolve": "true", "chainid": private["chain"]},
            json=body(call_tx(inner, method, {"a": a, "c": c})),
        )
        assert r.status_code == 200, r.text
        (res,) = r.json()
        assert res["status"] == "Success", res
        out: list[Any] = res["data"]["contents"]
        return out

    assert PIN in inside("readCode", private["secret"], private["chain"])[0]
    assert inside("readBalance", node.address("alice"), private["chain"]) == ["31337"]
    assert inside("readTyped", private["secret"], private["chain"]) == ["5"]
    assert "contract Spy" in inside("readCode", private["spy"], "main")[0]


# ---------------------------------------------------------------------- HTTP: one answer


def answers(client: httpx.Client, chain: str, private: dict[str, str]) -> list[Any]:
    """(route, status, body with ``chain`` blanked) for every place a chain ID goes."""
    secret = private["secret"]
    gets: list[tuple[str, dict[str, str]]] = [
        ("/bloc/v2.2/chain", {"chainid": chain}),
        ("/strato-api/eth/v1.2/chain", {"chainid": chain}),
        ("/strato-api/eth/v1.2/account", {"chainid": chain}),
        ("/strato-api/eth/v1.2/account", {"chainid": chain, "address": secret}),
        ("/strato-api/eth/v1.2/storage", {"chainid": chain}),
        ("/strato-api/eth/v1.2/transaction", {"chainid": chain}),
        ("/bloc/v2.2/contracts", {"chainid": chain}),
        (f"/bloc/v2.2/contracts/Secret/{secret}", {"chainid": chain}),
        (f"/bloc/v2.2/contracts/Secret/{secret}/state", {"chainid": chain}),
        (f"/bloc/v2.2/contracts/contract/{secret}/details", {"chainid": chain}),
        ("/cirrus/search/Secret", {"chainId": f"eq.{chain}"}),
    ]
    out: list[Any] = []
    for path, params in gets:
        r = client.get(path, params=params)
        out.append(
            (
                path,
                str(params).replace(chain, "<chain>"),
                r.status_code,
                r.text.replace(chain, "<chain>"),
            )
        )
    tx = call_tx(secret, "peek", {})
    posts: list[tuple[str, dict[str, str], Any]] = [
        ("/svc/v2.3/transaction", {"resolve": "true", "chainid": chain}, body(tx)),
        ("/svc/v2.3/transaction", {"resolve": "true"}, body({**tx, "payload": {
            **tx["payload"], "chainid": chain}})),
        ("/bloc/v2.2/chain", {}, {
            "label": "child", "src": GOV_SRC, "contract": "Gov", "args": {},
            "members": [{"orgName": "Globex", "access": True}],
            "balances": [{"address": "00" * 19 + "01", "balance": 1}],
            "parentChain": chain}),
        ("/bloc/v2.2/chain", {}, {
            "label": "pointer", "codePtr": {"account": f"{secret}:{chain}", "name": "Secret"},
            "args": {}, "members": [{"orgName": "Globex", "access": True}],
            "balances": [{"address": "00" * 19 + "01", "balance": 1}]}),
    ]  # fmt: skip
    for path, params, payload in posts:
        r = client.post(path, params=params, json=payload)
        out.append(
            (
                path,
                str(params).replace(chain, "<chain>"),
                r.status_code,
                r.text.replace(chain, "<chain>"),
            )
        )
    return out


def test_a_private_chain_and_a_made_up_one_get_the_same_answer(
    node: RunningNode, private: dict[str, str]
) -> None:
    bob = node.client("bob")
    real = answers(bob, private["chain"], private)
    made_up = answers(bob, MADE_UP, private)
    for r, m in zip(real, made_up, strict=True):
        assert r == m
        assert PIN not in r[3]
    # the refusal is a 403 naming the field, not a 400 "unknown"
    refused = {(path, status) for path, _, status, _ in real if status != 200}
    assert refused and all(status == 403 for _, status in refused), real
    chain_get = real[0]
    assert chain_get[2] == 403 and "chainid" in chain_get[3] and "not a member" in chain_get[3]


def test_a_member_asking_for_a_made_up_chain_gets_the_same_403(
    node: RunningNode, private: dict[str, str]
) -> None:
    r = node.client("alice").get("/bloc/v2.2/chain", params={"chainid": MADE_UP})
    assert r.status_code == 403, r.text
    assert "or there is no such chain" in r.json()
    r = node.client("alice").get("/bloc/v2.2/chain", params={"chainid": private["chain"]})
    assert r.status_code == 200, r.text


PROXY_SRC = """
contract Proxy {
    account public logicContract;
    constructor(address a, string c) public { logicContract = account(a, c); }
    fallback() external { }
}
"""


def test_a_proxy_on_the_main_chain_does_not_show_a_private_logic_contract(
    node: RunningNode, private: dict[str, str]
) -> None:
    # the platform API types a proxy's calls and shows its details with its logic contract's:
    # one on a chain the proxy cannot read counts as none
    bob = node.client("bob")
    r = bob.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json=body(upload_tx("Proxy", PROXY_SRC, {"a": private["secret"], "c": private["chain"]})),
    )
    assert r.status_code == 200, r.text
    (up,) = r.json()
    assert up["status"] == "Success", up
    proxy = up["data"]["contents"]["address"]
    for path in (
        f"/bloc/v2.2/contracts/contract/{proxy}/details",
        f"/bloc/v2.2/contracts/Proxy/{proxy}",
    ):
        r = bob.get(path)
        assert r.status_code == 200, r.text
        assert "peek" not in r.text and "PIN" not in r.text, r.text
    # a call typed by the logic's function is not either: its name is as unknown as any
    r = bob.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json=body(call_tx(proxy, "peek", {})),
    )
    s = bob.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json=body(call_tx(proxy, "nothingLikeThis", {})),
    )
    assert (r.status_code, r.text.replace("peek", "?")) == (
        s.status_code,
        s.text.replace("nothingLikeThis", "?"),
    )
