"""The HTTP inspector dock against a real sandbox node: filters by method, status and URL text,
writes only, the app's background polls marked and hidden (with their count), its height."""

from __future__ import annotations

import asyncio
import time

import pytest
import qasync
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QCheckBox
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.client.models import TxRequest
from app.services.controller import AppController
from app.services.inspector import Exchange, InspectorFeed
from app.ui.shell.inspector_dock import InspectorDock
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.integration.node_fixture import RunningNode

pytestmark = pytest.mark.cirrus_families  # the default sandbox and a STRATO 16-only one


def click(qtbot: QtBot, box: QCheckBox) -> None:
    """Click a check box on its indicator, as a user does."""
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))


def shown(dock: InspectorDock) -> list[Exchange]:
    """What the table shows, read through the view's own model."""
    model = dock.table.model()
    assert model is dock.proxy
    assert model.rowCount() == len(dock.visible_exchanges())
    return dock.visible_exchanges()


def open_dock(window: MainWindow, loop: qasync.QEventLoop) -> InspectorDock:
    window.inspector_action.trigger()
    dock = window.inspector
    drive(loop, dock.isVisible)
    return dock


def test_filters_by_method_status_and_url_text(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    drive(loop, lambda: controller.account.view.loaded)
    dock = open_dock(window, loop)
    tester = ModelTester(None)
    tester.check(dock.proxy)  # keeps checking the proxy's signals while rows come and go
    client = controller.session.client
    assert client is not None
    # the user's own requests: GETs (the account), a POST (a transfer), a 400 (a missing contract)
    (sent,) = loop.run_until_complete(
        client.submit([TxRequest.transfer(node.address("bob"), 1)], resolve=True)
    )
    errors: list[str] = []
    controller.tasks.start(
        "Reading a contract", client.state("Nope", "12" * 20), on_error=errors.append
    )
    drive(loop, lambda: errors)
    everything = shown(dock)
    assert {"GET", "POST"} <= {ex.method for ex in everything}

    # method: only POSTs
    dock.method_filter.setFocus()
    qtbot.keyClicks(dock.method_filter, "POST")
    assert dock.method_filter.currentText() == "POST"
    posts = shown(dock)
    assert posts and all(ex.method == "POST" for ex in posts)
    assert any("/transaction" in ex.url for ex in posts)
    dock.method_filter.setCurrentIndex(0)
    assert len(shown(dock)) == len(everything)

    # status: client errors only, then 2xx only
    dock.status_filter.setFocus()
    qtbot.keyClicks(dock.status_filter, "4")
    assert dock.status_filter.currentText().startswith("4xx")
    failed = shown(dock)
    assert failed and all(ex.status is not None and 400 <= ex.status < 500 for ex in failed)
    assert any("/contracts/Nope/" in ex.url for ex in failed)
    qtbot.keyClick(dock.status_filter, Qt.Key.Key_Home)  # "Any status", then the next: 2xx
    qtbot.keyClick(dock.status_filter, Qt.Key.Key_Down)
    assert dock.status_filter.currentText().startswith("2xx")
    ok = shown(dock)
    assert ok and all(ex.status is not None and 200 <= ex.status < 300 for ex in ok)
    assert not any("/contracts/Nope/" in ex.url for ex in ok)
    qtbot.keyClick(dock.status_filter, Qt.Key.Key_Home)
    assert dock.status_filter.currentIndex() == 0

    # URL text, case-insensitive, typed into the filter field (Ctrl+F reaches it)
    dock.table.setFocus()
    qtbot.keyClick(dock.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert dock.text_filter.hasFocus()
    qtbot.keyClicks(dock.text_filter, "/CONTRACTS/nope")
    only = shown(dock)
    assert len(only) == 1 and "/contracts/Nope/" in only[0].url
    # selecting it shows it; a filter that hides it clears the detail
    assert dock.select_exchange(only[0])
    assert "/contracts/Nope/" in dock.request_view.toPlainText()
    assert dock.shown_label.text().startswith("1 of ")
    qtbot.keyClicks(dock.text_filter, "-not-there")
    assert shown(dock) == [] and dock.request_view.toPlainText() == ""
    qtbot.keyClick(dock.text_filter, Qt.Key.Key_Escape)
    assert dock.text_filter.text() == ""
    assert len(shown(dock)) >= len(everything)
    assert sent.ok


def test_writes_only_and_background_polls_hidden_with_their_count(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    connect(loop, controller, node, "alice")
    drive(loop, lambda: controller.account.view.loaded)
    dock = open_dock(window, loop)
    feed = controller.feed
    tester = ModelTester(None)
    tester.check(dock.proxy)
    assert dock.hide_background.isChecked()  # on by default

    # the health watch polls: marked, held, hidden, counted
    controller.session.health_interval = 0.02
    drive(loop, lambda: feed.count(True) >= 20)
    polls = [ex for ex in feed.exchanges if ex.url.endswith("/health") and ex.background]
    assert polls and all(ex.background == "health poll" for ex in polls)
    assert not any(ex.background for ex in shown(dock))
    assert f"({dock.model.background_count:,} hidden)" in dock.hide_background.text()
    assert dock.hidden_background() == feed.count(True) > 0
    # slower from here: at 50 polls a second the feed's 500 background places turn over in
    # 10 s, which a loaded machine spends on the steps below
    controller.session.health_interval = 0.2

    # a transfer sent without waiting: the tracker polls its result in the background, and the
    # new block's reads (the account refreshed) are background too
    client = controller.session.client
    assert client is not None
    (res,) = loop.run_until_complete(
        client.submit([TxRequest.transfer(node.address("bob"), 2)], resolve=False)
    )
    controller.pending.track(res.hash, "test transfer")
    drive(loop, lambda: not controller.pending.hashes)
    drive(loop, lambda: any(ex.background == "new block" for ex in feed.exchanges))
    tracker = [ex for ex in feed.exchanges if ex.url.endswith("/transactions/results")]
    assert tracker and all(ex.background == "transaction tracker" for ex in tracker)
    submit = [ex for ex in feed.exchanges if ex.method == "POST" and "/transaction?" in ex.url]
    assert submit and not submit[-1].background  # the user's own write

    # writes only: the user's POST, not the tracker's (hidden as a background poll)
    click(qtbot, dock.writes_only)
    assert dock.writes_only.isChecked()
    writes = shown(dock)
    assert submit[-1] in writes
    assert all(ex.method in ("POST", "PUT", "PATCH", "DELETE") for ex in writes)
    assert not any(ex in writes for ex in tracker)
    # showing the background polls brings the tracker's POSTs in (still no GET)
    click(qtbot, dock.hide_background)
    assert not dock.hide_background.isChecked()
    writes = shown(dock)
    assert all(ex in writes for ex in tracker)
    assert all(ex.method != "GET" for ex in writes)
    assert dock.hidden_background() == 0 and "hidden" not in dock.hide_background.text()
    click(qtbot, dock.writes_only)
    assert any(ex.url.endswith("/health") for ex in shown(dock))
    # a background row says so (the latest poll: still held by the feed)
    polls = [ex for ex in feed.exchanges if ex.url.endswith("/health") and ex.background]
    assert dock.select_exchange(polls[-1])
    assert "in the background by the app's health poll" in dock.request_view.toPlainText()
    click(qtbot, dock.hide_background)
    assert not any(ex.background for ex in shown(dock))

    # a refresh the user asks for is the user's own (not hidden)
    controller.session.health_interval = 3600.0
    drive(loop, lambda: not controller.account._refreshing)
    before = {ex.id for ex in feed.exchanges}
    window.refresh()
    drive(loop, lambda: not controller.account._refreshing and len(feed.exchanges) > len(before))
    mine = [ex for ex in feed.exchanges if ex.id not in before and "/account" in ex.url]
    assert mine and not any(ex.background for ex in mine)
    assert all(ex in shown(dock) for ex in mine)


def test_background_polls_do_not_push_the_users_requests_out(qtbot: QtBot) -> None:
    feed = InspectorFeed(limit=5, background_limit=3)
    dock = InspectorDock(feed)
    qtbot.addWidget(dock)
    tester = ModelTester(None)
    tester.check(dock.proxy)

    def add(n: int, background: str = "") -> Exchange:
        ex = Exchange(n, "GET", f"http://node/{background or 'mine'}/{n}", {}, "", 0.0)
        ex.background = background
        feed.append(ex)
        return ex

    mine = [add(i) for i in range(4)]
    for i in range(100):
        add(100 + i, "health poll")
    assert feed.count(False) == 4 and feed.count(True) == 3  # each kind within its budget
    assert dock.model.rowCount() == 7
    assert dock.visible_exchanges() == mine
    assert dock.hide_background.text() == "Hide background polls (3 hidden)"
    assert dock.shown_label.text() == "4 of 7 shown"
    more = [add(200 + i) for i in range(3)]
    assert dock.visible_exchanges() == mine[2:] + more  # the oldest of the user's own went
    assert [ex.id for ex in feed.exchanges if ex.background] == [197, 198, 199]
    dock.clear_button.click()
    assert dock.model.rowCount() == 0 and feed.count(True) == 0
    assert dock.hide_background.text() == "Hide background polls"


def test_the_dock_opens_as_a_table_not_a_strip(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    window.resize(1600, 1000)
    for i in range(40):
        ex = Exchange(i, "GET", f"http://node/strato/v2.3/key/{i}", {}, "", time.perf_counter())
        ex.status, ex.elapsed_ms = 200, 1.0
        controller.feed.append(ex)
    dock = open_dock(window, loop)
    loop.run_until_complete(asyncio.sleep(0.2))  # the first show's sizing runs queued
    view = dock.table.viewport()
    in_view = dock.table.rowAt(view.height() - 1) - dock.table.rowAt(0) + 1
    assert in_view >= 9, in_view  # it was a strip of three to seven rows
