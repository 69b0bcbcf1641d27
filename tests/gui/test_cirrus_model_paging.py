"""The lazy Cirrus model over a real node, jumping around a table: however the node reads a page
(the last pages from the far end with the order reversed, sorted pages sorting keys only), every
row the model shows is the row plain offset paging of the whole ordered result gives."""

from __future__ import annotations

from typing import Any

import pytest
import qasync

from app.client.cirrus_query import CirrusQuery, Order
from app.services.controller import AppController
from app.ui.panels.tables.cirrus_model import PAGE_SIZE, CirrusTableModel
from tests.gui.conftest import Family, connect, drive
from tests.integration.node_fixture import RunningNode

pytestmark = pytest.mark.cirrus_families  # the default sandbox and a STRATO 16-only one

ROWS = 2 * PAGE_SIZE + 70  # three pages, the last one short
TIE_SRC = "contract Tie { uint public v; constructor(uint _v) public { v = _v; } }"


@pytest.fixture(scope="module")
def table(family: Family) -> str:
    """The Tie contract's table: ``Tie``, or ``BlockApps-Tie`` on a STRATO 16-only node."""
    return family.contract("Tie")


@pytest.fixture(scope="module")
def ties(node: RunningNode) -> RunningNode:
    client = node.client("alice")
    for start in range(0, ROWS, 100):
        txs = [
            {
                "type": "CONTRACT",
                "payload": {
                    "contract": "Tie",
                    "src": TIE_SRC,
                    "args": {"_v": i % 4},  # many ties: the order is total only with rowid
                    "metadata": {"VM": "SolidVM"},
                },
            }
            for i in range(start, min(start + 100, ROWS))
        ]
        r = client.post("/svc/v2.3/transaction?resolve=true", json={"txs": txs})
        assert r.status_code == 200, r.text
    return node


@pytest.mark.parametrize("order", [[], [Order("v", desc=True)], [Order("v")]])
def test_rows_after_jumps_equal_plain_paging(
    ties: RunningNode,
    table: str,
    controller: AppController,
    loop: qasync.QEventLoop,
    order: list[Order],
) -> None:
    connect(loop, controller, ties, "alice")
    query = CirrusQuery(table, select=["address", "v"], order=order)
    # the whole result in one plain request from the start (read forward)
    whole: list[dict[str, Any]] = loop.run_until_complete(
        controller.cirrus.page(query, 0, 10 * ROWS)
    )
    assert len(whole) == ROWS
    model = CirrusTableModel(controller.cirrus, controller.tasks)
    model.set_query(query)
    drive(loop, lambda: model.total == ROWS)
    for row in (ROWS - 1, 0, PAGE_SIZE + 3, ROWS - 1 - PAGE_SIZE, ROWS // 2):  # jumps
        if model.row(row) is None:
            drive(loop, lambda row=row: model.row(row) is not None)  # type: ignore[misc]
    for row in range(ROWS):
        if model.row(row) is None:
            drive(loop, lambda row=row: model.row(row) is not None)  # type: ignore[misc]
        assert model.row(row) == whole[row], row
