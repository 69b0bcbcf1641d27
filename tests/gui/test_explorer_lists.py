"""List ergonomics of the Explorer against a real sandbox: relative times ("2 min ago") with the
exact time in the tooltip, kept current; gas used per block; a count on the Blocks and
Transactions views; export of the filtered list to CSV and JSON (the Tables panel's writer)."""

from __future__ import annotations

import json
from pathlib import Path

import qasync
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.services.explorer import TxFilter
from app.ui.panels.explorer.blocks_model import COLUMNS as BLOCK_COLUMNS
from app.ui.panels.explorer.list_tools import Clock, exact, parse_time, relative
from app.ui.panels.explorer.transactions_model import COLUMNS as TX_COLUMNS
from app.ui.panels.explorer.transactions_model import TX_ROLE
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.gui.test_explorer import loaded_row, show_explorer
from tests.gui.test_explorer_accounts import TOKEN
from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit, transfer_tx

TIME = Qt.ItemDataRole.ToolTipRole


def test_relative_words() -> None:
    now = 1_800_000_000.0
    assert relative(now - 2, now) == "just now"
    assert relative(now - 42, now) == "42 s ago"
    assert relative(now - 150, now) == "2 min ago"
    assert relative(now - 3 * 3600 - 5, now) == "3 h ago"
    assert relative(now - 86400 * 5, now) == "5 days ago"
    assert relative(now + 120, now) == "in 2 min"
    assert parse_time("2026-11-29T08:30:06.000Z") == parse_time("2026-11-29 08:30:06 UTC")
    assert parse_time(1_800_000_000_000) == 1_800_000_000.0
    assert parse_time("soon") is None and relative(None) == ""
    assert "UTC" in exact(now)


def test_times_gas_counts_and_export(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    alice = node.client("alice")
    for _ in range(3):
        assert submit(alice, transfer_tx(node.address("bob"), 1))[0]["status"] == "Success"
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    blocks, txs = panel.blocks_model, panel.txs_model
    # the newest block: "… ago", the exact time in the tooltip, gas used in its own column
    time_col = BLOCK_COLUMNS.index("Time")
    shown = loaded_row(loop, blocks, 0, time_col)
    assert shown.endswith(" ago") or shown == "just now", shown
    tip = blocks.index(0, time_col).data(TIME)
    assert "UTC" in tip and tip[:4].isdigit()
    gas_col = BLOCK_COLUMNS.index("Gas used")
    assert blocks.index(0, gas_col).data().replace(",", "").isdigit()
    # transactions: the same words
    tcol = TX_COLUMNS.index("Time")
    drive(loop, lambda: txs.index(0, 0).data(TX_ROLE) is not None)
    text = str(txs.index(0, tcol).data())
    assert text.endswith(" ago") or text == "just now", text
    assert "UTC" in txs.index(0, tcol).data(TIME)
    # kept current: a tick repaints the time column
    changed: list[int] = []
    txs.dataChanged.connect(lambda a, b, roles=(): changed.append(a.column()))
    Clock.shared().tick.emit()
    assert tcol in changed
    # counts
    bar = panel.txs_bar  # type: ignore[attr-defined]
    drive(loop, lambda: bar.count.text().endswith("transactions"))
    n = txs.rowCount()
    assert bar.count.text() in (f"{n:,} transactions", f"{n:,}+ transactions")
    assert panel.blocks_bar.count.text() == f"{blocks.head + 1:,} blocks"  # type: ignore[attr-defined]
    # export of the filtered list: transfers to bob only
    panel.txs_view.set_filter(TxFilter(contract=node.address("bob")))
    drive(loop, lambda: txs.filter.contract == node.address("bob") and txs.at_end)
    drive(loop, lambda: bar.count.text() == f"{txs.rowCount():,} transactions")
    target = tmp_path / "bob.json"
    task = bar.export_to(target, "json")
    assert task is not None
    loop.run_until_complete(task)
    rows = json.loads(target.read_text())
    assert len(rows) == txs.rowCount() >= 3
    assert all(r["to"] == node.address("bob") for r in rows)
    assert "Exported" in bar.status.text()
    # the blocks, as CSV: every block from the head down
    blocks_csv = tmp_path / "blocks.csv"
    btask = panel.blocks_bar.export_to(blocks_csv, "csv")  # type: ignore[attr-defined]
    assert btask is not None
    loop.run_until_complete(btask)
    lines = blocks_csv.read_text().splitlines()
    assert lines[0] == "number,hash,timestamp,tx_count,gas_used,size"
    assert len(lines) == 1 + blocks.head + 1
    assert lines[1].startswith(f"{blocks.head},")


def test_explorer_words_match_the_account_panel(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
) -> None:
    """The Explorer's Type column says what the account panel says: an asset's creation is
    "Asset created: Car (CarDemo)", not the node's GENESIS ("Genesis")."""
    alice = node.client("alice")
    car = alice.post(
        "/apps/CarDemo/car",
        json={"carArgs": {"vin": "1HGCM82633A004352", "color": "red", "model": "T", "weight": 9}},
    )
    assert car.status_code == 200, car.text
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    txs = panel.txs_model

    def kinds() -> list[str]:
        return [
            str(txs.index(r, 0).data())
            for r in range(txs.rowCount())
            if txs.index(r, 0).data(TX_ROLE) is not None
        ]

    drive(loop, lambda: "Asset created: Car (CarDemo)" in kinds())
    words = kinds()
    assert not any(w.startswith("Genesis") for w in words), words
    assert "Application created: CarDemo" in words
    assert "Contract created: CarDemo" in words


def test_events_relative_times_and_export(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    """The Events view: relative times too, and its Export ▾ writes the events as filtered
    (the node's own certificate registry logged some in its genesis block)."""
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    panel.tabs.setCurrentWidget(panel.events_view)
    model = panel.events_view.model
    drive(loop, lambda: len(model.rows) >= 4 and not model.loading)
    text = str(model.index(0, 1).data())
    assert text.endswith(" ago") or text == "just now", text
    assert "UTC" in model.index(0, 1).data(TIME)
    target = tmp_path / "events.json"
    task = panel.events_bar.export_to(target, "json")  # type: ignore[attr-defined]
    assert task is not None
    loop.run_until_complete(task)
    rows = json.loads(target.read_text())
    assert len(rows) == len(model.rows)
    assert {r["contract"] for r in rows} >= {"CertificateRegistry"}
    assert [r["tx_hash"] for r in rows] == [r.tx_hash for r in model.rows]


def test_block_contracts_and_account_lists_counted_and_exported(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    """The lists that had no Export ▾ (issue 29): a block's own transactions, the Contracts
    tree as filtered, and each of the account page's lists (the bar follows its tab)."""
    alice = node.client("alice")
    token = deploy(alice, "Token", TOKEN, {"supply": 1000})
    bob = node.address("bob")
    (sent,) = submit(alice, call_tx(token, "transfer", {"to": bob, "value": 250}, "Token"))
    assert sent["status"] == "Success", sent
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    # a block's own transactions: the block of the transfer
    found = alice.get("/strato-api/eth/v1.2/transaction", params={"hash": sent["hash"]})
    number = int(found.json()[0]["blockNumber"])
    panel.show_block(number)
    block = panel.detail.block
    bar = panel.detail.block_bar
    drive(loop, lambda: block.number == number and block.model.at_end)
    drive(loop, lambda: bar.count.text() == "1 transaction")
    assert block.count_label.parent() is bar  # one line: the block's count, the Export ▾
    task = bar.export_to(tmp_path / "block.csv", "csv")
    assert task is not None
    loop.run_until_complete(task)
    lines = (tmp_path / "block.csv").read_text().splitlines()
    assert lines[0].startswith("hash,kind,status,sender,to")
    assert len(lines) == 2 and lines[1].startswith(sent["hash"] + ",")
    # the Contracts tree, filtered by name
    contracts = panel.contracts_view
    panel.tabs.setCurrentWidget(contracts)
    drive(loop, lambda: "Token" in contracts.model.names())
    contracts.filter.setText("Token")
    drive(loop, lambda: contracts.model.names() == ["Token"])
    assert contracts.bar.count.text() == "1 contract, 1 instance"
    assert contracts.status.text().startswith("1 of ")
    assert contracts.status.parent() is contracts.bar  # one line: the count, the Export ▾
    task = contracts.bar.export_to(tmp_path / "contracts.json", "json")
    assert task is not None
    loop.run_until_complete(task)
    rows = json.loads((tmp_path / "contracts.json").read_text())
    assert [(r["name"], r["address"]) for r in rows] == [("Token", token)]
    # the account page: its transactions, the contracts it created, its holdings
    page = panel.open_account(node.address("alice"))  # type: ignore[attr-defined]
    abar = page.bar
    tm = page.txs_model
    drive(loop, lambda: tm.at_end and tm.rowCount() > 0 and page.holdings_model.rowCount() > 0)
    drive(loop, lambda: abar.count.text() == f"{tm.rowCount():,} transactions")
    task = abar.export_to(tmp_path / "alice-txs.json", "json")
    assert task is not None
    loop.run_until_complete(task)
    rows = json.loads((tmp_path / "alice-txs.json").read_text())
    assert len(rows) == tm.rowCount() and sent["hash"] in [r["hash"] for r in rows]
    page.tabs.setCurrentIndex(1)
    drive(loop, lambda: page.created_model.rowCount() > 0)
    assert abar.count.text() == f"{page.created_model.rowCount():,} contract" + (
        "s created" if page.created_model.rowCount() != 1 else " created"
    )
    task = abar.export_to(tmp_path / "created.csv", "csv")
    assert task is not None
    loop.run_until_complete(task)
    assert f"Token,{token}" in (tmp_path / "created.csv").read_text().splitlines()
    page.tabs.setCurrentIndex(2)
    assert abar.count.text().endswith("holdings") or abar.count.text() == "1 holding"
    task = abar.export_to(tmp_path / "holdings.json", "json")
    assert task is not None
    loop.run_until_complete(task)
    held = {
        r["address"]: r["balance"] for r in json.loads((tmp_path / "holdings.json").read_text())
    }
    assert held[token] == "750"
    # a long status does not widen the pane: it is cut, the Export ▾ stays in view
    abar.status.setText("Exported 1 row(s) to /" + "very-long-folder-name/" * 20 + "x.json")
    assert abar.minimumSizeHint().width() < 400
