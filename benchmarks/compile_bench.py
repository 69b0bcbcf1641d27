"""Compiling through the sandbox node over HTTP, and what the rest of the node sees meanwhile
(issue 26, items 4 and 5).

Cases, each with a fresh source per round (the compile cache never answers):
  chain   a contract returning ``1+1+...`` of 8,000 terms (16 KB), once through
          ``POST /bloc/v2.2/contracts/compile`` and once as a single-transaction upload
  many    a contract of 20,000 one-line functions (1.1 MB), the same two ways
For each: the request's time, and ``GET /health`` polled every 50 ms while it runs and for 3 s
after it answers (p50, p99, max). Then ``--distinct`` compiles of distinct 5 KB sources without
any deployment: the node's RSS and the rows of its ``codes`` table before and after.

``--baseline DIR`` runs the same cases, interleaved with the first ``--baseline-rounds`` rounds
(default 1: before the change a round took minutes), against another checkout, for instance
one of ``main`` before the change (``git worktree add --detach /tmp/base <commit>``).

    python benchmarks/compile_bench.py [--rounds 3] [--distinct 300] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import benchlib
from benchlib import machine, rounded, running_node, utc_now, write_results
from node_http import TX_PATH, Http

THIS_ROOT = benchlib.ROOT
COMPILE_PATH = "/bloc/v2.2/contracts/compile"
POLL_S = 0.05
TAIL_S = 3.0


def chain_source(tag: int, terms: int = 8000) -> str:
    expr = "+".join(["1"] * terms)
    return (
        f"contract Chain{tag} {{\n    function f() public returns (uint) {{ return {expr}; }}\n}}\n"
    )


def many_source(tag: int, functions: int = 20_000) -> str:
    body = "".join(
        f"    function f{i}() public returns (uint) {{ return {i + tag}; }}\n"
        for i in range(functions)
    )
    return f"contract Many{tag} {{\n{body}}}\n"


def small_source(tag: int) -> str:
    body = "".join(
        f"    function f{i}(uint a) public returns (uint) {{ x = a + {i + tag}; return x; }}\n"
        for i in range(60)
    )
    return f"contract Small{tag} {{\n    uint public x;\n{body}}}\n"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def codes_rows(data_dir: Path) -> int:
    db = sqlite3.connect(f"file:{data_dir / 'node.sqlite3'}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM codes").fetchone()[0])
    finally:
        db.close()


def pct(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * q))] * 1000 if s else float("nan")


def measured(url: str, token: str, how: str, name: str, src: str) -> dict[str, Any]:
    """One compile (``how``: compile or upload) while /health is polled."""
    api = Http(url, token, timeout=600)
    probe = Http(url, timeout=600)
    out: dict[str, Any] = {}

    def run() -> None:
        t0 = time.perf_counter()
        if how == "compile":
            status, body = api.post(COMPILE_PATH, [{"contractName": name, "source": src}])
        else:
            tx = {"type": "CONTRACT", "payload": {"contract": name, "src": src, "args": {}}}
            status, body = api.post(f"{TX_PATH}?resolve=true", {"txs": [tx]})
            if status == 200 and body[0]["status"] != "Success":
                status = 0
        out["seconds"] = time.perf_counter() - t0
        out["status"] = status
        if status != 200:
            out["error"] = str(body)[:200]

    worker = threading.Thread(target=run)
    health: list[float] = []
    worker.start()
    end: float | None = None  # probing goes on for TAIL_S after the answer (the aftermath)
    while end is None or time.perf_counter() < end:
        t0 = time.perf_counter()
        probe.get("/health")
        health.append(time.perf_counter() - t0)
        if end is None and not worker.is_alive():
            end = time.perf_counter() + TAIL_S
        time.sleep(POLL_S)
    worker.join()
    api.close()
    probe.close()
    out |= {
        "health_n": len(health),
        "health_p50_ms": pct(health, 0.5),
        "health_p99_ms": pct(health, 0.99),
        "health_max_ms": max(health) * 1000,
    }
    return out


def distinct_compiles(url: str, token: str, data_dir: Path, pid: int, n: int) -> dict[str, Any]:
    api = Http(url, token, timeout=600)
    rows0, rss0 = codes_rows(data_dir), rss_mb(pid)
    t0 = time.perf_counter()
    for tag in range(n):
        status, body = api.post(COMPILE_PATH, [{"source": small_source(tag)}])
        if status != 200:
            raise RuntimeError(f"compile {tag}: HTTP {status}: {str(body)[:200]}")
    seconds = time.perf_counter() - t0
    # a block is sealed: what the node would store of those compiles, it stores now
    transfer = {"type": "TRANSFER", "payload": {"toAddress": "b0" * 20, "value": 1}}
    status, body = api.post(f"{TX_PATH}?resolve=true", {"txs": [transfer]})
    if status != 200:
        raise RuntimeError(f"transfer: HTTP {status}: {str(body)[:200]}")
    api.close()
    return {
        "compiles": n,
        "seconds": seconds,
        "rss_before_mb": rss0,
        "rss_after_mb": rss_mb(pid),
        "codes_before": rows0,
        "codes_after": codes_rows(data_dir),
    }


def one_round(root: str | None, tmp: Path, r: int, distinct: int) -> dict[str, Any]:
    """Every case on a fresh node running the code of ``root`` (None: this checkout)."""
    env_before = os.environ.get("PYTHONPATH")
    if root is not None:  # ``python -m app.node`` imports the app of the directory it runs in
        os.environ["PYTHONPATH"] = root
        benchlib.ROOT = Path(root)
    try:
        data_dir = tmp / f"{'base' if root else 'this'}{r}" / "data"
        data_dir.parent.mkdir(parents=True)
        flags = () if root else ("--compile-time-limit", "600")
        with running_node(data_dir, flags=flags) as node:
            token = node.token("alice")
            tag = 1000 * (r + 1)
            cases = {
                "chain8000_compile": ("compile", f"Chain{tag}", chain_source(tag)),
                "chain8000_upload": ("upload", f"Chain{tag + 1}", chain_source(tag + 1)),
                "many20000_compile": ("compile", f"Many{tag}", many_source(tag)),
                "many20000_upload": ("upload", f"Many{tag + 1}", many_source(tag + 1)),
            }
            out: dict[str, Any] = {}
            for key, (how, name, src) in cases.items():
                out[key] = measured(node.url, token, how, name, src) | {"source_chars": len(src)}
                print(f"  {'baseline' if root else 'this'} round {r + 1} {key}: {out[key]}")
            if distinct:
                out["distinct"] = distinct_compiles(
                    node.url, token, data_dir, node.proc.pid, distinct
                )
                print(f"  distinct: {out['distinct']}")
            return out
    finally:
        benchlib.ROOT = THIS_ROOT
        if env_before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = env_before


def summary(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Per case: the best compile time and p99 of the rounds (least disturbed), the worst max."""
    out: dict[str, Any] = {}
    for key in rounds[0]:
        if key == "distinct":
            continue
        rs = [x[key] for x in rounds]
        out[key] = {
            "source_chars": rs[0]["source_chars"],
            "status": sorted({x["status"] for x in rs}),
            "seconds_best": min(x["seconds"] for x in rs),
            "seconds_median": statistics.median(x["seconds"] for x in rs),
            "health_p50_ms": min(x["health_p50_ms"] for x in rs),
            "health_p99_ms_best": min(x["health_p99_ms"] for x in rs),
            "health_p99_ms_worst": max(x["health_p99_ms"] for x in rs),
            "health_max_ms_worst": max(x["health_max_ms"] for x in rs),
        }
    ds = [x["distinct"] for x in rounds if "distinct" in x]
    if ds:
        out["distinct"] = ds[-1]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--distinct", type=int, default=300, help="distinct compiles (0: skip)")
    ap.add_argument("--baseline", help="another checkout to measure, interleaved")
    ap.add_argument("--baseline-rounds", type=int, default=1, help="rounds of the baseline")
    opts = ap.parse_args()
    load = os.getloadavg()
    mine: list[dict[str, Any]] = []
    base: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="compile-bench-") as tmp:
        for r in range(opts.rounds):
            mine.append(one_round(None, Path(tmp), r, opts.distinct if r == 0 else 0))
            if opts.baseline and r < opts.baseline_rounds:
                base.append(one_round(opts.baseline, Path(tmp), r, opts.distinct if r == 0 else 0))
    data: dict[str, Any] = {
        "when": utc_now(),
        "machine": machine(loadavg_before=[round(x, 2) for x in load]),
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "rounds": opts.rounds,
        "this": summary(mine),
        "this_rounds": mine,
    }
    if base:
        data["baseline"] = {"root": opts.baseline} | summary(base)
        data["baseline_rounds"] = base
    path = write_results("compile", rounded(data))
    for who in ("this", "baseline"):
        if who not in data:
            continue
        print(f"\n{who}:")
        for key, v in data[who].items():
            if isinstance(v, dict) and "seconds_best" in v:
                print(
                    f"  {key:20} {v['source_chars']:>9,} chars  status {v['status']}  "
                    f"compile {v['seconds_best']:.2f} s (median {v['seconds_median']:.2f})  "
                    f"/health p50 {v['health_p50_ms']:.1f} ms, p99 {v['health_p99_ms_best']:.1f}"
                    f"-{v['health_p99_ms_worst']:.1f} ms, max {v['health_max_ms_worst']:.1f} ms"
                )
        if "distinct" in data[who]:
            print(f"  distinct compiles: {data[who]['distinct']}")
    print(f"\nwritten to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
