"""The Explorer's Accounts view and account page against a real sandbox (both Cirrus families):
every account with kind, organisation, balance, nonce and transaction count, sorted by the node
on a header click, paged lazily (qtmodeltester); an account page with its transactions, the
contracts it created and its holdings in a token-like contract."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QModelIndex, Qt
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.panels.explorer.account_page import ROW_ROLE, AccountPage
from app.ui.panels.explorer.accounts_model import ACCOUNT_ROLE, PAGE
from app.ui.panels.explorer.panel import ExplorerPanel
from app.ui.panels.explorer.transactions_model import TX_ROLE
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit, transfer_tx

pytestmark = pytest.mark.cirrus_families

TOKEN = """
contract Token {
    mapping(address => uint) public balances;
    uint public totalSupply;
    event Transfer(address from, address to, uint value);
    constructor(uint supply) { balances[msg.sender] = supply; totalSupply = supply; }
    function transfer(address to, uint value) public returns (bool) {
        require(balances[msg.sender] >= value, "too little");
        balances[msg.sender] -= value;
        balances[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}
"""


def accounts_tab(window: MainWindow, loop: qasync.QEventLoop) -> ExplorerPanel:
    panel = next(p for p in window.panels if isinstance(p, ExplorerPanel))
    window.nav.setCurrentRow(window.panels.index(panel))
    panel.tabs.setCurrentWidget(panel.accounts_view)  # type: ignore[attr-defined]
    model = panel.accounts_view.model  # type: ignore[attr-defined]
    drive(loop, lambda: model.rowCount() > 0 and not model.loading)
    return panel


def entries(model: Any) -> list[Any]:
    return [model.index(r, 0).data(ACCOUNT_ROLE) for r in range(model.rowCount())]


def test_accounts_view_sorted_paged_and_named(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
    qtmodeltester: Any,
    tmp_path: Path,
) -> None:
    alice = node.client("alice")
    token = deploy(alice, "Token", TOKEN, {"supply": 1000})
    # enough other addresses for more than one page
    for i in range(PAGE + 5):
        submit(alice, transfer_tx(f"{i + 1:040x}", 1), resolve=False, expect=200)
    submit(alice, transfer_tx(f"{PAGE + 6:040x}", 1))
    connect(loop, controller, node)
    panel = accounts_tab(window, loop)
    view = panel.accounts_view  # type: ignore[attr-defined]
    model = view.model
    # the first page only, more on scrolling (fetchMore)
    assert model.rowCount() == PAGE and model.total is not None and model.total > PAGE
    assert view.bar.count.text() == f"{model.total:,} accounts"
    # by transaction count, most first: alice sent them all
    first = entries(model)[0]
    assert first.address == node.address("alice")
    assert model.index(0, 0).data() == f"alice (Acme) · {first.address[:6]}…{first.address[-4:]}"
    assert (model.index(0, 1).data(), model.index(0, 2).data()) == ("User", "Acme")
    counts = [e.tx_count for e in entries(model)]
    assert counts == sorted(counts, reverse=True)
    view.table.scrollToBottom()
    drive(loop, lambda: model.rowCount() > PAGE and not model.loading)
    qtmodeltester.check(model)
    # a header click: the node sorts by balance, ascending
    header = view.table.horizontalHeader()
    header.setSortIndicator(3, Qt.SortOrder.AscendingOrder)
    drive(loop, lambda: model.rowCount() > 0 and model.sort_key == "balance" and not model.loading)
    balances = [e.balance for e in entries(model)]
    assert balances == sorted(balances)
    # contracts only: the token, by its name
    view.kind.setCurrentIndex(view.kind.findData("contract"))
    view.kind.activated.emit(view.kind.currentIndex())
    drive(loop, lambda: model.kind == "contract" and not model.loading and model.rowCount() > 0)
    rows = entries(model)
    assert all(e.kind == "contract" for e in rows)
    row = [e.address for e in rows].index(token)
    assert str(model.index(row, 0).data()).startswith("Token · ")
    # one unit in every Balance cell: a contract's empty balance reads as a user's would
    assert model.index(row, 3).data() == "0 tokens"
    shown = [str(model.index(r, 3).data()) for r in range(model.rowCount())]
    assert all(t.endswith((" tokens", " token", " wei")) for t in shown), shown
    assert view.bar.count.text().endswith(" contracts")
    # export of the filtered list (the contracts) to CSV
    target = tmp_path / "accounts.csv"
    task = view.bar.export_to(target, "csv")
    assert task is not None
    loop.run_until_complete(task)
    lines = target.read_text().splitlines()
    assert lines[0] == "address,kind,name,organization,balance,nonce,txCount"
    assert len(lines) == 1 + model.total and any(line.startswith(token) for line in lines)


def test_account_page_transactions_created_contracts_and_holdings(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
) -> None:
    alice = node.client("alice")
    token = deploy(alice, "Token", TOKEN, {"supply": 1000})
    bob = node.address("bob")
    sent = submit(alice, call_tx(token, "transfer", {"to": bob, "value": 250}, "Token"))[0]
    assert sent["status"] == "Success", sent
    connect(loop, controller, node)
    panel = accounts_tab(window, loop)
    page = panel.open_account(node.address("alice"))  # type: ignore[attr-defined]
    assert isinstance(page, AccountPage)
    assert panel.detail.stack.currentWidget() is page
    drive(loop, lambda: page.entry is not None)
    assert page.name_label.text() == "alice (Acme)"
    assert page.kind_label.text() == "User"
    entry = page.entry
    assert entry is not None and entry.nonce >= 2 and page.nonce.text() == str(entry.nonce)
    # its transactions: the call among them, the contract named
    tm = page.txs_model
    drive(loop, lambda: tm.rowCount() > 0 and tm.index(0, 0).data(TX_ROLE) is not None)
    hashes = [tm.index(r, 0).data(TX_ROLE).hash for r in range(tm.rowCount())]
    assert sent["hash"] in hashes
    # the contracts it created: the token
    drive(loop, lambda: page.created_model.rowCount() > 0)
    made = [
        page.created_model.index(r, 0).data(ROW_ROLE) for r in range(page.created_model.rowCount())
    ]
    assert token in [m.address for m in made]
    assert page.tabs.tabText(1).startswith("Contracts created (")
    # holdings: 750 of the token's balances
    drive(loop, lambda: page.holdings_model.rowCount() > 0)
    hm = page.holdings_model
    held = {
        hm.index(r, 0).data(ROW_ROLE).address: hm.index(r, 2).data() for r in range(hm.rowCount())
    }
    assert held[token] == "750"
    # bob's page: 250 held, a link from there to the token's page
    bob_page = panel.open_account(bob)  # type: ignore[attr-defined]
    drive(loop, lambda: bob_page.holdings_model.rowCount() > 0 and bob_page.entry is not None)
    assert bob_page.holdings_model.index(0, 2).data() == "250"
    assert bob_page.name_label.text() == "bob (Globex)"
    # the token's own page: its empty balance with the unit a user's balance has
    token_page = panel.open_account(token)  # type: ignore[attr-defined]
    drive(loop, lambda: token_page.entry is not None)
    assert token_page.balance.text() == "0 tokens"


def test_accounts_view_on_a_node_without_the_account_table(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
) -> None:
    """Where the node has no ``/stratoscope/accounts`` (a STRATO node), the view lists the
    platform's account search: address order, no transaction counts, and says so. (The path is
    taken here by telling the service the table is missing; the search is the sandbox's own
    implementation of the platform's route.)"""
    connect(loop, controller, node)
    panel = accounts_tab(window, loop)
    view = panel.accounts_view  # type: ignore[attr-defined]
    view.service.full_listing = False
    view.model.reset()
    model = view.model
    drive(loop, lambda: model.rowCount() > 0 and not model.loading)
    rows = entries(model)
    addresses = [e.address for e in rows]
    assert addresses == sorted(addresses)
    assert all(e.tx_count is None for e in rows)
    assert model.index(0, 5).data() == "—"
    assert "address order" in view.note.text() and view.note.isVisibleTo(view)
    assert view.bar.count.text().endswith(" accounts")
    # users are still named (the name service's certificates); pages follow as scrolled
    while node.address("alice") not in addresses and not model.at_end:
        model.fetchMore(QModelIndex())  # what the view asks as it is scrolled down
        drive(loop, lambda: not model.loading)
        addresses = [e.address for e in entries(model)]
    assert addresses == sorted(addresses)
    alice = addresses.index(node.address("alice"))
    drive(loop, lambda: str(model.index(alice, 0).data()).startswith("alice (Acme) · "))
