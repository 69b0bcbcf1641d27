"""The sandbox node's write path over HTTP, beside anvil and Ganache 7.9.2 as peers.

Write measurements, in interleaved rounds (sandbox, anvil, ganache, sandbox, ...; medians of
the rounds reported), each on a fresh node or peer with 100 untimed warm-up transfers first:
  sandbox  sequential Token.transfer with ?resolve=true over one keep-alive connection, with
           the Python client (http.client, TCP_NODELAY, each request waiting for its answer;
           seq_client.py) and with wrk -t1 -c1 (benchmarks/lua/strato_transfer.lua); the
           latency of resolve=false submissions on the Python client; batches of 100
           transfers with resolve=false from several client processes, then polling the
           results until none is Pending (node_write.py)
  anvil    (Foundry's Rust dev chain, npm @foundry-rs/anvil-linux-amd64, at its best:
           evm_peer.ANVIL_BEST) and
  ganache  (7.9.2): the same Token (benchmarks/evm/Token.sol, compiled ahead of time) and the
           same sequential transfers over the same kind of client, each waiting for its
           receipt: eth_sendTransactionSync on anvil (answered with the receipt),
           eth_sendTransaction on Ganache (answered once mined), and as the generic client
           eth_sendTransaction + eth_getTransactionReceipt until it is there (evm_peer.py)
The Python client also reports each system's rate over its first 1,000 transfers (equal state
size: anvil slows as its state grows), and the ratios at that size.
After every measurement the token's balances (sandbox: state; peers: nonce and balanceOf) must
account for exactly the answered transfers. Then, on the sandbox only:
  cold start: spawning `python -m app.node serve` until it prints its listening line, on a
     fresh data dir and on an existing one (restart)
  runaway: alice submits 30 transactions that loop until their step budget runs out; meanwhile
     another client measures GET /health and bob's state reads (p50/p99) and his transfers
  traces: the same sequential (Python client) and batched transfers on a node started with
     `--traces off`, interleaved with the default (traces on) rounds: what recording the
     call traces costs a transfer (issue 28 asks for no more than 10 %)
  unbounded: 32 concurrent unbounded Cirrus queries of a 100,000-row table
     (benchmarks/cirrus_unbounded.py): the node's RSS before, at the peak and after

wrk comes from Debian (installed with apt-get when missing; without it the wrk rows are
skipped), the peers are installed into benchmarks/.peer/ with npm when missing. Results print as
a table and are written to benchmarks/results/node.json. Where a transfer's time goes inside
the node: benchmarks/write_profile.py.

    python benchmarks/node_bench.py [--quick] [--rounds N] [--duration S] [--no-peer]
                                    [--no-wrk] [--no-unbounded] [--no-trace-cost]
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module benchlib

from benchlib import ROOT, Node, choose_tool, machine, mark, rounded, utc_now, write_results
from benchstats import fmt_ratio, interleave, median_of, medians, ratio
from cirrus_unbounded import bench_unbounded, describe
from evm_peer import PEERS, Peer, ensure_peer, peer_round, peer_version
from node_http import Settings
from node_runaway import RUNAWAY_TXS, RunawayRun, runaway_round
from node_write import batch_round, row, seq_round, submit_round
from seq_client import FIRST_N, SeqRun

# the goals of issue 27 (sequential: the Python client) and the older ones still in force
TARGET_RATIO_ANVIL = 2.0
TARGET_RATIO_GANACHE = 3.0
TARGET_SEQ_P99_MS = 3.0
TARGET_SUBMIT_P50_MS = 0.5
TARGET_BATCHED = 10_000.0
TARGET_COLD_S = 1.5
TARGET_HEALTH_P99_MS = 50.0  # while runaway transactions execute
TARGET_READ_P99_MS = 100.0
TARGET_TRACE_COST = 0.10  # a transfer with traces on at most 10 % slower than with them off
TRACES_OFF = "sandbox-traces-off"

SEQ_KEYS = ("rate", "p50_ms", "p99_ms", "first_rate")


# ================================================================ (c) cold start


@dataclass
class ColdStart:
    fresh_s: float
    restart_s: float
    fresh_all: list[float] = field(default_factory=list)
    restart_all: list[float] = field(default_factory=list)
    restart_txs: int = 0


def bench_cold(s: Settings, tmp: Path, existing: Path) -> ColdStart:
    fresh = []
    for i in range(s.cold_tries):
        node = Node.start(tmp / f"cold{i}")
        fresh.append(node.startup_s)
        node.stop()
    restart = []
    for _ in range(s.cold_tries):
        node = Node.start(existing)
        restart.append(node.startup_s)
        node.stop()
    txs = 0
    with suppress(Exception):
        import sqlite3

        db = sqlite3.connect(existing / "node.sqlite3")
        txs = int(db.execute("SELECT COUNT(*) FROM txs").fetchone()[0])
        db.close()
    return ColdStart(
        min(fresh),
        min(restart),
        [round(x, 3) for x in fresh],
        [round(x, 3) for x in restart],
        txs,
    )


# ================================================================ interleaved write rounds


Rows = dict[str, dict[str, list[dict[str, Any]]]]  # system -> measurement -> one row per round


def sandbox_round(s: Settings, r: int, clients: list[str], tmp: Path, rows: Rows) -> None:
    mine = rows.setdefault("sandbox", {})
    for client in clients:
        run = seq_round(client, s.duration, tmp / f"sandbox-{client}{r}")
        mine.setdefault(client, []).append(row(run))
        print(
            f"  sandbox {client:<15} {run.rate:>8,.0f} tx/s  p50 {run.p50_ms:.2f} ms  "
            f"p99 {run.p99_ms:.2f} ms  {first(run)}({run.completed} answered, "
            f"{run.executed} in state, "
            f"verified={run.verified})",
            flush=True,
        )
    sub = submit_round(s.duration, tmp / f"sandbox-submit{r}")
    mine.setdefault("submit", []).append(row(sub))
    print(
        f"  sandbox resolve=false   {sub.rate:>8,.0f} sub/s p50 {sub.p50_ms:.2f} ms  "
        f"p99 {sub.p99_ms:.2f} ms  (all done after +{sub.drain_seconds:.2f} s: "
        f"{sub.executed_rate:,.0f} tx/s executed, verified={sub.verified})",
        flush=True,
    )
    batch = batch_round(s, tmp / f"sandbox-batch{r}")
    mine.setdefault("batched", []).append(row(batch))
    print(
        f"  sandbox batched         {batch.rate:>8,.0f} tx/s  ({batch.txs} txs in "
        f"{batch.seconds:.2f} s, submitted after {batch.submit_seconds:.2f} s, "
        f"verified={batch.verified})",
        flush=True,
    )


def traces_off_round(s: Settings, r: int, tmp: Path, rows: Rows) -> None:
    """The sandbox with ``--traces off``: the Python client's sequential transfers and the
    batches, to set beside the default rounds."""
    mine = rows.setdefault(TRACES_OFF, {})
    flags = ("--traces", "off")
    run = seq_round("python", s.duration, tmp / f"notrace-python{r}", flags)
    mine.setdefault("python", []).append(row(run))
    print(
        f"  traces off python       {run.rate:>8,.0f} tx/s  p50 {run.p50_ms:.2f} ms  "
        f"p99 {run.p99_ms:.2f} ms  (verified={run.verified})",
        flush=True,
    )
    batch = batch_round(s, tmp / f"notrace-batch{r}", flags)
    mine.setdefault("batched", []).append(row(batch))
    print(
        f"  traces off batched      {batch.rate:>8,.0f} tx/s  (verified={batch.verified})",
        flush=True,
    )


def trace_cost_rows(med: dict[str, dict[str, Any]]) -> tuple[list[tuple[str, str, str]], bool]:
    """How much slower a transfer is with traces recorded, per client; and whether every
    client stays within the issue's 10 %."""
    rows: list[tuple[str, str, str]] = []
    met = True
    for client in ("python", "batched"):
        on = med.get("sandbox", {}).get(client, {}).get("rate")
        off = med.get(TRACES_OFF, {}).get(client, {}).get("rate")
        if not on or not off:
            continue
        cost = off / on - 1.0  # extra time per transfer with traces on
        met = met and cost <= TARGET_TRACE_COST
        rows.append(
            (
                f"trace recording cost, {client}",
                f"{cost * 100:+.1f} %",
                f"time per transfer, traces on ({on:,.0f} tx/s) vs off ({off:,.0f} tx/s); "
                f"target <= {TARGET_TRACE_COST * 100:.0f} %: " + mark(cost <= TARGET_TRACE_COST),
            )
        )
    return rows, met


def first(run: SeqRun) -> str:
    """The rate over the first FIRST_N answers for a round's line, when there is one."""
    return "" if run.first_rate is None else f"first {FIRST_N:,}: {run.first_rate:,.0f} tx/s  "


def peer_rounds(peer: Peer, s: Settings, r: int, clients: list[str], tmp: Path, rows: Rows) -> None:
    mine = rows.setdefault(peer.name, {})
    for client in clients:
        if client == "python-receipt" and peer.send == "eth_sendTransaction":
            continue  # the same requests as "python" on this peer
        run = peer_round(peer, client, s.duration, tmp / f"{peer.name}-{client}{r}.log")
        mine.setdefault(client, []).append(row(run))
        print(
            f"  {peer.name:<7} {client:<15} {run.rate:>8,.0f} tx/s  p50 {run.p50_ms:.2f} ms  "
            f"p99 {run.p99_ms:.2f} ms  {first(run)}({run.completed} answered, "
            f"{run.executed} mined, "
            f"{run.receipt_polls} extra receipt polls, verified={run.verified})",
            flush=True,
        )


def write_rounds(
    s: Settings,
    peers: list[Peer],
    wrk: bool,
    tmp: Path,
    problems: dict[str, str],
    trace_cost: bool = True,
) -> tuple[Rows, list[float]]:
    """All write measurements in interleaved rounds; the rows and the load before each round."""
    rows: Rows = {}
    loads: list[float] = []
    seq_clients = ["python", "wrk"] if wrk else ["python"]
    peer_clients = [*seq_clients, "python-receipt"]
    systems = ["sandbox", *(p.name for p in peers), *([TRACES_OFF] if trace_cost else [])]
    by_name = {p.name: p for p in peers}
    for r, system in interleave(systems, s.rounds):
        if system == "sandbox":
            loads.append(os.getloadavg()[0])
            print(f"round {r + 1}/{s.rounds} (1-min load {loads[-1]:.2f})", flush=True)
            sandbox_round(s, r, seq_clients, tmp, rows)
        elif system == TRACES_OFF:
            traces_off_round(s, r, tmp, rows)
        elif system not in problems:
            try:
                peer_rounds(by_name[system], s, r, peer_clients, tmp, rows)
            except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                problems[system] = f"run failed: {exc}"
                print(f"{system.upper()} FAILED: {exc}", flush=True)
    return rows, loads


def summary(rows: Rows) -> dict[str, dict[str, Any]]:
    """The medians over rounds of every measurement, and whether every round verified."""
    out: dict[str, dict[str, Any]] = {}
    for system, measurements in rows.items():
        for name, runs in measurements.items():
            keys = list(SEQ_KEYS)
            if name == "submit":
                keys += ["executed_rate", "drain_seconds"]
            out.setdefault(system, {})[name] = {
                **medians(runs, keys),
                "verified": all(r["verified"] for r in runs),
                "rounds": [r["rate"] for r in runs],
            }
    return out


# ================================================================ report


def nodejs_version() -> str:
    with suppress(OSError):
        return subprocess.run(
            ["node", "--version"], capture_output=True, text=True, check=False
        ).stdout.strip()
    return ""


def timed(label: str, fn: Callable[[], Any]) -> Any:
    t0 = time.perf_counter()
    print(f"{label} ...", flush=True)
    out = fn()
    print(f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
    return out


def attempt(label: str, fn: Callable[[], Any], failures: dict[str, str]) -> Any:
    """``timed``, but a failure is reported (in ``failures``) instead of losing the run."""
    try:
        return timed(label, fn)
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        failures[label] = str(exc)[:500]
        print(f"  FAILED: {str(exc)[:500]}", flush=True)
        return None


def describe_clients(peers: list[Peer]) -> dict[str, str]:
    d = {
        "python": "Python http.client keep-alive connection, TCP_NODELAY, sequential; sandbox: "
        "POST /svc/v2.3/transaction?resolve=true; "
        + "; ".join(f"{p.name}: {p.send}" for p in peers),
        "wrk": "wrk -t1 -c1, the same requests (benchmarks/lua)",
        "python-receipt": "peers: eth_sendTransaction, then eth_getTransactionReceipt until there",
    }
    return d


def seq_table(med: dict[str, dict[str, Any]]) -> list[tuple[str, str, str]]:
    rows = []
    for system, ms in med.items():
        for name, m in ms.items():
            if name in ("submit", "batched"):
                continue
            rows.append(
                (
                    f"{system} {name}",
                    f"{m['rate']:,.0f} tx/s",
                    f"p50 {m['p50_ms']:.2f} ms, p99 {m['p99_ms']:.2f} ms; "
                    + (
                        ""
                        if math.isnan(m["first_rate"])
                        else f"first {FIRST_N:,}: {m['first_rate']:,.0f} tx/s; "
                    )
                    + ("verified" if m["verified"] else "NOT VERIFIED")
                    + f"; rounds {', '.join(f'{x:,.0f}' for x in m['rounds'])}",
                )
            )
    return rows


def cold_rows(cold: ColdStart) -> list[tuple[str, str, str]]:
    return [
        (
            "cold start, fresh data dir",
            f"{cold.fresh_s:.2f} s",
            f"target < {TARGET_COLD_S:g} s: {mark(cold.fresh_s < TARGET_COLD_S)}",
        ),
        (
            f"restart, data dir with {cold.restart_txs:,} txs",
            f"{cold.restart_s:.2f} s",
            f"target < {TARGET_COLD_S:g} s: {mark(cold.restart_s < TARGET_COLD_S)}",
        ),
    ]


def runaway_rows(runaway: RunawayRun) -> list[tuple[str, str, str]]:
    nan = float("nan")
    return [
        (
            f"GET /health during {RUNAWAY_TXS} runaway txs",
            f"{runaway.health_p99_ms:,.1f} ms",
            f"p99 (p50 {runaway.health_p50_ms:.1f} ms, {runaway.health_n} requests); "
            f"target < {TARGET_HEALTH_P99_MS:g} ms: "
            + mark(runaway.health_p99_ms < TARGET_HEALTH_P99_MS),
        ),
        (
            "  another user's state read",
            f"{runaway.read_p99_ms:,.1f} ms",
            f"p99 (p50 {runaway.read_p50_ms:.1f} ms, {runaway.read_n} requests); "
            f"target < {TARGET_READ_P99_MS:g} ms: "
            + mark(runaway.read_p99_ms < TARGET_READ_P99_MS),
        ),
        (
            "  another user's resolve=true transfer",
            f"{max(runaway.other_tx_ms, default=nan):,.0f} ms",
            f"slowest of {len(runaway.other_tx_ms)}; {runaway.runaway_done_during} runaway txs "
            "ended meanwhile, " + ("all Failure" if runaway.runaway_failed else "NOT ALL FAILED"),
        ),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a short run (3 rounds of 3 s)")
    ap.add_argument("--rounds", type=int, help="write rounds (default 3)")
    ap.add_argument("--duration", type=int, help="seconds per sequential measurement")
    ap.add_argument("--no-peer", action="store_true", help="skip anvil and Ganache")
    ap.add_argument("--no-wrk", action="store_true", help="the Python client only")
    ap.add_argument("--clients", type=int, default=2, help="client processes of the batches")
    ap.add_argument(
        "--batches",
        type=int,
        help="batches of 100 per batched round (default 50; more: steadier figures, e.g. "
        "the trace cost of batches, whose 50-batch rounds last about a second)",
    )
    ap.add_argument("--no-unbounded", action="store_true", help="skip the Cirrus memory scenario")
    ap.add_argument(
        "--no-trace-cost", action="store_true", help="skip the rounds with --traces off"
    )
    opts = ap.parse_args()
    s = Settings(
        rounds=opts.rounds or 3,
        duration=opts.duration or (3 if opts.quick else 10),
        batches=opts.batches or (10 if opts.quick else 50),
        batch_size=100,
        clients=opts.clients,
        cold_tries=2 if opts.quick else 5,
    )
    t_start = time.perf_counter()
    load_before = os.getloadavg()[0]
    wrk = False
    wrk_note = "skipped (--no-wrk)"
    if not opts.no_wrk:
        name, wrk_note = choose_tool("auto", "no wrk")
        wrk = name == "wrk"
    problems: dict[str, str] = {}
    peers: list[Peer] = []
    for peer in [] if opts.no_peer else PEERS:
        why = ensure_peer(peer)
        if why is None:
            peers.append(peer)
        else:
            problems[peer.name] = why
            print(f"{peer.name.upper()} UNAVAILABLE: {why}", flush=True)

    with tempfile.TemporaryDirectory(prefix="node-bench-") as tmp_name:
        tmp = Path(tmp_name)
        rows, loads = timed(
            f"writes: {s.rounds} interleaved rounds of sandbox"
            + "".join(f", {p.name}" for p in peers)
            + ("" if opts.no_trace_cost else ", sandbox with --traces off")
            + f"; {s.duration} s per sequential measurement",
            lambda: write_rounds(s, peers, wrk, tmp, problems, not opts.no_trace_cost),
        )
        failures: dict[str, str] = {}
        cold: ColdStart | None = attempt(
            f"cold start, best of {s.cold_tries}",
            lambda: bench_cold(s, tmp, tmp / f"sandbox-python{s.rounds - 1}"),
            failures,
        )
        runaway: RunawayRun | None = attempt(
            f"reads while {RUNAWAY_TXS} runaway transactions execute",
            lambda: runaway_round(s, tmp / "runaway"),
            failures,
        )
        unbounded_rows = 20_000 if opts.quick else 100_000
        unbounded = (
            None
            if opts.no_unbounded
            else attempt(
                f"32 concurrent unbounded Cirrus queries, {unbounded_rows:,} rows",
                lambda: bench_unbounded(tmp, unbounded_rows),
                failures,
            )
        )
    load_after = os.getloadavg()[0]
    med = summary(rows)
    sandbox = med["sandbox"]
    nan = float("nan")

    def rate(system: str, client: str, key: str = "rate") -> float:
        return float(med.get(system, {}).get(client, {}).get(key, nan))

    ratios = {
        f"sandbox/{p.name} {c}": ratio(rate("sandbox", c), rate(p.name, c))
        for p in peers
        for c in (["python", "wrk"] if wrk else ["python"])
    }
    for p in peers:  # at equal state size (anvil slows as its state grows: seq_client.py)
        first_ratio = ratio(
            rate("sandbox", "python", "first_rate"), rate(p.name, "python", "first_rate")
        )
        if first_ratio is not None:  # a slow peer may not reach FIRST_N in a short run
            ratios[f"sandbox/{p.name} python, first {FIRST_N:,}"] = first_ratio
    seq = sandbox["python"]
    sub = sandbox["submit"]
    batch = sandbox["batched"]
    r_anvil = ratios.get("sandbox/anvil python")
    r_ganache = ratios.get("sandbox/ganache python")
    table = seq_table({k: v for k, v in med.items() if k != TRACES_OFF})
    cost_rows, cost_met = trace_cost_rows(med)
    table += [(f"ratio {k}", fmt_ratio(v), "") for k, v in ratios.items()]
    table += [
        (
            "sandbox resolve=false submissions",
            f"{sub['p50_ms']:.2f} ms",
            f"p50 (p99 {sub['p99_ms']:.2f} ms, {sub['rate']:,.0f} submissions/s, all executed "
            f"at {sub['executed_rate']:,.0f} tx/s); target p50 < {TARGET_SUBMIT_P50_MS:g} ms: "
            + mark(sub["p50_ms"] < TARGET_SUBMIT_P50_MS)
            + ("" if sub["verified"] else "; NOT VERIFIED"),
        ),
        (
            f"sandbox batches of {s.batch_size}, resolve=false",
            f"{batch['rate']:,.0f} tx/s",
            f"{s.clients} client processes; target >= {TARGET_BATCHED:,.0f}: "
            + mark(batch["rate"] >= TARGET_BATCHED)
            + ("; all Success, in state" if batch["verified"] else "; NOT VERIFIED"),
        ),
    ]
    table += cost_rows
    if cold is not None:
        table += cold_rows(cold)
    if runaway is not None:
        table += runaway_rows(runaway)
    if unbounded is not None:
        u = describe(unbounded)
        table.append((u[0].removeprefix("(e) "), u[1], u[2]))
    mach = machine(arch=True, nodejs=nodejs_version())
    width = max(len(r[0]) for r in table)
    print()
    print(
        f"Sandbox node benchmark: median of {s.rounds} interleaved rounds, {s.duration} s per "
        f"sequential run; {mach['cpus']} cores, {mach['cpu']}; 1-min load {load_before:.2f} "
        f"before, {load_after:.2f} after (per round: {', '.join(f'{x:.2f}' for x in loads)})"
    )
    print(f"peers: {', '.join(peer_version(p) for p in peers) or 'none'}; wrk: {wrk_note}")
    busy = max(load_before, load_after, *loads)
    if busy > (mach["cpus"] or 1):
        print(
            f"NOTE: a loaded machine (1-min load up to {busy:.1f} on {mach['cpus']} cores): the "
            "figures are far below a quiet machine's, and the peers do not lose alike"
        )
    for name, why in problems.items():
        print(f"  {name}: UNAVAILABLE ({why})")
    for name, why in failures.items():
        print(f"  {name}: FAILED ({why})")
    for name, value, note in table:
        print(f"  {name:<{width}}  {value:>12}  {note}")
    print(
        f"targets: sandbox/anvil python >= {TARGET_RATIO_ANVIL:g}x: "
        f"{mark(r_anvil is not None and r_anvil >= TARGET_RATIO_ANVIL)}; sandbox p99 < "
        f"{TARGET_SEQ_P99_MS:g} ms: {mark(seq['p99_ms'] < TARGET_SEQ_P99_MS)}; "
        f"sandbox/ganache python >= {TARGET_RATIO_GANACHE:g}x: "
        f"{mark(r_ganache is not None and r_ganache >= TARGET_RATIO_GANACHE)}"
    )

    out = {
        "date": utc_now(),
        "machine": mach,
        "load_1min": {"before": load_before, "after": load_after, "rounds": loads},
        "quick": opts.quick,
        "rounds": s.rounds,
        "sequential_seconds": s.duration,
        "clients": describe_clients(peers),
        "wrk": wrk_note,
        "peers": {p.name: peer_version(p) for p in peers},
        "peer_problems": problems,
        "medians": med,
        "ratios": ratios,
        "batched": {"batch_size": s.batch_size, "batches": s.batches, "clients": s.clients},
        "rounds_detail": rows,
        "failures": failures,
        "cold_start": asdict(cold) if cold is not None else None,
        "runaway": asdict(runaway) if runaway is not None else None,
        "unbounded_cirrus": asdict(unbounded) if unbounded is not None else None,
        "targets": {
            "ratio_anvil_min": TARGET_RATIO_ANVIL,
            "ratio_anvil_met": r_anvil is not None and r_anvil >= TARGET_RATIO_ANVIL,
            "ratio_ganache_min": TARGET_RATIO_GANACHE,
            "ratio_ganache_met": r_ganache is not None and r_ganache >= TARGET_RATIO_GANACHE,
            "sequential_p99_max_ms": TARGET_SEQ_P99_MS,
            "sequential_p99_met": seq["p99_ms"] < TARGET_SEQ_P99_MS,
            "submit_p50_max_ms": TARGET_SUBMIT_P50_MS,
            "submit_p50_met": sub["p50_ms"] < TARGET_SUBMIT_P50_MS,
            "batched_min_tx_per_s": TARGET_BATCHED,
            "batched_met": median_of(rows["sandbox"]["batched"], "rate") >= TARGET_BATCHED,
            "trace_cost_max": TARGET_TRACE_COST,
            "trace_cost_met": cost_met if cost_rows else None,
            "cold_start_max_s": TARGET_COLD_S,
            "cold_start_met": cold is not None
            and max(cold.fresh_s, cold.restart_s) < TARGET_COLD_S,
            "runaway_health_p99_max_ms": TARGET_HEALTH_P99_MS,
            "runaway_read_p99_max_ms": TARGET_READ_P99_MS,
            "runaway_met": runaway is not None
            and runaway.health_p99_ms < TARGET_HEALTH_P99_MS
            and runaway.read_p99_ms < TARGET_READ_P99_MS,
        },
        "wall_seconds": round(time.perf_counter() - t_start, 1),
    }
    path = write_results("node", rounded(out))
    print(f"written to {path.relative_to(ROOT)} ({out['wall_seconds']} s in all)")


if __name__ == "__main__":
    main()
