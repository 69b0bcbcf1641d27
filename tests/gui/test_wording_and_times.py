"""One vocabulary and one clock across the app, against a real sandbox node: the inspector's Type
row says what the account panel and the Explorer say ("Asset created: Car (CarDemo)", never the
node's "GENESIS"), and the account panel's history reads times as the Explorer lists do."""

from __future__ import annotations

import qasync
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.models.transactions_model import COLUMNS
from app.ui.panels.account.panel import AccountPanel
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.integration.node_fixture import RunningNode

TIME = COLUMNS.index("Time")


def make_car(node: RunningNode) -> None:
    car = node.client("alice").post(
        "/apps/CarDemo/car",
        json={"carArgs": {"vin": "1HGCM82633A004352", "color": "red", "model": "T", "weight": 9}},
    )
    assert car.status_code == 200, car.text


def test_inspector_type_row_uses_the_account_panels_words(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    make_car(node)
    connect(loop, controller, node, "alice")
    drive(loop, lambda: any(t.kind == "GENESIS" for t in controller.account.view.transactions))
    panel = window.panels[0]
    assert isinstance(panel, AccountPanel)
    model = panel.tx_model
    panel.chain_filter.setCurrentIndex(0)  # all chains
    drive(loop, lambda: model.rowCount() > 0)
    words = {model.index(r, 7).data(): model.index(r, 1).data() for r in range(model.rowCount())}
    asset = next(h for h, w in words.items() if w == "Asset created: Car (CarDemo)")
    dialog = window.open_transaction(asset)
    drive(loop, lambda: dialog.inspector.details is not None, 30)
    view = dialog.inspector.view
    drive(loop, lambda: "Asset created: Car (CarDemo)" in view.toPlainText(), 15)
    assert "GENESIS" not in view.toPlainText()
    dialog.close()


def test_account_history_times_are_relative_with_the_exact_time_in_the_tooltip(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    make_car(node)
    connect(loop, controller, node, "alice")
    panel = window.panels[0]
    assert isinstance(panel, AccountPanel)
    model = panel.tx_model
    panel.chain_filter.setCurrentIndex(0)
    drive(loop, lambda: model.rowCount() > 0)
    for r in range(model.rowCount()):
        shown = model.index(r, TIME).data()
        assert shown == "just now" or shown.endswith(" ago"), shown
        tip = model.index(r, TIME).data(Qt.ItemDataRole.ToolTipRole)
        assert "UTC" in tip and tip != shown, tip
