"""Answers the fuzzer cannot provoke on a default node, checked against ``/openapi.json``.

A node that seals a block only every 2 s but waits at most 0.3 s for ``resolve=true`` answers
504, and a body over the node's 4 MiB answers 413: each must have a documented status and
match its schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from schemathesis.core.result import Ok

from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode
from tests.integration.test_openapi_fuzz import CHECKS

DOCUMENTED = [c for c in CHECKS if c.__name__ != "not_a_server_error"]  # 504 is one here


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--block-time", "2", "--resolve-timeout", "0.3")
    try:
        yield n
    finally:
        n.stop()


def _answer(node: RunningNode, label: str, **request: Any) -> int:
    """Send one request to the operation ``label`` and validate the answer; its status."""
    schema = schemathesis.openapi.from_dict(node.client().get("/openapi.json").json())
    op = next(
        r.ok() for r in schema.get_all_operations() if isinstance(r, Ok) and r.ok().label == label
    )
    headers = {"Authorization": f"Bearer {node.token('alice')}"}
    case = op.Case(**request)
    response = case.call(base_url=node.url, headers=headers, timeout=30)
    case.validate_response(response, checks=DOCUMENTED, headers=headers)
    return int(response.status_code)


def test_the_resolve_timeout_is_a_documented_504(node: RunningNode) -> None:
    tx = {"type": "TRANSFER", "payload": {"toAddress": "1" * 40, "value": 1}}
    status = _answer(
        node,
        "POST /strato/v2.3/transaction",
        query={"resolve": "true"},
        body={"txs": [tx]},
        media_type="application/json",
    )
    assert status == 504


def test_an_oversized_body_is_a_documented_413(node: RunningNode) -> None:
    status = _answer(
        node,
        "POST /bloc/v2.2/contracts/xabi",
        body={"src": "x" * (5 * 1024 * 1024)},  # the node takes 4 MiB
        media_type="application/json",
    )
    assert status == 413
