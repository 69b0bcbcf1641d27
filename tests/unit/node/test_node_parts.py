"""Unit tests of the node's self-contained parts: store migrations, vault, users, chains, appgen."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from app.node.appgen import DEMO_APP, DefinitionError, app_source, parse_definition
from app.node.chains import Chain, Member, parse_member
from app.node.errors import ApiError
from app.node.solidvm import TxEnv, World, compile_source
from app.node.store import MIGRATIONS, Store
from app.node.users import UserError, UserStore, hash_password, verify_password
from app.node.vault import Vault, address_of_pubkey, load_node_secret

# ------------------------------------------------------------------ store


def test_fresh_store_is_at_the_latest_schema(tmp_path: Path) -> None:
    store = Store(tmp_path)
    assert store.schema_version == len(MIGRATIONS)
    tables = {r[0] for r in store.all("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"users", "keys", "blocks", "txs", "contracts", "chains", "apps"} <= tables
    assert store.one("PRAGMA journal_mode")[0] == "wal"  # type: ignore[index]
    store.close()


def test_savepoint_journal_stays_in_memory(tmp_path: Path) -> None:
    """A block's Cirrus rows are written under savepoints: their statement journal must not
    spill to a temporary file (a write per page, most of a block's indexing time)."""
    store = Store(tmp_path)
    assert store.db.execute("PRAGMA temp_store").fetchone()[0] == 2  # MEMORY
    store.close()


def test_reopening_does_not_migrate_twice(tmp_path: Path) -> None:
    Store(tmp_path).close()
    store = Store(tmp_path)
    assert store.schema_version == len(MIGRATIONS)
    store.close()


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    Store(tmp_path).close()
    db = sqlite3.connect(tmp_path / "node.sqlite3")
    db.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    db.commit()
    db.close()
    with pytest.raises(RuntimeError, match="schema version 999"):
        Store(tmp_path)


def test_transaction_rolls_back_on_error(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with pytest.raises(ValueError), store.transaction():
        store.set_meta("x", "1")
        raise ValueError("boom")
    assert store.get_meta("x") is None
    store.close()


# ------------------------------------------------------------------ vault


def test_node_secret_is_private_and_stable(tmp_path: Path) -> None:
    a = load_node_secret(tmp_path)
    assert len(a) == 32
    assert stat.S_IMODE((tmp_path / "node-secret").stat().st_mode) == 0o600
    assert load_node_secret(tmp_path) == a


def test_damaged_node_secret_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "node-secret").write_bytes(b"short")
    with pytest.raises(ValueError, match="damaged"):
        load_node_secret(tmp_path)


def test_sealed_keys_only_open_with_the_same_secret(tmp_path: Path) -> None:
    vault = Vault(b"k" * 32)
    address, pubkey, sealed = vault.new_key()
    assert len(address) == 40 and pubkey.startswith("04") and len(pubkey) == 130
    assert address_of_pubkey(bytes.fromhex(pubkey)) == address
    assert len(vault.unseal(sealed)) == 32
    with pytest.raises(Exception):  # noqa: B017 - cryptography's InvalidTag
        Vault(b"x" * 32).unseal(sealed)


def test_address_derivation_matches_a_known_ethereum_vector() -> None:
    # private key 1: the generator point G; its Ethereum address is well known
    g = bytes.fromhex(
        "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
        "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
    )
    assert address_of_pubkey(g) == "7e5f4552091a69125d5dfcb7b8c2659029395bdf"


def test_signatures_recover_to_the_key(tmp_path: Path) -> None:
    from coincurve import PublicKey

    vault = Vault(b"s" * 32)
    _, pubkey, sealed = vault.new_key()
    digest = b"\x01" * 32
    sig = vault.sign(sealed, digest)
    recovered = PublicKey.from_signature_and_message(sig, digest, hasher=None)
    assert recovered.format(compressed=False).hex() == pubkey


# ------------------------------------------------------------------ users


def test_password_hashes_verify_and_differ() -> None:
    h1, h2 = hash_password("pw"), hash_password("pw")
    assert h1 != h2
    assert verify_password("pw", h1) and not verify_password("nope", h1)
    assert not verify_password("pw", "garbage")


@pytest.mark.parametrize(
    ("name", "org"), [("bad name", "Acme"), ("", "Acme"), ("ok", ""), ("x" * 65, "Acme")]
)
def test_invalid_users_are_refused(tmp_path: Path, name: str, org: str) -> None:
    store = Store(tmp_path)
    users = UserStore(store, Vault(b"v" * 32))
    with pytest.raises(UserError):
        users.add(name, org, "", "pw")
    store.close()


def test_users_and_oauth_clients(tmp_path: Path) -> None:
    store = Store(tmp_path)
    users = UserStore(store, Vault(b"v" * 32))
    generated = users.add("erin", "Acme", "Ops", None)
    assert len(generated) >= 12 and users.check_password("erin", generated)
    assert users.add("demo", "Acme", "", None, demo=True) == "demo"
    assert users.users_with_default_password() == ["demo"]
    users.set_password("demo", "better")
    assert users.users_with_default_password() == []
    with pytest.raises(UserError, match="already exists"):
        users.add("erin", "Acme", "", "x")
    users.ensure_clients()
    client_id, secret = users.node_client()
    assert users.client_subject(client_id, secret) == "admin"
    assert users.client_subject(client_id, secret + "x") is None
    assert users.client_subject(client_id, "é") is None
    assert users.client_exists("stratoscope-desktop")
    raw = (tmp_path / "node.sqlite3").read_bytes()
    assert secret.encode() not in raw  # sealed, never in plain text
    store.close()


# ------------------------------------------------------------------ chains


def cert(org: str, unit: str = "", cn: str = "") -> dict[str, str]:
    return {"organization": org, "organizationalUnit": unit, "commonName": cn}


def test_member_matching() -> None:
    assert Member("Acme").matches(cert("Acme", "Sales", "carol"))
    assert not Member("Acme", "Engineering").matches(cert("Acme", "Sales", "carol"))
    assert Member("Acme", "Sales", "carol").matches(cert("Acme", "Sales", "carol"))
    assert not Member("Acme", access=False).matches(cert("Acme"))
    assert Member().matches(cert("Anyone"))  # {access: true} alone is everyone


def test_membership_events() -> None:
    chain = Chain("c" * 64, "l", "", [Member("Acme", "Engineering")], [], {}, "x")
    assert chain.apply_event("OrganizationAdded", ["Globex"])
    assert chain.is_member(cert("Globex", "Logistics"))
    assert chain.apply_event("OrgRemoved", ["Acme"])  # removes unit-level entries too
    assert not chain.is_member(cert("Acme", "Engineering"))
    chain.apply_event("CommonNameAdded", ["Initech", "R&D", "dave"])
    assert chain.is_member(cert("Initech", "R&D", "dave"))
    assert not chain.is_member(cert("Initech", "R&D", "eve"))
    chain.apply_event("CommonNameRemoved", ["Initech", "R&D", "dave"])
    assert not chain.is_member(cert("Initech", "R&D", "dave"))
    assert not chain.apply_event("Transfer", ["x"])
    assert not chain.is_member(None)


@pytest.mark.parametrize(
    "bad", ["x", {"orgName": 5}, {"orgUnit": "u"}, {"orgName": "A", "access": "yes"}]
)
def test_bad_member_objects(bad: object) -> None:
    with pytest.raises(ApiError) as info:
        parse_member(bad, 3)
    assert info.value.status == 400 and "members[3]" in str(info.value.body)


# ------------------------------------------------------------------ asset application generator


def test_demo_definition_generates_a_compiling_collection() -> None:
    app = parse_definition(DEMO_APP)
    unit = compile_source(app_source(app))
    assert set(unit.names) == {"CarDemo", "Car"}
    car = unit.contracts["Car"]
    assert [n for n, _ in car.constructor.params] == [  # type: ignore[union-attr]
        "_appChainId",
        "_vin",
        "_color",
        "_model",
        "_weight",
    ]


@pytest.mark.parametrize(
    ("scheme", "changed"),
    [
        (0, set()),
        (8, {"vin"}),
        (6, {"color", "model"}),
        (1, {"weight"}),
        (15, {"vin", "color", "model", "weight"}),
    ],
)
def test_generated_update_follows_the_seed_bit_order(scheme: int, changed: set[str]) -> None:
    unit = compile_source(app_source(parse_definition(DEMO_APP)))
    world = World()
    alice = "a1" * 20
    world.register_identity(alice, {"commonName": "alice", "organization": "Acme"})
    env = TxEnv(sender=alice)
    car = world.deploy(
        unit.contracts["Car"],
        {"_appChainId": "r", "_vin": "v", "_color": "c", "_model": "m", "_weight": 1},
        env,
    ).address
    assert car is not None
    res = world.call(
        car,
        "update",
        {"_vin": "V", "_color": "C", "_model": "M", "_weight": 2, "_scheme": scheme},
        env,
    )
    assert res.values == ["200"]
    state = world.state(car)
    new = {"vin": "V", "color": "C", "model": "M", "weight": "2"}
    old = {"vin": "v", "color": "c", "model": "m", "weight": "1"}
    for f, value in new.items():
        assert state[f] == (value if f in changed else old[f])


@pytest.mark.parametrize(
    "bad",
    [
        {},
        {"name": "1bad", "assets": [{"name": "x", "fields": {"a": "int"}}]},
        {"name": "App", "assets": []},
        {"name": "App", "assets": [{"name": "x", "fields": {}}]},
        {"name": "App", "assets": [{"name": "x", "fields": {"a": "float"}}]},
        {"name": "App", "assets": [{"name": "x", "fields": {"owner": "string"}}]},
        {"name": "App", "assets": [{"name": "app", "fields": {"a": "int"}}]},
        {"name": "contract", "assets": [{"name": "x", "fields": {"a": "int"}}]},
    ],
)
def test_bad_definitions_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(DefinitionError):
        parse_definition(bad)


def test_definition_forms() -> None:
    a = parse_definition({"name": "Pets", "assets": {"dog": {"name": "string", "age": "int"}}})
    b = parse_definition(
        {
            "name": "Pets",
            "assets": [
                {
                    "name": "dog",
                    "fields": [
                        {"name": "name", "type": "text"},
                        {"name": "age", "type": "integer"},
                    ],
                }
            ],
        }
    )
    assert a == b
    assert a.assets[0].contract == "Dog"
