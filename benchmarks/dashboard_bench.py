"""Dashboard panel with 10,000 blocks: redraw time and event-loop stalls, offscreen.

Each round is a fresh process (so the first show really imports pyqtgraph and numpy) with
offscreen Qt, a qasync loop as ``ui/shell/app.py`` sets it up, an ``AppController`` (no node: the
blocks are fed straight into its ``DashboardService``, as ``sync`` would add them) and a
``DashboardPanel`` of 1200x800 in the "last 10,000 blocks" window. Measured:

a) first show: ``show()`` until the plots are built (pyqtgraph imported in a worker thread,
   then five plots built on the GUI thread), and the longest stall meanwhile;
b) feeding: 10,000 blocks (0-30 transactions of the three types each) in batches of 20 every
   2 ms, with two finished requests in the HTTP inspector's feed per batch and a pending
   transaction every 50 batches; the panel redraws on its own 200 ms timer. The longest stall
   of a 5 ms heartbeat QTimer (minus its 5 ms) over the whole feed, and the timer redraws' time;
c) steady state, for each window (15, 100, 1,000, 10,000 blocks) with the buffer full: one new
   block and one finished request, ``redraw()`` (the series into the plots) and a full paint
   of the five plots (``grab()``), 20 times; the redraw plus paint is the update time.

Targets (issue 9): update (redraw + paint) < 16 ms at 10,000 blocks, stall while feeding
< 50 ms; judged on the median of ``--rounds`` rounds. Results print as a table and go to
benchmarks/results/dashboard.json.

    python benchmarks/dashboard_bench.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the app

from benchlib import ROOT, machine, mark, rounded, utc_now, write_results

TARGETS = {"update_ms": 16.0, "stall_ms": 50.0}
BLOCKS = 10_000
BATCH = 20
PANEL_SIZE = (1200, 800)
STEADY_REPS = 20
SEED = 20_250_901
TIMEOUT_S = 60.0


# ================================================================ one round (its own process)


def make_blocks(first: int, n: int, rng: random.Random) -> list[Any]:
    from app.client.models import Block, Transaction

    kinds = ("Contract", "FunctionCall", "FunctionCall", "Transfer", "Transfer", "Transfer")
    t0 = 1_700_000_000
    blocks = []
    for number in range(first, first + n):
        txs = [
            Transaction(f"{number:040x}{i:024x}", "a" * 40, None, rng.choice(kinds), number, "", 0)
            for i in range(rng.randrange(31))
        ]
        ts = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t0 + number * 2))
        blocks.append(Block(number, f"{number:064x}", f"{number - 1:064x}", ts, txs))
    return blocks


def one_round(out: Path, seed: int) -> None:
    from concurrent.futures import ThreadPoolExecutor

    import qasync
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.services.controller import AppController
    from app.services.inspector import Exchange
    from app.services.secret_service import SecretService
    from app.ui.panels.dashboard.panel import DashboardPanel

    app = QApplication([sys.argv[0]])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    executor = ThreadPoolExecutor(2, thread_name_prefix="bench-io")
    loop.set_default_executor(executor)
    tmp = Path(tempfile.mkdtemp(prefix="dashboard-bench-"))
    controller = AppController(
        config_directory=tmp / "config",
        sandbox_dir=tmp / "sandbox",
        secrets=SecretService(tmp / "config", use_keyring=lambda: False),
    )
    panel = DashboardPanel(controller)
    panel.resize(*PANEL_SIZE)
    rng = random.Random(seed)  # blocks are made batch by batch: the app never holds 10,000
    # Block objects (the service keeps numpy rows), and a heap of them would slow the collector

    def finished(rng: random.Random) -> Exchange:
        """A request the HTTP inspector saw finish (what the latency plot gets)."""
        ex = Exchange(0, "GET", "http://node/health", {}, "", time.perf_counter())
        ex.status, ex.elapsed_ms = 200, rng.uniform(1, 40)
        return ex

    beat = {"last": time.perf_counter(), "max": 0.0}

    def heartbeat() -> None:
        now = time.perf_counter()
        beat["max"] = max(beat["max"], now - beat["last"] - 0.005)
        beat["last"] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(heartbeat)

    def reset_beat() -> None:
        beat["last"], beat["max"] = time.perf_counter(), 0.0

    async def measure() -> dict[str, Any]:
        timer.start()
        await asyncio.sleep(0.05)
        for name in ("pyqtgraph", "numpy"):
            if name in sys.modules:
                raise SystemExit(f"{name} was imported before the panel was shown")
        reset_beat()
        t0 = time.perf_counter()
        panel.show()
        while not panel.plots_ready:
            if time.perf_counter() - t0 > TIMEOUT_S:
                raise SystemExit("the plots were not built")
            await asyncio.sleep(0.001)
        first_show_ms = (time.perf_counter() - t0) * 1000
        await asyncio.sleep(0.3)  # the first paint of the plots
        first_show_stall = beat["max"] * 1000

        service = panel.service
        panel.window_box.setCurrentIndex(panel.window_box.count() - 1)  # last 10,000 blocks
        tracker = controller.pending
        feed = controller.feed
        redraws: list[float] = []
        ingest = 0.0
        seen = panel.redraws
        reset_beat()
        t_feed = time.perf_counter()
        for b, start in enumerate(range(0, BLOCKS, BATCH)):
            batch = make_blocks(start, BATCH, rng)
            t = time.perf_counter()
            service.add_blocks(batch)
            ingest += time.perf_counter() - t
            for _ in range(2):
                feed.updated.emit(finished(rng))
            if b % 50 == 0:
                tracker.track(f"{b:064x}")
            await asyncio.sleep(0.002)
            if panel.redraws != seen:
                seen = panel.redraws
                redraws.append(panel.last_redraw_ms)
        await asyncio.sleep(0.4)  # the last timer redraw and its paint
        feed_s = time.perf_counter() - t_feed
        feed_stall = beat["max"] * 1000
        if service.held != BLOCKS:
            raise SystemExit(f"the service holds {service.held} blocks, not {BLOCKS}")

        steady: dict[str, dict[str, float]] = {}
        nxt = BLOCKS
        for index in range(panel.window_box.count()):
            panel.window_box.setCurrentIndex(index)
            window = service.window
            redraw_ms, paint_ms = [], []
            for _ in range(STEADY_REPS):
                service.add_blocks(make_blocks(nxt, 1, rng))
                nxt += 1
                feed.updated.emit(finished(rng))  # a new block comes with requests
                t = time.perf_counter()
                panel.redraw()
                t2 = time.perf_counter()
                panel.plot_area.grab()
                t3 = time.perf_counter()
                redraw_ms.append((t2 - t) * 1000)
                paint_ms.append((t3 - t2) * 1000)
                await asyncio.sleep(0.01)
            updates = [a + b for a, b in zip(redraw_ms, paint_ms, strict=True)]
            steady[str(window)] = {
                "redraw_ms": statistics.median(redraw_ms),
                "paint_ms": statistics.median(paint_ms),
                "update_ms": statistics.median(updates),
                "update_max_ms": max(updates),
            }
        timer.stop()
        await controller.tasks.shutdown()
        return {
            "first_show_ms": first_show_ms,
            "first_show_stall_ms": first_show_stall,
            "feed_s": feed_s,
            "ingest_us_per_block": ingest / BLOCKS * 1e6,
            "timer_redraws": len(redraws),
            "timer_redraw_ms": statistics.median(redraws) if redraws else 0.0,
            "timer_redraw_max_ms": max(redraws, default=0.0),
            "stall_ms": feed_stall,
            "steady": steady,
            "update_ms": steady[str(BLOCKS)]["update_ms"],
            "held": service.held,
            "latency_points": service.latency_count,
        }

    try:
        with loop:
            result = loop.run_until_complete(measure())
        out.write_text(json.dumps(result))
        panel.deleteLater()
        controller.deleteLater()
        app.processEvents()
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
        shutil.rmtree(tmp, ignore_errors=True)


# ================================================================ rounds and report


def run_round(seed: int, work: Path) -> dict[str, Any]:
    out = work / f"round-{seed}.json"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, __file__, "--round", str(out), "--seed", str(seed)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if proc.returncode != 0 or not out.exists():
        raise SystemExit(f"the round failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def median_of(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(float(r[key]) for r in runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="fresh processes (default 3)")
    ap.add_argument("--round", type=Path, help=argparse.SUPPRESS)  # one round, internal
    ap.add_argument("--seed", type=int, default=SEED, help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.round:
        one_round(opts.round, opts.seed)
        return 0
    work = Path(tempfile.mkdtemp(prefix="dashboard-bench-"))
    runs = []
    try:
        for i in range(opts.rounds):
            runs.append(run_round(SEED + i, work))
            r = runs[-1]
            print(
                f"round {i + 1}/{opts.rounds}: first show {r['first_show_ms']:.0f} ms "
                f"(stall {r['first_show_stall_ms']:.1f} ms), feed stall {r['stall_ms']:.1f} ms, "
                f"update at {BLOCKS:,} blocks {r['update_ms']:.2f} ms",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    windows = list(runs[0]["steady"])
    steady = {
        w: {
            k: statistics.median(float(r["steady"][w][k]) for r in runs)
            for k in ("redraw_ms", "paint_ms", "update_ms", "update_max_ms")
        }
        for w in windows
    }
    summary = {
        key: median_of(runs, key)
        for key in (
            "first_show_ms",
            "first_show_stall_ms",
            "feed_s",
            "ingest_us_per_block",
            "timer_redraw_ms",
            "timer_redraw_max_ms",
            "stall_ms",
            "update_ms",
        )
    }
    print()
    print(f"{'window':>8} {'redraw':>9} {'paint':>9} {'update':>9} {'worst':>9}")
    for w, s in steady.items():
        print(
            f"{int(w):>8,} {s['redraw_ms']:>6.2f} ms {s['paint_ms']:>6.2f} ms "
            f"{s['update_ms']:>6.2f} ms {s['update_max_ms']:>6.2f} ms"
        )
    print()
    print(f"first show until plots built  {summary['first_show_ms']:8.0f} ms")
    print(f"longest stall during it       {summary['first_show_stall_ms']:8.1f} ms")
    print(f"feeding {BLOCKS:,} blocks           {summary['feed_s']:8.2f} s")
    print(f"ingest per block              {summary['ingest_us_per_block']:8.1f} us")
    print(f"timer redraw (median / worst) {summary['timer_redraw_ms']:8.2f} ms", end="")
    print(f" / {summary['timer_redraw_max_ms']:.2f} ms")
    print(f"longest stall while feeding   {summary['stall_ms']:8.1f} ms")
    print()
    verdict = {}
    for key, target in TARGETS.items():
        verdict[key] = summary[key] < target
        print(f"{key:9} target < {target:g} ms: median {summary[key]:.2f} -> {mark(verdict[key])}")
    path = write_results(
        "dashboard",
        rounded(
            {
                "when": utc_now(),
                "machine": machine(),
                "blocks": BLOCKS,
                "rounds": opts.rounds,
                "targets": TARGETS,
                "summary": summary,
                "steady": steady,
                "runs": runs,
                "met": verdict,
            }
        ),
    )
    print(f"\nwritten to {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
