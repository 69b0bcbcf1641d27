"""Explorer panel on a chain of 100,000 blocks and 200,000 transactions, offscreen.

The chain is written in bulk (benchmarks/explorer_data.py) into a data dir the sandbox node
made, then the node serves it like any other. The app (offscreen Qt, a qasync loop, an
``AppController`` signed in as alice, the ``MainWindow`` at 1024x640) shows the Explorer and
measures:

a) first page: from showing the panel until the first row of blocks, and of transactions, is
   on screen (read from the node and in the model);
b) jump to the oldest block: the "Oldest" button until block 0's row is read;
c) scrolling: 150 jumps of the blocks table to random positions and 150 steps down the
   transactions table, 30 ms apart, each page read as it is painted; the longest stall of a
   5 ms heartbeat QTimer (minus its 5 ms) meanwhile, and the GUI thread's own CPU time within
   any one gap (what the app did, as opposed to waiting for a core on a busy machine);
d) new blocks: 20 transfers sent from a worker thread (one block each) while the panel is
   shown; the longest heartbeat stall until they are all on top.

Targets (issue 19): a) < 300 ms, b) < 500 ms, c) and d) < 50 ms. Figures print and go to
benchmarks/results/explorer.json.

    python benchmarks/explorer_bench.py [--blocks 100000] [--txs 200000] [--keep DIR]
                                        [--holders 1000000 | --holders 0]

Then a token's holders (benchmarks/explorer_tokens_bench.py, its own sandbox with a token of
``--holders`` holders; 0 skips it): first page < 300 ms, no stall > 50 ms while scrolling.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the app

import explorer_data
import gui_harness
from benchlib import Node, machine, mark, rounded, utc_now, write_results

TARGETS = {"first_blocks_ms": 300.0, "first_txs_ms": 300.0, "oldest_ms": 500.0}
STALL_MS = 50.0
SEED = 20_261_125


def make_chain(work: Path, blocks: int, txs: int) -> Path:
    data = work / "data"
    node = Node.start(data)
    node.stop()
    t0 = time.perf_counter()
    head, n = explorer_data.grow(data, blocks, txs)
    print(f"chain: head block {head:,}, {n:,} transactions ({time.perf_counter() - t0:.1f} s)")
    return data


def run(node: Node, work: Path, inspector: bool = True, freeze: bool = False) -> dict[str, Any]:
    import httpx

    from app.ui.panels.explorer.panel import ExplorerPanel
    from app.ui.shell.main_window import MainWindow

    loop = gui_harness.app_loop()
    controller = gui_harness.signed_in(loop, node.url, work)
    window = MainWindow(controller)
    window.resize(1024, 640)
    if not inspector:  # the HTTP inspector's table detached: the Explorer's own figures
        from PySide6.QtGui import QStandardItemModel

        window.inspector.table.setModel(QStandardItemModel(window))
    window.show()
    if freeze:  # as the app does after start-up (app/ui/shell/app.py): full collections skip it
        gc.collect()
        gc.freeze()
    panel = next(p for p in window.panels if isinstance(p, ExplorerPanel))
    blocks, txs = panel.blocks_model, panel.txs_model
    beat = gui_harness.Heartbeat()

    gen2 = {"start": 0.0, "max": 0.0}

    def collected(phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            gen2["start"] = time.perf_counter()
        else:
            gen2["max"] = max(gen2["max"], time.perf_counter() - gen2["start"])

    gc.callbacks.append(collected)

    async def until(cond: Any, timeout: float = 30.0) -> float:
        return await gui_harness.until(cond, timeout, "the Explorer")

    def cell(model: Any, row: int, col: int) -> bool:
        return model.rowCount() > row and model.data(model.index(row, col)) not in (None, "…")

    async def measure() -> dict[str, Any]:
        out: dict[str, Any] = {}
        beat.start()
        await asyncio.sleep(0.2)
        # a) first pages
        t0 = time.perf_counter()
        window.nav.setCurrentRow(window.panels.index(panel))
        await until(lambda: cell(blocks, 0, 1))
        out["first_blocks_ms"] = (time.perf_counter() - t0) * 1000
        await until(lambda: cell(txs, 0, 2))
        out["first_txs_ms"] = (time.perf_counter() - t0) * 1000
        out["blocks"] = blocks.rowCount()
        # b) the oldest block
        t0 = time.perf_counter()
        panel.blocks_view.oldest.click()
        await until(lambda: blocks.block(0) is not None)
        out["oldest_ms"] = (time.perf_counter() - t0) * 1000
        # c) scrolling
        rng = random.Random(SEED)
        beat.reset()
        bar = panel.blocks_view.table.verticalScrollBar()
        for _ in range(150):
            bar.setValue(rng.randrange(bar.maximum() + 1))
            await asyncio.sleep(0.03)
        panel.tabs.setCurrentWidget(panel.txs_view)
        tbar = panel.txs_view.table.verticalScrollBar()
        for _ in range(150):
            tbar.setValue(tbar.value() + 40)
            await asyncio.sleep(0.03)
        await until(lambda: not blocks.pages.loading and not txs.pages.loading)
        out["scroll_stall_ms"] = beat.stall_ms
        out["scroll_busy_ms"] = beat.busy_ms
        out["scroll_longest_busy_ms"] = beat.longest_busy_ms
        out["txs_rows_after_scrolling"] = txs.rowCount()
        # d) new blocks
        panel.tabs.setCurrentWidget(panel.blocks_view)
        panel.blocks_view.go_newest()
        await until(lambda: cell(blocks, 0, 1))
        head = blocks.head
        token = node.token("alice")
        bob = await asyncio.to_thread(_address_of, node.url, token, "bob")

        def send() -> None:
            with httpx.Client(
                base_url=node.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
            ) as c:
                for _ in range(20):
                    c.post(
                        "/strato/v2.3/transaction",
                        params={"resolve": "true"},
                        json={
                            "txs": [
                                {"type": "TRANSFER", "payload": {"toAddress": bob, "value": 1}}
                            ],
                            "txParams": {"gasLimit": 100000000, "gasPrice": 1},
                        },
                    ).raise_for_status()
                    time.sleep(0.1)

        beat.reset()
        sender = threading.Thread(target=send)
        sender.start()
        await asyncio.to_thread(sender.join)
        await until(lambda: blocks.head >= head + 20 and cell(blocks, 0, 1), 30)
        await until(lambda: txs.top_block >= blocks.head, 30)
        out["new_blocks"] = blocks.head - head
        out["new_blocks_stall_ms"] = beat.stall_ms
        out["new_blocks_busy_ms"] = beat.busy_ms
        out["gc_gen2_max_ms"] = gen2["max"] * 1000
        beat.stop()
        return out

    try:
        figures: dict[str, Any] = loop.run_until_complete(measure())
        return figures
    finally:
        window.close()


def _address_of(url: str, token: str, user: str) -> str:
    import httpx

    r = httpx.get(
        f"{url}/strato/v2.3/key",
        params={"username": user},
        headers={"Authorization": f"Bearer {token}"},
    )
    r.raise_for_status()
    return str(r.json()["address"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blocks", type=int, default=100_000)
    ap.add_argument("--txs", type=int, default=200_000)
    ap.add_argument("--keep", type=Path, help="reuse (or make and keep) the chain in this dir")
    ap.add_argument(
        "--inspector-off",
        action="store_true",
        help="detach the HTTP inspector's table to see the Explorer's own figures",
    )
    ap.add_argument(
        "--no-gc-freeze",
        action="store_true",
        help="skip the gc.freeze() the app does once it is up (full garbage collections then "
        "walk every object of start-up)",
    )
    ap.add_argument(
        "--holders",
        type=int,
        default=1_000_000,
        help="holders of the token page's scenario (explorer_tokens_bench.py); 0 skips it",
    )
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="explorer-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    data = work / "data"
    if not (data / "node.sqlite3").exists():
        make_chain(work, args.blocks, args.txs)
    node = Node.start(data)
    try:
        figures = run(node, work, inspector=not args.inspector_off, freeze=not args.no_gc_freeze)
    finally:
        node.stop()
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    ok = {k: figures[k] < v for k, v in TARGETS.items()}
    ok["scroll_stall_ms"] = figures["scroll_stall_ms"] < STALL_MS
    ok["new_blocks_stall_ms"] = figures["new_blocks_stall_ms"] < STALL_MS
    targets = {**TARGETS, "scroll_stall_ms": STALL_MS, "new_blocks_stall_ms": STALL_MS}
    print(f"{'figure':<24}{'measured':>12}{'target':>10}")
    for k, target in targets.items():
        print(f"{k:<24}{figures[k]:>10.1f}ms{'< ' + str(int(target)):>10} {mark(ok[k])}")
    print(
        f"the GUI thread's own CPU time in the longest gap: scrolling "
        f"{figures['scroll_busy_ms']:.1f} ms, new blocks {figures['new_blocks_busy_ms']:.1f} ms;"
        f" longest full garbage collection {figures['gc_gen2_max_ms']:.1f} ms"
    )
    print(
        f"blocks {figures['blocks']:,}; transaction rows read by scrolling "
        f"{figures['txs_rows_after_scrolling']:,}; new blocks {figures['new_blocks']}"
    )
    path = write_results(
        "explorer",
        {
            "run": utc_now(),
            "machine": machine(),
            "chain": {"blocks": args.blocks, "transactions": args.txs},
            "figures": {k: rounded(v) for k, v in figures.items()},
            "targets_ms": targets,
            "met": ok,
            "http_inspector_table": "detached" if args.inspector_off else "attached",
            "gc_freeze": not args.no_gc_freeze,
            "note": "measured with other work running on the machine",
        },
    )
    print(f"written to {path}")
    tokens_ok = True
    if args.holders > 0:  # its own process: a fresh QApplication and event loop
        import subprocess

        cmd = [sys.executable, str(Path(__file__).with_name("explorer_tokens_bench.py"))]
        cmd += ["--holders", str(args.holders)]
        if args.keep:
            cmd += ["--keep", str(args.keep / "tokens")]
        tokens_ok = subprocess.run(cmd, check=False).returncode == 0
    return 0 if all(ok.values()) and tokens_ok else 1


if __name__ == "__main__":
    sys.exit(main())
