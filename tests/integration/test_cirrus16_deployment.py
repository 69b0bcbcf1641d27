"""STRATO 16's Cirrus names after a deployment in the shape of the platform's ``Mercata``
(``tests/corpus/proxy_deploy``: 21 logic contracts, each behind a ``Proxy`` whose fallback
delegatecalls it): every ``BlockApps-<Logic>`` view lists its proxy with the proxy's storage, as
the platform's backend expects of ``BlockApps-LendingRegistry`` and the like. One node.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode, submit, upload_tx
from tests.integration.test_proxies import MANAGERS, sources

SEARCH = "/cirrus/search"


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, name="c16deploy")
    try:
        yield n
    finally:
        n.stop()


@pytest.fixture(scope="module")
def proxies(node: RunningNode) -> dict[str, str]:
    """The proxies' addresses by Deployment's variable."""
    alice = node.client("alice")
    res = submit(
        alice,
        upload_tx("Deployment", sources(), vm=None),
        route="/strato/v2.3/transaction/parallel",
    )
    assert res[0]["status"] == "Success", res
    address = str(res[0]["data"]["contents"]["address"])
    (row,) = search(node, "BlockApps-Deployment", address=f"eq.{address}")
    return {var: str(row[var]) for var in MANAGERS}


def search(node: RunningNode, table: str, **params: str) -> Any:
    r = node.client("alice").get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == 200, f"{table}: {r.status_code} {r.text[:500]}"
    return r.json()


@pytest.mark.parametrize("var", sorted(MANAGERS))
def test_each_logic_view_lists_its_proxy(
    node: RunningNode, proxies: dict[str, str], var: str
) -> None:
    logic = MANAGERS[var]
    proxy = proxies[var]
    (row,) = search(node, f"BlockApps-{logic}", address=f"eq.{proxy}")
    assert row["contract_name"] == logic and row["creator"] == "BlockApps"
    names = [r["contract_name"] for r in search(node, "contract", address=f"eq.{proxy}")]
    assert "Proxy" in names and logic in names


def test_the_proxies_and_their_logic(node: RunningNode, proxies: dict[str, str]) -> None:
    rows = search(node, "BlockApps-Proxy", select="address")
    assert set(proxies.values()) <= {r["address"] for r in rows}
    assert search(node, "contract", contract_name="eq.Proxy", select="count") == [{"count": 21}]
