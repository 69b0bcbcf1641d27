"""Cirrus table viewer on a 1,000,000-row table: the app's own stack, from a query to painted rows.

1. The table: a fresh data dir gets the ``Car`` table of ``--rows`` rows (default 1,000,000),
   built through the node's indexer exactly as ``cirrus_bench.py`` builds it.
2. The node: ``python -m app.node serve`` on that data dir, a separate process (as the app uses
   it). For reference, the node's own time for the requests the viewer sends (first page, count,
   a page in the middle, the last page) is measured with a plain HTTP client.
3. The viewer, once per round, in a fresh process (the "app process"): offscreen Qt, a qasync
   loop set up as ``ui/shell/app.py`` does, an ``AppController`` whose ``Session`` signs in to the
   node over HTTP as alice (password flow), and a ``CirrusTableModel`` in a real ``QTableView``
   (1200x800). A row counts as shown when a paint of the view happened with every visible row's
   data loaded (not the "…" placeholder). Measured:

   a) first page: ``set_query(Car)`` until the first rows are painted with real data;
   b) jump to the end: once the total is known, ``scrollToBottom()`` until the last rows are
      painted with real data;
   c) memory: the process's resident set (VmRSS of /proc/self/status) just before
      ``set_query`` and after ``--jumps`` jumps to random positions (each waited until painted
      with real data), and the growth between the two;
   d) stall: the longest gap of a 5 ms heartbeat QTimer, minus its 5 ms, from ``set_query`` to
      the last jump (the worst event-loop stall the user could feel).

Targets (issue 8): first page < 300 ms, jump < 200 ms, memory growth < 150 MB, stall < 50 ms;
judged on the median of ``--rounds`` rounds. Results print as a table and are written to
benchmarks/results/cirrus_view.json.

    python benchmarks/cirrus_view_bench.py [--quick] [--rows N] [--rounds N] [--jumps N]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
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
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules

from benchlib import ROOT, machine, mark, rounded, running_node, utc_now, write_results
from cirrus_bench import TABLE, build_table, vin_of, wait_idle, wait_quiet

USER = "alice"
SEED = 20_241_123
TARGETS = {"first_page_ms": 300.0, "end_jump_ms": 200.0, "growth_mb": 150.0, "stall_ms": 50.0}
LABELS = {
    "first_page_ms": "first page painted",
    "count_ms": "total known (select=count)",
    "end_jump_ms": "jump to the end painted",
    "jump_ms": "random jump painted (round's median)",
    "growth_mb": "RSS growth",
    "stall_ms": "longest event-loop stall",
}
VIEW_SIZE = (1200, 800)
TIMEOUT_S = 60.0


# ================================================================ the viewer (app process)


def rss_mb() -> float:
    """This process's resident set, from /proc/self/status (VmRSS)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def viewer(url: str, out: Path, jumps: int, seed: int) -> None:
    """One round in this process: sign in, show the table, measure, write ``out`` (JSON)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from concurrent.futures import ThreadPoolExecutor

    import qasync
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QPaintEvent
    from PySide6.QtWidgets import QApplication, QTableView

    from app.client.cirrus_query import CirrusQuery
    from app.services.controller import AppController
    from app.services.profiles import Profile
    from app.services.secret_service import SecretService
    from app.services.session import SANDBOX_CLIENT_ID, Credentials
    from app.ui.panels.tables.cirrus_model import CirrusTableModel

    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)  # as app/ui/shell/app.py sets it up
    asyncio.set_event_loop(loop)
    executor = ThreadPoolExecutor(4, thread_name_prefix="stratoscope-io")
    loop.set_default_executor(executor)
    tmp = Path(tempfile.mkdtemp(prefix="cirrus-view-bench-"))
    secrets = SecretService(tmp / "config", use_keyring=lambda: False)
    controller = AppController(
        config_directory=tmp / "config", sandbox_dir=tmp / "sandbox", secrets=secrets
    )

    class View(QTableView):
        """A QTableView that says when a paint showed every visible row with real data."""

        def __init__(self) -> None:
            super().__init__()
            self.waiter: asyncio.Future[float] | None = None

        def visible_loaded(self, model: CirrusTableModel) -> bool:
            n = model.rowCount()
            if n == 0 or model.columnCount() == 0:
                return False
            top = self.rowAt(0)
            bottom = self.rowAt(self.viewport().height() - 1)
            if top < 0:
                return False
            bottom = n - 1 if bottom < 0 else bottom
            # model.row asks for a missing page, as the paint below would through data()
            return all(model.row(r) is not None for r in range(top, bottom + 1))

        def paintEvent(self, event: QPaintEvent) -> None:
            model = self.model()
            ready = isinstance(model, CirrusTableModel) and self.visible_loaded(model)
            super().paintEvent(event)
            if ready and self.waiter is not None and not self.waiter.done():
                self.waiter.set_result(time.perf_counter())

    view = View()
    model = CirrusTableModel(controller.cirrus, controller.tasks, view)
    view.setModel(model)
    view.setSortingEnabled(True)  # as the Tables panel has it
    view.setWordWrap(False)
    view.resize(*VIEW_SIZE)
    view.show()

    beat = {"last": time.perf_counter(), "max": 0.0}

    def heartbeat() -> None:
        now = time.perf_counter()
        beat["max"] = max(beat["max"], now - beat["last"] - 0.005)
        beat["last"] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(heartbeat)

    async def painted(t0: float, what: str) -> float:
        """Milliseconds from ``t0`` to the first paint with the visible rows' data."""
        fut: asyncio.Future[float] = loop.create_future()
        view.waiter = fut
        view.viewport().update()  # a paint even when nothing changes (pages already cached)
        try:
            t = await asyncio.wait_for(fut, TIMEOUT_S)
        except TimeoutError:
            raise SystemExit(f"{what}: rows not shown after {TIMEOUT_S:.0f} s") from None
        finally:
            view.waiter = None
        return (t - t0) * 1000

    errors: list[str] = []
    model.failed.connect(errors.append)

    async def measure() -> dict[str, Any]:
        profile = Profile("Benchmark node", url, client_id=SANDBOX_CLIENT_ID)
        await controller.connect_profile(profile, Credentials(USER, USER))
        await asyncio.sleep(1.0)  # let the sign-in's follow-up reads settle
        counted = loop.create_future()
        model.total_changed.connect(
            lambda n: counted.done() or counted.set_result((time.perf_counter(), n))
        )
        rss: dict[str, float] = {"before": rss_mb()}
        beat["last"], beat["max"] = time.perf_counter(), 0.0
        timer.start()
        t_set = time.perf_counter()
        model.set_query(CirrusQuery(TABLE))
        first_ms = await painted(t_set, "first page")
        t_count, total = await asyncio.wait_for(counted, TIMEOUT_S)
        rss["after_first_page"] = rss_mb()
        t0 = time.perf_counter()
        view.scrollToBottom()
        end_ms = await painted(t0, "jump to the end")
        if view.rowAt(view.viewport().height() - 1) not in (-1, total - 1):
            raise SystemExit("the jump to the end did not reach the last row")
        last = model.row(total - 1)
        rss["after_end_jump"] = rss_mb()
        rng = random.Random(seed)
        bar = view.verticalScrollBar()
        jump_ms = []
        for _ in range(jumps):
            t0 = time.perf_counter()
            bar.setValue(rng.randrange(bar.maximum() + 1))
            jump_ms.append(await painted(t0, "random jump"))
        rss["after_jumps"] = rss_mb()
        timer.stop()
        if errors:
            raise SystemExit(f"the model failed: {errors[0]}")
        return {
            "first_page_ms": first_ms,
            "count_ms": (t_count - t_set) * 1000,
            "total": total,
            "last_row_vin": (last or {}).get("vin"),
            "end_jump_ms": end_ms,
            "jump_ms": statistics.median(jump_ms),
            "jumps_ms": jump_ms,
            "rss_mb": rss,
            "growth_mb": rss["after_jumps"] - rss["before"],
            "stall_ms": beat["max"] * 1000,
            "pages_cached": len(model.pages),
        }

    try:
        with loop:
            result = loop.run_until_complete(measure())
            loop.run_until_complete(controller.shutdown())
        out.write_text(json.dumps(result))
        # Qt objects go while the interpreter is whole, as app/ui/shell/app.py does
        view.deleteLater()
        controller.deleteLater()
        app.processEvents()
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
        shutil.rmtree(tmp, ignore_errors=True)


# ================================================================ the node, for reference


def node_ms(url: str, token: str, path: str, reps: int = 5) -> float:
    """Median milliseconds of ``GET path`` on one keep-alive connection (no GUI, no httpx)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=120)
    times = []
    try:
        for _ in range(reps):
            t0 = time.perf_counter()
            conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
            resp = conn.getresponse()
            body = resp.read()
            times.append(time.perf_counter() - t0)
            if resp.status >= 400:
                raise RuntimeError(f"GET {path} -> HTTP {resp.status}: {body[:300]!r}")
    finally:
        conn.close()
    return statistics.median(times) * 1000


def node_reference(url: str, token: str, total: int) -> dict[str, float]:
    """The node's own time for the requests behind each figure."""
    search = f"/cirrus/search/{TABLE}"
    last = max(0, total - 200)
    return {
        "first_page_ms": node_ms(url, token, f"{search}?limit=200"),
        "count_ms": node_ms(url, token, f"{search}?select=count"),
        "last_page_ms": node_ms(url, token, f"{search}?limit=200&offset={last}"),
        "middle_page_ms": node_ms(url, token, f"{search}?limit=200&offset={total // 2}"),
    }


def table_rows(url: str, token: str) -> int:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=120)
    try:
        conn.request(
            "GET",
            f"/cirrus/search/{TABLE}?select=count",
            headers={"Authorization": f"Bearer {token}"},
        )
        return int(json.loads(conn.getresponse().read())[0]["count"])
    finally:
        conn.close()


# ================================================================ rounds and report


def one_round(url: str, jumps: int, seed: int, work: Path) -> dict[str, Any]:
    """A viewer process (the app process) for one round; its figures."""
    out = work / f"round-{seed}.json"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    cmd = [sys.executable, __file__, "--viewer", url, "--out", str(out)]
    cmd += ["--jumps", str(jumps), "--seed", str(seed)]
    proc = subprocess.run(
        cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    if proc.returncode != 0 or not out.exists():
        raise SystemExit(f"the viewer failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def summary(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    out = {}
    for key in LABELS:
        values = [float(r[key]) for r in runs]
        out[key] = {"median": statistics.median(values), "best": min(values), "worst": max(values)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="100k rows, 3 rounds (smoke run)")
    ap.add_argument("--rows", type=int, help="rows in the Car table (default 1,000,000)")
    ap.add_argument("--batch", type=int, default=10_000, help="rows per indexing transaction")
    ap.add_argument("--rounds", type=int, help="viewer processes (default 5, quick 3)")
    ap.add_argument("--jumps", type=int, default=10, help="random jumps per round (default 10)")
    ap.add_argument(
        "--data-dir", type=Path, help="a node data dir that already holds the Car table (kept)"
    )
    ap.add_argument("--keep", action="store_true", help="keep the new data dir (path is printed)")
    ap.add_argument("--viewer", metavar="URL", help=argparse.SUPPRESS)  # one round, internal
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=SEED, help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.viewer:
        viewer(opts.viewer, opts.out, opts.jumps, opts.seed)
        return
    rows = opts.rows or (100_000 if opts.quick else 1_000_000)
    rounds = opts.rounds or (3 if opts.quick else 5)
    load_start = os.getloadavg()[0]
    if load_start > (os.cpu_count() or 1) / 2:
        print(f"note: the machine is busy (1-minute load {load_start:.1f}): figures will be noisy")
    t_start = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="cirrus-view-bench-"))
    data_dir = opts.data_dir or tmp / "node"
    work = tmp / "rounds"  # the viewers' result files
    work.mkdir()
    runs: list[dict[str, Any]] = []
    loads: list[float] = []
    try:
        if opts.data_dir is None:
            print(f"indexing {rows:,} Car rows into {data_dir} ...", flush=True)
            build_table(rows, opts.batch, data_dir)
        with running_node(data_dir, timeout=120.0) as node:
            wait_idle(node.url)
            token = node.token(USER)
            rows = table_rows(node.url, token)
            print(f"node up at {node.url}: {rows:,} rows in {TABLE}", flush=True)
            wait_quiet(node.proc.pid)
            reference = node_reference(node.url, token, rows)
            print(
                "node alone (plain HTTP client, median of 5): "
                + ", ".join(f"{k} {v:.1f}" for k, v in reference.items()),
                flush=True,
            )
            for i in range(rounds):
                wait_quiet(node.proc.pid)
                loads.append(os.getloadavg()[0])
                run = one_round(node.url, opts.jumps, SEED + i, work)
                if run["total"] != rows:
                    raise SystemExit(f"the viewer counted {run['total']} rows, not {rows}")
                if opts.data_dir is None and run["last_row_vin"] != vin_of(rows - 1):
                    raise SystemExit(f"the last row shown is not the last car: {run}")
                runs.append(run)
                print(
                    f"round {i + 1}/{rounds} (load {loads[-1]:.1f}): "
                    + ", ".join(f"{k} {run[k]:.1f}" for k in LABELS)
                    + f"; RSS {run['rss_mb']['before']:.0f} -> "
                    f"{run['rss_mb']['after_jumps']:.0f} MB",
                    flush=True,
                )
    finally:
        if opts.keep and opts.data_dir is None:
            print(f"data dir kept: {data_dir}")
            shutil.rmtree(work, ignore_errors=True)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    total_s = time.perf_counter() - t_start

    s = summary(runs)
    m = machine()
    m["load_1min_at_start"] = round(load_start, 2)
    m["load_1min_at_end"] = round(os.getloadavg()[0], 2)
    verdict = {k: s[k]["median"] < target for k, target in TARGETS.items()}
    print()
    print(
        f"Cirrus table viewer: {rows:,} rows in {TABLE}, {rounds} rounds of {opts.jumps} random "
        f"jumps (Python {m['python']}, {m['cpus']} CPUs, 1-min load {load_start:.1f} -> "
        f"{m['load_1min_at_end']:.1f})"
    )
    print(f"  {'figure':<44} {'median':>9} {'best':>9} {'worst':>9}   {'target':<10}")
    for key, label in LABELS.items():
        unit = "MB" if key.endswith("mb") else "ms"
        target = f"< {TARGETS[key]:g} {unit}" if key in TARGETS else ""
        verdict_text = mark(verdict[key]) if key in TARGETS else ""
        print(
            f"  {label + ' (' + unit + ')':<44} {s[key]['median']:>9.1f} {s[key]['best']:>9.1f} "
            f"{s[key]['worst']:>9.1f}   {target:<10} {verdict_text}"
        )
    rss = {k: statistics.median(r["rss_mb"][k] for r in runs) for k in runs[0]["rss_mb"]}
    print("  RSS medians (MB): " + ", ".join(f"{k} {v:.0f}" for k, v in rss.items()))
    print(
        "  the node alone (plain HTTP, ms): "
        + ", ".join(f"{k} {v:.1f}" for k, v in reference.items())
    )
    print(f"  whole run: {total_s:.0f} s")
    path = write_results(
        "cirrus_view",
        rounded(
            {
                "when": utc_now(),
                "machine": m,
                "quick": opts.quick,
                "rows": rows,
                "rounds": rounds,
                "jumps_per_round": opts.jumps,
                "view_size": list(VIEW_SIZE),
                "targets": TARGETS,
                "summary": s,
                "rss_mb_medians": rss,
                "node_alone_ms": reference,
                "load_1min_per_round": loads,
                "runs_detail": runs,
                "met": verdict,
                "run_seconds": total_s,
            }
        ),
    )
    print(f"written to {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
