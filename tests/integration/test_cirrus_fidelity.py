"""Cirrus as the platform serves it (issue 17, "Fidelity to the real services"), on a real node:
PostgREST 12's filter syntax (whitespace in groups and in-lists, empty ``in.()``, bare quotes,
backslash escapes, negative offsets) and the seed's spelling of an asset's table
(``<Org>-<App>-<AssetName>``: ``Acme-CarDemo-car``) beside the contract's (``Acme-CarDemo-Car``).
One node for the module."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, deploy

SEARCH = "/cirrus/search"
SRC = """
contract Person {
    string public name;
    uint public age;
    constructor(string _name, uint _age) public { name = _name; age = _age; }
}
"""
PEOPLE = [("Alice", 30), ("Bob", 41), ("David", 35), ('a"b', 50), ("Alice ", 60), ("", 70)]


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    client = node.client("alice")
    for name, age in PEOPLE:
        deploy(client, "Person", SRC, {"_name": name, "_age": age})
    return client


def get(client: httpx.Client, table: str, params: list[tuple[str, str]]) -> httpx.Response:
    return client.get(f"{SEARCH}/{table}", params=tuple(params))


def ages(client: httpx.Client, *params: tuple[str, str]) -> list[int]:
    r = get(client, "Person", [*params, ("order", "age.asc")])
    assert r.status_code == 200, r.text
    return [row["age"] for row in r.json()]


# ---------------------------------------------------------------------------- filters


def test_whitespace_inside_and_or_groups(alice: httpx.Client) -> None:
    assert ages(alice, ("or", "( name.eq.Bob, and ( age.gte.30 , age.lte.35 ) )")) == [30, 35, 41]
    assert ages(alice, ("not.and", " (age.gt.31,\tage.lt.60 ) ")) == [30, 60, 70]
    # an unquoted value runs up to the comma, its spaces included: "Alice " but not "Alice"
    assert ages(alice, ("or", "(name.eq.Alice ,name.eq.Bob)")) == [41, 60]


def test_whitespace_inside_in_lists(alice: httpx.Client) -> None:
    assert ages(alice, ("age", "in. ( 30 , 41 ) ")) == [30, 41]
    assert ages(alice, ("or", "(age.in.( 35,50 ) , name.eq.Bob)")) == [35, 41, 50]
    # after a comma the spaces belong to the item, as PostgREST reads it
    assert ages(alice, ("name", "in.(Bob, David)")) == [41]


def test_empty_in_list_matches_nothing(alice: httpx.Client) -> None:
    for value in ("in.()", "in.( )", 'in.("")'):
        assert ages(alice, ("age", value)) == [], value
        assert ages(alice, ("name", value)) == [], value
    assert ages(alice, ("age", "not.in.( )")) == [30, 35, 41, 50, 60, 70]
    assert ages(alice, ("or", "(age.in.( ),name.eq.Bob)")) == [41]


def test_bare_quote_inside_an_unquoted_in_value(alice: httpx.Client) -> None:
    assert ages(alice, ("name", 'in.(a"b,Bob)')) == [41, 50]
    assert ages(alice, ("or", '(name.in.(a"b),age.eq.30)')) == [30, 50]


def test_backslash_escapes_in_quoted_values(alice: httpx.Client) -> None:
    assert ages(alice, ("or", r'(name.eq."D\a\vid",age.eq.30)')) == [30, 35]
    assert ages(alice, ("name", r'in.("D\a\vid","a\"b")')) == [35, 50]


def test_negative_offset_is_ignored_as_postgrest_does(alice: httpx.Client) -> None:
    assert ages(alice, ("offset", "-4")) == [30, 35, 41, 50, 60, 70]
    # with a limit, the window [-1, 1) is clipped at the first row: one row
    r = get(alice, "Person", [("limit", "2"), ("offset", "-1"), ("order", "age.asc")])
    assert r.status_code == 200, r.text
    assert [row["age"] for row in r.json()] == [30]
    assert r.headers["content-range"] == "0-0/*"
    r = get(alice, "Person", [("limit", "1"), ("offset", "-5")])
    assert r.status_code == 416, r.text
    assert r.json()["code"] == "PGRST103"
    r = get(alice, "Person", [("offset", "-x")])
    assert r.status_code == 400 and "offset" in r.json()["message"], r.text


def test_bad_lists_are_still_clear_errors(alice: httpx.Client) -> None:
    for params in (
        [("age", "in.(30,41")],
        [("name", 'in.("x')],
        [("or", "(age.in.30,41)")],
        [("or", "(age.eq.30")],
        [("or", "(age.eq.30) x")],
    ):
        r = get(alice, "Person", params)
        assert r.status_code == 400, (params, r.text)
        body = r.json()
        assert body["code"] == "PGRST100" and "failed to parse" in body["message"], body


# ---------------------------------------------------------------------------- asset tables


@pytest.fixture(scope="module")
def car(node: RunningNode) -> str:
    client = node.client("alice")
    args = {"vin": "VIN-SEED", "color": "red", "model": "T", "weight": 1000}
    r = client.post("/apps/CarDemo/car", json={"carArgs": args})
    assert r.status_code == 200, r.text
    (chain,) = r.json()["data"]["chainIds"]
    return str(chain)


def rows(client: httpx.Client, table: str, *params: tuple[str, str]) -> Any:
    r = get(client, table, list(params))
    assert r.status_code == 200, f"{table}: {r.text}"
    return r.json()


def test_seed_spelling_of_the_asset_table(node: RunningNode, car: str) -> None:
    alice = node.client("alice")
    by_chain = ("chainId", f"eq.{car}")
    own = rows(alice, "Acme-CarDemo-Car", by_chain)
    assert [r["vin"] for r in own] == ["VIN-SEED"]
    assert rows(alice, "Acme-CarDemo-car", by_chain) == own
    assert rows(alice, "Acme-CarDemo-car", ("select", "count"), ("vin", "eq.VIN-SEED")) == [
        {"count": 1}
    ]
    assert rows(alice, "history@Acme-CarDemo-car", by_chain) == rows(
        alice, "history@Acme-CarDemo-Car", by_chain
    )
    # membership holds under either name: bob is not in the car's shard
    assert rows(node.client("bob"), "Acme-CarDemo-car", by_chain) == []
    # filters name the real columns, errors the real table
    r = get(alice, "Acme-CarDemo-car", [("nope", "eq.1")])
    assert r.status_code == 400 and r.json()["code"] == "42703", r.text
    # other spellings stay unknown
    for other in ("Acme-CarDemo-CAR", "acme-CarDemo-car", "Acme-cardemo-car"):
        assert get(alice, other, []).status_code == 404, other


def test_the_schema_document_lists_each_asset_table_once(node: RunningNode, car: str) -> None:
    r = node.client("alice").get(f"{SEARCH}/")
    assert r.status_code == 200, r.text
    names = set(r.json()["definitions"])
    assert "Acme-CarDemo-Car" in names
    assert "Acme-CarDemo-car" not in names
