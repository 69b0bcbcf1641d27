"""The multi-file SolidVM corpus (tests/corpus/solidvm) on a real sandbox node, over HTTP.

Each root file is bundled with its relative imports (app.client.bundler), uploaded, and driven
through a realistic scenario whose every outcome is asserted: balances, events and Cirrus rows
of the token, error texts of refused calls, salted-creation addresses, the vault's decimal
prices as the platform prints them, the router's caught failures, variadic and low-level call
results, and the Describe_ test contracts run the way the platform's test runner runs them.

The expected values follow STRATO 16.10 (strato-net/strato-platform): custom-error texts are
SolidException's `show` (solid-vm-model Blockchain/VM/SolidException.hs, with the error's
arguments as a Haskell list of BasicValue); decimals print with Data.Decimal's `show`, keeping
the places the value carries; a salted address is keccak256(rlp([0xff, creator, salt,
codeCollectionHash, contractName, args...]))[12:] (strato-model Blockchain/Strato/Model/Address.hs);
a mapping or array is a Cirrus collection `<contract table>-<variable>` with columns key
(key2, ...) and value, and the view leaves out entries whose value is 0, "" or false
(slipstream OutputData.hs createCollectionTable). Table names otherwise follow the sandbox's rule
(no `pragma solidvm`: the bare contract name) and its seed encodings (call results and event
arguments as strings).
"""

from __future__ import annotations

import functools
import re
from typing import Any

import httpx
import pytest
from Crypto.Hash import keccak

from app.client.bundler import Bundle, bundle
from tests.integration.node_fixture import (
    HEX40,
    HEX64,
    ROOT,
    RunningNode,
    body,
    call_tx,
    submit,
    upload_tx,
)

CORPUS = ROOT / "tests" / "corpus" / "solidvm"
SEARCH = "/cirrus/search"
ZERO = "0" * 40
REFUSED = "Error running the transaction: "

# A contract compiled from source text inside a transaction (the factory's create2).
BADGE_SRC = """contract Badge {
    string public label;
    address public issuer;
    constructor(string label_) {
        label = label_;
        issuer = msg.sender;
    }
}
"""

# ---------------------------------------------------------------------------- bundling


@functools.cache
def _bundle(root: str) -> Bundle:
    return bundle(CORPUS / root)


def _source(root: str) -> str:
    return _bundle(root).source


# ---------------------------------------------------------------------------- platform rules


def _keccak(data: bytes) -> bytes:
    return keccak.new(digest_bits=256, data=data).digest()


def _rlp(item: bytes | str | int | list[Any]) -> bytes:
    """RLP as the platform's ethereum-rlp writes it (non-negative integers, UTF-8 strings)."""
    if isinstance(item, list):
        payload = b"".join(_rlp(x) for x in item)
        return _rlp_prefix(len(payload), 0xC0) + payload
    if isinstance(item, int):
        data = item.to_bytes((item.bit_length() + 7) // 8, "big")
    elif isinstance(item, str):
        data = item.encode("utf-8")
    else:
        data = item
    if len(data) == 1 and data[0] < 0x80:
        return data
    return _rlp_prefix(len(data), 0x80) + data


def _rlp_prefix(length: int, base: int) -> bytes:
    if length <= 55:
        return bytes([base + length])
    size = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([base + 55 + len(size)]) + size


def _salted_address(
    creator: str, salt: str, code_hash: bytes, contract: str, args: list[Any]
) -> str:
    """Where `new C{salt: s}(args)`, `create2(s, "C", src, args)` and `derive` put a contract."""
    fields: list[Any] = [0xFF, bytes.fromhex(creator), salt, code_hash, contract, *args]
    return _keccak(_rlp(fields))[12:].hex()


def _thrown(error: str, *args: str) -> str:
    """The message of `throw error(args)` (the platform's CustomError show)."""
    return f"custom user error: Custom user error thrown {error} [{','.join(args)}]"


def _reverted(error: str, *args: str) -> str:
    """The message of `revert error(args)` with `error` declared in the running contract."""
    return f"custom user error: Reverting based on  Error Method: {error} [{','.join(args)}]"


def _b_address(address: str) -> str:
    return f"BAddress {address}"


def _b_int(value: int) -> str:
    return f"BInteger {value}"


def _b_string(value: str) -> str:
    return f'BString "{value}"'


def _collection(contract_table: str, variable: str) -> str:
    return f"{contract_table}-{variable}"


# ---------------------------------------------------------------------------- HTTP helpers


def _deploy(
    client: httpx.Client, contract: str, root: str, args: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """Uploads the bundle of `root`; (address, the upload's contents)."""
    r = client.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json=body(upload_tx(contract, _source(root), args)),
    )
    assert r.status_code == 200, f"{root}: {_bundle(root).map_message(r.text[:4000])}"
    res = r.json()
    assert res[0]["status"] == "Success", res
    contents: dict[str, Any] = res[0]["data"]["contents"]
    assert HEX40.match(contents["address"])
    return str(contents["address"]), contents


def _call(
    client: httpx.Client, address: str, method: str, args: dict[str, Any] | None = None
) -> list[Any]:
    res = submit(client, call_tx(address, method, args or {}))
    assert res[0]["status"] == "Success", res
    out: list[Any] = res[0]["data"]["contents"]
    return out


def _refused(
    client: httpx.Client, address: str, method: str, args: dict[str, Any] | None = None
) -> str:
    """The transaction message of a call that fails (a single failing call is HTTP 422)."""
    r = client.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json=body(call_tx(address, method, args or {})),
    )
    assert r.status_code == 422, f"{r.status_code}: {r.text[:2000]}"
    message = r.json()
    assert isinstance(message, str) and message.startswith(REFUSED), message
    return message[len(REFUSED) :]


def _state(client: httpx.Client, contract: str, address: str) -> dict[str, Any]:
    r = client.get(f"/bloc/v2.2/contracts/{contract}/{address}/state")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _search(client: httpx.Client, table: str, params: dict[str, str]) -> list[dict[str, Any]]:
    r = client.get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == 200, f"{table}: {r.status_code}: {r.text[:2000]}"
    rows: list[dict[str, Any]] = r.json()
    return rows


def _entries(client: httpx.Client, table: str, address: str, columns: str) -> list[Any]:
    """The rows of a collection table for one contract, sorted (their order is not specified)."""
    rows = _search(client, table, {"address": f"eq.{address}", "select": columns})
    return sorted(rows, key=lambda r: [str(r[c]) for c in columns.split(",")])


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.new_client("alice")


@pytest.fixture(scope="module")
def bob(node: RunningNode) -> httpx.Client:
    return node.new_client("bob")


@pytest.fixture(scope="module")
def carol(node: RunningNode) -> httpx.Client:
    return node.new_client("carol")


@pytest.fixture(scope="module")
def who(node: RunningNode) -> dict[str, str]:
    return {name: node.address(name) for name in ("alice", "bob", "carol")}


def _new_token(alice: httpx.Client, admin: str, name: str, symbol: str, cap: int) -> str:
    address, _ = _deploy(
        alice,
        "Token",
        "concrete/Token.sol",
        {"name_": name, "symbol_": symbol, "cap_": cap, "admin_": admin},
    )
    return address


# ---------------------------------------------------------------------------- the token


def test_token_upload_describes_the_whole_hierarchy(
    alice: httpx.Client, who: dict[str, str]
) -> None:
    address, contents = _deploy(
        alice,
        "Token",
        "concrete/Token.sol",
        {"name_": "Corpus Coin", "symbol_": "CORP", "cap_": 1_000_000, "admin_": who["alice"]},
    )
    xabi = contents["xabi"]
    inherited = {"transfer", "approve", "transferFrom", "balanceOf", "allowance", "totalSupply"}
    own = {"mint", "pause", "unpause", "burn", "burnFrom", "grantRole", "revokeRole", "hasRole"}
    assert inherited | own | {"transferOwnership"} <= set(xabi["funcs"])
    assert {"name", "symbol", "decimals", "cap", "paused", "owner", "roles"} <= set(xabi["vars"])
    assert set(xabi["constr"]["args"]) == {"name_", "symbol_", "cap_", "admin_"}
    assert {"Transfer", "Approval", "Paused", "RoleGranted", "OwnershipTransferred"} <= set(
        xabi["events"]
    )
    state = _state(alice, "Token", address)
    assert (state["name"], state["symbol"], state["decimals"]) == ("Corpus Coin", "CORP", "18")
    assert (state["cap"], state["owner"]) == ("1000000", who["alice"])


def test_token_mint_transfer_approve(
    alice: httpx.Client, bob: httpx.Client, carol: httpx.Client, who: dict[str, str]
) -> None:
    token = _new_token(alice, who["alice"], "Corpus Coin", "CORP", 1_000_000)
    assert _call(alice, token, "mint", {"to": who["alice"], "amount": 1000}) == []
    assert _call(alice, token, "transfer", {"to": who["bob"], "amount": 250}) == ["true"]
    assert _call(alice, token, "approve", {"spender": who["carol"], "amount": 300}) == ["true"]
    moved = _call(
        carol, token, "transferFrom", {"from": who["alice"], "to": who["carol"], "amount": 100}
    )
    assert moved == ["true"]

    def balance(name: str) -> str:
        return str(_call(alice, token, "balanceOf", {"holder": who[name]})[0])

    assert [balance(n) for n in ("alice", "bob", "carol")] == ["650", "250", "100"]
    assert _call(alice, token, "totalSupply") == ["1000"]
    left = _call(alice, token, "allowance", {"holder": who["alice"], "spender": who["carol"]})
    assert left == ["200"]

    # Refused moves: the token's own (thrown) custom errors, and nothing changes
    msg = _refused(bob, token, "transfer", {"to": who["alice"], "amount": 400})
    assert msg == _thrown("InsufficientBalance", _b_address(who["bob"]), _b_int(250), _b_int(400))
    msg = _refused(
        carol, token, "transferFrom", {"from": who["alice"], "to": who["carol"], "amount": 500}
    )
    assert msg == _thrown(
        "InsufficientAllowance", _b_address(who["carol"]), _b_int(200), _b_int(500)
    )
    msg = _refused(alice, token, "transfer", {"to": ZERO, "amount": 1})
    assert msg == _thrown("InvalidReceiver", _b_address(ZERO))
    assert [balance(n) for n in ("alice", "bob", "carol")] == ["650", "250", "100"]

    # Events: inherited from the interface, emitted by the base, filed under the token
    transfers = _search(
        alice,
        "Token.Transfer",
        {"address": f"eq.{token}", "select": "from,to,value", "order": "id.asc"},
    )
    assert transfers == [
        {"from": ZERO, "to": who["alice"], "value": "1000"},
        {"from": who["alice"], "to": who["bob"], "value": "250"},
        {"from": who["alice"], "to": who["carol"], "value": "100"},
    ]
    approvals = _search(
        alice, "Token.Approval", {"address": f"eq.{token}", "select": "holder,spender,value"}
    )
    assert approvals == [{"holder": who["alice"], "spender": who["carol"], "value": "300"}]

    # Cirrus: the contract row, and one collection per record mapping
    (row,) = _search(
        alice,
        "Token",
        {"address": f"eq.{token}", "select": "name,symbol,decimals,cap,supply,paused,owner"},
    )
    assert row == {
        "name": "Corpus Coin",
        "symbol": "CORP",
        "decimals": 18,
        "cap": 1_000_000,
        "supply": 1000,
        "paused": False,
        "owner": who["alice"],
    }
    assert _entries(alice, _collection("Token", "balances"), token, "key,value") == sorted(
        [
            {"key": who["alice"], "value": 650},
            {"key": who["bob"], "value": 250},
            {"key": who["carol"], "value": 100},
        ],
        key=lambda r: [str(r["key"]), str(r["value"])],
    )
    assert _entries(alice, _collection("Token", "allowances"), token, "key,key2,value") == [
        {"key": who["alice"], "key2": who["carol"], "value": 200}
    ]

    # An emptied balance leaves the collection (the view skips zero values)
    assert _call(carol, token, "transfer", {"to": who["bob"], "amount": 100}) == ["true"]
    holders = _entries(alice, _collection("Token", "balances"), token, "key")
    assert sorted(r["key"] for r in holders) == sorted([who["alice"], who["bob"]])


def test_token_roles_cap_pause_and_burn(
    alice: httpx.Client, bob: httpx.Client, carol: httpx.Client, who: dict[str, str]
) -> None:
    token = _new_token(alice, who["alice"], "Role Coin", "ROLE", 1_000_000)
    msg = _refused(bob, token, "mint", {"to": who["bob"], "amount": 10})
    assert msg == _thrown("MissingRole", _b_address(who["bob"]), _b_string("minter"))

    _call(alice, token, "grantRole", {"member": who["bob"], "role": "minter"})
    assert _call(alice, token, "hasRole", {"member": who["bob"], "role": "minter"}) == ["true"]
    _call(bob, token, "mint", {"to": who["bob"], "amount": 10})
    assert _call(alice, token, "balanceOf", {"holder": who["bob"]}) == ["10"]
    granted = _entries(alice, _collection("Token", "roles"), token, "key,key2,value")
    assert granted == [{"key": who["bob"], "key2": "minter", "value": True}]
    (event,) = _search(
        alice, "Token.RoleGranted", {"address": f"eq.{token}", "select": "member,role,grantedBy"}
    )
    assert event == {"member": who["bob"], "role": "minter", "grantedBy": who["alice"]}

    # The cap, checked by the extension the token routes `_mint` to
    msg = _refused(alice, token, "mint", {"to": who["alice"], "amount": 999_995})
    assert msg == _thrown("CapExceeded", _b_int(1_000_000), _b_int(1_000_005))
    assert _call(alice, token, "totalSupply") == ["10"]

    # Pausing needs the pauser role (the owner has every role) and stops transfers only
    msg = _refused(bob, token, "pause")
    assert msg == _thrown("MissingRole", _b_address(who["bob"]), _b_string("pauser"))
    _call(alice, token, "pause")
    assert _refused(bob, token, "transfer", {"to": who["carol"], "amount": 1}) == _thrown(
        "TokenPaused"
    )
    _call(bob, token, "mint", {"to": who["carol"], "amount": 5})
    _call(alice, token, "unpause")
    assert _call(bob, token, "transfer", {"to": who["carol"], "amount": 1}) == ["true"]
    assert _call(alice, token, "balanceOf", {"holder": who["carol"]}) == ["6"]

    # Burning, directly and through an allowance
    _call(bob, token, "burn", {"amount": 4})
    _call(carol, token, "approve", {"spender": who["bob"], "amount": 2})
    _call(bob, token, "burnFrom", {"holder": who["carol"], "amount": 2})
    assert _call(alice, token, "totalSupply") == ["9"]
    burns = _search(
        alice,
        "Token.Transfer",
        {"address": f"eq.{token}", "to": f"eq.{ZERO}", "select": "from,value", "order": "id.asc"},
    )
    assert burns == [{"from": who["bob"], "value": "4"}, {"from": who["carol"], "value": "2"}]

    # A revoked role leaves the roles collection (false is not listed)
    _call(alice, token, "revokeRole", {"member": who["bob"], "role": "minter"})
    assert _entries(alice, _collection("Token", "roles"), token, "key") == []

    # Ownership
    msg = _refused(bob, token, "transferOwnership", {"newOwner": who["bob"]})
    assert msg == _thrown("NotOwner", _b_address(who["bob"]), _b_address(who["alice"]))
    _call(alice, token, "transferOwnership", {"newOwner": who["carol"]})
    assert _state(alice, "Token", token)["owner"] == who["carol"]
    moves = _search(
        alice,
        "Token.OwnershipTransferred",
        {"address": f"eq.{token}", "select": "previousOwner,newOwner", "order": "id.asc"},
    )
    assert moves == [
        {"previousOwner": ZERO, "newOwner": who["alice"]},
        {"previousOwner": who["alice"], "newOwner": who["carol"]},
    ]


# ---------------------------------------------------------------------------- the factory


def test_factory_predicts_and_creates_salted_tokens(
    alice: httpx.Client, bob: httpx.Client, who: dict[str, str]
) -> None:
    factory, contents = _deploy(
        alice, "TokenFactory", "concrete/TokenFactory.sol", {"admin": who["alice"]}
    )
    code_hash = contents["codeHash"]["digest"]
    assert HEX64.match(code_hash)
    expected = _salted_address(
        factory,
        "CGLD",
        bytes.fromhex(code_hash),
        "Token",
        ["Corpus Gold", "CGLD", 5_000_000, bytes.fromhex(factory)],
    )

    args = {"name_": "Corpus Gold", "symbol_": "CGLD", "cap_": 5_000_000}
    assert _call(alice, factory, "predictToken", args) == [expected]
    assert _call(alice, factory, "createToken", {**args, "initialSupply": 2000}) == [expected]

    # The new token: admin handed over to the caller, initial supply minted to them
    assert _call(alice, expected, "name") == ["Corpus Gold"]
    assert _call(alice, expected, "balanceOf", {"holder": who["alice"]}) == ["2000"]
    state = _state(alice, "Token", expected)
    assert (state["owner"], state["cap"], state["symbol"]) == (who["alice"], "5000000", "CGLD")
    assert _call(alice, factory, "tokenCount") == ["1"]
    assert _state(alice, "TokenFactory", factory)["tokens"] == [expected]

    # One token per symbol; only the owner creates
    msg = _refused(alice, factory, "createToken", {**args, "initialSupply": 0})
    assert msg == _reverted("SymbolTaken", _b_string("CGLD"), _b_address(expected))
    msg = _refused(bob, factory, "createToken", {**args, "symbol_": "BOB", "initialSupply": 0})
    assert msg == _thrown("NotOwner", _b_address(who["bob"]), _b_address(who["alice"]))

    # create2 from source text: the code collection hash is the keccak256 of that text
    badge = _salted_address(
        factory, "badge-1", _keccak(BADGE_SRC.encode()), "Badge", ["early adopter"]
    )
    deployed = _call(
        alice,
        factory,
        "deployFromSource",
        {"salt_": "badge-1", "contractName": "Badge", "src": BADGE_SRC, "arg": "early adopter"},
    )
    assert deployed == [badge]
    assert _state(alice, "Badge", badge) == {"label": "early adopter", "issuer": factory}

    # Cirrus: the token made by the factory has its row; the factory's array is a collection
    (row,) = _search(alice, "Token", {"address": f"eq.{expected}", "select": "name,supply"})
    assert row == {"name": "Corpus Gold", "supply": 2000}
    assert _entries(alice, _collection("TokenFactory", "tokens"), factory, "key,value") == [
        {"key": 0, "value": expected}
    ]
    (created,) = _search(
        alice,
        "TokenFactory.TokenCreated",
        {"address": f"eq.{factory}", "select": "token,symbol,requestedBy"},
    )
    assert created == {"token": expected, "symbol": "CGLD", "requestedBy": who["alice"]}


# ---------------------------------------------------------------------------- the vault


def test_vault_decimal_prices(
    alice: httpx.Client, bob: httpx.Client, carol: httpx.Client, who: dict[str, str]
) -> None:
    asset = _new_token(alice, who["alice"], "Vault Asset", "VAS", 10_000_000)
    for name, amount in (("alice", 5000), ("bob", 2000), ("carol", 2000)):
        _call(alice, asset, "mint", {"to": who[name], "amount": amount})
    vault, contents = _deploy(
        alice,
        "Vault",
        "concrete/Vault.sol",
        {"asset_": asset, "exitFeeBps_": 25, "minDeposit_": 10, "admin": who["alice"]},
    )
    xabi = contents["xabi"]
    assert xabi["funcs"]["pricePerShare"]["vals"]["#0"]["tag"] == "Decimal"
    assert xabi["vars"]["exitFee"]["tag"] == "Decimal"

    # 25 basis points as a decimal of 18 places; an empty vault prices a share at 1
    state = _state(alice, "Vault", vault)
    assert state["exitFee"] == "0.002500000000000000"
    assert state["lastPrice"] == "1.000000000000000000"
    assert (state["asset"], state["totalShares"], state["exitFeeBps"]) == (asset, "0", "25")
    assert _call(alice, vault, "pricePerShare") == ["1.000000000000000000"]

    for client, amount in ((alice, 1000), (bob, 500)):
        _call(client, asset, "approve", {"spender": vault, "amount": 2000})
        assert _call(client, vault, "deposit", {"assets": amount}) == [str(amount)]

    # Yield: 300 more assets over the same 1500 shares
    _call(alice, asset, "transfer", {"to": vault, "amount": 300})
    assert _call(alice, vault, "pricePerShare") == ["1.200000000000000000"]
    assert _call(alice, vault, "previewDeposit", {"assets": 600}) == ["500"]
    assert _call(alice, vault, "snapshot") == ["1800", "1500", "1.200000000000000000"]
    _call(carol, asset, "approve", {"spender": vault, "amount": 2000})
    assert _call(carol, vault, "deposit", {"assets": 600}) == ["500"]

    # 200 shares at 1.2 are worth 240; the 0.25% fee (0.6) leaves 239.4, paid as 239
    assert _call(bob, vault, "redeem", {"shares": 200}) == ["239"]
    state = _state(alice, "Vault", vault)
    assert (state["feesRetained"], state["totalShares"]) == ("1", "1800")
    assert state["lastPrice"] == "1.200000000000000000"

    # 2161 assets over 1800 shares: 1.2005555... rounded half-even at 18 places
    assert _call(alice, vault, "pricePerShare") == ["1.200555555555555556"]
    assert _call(alice, vault, "previewRedeem", {"shares": 1000}) == ["1197"]
    assert _call(alice, vault, "previewFee", {"assets": 1000}) == ["3"]  # 2.5, rounded up

    # redeemUpTo caps at the holding (MathLib.atMost through `using`): 500 shares -> 598
    assert _call(carol, vault, "redeemUpTo", {"shares": 10_000}) == ["598"]
    state = _state(alice, "Vault", vault)
    assert (state["feesRetained"], state["totalShares"]) == ("3", "1300")
    assert state["lastPrice"] == "1.200555555555555556"
    assert _call(alice, vault, "pricePerShare") == ["1.202307692307692308"]
    balances = [_call(alice, asset, "balanceOf", {"holder": who[n]})[0] for n in ("bob", "carol")]
    assert balances == ["1739", "1998"]

    # Refusals: a thrown file-level error, a reverted contract error, a require
    msg = _refused(carol, vault, "redeem", {"shares": 1})
    assert msg == _thrown("NotEnoughShares", _b_address(who["carol"]), _b_int(0), _b_int(1))
    assert _refused(bob, vault, "redeem", {"shares": 0}) == _reverted("ZeroAmount")
    msg = _refused(bob, vault, "deposit", {"assets": 5})
    assert msg == "solidity require failed: Vault: deposit below the minimum"

    assert _entries(alice, _collection("Vault", "sharesOf"), vault, "key,value") == sorted(
        [{"key": who["alice"], "value": 1000}, {"key": who["bob"], "value": 300}],
        key=lambda r: [str(r["key"]), str(r["value"])],
    )
    deposits = _search(
        alice,
        "Vault.Deposited",
        {"address": f"eq.{vault}", "select": "holder,assets,shares", "order": "id.asc"},
    )
    assert deposits == [
        {"holder": who["alice"], "assets": "1000", "shares": "1000"},
        {"holder": who["bob"], "assets": "500", "shares": "500"},
        {"holder": who["carol"], "assets": "600", "shares": "500"},
    ]


# ---------------------------------------------------------------------------- the router


@pytest.fixture(scope="module")
def routed(alice: httpx.Client, who: dict[str, str]) -> dict[str, str]:
    """A token (alice 1000, bob 100), a vault on it (no fee, minimum 50) and a router."""
    token = _new_token(alice, who["alice"], "Router Coin", "RTC", 1_000_000)
    _call(alice, token, "mint", {"to": who["alice"], "amount": 1000})
    _call(alice, token, "mint", {"to": who["bob"], "amount": 100})
    vault, _ = _deploy(
        alice,
        "Vault",
        "concrete/Vault.sol",
        {"asset_": token, "exitFeeBps_": 0, "minDeposit_": 50, "admin": who["alice"]},
    )
    router, _ = _deploy(alice, "Router", "concrete/Router.sol", {"admin": who["alice"]})
    return {"token": token, "vault": vault, "router": router}


def test_router_catches_failed_calls_and_keeps_its_own_writes(
    alice: httpx.Client, bob: httpx.Client, routed: dict[str, str], who: dict[str, str]
) -> None:
    token, vault, router = routed["token"], routed["vault"], routed["router"]

    def balance(holder: str) -> str:
        return str(_call(alice, token, "balanceOf", {"holder": holder})[0])

    def note(attempt: int) -> str:
        notes = _entries(alice, _collection("Router", "notes"), router, "key,value")
        return str({r["key"]: r["value"] for r in notes}[attempt])

    # 1. bob allows 300 but holds 100: the token spends the allowance, then refuses the move.
    # The custom error lands in `catch (bytes)`; the token's write (the allowance) is rolled
    # back with its frame, the router's own (the attempt log) stays.
    _call(bob, token, "approve", {"spender": router, "amount": 300})
    collect = {"token": token, "from": who["bob"], "amount": 200}
    assert _call(alice, router, "collect", collect) == ["false"]
    assert _call(alice, token, "allowance", {"holder": who["bob"], "spender": router}) == ["300"]
    assert (balance(who["bob"]), balance(router)) == ("100", "0")
    assert _call(alice, router, "attemptInfo", {"id": 1}) == [token, who["bob"], "200", "3"]
    assert note(1) == "refused by the token"

    # 2. The same within bob's balance goes through
    assert _call(alice, router, "collect", {**collect, "amount": 100}) == ["true"]
    assert note(2) == f"collected 100 from {who['bob']}"
    assert (balance(who["bob"]), balance(router)) == ("0", "100")
    assert _call(alice, token, "allowance", {"holder": who["bob"], "spender": router}) == ["200"]

    # 3. The vault's require() lands in `catch Error(string reason)`: the router refunds
    _call(alice, token, "approve", {"spender": router, "amount": 20})
    assert _call(alice, router, "depositVia", {"vault": vault, "amount": 20}) == ["0"]
    state = _state(alice, "Router", router)
    assert state["lastReason"] == "Vault: deposit below the minimum"
    assert note(3) == "Vault: deposit below the minimum"
    assert _call(alice, router, "attemptInfo", {"id": 3})[3] == "2"
    assert (balance(who["alice"]), balance(router)) == ("1000", "100")
    assert _call(alice, token, "allowance", {"holder": router, "spender": vault}) == ["0"]

    # 4. A deposit the vault accepts
    _call(alice, token, "approve", {"spender": router, "amount": 100})
    assert _call(alice, router, "depositVia", {"vault": vault, "amount": 100}) == ["100"]
    assert note(4) == "minted 100 shares"
    assert _entries(alice, _collection("Vault", "sharesOf"), vault, "key,value") == [
        {"key": who["alice"], "value": 100}
    ]

    # 5. A division by zero in the callee is a Panic with code 12
    assert _call(alice, router, "splitEvenly", {"total": 10, "parts": 0}) == ["0"]
    assert _state(alice, "Router", router)["lastPanicCode"] == "12"
    assert _call(alice, router, "splitEvenly", {"total": 10, "parts": 3}) == ["3"]

    # 6. SolidVM's own catch binds the custom error's arguments: 150 asked, 100 held
    pay = {"token": token, "to": who["carol"], "amount": 150}
    assert _call(alice, router, "payOut", pay) == ["50"]
    assert note(5) == "router balance too low"
    assert _call(alice, router, "payOut", {**pay, "amount": 60}) == ["0"]
    assert note(6) == f"paid 60 to {who['carol']}"
    assert (balance(who["carol"]), balance(router)) == ("60", "40")

    state = _state(alice, "Router", router)
    assert (state["attempts"], state["completed"], state["lastShortfall"]) == ("6", "3", "50")
    routed_events = _search(
        alice,
        "Router.Routed",
        {"address": f"eq.{router}", "select": "attemptId,note", "order": "id.asc"},
    )
    assert [(r["attemptId"], r["note"]) for r in routed_events] == [
        ("1", "refused by the token"),
        ("2", f"collected 100 from {who['bob']}"),
        ("3", "Vault: deposit below the minimum"),
        ("4", "minted 100 shares"),
        ("5", "router balance too low"),
        ("6", f"paid 60 to {who['carol']}"),
    ]


def test_router_low_level_and_variadic_calls(
    alice: httpx.Client, bob: httpx.Client, routed: dict[str, str], who: dict[str, str]
) -> None:
    token, vault, router = routed["token"], routed["vault"], routed["router"]
    held = _call(alice, token, "balanceOf", {"holder": who["alice"]})
    # relay(target, fn, variadic args) -> address(target).call(fn, args): the callee's result
    via_relay = _call(
        alice, router, "balanceThroughRelay", {"token": token, "holder": who["alice"]}
    )
    assert via_relay == held
    msg = _refused(bob, router, "balanceThroughRelay", {"token": token, "holder": who["bob"]})
    assert msg == _thrown("NotOwner", _b_address(who["bob"]), _b_address(who["alice"]))

    # A tuple result of a low-level call, unpacked into typed locals
    snapshot = _call(alice, vault, "snapshot")
    assert _call(alice, router, "vaultSnapshot", {"vault": vault}) == snapshot
    assert snapshot[2] == "1.000000000000000000"

    # keccak256(abi.encode(address, uint)): the standard 32-byte words
    encoded = bytes(12) + bytes.fromhex(who["alice"]) + (7).to_bytes(32, "big")
    receipt = _call(alice, router, "receiptId", {"payer": who["alice"], "nonce": 7})
    assert receipt == [_keccak(encoded).hex()]

    xabi = alice.post("/bloc/v2.2/contracts/xabi", json={"src": _source("concrete/Router.sol")})
    assert xabi.status_code == 200, xabi.text
    relay = xabi.json()["src"]["Router"]["funcs"]["relay"]
    assert relay["args"]["args"]["tag"] == "Variadic"
    assert relay["vals"]["#0"]["tag"] == "Variadic"


# ---------------------------------------------------------------------------- Describe_ tests

_TEST_FUNCTION = re.compile(r"\bfunction\s+((?:it|property)_\w+)\s*\(")
PROPERTY_ARGUMENTS = (0, 1, 999, 10**30)


@pytest.mark.parametrize(
    ("root", "contract"),
    [("tests/Token.test.sol", "Describe_Token"), ("tests/Vault.test.sol", "Describe_Vault")],
)
def test_describe_contracts_pass(alice: httpx.Client, root: str, contract: str) -> None:
    """Runs a Describe_ contract as the platform's runner does: beforeAll once, then beforeEach
    before each it_ (and each property_, here with a few fixed arguments), in source order."""
    address, _ = _deploy(alice, contract, root, {})
    _call(alice, address, "beforeAll")
    names = _TEST_FUNCTION.findall((CORPUS / root).read_text(encoding="utf-8"))
    assert len(names) >= 6
    failures: dict[str, Any] = {}
    for name in names:
        _call(alice, address, "beforeEach")
        argument_sets: list[dict[str, Any]] = (
            [{}] if name.startswith("it_") else [{"amount": a} for a in PROPERTY_ARGUMENTS]
        )
        for args in argument_sets:
            res = submit(alice, call_tx(address, name, args), expect=None)
            if not isinstance(res, list) or res[0].get("status") != "Success":
                failures[f"{name}{args or ''}"] = res
    assert failures == {}
