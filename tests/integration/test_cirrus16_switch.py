"""``serve --cirrus-names strato16``: the node serves only STRATO 16's Cirrus names, as a STRATO
16 node does (no ``<Contract>``, ``<Contract>.<Event>``, ``history@<Contract>``,
``<Org>-<App>-<Contract>``); the default serves both families. One node for the module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx

SEARCH = "/cirrus/search"

SRC = """
contract Nest {
    event Summed(uint total);
    uint public total;
    mapping(uint => uint) public parts;
    function f() public { total += 1; parts[total] = 5; emit Summed(total); }
}
"""


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--cirrus-names", "strato16")
    try:
        yield n
    finally:
        n.stop()


@pytest.fixture(scope="module")
def nest(node: RunningNode) -> tuple[httpx.Client, str]:
    alice = node.new_client("alice")
    res = submit(alice, upload_tx("Nest", SRC, {}, history="Nest"))
    assert res[0]["status"] == "Success", res
    address = str(res[0]["data"]["contents"]["address"])
    assert submit(alice, call_tx(address, "f", {}))[0]["status"] == "Success"
    return alice, address


def get(client: httpx.Client, table: str, params: dict[str, str] | None = None) -> Any:
    return client.get(f"{SEARCH}/{table}", params=params)


@pytest.mark.parametrize(
    "name",
    ["BlockApps-Nest", "BlockApps-Nest-Summed", "BlockApps-Nest-parts", "event", "storage"],
)
def test_strato16_names_answer(nest: tuple[httpx.Client, str], name: str) -> None:
    alice, address = nest
    r = get(alice, name, {"address": f"eq.{address}"})
    assert r.status_code == 200, r.text
    assert len(r.json()) >= 1


@pytest.mark.parametrize(
    "name", ["Nest", "Nest.Summed", "Nest-parts", "history@Nest", "Certificate"]
)
def test_seed_names_do_not(nest: tuple[httpx.Client, str], name: str) -> None:
    alice, _ = nest
    r = get(alice, name)
    assert r.status_code == 404, r.text
    assert r.json()["code"] == "42P01"
    assert r.json()["message"] == f'relation "public.{name}" does not exist'


def test_the_schema_lists_only_strato16_names(nest: tuple[httpx.Client, str]) -> None:
    alice, _ = nest
    r = alice.get(f"{SEARCH}/")
    assert r.status_code == 200
    names = set(r.json()["definitions"])
    assert {"storage", "contract", "mapping", "event", "BlockApps-Nest-Summed"} <= names
    assert not {"Nest", "Nest.Summed", "Nest-parts", "history@Nest", "Certificate"} & names
    assert all(n.startswith("BlockApps-") or "-" not in n for n in names)


def test_help_names_the_switch(node: RunningNode) -> None:
    out = node.cli("serve", "--help").stdout
    assert "--cirrus-names" in out and "strato16" in out


def test_seed_mode_writes_no_strato16_rows_and_a_later_start_rebuilds_them(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """``--cirrus-names seed``: only the seed's names, none of STRATO 16's rows written; started
    again with the default, the views answer with the rows of what happened meanwhile."""
    n = make_node(tmp_path_factory, "--cirrus-names", "seed", name="seedonly")
    try:
        alice = n.new_client("alice")
        res = submit(alice, upload_tx("Nest", SRC, {}, history="Nest"))
        assert res[0]["status"] == "Success", res
        address = str(res[0]["data"]["contents"]["address"])
        assert submit(alice, call_tx(address, "f", {}))[0]["status"] == "Success"
        assert get(alice, "Nest.Summed").json()[0]["total"] == "1"
        for name in ("BlockApps-Nest", "storage", "event"):
            r = get(alice, name)
            assert r.status_code == 404, r.text
            assert r.json()["code"] == "42P01"
        n.flags = []  # the default: both families
        n.restart()
        alice = n.new_client("alice")
        r = get(alice, "BlockApps-Nest", {"address": f"eq.{address}"})
        assert r.status_code == 200, r.text
        assert [row["total"] for row in r.json()] == [1]
        ev = get(alice, "BlockApps-Nest-Summed", {"address": f"eq.{address}"}).json()
        assert [row["total"] for row in ev] == [1]
        parts = get(alice, "BlockApps-Nest-parts", {"address": f"eq.{address}"}).json()
        assert [(row["key"], row["value"]) for row in parts] == [(1, 5)]
        # a second call is indexed as usual, once
        assert submit(alice, call_tx(address, "f", {}))[0]["status"] == "Success"
        ev = get(alice, "BlockApps-Nest-Summed", {"address": f"eq.{address}"}).json()
        assert sorted(row["total"] for row in ev) == [1, 2]
        # and seed mode again, then the default: nothing doubled
        n.flags = ["--cirrus-names", "seed"]
        n.restart()
        n.flags = []
        n.restart()
        alice = n.new_client("alice")
        ev = get(alice, "BlockApps-Nest-Summed", {"address": f"eq.{address}"}).json()
        assert sorted(row["total"] for row in ev) == [1, 2]
    finally:
        n.stop()
