"""Sandbox node throughput over HTTP, with Ganache 7.9.2 as the peer.

Scenarios (each round on a fresh temporary data dir, best round reported):
  a) sequential Token.transfer calls with ?resolve=true from one user over one keep-alive
     connection (wrk -t1 -c1 and benchmarks/lua/strato_transfer.lua); afterwards the token's
     state must show exactly as many transfers as wrk saw answered
  b) batches of 100 transfers with resolve=false from several client processes, then polling
     POST /bloc/v2.2/transactions/results until none is Pending: total tx/s
  c) cold start: spawning `python -m app.node serve` until it prints its listening line, on a
     fresh data dir and on an existing one (restart)
  d) runaway batch: alice submits 30 transactions that loop until their step budget runs out
     (one resolve=false request); meanwhile another client measures GET /health and bob's read
     of his token's state (latency p50/p99), and bob's own resolve=true transfers
  e) 32 concurrent unbounded Cirrus queries of a 100,000-row table (benchmarks/cirrus_unbounded.py):
     the node's RSS before, at the peak and after, the time, and /health latency meanwhile
  peer) Ganache 7.9.2 value transfers (eth_sendTransaction), measured exactly like (a), with
     the same client and duration, in rounds alternating with those of (a); its nonce afterwards
     must match the answered requests. Reported as the ratio (a) / Ganache.

wrk comes from Debian (installed with apt-get when missing); without it a lean http.client
keep-alive client runs in a separate process, and the output says so. Ganache is installed into
benchmarks/.peer/ with npm when missing. Results print as a table and are written to
benchmarks/results/node.json.

    python benchmarks/node_bench.py [--quick] [--client auto|wrk|python] [--no-peer]
                                    [--no-unbounded]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module benchlib

from benchlib import (
    BENCH,
    ROOT,
    Node,
    choose_tool,
    machine,
    mark,
    rounded,
    running_node,
    utc_now,
    write_results,
    wrk_bench,
)
from cirrus_unbounded import bench_unbounded, describe
from node_http import (
    BATCH_PREFIX,
    RESULTS_PATH,
    SEQ_PREFIX,
    SUPPLY,
    TX_PATH,
    WARM_PREFIX,
    Http,
    Settings,
    deploy_token,
    free_port,
    recipient,
    token_state,
    transfer_tx,
    transfers_to,
)
from node_runaway import RUNAWAY_TXS, RunawayRun, runaway_round

LUA = BENCH / "lua"
PEER = BENCH / ".peer"
GANACHE_VERSION = "7.9.2"
GANACHE_BIN = PEER / "node_modules" / ".bin" / "ganache"

TARGET_RATIO = 3.0
TARGET_BATCHED = 2_000.0
TARGET_COLD_S = 1.5
TARGET_HEALTH_P99_MS = 50.0  # (d), while runaway transactions execute
TARGET_READ_P99_MS = 100.0

WARMUP = 100  # untimed requests before each sequential measurement (same for node and peer)


# ================================================================ sequential clients


@dataclass
class SeqRun:
    """One sequential measurement."""

    rate: float  # answered requests per second
    completed: int  # answered requests
    generated: int  # requests the client started (completed, plus at most one cut off)
    bad: int  # answers that were not a success
    socket_errors: int
    p50_ms: float
    p99_ms: float
    executed: int = -1  # transactions the server shows afterwards
    verified: bool = False


def run_wrk(url: str, script: Path, args: list[str], duration: int) -> SeqRun:
    cmd = ["wrk", "-t1", "-c1", f"-d{duration}s", "--timeout", "30s", "-s", str(script)]
    f = wrk_bench([*cmd, url, "--", *args], timeout=duration + 60)
    return SeqRun(
        rate=f["requests"] / (f["duration_us"] / 1e6),
        completed=f["requests"],
        generated=f["generated"],
        bad=f["bad"],
        socket_errors=f["socket_errors"],
        p50_ms=f["p50_us"] / 1000,
        p99_ms=f["p99_us"] / 1000,
    )


def _seq_request(kind: str, args: list[str], n: int) -> tuple[str, dict[str, str], bytes]:
    """The n-th request of the Python client: the same bytes the Lua scripts send."""
    if kind == "strato":
        token, contract = args
        body = json.dumps({"txs": [transfer_tx(contract, recipient(SEQ_PREFIX, n))]})
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        return f"{TX_PATH}?resolve=true", headers, body.encode()
    sender, to = args
    rpc = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "eth_sendTransaction",
        "params": [{"from": sender, "to": to, "value": "0x1"}],
    }
    return "/", {"Content-Type": "application/json"}, json.dumps(rpc).encode()


def _seq_worker(kind: str, url: str, args: list[str], duration: int, out: Any) -> None:
    """Python fallback for wrk -t1 -c1: one keep-alive connection, one request at a time."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    latencies: list[float] = []
    generated = bad = errors = 0
    ok = b'"Success"' if kind == "strato" else b'"result"'
    t0 = time.perf_counter()
    end = t0 + duration
    while True:
        t = time.perf_counter()
        if t >= end:
            break
        generated += 1
        path, headers, body = _seq_request(kind, args, generated)
        try:
            conn.request("POST", path, body, headers)
            resp = conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException):
            errors += 1
            conn.close()
            continue
        latencies.append(time.perf_counter() - t)
        if resp.status != 200 or ok not in data:
            bad += 1
    elapsed = time.perf_counter() - t0
    conn.close()
    qs = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    out.put(
        asdict(
            SeqRun(
                rate=len(latencies) / elapsed,
                completed=len(latencies),
                generated=generated,
                bad=bad,
                socket_errors=errors,
                p50_ms=qs[49] * 1000,
                p99_ms=qs[98] * 1000,
            )
        )
    )


def run_python_client(kind: str, url: str, args: list[str], duration: int) -> SeqRun:
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_seq_worker, args=(kind, url, args, duration, q))
    p.start()
    try:
        res = q.get(timeout=duration + 60)
    finally:
        p.join(timeout=10)
    return SeqRun(**res)


@dataclass
class Client:
    """The load generator of the sequential scenarios: wrk or the Python fallback."""

    name: str
    note: str

    def run(self, kind: str, url: str, args: list[str], duration: int) -> SeqRun:
        if self.name == "wrk":
            script = LUA / ("strato_transfer.lua" if kind == "strato" else "ganache_transfer.lua")
            return run_wrk(url, script, args, duration)
        return run_python_client(kind, url, args, duration)


def choose_client(wanted: str) -> Client:
    fallback = "Python http.client keep-alive client in a separate process"
    name, note = choose_tool(wanted, fallback, using=f"the {fallback}")
    return Client(name, f"{note} -t1 -c1" if name == "wrk" else note)


# ================================================================ (a) sequential, our node


def seq_round_node(
    client: Client, duration: int, data_dir: Path, flags: tuple[str, ...] = ()
) -> SeqRun:
    with running_node(data_dir, flags=flags) as node:
        token = node.token()
        api = Http(node.url, token)
        contract = deploy_token(api)
        for i in range(WARMUP):
            status, body = api.post(
                f"{TX_PATH}?resolve=true",
                {"txs": [transfer_tx(contract, recipient(WARM_PREFIX, i))]},
            )
            if status != 200:
                raise RuntimeError(f"warm-up transfer failed: HTTP {status}: {str(body)[:300]}")
        run = client.run("strato", node.url, [token, contract], duration)
        time.sleep(0.3)  # a request cut off by the end of the run may still complete
        state = token_state(api, contract)
        run.executed = transfers_to(state, SEQ_PREFIX)
        warm = transfers_to(state, WARM_PREFIX)
        sent = sum(int(v) for k, v in state["balances"].items() if k.startswith(SEQ_PREFIX))
        total = sum(int(v) for v in state["balances"].values())
        run.verified = (
            run.bad == 0
            and warm == WARMUP
            and sent == run.executed
            and total == SUPPLY
            and run.completed <= run.executed <= run.generated
        )
        api.close()
    return run


# ================================================================ (b) batches, resolve=false


def _batch_worker(
    url: str,
    token: str,
    contract: str,
    first: int,
    batches: int,
    size: int,
    barrier: Any,
    out: Any,
) -> None:
    api = Http(url, token)
    bodies = [
        {
            "txs": [
                transfer_tx(contract, recipient(BATCH_PREFIX, first + b * size + i))
                for i in range(size)
            ]
        }
        for b in range(batches)
    ]
    api.get("/_ping")  # open the connection before the clock starts
    barrier.wait()
    t0 = time.monotonic()
    pending: list[str] = []
    for body in bodies:
        status, res = api.post(TX_PATH, body)
        if status != 200:
            out.put({"error": f"HTTP {status}: {str(res)[:300]}"})
            return
        pending += [r["hash"] for r in res]
    t_submitted = time.monotonic()
    polls = 0
    statuses: dict[str, int] = {}
    while pending:
        status, res = api.post(RESULTS_PATH, pending)
        polls += 1
        if status != 200:
            out.put({"error": f"results: HTTP {status}: {str(res)[:300]}"})
            return
        still = []
        for h, r in zip(pending, res, strict=True):
            if r["status"] == "Pending":
                still.append(h)
            else:
                statuses[r["status"]] = statuses.get(r["status"], 0) + 1
        pending = still
        if pending:
            time.sleep(0.01)
    out.put(
        {
            "start": t0,
            "submitted": t_submitted,
            "end": time.monotonic(),
            "statuses": statuses,
            "polls": polls,
        }
    )
    api.close()


@dataclass
class BatchRun:
    rate: float
    txs: int
    seconds: float
    submit_seconds: float
    success: int
    executed: int
    verified: bool
    polls: int


def batch_round(s: Settings, data_dir: Path, flags: tuple[str, ...] = ()) -> BatchRun:
    with running_node(data_dir, flags=flags) as node:
        token = node.token()
        api = Http(node.url, token)
        contract = deploy_token(api)
        ctx = mp.get_context("spawn")
        barrier = ctx.Barrier(s.clients)
        q = ctx.Queue()
        share = [
            s.batches // s.clients + (1 if i < s.batches % s.clients else 0)
            for i in range(s.clients)
        ]
        procs = []
        first = 0
        for n in share:
            p = ctx.Process(
                target=_batch_worker,
                args=(node.url, token, contract, first, n, s.batch_size, barrier, q),
            )
            first += n * s.batch_size
            p.start()
            procs.append(p)
        outs = [q.get(timeout=300) for _ in procs]
        for p in procs:
            p.join(timeout=10)
        errors = [o["error"] for o in outs if "error" in o]
        if errors:
            raise RuntimeError(f"batch client failed: {errors[0]}")
        start = min(o["start"] for o in outs)
        end = max(o["end"] for o in outs)
        submitted = max(o["submitted"] for o in outs)
        txs = s.batches * s.batch_size
        success = sum(o["statuses"].get("Success", 0) for o in outs)
        executed = transfers_to(token_state(api, contract), BATCH_PREFIX)
        api.close()
    return BatchRun(
        rate=txs / (end - start),
        txs=txs,
        seconds=end - start,
        submit_seconds=submitted - start,
        success=success,
        executed=executed,
        verified=success == txs and executed == txs,
        polls=sum(o["polls"] for o in outs),
    )


def bench_batched(s: Settings, tmp: Path) -> tuple[BatchRun, list[float]]:
    runs = []
    for r in range(s.rounds):
        run = batch_round(s, tmp / f"batch{r}")
        print(
            f"  (b) round {r + 1}: {run.rate:,.0f} tx/s ({run.txs} txs in {run.seconds:.2f} s, "
            f"all submitted after {run.submit_seconds:.2f} s, verified={run.verified})",
            flush=True,
        )
        runs.append(run)
    best = max(runs, key=lambda x: x.rate)
    return best, [round(x.rate, 1) for x in runs]


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


# ================================================================ peer: Ganache


def ensure_ganache() -> str | None:
    """Install Ganache into benchmarks/.peer when missing; returns why it is unusable, or None."""
    if GANACHE_BIN.exists():
        return None
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return "node/npm not found on this machine"
    print(f"installing ganache@{GANACHE_VERSION} into {PEER.relative_to(ROOT)} ...", flush=True)
    res = subprocess.run(
        [npm, "install", "--prefix", str(PEER), f"ganache@{GANACHE_VERSION}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if res.returncode != 0 or not GANACHE_BIN.exists():
        lines = (res.stderr or res.stdout).strip().splitlines()
        return "npm install failed: " + (lines[-1] if lines else f"exit {res.returncode}")
    return None


def rpc(api: Http, method: str, params: list[Any]) -> Any:
    status, body = api.post("/", {"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    if status != 200 or not isinstance(body, dict) or "result" not in body:
        raise RuntimeError(f"{method}: HTTP {status}: {str(body)[:300]}")
    return body["result"]


@contextmanager
def running_ganache(log: Path) -> Iterator[str]:
    port = free_port()
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [str(GANACHE_BIN), "--port", str(port), "--wallet.deterministic", "--logging.quiet"],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"ganache exited: {log.read_text(errors='replace')[-1000:]}")
            try:
                api = Http(url, timeout=2)
                rpc(api, "eth_blockNumber", [])
                api.close()
                break
            except (OSError, RuntimeError, http.client.HTTPException):
                if time.monotonic() > deadline:
                    raise RuntimeError("ganache did not answer eth_blockNumber in 60 s") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def seq_round_ganache(client: Client, duration: int, log: Path) -> SeqRun:
    with running_ganache(log) as url:
        api = Http(url)
        accounts = rpc(api, "eth_accounts", [])
        sender, to = accounts[0], accounts[1]
        for i in range(WARMUP):
            rpc(api, "eth_sendTransaction", [{"from": sender, "to": to, "value": hex(i + 1)}])
        run = client.run("ganache", url, [sender, to], duration)
        time.sleep(0.3)
        nonce = int(rpc(api, "eth_getTransactionCount", [sender, "latest"]), 16)
        run.executed = nonce - WARMUP
        run.verified = run.bad == 0 and run.completed <= run.executed <= run.generated
        api.close()
    return run


@dataclass
class Sequential:
    """(a) and the peer, measured in alternating rounds so that both see the same machine."""

    node: SeqRun
    node_all: list[float]
    peer: SeqRun | None
    peer_all: list[float]
    peer_problem: str | None


def bench_sequential(
    s: Settings, client: Client, tmp: Path, peer_problem: str | None
) -> Sequential:
    runs: list[SeqRun] = []
    peer_runs: list[SeqRun] = []
    for r in range(s.rounds):
        run = seq_round_node(client, s.duration, tmp / f"seq{r}")
        print(
            f"  (a) round {r + 1}: {run.rate:,.0f} tx/s ({run.completed} answered, "
            f"{run.executed} in state, verified={run.verified})",
            flush=True,
        )
        runs.append(run)
        if peer_problem is not None:
            continue
        try:
            prun = seq_round_ganache(client, s.duration, tmp / f"ganache{r}.log")
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            peer_problem = f"ganache run failed: {exc}"
            print(f"GANACHE UNAVAILABLE: {peer_problem}", flush=True)
            continue
        print(
            f"  peer round {r + 1}: {prun.rate:,.0f} tx/s ({prun.completed} answered, "
            f"nonce shows {prun.executed}, verified={prun.verified})",
            flush=True,
        )
        peer_runs.append(prun)
    return Sequential(
        node=max(runs, key=lambda x: x.rate),
        node_all=[x.rate for x in runs],
        peer=max(peer_runs, key=lambda x: x.rate) if peer_runs else None,
        peer_all=[x.rate for x in peer_runs],
        peer_problem=peer_problem if not peer_runs else None,
    )


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a short smoke run (1 round, 3 s runs)")
    ap.add_argument(
        "--client",
        choices=("auto", "wrk", "python"),
        default="auto",
        help="load generator of (a) and the peer: wrk (installed when missing) or the Python one",
    )
    ap.add_argument("--no-peer", action="store_true", help="skip Ganache")
    ap.add_argument("--clients", type=int, default=2, help="client processes of (b)")
    ap.add_argument("--no-unbounded", action="store_true", help="skip (e)")
    opts = ap.parse_args()
    if opts.quick:
        s = Settings(
            rounds=1, duration=3, batches=10, batch_size=100, clients=opts.clients, cold_tries=2
        )
    else:
        s = Settings(
            rounds=3, duration=10, batches=50, batch_size=100, clients=opts.clients, cold_tries=5
        )

    t_start = time.perf_counter()
    client = choose_client(opts.client)
    peer_problem: str | None = "skipped (--no-peer)" if opts.no_peer else ensure_ganache()
    if peer_problem is not None and not opts.no_peer:
        print(f"GANACHE UNAVAILABLE: {peer_problem}; reporting the node's figures only", flush=True)
    print(f"client: {client.note}", flush=True)

    with tempfile.TemporaryDirectory(prefix="node-bench-") as tmp_name:
        tmp = Path(tmp_name)
        what = "" if peer_problem else f" and Ganache {GANACHE_VERSION}, alternating"
        sq: Sequential = timed(
            f"(a) sequential resolve=true transfers{what}, {s.rounds} x {s.duration} s",
            lambda: bench_sequential(s, client, tmp, peer_problem),
        )
        batch, batch_all = timed(
            f"(b) {s.batches} batches of {s.batch_size}, resolve=false, {s.clients} clients",
            lambda: bench_batched(s, tmp),
        )
        cold = timed(
            f"(c) cold start, best of {s.cold_tries}",
            lambda: bench_cold(s, tmp, tmp / f"seq{s.rounds - 1}"),
        )
        runaway: RunawayRun = timed(
            f"(d) reads while {RUNAWAY_TXS} runaway transactions execute",
            lambda: runaway_round(s, tmp / "runaway"),
        )
        unbounded_rows = 20_000 if opts.quick else 100_000
        unbounded = (
            None
            if opts.no_unbounded
            else timed(
                f"(e) 32 concurrent unbounded Cirrus queries, {unbounded_rows:,} rows",
                lambda: bench_unbounded(tmp, unbounded_rows),
            )
        )
    seq, seq_all = sq.node, sq.node_all
    peer, peer_all, peer_problem = sq.peer, sq.peer_all, sq.peer_problem

    ratio = seq.rate / peer.rate if peer is not None and peer.rate > 0 else None
    rows: list[tuple[str, str, str]] = [
        (
            "(a) sequential transfers, resolve=true",
            f"{seq.rate:,.0f} tx/s",
            f"p50 {seq.p50_ms:.2f} ms, p99 {seq.p99_ms:.2f} ms; "
            f"{seq.executed} in state for {seq.completed} answered: "
            + ("verified" if seq.verified else "NOT VERIFIED"),
        ),
    ]
    if peer is not None and ratio is not None:
        rows.append(
            (
                f"    Ganache {GANACHE_VERSION}, same client",
                f"{peer.rate:,.0f} tx/s",
                f"p50 {peer.p50_ms:.2f} ms, p99 {peer.p99_ms:.2f} ms; nonce "
                + ("verified" if peer.verified else "NOT VERIFIED"),
            )
        )
        rows.append(
            (
                "    ratio node / Ganache",
                f"{ratio:.2f}x",
                f"target >= {TARGET_RATIO:g}x: " + mark(ratio >= TARGET_RATIO),
            )
        )
    else:
        rows.append(("    Ganache", "n/a", f"UNAVAILABLE: {peer_problem}"))
    rows += [
        (
            f"(b) batches of {s.batch_size}, resolve=false",
            f"{batch.rate:,.0f} tx/s",
            f"target >= {TARGET_BATCHED:,.0f} tx/s: {mark(batch.rate >= TARGET_BATCHED)}; "
            + ("all Success, in state" if batch.verified else "NOT VERIFIED"),
        ),
        (
            "(c) cold start, fresh data dir",
            f"{cold.fresh_s:.2f} s",
            f"target < {TARGET_COLD_S:g} s: {mark(cold.fresh_s < TARGET_COLD_S)}",
        ),
        (
            f"    restart, data dir with {cold.restart_txs:,} txs",
            f"{cold.restart_s:.2f} s",
            f"target < {TARGET_COLD_S:g} s: {mark(cold.restart_s < TARGET_COLD_S)}",
        ),
        (
            f"(d) GET /health during {RUNAWAY_TXS} runaway txs",
            f"{runaway.health_p99_ms:,.1f} ms",
            f"p99 (p50 {runaway.health_p50_ms:.1f} ms, {runaway.health_n} requests); "
            f"target < {TARGET_HEALTH_P99_MS:g} ms: "
            + mark(runaway.health_p99_ms < TARGET_HEALTH_P99_MS),
        ),
        (
            "    another user's state read",
            f"{runaway.read_p99_ms:,.1f} ms",
            f"p99 (p50 {runaway.read_p50_ms:.1f} ms, {runaway.read_n} requests); "
            f"target < {TARGET_READ_P99_MS:g} ms: "
            + mark(runaway.read_p99_ms < TARGET_READ_P99_MS),
        ),
        (
            "    another user's resolve=true transfer",
            f"{max(runaway.other_tx_ms, default=float('nan')):,.0f} ms",
            f"slowest of {len(runaway.other_tx_ms)}; {runaway.runaway_done_during} runaway txs "
            "ended meanwhile, " + ("all Failure" if runaway.runaway_failed else "NOT ALL FAILED"),
        ),
    ]
    if unbounded is not None:
        rows.append(describe(unbounded))
    width = max(len(r[0]) for r in rows)
    print()
    print(
        f"Sandbox node benchmark (Python {platform.python_version()}, {os.cpu_count()} CPUs; "
        f"best of {s.rounds} rounds, {s.duration} s per sequential run)"
    )
    print(f"client: {client.note}")
    for name, value, note in rows:
        print(f"  {name:<{width}}  {value:>12}  {note}")

    out = {
        "date": utc_now(),
        "machine": machine(arch=True, nodejs=nodejs_version()),
        "quick": opts.quick,
        "client": {"tool": client.name, "detail": client.note},
        "rounds": s.rounds,
        "sequential_seconds": s.duration,
        "sequential": {**asdict(seq), "rounds_tx_per_s": seq_all},
        "batched": {
            **asdict(batch),
            "batch_size": s.batch_size,
            "batches": s.batches,
            "client_processes": s.clients,
            "rounds_tx_per_s": batch_all,
        },
        "cold_start": asdict(cold),
        "runaway": asdict(runaway),
        "unbounded_cirrus": asdict(unbounded) if unbounded is not None else None,
        "peer": {
            "name": f"ganache@{GANACHE_VERSION}",
            "available": peer is not None,
            "problem": peer_problem,
            **({**asdict(peer), "rounds_tx_per_s": peer_all} if peer is not None else {}),
        },
        "ratio_sequential_vs_peer": round(ratio, 3) if ratio is not None else None,
        "targets": {
            "ratio_min": TARGET_RATIO,
            "batched_min_tx_per_s": TARGET_BATCHED,
            "cold_start_max_s": TARGET_COLD_S,
            "ratio_met": ratio is not None and ratio >= TARGET_RATIO,
            "batched_met": batch.rate >= TARGET_BATCHED,
            "cold_start_met": max(cold.fresh_s, cold.restart_s) < TARGET_COLD_S,
            "runaway_health_p99_max_ms": TARGET_HEALTH_P99_MS,
            "runaway_read_p99_max_ms": TARGET_READ_P99_MS,
            "runaway_met": runaway.health_p99_ms < TARGET_HEALTH_P99_MS
            and runaway.read_p99_ms < TARGET_READ_P99_MS,
        },
        "wall_seconds": round(time.perf_counter() - t_start, 1),
    }
    path = write_results("node", rounded(out))
    print(f"written to {path.relative_to(ROOT)} ({out['wall_seconds']} s in all)")


if __name__ == "__main__":
    main()
