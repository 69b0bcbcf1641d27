"""What recording call traces costs (issue 28): the same work with traces off and on.

Engine (in process, no HTTP), each transaction's trace recorded *and* turned into the JSON text
the node stores (as the node's executing thread does):
  a) Token.transfer on a mapping holding 10,000 balances
  b) the same transfer through a library (``using SafeMath for uint``)
  c) 1,000 external calls through a Proxy (fallback + delegatecall) in one transaction
  d) a Mercata-sized deployment: one transaction creating 43 contracts
     (tests/corpus/proxy_deploy), 21 proxies initialized through their fallback
Node (over HTTP, two nodes started with ``serve --traces off`` and ``--traces on``):
  e) sequential Token.transfer calls with ?resolve=true (wrk -t1 -c1, or node_bench's Python
     client), one user, one keep-alive connection
  f) writes: batches of 100 transfers with resolve=false from several client processes, then
     polling the results until none is Pending

Rounds alternate off/on (off, on, off, on, ...) so that both see the same machine; each figure
is the median of the rounds (3 by default). Engine rounds count this process's CPU time.
Results print as a table and are written to benchmarks/results/trace_cost.json.

    python benchmarks/trace_cost.py [--rounds 3] [--quick] [--no-node]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmark modules
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlib import machine, utc_now, write_results
from node_bench import batch_round, choose_client, seq_round_node
from node_http import Settings
from solidvm_bench import (
    ALICE,
    CONTRACTS,
    PROXIED,
    PROXY_DEPLOY,
    SAFE_TOKEN,
    make_world,
)

from app.client.bundler import bundle
from app.node.solidvm import TxEnv, World, compile_source
from app.node.traces import bounded_text

ITEMS = 5_000  # the node's default cap of frames, events and writes per transaction


def stored(w: World) -> None:
    """What the node does with a recorder after each transaction (TraceKeeper.note)."""
    rec = w.last_trace
    if rec is not None:
        tree = rec.finish()
        if tree is not None:
            bounded_text(tree)


def token_world(src: str, name: str, args: dict[str, Any]) -> tuple[World, str, list[str]]:
    unit = compile_source(src)
    w = make_world()
    env = TxEnv(sender=ALICE)
    token = w.deploy(unit.contracts[name], args, env).address
    assert token is not None
    holders = [format(i + 1, "040x") for i in range(10_000)]
    for h in holders:
        w.call(token, "transfer", {"to": h, "amount": 1}, env)
    return w, token, holders


def engine_cases() -> dict[str, tuple[World, Callable[[World, int], object], int]]:
    """name -> (world, one operation, operations per round)."""
    env = TxEnv(sender=ALICE)
    cases: dict[str, tuple[World, Callable[[World, int], object], int]] = {}
    for label, src, name, args in (
        (
            "a) Token.transfer",
            (CONTRACTS / "Token.sol").read_text(),
            "Token",
            {"_name": "B", "_symbol": "B", "_supply": 10**30},
        ),
        ("b) SafeToken.transfer (library)", SAFE_TOKEN, "SafeToken", {"_supply": 10**30}),
    ):
        w, token, holders = token_world(src, name, args)

        def transfer(w: World, k: int, token: str = token, holders: list[str] = holders) -> object:
            return w.call(token, "transfer", {"to": holders[k % 10_000], "amount": "3"}, env)

        cases[label] = (w, transfer, 3_000)
    unit = compile_source(PROXIED)
    w = make_world()
    looper = w.deploy(unit.contracts["Looper"], {}, env).address
    assert looper is not None
    cases["c) 1,000 proxied calls in one tx"] = (
        w,
        lambda w, k: w.call(looper, "viaProxy", {"n": 1_000}, env),
        10,
    )
    cdef = compile_source(bundle(PROXY_DEPLOY).source).contracts["Deployment"]
    w = make_world()
    cases["d) Mercata-sized deployment (43 contracts)"] = (
        w,
        lambda w, k: w.deploy(cdef, {}, env),
        10,
    )
    return cases


def engine_round(w: World, op: Callable[[World, int], object], n: int, on: bool) -> float:
    w.trace_items = ITEMS if on else 0
    w.last_trace = None
    t0 = time.process_time()  # CPU time: less disturbed by the other processes of the machine
    for k in range(n):
        op(w, k)
        stored(w)
    return n / (time.process_time() - t0)


def pair(off: list[float], on: list[float]) -> dict[str, Any]:
    m_off, m_on = statistics.median(off), statistics.median(on)
    return {
        "off_per_s": round(m_off, 1),
        "on_per_s": round(m_on, 1),
        "slower_pct": round((m_off / m_on - 1) * 100, 1),
        "rounds_off": [round(x, 1) for x in off],
        "rounds_on": [round(x, 1) for x in on],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="shorter rounds")
    ap.add_argument("--no-node", action="store_true", help="the engine cases only")
    opts = ap.parse_args()
    rounds = opts.rounds
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    results: dict[str, Any] = {}
    for label, (w, op, size) in engine_cases().items():
        n = max(1, size // 3) if opts.quick else size
        engine_round(w, op, max(1, n // 10), True)  # warm-up, both paths compiled
        engine_round(w, op, max(1, n // 10), False)
        off: list[float] = []
        on: list[float] = []
        for _ in range(rounds):
            off.append(engine_round(w, op, n, False))
            on.append(engine_round(w, op, n, True))
        results[label] = pair(off, on)
        r = results[label]
        print(
            f"{label:45} off {r['off_per_s']:>9,.1f}/s  on {r['on_per_s']:>9,.1f}/s  "
            f"{r['slower_pct']:+.1f} %",
            flush=True,
        )
    if not opts.no_node:
        client = choose_client("auto")
        duration = 5 if opts.quick else 10
        settings = Settings(
            rounds=rounds,
            duration=duration,
            batches=20 if opts.quick else 50,
            batch_size=100,
            clients=4,
            cold_tries=0,
        )
        with tempfile.TemporaryDirectory(prefix="trace-cost-") as tmp:
            seq: dict[bool, list[float]] = {False: [], True: []}
            batch: dict[bool, list[float]] = {False: [], True: []}
            for r in range(rounds):
                for traced in (False, True):
                    flags = ("--traces", "on" if traced else "off")
                    run = seq_round_node(client, duration, Path(tmp) / f"s{r}{traced}", flags)
                    if not run.verified:
                        raise RuntimeError(f"sequential round not verified: {run}")
                    seq[traced].append(run.rate)
                    b = batch_round(settings, Path(tmp) / f"b{r}{traced}", flags)
                    if not b.verified:
                        raise RuntimeError(f"batch round not verified: {b}")
                    batch[traced].append(b.rate)
                    print(
                        f"  round {r + 1} traces {'on ' if traced else 'off'}: sequential "
                        f"{run.rate:,.0f} tx/s, batches {b.rate:,.0f} tx/s",
                        flush=True,
                    )
            for label, runs in (
                ("e) node: sequential transfers (resolve=true)", seq),
                ("f) node: batched transfers (resolve=false)", batch),
            ):
                results[label] = pair(runs[False], runs[True])
                r = results[label]
                print(
                    f"{label:45} off {r['off_per_s']:>9,.1f}/s  on {r['on_per_s']:>9,.1f}/s  "
                    f"{r['slower_pct']:+.1f} %",
                    flush=True,
                )
            results["client"] = client.note
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    path = write_results(
        "trace_cost",
        {
            "when": utc_now(),
            "machine": machine(),
            "rounds": rounds,
            "median_of_rounds": True,
            "interleaved": "off, on, off, on, ...",
            "load_after": [round(x, 2) for x in load],
            "results": results,
        },
    )
    print(f"written to {path}")


if __name__ == "__main__":
    main()
