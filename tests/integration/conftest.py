"""Fixtures of the integration tests: one real sandbox node per test module.

``node`` is a node with gas off on a fresh data dir. A module that needs other flags overrides it
with ``make_node(tmp_path_factory, "--gas")`` (see test_gas.py). Modules that define their own
``node`` fixture (test_oidc.py) are unaffected.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.node_fixture import RunningNode


def make_node(factory: pytest.TempPathFactory, *flags: str, name: str = "node") -> RunningNode:
    """Start a node on a fresh data dir under pytest's temp dir."""
    base = factory.mktemp(name)
    return RunningNode(base / "data", *flags, log_dir=base).start()


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory)
    try:
        yield n
    finally:
        n.stop()
