"""What recording call traces costs (issue 28): the same work with traces off and on.

Engine (in process, no HTTP), each transaction's trace recorded and turned into the compact
form the node keeps (a block's as one marshal blob; "recording alone" is without that step;
the node's writer thread then stores the bytes):
  a) Token.transfer on a mapping holding 10,000 balances
  b) the same transfer through a library (``using SafeMath for uint``)
  c) 1,000 external calls through a Proxy (fallback + delegatecall) in one transaction
  d) a Mercata-sized deployment: one transaction creating 43 contracts
     (tests/corpus/proxy_deploy), 21 proxies initialized through their fallback
Node (over HTTP, two nodes started with ``serve --traces off`` and ``--traces on``):
  e) sequential Token.transfer calls with ?resolve=true, one user, one keep-alive connection
     per node: both nodes run at once and take turns, 50 requests each, off first then on
     first; each round's figure is the median latency of its requests (ms)
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

from benchlib import machine, running_node, utc_now, write_results
from node_http import TX_PATH, Http, Settings, deploy_token, recipient, transfer_tx
from node_write import batch_round
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
from app.node.traces import blobs_of

ITEMS = 5_000  # the node's default cap of frames, events and writes per transaction


_BLOCK: list[tuple[str, Any, int]] = []  # the compact forms of the "block" so far


def stored(w: World, block: int) -> None:
    """What the node does with a recorder after each transaction (TraceKeeper.note: its
    compact form; and at the end of a block of ``block`` transactions, the block's forms as
    one marshal blob; the JSON tree is made only when a trace is read)."""
    rec = w.last_trace
    if rec is not None:
        rec.detach()
        form = rec.compact()
        if form is not None:
            _BLOCK.append(("", form, rec.count))
        if len(_BLOCK) >= block:
            blobs_of(_BLOCK)
            _BLOCK.clear()


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


def engine_cases() -> dict[str, tuple[World, Callable[[World, int], object], int, int]]:
    """name -> (world, one operation, operations per round, operations per block)."""
    env = TxEnv(sender=ALICE)
    cases: dict[str, tuple[World, Callable[[World, int], object], int, int]] = {}
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

        cases[label] = (w, transfer, 3_000, 100)
    unit = compile_source(PROXIED)
    w = make_world()
    looper = w.deploy(unit.contracts["Looper"], {}, env).address
    assert looper is not None
    cases["c) 1,000 proxied calls in one tx"] = (
        w,
        lambda w, k: w.call(looper, "viaProxy", {"n": 1_000}, env),
        10,
        1,
    )
    cdef = compile_source(bundle(PROXY_DEPLOY).source).contracts["Deployment"]
    w = make_world()
    cases["d) Mercata-sized deployment (43 contracts)"] = (
        w,
        lambda w, k: w.deploy(cdef, {}, env),
        10,
        1,
    )
    return cases


def engine_round(
    w: World,
    op: Callable[[World, int], object],
    n: int,
    on: bool,
    text: bool = True,
    block: int = 100,
) -> float:
    """Operations per CPU second; ``text``: also make each trace's compact form (what the
    node's executing thread does at the end of a transaction)."""
    w.trace_items = ITEMS if on else 0
    w.last_trace = None
    t0 = time.process_time()  # CPU time: less disturbed by the other processes of the machine
    for k in range(n):
        op(w, k)
        if text:
            stored(w, block)
    return n / (time.process_time() - t0)


def sequential_latency(tmp: Path, rounds: int, turns: int) -> dict[bool, list[float]]:
    """Median latency (ms) of resolve=true transfers per round, on two nodes running at once
    (traces off and on) that take turns of 50 requests."""
    out: dict[bool, list[float]] = {False: [], True: []}
    with (
        running_node(tmp / "seq-off", flags=("--traces", "off")) as off,
        running_node(tmp / "seq-on", flags=("--traces", "on")) as on,
    ):
        apis = {}
        for traced, node in ((False, off), (True, on)):
            api = Http(node.url, node.token())
            apis[traced] = (api, deploy_token(api))
        k = 0
        for _ in range(3):  # warm-up
            for traced in (False, True):
                api, token = apis[traced]
                api.post(
                    f"{TX_PATH}?resolve=true",
                    {"txs": [transfer_tx(token, recipient("c0c0c0c0", k))]},
                )
                k += 1
        for _ in range(rounds):
            lat: dict[bool, list[float]] = {False: [], True: []}
            for turn in range(turns):
                for traced in (False, True) if turn % 2 == 0 else (True, False):
                    api, token = apis[traced]
                    for _ in range(50):
                        k += 1
                        body = {"txs": [transfer_tx(token, recipient("c0c0c0c0", k))]}
                        t0 = time.perf_counter()
                        status, res = api.post(f"{TX_PATH}?resolve=true", body)
                        lat[traced].append((time.perf_counter() - t0) * 1000)
                        if status != 200 or res[0]["status"] != "Success":
                            raise RuntimeError(f"transfer failed: {status} {str(res)[:300]}")
            for traced in (False, True):
                out[traced].append(statistics.median(lat[traced]))
            print(
                f"  round: median {out[False][-1]:.3f} ms off, {out[True][-1]:.3f} ms on",
                flush=True,
            )
        for api, _ in apis.values():
            api.close()
    return out


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
    for label, (w, op, size, block) in engine_cases().items():
        n = max(1, size // 3) if opts.quick else size
        engine_round(w, op, max(1, n // 10), True, block=block)  # warm-up, both paths compiled
        engine_round(w, op, max(1, n // 10), False)
        off: list[float] = []
        on: list[float] = []
        rec: list[float] = []
        for _ in range(rounds):
            off.append(engine_round(w, op, n, False))
            rec.append(engine_round(w, op, n, True, text=False))
            on.append(engine_round(w, op, n, True, block=block))
        results[label] = pair(off, on)
        r = results[label]
        only = pair(off, rec)
        r["recording_only_per_s"] = only["on_per_s"]
        r["recording_only_slower_pct"] = only["slower_pct"]
        print(
            f"{label:45} off {r['off_per_s']:>9,.1f}/s  on {r['on_per_s']:>9,.1f}/s  "
            f"{r['slower_pct']:+.1f} % (recording alone {only['slower_pct']:+.1f} %)",
            flush=True,
        )
    if not opts.no_node:
        with tempfile.TemporaryDirectory(prefix="trace-cost-") as tmp:
            lat = sequential_latency(Path(tmp), rounds, 4 if opts.quick else 10)
            results["e) node: sequential transfer latency (resolve=true), ms"] = {
                "off_ms": round(statistics.median(lat[False]), 3),
                "on_ms": round(statistics.median(lat[True]), 3),
                "slower_pct": round(
                    (statistics.median(lat[True]) / statistics.median(lat[False]) - 1) * 100, 1
                ),
                "rounds_off": [round(x, 3) for x in lat[False]],
                "rounds_on": [round(x, 3) for x in lat[True]],
            }
            r = results["e) node: sequential transfer latency (resolve=true), ms"]
            print(
                f"{'e) node: sequential transfer latency':45} off {r['off_ms']:>7.3f} ms  "
                f"on {r['on_ms']:>7.3f} ms  {r['slower_pct']:+.1f} %",
                flush=True,
            )
            settings = Settings(
                rounds=rounds,
                duration=0,
                batches=20 if opts.quick else 50,
                batch_size=100,
                clients=4,
                cold_tries=0,
            )
            batch: dict[bool, list[float]] = {False: [], True: []}
            for rnd in range(rounds):
                for traced in (False, True):
                    flags = ("--traces", "on" if traced else "off")
                    b = batch_round(settings, Path(tmp) / f"b{rnd}{traced}", flags)
                    if not b.verified:
                        raise RuntimeError(f"batch round not verified: {b}")
                    batch[traced].append(b.rate)
                    print(
                        f"  round {rnd + 1} traces {'on ' if traced else 'off'}: batches "
                        f"{b.rate:,.0f} tx/s",
                        flush=True,
                    )
            label = "f) node: batched transfers (resolve=false)"
            results[label] = pair(batch[False], batch[True])
            r = results[label]
            print(
                f"{label:45} off {r['off_per_s']:>9,.1f}/s  on {r['on_per_s']:>9,.1f}/s  "
                f"{r['slower_pct']:+.1f} %",
                flush=True,
            )
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
