"""The composer's Tests view on the embedded sandbox: from Run to the first result on screen.

A node (``python -m app.node serve``, a separate process on a fresh data dir) and, in this
process, the app's own stack: offscreen Qt, a qasync loop set up as the app sets it up, an
``AppController`` signed in to the node over HTTP as alice, the main window with the composer in
front and its Tests view on screen. Per round, ``Run file`` (20 unit tests in one file) and
``Run all`` (200 unit tests in 10 files) are clicked; measured from the click:

a) first result shown: the first test's result is in the tree and the tree has painted since;
b) all done: the run's summary is shown.

Each kind is run ``--rounds`` times (the first round includes the node's first compile of the
files); the median is judged. Target (issue 18): first result under 1 s. Results print as a table
and go to benchmarks/results/tests_view.json.

    python benchmarks/tests_view_bench.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import ROOT, machine, mark, rounded, running_node, utc_now, write_results

sys.path.insert(0, str(ROOT))
TARGETS = {"first_result_s": 1.0}


def test_file(index: int, tests: int) -> str:
    """A file of ``tests`` unit tests on shared state (every fifth one fails)."""
    body = [
        f"contract Describe_Bench{index} {{",
        "    uint count;",
        "    constructor() {}",
        "    function beforeEach() public { count += 1; }",
    ]
    for i in range(tests):
        ok = "true" if i % 5 else "count == 0"
        body.append(f"    function it_case_{i}() public returns (bool) {{ return {ok}; }}")
    body.append("}")
    return "\n".join(body) + "\n"


def corpus(root: Path) -> tuple[Path, Path]:
    """A folder of 10 files x 20 tests, and one of them."""
    root.mkdir(parents=True, exist_ok=True)
    for i in range(10):
        (root / f"bench_{i}_test.sol").write_text(test_file(i, 20))
    return root, root / "bench_0_test.sol"


def measure(url: str, rounds: int) -> dict[str, list[float]]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from concurrent.futures import ThreadPoolExecutor

    import qasync
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    from app.services.controller import AppController
    from app.services.profiles import Profile
    from app.services.secret_service import SecretService
    from app.services.session import SANDBOX_CLIENT_ID, Credentials
    from app.ui.panels.composer.panel import ComposerPanel
    from app.ui.shell.main_window import MainWindow

    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    loop.set_default_executor(ThreadPoolExecutor(4, thread_name_prefix="stratoscope-io"))
    tmp = Path(tempfile.mkdtemp(prefix="tests-view-bench-"))
    folder, one_file = corpus(tmp / "project")
    secrets = SecretService(tmp / "config", use_keyring=lambda: False)
    controller = AppController(
        config_directory=tmp / "config", sandbox_dir=tmp / "sandbox", secrets=secrets
    )
    window = MainWindow(controller)
    window.resize(1024, 640)
    window.show()
    out: dict[str, list[float]] = {}

    class Painted(QObject):
        """Counts the tree's paints."""

        paints = 0

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                self.paints += 1
            return False

    async def until(cond: Any, timeout: float = 120.0) -> None:
        end = time.perf_counter() + timeout
        while not cond():
            if time.perf_counter() > end:
                raise TimeoutError("the run did not end in time")
            await asyncio.sleep(0.001)

    async def run() -> None:
        profile = Profile("Benchmark node", url, client_id=SANDBOX_CLIENT_ID)
        await controller.connect_profile(profile, Credentials("alice", "alice"))
        panel = next(p for p in window.panels if isinstance(p, ComposerPanel))
        window.nav.setCurrentRow(window.panels.index(panel))
        view = panel.tests_view
        panel.open_folder(folder)
        panel.show_tests()
        panel.load_path(one_file)
        await until(lambda: len(view.model.all_tests()) == 200)
        painted = Painted()
        view.tree.viewport().installEventFilter(painted)
        for kind, click in (("file", view.run_file_button), ("all", view.run_all_button)):
            for _ in range(rounds):
                view.first_result_at = None
                start = time.perf_counter()
                click.click()
                await until(lambda: view.first_result_at is not None)
                seen = painted.paints
                await until(lambda p=seen: painted.paints > p)
                first = time.perf_counter() - start
                await until(lambda: not view.service.running)
                out.setdefault(f"{kind}_first_result_s", []).append(first)
                out.setdefault(f"{kind}_done_s", []).append(time.perf_counter() - start)
                await asyncio.sleep(0.2)
        window.close()
        await until(lambda: window.is_closed)

    loop.run_until_complete(run())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="tests-view-node-") as d,
        running_node(Path(d) / "data") as node,
    ):
        samples = measure(node.url, args.rounds)
    medians = {k: statistics.median(v) for k, v in samples.items()}
    print(f"{'measure':34} {'median':>9} {'all rounds':>30}")
    labels = {
        "file_first_result_s": "Run file (20): first result shown",
        "file_done_s": "Run file (20): all done",
        "all_first_result_s": "Run all (200/10 files): first shown",
        "all_done_s": "Run all (200/10 files): all done",
    }
    for key, label in labels.items():
        target = TARGETS["first_result_s"] if key.endswith("first_result_s") else None
        ok = f" {mark(medians[key] < target)} < {target} s" if target else ""
        rounds_text = " ".join(f"{x:.2f}" for x in samples[key])
        print(f"{label:34} {medians[key]:8.3f}s {rounds_text:>30}{ok}")
    write_results(
        "tests_view",
        {
            "when": utc_now(),
            "machine": machine(),
            "rounds": args.rounds,
            "median": rounded(medians),
            "samples": rounded(samples),
            "targets": TARGETS,
        },
    )


if __name__ == "__main__":
    main()
