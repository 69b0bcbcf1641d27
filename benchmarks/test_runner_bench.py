"""The Describe_ test runner: 200 unit tests in 10 files, from the command to its summary line.

Generates 10 files of one ``Describe_`` contract each (beforeAll, beforeEach, 20 ``it_*`` tests
that write and check state, a few via an imported library contract), then runs

    python -m app test DIR

as a user would, without ``--node``: the command starts its own temporary sandbox node (fresh
data dir, ``--test-clock``), signs in, discovers, compiles, deploys and runs, and stops the node.
Measured per round: wall time from spawning the command to the summary line (the issue's
figure; target < 10 s on a 2-core machine), to the first PASS line, and the exit. Also, on a node
that is already running (``--node URL``): the same run without the node's start.

    python benchmarks/test_runner_bench.py [--rounds N]

Prints a table; writes benchmarks/results/test_runner.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module benchlib

from benchlib import ROOT, machine, mark, rounded, running_node, utc_now, write_results

FILES = 10
TESTS_PER_FILE = 20
TARGET_S = 10.0

LIB = """pragma solidvm 12.0;

contract Tally {
    uint public total;

    function add(uint n) public returns (uint) {
        total += n;
        return total;
    }
}
"""


def test_file(k: int) -> str:
    """One Describe_ contract with TESTS_PER_FILE unit tests over shared state."""
    tests = []
    pushed = 0
    for i in range(TESTS_PER_FILE):
        if i % 5 == 4:
            body = f"        return tally.add({i}) > 0;"
        else:
            pushed += 1
            body = f"        values.push({i});\n        return values.length == {pushed};"
        tests.append(f"    function it_step_{i:02d}() public returns (bool) {{\n{body}\n    }}")
    return (
        "pragma solidvm 12.0;\n\n"
        'import "../lib/Tally.sol";\n\n'
        f"contract Describe_Bench{k:02d} {{\n"
        "    uint[] values;\n"
        "    uint public runs;\n"
        "    Tally tally;\n\n"
        "    function beforeAll() public {\n        tally = new Tally();\n    }\n\n"
        "    function beforeEach() public {\n        runs += 1;\n    }\n\n"
        + "\n\n".join(tests)
        + "\n}\n"
    )


def make_project(folder: Path) -> Path:
    (folder / "lib").mkdir(parents=True)
    (folder / "lib" / "Tally.sol").write_text(LIB, encoding="utf-8")
    tests = folder / "tests"
    tests.mkdir()
    for k in range(FILES):
        (tests / f"bench_{k:02d}.sol").write_text(test_file(k), encoding="utf-8")
    return tests


def run_cli(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Spawn ``python -m app test ARGS`` and time its output lines."""
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "test", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    first = summary = None
    last = ""
    for line in proc.stdout:
        now = time.monotonic() - start
        if first is None and line.startswith(("PASS", "FAIL")):
            first = now
        if line.rstrip().endswith("failed") and "passed," in line:
            summary = now
            last = line.strip()
    err = proc.stderr.read() if proc.stderr else ""
    code = proc.wait()
    done = time.monotonic() - start
    if code != 0 or summary is None:
        raise SystemExit(f"the run failed (exit {code}): {last}\n{err}")
    return {"first_result_s": first, "summary_s": summary, "exit_s": done, "summary": last}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    opts = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STRATOSCOPE_")}
    env.pop("PYTHONWARNINGS", None)
    rounds: list[dict[str, Any]] = []
    warm: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="stratoscope-bench-") as tmp:
        base = Path(tmp)
        env["XDG_CONFIG_HOME"] = str(base / "config")  # no saved profile interferes
        tests = make_project(base / "project")
        for _ in range(opts.rounds):
            rounds.append(run_cli([str(tests)], env))
        with running_node(base / "node") as node:
            for _ in range(opts.rounds):
                warm.append(run_cli(["--node", node.url, str(tests)], env))

    def med(rows: list[dict[str, Any]], key: str) -> float:
        return statistics.median(float(r[key]) for r in rows)

    summary = med(rounds, "summary_s")
    print(f"{FILES * TESTS_PER_FILE} unit tests in {FILES} files, {opts.rounds} rounds (median)")
    print(f"{'':42}{'first result':>14}{'summary':>10}{'exit':>8}")
    for label, rows in (
        ("python -m app test DIR (own sandbox)", rounds),
        ("python -m app test --node URL DIR", warm),
    ):
        print(
            f"{label:42}{med(rows, 'first_result_s'):>13.2f}s{med(rows, 'summary_s'):>9.2f}s"
            f"{med(rows, 'exit_s'):>7.2f}s"
        )
    print(f"summary line: {rounds[0]['summary']}")
    print(f"target: command to summary < {TARGET_S:g} s: {mark(summary < TARGET_S)}")
    path = write_results(
        "test_runner",
        rounded(
            {
                "when": utc_now(),
                "machine": machine(),
                "tests": FILES * TESTS_PER_FILE,
                "files": FILES,
                "own_sandbox": rounds,
                "running_node": warm,
                "median_summary_s": summary,
                "median_summary_running_node_s": med(warm, "summary_s"),
                "target_s": TARGET_S,
                "note": "measured while other helpers' jobs ran on the same 2-core machine",
            }
        ),
    )
    print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
