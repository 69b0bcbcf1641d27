"""The lazy Cirrus table model against a real node: count, pages on demand, sorting, filters,
a bounded page cache, and errors in words (groundwork of issue 8's table viewer)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import QModelIndex, Qt
from pytestqt.modeltest import ModelTester

from app.client.cirrus_query import CirrusQuery, Condition, Group, Order
from app.services import cirrus as cirrus_service
from app.services.cirrus import CirrusExporter
from app.services.controller import AppController
from app.ui.panels.tables import cirrus_model
from app.ui.panels.tables.cirrus_model import LOADING, CirrusTableModel
from tests.gui.conftest import Family, connect, drive
from tests.integration.node_fixture import RunningNode

pytestmark = pytest.mark.cirrus_families  # the default sandbox and a STRATO 16-only one

ROWS = 650
ROW_SRC = "contract Row { uint public v; constructor(uint _v) public { v = _v; } }"


@pytest.fixture(scope="module")
def table(family: Family) -> str:
    """The Row contract's table: ``Row``, or ``BlockApps-Row`` on a STRATO 16-only node."""
    return family.contract("Row")


@pytest.fixture(scope="module")
def seeded(node: RunningNode) -> RunningNode:
    client = node.client("alice")
    for start in range(0, ROWS, 100):
        txs = [
            {
                "type": "CONTRACT",
                "payload": {
                    "contract": "Row",
                    "src": ROW_SRC,
                    "args": {"_v": i},
                    "metadata": {"VM": "SolidVM"},
                },
            }
            for i in range(start, min(start + 100, ROWS))
        ]
        r = client.post("/svc/v2.3/transaction?resolve=true", json={"txs": txs})
        assert r.status_code == 200, r.text
    return node


def model_for(controller: AppController) -> CirrusTableModel:
    return CirrusTableModel(controller.cirrus, controller.tasks)


def test_count_pages_and_sorting(
    seeded: RunningNode, table: str, controller: AppController, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, seeded, "alice")
    model = model_for(controller)
    model.set_query(CirrusQuery(table, select=["address", "v"], order=[]))
    drive(loop, lambda: model.total == ROWS and 0 in model.pages)
    assert model.rowCount() == ROWS and model.columns == ["address", "v"]
    ModelTester(None).check(model)
    # a row far down: asked for when shown, there when its page arrives
    far = model.index(ROWS - 5, 1)
    assert model.data(far) == LOADING
    drive(loop, lambda: model.data(far) != LOADING)
    assert int(model.data(far)) >= 0
    assert len(model.pages) == 2  # page 0 and the far one, nothing in between
    model.sort(1, Qt.SortOrder.DescendingOrder)
    drive(loop, lambda: 0 in model.pages)
    assert model.data(model.index(0, 1)) == str(ROWS - 1)
    assert model.query is not None and model.query.to_query_string().endswith("order=v.desc")


def test_filters_and_errors(
    seeded: RunningNode, table: str, controller: AppController, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, seeded, "alice")
    model = model_for(controller)
    where = Group("and", [Condition("v", "gte", "600"), Condition("v", "lt", "610")])
    model.set_query(CirrusQuery(table, select=["v"], where=where))
    drive(loop, lambda: model.total is not None and 0 in model.pages)
    assert model.total == 10
    assert sorted(int(model.data(model.index(r, 0))) for r in range(10)) == list(range(600, 610))
    errors: list[str] = []
    model.failed.connect(errors.append)
    model.set_query(CirrusQuery(table, where=Group("and", [Condition("nope", "eq", "1")])))
    drive(loop, lambda: errors)
    assert "nope" in errors[0]
    assert model.rowCount() == 0


def test_page_cache_is_bounded(
    seeded: RunningNode,
    table: str,
    controller: AppController,
    loop: qasync.QEventLoop,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cirrus_model, "PAGE_SIZE", 10)
    monkeypatch.setattr(cirrus_model, "MAX_PAGES", 5)
    connect(loop, controller, seeded, "alice")
    model = model_for(controller)
    model.set_query(CirrusQuery(table, select=["v"], order=[]))
    drive(loop, lambda: model.total == ROWS)
    for row in range(0, ROWS, 10):  # scroll through every page
        index = model.index(row, 0)

        def arrived(index: QModelIndex = index) -> bool:
            return bool(model.data(index) != LOADING)

        if not arrived():
            drive(loop, arrived)
        assert len(model.pages) <= 5
    assert model.data(model.index(ROWS - 1, 0)) != LOADING


def test_export_csv_json_and_cancel(
    seeded: RunningNode,
    table: str,
    controller: AppController,
    loop: qasync.QEventLoop,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setattr(cirrus_service, "EXPORT_PAGE", 100)
    connect(loop, controller, seeded, "alice")
    exporter = CirrusExporter(controller.cirrus)
    progress: list[tuple[int, int]] = []
    exporter.progress.connect(lambda done, total: progress.append((done, total)))
    # the filtered, ordered view to CSV
    where = Group("and", [Condition("v", "gte", "600")])
    query = CirrusQuery(table, select=["v", "address"], where=where, order=[Order("v")])
    target = tmp_path / "rows.csv"
    assert loop.run_until_complete(exporter.export(query, target)) == 50
    lines = target.read_text().splitlines()
    assert lines[0] == "v,address" and [int(x.split(",")[0]) for x in lines[1:]] == list(
        range(600, 650)
    )
    # every row, page by page, to JSON
    progress.clear()
    everything = tmp_path / "rows.json"
    n = loop.run_until_complete(exporter.export(CirrusQuery(table, order=[Order("v")]), everything))
    data = json.loads(everything.read_text())
    assert n == ROWS and len(data) == ROWS and data[0]["v"] == 0 and "address" in data[0]
    assert progress[-1] == (ROWS, ROWS) and len(progress) == 7
    # cancelled half-way: no file, no leftovers
    cancelled = tmp_path / "cancelled.json"

    async def cancel_after_first_page() -> None:
        task = asyncio.ensure_future(exporter.export(CirrusQuery(table), cancelled))
        while not progress or progress[-1][0] < 100 or task.done():
            if task.done():
                break
            await asyncio.sleep(0.001)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    progress.clear()
    loop.run_until_complete(cancel_after_first_page())
    assert not cancelled.exists()
    assert list(tmp_path.glob(".*.part")) == []
