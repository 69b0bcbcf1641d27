"""Private chains over real HTTP (seed 000 "Private chains"; reference §1.6).

Creation (src, codePtr, members, balances, label, parentChain, metadata), the governance contract
at 0x100, validation errors, the chain reads at their three prefixes, transactions on a chain,
membership and the events that change it, Cirrus visibility, cross-chain reads and persistence of
the members across a restart. One node for the whole module.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import (
    HEX64,
    RunningNode,
    call_tx,
    deploy,
    upload_tx,
    wait_for,
)

GOV_ADDRESS = "0000000000000000000000000000000000000100"
CHAIN_READS = ("/svc-api/eth/v1.2/chain", "/strato-api/eth/v1.2/chain", "/bloc/v2.2/chain")

# A governance contract able to emit every membership event the sandbox honours.
GOV_SRC = """
contract Gov {
    uint public x;
    string public tag;

    event OrgAdded(string org);
    event OrgRemoved(string org);
    event OrgUnitAdded(string org, string unit);
    event OrgUnitRemoved(string org, string unit);
    event CommonNameAdded(string org, string unit, string commonName);
    event CommonNameRemoved(string org, string unit, string commonName);
    event OrganizationAdded(string org);
    event OrganizationRemoved(string org);

    constructor(uint _x, string _tag) public {
        x = _x;
        tag = _tag;
    }

    function set(uint _x) public returns (uint) {
        x = _x;
        return x;
    }

    function get() public view returns (uint) {
        return x;
    }

    function addOrg(string o) public { emit OrgAdded(o); }
    function removeOrg(string o) public { emit OrgRemoved(o); }
    function addOrganization(string o) public { emit OrganizationAdded(o); }
    function removeOrganization(string o) public { emit OrganizationRemoved(o); }
    function addUnit(string o, string u) public { emit OrgUnitAdded(o, u); }
    function removeUnit(string o, string u) public { emit OrgUnitRemoved(o, u); }
    function addMember(string o, string u, string n) public { emit CommonNameAdded(o, u, n); }
    function removeMember(string o, string u, string n) public { emit CommonNameRemoved(o, u, n); }
}
"""

# The parent's contract and a child's contract that reads it across chains.
CROSS_SRC = """
contract Source {
    uint public x;
    constructor(uint _x) public { x = _x; }
    function get() public view returns (uint) { return x; }
    function set(uint _x) public returns (uint) { x = _x; return x; }
}

contract Reader {
    uint public seen;
    constructor() public { }

    function viaAccount(address t) public returns (uint) {
        seen = account(t, "parent").get();
        return seen;
    }

    function viaContract(address t) public returns (uint) {
        Source s = Source(account(t, "parent"));
        seen = s.get();
        return seen;
    }

    function viaGetter(address t) public view returns (uint) {
        Source s = Source(account(t, "parent"));
        return s.x();
    }

    function writeParent(address t, uint v) public returns (uint) {
        Source s = Source(account(t, "parent"));
        return s.set(v);
    }

    function readChain(address t, string c) public returns (uint) {
        Source s = Source(account(t, c));
        seen = s.get();
        return seen;
    }
}
"""

# Rows of this contract name are looked up in Cirrus (no pragma: the table is the bare name).
ROW_SRC = """
contract ChainRow {
    string public where;
    constructor(string _where) public { where = _where; }
}
"""


# ---------------------------------------------------------------------------- helpers


def chain_body(
    balance_address: str,
    *,
    members: list[dict[str, Any]] | None = None,
    label: str = "test-chain",
    args: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "label": label,
        "src": GOV_SRC,
        "contract": "Gov",
        "args": {"_x": 5, "_tag": "hi"} if args is None else args,
        "members": [{"orgName": "Acme", "access": True}] if members is None else members,
        "balances": [{"address": balance_address, "balance": 1000}],
        "metadata": {"VM": "SolidVM"},
    }
    body.update(extra)
    return body


def create(client: httpx.Client, body: dict[str, Any]) -> str:
    r = client.post("/bloc/v2.2/chain", json=body)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    chain = r.json()
    assert isinstance(chain, str)
    assert HEX64.match(chain), chain
    return chain


def chain_ids(client: httpx.Client) -> list[str]:
    r = client.get("/bloc/v2.2/chain")
    assert r.status_code == 200, r.text
    return [c["id"] for c in r.json()]


def info(client: httpx.Client, chain: str) -> dict[str, Any]:
    r = client.get("/bloc/v2.2/chain", params={"chainid": chain})
    assert r.status_code == 200, r.text
    (item,) = r.json()
    assert item["id"] == chain
    out: dict[str, Any] = item["info"]
    return out


def state(
    client: httpx.Client, chain: str, name: str = "Gov", address: str = GOV_ADDRESS
) -> httpx.Response:
    return client.get(f"/bloc/v2.2/contracts/{name}/{address}/state", params={"chainid": chain})


def on_chain(
    client: httpx.Client,
    chain: str,
    method: str,
    args: dict[str, Any] | None = None,
    *,
    address: str = GOV_ADDRESS,
    in_payload: bool = False,
) -> httpx.Response:
    """A function call on a chain (resolve=true); chainid in the query or in the payload."""
    extra = {"chainid": chain} if in_payload else {}
    params = {"resolve": "true"} if in_payload else {"resolve": "true", "chainid": chain}
    return client.post(
        "/svc/v2.3/transaction",
        params=params,
        json={"txs": [call_tx(address, method, args or {}, **extra)], "txParams": {}},
    )


def call_ok(client: httpx.Client, chain: str, method: str, **args: Any) -> list[Any]:
    r = on_chain(client, chain, method, args)
    assert r.status_code == 200, r.text
    res = r.json()[0]
    assert res["status"] == "Success", res
    assert res["txResult"]["chainId"] == chain
    contents: list[Any] = res["data"]["contents"]
    return contents


def can_read(client: httpx.Client, chain: str) -> bool:
    r = client.get("/bloc/v2.2/chain", params={"chainid": chain})
    assert r.status_code in (200, 403), r.text
    return r.status_code == 200


def can_read_as(node: RunningNode, user: str, chain: str) -> bool:
    return can_read(node.client(user), chain)


def can_transact(client: httpx.Client, chain: str) -> bool:
    r = on_chain(client, chain, "get")
    assert r.status_code in (200, 403), r.text
    if r.status_code == 403:
        assert "not a member" in r.text
    return r.status_code == 200


def access(node: RunningNode, chain: str) -> dict[str, tuple[bool, bool]]:
    """(may read, may transact) per demo user."""
    return {
        u: (can_read(node.client(u), chain), can_transact(node.client(u), chain))
        for u in ("alice", "bob", "carol", "dave")
    }


def allowed(*users: str) -> dict[str, tuple[bool, bool]]:
    return {u: (u in users, u in users) for u in ("alice", "bob", "carol", "dave")}


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.client("alice")


@pytest.fixture(scope="module")
def bob(node: RunningNode) -> httpx.Client:
    return node.client("bob")


@pytest.fixture(scope="module")
def carol(node: RunningNode) -> httpx.Client:
    return node.client("carol")


@pytest.fixture(scope="module")
def alice_address(node: RunningNode) -> str:
    return node.address("alice")


@pytest.fixture(scope="module")
def acme_chain(alice: httpx.Client, alice_address: str) -> str:
    """A chain of the organization Acme (alice and carol) governed by Gov(5, "hi")."""
    return create(
        alice,
        chain_body(alice_address, label="acme", metadata={"VM": "SolidVM", "history": "Gov"}),
    )


@pytest.fixture(scope="module")
def globex_chain(bob: httpx.Client, node: RunningNode) -> str:
    """A chain of the organization Globex (bob only)."""
    return create(
        bob, chain_body(node.address("bob"), members=[{"orgName": "Globex"}], label="globex")
    )


# ---------------------------------------------------------------------------- creation


def test_create_with_src_returns_the_id_and_records_the_request(
    alice: httpx.Client, alice_address: str, acme_chain: str
) -> None:
    i = info(alice, acme_chain)
    assert i["label"] == "acme"
    assert i["parentChain"] is None
    assert i["members"] == [{"orgName": "Acme", "orgUnit": "", "commonName": "", "access": True}]
    assert i["balances"] == [{"address": alice_address, "balance": "1000"}]
    assert i["metadata"] == {"VM": "SolidVM", "history": "Gov"}
    assert i["codeInfo"][0]["name"] == "Gov"
    assert i["codeInfo"][0]["src"] == GOV_SRC
    by_address = {a["address"]: a for a in i["accountInfo"]}
    assert by_address[alice_address]["balance"] == "1000"
    assert HEX64.match(by_address[GOV_ADDRESS]["codeHash"])


def test_governance_contract_lives_at_0x100_with_its_constructor_args(
    alice: httpx.Client, acme_chain: str
) -> None:
    r = state(alice, acme_chain)
    assert r.status_code == 200, r.text
    assert r.json() == {"x": "5", "tag": "hi"}
    r = alice.get("/bloc/v2.2/contracts", params={"chainid": acme_chain})
    assert r.status_code == 200, r.text
    assert [c["address"] for c in r.json()["Gov"]] == [GOV_ADDRESS]
    assert r.json()["Gov"][0]["chainId"] == acme_chain
    # nothing at 0x100 on the main chain
    r = alice.get(f"/bloc/v2.2/contracts/Gov/{GOV_ADDRESS}/state")
    assert r.status_code == 400, r.text


def test_history_metadata_records_every_change_of_the_governance_contract(
    alice: httpx.Client, acme_chain: str
) -> None:
    def history() -> list[tuple[int, str, str]]:
        r = alice.get(
            "/cirrus/search/history@Gov",
            params={"chainId": f"eq.{acme_chain}", "order": "block_number.asc"},
        )
        assert r.status_code == 200, r.text
        return [(x["x"], x["tag"], x["address"]) for x in r.json()]

    before = history()
    assert before[0] == (5, "hi", GOV_ADDRESS)  # the creation
    assert call_ok(alice, acme_chain, "set", _x=606) == ["606"]
    assert call_ok(alice, acme_chain, "set", _x=607) == ["607"]
    assert history() == [*before, (606, "hi", GOV_ADDRESS), (607, "hi", GOV_ADDRESS)]


def test_create_with_code_pointer_to_a_main_chain_contract(
    alice: httpx.Client, alice_address: str
) -> None:
    address = deploy(alice, "Gov", GOV_SRC, {"_x": 1, "_tag": "main"})
    body = chain_body(alice_address, args={"_x": 11, "_tag": "ptr"}, label="from-main")
    del body["src"]
    body["codePtr"] = {"account": address, "name": "Gov"}
    chain = create(alice, body)
    assert state(alice, chain).json() == {"x": "11", "tag": "ptr"}
    assert info(alice, chain)["codeInfo"][0]["name"] == "Gov"
    # the main-chain original is untouched
    r = alice.get(f"/bloc/v2.2/contracts/Gov/{address}/state")
    assert r.json() == {"x": "1", "tag": "main"}


def test_create_with_code_pointer_in_address_colon_chain_form(
    alice: httpx.Client, alice_address: str, acme_chain: str
) -> None:
    res = submit_on(alice, acme_chain, upload_tx("Source", CROSS_SRC, {"_x": 3}))
    address = res["data"]["contents"]["address"]
    assert res["data"]["contents"]["chainId"] == acme_chain
    chain = create(
        alice,
        {
            "label": "from-chain",
            "codePtr": {"account": f"{address}:{acme_chain}", "name": "Source"},
            "args": {"_x": 33},
            "members": [{"orgName": "Acme"}],
            "balances": [{"address": alice_address, "balance": 1}],
        },
    )
    r = state(alice, chain, "Source")
    assert r.status_code == 200, r.text
    assert r.json() == {"x": "33"}


def submit_on(client: httpx.Client, chain: str, tx: dict[str, Any]) -> dict[str, Any]:
    r = client.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": chain},
        json={"txs": [tx], "txParams": {}},
    )
    assert r.status_code == 200, r.text
    res: dict[str, Any] = r.json()[0]
    assert res["status"] == "Success", res
    return res


def test_evm_metadata_makes_an_evm_governance_contract(
    alice: httpx.Client, alice_address: str
) -> None:
    chain = create(alice, chain_body(alice_address, label="evm", metadata={"VM": "EVM"}))
    assert info(alice, chain)["metadata"] == {"VM": "EVM"}
    r = alice.get(f"/bloc/v2.2/contracts/Gov/{GOV_ADDRESS}", params={"chainid": chain})
    assert r.status_code == 200, r.text
    assert r.json()["codeHash"]["kind"] == "EVM"
    assert state(alice, chain).json() == {"x": "5", "tag": "hi"}


def test_child_chain_records_its_parent(
    alice: httpx.Client, alice_address: str, acme_chain: str
) -> None:
    child = create(alice, chain_body(alice_address, label="child", parentChain=acme_chain))
    assert info(alice, child)["parentChain"] == acme_chain


def test_non_member_of_the_parent_cannot_create_a_child(
    bob: httpx.Client, node: RunningNode, acme_chain: str, alice: httpx.Client
) -> None:
    before = chain_ids(bob)
    r = bob.post(
        "/bloc/v2.2/chain",
        json=chain_body(
            node.address("bob"), members=[{"orgName": "Globex"}], parentChain=acme_chain
        ),
    )
    assert r.status_code == 403, r.text
    assert chain_ids(bob) == before


def test_creation_block_is_the_hash_of_the_block_that_created_the_chain(
    alice: httpx.Client, acme_chain: str
) -> None:
    # reference §1.6: info.creationBlock is a block hash
    i = info(alice, acme_chain)
    r = alice.get("/strato-api/eth/v1.2/transaction", params={"hash": i["creationTx"]})
    assert r.status_code == 200, r.text
    (tx,) = r.json()
    r = alice.get("/strato-api/eth/v1.2/block", params={"number": tx["blockNumber"]})
    (block,) = r.json()
    assert isinstance(i["creationBlock"], str), i["creationBlock"]
    assert HEX64.match(i["creationBlock"])
    assert i["creationBlock"] == block["blockHash"]


def test_async_creation_returns_the_id_at_once(alice: httpx.Client, alice_address: str) -> None:
    r = alice.post(
        "/bloc/v2.2/chain", json={**chain_body(alice_address, label="async"), "async": True}
    )
    assert r.status_code == 200, r.text
    chain = r.json()
    assert HEX64.match(chain)
    wait_for(lambda: chain in chain_ids(alice), 10, "the async chain")
    assert info(alice, chain)["label"] == "async"


def test_batch_creation_returns_the_ids_in_order(alice: httpx.Client, alice_address: str) -> None:
    bodies = [chain_body(alice_address, label=f"batch-{i}") for i in range(3)]
    r = alice.post("/bloc/v2.2/chains", json=bodies)
    assert r.status_code == 200, r.text
    ids = r.json()
    assert len(ids) == 3
    assert all(HEX64.match(c) for c in ids)
    assert [info(alice, c)["label"] for c in ids] == ["batch-0", "batch-1", "batch-2"]


def test_batch_with_one_invalid_body_creates_nothing(
    alice: httpx.Client, alice_address: str
) -> None:
    before = chain_ids(alice)
    bodies = [
        chain_body(alice_address, label="batch-ok"),
        {**chain_body(alice_address, label="batch-bad"), "members": []},
    ]
    r = alice.post("/bloc/v2.2/chains", json=bodies)
    assert r.status_code == 400, r.text
    assert r.json() == "Private chains must include at least one member"
    assert chain_ids(alice) == before


# ---------------------------------------------------------------------------- members


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        ([{"orgName": "Acme", "access": True}], ("alice", "carol")),
        ([{"orgName": "Acme", "orgUnit": "Sales", "access": True}], ("carol",)),
        (
            [{"orgName": "Globex", "orgUnit": "Logistics", "commonName": "bob", "access": True}],
            ("bob",),
        ),
        (
            [{"orgName": "Acme", "access": False}, {"orgName": "Globex", "access": True}],
            ("bob",),
        ),
        ([{"orgName": "Acme", "orgUnit": "Engineering"}, {"orgName": "Globex"}], ("alice", "bob")),
        ([{"access": True}], ("alice", "bob", "carol")),
    ],
    ids=["org", "unit", "common-name", "access-false", "default-access", "everyone"],
)
def test_members_decide_who_may_read_and_transact(
    node: RunningNode,
    alice: httpx.Client,
    alice_address: str,
    members: list[dict[str, Any]],
    expected: tuple[str, ...],
) -> None:
    chain = create(alice, chain_body(alice_address, members=members, label="members"))
    assert access(node, chain) == allowed(*expected)


# ---------------------------------------------------------------------------- validation


def bad_bodies(address: str) -> list[tuple[str, dict[str, Any], str]]:
    base = chain_body(address)
    no_src = {k: v for k, v in base.items() if k != "src"}
    return [
        ("no members", {**base, "members": []}, "Private chains must include at least one member"),
        ("members missing", {k: v for k, v in base.items() if k != "members"},
         "Private chains must include at least one member"),
        ("zero balance", {**base, "balances": [{"address": address, "balance": 0}]},
         "At least one account must have a non-zero balance"),
        ("no balances", {**base, "balances": []},
         "At least one account must have a non-zero balance"),
        ("bad VM", {**base, "metadata": {"VM": "LLVM"}}, "Unknown VM"),
        ("codePtr nowhere", {**no_src, "codePtr": {"account": "ab" * 20, "name": "Gov"}},
         "codePtr"),
        ("codePtr malformed", {**no_src, "codePtr": {"account": "xyz", "name": "Gov"}},
         "codePtr.account"),
        ("codePtr not an object", {**no_src, "codePtr": "Gov"}, "codePtr"),
        ("contract not in source", {**base, "contract": "Nope"}, "Nope"),
        ("constructor args wrong", {**base, "args": {"_x": 1}}, "_tag"),
    ]  # fmt: skip


def test_invalid_creation_requests_are_refused_and_create_nothing(
    alice: httpx.Client, alice_address: str
) -> None:
    before = chain_ids(alice)
    for what, body, message in bad_bodies(alice_address):
        r = alice.post("/bloc/v2.2/chain", json=body)
        assert r.status_code == 400, f"{what}: {r.status_code} {r.text}"
        assert message in r.json(), f"{what}: {r.text}"
    assert chain_ids(alice) == before


def test_exact_messages_of_the_platform(alice: httpx.Client, alice_address: str) -> None:
    base = chain_body(alice_address)
    r = alice.post("/bloc/v2.2/chain", json={**base, "members": []})
    assert (r.status_code, r.json()) == (400, "Private chains must include at least one member")
    r = alice.post("/bloc/v2.2/chain", json={**base, "balances": [{"address": alice_address}]})
    assert (r.status_code, r.json()) == (400, "At least one account must have a non-zero balance")


def test_code_pointer_to_a_chain_the_caller_is_not_a_member_of_is_refused(
    node: RunningNode, bob: httpx.Client, alice: httpx.Client, acme_chain: str
) -> None:
    # The private contract's code must not leak into a chain bob creates (and then reads back
    # through info.codeInfo): the pointer's chain is as private as its state.
    res = submit_on(alice, acme_chain, upload_tx("Source", CROSS_SRC, {"_x": 4}))
    address = res["data"]["contents"]["address"]
    before = chain_ids(bob)
    r = bob.post(
        "/bloc/v2.2/chain",
        json={
            "label": "leak",
            "codePtr": {"account": f"{address}:{acme_chain}", "name": "Source"},
            "args": {"_x": 1},
            "members": [{"orgName": "Globex"}],
            "balances": [{"address": node.address("bob"), "balance": 1}],
        },
    )
    assert r.status_code == 403, r.text
    assert chain_ids(bob) == before


def test_user_without_identity_creates_no_chain(node: RunningNode) -> None:
    dave = node.client("dave")
    before = chain_ids(node.client("admin"))
    r = dave.post("/bloc/v2.2/chain", json=chain_body(node.address("dave"), members=[{}]))
    assert r.status_code == 400, r.text
    assert "certificate" in r.json() or "identity" in r.json()
    # members [{}] would let everyone in: no new chain shows up for anyone
    assert chain_ids(node.client("admin")) == before
    assert chain_ids(dave) == []


# ---------------------------------------------------------------------------- reads


def test_chain_lists_show_only_accessible_chains(
    node: RunningNode, acme_chain: str, globex_chain: str
) -> None:
    users = ("alice", "bob", "carol", "dave", "admin")
    lists = {
        route: {u: [c["id"] for c in node.client(u).get(route).json()] for u in users}
        for route in CHAIN_READS
    }
    seen = lists["/bloc/v2.2/chain"]
    # the three prefixes answer alike
    assert all(other == seen for other in lists.values())
    assert acme_chain in seen["alice"]
    assert acme_chain in seen["carol"]
    assert acme_chain not in seen["bob"]
    assert globex_chain in seen["bob"]
    assert globex_chain not in seen["alice"] + seen["carol"]
    assert seen["dave"] == []
    every = {c for ids in seen.values() for c in ids}
    for u in users:
        assert len(set(seen[u])) == len(seen[u]), u
        readable = {c for c in every if can_read_as(node, u, c)}
        assert set(seen[u]) == readable, u


def test_chain_read_by_repeated_chainid(
    node: RunningNode, acme_chain: str, alice_address: str
) -> None:
    alice = node.client("alice")
    other = create(alice, chain_body(alice_address, label="second"))
    for route in CHAIN_READS:
        r = alice.get(route, params=[("chainid", other), ("chainid", acme_chain)])
        assert r.status_code == 200, r.text
        assert [c["id"] for c in r.json()] == [other, acme_chain], route
        assert [c["info"]["label"] for c in r.json()] == ["second", "acme"], route
        r = alice.get(route, params={"chainid": acme_chain})
        assert [c["id"] for c in r.json()] == [acme_chain], route


def test_non_member_asking_by_id_gets_403(
    node: RunningNode, acme_chain: str, globex_chain: str
) -> None:
    for route in CHAIN_READS:
        r = node.client("bob").get(route, params={"chainid": acme_chain})
        assert r.status_code == 403, r.text
        assert "not a member" in r.json()
        r = node.client("bob").get(
            route, params=[("chainid", globex_chain), ("chainid", acme_chain)]
        )
        assert r.status_code == 403, r.text
        r = node.client("dave").get(route, params={"chainid": acme_chain})
        assert r.status_code == 403, r.text


def test_unknown_chain_id_gets_the_answer_of_a_chain_one_is_not_a_member_of(
    alice: httpx.Client,
) -> None:
    # an unknown chain and a foreign one answer alike (see test_chain_isolation.py)
    r = alice.get("/svc-api/eth/v1.2/chain", params={"chainid": "ef" * 32})
    assert r.status_code == 403, r.text
    assert "not a member" in r.json() and "no such chain" in r.json()


@pytest.mark.parametrize("field", ["parentChain", "codePtr.account"])
def test_creation_under_an_unknown_chain_is_refused_like_a_foreign_one(
    alice: httpx.Client, alice_address: str, field: str
) -> None:
    before = chain_ids(alice)
    base = chain_body(alice_address)
    if field == "parentChain":
        bad = {**base, "parentChain": "ab" * 32}
    else:
        no_src = {k: v for k, v in base.items() if k != "src"}
        bad = {**no_src, "codePtr": {"account": f"{'ab' * 20}:{'cd' * 32}", "name": "Gov"}}
    r = alice.post("/bloc/v2.2/chain", json=bad)
    assert r.status_code == 403, r.text
    assert r.json().startswith(f"{field}: ") and "not a member" in r.json()
    assert chain_ids(alice) == before


def test_non_member_cannot_read_contract_state_on_the_chain(
    bob: httpx.Client, acme_chain: str
) -> None:
    r = state(bob, acme_chain)
    assert r.status_code == 403, r.text
    r = bob.get("/bloc/v2.2/contracts", params={"chainid": acme_chain})
    assert r.status_code == 403, r.text


# ---------------------------------------------------------------------------- transactions


def test_calls_with_chainid_in_query_and_in_payload_run_in_the_chain(
    alice: httpx.Client, carol: httpx.Client, acme_chain: str
) -> None:
    r = on_chain(alice, acme_chain, "set", {"_x": 21})
    assert r.status_code == 200, r.text
    assert r.json()[0]["txResult"]["chainId"] == acme_chain
    assert state(alice, acme_chain).json()["x"] == "21"
    r = on_chain(carol, acme_chain, "set", {"_x": 22}, in_payload=True)
    assert r.status_code == 200, r.text
    assert r.json()[0]["txResult"]["chainId"] == acme_chain
    assert r.json()[0]["data"]["contents"] == ["22"]
    assert state(carol, acme_chain).json()["x"] == "22"
    # a call without the chain id looks on the main chain, where 0x100 holds nothing
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [call_tx(GOV_ADDRESS, "set", {"_x": 1})], "txParams": {}},
    )
    assert r.status_code == 400, r.text
    assert state(alice, acme_chain).json()["x"] == "22"


def test_upload_on_a_chain_stays_on_that_chain(alice: httpx.Client, acme_chain: str) -> None:
    res = submit_on(alice, acme_chain, upload_tx("Source", CROSS_SRC, {"_x": 77}))
    address = res["data"]["contents"]["address"]
    assert res["data"]["contents"]["chainId"] == acme_chain
    assert state(alice, acme_chain, "Source", address).json() == {"x": "77"}
    r = alice.get(f"/bloc/v2.2/contracts/Source/{address}/state")
    assert r.status_code == 400, r.text


@pytest.mark.parametrize("in_payload", [False, True], ids=["query", "payload"])
def test_non_member_transactions_are_refused_and_change_nothing(
    bob: httpx.Client, alice: httpx.Client, acme_chain: str, in_payload: bool
) -> None:
    before = state(alice, acme_chain).json()
    contracts = alice.get("/bloc/v2.2/contracts", params={"chainid": acme_chain}).json()
    r = on_chain(bob, acme_chain, "set", {"_x": 999}, in_payload=in_payload)
    assert r.status_code == 403, r.text
    assert "not a member" in r.json()
    # async requests are refused up front too
    extra = {"chainid": acme_chain} if in_payload else {}
    params = {"resolve": "false"} if in_payload else {"resolve": "false", "chainid": acme_chain}
    r = bob.post(
        "/svc/v2.3/transaction",
        params=params,
        json={"txs": [call_tx(GOV_ADDRESS, "set", {"_x": 998}, **extra)], "txParams": {}},
    )
    assert r.status_code == 403, r.text
    r = bob.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": acme_chain},
        json={"txs": [upload_tx("Source", CROSS_SRC, {"_x": 1})], "txParams": {}},
    )
    assert r.status_code == 403, r.text
    assert state(alice, acme_chain).json() == before
    assert alice.get("/bloc/v2.2/contracts", params={"chainid": acme_chain}).json() == contracts


# ---------------------------------------------------------------------------- membership events


@pytest.fixture()
def fresh(node: RunningNode, alice: httpx.Client, alice_address: str) -> str:
    """A new chain of alice alone (common-name member)."""
    return create(
        alice,
        chain_body(
            alice_address,
            members=[{"orgName": "Acme", "orgUnit": "Engineering", "commonName": "alice"}],
            label="events",
        ),
    )


def test_org_added_and_removed(node: RunningNode, alice: httpx.Client, fresh: str) -> None:
    assert access(node, fresh) == allowed("alice")
    call_ok(alice, fresh, "addOrg", o="Globex")
    assert access(node, fresh) == allowed("alice", "bob")
    assert {"orgName": "Globex", "orgUnit": "", "commonName": "", "access": True} in info(
        alice, fresh
    )["members"]
    call_ok(alice, fresh, "removeOrg", o="Globex")
    assert access(node, fresh) == allowed("alice")


def test_seed_organization_added_and_removed(
    node: RunningNode, alice: httpx.Client, fresh: str
) -> None:
    call_ok(alice, fresh, "addOrganization", o="Globex")
    assert access(node, fresh) == allowed("alice", "bob")
    call_ok(alice, fresh, "removeOrganization", o="Globex")
    assert access(node, fresh) == allowed("alice")


def test_org_unit_added_and_removed(node: RunningNode, alice: httpx.Client, fresh: str) -> None:
    call_ok(alice, fresh, "addUnit", o="Acme", u="Sales")
    assert access(node, fresh) == allowed("alice", "carol")
    call_ok(alice, fresh, "removeUnit", o="Acme", u="Sales")
    assert access(node, fresh) == allowed("alice")


def test_common_name_added_and_removed(node: RunningNode, alice: httpx.Client, fresh: str) -> None:
    call_ok(alice, fresh, "addMember", o="Globex", u="Logistics", n="bob")
    assert access(node, fresh) == allowed("alice", "bob")
    # bob, now a member, transacts himself
    assert call_ok(node.client("bob"), fresh, "set", _x=8) == ["8"]
    call_ok(alice, fresh, "removeMember", o="Globex", u="Logistics", n="bob")
    assert access(node, fresh) == allowed("alice")
    assert state(alice, fresh).json()["x"] == "8"


def test_a_member_can_remove_the_last_member(
    node: RunningNode, alice: httpx.Client, fresh: str
) -> None:
    call_ok(alice, fresh, "removeMember", o="Acme", u="Engineering", n="alice")
    assert access(node, fresh) == allowed()
    assert fresh not in chain_ids(alice)


# ---------------------------------------------------------------------------- Cirrus


def test_cirrus_rows_of_a_chain_only_for_members(
    node: RunningNode, alice: httpx.Client, alice_address: str
) -> None:
    chain = create(
        alice,
        {
            "label": "rows",
            "src": ROW_SRC + GOV_SRC,
            "contract": "Gov",
            "args": {"_x": 1, "_tag": "rows"},
            "members": [{"orgName": "Acme"}],
            "balances": [{"address": alice_address, "balance": 1}],
            "metadata": {"VM": "SolidVM"},
        },
    )
    submit_on(alice, chain, upload_tx("ChainRow", ROW_SRC, {"_where": "private"}))
    deploy(alice, "ChainRow", ROW_SRC, {"_where": "main"})

    def rows(user: str) -> list[tuple[str, str]]:
        r = node.client(user).get("/cirrus/search/ChainRow", params={"order": "where"})
        assert r.status_code == 200, r.text
        return [(x["where"], x["chainId"]) for x in r.json()]

    assert rows("alice") == [("main", ""), ("private", chain)]
    assert rows("carol") == [("main", ""), ("private", chain)]
    assert rows("bob") == [("main", "")]
    assert rows("dave") == [("main", "")]
    # filtering by the chain does not reveal anything either
    r = node.client("bob").get("/cirrus/search/ChainRow", params={"chainId": f"eq.{chain}"})
    assert r.json() == []
    r = node.client("bob").get(
        "/cirrus/search/ChainRow", params={"select": "count", "chainId": f"eq.{chain}"}
    )
    assert r.json() == [{"count": 0}]
    # the membership event opens the rows to Globex, the removal closes them again
    call_ok(alice, chain, "addOrg", o="Globex")
    assert rows("bob") == [("main", ""), ("private", chain)]
    call_ok(alice, chain, "removeOrg", o="Globex")
    assert rows("bob") == [("main", "")]


def test_history_and_event_rows_of_a_chain_only_for_members(
    node: RunningNode, alice: httpx.Client, acme_chain: str
) -> None:
    call_ok(alice, acme_chain, "addOrg", o="Initech")
    call_ok(alice, acme_chain, "removeOrg", o="Initech")
    for table in ("history@Gov", "Gov.OrgAdded", "Gov.OrgRemoved"):
        mine = node.client("alice").get(f"/cirrus/search/{table}").json()
        assert mine, table
        theirs = node.client("bob").get(f"/cirrus/search/{table}").json()
        assert theirs == [], table


# ---------------------------------------------------------------------------- cross-chain


@pytest.fixture(scope="module")
def family(alice: httpx.Client, alice_address: str) -> dict[str, str]:
    """parent (Source x=42), child of parent (Reader), sibling (Source x=7), main Source x=9."""

    def make(label: str, contract: str, args: dict[str, Any], parent: str | None = None) -> str:
        body: dict[str, Any] = {
            "label": label,
            "src": CROSS_SRC,
            "contract": contract,
            "args": args,
            "members": [{"orgName": "Acme"}],
            "balances": [{"address": alice_address, "balance": 1}],
            "metadata": {"VM": "SolidVM"},
        }
        if parent:
            body["parentChain"] = parent
        return create(alice, body)

    parent = make("parent", "Source", {"_x": 42})
    child = make("child", "Reader", {}, parent)
    sibling = make("sibling", "Source", {"_x": 7})
    main_source = deploy(alice, "Source", CROSS_SRC, {"_x": 9})
    return {"parent": parent, "child": child, "sibling": sibling, "main": main_source}


def test_child_reads_its_parent_chain(alice: httpx.Client, family: dict[str, str]) -> None:
    # account(addr, "parent").get(), Source(account(addr, "parent")).get() and .x()
    for method in ("viaAccount", "viaContract", "viaGetter"):
        assert call_ok(alice, family["child"], method, t=GOV_ADDRESS) == ["42"], method


def test_child_reads_the_parent_by_its_id_and_the_main_chain(
    alice: httpx.Client, family: dict[str, str]
) -> None:
    assert call_ok(alice, family["child"], "readChain", t=GOV_ADDRESS, c=family["parent"]) == ["42"]
    assert call_ok(alice, family["child"], "readChain", t=family["main"], c="main") == ["9"]
    assert state(alice, family["child"], "Reader").json() == {"seen": "9"}


def test_child_cannot_write_to_its_parent(alice: httpx.Client, family: dict[str, str]) -> None:
    r = on_chain(alice, family["child"], "writeParent", {"t": GOV_ADDRESS, "v": 1})
    assert r.status_code == 422, r.text
    assert "read-only" in r.json() or "invalid write" in r.json()
    assert state(alice, family["parent"], "Source").json() == {"x": "42"}


@pytest.mark.parametrize("which", ["sibling", "child-from-parent"])
def test_unrelated_chains_are_inaccessible(
    alice: httpx.Client, family: dict[str, str], which: str
) -> None:
    if which == "sibling":
        r = on_chain(
            alice, family["child"], "readChain", {"t": GOV_ADDRESS, "c": family["sibling"]}
        )
    else:
        # a parent cannot read its child (only ancestors are readable): call Reader's logic
        # from the parent's point of view by deploying a Reader on the parent chain
        res = submit_on(alice, family["parent"], upload_tx("Reader", CROSS_SRC, {}))
        reader = res["data"]["contents"]["address"]
        r = on_chain(
            alice,
            family["parent"],
            "readChain",
            {"t": GOV_ADDRESS, "c": family["child"]},
            address=reader,
        )
    assert r.status_code == 422, r.text
    assert "inaccessible chain" in r.json()


# ---------------------------------------------------------------------------- restart


def test_members_and_chains_persist_across_a_restart(
    node: RunningNode, alice_address: str, family: dict[str, str]
) -> None:
    alice = node.client("alice")
    chain = create(
        alice,
        chain_body(
            alice_address,
            members=[{"orgName": "Acme", "orgUnit": "Engineering", "commonName": "alice"}],
            label="durable",
        ),
    )
    call_ok(alice, chain, "addOrg", o="Globex")
    call_ok(alice, chain, "addUnit", o="Acme", u="Sales")
    call_ok(alice, chain, "removeUnit", o="Acme", u="Sales")
    call_ok(alice, chain, "set", _x=31)
    submit_on(alice, chain, upload_tx("ChainRow", ROW_SRC, {"_where": "durable"}))
    before = info(alice, chain)
    lists = {u: chain_ids(node.client(u)) for u in ("alice", "bob", "carol")}
    node.restart()
    alice = node.client("alice")
    assert info(alice, chain) == before
    assert [m["orgName"] for m in before["members"]] == ["Acme", "Globex"]
    # the same chains for everyone (the order of the listing is not specified)
    after = {u: chain_ids(node.client(u)) for u in ("alice", "bob", "carol")}
    assert {u: sorted(ids) for u, ids in after.items()} == {
        u: sorted(ids) for u, ids in lists.items()
    }
    assert access(node, chain) == allowed("alice", "bob")
    assert state(alice, chain).json()["x"] == "31"
    # Cirrus visibility and the chain tree came back too
    r = node.client("bob").get("/cirrus/search/ChainRow", params={"chainId": f"eq.{chain}"})
    assert [x["where"] for x in r.json()] == ["durable"]
    r = node.client("carol").get("/cirrus/search/ChainRow", params={"chainId": f"eq.{chain}"})
    assert r.json() == []
    assert call_ok(alice, family["child"], "viaContract", t=GOV_ADDRESS) == ["42"]
    r = on_chain(alice, family["child"], "readChain", {"t": GOV_ADDRESS, "c": family["sibling"]})
    assert r.status_code == 422, r.text


def test_members_survive_a_kill_9(node: RunningNode, alice_address: str) -> None:
    alice = node.client("alice")
    chain = create(
        alice,
        chain_body(
            alice_address,
            members=[{"orgName": "Acme", "orgUnit": "Engineering", "commonName": "alice"}],
            label="killed",
        ),
    )
    call_ok(alice, chain, "addMember", o="Globex", u="Logistics", n="bob")
    call_ok(alice, chain, "addUnit", o="Acme", u="Sales")
    call_ok(alice, chain, "removeUnit", o="Acme", u="Sales")
    before = info(alice, chain)
    node.kill9()
    node.restart()
    assert info(node.client("alice"), chain) == before
    assert access(node, chain) == allowed("alice", "bob")
