"""The generated asset application over real HTTP (seed 001 "Asset shards", reference §5).

The demo application CarDemo (asset ``car``: vin, color, model strings; weight int), created by
alice, at ``/apps/CarDemo/car``: creation, listing, the three ways to read one car, visibility per
shard membership, updates and the ``_scheme`` bitmap, ownership transfers, audit history,
validation errors, the identity routes, the Cirrus table, and ``python -m app.node apps add`` with
JSON and TOML definitions on a stopped and on a running node. One node for the whole module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import HEX40, HEX64, RunningNode, call_tx

GOV = "0000000000000000000000000000000000000100"
BASE = "/apps/CarDemo/car"
USERS = ("alice", "bob", "carol", "dave")
FIELDS = ("vin", "color", "model", "weight")


# ---------------------------------------------------------------------------- helpers


def ok(r: httpx.Response) -> Any:
    assert r.status_code == 200, f"{r.status_code}: {r.text[:2000]}"
    body = r.json()
    assert body["success"] is True, body
    return body["data"]


def failed(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, f"{r.status_code}: {r.text[:2000]}"
    body: dict[str, Any] = r.json()
    assert body["success"] is False, body
    assert isinstance(body["error"], str) and body["error"]
    return body


def make_car(client: httpx.Client, vin: str, **fields: Any) -> str:
    """POST /car with {carArgs: ...}; returns the shard (chain) id."""
    args = {"vin": vin, "color": "red", "model": "T", "weight": 1000, **fields}
    data = ok(client.post(BASE, json={"carArgs": args}))
    (chain,) = data["chainIds"]
    assert HEX64.match(chain)
    return str(chain)


def get_car(client: httpx.Client, chain: str) -> httpx.Response:
    return client.get(f"{BASE}/{chain}")


def car(client: httpx.Client, chain: str) -> dict[str, Any]:
    out: dict[str, Any] = ok(get_car(client, chain))
    return out


def fields_of(row: dict[str, Any]) -> dict[str, Any]:
    return {f: row[f] for f in FIELDS}


def listed(client: httpx.Client, **params: Any) -> list[str]:
    data = ok(client.get(BASE, params=params))
    assert data["total"] >= len(data["cars"])
    return [c["chainId"] for c in data["cars"]]


def sees(node: RunningNode, chain: str) -> dict[str, bool]:
    """Whether each demo user sees the car: by id (200/404) and in the list, consistently."""
    out = {}
    for u in USERS:
        c = node.client(u)
        r = get_car(c, chain)
        assert r.status_code in (200, 404), r.text
        in_list = chain in listed(c)
        assert in_list == (r.status_code == 200), u
        out[u] = in_list
    return out


def visible_to(*users: str) -> dict[str, bool]:
    return {u: u in users for u in USERS}


def update(client: httpx.Client, chain: str, **updates: Any) -> httpx.Response:
    return client.put(f"{BASE}/update", json={"address": GOV, "chainId": chain, "updates": updates})


def transfer(client: httpx.Client, chain: str, new_owner: str) -> httpx.Response:
    return client.post(
        f"{BASE}/transferOwnership", json={"address": GOV, "chainId": chain, "newOwner": new_owner}
    )


def contract_state(client: httpx.Client, chain: str) -> dict[str, Any]:
    r = client.get(f"/bloc/v2.2/contracts/Car/{GOV}/state", params={"chainid": chain})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


# ---------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def addresses(node: RunningNode) -> dict[str, str]:
    return {u: node.address(u) for u in ("alice", "bob", "carol", "admin")}


@pytest.fixture(scope="module")
def demo(node: RunningNode) -> dict[str, Any]:
    apps = ok(node.client("alice").get("/apps"))
    (app,) = [a for a in apps if a["name"] == "CarDemo"]
    out: dict[str, Any] = app
    return out


@pytest.fixture(scope="module")
def alice_car(node: RunningNode) -> str:
    return make_car(node.client("alice"), "VIN-ALICE", color="blue", model="S", weight=1500)


# ---------------------------------------------------------------------------- the demo app


def test_demo_application_is_deployed_by_alice(
    node: RunningNode, demo: dict[str, Any], addresses: dict[str, str]
) -> None:
    assert demo["assets"] == [
        {
            "name": "car",
            "fields": {"vin": "string", "color": "string", "model": "string", "weight": "int"},
        }
    ]
    assert demo["creator"] == "alice"
    assert demo["organization"] == "Acme"
    assert HEX40.match(demo["address"])
    assert HEX64.match(demo["realmChainId"])
    r = node.client("alice").get(f"/bloc/v2.2/contracts/CarDemo/{demo['address']}/state")
    assert r.status_code == 200, r.text
    assert r.json()["owner"] == addresses["alice"]
    assert r.json()["appName"] == "CarDemo"


def test_create_with_car_args(
    node: RunningNode, demo: dict[str, Any], addresses: dict[str, str]
) -> None:
    data = ok(
        node.client("alice").post(
            BASE,
            json={"carArgs": {"vin": "V-1", "color": "red", "model": "X", "weight": 900}},
        )
    )
    (chain,) = data["chainIds"]
    assert data["name"] == "Car"
    assert data["address"] == GOV
    assert data["id"] == f"{GOV}:{chain}"
    row = car(node.client("alice"), chain)
    assert fields_of(row) == {"vin": "V-1", "color": "red", "model": "X", "weight": 900}
    assert row["owner"] == addresses["alice"]
    assert row["ownerOrganization"] == "Acme"
    assert row["ownerOrganizationalUnit"] == "Engineering"
    assert row["ownerCommonName"] == "alice"
    assert row["appChainId"] == demo["realmChainId"]
    assert row["address"] == GOV
    assert row["chainId"] == chain
    assert row["record_id"] == f"{GOV}:{chain}"
    # the shard: its governance contract is the car, its parent the application realm
    r = node.client("alice").get("/bloc/v2.2/chain", params={"chainid": chain})
    assert r.status_code == 200, r.text
    assert r.json()[0]["info"]["parentChain"] == demo["realmChainId"]
    assert r.json()[0]["info"]["codeInfo"][0]["name"] == "Car"


def test_create_with_a_flat_body(node: RunningNode) -> None:
    data = ok(
        node.client("carol").post(
            BASE, json={"vin": "V-FLAT", "color": "green", "model": "Y", "weight": 1200}
        )
    )
    (chain,) = data["chainIds"]
    row = car(node.client("carol"), chain)
    assert fields_of(row) == {"vin": "V-FLAT", "color": "green", "model": "Y", "weight": 1200}
    assert row["ownerCommonName"] == "carol"
    assert row["ownerOrganizationalUnit"] == "Sales"


def test_list_has_cars_and_total(node: RunningNode, alice_car: str) -> None:
    alice = node.client("alice")
    data = ok(alice.get(BASE))
    assert set(data) == {"cars", "total"}
    assert data["total"] == len(data["cars"])
    assert alice_car in [c["chainId"] for c in data["cars"]]
    page = ok(alice.get(BASE, params={"limit": 1}))
    assert len(page["cars"]) == 1
    assert page["total"] == data["total"]
    assert listed(alice, vin="VIN-ALICE") == [alice_car]
    assert listed(alice, vin="NO-SUCH-VIN") == []


def test_list_filters_sort_and_paging(node: RunningNode) -> None:
    carol = node.client("carol")
    chains = {w: make_car(carol, f"PAGE-{w}", color="Magenta", weight=w) for w in (30, 10, 20)}
    data = ok(carol.get(BASE, params={"vin": "like.PAGE-*", "sort": "-weight"}))
    assert [c["weight"] for c in data["cars"]] == [30, 20, 10]
    assert data["total"] == 3
    data = ok(
        carol.get(BASE, params={"vin": "like.PAGE-*", "sort": "+weight", "offset": 1, "limit": 1})
    )
    assert [c["chainId"] for c in data["cars"]] == [chains[20]]
    assert data["total"] == 3
    data = ok(carol.get(BASE, params={"queryValue": "magenta", "queryFields": "color"}))
    assert sorted(c["chainId"] for c in data["cars"]) == sorted(chains.values())
    assert listed(carol, weight="gt.25", vin="like.PAGE-*") == [chains[30]]
    failed(carol.get(BASE, params={"sort": "-nonsense"}), 400)
    failed(carol.get(BASE, params={"limit": "many"}), 400)
    failed(carol.get(BASE, params={"wheels": "4"}), 400)
    # bob sees none of them
    assert ok(node.client("bob").get(BASE, params={"vin": "like.PAGE-*"})) == {
        "cars": [],
        "total": 0,
    }


def test_three_ways_to_read_one_car(node: RunningNode, alice_car: str) -> None:
    alice = node.client("alice")
    by_chain = car(alice, alice_car)
    by_record = ok(alice.get(f"{BASE}/{GOV}:{alice_car}"))
    by_path = ok(alice.get(f"{BASE}/{GOV}/{alice_car}"))
    assert by_chain == by_record == by_path
    assert fields_of(by_chain) == {
        "vin": "VIN-ALICE",
        "color": "blue",
        "model": "S",
        "weight": 1500,
    }


def test_only_members_of_the_shard_see_the_car(node: RunningNode, alice_car: str) -> None:
    assert sees(node, alice_car) == visible_to("alice", "carol")
    bob = node.client("bob")
    for path in (f"{BASE}/{alice_car}", f"{BASE}/{GOV}:{alice_car}", f"{BASE}/{GOV}/{alice_car}"):
        failed(bob.get(path), 404)
    failed(bob.get(f"{BASE}/{alice_car}/audit"), 404)


# ---------------------------------------------------------------------------- updates


def test_update_changes_exactly_the_given_fields(node: RunningNode) -> None:
    alice = node.client("alice")
    chain = make_car(alice, "V-UPD", color="red", model="T", weight=1000)
    for updates in (
        {"color": "black"},
        {"model": "Z", "weight": 2000},
        {"vin": "V-NEW", "weight": 1},
        {"vin": "V-ALL", "color": "white", "model": "A", "weight": 3000},
        {"weight": -5},
    ):
        before = fields_of(car(alice, chain))
        assert ok(update(alice, chain, **updates)) == ["200"]
        after = fields_of(car(alice, chain))
        assert after == {**before, **updates}, updates
        st = contract_state(alice, chain)
        assert {f: st[f] for f in FIELDS} == {
            k: str(v) if k == "weight" else v for k, v in after.items()
        }


def test_update_by_id_form(node: RunningNode) -> None:
    alice = node.client("alice")
    chain = make_car(alice, "V-ID")
    ok(alice.put(f"{BASE}/update", json={"id": f"{GOV}:{chain}", "updates": {"color": "teal"}}))
    assert car(alice, chain)["color"] == "teal"


def test_update_scheme_leftmost_bit_is_the_first_field(node: RunningNode) -> None:
    # seed 001: _scheme read as a binary string in field order, leftmost bit = first field
    alice = node.client("alice")
    old = {"vin": "V-SCH", "color": "red", "model": "T", "weight": 1000}
    new = {"_vin": "V-2", "_color": "gold", "_model": "M2", "_weight": 7}
    cases: list[tuple[int, tuple[str, ...]]] = [
        (0b0110, ("color", "model")),
        (0b1000, ("vin",)),
        (0b0001, ("weight",)),
        (0b1001, ("vin", "weight")),
        (0b0000, ()),
    ]
    for scheme, changed in cases:
        chain = make_car(alice, "V-SCH", color="red", model="T", weight=1000)
        r = alice.post(
            "/svc/v2.3/transaction",
            params={"resolve": "true", "chainid": chain},
            json={
                "txs": [call_tx(GOV, "update", {**new, "_scheme": scheme}, name="Car")],
                "txParams": {},
            },
        )
        assert r.status_code == 200, r.text
        assert r.json()[0]["data"]["contents"] == ["200"]
        expected = {f: (new[f"_{f}"] if f in changed else v) for f, v in old.items()}
        assert fields_of(car(alice, chain)) == expected, f"{scheme:04b}"


def test_update_by_a_non_owner_is_refused(node: RunningNode, alice_car: str) -> None:
    before = fields_of(car(node.client("alice"), alice_car))
    failed(update(node.client("carol"), alice_car, color="pink"), 403)  # member, not owner
    failed(update(node.client("bob"), alice_car, color="pink"), 404)  # not even a member
    r = update(node.client("dave"), alice_car, color="pink")
    assert 400 <= r.status_code < 500, r.text
    assert r.json()["success"] is False
    assert fields_of(car(node.client("alice"), alice_car)) == before


# ---------------------------------------------------------------------------- ownership


def test_transfer_by_user_name_moves_the_shard_to_the_new_owner(
    node: RunningNode, addresses: dict[str, str]
) -> None:
    alice, bob = node.client("alice"), node.client("bob")
    chain = make_car(alice, "V-TO-BOB")
    assert ok(transfer(alice, chain, "bob")) == ["200"]
    assert sees(node, chain) == visible_to("bob")
    row = car(bob, chain)
    assert row["owner"] == addresses["bob"]
    assert row["ownerOrganization"] == "Globex"
    assert row["ownerOrganizationalUnit"] == "Logistics"
    assert row["ownerCommonName"] == "bob"
    assert fields_of(row) == {"vin": "V-TO-BOB", "color": "red", "model": "T", "weight": 1000}
    # the new owner updates it; the former owner cannot any more
    ok(update(bob, chain, color="orange"))
    assert car(bob, chain)["color"] == "orange"
    failed(update(alice, chain, color="grey"), 404)
    failed(transfer(alice, chain, "alice"), 404)


def test_transfer_by_address_and_back_to_the_original_organization(
    node: RunningNode, addresses: dict[str, str]
) -> None:
    alice, bob = node.client("alice"), node.client("bob")
    chain = make_car(alice, "V-ADDR")
    assert ok(transfer(alice, chain, addresses["bob"])) == ["200"]
    assert sees(node, chain) == visible_to("bob")
    assert ok(transfer(bob, chain, "0x" + addresses["carol"].upper())) == ["200"]
    assert sees(node, chain) == visible_to("alice", "carol")
    assert car(alice, chain)["owner"] == addresses["carol"]


def test_transfer_within_the_organization_keeps_the_members(
    node: RunningNode, addresses: dict[str, str]
) -> None:
    alice, carol = node.client("alice"), node.client("carol")
    chain = make_car(alice, "V-IN-ORG")
    assert ok(transfer(alice, chain, "carol")) == ["200"]
    assert sees(node, chain) == visible_to("alice", "carol")
    assert car(alice, chain)["owner"] == addresses["carol"]
    failed(update(alice, chain, color="x"), 403)
    ok(update(carol, chain, color="y"))


def test_transfer_refusals(node: RunningNode, alice_car: str, addresses: dict[str, str]) -> None:
    failed(transfer(node.client("carol"), alice_car, "carol"), 403)  # not the owner
    failed(transfer(node.client("bob"), alice_car, "bob"), 404)  # not a member
    body = failed(transfer(node.client("alice"), alice_car, "dave"), 404)  # no identity
    assert "identity" in body["error"]
    assert car(node.client("alice"), alice_car)["owner"] == addresses["alice"]
    assert sees(node, alice_car) == visible_to("alice", "carol")


# ---------------------------------------------------------------------------- audit


def test_audit_has_one_history_row_per_change(node: RunningNode) -> None:
    alice = node.client("alice")
    chain = make_car(alice, "V-AUD", color="c0", weight=10)
    ok(update(alice, chain, color="c1"))
    ok(update(alice, chain, weight=11))
    ok(update(alice, chain, color="c3", model="m3"))
    rows = ok(alice.get(f"{BASE}/{chain}/audit"))
    assert [(r["color"], r["model"], r["weight"]) for r in rows] == [
        ("c0", "T", 10),  # creation
        ("c1", "T", 10),
        ("c1", "T", 11),
        ("c3", "m3", 11),
    ]
    assert {r["chainId"] for r in rows} == {chain}
    assert len({r["transaction_hash"] for r in rows}) == 4
    assert ok(alice.get(f"{BASE}/{GOV}/{chain}/audit")) == rows
    assert ok(alice.get(f"{BASE}/{GOV}:{chain}/audit")) == rows
    assert ok(node.client("carol").get(f"{BASE}/{chain}/audit")) == rows


# ---------------------------------------------------------------------------- validation


def bad_requests(chain: str) -> list[tuple[str, str, str, Any, str]]:
    """(what, method, path, json body, action in the error)."""
    full = {"vin": "V", "color": "c", "model": "m", "weight": 1}
    upd, xfer = f"{BASE}/update", f"{BASE}/transferOwnership"
    c, u, t = "Create", "Update", "Transfer Ownership"
    return [
        ("create null field", "POST", BASE, {"carArgs": {**full, "weight": None}}, c),
        ("create missing field", "POST", BASE, {"carArgs": {"vin": "V", "color": "c"}}, c),
        ("create int as string", "POST", BASE, {"carArgs": {**full, "weight": "heavy"}}, c),
        ("create string as int", "POST", BASE, {"carArgs": {**full, "vin": 5}}, c),
        ("create unknown field", "POST", BASE, {"carArgs": {**full, "wheels": 4}}, c),
        ("create args not object", "POST", BASE, {"carArgs": ["V"]}, c),
        ("create body array", "POST", BASE, [full], c),
        ("update no chain", "PUT", upd, {"updates": {"color": "x"}}, u),
        ("update bad chain", "PUT", upd, {"chainId": "zz", "updates": {"color": "x"}}, u),
        ("update no fields", "PUT", upd, {"chainId": chain, "updates": {}}, u),
        ("update bad type", "PUT", upd, {"chainId": chain, "updates": {"weight": "x"}}, u),
        ("update unknown field", "PUT", upd, {"chainId": chain, "updates": {"owner": "x"}}, u),
        ("transfer no chain", "POST", xfer, {"newOwner": "bob"}, t),
        ("transfer no owner", "POST", xfer, {"chainId": chain}, t),
        ("transfer bad owner", "POST", xfer, {"chainId": chain, "newOwner": "nobody"}, t),
    ]


def test_validation_failures_are_400_with_the_action_and_details(
    node: RunningNode, alice_car: str
) -> None:
    alice = node.client("alice")
    before_cars = listed(alice)
    before_state = contract_state(alice, alice_car)
    for what, method, path, body, action in bad_requests(alice_car):
        r = alice.request(method, path, json=body)
        out = failed(r, 400)
        assert out["error"] == f"{action} Car Argument Validation Error", what
        assert out["details"].startswith("Missing args or bad format"), what
    assert listed(alice) == before_cars
    assert contract_state(alice, alice_car) == before_state


def test_unknown_application_or_asset_is_404(node: RunningNode) -> None:
    alice = node.client("alice")
    failed(alice.get("/apps/NoSuchApp/car"), 404)
    failed(alice.get("/apps/CarDemo/truck"), 404)
    failed(alice.post("/apps/CarDemo/truck", json={"truckArgs": {}}), 404)


def test_asset_routes_need_a_token(node: RunningNode) -> None:
    r = node.client(None).get(BASE)
    assert r.status_code == 401, r.text


# ---------------------------------------------------------------------------- identities


def test_user_me(node: RunningNode, addresses: dict[str, str]) -> None:
    me = ok(node.client("alice").get("/apps/CarDemo/user/me"))
    assert me["preferred_username"] == "alice"
    assert me["userAddress"] == addresses["alice"]
    assert me["commonName"] == "alice"
    assert me["organization"] == "Acme"
    assert me["organizationalUnit"] == "Engineering"
    assert me["isValid"] is True


def test_user_me_without_identity_is_400(node: RunningNode) -> None:
    failed(node.client("dave").get("/apps/CarDemo/user/me"), 400)


def test_user_lists_every_identity(node: RunningNode, addresses: dict[str, str]) -> None:
    rows = ok(node.client("bob").get("/apps/CarDemo/user"))
    by_address = {r["userAddress"]: r for r in rows}
    for u in ("alice", "bob", "carol", "admin"):
        assert by_address[addresses[u]]["commonName"] == u
    assert by_address[addresses["bob"]]["organization"] == "Globex"
    assert by_address[addresses["admin"]]["organization"] == "BlockApps"
    assert node.address("dave") not in by_address


def test_user_by_address(node: RunningNode, addresses: dict[str, str]) -> None:
    row = ok(node.client("alice").get(f"/apps/CarDemo/user/{addresses['carol']}"))
    assert (row["commonName"], row["organization"], row["organizationalUnit"]) == (
        "carol",
        "Acme",
        "Sales",
    )
    assert ok(node.client("alice").get(f"/apps/CarDemo/user/0x{addresses['carol']}")) == row
    failed(node.client("alice").get(f"/apps/CarDemo/user/{'12' * 20}"), 404)


# ---------------------------------------------------------------------------- Cirrus


def test_cirrus_table_of_the_asset(node: RunningNode, alice_car: str) -> None:
    r = node.client("alice").get(
        "/cirrus/search/Acme-CarDemo-Car", params={"chainId": f"eq.{alice_car}"}
    )
    assert r.status_code == 200, r.text
    (row,) = r.json()
    assert row["vin"] == "VIN-ALICE"
    assert row["record_id"] == f"{GOV}:{alice_car}"
    r = node.client("bob").get(
        "/cirrus/search/Acme-CarDemo-Car", params={"chainId": f"eq.{alice_car}"}
    )
    assert r.status_code == 200, r.text
    assert r.json() == []
    r = node.client("alice").get(
        "/cirrus/search/history@Acme-CarDemo-Car", params={"chainId": f"eq.{alice_car}"}
    )
    assert r.status_code == 200, r.text
    assert len(r.json()) >= 1


# ---------------------------------------------------------------------------- realm membership


def test_other_organizations_join_the_application_through_the_realm(
    node: RunningNode, demo: dict[str, Any]
) -> None:
    bob = node.client("bob")
    args = {"carArgs": {"vin": "V-BOB", "color": "c", "model": "m", "weight": 1}}
    failed(bob.post(BASE, json=args), 403)
    # alice, owner of the application, adds Globex through the realm's governance contract
    r = node.client("alice").post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": demo["realmChainId"]},
        json={"txs": [call_tx(GOV, "addOrg", {"_orgName": "Globex"})], "txParams": {}},
    )
    assert r.status_code == 200, r.text
    assert r.json()[0]["data"]["contents"] == ["200"]
    data = ok(bob.post(BASE, json=args))
    (chain,) = data["chainIds"]
    assert sees(node, chain) == visible_to("bob")
    assert car(bob, chain)["ownerOrganization"] == "Globex"


# ---------------------------------------------------------------------------- CLI: apps add

BIKE_JSON = """{"name": "BikeShop", "assets": [{"name": "bike",
  "fields": {"serial": "string", "gears": "uint", "electric": "bool"}}]}"""

BOAT_TOML = """name = "Marina"

[[assets]]
name = "boat"

[assets.fields]
hull = "string"
length = "int"
"""


BAD_DEFINITIONS = {
    "json-syntax": ("broken.json", '{"name": "X", "assets": [', "not valid"),
    "toml-syntax": ("broken.toml", 'name = "X"\n[[assets]\n', "not valid"),
    "not-object": ("array.json", '[{"name": "X"}]', "must be an object"),
    "bad-name": (
        "space.json",
        '{"name": "Bad App", "assets": [{"name": "a", "fields": {"f": "int"}}]}',
        "name must be an identifier",
    ),
    "no-assets": ("noassets.json", '{"name": "NoAssets", "assets": []}', "assets"),
    "bad-type": (
        "type.json",
        '{"name": "T1", "assets": [{"name": "a", "fields": {"f": "float"}}]}',
        "unknown type",
    ),
    "reserved": (
        "reserved.toml",
        'name = "T2"\n[[assets]]\nname = "a"\n[assets.fields]\nowner = "string"\n',
        "reserved",
    ),
    "no-fields": (
        "nofields.json",
        '{"name": "T3", "assets": [{"name": "a", "fields": {}}]}',
        "fields",
    ),
}


def test_bad_definition_files_exit_2(node: RunningNode, tmp_path: Path) -> None:
    before = node.cli("apps", "list").stdout
    for what, (name, text, message) in BAD_DEFINITIONS.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        proc = node.cli("apps", "add", str(path), check=False)
        assert proc.returncode == 2, f"{what}: {proc.returncode} {proc.stderr}"
        assert proc.stderr.startswith("stratoscope-node: "), what
        assert message in proc.stderr, f"{what}: {proc.stderr}"
        assert proc.stdout == "", what
    proc = node.cli("apps", "add", str(tmp_path / "absent.json"), check=False)
    assert proc.returncode == 2
    assert "cannot read" in proc.stderr
    assert node.cli("apps", "list").stdout == before


def test_apps_add_json_on_a_running_node(node: RunningNode, tmp_path: Path) -> None:
    path = tmp_path / "bike.json"
    path.write_text(BIKE_JSON, encoding="utf-8")
    proc = node.cli("apps", "add", str(path))
    assert proc.stdout.startswith("application BikeShop created at "), proc.stdout
    assert "BikeShop" in node.cli("apps", "list").stdout
    alice = node.client("alice")
    app = next(a for a in ok(alice.get("/apps")) if a["name"] == "BikeShop")
    assert app["assets"] == [
        {"name": "bike", "fields": {"serial": "string", "gears": "uint", "electric": "bool"}}
    ]
    data = ok(
        alice.post(
            "/apps/BikeShop/bike",
            json={"bikeArgs": {"serial": "S1", "gears": 21, "electric": True}},
        )
    )
    (chain,) = data["chainIds"]
    row = ok(alice.get(f"/apps/BikeShop/bike/{chain}"))
    assert (row["serial"], row["gears"], row["electric"]) == ("S1", 21, True)
    ok(alice.put("/apps/BikeShop/bike/update", json={"chainId": chain, "updates": {"gears": 3}}))
    assert ok(alice.get(f"/apps/BikeShop/bike/{chain}"))["gears"] == 3
    assert [b["chainId"] for b in ok(alice.get("/apps/BikeShop/bike"))["bikes"]] == [chain]
    r = alice.get("/cirrus/search/Acme-BikeShop-Bike")
    assert [x["chainId"] for x in r.json()] == [chain]
    failed(node.client("bob").get(f"/apps/BikeShop/bike/{chain}"), 404)
    # the same name again is refused
    proc = node.cli("apps", "add", str(path), check=False)
    assert proc.returncode != 0
    assert "already exists" in proc.stderr


def test_apps_add_toml_on_a_stopped_node(node: RunningNode, tmp_path: Path) -> None:
    path = tmp_path / "marina.toml"
    path.write_text(BOAT_TOML, encoding="utf-8")
    node.stop()
    try:
        proc = node.cli("apps", "add", str(path), "--user", "bob")
        assert proc.stdout.startswith("application Marina created at "), proc.stdout
        assert "Marina" in node.cli("apps", "list").stdout
    finally:
        node.restart()
    bob = node.client("bob")
    app = next(a for a in ok(bob.get("/apps")) if a["name"] == "Marina")
    assert app["creator"] == "bob"
    assert app["organization"] == "Globex"
    data = ok(bob.post("/apps/Marina/boat", json={"boatArgs": {"hull": "wood", "length": 12}}))
    (chain,) = data["chainIds"]
    assert ok(bob.get(f"/apps/Marina/boat/{chain}"))["hull"] == "wood"
    r = bob.get("/cirrus/search/Globex-Marina-Boat")
    assert [x["chainId"] for x in r.json()] == [chain]
    # alice (Acme) is not a member of the Globex realm
    failed(node.client("alice").post("/apps/Marina/boat", json={"hull": "x", "length": 1}), 403)
    # the demo application survived the restart too
    assert ok(node.client("alice").get(BASE))["total"] >= 1
