"""Cirrus over HTTP on a real node: indexing of SolidVM state, history and events, table naming,
PostgREST 9 paging headers, joins, visibility and the read-only gate (seed 001, reference §4, §9).

One node for the module (the ``node`` fixture of conftest.py, gas off). Every contract name is
used by one fixture only, so the expected rows do not depend on the order of the tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import (
    HEX40,
    HEX64,
    RunningNode,
    call_tx,
    submit,
    upload_tx,
)

SEARCH = "/cirrus/search"
ZERO40 = "0" * 40
SPECIAL = "!@#$% ?/<>~`+=_^&*()-"  # the official client's special-character test value

KINDS_SRC = """
contract Receipt {
    string public memo;
    uint public amount;
    constructor(string _memo, uint _amount) public {
        memo = _memo;
        amount = _amount;
    }
}

contract Ghost {
    uint public boo;
}

contract Kinds {
    enum Color { Red, Green, Blue }
    struct Pt { uint x; uint y; }

    uint constant LIMIT = 5;
    uint public count;
    int public delta;
    uint public big;
    bool public active;
    bool public idle;
    string public label;
    bytes public blob;
    address public owner;
    address public nobody;
    account public acct;
    account public mainAcct;
    Color public color;
    Receipt public receipt;
    Ghost public missing;
    mapping(address => uint) public balances;
    uint[] public items;
    Pt public pt;

    constructor(uint _count, string _label, address _r) public {
        count = _count;
        delta = -7;
        big = 2 ** 70;
        active = true;
        label = _label;
        blob = "hi";
        owner = msg.sender;
        acct = account(msg.sender);
        mainAcct = account(msg.sender, "main");
        color = Color.Blue;
        receipt = Receipt(_r);
        missing = Ghost(address(0x1234));
        balances[msg.sender] = 3;
        items.push(1);
        pt = Pt(1, 2);
    }
}

contract Pair {
    Receipt public left;
    Receipt public right;
    constructor(address _l, address _r) public {
        left = Receipt(_l);
        right = Receipt(_r);
    }
}

contract ViaMain {
    Receipt public ref;
    constructor(address _r) public {
        ref = Receipt(account(_r, "main"));
    }
}
"""

COUNTER_SRC = """
contract Counter {
    uint public n;
    string public name;
    event Bumped(string who, uint by, bool large, address sender);

    constructor(string _name) public {
        name = _name;
    }

    function bump(uint by) public {
        n = n + by;
        emit Bumped("alice", by, by > 2, msg.sender);
    }
}

contract Loud {
    event Said(string from, string order, uint id, address address);
    function shout() public {
        emit Said("a", "b", 7, msg.sender);
    }
}

contract Untracked {
    uint public v;
    function set(uint _v) public { v = _v; }
}
"""

SHOP_SRC = """
pragma solidvm 3.2;

contract Part {
    uint public v;
    constructor(uint _v) public {
        v = _v;
    }
}

contract Shop {
    Part public part;
    event Made(uint v);

    constructor(uint _v) public {
        part = new Part(_v);
        emit Made(_v);
    }
}
"""

EVM_SRC = """
contract EvmBox {
    uint public x;
    constructor() public { x = 1; }
}
"""

VAULT_SRC = """
contract Vault {
    string public secret;
    constructor(string _s) public { secret = _s; }
}
"""

DEMO_CERTS = [
    {"commonName": "admin", "organization": "BlockApps", "organizationalUnit": "Operations"},
    {"commonName": "alice", "organization": "Acme", "organizationalUnit": "Engineering"},
    {"commonName": "bob", "organization": "Globex", "organizationalUnit": "Logistics"},
    {"commonName": "carol", "organization": "Acme", "organizationalUnit": "Sales"},
]


# ---------------------------------------------------------------------------- helpers


@dataclass
class Tx:
    hash: str
    block_hash: str
    block_number: int
    block_timestamp: str  # Cirrus format
    created: list[str]


def block_info(client: httpx.Client, block_hash: str) -> tuple[int, str]:
    """(number, Cirrus-formatted timestamp) of a block, from the explorer."""
    r = client.get("/strato-api/eth/v1.2/block", params={"hash": block_hash})
    assert r.status_code == 200, r.text
    (block,) = r.json()
    data = block["blockData"]
    iso = str(data["timestamp"])  # 2024-01-02T03:04:05.000Z
    date, _, clock = iso.partition("T")
    return int(data["number"]), f"{date} {clock[:8]} UTC"


def send(client: httpx.Client, tx: dict[str, Any], chain: str | None = None) -> Tx:
    if chain is None:
        res = submit(client, tx)
    else:
        r = client.post(
            "/svc/v2.3/transaction",
            params={"resolve": "true", "chainid": chain},
            json={"txs": [tx], "txParams": {"gasLimit": 100_000_000, "gasPrice": 1}},
        )
        assert r.status_code == 200, r.text
        res = r.json()
    assert res[0]["status"] == "Success", res
    tr = res[0]["txResult"]
    number, ts = block_info(client, tr["blockHash"])
    created = [c for c in str(tr.get("contractsCreated") or "").split(",") if c]
    return Tx(res[0]["hash"], tr["blockHash"], number, ts, created)


def upload(
    client: httpx.Client,
    contract: str,
    src: str,
    args: dict[str, Any] | None = None,
    *,
    history: str | None = None,
    vm: str = "SolidVM",
    chain: str | None = None,
) -> tuple[str, Tx]:
    """Upload with resolve=true; (address of the new contract, the transaction)."""
    tx = upload_tx(contract, src, args, vm)
    if history is not None:
        tx["payload"]["metadata"]["history"] = history
    if chain is None:
        res = submit(client, tx)
        assert res[0]["status"] == "Success", res
        address = str(res[0]["data"]["contents"]["address"])
        tr = res[0]["txResult"]
        number, ts = block_info(client, tr["blockHash"])
        created = [c for c in str(tr.get("contractsCreated") or "").split(",") if c]
        return address, Tx(res[0]["hash"], tr["blockHash"], number, ts, created)
    info = send(client, tx, chain)
    return info.created[0], info


def search(
    client: httpx.Client,
    table: str,
    params: Any = None,
    headers: dict[str, str] | None = None,
    expect: int = 200,
) -> Any:
    r = client.get(f"{SEARCH}/{table}", params=params, headers=headers)
    assert r.status_code == expect, f"{r.status_code}: {r.text[:2000]}"
    return r.json()


def standard_row(address: str, tx: Tx, sender: str, chain: str = "") -> dict[str, Any]:
    return {
        "address": address,
        "chainId": chain,
        "record_id": f"{address}:{chain}" if chain else address,
        "block_hash": tx.block_hash,
        "block_timestamp": tx.block_timestamp,
        "block_number": str(tx.block_number),
        "transaction_hash": tx.hash,
        "transaction_sender": sender,
    }


STANDARD_KEYS = [
    "address",
    "chainId",
    "record_id",
    "block_hash",
    "block_timestamp",
    "block_number",
    "transaction_hash",
    "transaction_sender",
]


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
def alice_address(node: RunningNode) -> str:
    return node.address("alice")


@dataclass
class Kinds:
    receipt: str
    receipt_tx: Tx
    kinds: str
    kinds_tx: Tx
    other: str
    pair: str
    via_main: str


@pytest.fixture(scope="module")
def kinds(alice: httpx.Client) -> Kinds:
    receipt, receipt_tx = upload(
        alice, "Receipt", KINDS_SRC, {"_memo": "paid", "_amount": 42}, history="Kinds"
    )
    k, kinds_tx = upload(alice, "Kinds", KINDS_SRC, {"_count": 3, "_label": "Hello", "_r": receipt})
    other, _ = upload(alice, "Receipt", KINDS_SRC, {"_memo": "other", "_amount": 1})
    pair, _ = upload(alice, "Pair", KINDS_SRC, {"_l": receipt, "_r": other})
    via_main, _ = upload(alice, "ViaMain", KINDS_SRC, {"_r": receipt})
    return Kinds(receipt, receipt_tx, k, kinds_tx, other, pair, via_main)


@dataclass
class Counter:
    address: str
    create: Tx
    bumps: list[Tx]


@pytest.fixture(scope="module")
def counter(alice: httpx.Client) -> Counter:
    address, create = upload(alice, "Counter", COUNTER_SRC, {"_name": SPECIAL}, history="Counter")
    bumps = [send(alice, call_tx(address, "bump", {"by": by}, "Counter")) for by in (1, 5)]
    return Counter(address, create, bumps)


@pytest.fixture(scope="module")
def untracked(alice: httpx.Client) -> str:
    # history names another contract: no history table for this one
    address, _ = upload(alice, "Untracked", COUNTER_SRC, history="Counter2")
    send(alice, call_tx(address, "set", {"_v": 7}, "Untracked"))
    return address


@dataclass
class Shop:
    shop: str
    part: str
    tx: Tx


@pytest.fixture(scope="module")
def shops(alice: httpx.Client, bob: httpx.Client) -> dict[str, Shop]:
    out = {}
    for org, client, v in (("Acme", alice, 9), ("Globex", bob, 11)):
        shop, tx = upload(client, "Shop", SHOP_SRC, {"_v": v}, history="Part")
        (part,) = [c for c in tx.created if c != shop]
        out[org] = Shop(shop, part, tx)
    return out


@pytest.fixture(scope="module")
def private_chain(node: RunningNode, alice: httpx.Client, alice_address: str) -> str:
    """A chain of the organization Acme (alice and carol), with a Vault on it."""
    r = alice.post(
        "/bloc/v2.2/chain",
        json={
            "label": "acme-only",
            "members": [{"orgName": "Acme", "access": True}],
            "balances": [{"address": alice_address, "balance": 1000}],
            "src": VAULT_SRC,
            "contract": "Vault",
            "args": {"_s": "governance"},
            "metadata": {"VM": "SolidVM"},
        },
    )
    assert r.status_code == 200, r.text
    chain = str(r.json())
    assert HEX64.match(chain)
    upload(alice, "Vault", VAULT_SRC, {"_s": "on the chain"}, chain=chain)
    upload(alice, "Vault", VAULT_SRC, {"_s": "public"})
    return chain


# ---------------------------------------------------------------------------- contract rows


def test_standard_columns_of_a_new_contract(
    alice: httpx.Client, kinds: Kinds, alice_address: str
) -> None:
    (row,) = search(alice, "Kinds", {"address": f"eq.{kinds.kinds}"})
    assert list(row)[:8] == STANDARD_KEYS
    assert {k: row[k] for k in STANDARD_KEYS} == standard_row(
        kinds.kinds, kinds.kinds_tx, alice_address
    )
    assert HEX40.match(row["address"])
    assert HEX64.match(row["block_hash"])
    assert HEX64.match(row["transaction_hash"])


def test_state_variables_follow_the_seed_type_mapping(
    alice: httpx.Client, kinds: Kinds, alice_address: str
) -> None:
    (row,) = search(alice, "Kinds")
    state = {k: v for k, v in row.items() if k not in STANDARD_KEYS}
    assert state == {
        "count": 3,
        "delta": -7,
        "big": 2**70,
        "active": True,
        "idle": False,
        "label": "Hello",
        "blob": "hi",
        "owner": alice_address,
        "nobody": ZERO40,
        "acct": alice_address,
        "mainAcct": f"{alice_address}:main",
        "color": 2,
        "receipt": kinds.receipt,
        "missing": None,
        "balances": ZERO40,
    }
    # arrays, structs and constants get no column
    assert "items" not in row
    assert "pt" not in row
    assert "LIMIT" not in row


def test_json_types_of_the_columns(alice: httpx.Client, kinds: Kinds) -> None:
    r = alice.get(f"{SEARCH}/Kinds")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    raw = r.text
    assert '"count":3' in raw.replace(" ", "")
    assert '"active":true' in raw.replace(" ", "")
    assert '"color":2' in raw.replace(" ", "")
    assert '"missing":null' in raw.replace(" ", "")
    (row,) = r.json()
    assert type(row["count"]) is int
    assert type(row["delta"]) is int
    assert type(row["color"]) is int
    assert type(row["active"]) is bool
    assert type(row["block_number"]) is str


def test_filter_on_typed_columns(alice: httpx.Client, kinds: Kinds) -> None:
    assert search(alice, "Kinds", {"select": "label", "count": "gt.2", "active": "is.true"}) == [
        {"label": "Hello"}
    ]
    assert search(alice, "Kinds", {"select": "label", "color": "eq.2", "delta": "lt.0"}) == [
        {"label": "Hello"}
    ]
    assert search(alice, "Kinds", {"select": "label", "missing": "is.null"}) == [{"label": "Hello"}]
    assert search(alice, "Kinds", {"select": "label", "count": "gt.3"}) == []


def test_every_instance_has_its_own_row(alice: httpx.Client, kinds: Kinds) -> None:
    rows = search(alice, "Receipt", {"select": "memo,amount"})
    assert rows == [{"memo": "paid", "amount": 42}, {"memo": "other", "amount": 1}]


def test_row_follows_function_calls(
    alice: httpx.Client, counter: Counter, alice_address: str
) -> None:
    rows = search(alice, "Counter")
    last = counter.bumps[-1]
    assert rows == [{**standard_row(counter.address, last, alice_address), "n": 6, "name": SPECIAL}]
    assert last.block_number > counter.bumps[0].block_number > counter.create.block_number


def test_special_characters_match_with_eq(alice: httpx.Client, counter: Counter) -> None:
    assert search(alice, "Counter", {"select": "n", "name": f"eq.{SPECIAL}"}) == [{"n": 6}]


# ---------------------------------------------------------------------------- history


def test_history_has_one_row_per_update(
    alice: httpx.Client, counter: Counter, alice_address: str
) -> None:
    rows = search(alice, "history@Counter")
    txs = [counter.create, *counter.bumps]
    assert rows == [
        {**standard_row(counter.address, tx, alice_address), "n": n, "name": SPECIAL}
        for tx, n in zip(txs, [0, 1, 6], strict=True)
    ]


def test_history_table_name_url_encoded(alice: httpx.Client, counter: Counter) -> None:
    r = alice.get(f"{SEARCH}/history%40Counter", params={"select": "n"})
    assert r.status_code == 200, r.text
    assert r.json() == [{"n": 0}, {"n": 1}, {"n": 6}]


def test_history_supports_queries(alice: httpx.Client, counter: Counter) -> None:
    params = {"select": "n,block_number", "n": "gt.0", "order": "n.desc"}
    assert search(alice, "history@Counter", params) == [
        {"n": 6, "block_number": str(counter.bumps[1].block_number)},
        {"n": 1, "block_number": str(counter.bumps[0].block_number)},
    ]
    assert search(alice, "history@Counter", {"select": "count"}) == [{"count": 3}]


def test_no_history_without_metadata_history(alice: httpx.Client, kinds: Kinds) -> None:
    body = search(alice, "history@Kinds", expect=404)
    assert body["code"] == "42P01"
    # the upload that named Kinds in metadata.history created a Receipt, not a Kinds
    search(alice, "history@Receipt", expect=404)


def test_no_history_when_metadata_history_names_another_contract(
    alice: httpx.Client, untracked: str
) -> None:
    assert search(alice, "Untracked", {"select": "address,v"}) == [{"address": untracked, "v": 7}]
    search(alice, "history@Untracked", expect=404)
    search(alice, "history@Counter2", expect=404)


# ---------------------------------------------------------------------------- events


SEED_EVENT_COLUMNS = ("id", "address")
EVENT_TX_COLUMNS = (
    "block_hash",
    "block_timestamp",
    "block_number",
    "transaction_hash",
    "transaction_sender",
)


def seed_part(row: dict[str, Any]) -> dict[str, Any]:
    """An event row without the transaction columns (what the seed's platform version has)."""
    return {k: v for k, v in row.items() if k not in EVENT_TX_COLUMNS}


def test_event_rows(alice: httpx.Client, counter: Counter, alice_address: str) -> None:
    rows = search(alice, "Counter.Bumped")
    assert [seed_part(r) for r in rows] == [
        {
            "id": 1,
            "address": counter.address,
            "who": "alice",
            "by": "1",
            "large": "False",
            "sender": alice_address,
        },
        {
            "id": 2,
            "address": counter.address,
            "who": "alice",
            "by": "5",
            "large": "True",
            "sender": alice_address,
        },
    ]
    # like STRATO 10: each row names its block and transaction, so a transaction's events can be
    # found by its hash
    for r in rows:
        assert HEX64.match(r["transaction_hash"]) and HEX64.match(r["block_hash"])
        assert r["transaction_sender"] == alice_address and int(r["block_number"]) > 0
        by_tx = search(alice, "Counter.Bumped", {"transaction_hash": f"eq.{r['transaction_hash']}"})
        assert [x["id"] for x in by_tx] == [r["id"]]
        result = alice.get(f"/bloc/v2.2/transactions/{r['transaction_hash']}/result").json()
        assert result["txResult"]["blockHash"] == r["block_hash"]


def test_event_arguments_filter_as_strings(alice: httpx.Client, counter: Counter) -> None:
    assert search(alice, "Counter.Bumped", {"select": "id", "large": "eq.True"}) == [{"id": 2}]
    assert search(alice, "Counter.Bumped", {"select": "id", "by": "eq.5"}) == [{"id": 2}]
    assert search(alice, "Counter.Bumped", {"select": "count", "who": "eq.alice"}) == [{"count": 2}]


def test_event_arguments_named_like_keywords_or_standard_columns(
    alice: httpx.Client, alice_address: str
) -> None:
    # reference §4: SQL keywords as argument names work; `id` and `address` are the table's own
    # columns, so arguments with those names are kept apart (as `id_` and `address_`)
    loud, _ = upload(alice, "Loud", COUNTER_SRC)
    send(alice, call_tx(loud, "shout", {}, "Loud"))
    assert [seed_part(r) for r in search(alice, "Loud.Said")] == [
        {
            "id": 1,
            "address": loud,
            "from": "a",
            "order": "b",
            "id_": "7",
            "address_": alice_address,
        }
    ]
    assert search(alice, "Loud.Said", {"select": "id_", "from": "eq.a"}) == [{"id_": "7"}]


def test_no_event_table_for_events_never_emitted(alice: httpx.Client, counter: Counter) -> None:
    search(alice, "Counter.Nothing", expect=404)


# ---------------------------------------------------------------------------- certificates


def test_certificate_table_lists_the_demo_users(node: RunningNode, alice: httpx.Client) -> None:
    rows = search(
        alice,
        "Certificate",
        {"select": "commonName,organization,organizationalUnit,userAddress,isValid"},
    )
    assert rows == [
        {**cert, "userAddress": node.address(cert["commonName"]), "isValid": True}
        for cert in DEMO_CERTS
    ]


def test_dave_has_no_certificate(alice: httpx.Client) -> None:
    assert search(alice, "Certificate", {"commonName": "eq.dave"}) == []


# ---------------------------------------------------------------------------- table naming


def test_pragma_names_tables_after_the_creator_organization(
    alice: httpx.Client, shops: dict[str, Shop], alice_address: str
) -> None:
    acme = shops["Acme"]
    assert search(alice, "Acme-Shop") == [
        {**standard_row(acme.shop, acme.tx, alice_address), "part": acme.part}
    ]
    assert search(alice, "Acme-Shop-Part") == [
        {**standard_row(acme.part, acme.tx, alice_address), "v": 9}
    ]


def test_pragma_names_differ_per_organization(alice: httpx.Client, shops: dict[str, Shop]) -> None:
    globex = shops["Globex"]
    assert search(alice, "Globex-Shop", {"select": "address,part"}) == [
        {"address": globex.shop, "part": globex.part}
    ]
    assert search(alice, "Globex-Shop-Part", {"select": "address,v"}) == [
        {"address": globex.part, "v": 11}
    ]


@pytest.mark.parametrize("table", ["Shop", "Part", "Acme-Part", "Shop.Made", "history@Shop"])
def test_pragma_contracts_have_no_plain_tables(
    alice: httpx.Client, shops: dict[str, Shop], table: str
) -> None:
    assert search(alice, table, expect=404)["code"] == "42P01"


def test_pragma_prefix_applies_to_events_and_history(
    alice: httpx.Client, shops: dict[str, Shop]
) -> None:
    made = [seed_part(r) for r in search(alice, "Acme-Shop.Made")]
    assert made == [{"id": 1, "address": shops["Acme"].shop, "v": "9"}]
    assert search(alice, "history@Acme-Shop-Part", {"select": "address,v"}) == [
        {"address": shops["Acme"].part, "v": 9}
    ]
    search(alice, "history@Acme-Shop", expect=404)


def test_join_to_a_prefixed_table(alice: httpx.Client, shops: dict[str, Shop]) -> None:
    rows = search(alice, "Acme-Shop", {"select": "part,Acme-Shop-Part(v)"})
    assert rows == [{"part": shops["Acme"].part, "Acme-Shop-Part": {"v": 9}}]


def test_no_pragma_means_plain_names(alice: httpx.Client, counter: Counter) -> None:
    search(alice, "Acme-Counter", expect=404)
    search(alice, "Acme-Counter.Bumped", expect=404)


def test_evm_contracts_are_not_indexed(alice: httpx.Client) -> None:
    address, _ = upload(alice, "EvmBox", EVM_SRC, vm="EVM")
    assert HEX40.match(address)
    body = search(alice, "EvmBox", expect=404)
    assert body == {
        "hint": None,
        "details": None,
        "code": "42P01",
        "message": 'relation "public.EvmBox" does not exist',
    }


# ---------------------------------------------------------------------------- joins


def test_join_through_a_contract_typed_variable(alice: httpx.Client, kinds: Kinds) -> None:
    (receipt_row,) = search(alice, "Receipt", {"address": f"eq.{kinds.receipt}"})
    (row,) = search(alice, "Kinds", {"select": "*,Receipt(*)"})
    assert row["receipt"] == kinds.receipt
    assert row["Receipt"] == receipt_row
    assert row["Receipt"]["memo"] == "paid"
    assert list(row)[-1] == "Receipt"


def test_join_with_selected_columns(alice: httpx.Client, kinds: Kinds) -> None:
    assert search(alice, "Kinds", {"select": "label,Receipt(memo,amount)"}) == [
        {"label": "Hello", "Receipt": {"memo": "paid", "amount": 42}}
    ]


def test_join_without_relationship_is_refused(alice: httpx.Client, kinds: Kinds) -> None:
    body = search(alice, "Receipt", {"select": "*,Kinds(*)"}, expect=400)
    assert body["code"] == "PGRST200"
    assert body["message"] == (
        "Could not find a relationship between Receipt and Kinds in the schema cache"
    )


def test_join_through_an_account_variable_is_refused(alice: httpx.Client, kinds: Kinds) -> None:
    # seed: generic address or account variables cannot be joined
    body = search(alice, "Kinds", {"select": "*,Certificate(*)"}, expect=400)
    assert body["code"] == "PGRST200"


def test_ambiguous_join_is_300(alice: httpx.Client, kinds: Kinds) -> None:
    # reference §4: two relationships to the same table make the embed ambiguous (PGRST201)
    r = alice.get(f"{SEARCH}/Pair", params={"select": "*,Receipt(*)"})
    assert r.status_code == 300, r.text
    assert r.json()["code"] == "PGRST201"


def test_ambiguous_join_resolved_by_naming_the_column(alice: httpx.Client, kinds: Kinds) -> None:
    rows = search(alice, "Pair", {"select": "left,right,Receipt!right(memo)"})
    assert rows == [{"left": kinds.receipt, "right": kinds.other, "Receipt": {"memo": "other"}}]
    rows = search(alice, "Pair", {"select": "Receipt!left(memo)"})
    assert rows == [{"Receipt": {"memo": "paid"}}]


def test_join_through_a_main_chain_account_reference(alice: httpx.Client, kinds: Kinds) -> None:
    # Receipt(account(r, "main")) is recorded as `<r>:main` and refers to the main-chain row r
    rows = search(alice, "ViaMain", {"select": "ref,Receipt(memo)"})
    assert rows == [{"ref": f"{kinds.receipt}:main", "Receipt": {"memo": "paid"}}]


# ---------------------------------------------------------------------------- count and ranges


EXACT = {"Prefer": "count=exact"}


def test_select_count(alice: httpx.Client) -> None:
    assert search(alice, "Certificate", {"select": "count"}) == [{"count": 4}]
    assert search(alice, "Certificate", {"select": "count", "organization": "eq.Acme"}) == [
        {"count": 2}
    ]


def test_select_count_with_order_is_refused(alice: httpx.Client) -> None:
    body = search(alice, "Certificate", {"select": "count", "order": "commonName.asc"}, expect=400)
    assert body["code"] == "42803"


def test_count_exact_full_result(alice: httpx.Client) -> None:
    r = alice.get(f"{SEARCH}/Certificate", params={"select": "commonName"}, headers=EXACT)
    assert r.status_code == 200
    assert r.headers["content-range"] == "0-3/4"
    assert [x["commonName"] for x in r.json()] == ["admin", "alice", "bob", "carol"]


def test_count_exact_partial_page_is_206(alice: httpx.Client) -> None:
    r = alice.get(
        f"{SEARCH}/Certificate", params={"select": "commonName", "limit": "2"}, headers=EXACT
    )
    assert r.status_code == 206
    assert r.headers["content-range"] == "0-1/4"
    assert r.json() == [{"commonName": "admin"}, {"commonName": "alice"}]
    r = alice.get(
        f"{SEARCH}/Certificate", params={"select": "commonName", "offset": "1"}, headers=EXACT
    )
    assert r.status_code == 206
    assert r.headers["content-range"] == "1-3/4"
    assert [x["commonName"] for x in r.json()] == ["alice", "bob", "carol"]


def test_count_exact_with_filter(alice: httpx.Client) -> None:
    r = alice.get(
        f"{SEARCH}/Certificate",
        params={"select": "commonName", "organization": "eq.Acme"},
        headers=EXACT,
    )
    assert r.status_code == 200
    assert r.headers["content-range"] == "0-1/2"
    assert r.json() == [{"commonName": "alice"}, {"commonName": "carol"}]


def test_count_exact_no_rows(alice: httpx.Client) -> None:
    r = alice.get(f"{SEARCH}/Certificate", params={"commonName": "eq.nobody"}, headers=EXACT)
    assert r.status_code == 200
    assert r.headers["content-range"] == "*/0"
    assert r.json() == []


def test_no_rows_without_count(alice: httpx.Client) -> None:
    r = alice.get(f"{SEARCH}/Certificate", params={"commonName": "eq.nobody"})
    assert r.status_code == 200
    assert r.headers["content-range"] == "*/*"
    assert r.json() == []


def test_offset_past_the_end_is_416(alice: httpx.Client) -> None:
    r = alice.get(f"{SEARCH}/Certificate", params={"offset": "5"}, headers=EXACT)
    assert r.status_code == 416
    assert r.headers["content-range"] == "*/4"


def test_offset_at_the_end_is_an_empty_page(alice: httpx.Client) -> None:
    # PostgREST 9 rangeStatus: 416 only when the offset is beyond the total (lower > total);
    # an offset equal to the total is an empty partial page. Seed: "at or beyond: no rows".
    r = alice.get(f"{SEARCH}/Certificate", params={"offset": "4"}, headers=EXACT)
    assert r.status_code == 206, r.text
    assert r.headers["content-range"] == "*/4"
    assert r.json() == []


def test_offset_past_the_end_without_count_is_empty(alice: httpx.Client) -> None:
    r = alice.get(f"{SEARCH}/Certificate", params={"offset": "5"})
    assert r.status_code == 200
    assert r.headers["content-range"] == "*/*"
    assert r.json() == []


def test_range_header(alice: httpx.Client) -> None:
    r = alice.get(
        f"{SEARCH}/Certificate",
        params={"select": "commonName"},
        headers={"Range": "0-1", **EXACT},
    )
    assert r.status_code == 206
    assert r.headers["content-range"] == "0-1/4"
    assert r.json() == [{"commonName": "admin"}, {"commonName": "alice"}]


def test_range_header_with_range_unit(alice: httpx.Client) -> None:
    r = alice.get(
        f"{SEARCH}/Certificate",
        params={"select": "commonName"},
        headers={"Range": "2-3", "Range-Unit": "items", **EXACT},
    )
    assert r.status_code == 206
    assert r.headers["content-range"] == "2-3/4"
    assert r.json() == [{"commonName": "bob"}, {"commonName": "carol"}]


def test_range_header_without_count(alice: httpx.Client) -> None:
    r = alice.get(
        f"{SEARCH}/Certificate", params={"select": "commonName"}, headers={"Range": "0-1"}
    )
    assert r.status_code == 200
    assert r.headers["content-range"] == "0-1/*"
    assert len(r.json()) == 2


def test_content_range_without_count(alice: httpx.Client) -> None:
    r = alice.get(f"{SEARCH}/Certificate", params={"select": "commonName"})
    assert r.status_code == 200
    assert r.headers["content-range"] == "0-3/*"


# ------------------------------------------------------------------------ query syntax over HTTP


def test_lenient_in_without_parentheses(alice: httpx.Client) -> None:
    rows = search(alice, "Certificate", {"select": "commonName", "commonName": "in.alice,bob"})
    assert rows == [{"commonName": "alice"}, {"commonName": "bob"}]


def test_empty_chain_id_selects_the_main_chain(alice: httpx.Client) -> None:
    assert search(alice, "Certificate", {"select": "count", "chainId": "eq."}) == [{"count": 4}]


def test_nested_or_and_over_http(alice: httpx.Client) -> None:
    params = {
        "select": "commonName",
        "or": "(commonName.eq.bob,and(organization.eq.Acme,organizationalUnit.not.eq.Sales))",
    }
    assert search(alice, "Certificate", params) == [{"commonName": "alice"}, {"commonName": "bob"}]


def test_order_several_columns_over_http(alice: httpx.Client) -> None:
    params = {"select": "commonName", "order": "organization.asc,commonName.desc"}
    assert [r["commonName"] for r in search(alice, "Certificate", params)] == [
        "carol",
        "alice",
        "admin",
        "bob",
    ]


def test_error_bodies_over_http(alice: httpx.Client, kinds: Kinds) -> None:
    assert search(alice, "Nope", expect=404) == {
        "hint": None,
        "details": None,
        "code": "42P01",
        "message": 'relation "public.Nope" does not exist',
    }
    assert search(alice, "Certificate", {"nope": "eq.1"}, expect=400) == {
        "hint": None,
        "details": None,
        "code": "42703",
        "message": "column Certificate.nope does not exist",
    }
    body = search(alice, "Certificate", {"commonName": "zz.1"}, expect=400)
    assert body["code"] == "PGRST100"
    assert body["message"] == '"failed to parse filter (zz.1)" (line 1, column 1)'
    body = search(alice, "Kinds", {"count": "eq.three"}, expect=400)
    assert body["code"] == "22P02"


# ---------------------------------------------------------------------------- visibility


def test_private_chain_rows_are_visible_to_members_only(
    alice: httpx.Client, bob: httpx.Client, carol: httpx.Client, private_chain: str
) -> None:
    params = {"select": "chainId,secret", "order": "secret.asc"}
    member_view = [
        {"chainId": private_chain, "secret": "governance"},
        {"chainId": private_chain, "secret": "on the chain"},
        {"chainId": "", "secret": "public"},
    ]
    assert search(alice, "Vault", params) == member_view
    assert search(carol, "Vault", params) == member_view
    assert search(bob, "Vault", params) == [{"chainId": "", "secret": "public"}]
    assert search(bob, "Vault", {"select": "count"}) == [{"count": 1}]
    assert search(bob, "Vault", {"chainId": f"eq.{private_chain}"}) == []
    r = bob.get(f"{SEARCH}/Vault", headers=EXACT)
    assert r.headers["content-range"] == "0-0/1"


def test_private_chain_rows_carry_the_chain_in_record_id(
    alice: httpx.Client, private_chain: str
) -> None:
    rows = search(alice, "Vault", {"select": "address,record_id", "chainId": "neq."})
    assert len(rows) == 2
    for row in rows:
        assert row["record_id"] == f"{row['address']}:{private_chain}"
    assert rows[0]["address"] == "0" * 37 + "100"  # the governance contract


# ---------------------------------------------------------------------------- gate


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_only_get_is_allowed(alice: httpx.Client, method: str) -> None:
    r = alice.request(method, f"{SEARCH}/Certificate", json=[{"commonName": "mallory"}])
    assert r.status_code == 403
    assert r.json() == {"message": "Cirrus is read-only: only GET is allowed"}
    assert search(alice, "Certificate", {"select": "count"}) == [{"count": 4}]


def test_missing_token_is_401(node: RunningNode) -> None:
    r = node.client(None).get(f"{SEARCH}/Certificate")
    assert r.status_code == 401
    assert "www-authenticate" in r.headers


@pytest.mark.parametrize("header", ["Bearer 1234", "Bearer", "Basic YWxpY2U6YWxpY2U="])
def test_invalid_token_is_403(node: RunningNode, header: str) -> None:
    with httpx.Client(base_url=node.url, headers={"Authorization": header}) as c:
        r = c.get(f"{SEARCH}/Certificate")
    assert r.status_code == 403
    assert "invalid jwt" in r.text


# ---------------------------------------------------------------------------- README examples


def test_readme_example_eq_filter(node: RunningNode, alice: httpx.Client) -> None:
    r = alice.get("/cirrus/search/Certificate?commonName=eq.alice&select=commonName,organization")
    assert r.status_code == 200
    assert r.json() == [{"commonName": "alice", "organization": "Acme"}]


def test_readme_example_ilike_order_limit(alice: httpx.Client) -> None:
    r = alice.get(
        "/cirrus/search/Certificate?select=commonName&commonName=ilike.*A*"
        "&order=commonName.desc&limit=2"
    )
    assert r.status_code == 200
    assert r.json() == [{"commonName": "carol"}, {"commonName": "alice"}]


def test_readme_example_count_with_filter(alice: httpx.Client) -> None:
    r = alice.get("/cirrus/search/Certificate?select=count&organization=eq.Acme")
    assert r.status_code == 200
    assert r.json() == [{"count": 2}]


# ---------------------------------------------------------------------------- schema document


def test_root_document_describes_tables_columns_and_joins(
    alice: httpx.Client, kinds: Kinds, counter: Counter
) -> None:
    """PostgREST serves an OpenAPI description at its root; clients read table names, column
    types and foreign keys (join targets) from it (reference § 4)."""
    for path in (f"{SEARCH}/", SEARCH):
        r = alice.get(path)
        assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["swagger"] == "2.0"
    defs = doc["definitions"]
    assert {"Kinds", "Receipt", "history@Counter", "Counter", "Counter.Bumped"} <= set(defs)
    assert "history@Kinds" not in defs
    kinds_cols = defs["Kinds"]["properties"]
    assert kinds_cols["count"] == {"type": "number", "format": "numeric"}
    assert kinds_cols["active"] == {"type": "boolean", "format": "boolean"}
    assert kinds_cols["label"] == {"type": "string", "format": "text"}
    assert "<fk table='Receipt' column='record_id'/>" in kinds_cols["receipt"]["description"]
    assert "<pk/>" in kinds_cols["record_id"]["description"]
    assert "description" not in kinds_cols["acct"]  # generic accounts cannot be joined
    assert defs["Counter.Bumped"]["properties"]["id"]["format"] == "integer"
    assert "/Kinds" in doc["paths"]


def test_root_document_needs_a_token(node: RunningNode) -> None:
    r = httpx.get(f"{node.url}{SEARCH}/")
    assert r.status_code == 401
