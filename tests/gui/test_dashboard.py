"""The dashboard panel against a real sandbox node (issue 9): number cards equal to what the
node's API says, block plots that follow new blocks (transactions per block, their types), read
incrementally and not while hidden, bounded series, the app's request latency and pending count,
and pyqtgraph loaded only when the panel is first shown."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import httpx
import qasync

from app.client.models import Block, Transaction, TxRequest
from app.services.controller import AppController
from app.services.dashboard import DashboardService, Ring
from app.services.pending import PendingTracker
from app.ui.panels.dashboard.panel import DashboardPanel
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect, drive
from tests.integration.node_fixture import (
    ROOT,
    RunningNode,
    call_tx,
    deploy,
    submit,
    transfer_tx,
    upload_tx,
)

COUNTER = "contract Counter { uint public count; function add(uint n) public { count += n; } }"
ETH = "/svc-api/eth/v1.2"


def show_dashboard(window: MainWindow, loop: qasync.QEventLoop) -> DashboardPanel:
    panel = next(p for p in window.panels if isinstance(p, DashboardPanel))
    window.nav.setCurrentRow(window.panels.index(panel))
    drive(loop, lambda: panel.plots_ready and panel.service.held > 0)
    return panel


def block_of(client: httpx.Client, tx_hash: str) -> int:
    r = client.get(f"{ETH}/transaction", params={"hash": tx_hash})
    assert r.status_code == 200, r.text
    return int(r.json()[0]["blockNumber"])


def curve_points(curve: Any) -> dict[int, float]:
    x, y = curve.getOriginalDataset()
    if x is None:  # nothing drawn yet
        return {}
    return {int(a): float(b) for a, b in zip(x, y, strict=True)}


def expected_cards(client: httpx.Client) -> dict[str, int]:
    r = client.get("/cirrus/search/Certificate", params={"select": "count"})
    assert r.status_code == 200, r.text
    users = int(r.json()[0]["count"])
    r = client.get("/bloc/v2.2/contracts")
    assert r.status_code == 200, r.text
    contracts = sum(len(v) for v in r.json().values())
    r = client.get(f"{ETH}/chain")
    assert r.status_code == 200, r.text
    return {"users": users, "contracts": contracts, "chains": len(r.json())}


def card_values(panel: DashboardPanel) -> dict[str, str]:
    return {
        "block": panel.card_block.value.text(),
        "users": panel.card_accounts.value.text(),
        "contracts": panel.card_contracts.value.text(),
        "chains": panel.card_chains.value.text(),
        "pending": panel.card_pending.value.text(),
    }


def test_cards_show_the_nodes_numbers(
    window: MainWindow, controller: AppController, loop: qasync.QEventLoop, node: RunningNode
) -> None:
    alice = node.client("alice")
    # a private chain alice can see, so the chains card counts something
    r = alice.post(
        "/bloc/v2.2/chain",
        json={
            "label": "dash",
            "src": "contract Gov { }",
            "contract": "Gov",
            "args": {},
            "members": [{"orgName": "Acme", "access": True}],
            "balances": [{"address": node.address("alice"), "balance": 100}],
            "metadata": {"VM": "SolidVM"},
        },
    )
    assert r.status_code == 200, r.text
    connect(loop, controller, node)
    panel = show_dashboard(window, loop)
    want = expected_cards(alice)
    assert want["users"] >= 4 and want["chains"] >= 1 and want["contracts"] >= 1
    drive(loop, lambda: card_values(panel)["contracts"] != "—")
    shown = card_values(panel)
    assert shown["users"] == f"{want['users']:,}"
    assert shown["contracts"] == f"{want['contracts']:,}"
    assert shown["chains"] == f"{want['chains']:,}"
    assert shown["pending"] == "0"
    head = int(alice.get("/health").json()["lastBlock"]["number"])
    drive(loop, lambda: card_values(panel)["block"] == f"{head:,}")

    # a new contract: the card follows after a refresh (cards are re-read at most every 10 s)
    deploy(alice, "Counter", COUNTER)
    head = int(alice.get("/health").json()["lastBlock"]["number"])
    drive(loop, lambda: card_values(panel)["block"] == f"{head:,}")
    panel.refresh_button.click()
    drive(loop, lambda: card_values(panel)["contracts"] == f"{want['contracts'] + 1:,}")
    assert not panel.card_contracts.toolTip().count("Not available")


def test_block_plots_follow_new_blocks(
    window: MainWindow, controller: AppController, loop: qasync.QEventLoop, node: RunningNode
) -> None:
    alice = node.client("alice")
    counter = deploy(alice, "Counter", COUNTER)
    connect(loop, controller, node)
    panel = show_dashboard(window, loop)
    service = panel.service
    before = service.last_number
    assert before is not None
    block_requests = sum(1 for ex in controller.feed.exchanges if "/block" in ex.url)

    # one block with one transaction of each type, then one with two transfers
    mixed = submit(
        alice,
        upload_tx("Counter", COUNTER),
        call_tx(counter, "add", {"n": 2}, name="Counter"),
        transfer_tx(node.address("bob"), 5),
    )
    assert [res["status"] for res in mixed] == ["Success"] * 3
    transfers = submit(
        alice, transfer_tx(node.address("bob"), 1), transfer_tx(node.address("carol"), 1)
    )
    mixed_block = block_of(alice, mixed[0]["hash"])
    assert {block_of(alice, res["hash"]) for res in mixed} == {mixed_block}
    transfer_block = block_of(alice, transfers[0]["hash"])
    assert transfer_block > mixed_block > before

    drive(loop, lambda: (service.last_number or 0) >= transfer_block)
    drive(loop, lambda: curve_points(panel.tx_curve).get(transfer_block) == 2.0)
    points = curve_points(panel.tx_curve)
    assert points[mixed_block] == 3.0
    numbers = list(service.column("number"))
    assert numbers == list(range(int(numbers[0]), int(numbers[-1]) + 1))  # no gaps, no repeats
    i = numbers.index(mixed_block)
    assert [int(service.column(k)[i]) for k in ("Contract", "FunctionCall", "Transfer")] == [
        1,
        1,
        1,
    ]
    j = numbers.index(transfer_block)
    assert int(service.column("Transfer")[j]) == 2
    # the type bars count the window's transactions, equal to the blocks the node serves
    data = service.window_data()
    lo, hi = int(data.numbers[0]), int(data.numbers[-1])
    r = alice.get(f"{ETH}/block", params={"minnumber": lo, "maxnumber": hi})
    kinds = [t["transactionType"] for b in r.json() for t in b["receiptTransactions"]]
    heights = list(panel.type_bars.opts["height"])
    assert heights == [kinds.count(k) for k in ("Contract", "FunctionCall", "Transfer")]
    assert heights[2] >= 3
    # the interval plot has one point per block with its predecessor held, in seconds
    ix, iy = panel.interval_curve.getOriginalDataset()
    assert len(ix) >= len(data.numbers) - 1 and all(v >= 0 for v in iy)
    # incremental: one small range request per new block, never the whole window again
    new_requests = [ex.url for ex in controller.feed.exchanges if "/block" in ex.url]
    new_requests = new_requests[block_requests:]
    assert new_requests and all("minnumber" in u for u in new_requests)
    assert len(new_requests) <= transfer_block - before + 1
    firsts = [int(httpx.URL(u).params["minnumber"]) for u in new_requests]
    assert min(firsts) > before  # nothing held was read again

    # a wider window reads the older blocks the series lacks
    panel.window_box.setCurrentIndex(1)  # last 100
    head = service.last_number or 0
    drive(loop, lambda: service.held == min(100, head + 1))
    drive(loop, lambda: len(curve_points(panel.tx_curve)) == service.held)


def test_hidden_panel_reads_nothing_and_catches_up(
    window: MainWindow, controller: AppController, loop: qasync.QEventLoop, node: RunningNode
) -> None:
    alice = node.client("alice")
    connect(loop, controller, node)
    panel = show_dashboard(window, loop)
    window.nav.setCurrentRow(0)  # the account panel: the dashboard is hidden
    assert not panel.isVisible()
    held_last = panel.service.last_number
    redraws = panel.redraws
    seen = len(controller.feed.exchanges)
    res = submit(alice, transfer_tx(node.address("bob"), 1))
    block = block_of(alice, res[0]["hash"])
    drive(loop, lambda: (controller.session.last_block or 0) >= block)
    loop.run_until_complete(controller.session.poll_health())
    urls = [ex.url for ex in list(controller.feed.exchanges)[seen:]]
    assert not [u for u in urls if "/block" in u]
    assert panel.service.last_number == held_last and panel.redraws == redraws

    window.nav.setCurrentRow(window.panels.index(panel))
    drive(loop, lambda: (panel.service.last_number or 0) >= block)
    drive(loop, lambda: curve_points(panel.tx_curve).get(block) == 1.0)


def test_latency_and_pending_series_come_from_the_app(
    window: MainWindow, controller: AppController, loop: qasync.QEventLoop, node: RunningNode
) -> None:
    connect(loop, controller, node)
    panel = show_dashboard(window, loop)
    service = panel.service
    # the requests made before the first show are there too (from the inspector's feed)
    done = [ex for ex in controller.feed.exchanges if ex.elapsed_ms is not None]
    assert done and service.latency_count == len(done)
    count = service.latency_count
    for _ in range(3):
        loop.run_until_complete(controller.session.poll_health())
    assert service.latency_count >= count + 3
    drive(loop, lambda: len(panel.latency_curve.getOriginalDataset()[0]) == service.latency_count)
    x, ms = panel.latency_curve.getOriginalDataset()
    took = [ex.elapsed_ms for ex in controller.feed.exchanges if ex.elapsed_ms is not None]
    assert sorted(float(v) for v in ms) == sorted(took)
    assert all(v > 0 for v in ms) and all(t <= 0 for t in x)  # seconds before now

    # a transaction sent without waiting: pending goes to 1 and back to 0
    client = controller.session.client
    assert client is not None
    (res,) = loop.run_until_complete(
        client.submit([TxRequest.transfer(node.address("bob"), 1)], resolve=False)
    )
    controller.pending.track(res.hash, "test transfer")
    assert panel.card_pending.value.text() == "1"
    drive(loop, lambda: not controller.pending.hashes)
    assert panel.card_pending.value.text() == "0"
    drive(loop, lambda: list(panel.pending_curve.getOriginalDataset()[1][-3:]) == [1, 0, 0])


def make_block(number: int, kinds: list[str], ts: int = 1_700_000_000) -> Block:
    txs = [
        Transaction(f"{number:032x}{i:032x}", "a" * 40, None, k, number, "", 0)
        for i, k in enumerate(kinds)
    ]
    stamp = f"2023-11-14T22:{(ts + number) // 60 % 60:02d}:{(ts + number) % 60:02d}.000Z"
    return Block(number, f"{number:064x}", f"{number - 1:064x}", stamp, txs)


def test_series_stay_bounded(
    controller: AppController, loop: qasync.QEventLoop, node: RunningNode
) -> None:
    connect(loop, controller, node)
    service = DashboardService(
        controller.session, controller.feed, capacity=50, latency_capacity=20, pending_capacity=10
    )
    tracker = PendingTracker(None)  # no client: counts only
    service.activate(tracker)
    kinds = ["Contract", "FunctionCall", "Transfer"]
    for start in range(0, 120, 7):  # in small batches, through the ring's compaction
        service.add_blocks([make_block(n, kinds[: n % 4]) for n in range(start, start + 7)])
    assert service.held == 50
    assert (service.first_number, service.last_number) == (76, 125)
    assert list(service.column("number")) == list(range(76, 126))
    assert list(service.column("txs")[:4]) == [0, 1, 2, 3]  # block 76: 76 % 4 == 0
    service.set_window(1_000)
    assert service.window == 50  # a window is never wider than the capacity
    assert service.window_data().size == 50
    # one batch larger than the capacity keeps its newest blocks
    service.add_blocks([make_block(n, ["Transfer"]) for n in range(126, 300)])
    assert (service.held, service.first_number, service.last_number) == (50, 250, 299)
    assert service.window_data().type_counts == {"Contract": 0, "FunctionCall": 0, "Transfer": 50}
    # a gap starts the series again; older blocks join only without a gap
    service.add_blocks([make_block(400, []), make_block(401, ["Transfer"])])
    assert (service.first_number, service.last_number) == (400, 401)
    assert service.prepend_blocks([make_block(397, [])]) == 0
    assert service.prepend_blocks([make_block(n, []) for n in range(300, 400)]) == 48
    assert (service.held, service.first_number) == (50, 352)

    # latency: real requests of the app through the inspector's feed
    for _ in range(25):
        loop.run_until_complete(controller.session.poll_health())
    assert service.latency_count == 20
    # pending: one point per change of the tracker's count (0 when activated, then 1..15)
    for i in range(15):
        tracker.track(f"{i:064x}")
    x, y = service.pending_points()
    assert list(y) == [*range(6, 16), 15]  # the newest ten, and the step on to "now"
    assert list(x[:-1]) == sorted(x[:-1]) and x[-1] == 0.0


def test_ring_prepend_and_append_keep_order() -> None:
    ring = Ring(5, ("v",))
    import numpy as np

    ring.append(np.array([[1.0, 2.0, 3.0]]))
    assert ring.prepend(np.array([[-1.0, 0.0]])) == 2
    assert list(ring.column("v")) == [-1, 0, 1, 2, 3]
    assert ring.prepend(np.array([[-3.0, -2.0]])) == 0  # full: the newest five stay
    for v in range(4, 20):
        ring.append(np.array([[float(v)]]))
    assert list(ring.column("v")) == [15, 16, 17, 18, 19]


def test_pyqtgraph_is_loaded_only_when_the_dashboard_is_first_shown(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import asyncio, json, sys
        from pathlib import Path
        from PySide6.QtWidgets import QApplication
        import qasync
        from app.services.controller import AppController
        from app.services.secret_service import SecretService
        from app.ui.panels.dashboard.panel import DashboardPanel
        from app.ui.shell.main_window import MainWindow

        app = QApplication([])
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        cfg = Path({str(tmp_path)!r})
        c = AppController(config_directory=cfg / "config", sandbox_dir=cfg / "sandbox",
                          secrets=SecretService(cfg / "config", use_keyring=lambda: False))
        w = MainWindow(c)
        w.show()
        app.processEvents()
        out = {{"before": sorted(m for m in ("pyqtgraph", "numpy") if m in sys.modules)}}
        panel = next(p for p in w.panels if isinstance(p, DashboardPanel))

        async def show():
            w.nav.setCurrentRow(w.panels.index(panel))
            for _ in range(500):
                if panel.plots_ready:
                    break
                await asyncio.sleep(0.01)
            out["ready"] = panel.plots_ready
            out["after"] = sorted(m for m in ("pyqtgraph", "numpy") if m in sys.modules)
            await c.tasks.shutdown()

        with loop:
            loop.run_until_complete(show())
        print(json.dumps(out))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"before": [], "ready": True, "after": ["numpy", "pyqtgraph"]}


def test_dashboard_at_1024x640_scrolls_instead_of_squashing(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop
) -> None:
    """In a 1024x640 window the panel gets about 830x500, and 830x340 with the HTTP inspector
    docked below: the plots keep their minimum size and the panel scrolls to them."""
    connect(loop, controller, node)
    panel = DashboardPanel(controller)  # on its own, at the sizes the window gives it
    panel.resize(830, 500)
    panel.show()
    drive(loop, lambda: panel.plots_ready and panel.service.held > 0)
    try:
        for height in (500, 340):
            panel.resize(830, height)
            loop.run_until_complete(asyncio.sleep(0.2))
            hint = panel.minimumSizeHint()
            assert hint.width() <= 830 and hint.height() <= height, hint
            assert panel.height() == height
            for plot in panel._plots():
                assert plot.height() >= 160 and plot.width() >= 200, plot.objectName()
            for card in (panel.card_block, panel.card_pending):
                assert card.value.height() >= card.value.minimumSizeHint().height()
        bar = panel.scroller.verticalScrollBar()
        assert bar.maximum() > 0  # the lower plots are reached by scrolling
    finally:
        panel.close()
        panel.deleteLater()
