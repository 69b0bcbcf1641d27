"""The Explorer panel against a real sandbox node: blocks newest first, a block's detail and its
transaction in the embedded inspector, the live update (selection and viewport kept), nothing
read while hidden, the transaction filters, and both models through qtmodeltester."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import qasync
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.services.explorer import TxFilter
from app.ui.panels.explorer.blocks_model import NUMBER_ROLE
from app.ui.panels.explorer.panel import ExplorerPanel
from app.ui.panels.explorer.transactions_model import TX_ROLE
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.integration.node_fixture import (
    RunningNode,
    body,
    call_tx,
    deploy,
    submit,
    transfer_tx,
)
from tests.integration.test_chains import chain_body, create

pytestmark = pytest.mark.cirrus_families  # the default sandbox and a STRATO 16-only one

ETH = "/svc-api/eth/v1.2"
COUNTER = "contract Counter { uint public count; function add(uint n) public { count += n; } }"


def head_of(client: httpx.Client) -> dict[str, Any]:
    r = client.get(f"{ETH}/block/last/1")
    assert r.status_code == 200, r.text
    return dict(r.json()[0])


def show_explorer(window: MainWindow, loop: qasync.QEventLoop) -> ExplorerPanel:
    panel = next(p for p in window.panels if isinstance(p, ExplorerPanel))
    window.nav.setCurrentRow(window.panels.index(panel))
    drive(loop, lambda: panel.blocks_model.head >= 0 and panel.txs_model.rowCount() > 0)
    return panel


def loaded_row(loop: qasync.QEventLoop, model: Any, row: int, col: int = 1) -> Any:
    """The text of a cell once its page has been read."""
    drive(loop, lambda: model.data(model.index(row, col)) not in (None, "…"))
    return model.data(model.index(row, col))


def click(qtbot: QtBot, view: Any, row: int, col: int = 0) -> None:
    index = view.model().index(row, col)
    view.scrollTo(index)
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center()
    )


def new_block(node: RunningNode, to_user: str = "bob") -> int:
    alice = node.client("alice")
    res = submit(alice, transfer_tx(node.address(to_user), 1))
    assert res[0]["status"] == "Success", res
    return int(head_of(alice)["blockData"]["number"])


def test_blocks_newest_first_block_detail_and_inspector(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
) -> None:
    alice = node.client("alice")
    counter = deploy(alice, "Counter", COUNTER)
    called = submit(alice, call_tx(counter, "add", {"n": 2}, "Counter"))[0]
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    head = head_of(alice)
    number = int(head["blockData"]["number"])
    drive(loop, lambda: panel.blocks_model.head >= number)
    model = panel.blocks_model
    top = model.head
    assert model.rowCount() == top + 1
    # newest first: row 0 is the head, row 1 the block before
    assert model.index(0, 0).data(NUMBER_ROLE) == top
    assert model.index(1, 0).data(NUMBER_ROLE) == top - 1
    full = loaded_row(loop, model, model.row_of(number), 1)
    row = model.block(number)
    assert row is not None and row.hash == head["blockHash"]
    assert full == row.hash[:10] + "…" + row.hash[-6:]
    # the block of the call: a click opens it, with the call among its transactions
    call_block = int(
        alice.get(f"{ETH}/transaction", params={"hash": called["hash"]}).json()[0]["blockNumber"]
    )
    view = panel.blocks_view.table
    loaded_row(loop, model, model.row_of(call_block))
    click(qtbot, view, model.row_of(call_block))
    detail = panel.detail
    drive(loop, lambda: detail.stack.currentWidget() is detail.block)
    assert detail.block.number == call_block
    held = model.block(call_block)
    assert held is not None and detail.block.hash_field.value() == held.hash
    bm = detail.block.model
    drive(loop, lambda: bm.rowCount() > 0 and bm.index(0, 0).data(TX_ROLE) is not None)
    hashes = [bm.index(r, 0).data(TX_ROLE).hash for r in range(bm.rowCount())]
    assert called["hash"] in hashes
    # its transaction opens in the embedded inspector
    click(qtbot, detail.block.table, hashes.index(called["hash"]), 1)
    drive(loop, lambda: detail.stack.currentWidget() is detail.inspector)
    drive(loop, lambda: detail.inspector.details is not None)
    assert detail.inspector.details is not None
    assert detail.inspector.details.hash == called["hash"]
    assert "Success" in detail.inspector.view.toPlainText()
    assert "add" in detail.inspector.view.toPlainText()
    # and the inspector's block link leads back to the block
    assert f'href="block:{call_block}"' in detail.inspector.view.toHtml()
    detail.inspector.view.anchorClicked.emit(QUrl(f"block:{call_block}"))
    drive(loop, lambda: detail.stack.currentWidget() is detail.block)
    assert detail.block.number == call_block
    # a block by number, from the keyboard
    box = panel.blocks_view.number
    box.setFocus()
    box.lineEdit().selectAll()
    qtbot.keyClicks(box, str(call_block))
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert view.currentIndex().data(NUMBER_ROLE) == call_block
    # the oldest block is reachable at once
    panel.blocks_view.oldest.click()
    assert view.currentIndex().data(NUMBER_ROLE) == 0
    assert loaded_row(loop, model, model.rowCount() - 1, 2)


def test_live_blocks_keep_selection_and_viewport(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
) -> None:
    for _ in range(30):  # enough blocks to scroll
        new_block(node)
    connect(loop, controller, node)
    window.resize(1024, 640)
    panel = show_explorer(window, loop)
    model = panel.blocks_model
    view = panel.blocks_view.table
    drive(loop, lambda: model.head >= 30)
    # scrolled down a little, a block selected
    view.verticalScrollBar().setValue(5)
    top_before = view.indexAt(view.viewport().rect().topLeft()).data(NUMBER_ROLE)
    selected = model.head - 8
    click(qtbot, view, model.row_of(selected))
    assert view.currentIndex().data(NUMBER_ROLE) == selected
    view.verticalScrollBar().setValue(5)
    top_before = view.indexAt(view.viewport().rect().topLeft()).data(NUMBER_ROLE)
    head_before = model.head
    latest = new_block(node)
    drive(loop, lambda: model.head >= latest)
    assert model.head > head_before
    # the new block is on top; the selection and the blocks on screen stayed
    assert model.index(0, 0).data(NUMBER_ROLE) == model.head
    assert loaded_row(loop, model, 0) is not None
    assert view.currentIndex().data(NUMBER_ROLE) == selected
    rows = view.selectionModel().selectedRows()
    assert [r.data(NUMBER_ROLE) for r in rows] == [selected]
    assert view.indexAt(view.viewport().rect().topLeft()).data(NUMBER_ROLE) == top_before
    # the transactions view got the new transfer on top, too
    txs = panel.txs_model
    drive(loop, lambda: txs.top_block >= latest)
    tx = txs.index(0, 0).data(TX_ROLE)
    assert tx is not None and tx.block_number == latest


def test_nothing_read_while_hidden(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
) -> None:
    connect(loop, controller, node)
    # never shown: no request of the Explorer at all
    new_block(node)
    drive(
        loop,
        lambda: (
            controller.session.last_block == head_of(node.client("alice"))["blockData"]["number"]
        ),
    )
    panel = next(p for p in window.panels if isinstance(p, ExplorerPanel))
    assert panel.service.requests == 0
    explorer_urls = lambda: [  # noqa: E731
        e.url for e in controller.feed.exchanges if "sortby=desc" in e.url
    ]
    assert explorer_urls() == []
    panel = show_explorer(window, loop)
    assert panel.service.requests > 0
    assert explorer_urls()
    # hidden again: new blocks arrive, the Explorer reads nothing
    window.nav.setCurrentRow(0)
    drive(loop, lambda: not panel.isVisible())
    before = panel.service.requests
    seen = len(explorer_urls())
    head = panel.blocks_model.head
    for _ in range(2):
        latest = new_block(node)
    drive(loop, lambda: controller.session.last_block == latest)
    loop.run_until_complete(asyncio.sleep(0.3))
    assert panel.service.requests == before
    assert len(explorer_urls()) == seen
    assert panel.blocks_model.head == head
    # shown again: it catches up
    window.nav.setCurrentRow(window.panels.index(panel))
    drive(loop, lambda: panel.blocks_model.head == latest)


def rows_of(loop: qasync.QEventLoop, panel: ExplorerPanel) -> list[Any]:
    model = panel.txs_model
    drive(loop, lambda: not model.pages.loading)
    while model.canFetchMore(model.index(-1, -1)):
        model.fetchMore(model.index(-1, -1))
        drive(loop, lambda: not model.pages.loading)
    return [model.index(r, 0).data(TX_ROLE) for r in range(model.rowCount())]


def test_transaction_filters(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
) -> None:
    alice, bob = node.client("alice"), node.client("bob")
    counter = deploy(alice, "Counter", COUNTER)
    submit(bob, call_tx(counter, "add", {"n": 1}, "Counter"))
    submit(bob, transfer_tx(node.address("alice"), 3))
    chain = create(alice, chain_body(node.address("alice")))
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": chain},
        json=body(transfer_tx(node.address("alice"), 1)),
    )
    assert r.status_code == 200 and r.json()[0]["status"] == "Success", r.text
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    tv = panel.txs_view
    everything = rows_of(loop, panel)
    assert len(everything) > 3
    assert everything == sorted(everything, key=lambda t: -t.block_number)  # newest first
    # type
    tv.kind.setCurrentIndex(tv.kind.findData("Transfer"))
    qtbot.mouseClick(tv.apply, Qt.MouseButton.LeftButton)
    transfers = rows_of(loop, panel)
    assert transfers and all(t.kind == "Transfer" for t in transfers)
    assert len(transfers) < len(everything)
    # sender (and type still)
    tv.sender_edit.setText(node.address("bob"))
    qtbot.keyClick(tv.sender_edit, Qt.Key.Key_Return)
    bobs = rows_of(loop, panel)
    assert [t.kind for t in bobs] == ["Transfer"]
    assert bobs[0].sender == node.address("bob")
    # the contract: calls to it, any type
    tv.clear_filter()
    tv.contract.setText(counter)
    tv.apply_filter()
    calls = rows_of(loop, panel)
    assert calls and all(t.to == counter for t in calls)
    assert any(t.kind == "FunctionCall" and t.label == "add" for t in calls)
    # block range
    tv.clear_filter()
    low = calls[0].block_number
    tv.min_block.setValue(low)
    tv.max_block.setValue(low)
    tv.apply_filter()
    ranged = rows_of(loop, panel)
    assert ranged and all(t.block_number == low for t in ranged)
    # chain
    tv.clear_filter()
    tv.chain.setText(chain)
    tv.apply_filter()
    on_chain = rows_of(loop, panel)
    assert on_chain and all(t.chain == chain for t in on_chain)
    assert all(
        not t.chain for t in rows_of_filter(loop, panel, TxFilter(sender=node.address("bob")))
    )
    # a node without the sandbox's own filters: type and status disabled, and why
    assert tv.kind.isEnabled() and tv.status_box.isEnabled()
    tv.set_own_filters(False)
    assert not tv.kind.isEnabled() and "no type filter" in tv.kind.toolTip()
    assert not tv.status_box.isEnabled() and "no status filter" in tv.status_box.toolTip()
    tv.set_own_filters(True)
    # bad input: a sentence, the list left as it was
    shown = panel.txs_model.rowCount()
    tv.sender_edit.setText("not an address")
    tv.apply_filter()
    assert "40 hex digits" in tv.note.text()
    assert panel.txs_model.rowCount() == shown
    # an address link (from the inspector) filters by that address
    panel.show_address(node.address("bob"))
    by_bob = rows_of(loop, panel)
    assert by_bob and all(node.address("bob") in (t.sender, t.to) for t in by_bob)
    assert panel.tabs.currentWidget() is tv
    # Ctrl+C on a cell copies its whole value: the hash in full, not as shown
    table = tv.table
    table.setCurrentIndex(panel.txs_model.index(0, 2))
    qtbot.keyClick(table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == by_bob[0].hash
    table.setCurrentIndex(panel.txs_model.index(0, 3))
    qtbot.keyClick(table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == by_bob[0].sender


def rows_of_filter(loop: qasync.QEventLoop, panel: ExplorerPanel, f: TxFilter) -> list[Any]:
    panel.txs_view.set_filter(f)
    return rows_of(loop, panel)


def test_models_pass_qtmodeltester(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtmodeltester: Any,
) -> None:
    new_block(node)
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    drive(loop, lambda: not panel.blocks_model.pages.loading)
    # one tester watches one model: let go of each before the next (a model left connected
    # repaints later - a name arriving, a relative time ticking - and trips a tester let go)
    qtmodeltester.check(panel.blocks_model, force_py=True)
    qtmodeltester._cleanup()
    qtmodeltester.check(panel.txs_model, force_py=True)
    drive(loop, lambda: not panel.txs_model.pages.loading and not panel.blocks_model.pages.loading)
    qtmodeltester._cleanup()
    qtmodeltester.check(panel.blocks_model, force_py=True)
    qtmodeltester._cleanup()
    qtmodeltester.check(panel.txs_model, force_py=True)


def test_the_four_views_share_the_panel(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
) -> None:
    deploy(node.client("alice"), "Counter", COUNTER)
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    tabs = [panel.tabs.tabText(i) for i in range(panel.tabs.count())]
    assert tabs[:4] == ["Blocks", "Transactions", "Contracts", "Events"]
    assert "Accounts" in tabs
    contracts = panel.contracts_view
    assert contracts.model.names() == []  # not shown yet: nothing read
    panel.tabs.setCurrentWidget(contracts)
    drive(loop, lambda: "Counter" in contracts.model.names())
    # a detail from another view goes to the same pane, and a transaction replaces it
    from PySide6.QtWidgets import QLabel

    other = QLabel("an instance")
    panel.show_detail(other, "Counter 1234…")
    assert panel.detail.stack.currentWidget() is other
    assert panel.detail.title.text() == "Counter 1234…"


def test_arrow_keys_load_a_detail_once_the_selection_settles(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
) -> None:
    """Holding an arrow key builds no detail per row passed: one, ~150 ms after the last move;
    a click shows its block at once."""
    for _ in range(6):
        new_block(node)
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    model, view, detail = panel.blocks_model, panel.blocks_view.table, panel.detail
    top = model.head
    loaded_row(loop, model, 0)
    reads = lambda: sum(  # noqa: E731
        1
        for e in controller.feed.exchanges
        if "/block?" in e.url and "number=" in e.url and "minnumber" not in e.url
    )
    before = reads()
    click(qtbot, view, 0)  # a click: at once
    assert detail.title.text() == f"Block {top:,}"
    drive(loop, lambda: detail.block.number == top)
    assert reads() == before + 1
    for _ in range(4):
        qtbot.keyClick(view, Qt.Key.Key_Down)
    assert view.currentIndex().data(NUMBER_ROLE) == top - 4
    assert detail.title.text() == f"Block {top:,}"  # nothing built while the keys move
    drive(loop, lambda: detail.block.number == top - 4)
    loop.run_until_complete(asyncio.sleep(0.3))
    assert reads() == before + 2  # the block it settled on, and only that one
    # Enter: at once
    qtbot.keyClick(view, Qt.Key.Key_Up)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert detail.title.text() == f"Block {top - 3:,}"
    drive(loop, lambda: detail.block.number == top - 3)


def test_a_replaced_detail_gets_no_late_answer_and_its_reads_stop(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
) -> None:
    alice = node.client("alice")
    counter = deploy(alice, "Counter", COUNTER)
    called = submit(alice, call_tx(counter, "add", {"n": 2}, "Counter"))[0]
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    detail = panel.detail
    # a block asked for, then a transaction before the block's answer came: the transaction stays
    panel.show_block(1)
    panel.show_transaction(called["hash"])
    drive(loop, lambda: detail.inspector.details is not None)
    loop.run_until_complete(asyncio.sleep(0.5))
    assert detail.stack.currentWidget() is detail.inspector
    assert detail.title.text().startswith("Transaction")
    # an instance's reads (state, transactions, tables, events) are cancelled when a block
    # replaces it
    panel.tabs.setCurrentWidget(panel.contracts_view)
    drive(loop, lambda: "Counter" in panel.contracts_view.model.names())
    from app.services.explorer_contracts import Instance

    shown = panel.contracts_view.show_instance(Instance("Counter", counter))
    assert detail.stack.currentWidget() is shown
    assert shown.tasks.running > 0
    tasks = list(shown.tasks._tasks)
    panel.show_block(1)
    assert shown.tasks.running == 0
    loop.run_until_complete(asyncio.sleep(0.05))
    assert tasks and all(t.cancelled() for t in tasks)
    drive(loop, lambda: detail.stack.currentWidget() is detail.block)
    assert detail.block.number == 1


def test_a_block_of_more_than_a_page_lists_every_transaction_by_scrolling(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
    qtmodeltester: Any,
) -> None:
    """150 transfers in one block (one batched POST): the block's list is the lazy model,
    a page (100) at first, the rest read as it is scrolled to the end, and every row opens."""
    alice = node.client("alice")
    bob = node.address("bob")
    sent = submit(alice, *[transfer_tx(bob, i + 1) for i in range(150)])
    assert len(sent) == 150 and all(r["status"] == "Success" for r in sent), sent[:2]
    number = int(head_of(alice)["blockData"]["number"])
    in_block = [
        alice.get(f"{ETH}/transaction", params={"blocknumber": number, "offset": o}).json()
        for o in (0, 100)
    ]
    assert [len(p) for p in in_block] == [100, 50]  # one block holds them all
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    detail = panel.detail
    panel.show_block(number)
    drive(loop, lambda: detail.stack.currentWidget() is detail.block)
    block = detail.block
    assert block.count_label.text() == "150 transactions (click one to inspect it)"
    model, table = block.model, block.table
    drive(loop, lambda: model.rowCount() > 0 and not model.pages.loading)
    assert model.rowCount() == 100  # the first page only, until scrolled
    qtmodeltester.check(model, force_py=True)
    table.setFocus()
    table.setCurrentIndex(model.index(0, 0))
    for _ in range(5):  # the keyboard way to the end: it reads the next page
        qtbot.keyClick(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        if model.rowCount() == 150:
            break
        drive(loop, lambda: not model.pages.loading)
    drive(loop, lambda: model.rowCount() == 150 and not model.pages.loading)
    assert model.at_end
    hashes = [model.index(r, 0).data(TX_ROLE).hash for r in range(150)]
    assert set(hashes) == {r["hash"] for r in sent}
    qtmodeltester._cleanup()  # one tester, one model connection (see the test above)
    qtmodeltester.check(model, force_py=True)
    # the last row, reached by scrolling, opens in the inspector
    click(qtbot, table, 149, 2)
    drive(loop, lambda: detail.inspector.details is not None)
    assert detail.stack.currentWidget() is detail.inspector
    assert detail.inspector.details is not None
    assert detail.inspector.details.hash == hashes[149]


def test_detail_pane_and_contracts_columns_are_wide_enough_on_first_show(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
) -> None:
    """Tried by hand at 1600x1000: the detail pane got ~22 % of the width (the lists' size hint
    took the rest) and the Contracts tree cut its header to "Instances / cha"."""
    window.resize(1580, 960)
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    lists, detail = panel.splitter.sizes()
    assert detail >= 0.35 * (lists + detail), (lists, detail)
    tree = panel.contracts_view.tree
    header = tree.header()
    text = str(tree.model().headerData(1, Qt.Orientation.Horizontal))
    assert header.sectionSize(1) >= header.fontMetrics().horizontalAdvance(text) + 12
