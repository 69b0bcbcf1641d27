"""Cirrus search over a large contract table: indexing throughput, then query latency over HTTP.

1. Indexing: a fresh data dir gets a ``Car`` table (resources/contracts/CarAsset.sol) of
   ``--rows`` rows (default 1,000,000), written through the node's own indexer path: one
   ``AccountState`` per car, ``Indexer.row`` for its row and ``Indexer.write_rows`` (an
   ``INSERT OR REPLACE`` through ``CirrusBackend.upsert``), ``--batch`` rows per committed
   transaction (as a block of that many changed contracts would be). Reported: row upserts/s.
2. The node: ``python -m app.node serve`` on that data dir (it adds its genesis and the demo app;
   the Car table stays), bearer tokens from ``python -m app.node token``, and the private chains
   each user can see (GET /bloc/v2.2/chain): the node adds a clause for them to every Cirrus query.
   Users: alice (a member of the demo app's chain) and the first of bob/dave/carol who is a
   member of none (the clause then differs, and so does SQLite's plan).
3. Raw, with the node idle: every query is parsed and rendered by ``CirrusBackend`` (same user,
   same visible chains) on a separate connection to the same file; the SQL it issues is captured
   and timed on a plain SQLite connection (and the whole ``CirrusBackend.run`` too). For
   comparison the same SQL without the private-chain clause is timed as well.
4. HTTP: ``GET /cirrus/search/Car`` with wrk (benchmarks/lua/cirrus_get.lua): 1 connection for
   latency, ``--connections`` for throughput. Every answer is first checked against the raw one.

   a)  address=eq.<address>            (indexed column; rotates over 16 sampled addresses)
   b)  color=ilike.*ue*&order=weight.desc&limit=50
   c)  select=count&color=eq.red
   d)  offset=<90% of the rows>&limit=50   (offset=900000 at 1M rows)
   a2) a) again, as the user of no private chain

``--strato16 N`` runs another scenario instead (benchmarks/cirrus16_scenario.py): a token with
N balances, and the same queries on the seed family's ``Token-_balances`` table and on STRATO 16's
``BlockApps-Token-_balances`` view, side by side (results: benchmarks/results/cirrus16.json).

wrk comes from Debian (installed with apt-get when missing); without it a multi-process
http.client keep-alive client is used, and the output says so. Results print as a table and are
written to benchmarks/results/cirrus.json.

    python benchmarks/cirrus_bench.py [--quick] [--rows N] [--connections N] [--duration S]
    python benchmarks/cirrus_bench.py --strato16 N [--batch N]
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import multiprocessing as mp
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

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

sys.path.insert(0, str(ROOT))

import cirrus16_scenario

from app.node.cirrus.backend import CirrusBackend
from app.node.cirrus.indexer import Indexer
from app.node.cirrus.query import parse_query
from app.node.solidvm import World, compile_source
from app.node.solidvm.defs import ContractDef
from app.node.solidvm.values import Address
from app.node.solidvm.world import AccountState
from app.node.store import DB_FILE, Store

LUA_SCRIPT = BENCH / "lua" / "cirrus_get.lua"
CAR_SOL = ROOT / "resources" / "contracts" / "CarAsset.sol"

TABLE = "Car"
SEARCH = f"/cirrus/search/{TABLE}"
CHAINS_PATH = "/bloc/v2.2/chain"
MAIN_USER = "alice"
OTHER_USERS = ("bob", "dave", "carol")  # the first one of no private chain is measured too
SEED = 20_241_122
EQ_SAMPLES = 16  # addresses query (a) rotates over

TARGET_INDEX_RATE = 5_000.0
TARGET_EQ_P50_MS = 5.0
TARGET_EQ_RATE = 2_000.0
TARGET_ILIKE_RATIO = 2.0

COLORS = ["red", "Red", "blue", "BLUE", "navy blue", "green", "black", "white", "silver", "teal"]
MODELS = ["Accord", "civic", "CR-V", "Model 3", "model y", "F-150", "Corolla", "rav4", "MUSTANG"]
ORGS = [("Acme", "Engineering"), ("Globex", "Logistics"), ("Initech", "Sales"), ("Umbrella", "")]
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]


@dataclass
class Settings:
    rows: int
    batch: int
    duration: int  # seconds per wrk run
    connections: int
    raw_seconds: float  # time budget per query and raw path
    quick: bool


# ================================================================ 1. indexing


@dataclass
class Built:
    data_dir: Path
    rows: int
    seconds: float  # Indexer.row + write_rows + commit, all batches
    row_seconds: float  # of which building the rows (Indexer.row)
    write_seconds: float  # of which upserts and commits
    setup_seconds: float  # account states made up by the benchmark (not timed)
    db_bytes: int
    addresses: list[str]  # EQ_SAMPLES addresses for query (a)
    red: int  # rows with color exactly "red"
    vins: dict[int, str]  # row number -> vin, for checking query (d)

    @property
    def rate(self) -> float:
        return self.rows / self.seconds


def car_contract() -> ContractDef:
    unit = compile_source(CAR_SOL.read_text())
    return unit.contracts["Car"]


def vin_of(i: int) -> str:
    return f"1HGCM{i:012d}"


def build_table(n_rows: int, batch: int, data_dir: Path) -> Built:
    """The Car table of ``n_rows`` rows, written in ``batch``-row transactions (also used by
    cirrus_view_bench.py)."""
    cdef = car_contract()
    store = Store(data_dir)  # runs the migrations
    backend = CirrusBackend(store.db)
    ix = Indexer(backend, World(), index_evm=False)
    with store.transaction():
        ix.contract_table(TABLE, cdef)
    rng = random.Random(SEED)
    owners = [Address(rng.getrandbits(160)) for _ in range(1_000)]
    senders = [format(rng.getrandbits(160), "040x") for _ in range(len(NAMES))]
    app_chain = format(rng.getrandbits(256), "064x")
    sample_at = {n_rows * k // EQ_SAMPLES + 7 for k in range(EQ_SAMPLES)}
    addresses: list[str] = []
    vins: dict[int, str] = {}
    red = 0
    timed = row_time = setup_time = 0.0
    ts0 = 1_700_000_000
    for block, start in enumerate(range(0, n_rows, batch), start=1):
        t0 = time.perf_counter()
        end = min(start + batch, n_rows)
        work: list[tuple[AccountState, str, str]] = []
        for i in range(start, end):
            acct = AccountState(rng.getrandbits(160), "", cdef)
            who = rng.randrange(len(NAMES))
            org, unit = ORGS[who % len(ORGS)]
            color = COLORS[rng.randrange(len(COLORS))]
            red += color == "red"
            acct.storage = {
                "owner": owners[rng.randrange(len(owners))],
                "appChainId": app_chain,
                "ownerOrganization": org,
                "ownerOrganizationalUnit": unit,
                "ownerCommonName": NAMES[who],
                "vin": vin_of(i),
                "color": color,
                "model": MODELS[rng.randrange(len(MODELS))],
                "weight": 800 + rng.randrange(2_800),
            }
            work.append((acct, format(rng.getrandbits(256), "064x"), senders[who]))
            if i in sample_at:
                addresses.append(acct.hex)
            if i % 1_000 == 0:
                vins[i] = vin_of(i)
        block_hash = format(rng.getrandbits(256), "064x")
        t1 = time.perf_counter()
        rows = [ix.row(a, block, block_hash, ts0 + block, tx, who) for a, tx, who in work]
        t2 = time.perf_counter()
        with store.transaction():
            ix.write_rows(TABLE, cdef, rows)
        t3 = time.perf_counter()
        setup_time += t1 - t0
        row_time += t2 - t1
        timed += t3 - t1
        if block % 20 == 0:
            print(f"  indexed {end:,} rows ({end / timed:,.0f} rows/s)", flush=True)
    store.close()
    os.sync()  # let the queries below not compete with the write-back of the new database
    size = sum(p.stat().st_size for p in data_dir.iterdir() if p.name.startswith(DB_FILE))
    return Built(
        data_dir=data_dir,
        rows=n_rows,
        seconds=timed,
        row_seconds=row_time,
        write_seconds=timed - row_time,
        setup_seconds=setup_time,
        db_bytes=size,
        addresses=addresses,
        red=red,
        vins=vins,
    )


# ================================================================ the queries


@dataclass
class Query:
    key: str
    label: str
    paths: list[str]  # request paths (query (a) rotates over several)
    user: str  # who asks (the node adds a clause for the private chains they may see)


def queries(built: Built, other: str | None) -> list[Query]:
    offset = built.rows * 9 // 10
    eq = [f"{SEARCH}?address=eq.{a}" for a in built.addresses]
    qs = [
        Query("a", f"address=eq.<address> (indexed), {len(eq)} addresses", eq, MAIN_USER),
        Query(
            "b",
            "color=ilike.*ue*&order=weight.desc&limit=50",
            [f"{SEARCH}?color=ilike.*ue*&order=weight.desc&limit=50"],
            MAIN_USER,
        ),
        Query("c", "select=count&color=eq.red", [f"{SEARCH}?select=count&color=eq.red"], MAIN_USER),
        Query("d", f"offset={offset}&limit=50", [f"{SEARCH}?offset={offset}&limit=50"], MAIN_USER),
    ]
    if other is not None:
        qs.append(Query("a2", f"(a) as {other}, member of no private chain", eq, other))
    return qs


def query_pairs(path: str) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(path).query, keep_blank_values=True)


def check_rows(q: Query, built: Built, rows: list[dict[str, Any]]) -> None:
    """Sanity of one answer (the raw answer; HTTP answers are compared with it)."""
    if q.key in ("a", "a2"):
        ok = len(rows) == 1 and rows[0]["address"] in built.addresses
    elif q.key == "b":
        weights = [r["weight"] for r in rows]
        ok = (
            len(rows) == 50
            and all("ue" in r["color"].lower() for r in rows)
            and weights == sorted(weights, reverse=True)
        )
    elif q.key == "c":
        ok = rows == [{"count": built.red}]
    else:
        offset = built.rows * 9 // 10
        want = built.vins.get(offset)
        ok = len(rows) == min(50, built.rows - offset) and (want is None or rows[0]["vin"] == want)
    if not ok:
        raise RuntimeError(f"query ({q.key}) answered wrongly: {str(rows)[:500]}")


# ================================================================ 2. raw SQLite


class RecordingConnection(sqlite3.Connection):
    """A connection that remembers the statements the backend sends through ``execute``."""

    recorded: list[tuple[str, list[Any]]] | None = None

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        if self.recorded is not None:
            self.recorded.append((sql, list(parameters)))
        return super().execute(sql, parameters)


@dataclass
class Stats:
    n: int
    p50_ms: float
    p95_ms: float
    mean_ms: float


def stats(samples: list[float]) -> Stats:
    xs = sorted(samples)

    def pct(p: float) -> float:
        return xs[min(len(xs) - 1, round(p * (len(xs) - 1)))] * 1000

    return Stats(len(xs), pct(0.50), pct(0.95), statistics.fmean(xs) * 1000)


@dataclass
class Raw:
    sql: list[str]
    plan: list[str]
    sql_stats: Stats  # the captured statements, executed and fetched on a plain connection
    run_stats: Stats  # parse_query + CirrusBackend.run (what the node does under its lock)
    answers: list[list[dict[str, Any]]]  # per path
    # for comparison only: the SQL without the node's private-chain clause (``"chainId" = ''``)
    unscoped_plan: list[str]
    unscoped_stats: Stats


def timed_interleaved(
    fns: list[Callable[[int], object]], budgets: list[float], min_reps: int
) -> list[list[float]]:
    """Timings of each ``fn``, called in turn (so all see the same machine), until each has spent
    its budget and run ``min_reps`` times (the capture runs before were the warm-up)."""
    times: list[list[float]] = [[] for _ in fns]
    k = 0
    while True:
        busy = False
        for fn, budget, out in zip(fns, budgets, times, strict=True):
            if (sum(out) >= budget and len(out) >= min_reps) or len(out) >= 20_000:
                continue
            busy = True
            t0 = time.perf_counter()
            fn(k)
            out.append(time.perf_counter() - t0)
        if not busy:
            return times
        k += 1


def bench_raw(
    s: Settings, built: Built, qs: list[Query], visible: dict[str, set[str]]
) -> dict[str, Raw]:
    """Each query as the backend runs it for its user, on connections of this process."""
    path = built.data_dir / DB_FILE
    rec = sqlite3.connect(path, isolation_level=None, factory=RecordingConnection)
    plain = sqlite3.connect(path, isolation_level=None)
    backend = CirrusBackend(rec)
    out: dict[str, Raw] = {}
    try:
        for q in qs:
            parsed = [query_pairs(p) for p in q.paths]
            statements: list[list[tuple[str, list[Any]]]] = []
            unscoped: list[list[tuple[str, list[Any]]]] = []
            answers: list[list[dict[str, Any]]] = []
            for pairs in parsed:
                rec.recorded = []
                rows, _ = backend.run(TABLE, parse_query(pairs), visible[q.user], False)
                check_rows(q, built, rows)
                answers.append(rows)
                statements.append(rec.recorded)
                rec.recorded = []
                backend.run(TABLE, parse_query(pairs), None, False)
                unscoped.append(rec.recorded)
                rec.recorded = None

            def plan_of(stmts: list[tuple[str, list[Any]]]) -> list[str]:
                return [
                    " / ".join(r[3] for r in plain.execute(f"EXPLAIN QUERY PLAN {sql}", params))
                    for sql, params in stmts
                    if sql not in ("BEGIN", "COMMIT")  # the backend's read transaction
                ]

            def sql_runner(
                stmts: list[list[tuple[str, list[Any]]]],
            ) -> Callable[[int], None]:
                def run(k: int) -> None:
                    for sql, params in stmts[k % len(stmts)]:
                        plain.execute(sql, params).fetchall()

                return run

            def run_backend(
                k: int, parsed: list[list[tuple[str, str]]] = parsed, who: str = q.user
            ) -> None:
                backend.run(TABLE, parse_query(parsed[k % len(parsed)]), visible[who], False)

            sql_times, run_times, unscoped_times = timed_interleaved(
                [sql_runner(statements), run_backend, sql_runner(unscoped)],
                [s.raw_seconds, s.raw_seconds, s.raw_seconds / 2],
                3,
            )
            out[q.key] = Raw(
                sql=[sql for sql, _ in statements[0]],
                plan=plan_of(statements[0]),
                sql_stats=stats(sql_times),
                run_stats=stats(run_times),
                answers=answers,
                unscoped_plan=plan_of(unscoped[0]),
                unscoped_stats=stats(unscoped_times),
            )
            print(
                f"  raw ({q.key}): SQL p50 {out[q.key].sql_stats.p50_ms:.3f} ms, "
                f"CirrusBackend.run p50 {out[q.key].run_stats.p50_ms:.3f} ms",
                flush=True,
            )
    finally:
        rec.close()
        plain.close()
    return out


# ================================================================ 3. the node over HTTP


def http_get(url: str, token: str, path: str) -> tuple[int, Any]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=120)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


@dataclass
class Load:
    """One load run: ``connections`` keep-alive connections for ``duration`` seconds."""

    connections: int
    requests: int
    rate: float  # answered requests per second
    errors: int  # socket errors and non-2xx answers
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float


def run_wrk(url: str, token: str, paths: list[str], connections: int, duration: int) -> Load:
    cmd = [
        "wrk",
        "-t1",
        f"-c{connections}",
        f"-d{duration}s",
        "--timeout",
        "60s",
        "-s",
        str(LUA_SCRIPT),
        url,
        "--",
        token,
        *paths,
    ]
    f = wrk_bench(cmd, timeout=duration + 120)
    return Load(
        connections=connections,
        requests=f["requests"],
        rate=f["requests"] / (f["duration_us"] / 1e6),
        errors=f["socket_errors"] + f["status_errors"],
        p50_ms=f["p50_us"] / 1000,
        p95_ms=f["p95_us"] / 1000,
        p99_ms=f["p99_us"] / 1000,
        max_ms=f["max_us"] / 1000,
    )


def _client_worker(
    url: str, token: str, paths: list[str], start_at: float, end_at: float, out: Any
) -> None:
    """Fallback load: one keep-alive connection, one request at a time, from ``start_at`` to
    ``end_at`` (``time.monotonic``, the same clock in every process)."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port
    conn = http.client.HTTPConnection(host, port, timeout=120)
    headers = {"Authorization": f"Bearer {token}"}
    latencies: list[float] = []
    errors = 0
    time.sleep(max(0.0, start_at - time.monotonic()))
    last = time.monotonic()
    k = 0
    while last < end_at:
        t = time.monotonic()
        path = paths[k % len(paths)]
        k += 1
        try:
            conn.request("GET", path, headers=headers)
            resp = conn.getresponse()
            resp.read()
        except (OSError, http.client.HTTPException):
            errors += 1
            conn.close()
            conn = http.client.HTTPConnection(host, port, timeout=120)
            last = time.monotonic()
            continue
        last = time.monotonic()
        latencies.append(last - t)
        errors += resp.status >= 400
    conn.close()
    out.put((latencies, errors, last))


def run_python_client(
    url: str, token: str, paths: list[str], connections: int, duration: int
) -> Load:
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    start_at = time.monotonic() + 2.0 + 0.2 * connections  # after every process has started
    procs = [
        ctx.Process(
            target=_client_worker, args=(url, token, paths, start_at, start_at + duration, q)
        )
        for _ in range(connections)
    ]
    for p in procs:
        p.start()
    latencies: list[float] = []
    errors = 0
    finished = start_at + duration
    for _ in procs:
        lat, err, last = q.get(timeout=duration + 180)
        latencies += lat
        errors += err
        finished = max(finished, last)
    for p in procs:
        p.join(timeout=10)
    st = stats(latencies) if latencies else Stats(0, 0.0, 0.0, 0.0)
    xs = sorted(latencies) or [0.0]
    return Load(
        connections=connections,
        requests=len(latencies),
        rate=len(latencies) / (finished - start_at),
        errors=errors,
        p50_ms=st.p50_ms,
        p95_ms=st.p95_ms,
        p99_ms=xs[min(len(xs) - 1, round(0.99 * (len(xs) - 1)))] * 1000,
        max_ms=xs[-1] * 1000,
    )


@dataclass
class Client:
    name: str
    note: str

    def run(self, url: str, token: str, paths: list[str], connections: int, duration: int) -> Load:
        if self.name == "wrk":
            return run_wrk(url, token, paths, connections, duration)
        return run_python_client(url, token, paths, connections, duration)


def choose_client(wanted: str) -> Client:
    fallback = "Python http.client keep-alive clients (one process per connection)"
    return Client(*choose_tool(wanted, fallback))


@dataclass
class Http:
    latency: Load  # 1 connection
    throughput: Load  # s.connections connections


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_quiet(pid: int, timeout: float = 120.0) -> None:
    """Until the node has worked off what an earlier run left queued (< 10% CPU for 0.3 s)."""
    deadline = time.monotonic() + timeout
    try:
        before = cpu_seconds(pid)
        while time.monotonic() < deadline:
            time.sleep(0.3)
            now = cpu_seconds(pid)
            if now - before < 0.03:
                return
            before = now
    except (OSError, ValueError, IndexError):
        time.sleep(1.0)  # no /proc: give it a moment


def wait_idle(url: str, timeout: float = 60.0) -> None:
    """Until the node has run the transactions of its first start (genesis, demo app)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
        try:
            conn.request("GET", "/health")
            body = json.loads(conn.getresponse().read())
        finally:
            conn.close()
        if not body["healthInfo"]["isLastPending"]:
            return
        time.sleep(0.1)
    raise RuntimeError(f"the node still has pending transactions after {timeout:.0f} s")


def visible_chains(url: str, token: str) -> set[str]:
    """The private chains a user can access (the node shows their Cirrus rows too)."""
    status, body = http_get(url, token, f"{CHAINS_PATH}?limit=1000")
    if status != 200 or not isinstance(body, list):
        raise RuntimeError(f"GET {CHAINS_PATH} -> HTTP {status}: {str(body)[:300]}")
    return {str(c["id"]) for c in body}


def bench_http(
    s: Settings,
    client: Client,
    node: Node,
    tokens: dict[str, str],
    qs: list[Query],
    raw: dict[str, Raw],
) -> dict[str, Http]:
    out: dict[str, Http] = {}
    url, pid = node.url, node.proc.pid
    for q in qs:
        token = tokens[q.user]
        # the node must answer exactly what the backend computed on its own connection
        for path, want in zip(q.paths, raw[q.key].answers, strict=True):
            status, body = http_get(url, token, path)
            if status != 200 or body != want:
                raise RuntimeError(
                    f"GET {path} -> HTTP {status}, expected the raw answer: {str(body)[:300]}"
                )
        wait_quiet(pid)
        # a few answers at least, even from a query that takes seconds
        slow = math.ceil(3.5 * raw[q.key].run_stats.p50_ms / 1000)
        lat = client.run(url, token, q.paths, 1, max(s.duration, min(slow, 20)))
        wait_quiet(pid)
        thr = client.run(url, token, q.paths, s.connections, s.duration)
        if lat.errors or thr.errors:
            raise RuntimeError(f"query ({q.key}): {lat.errors + thr.errors} failed requests")
        out[q.key] = Http(lat, thr)
        print(
            f"  HTTP ({q.key}): p50 {lat.p50_ms:.2f} ms, {lat.rate:,.0f} req/s with 1 "
            f"connection, {thr.rate:,.0f} req/s with {s.connections}",
            flush=True,
        )
    return out


# ================================================================ report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="100k rows and shorter runs (smoke run)")
    ap.add_argument("--rows", type=int, help="rows in the Car table (default 1,000,000)")
    ap.add_argument("--batch", type=int, default=10_000, help="rows per indexing transaction")
    ap.add_argument("--duration", type=int, help="seconds per wrk run (default 5, quick 3)")
    ap.add_argument("--connections", type=int, default=8, help="connections for req/s")
    ap.add_argument(
        "--client",
        choices=("auto", "wrk", "python"),
        default="auto",
        help="load generator: wrk (installed when missing) or the Python fallback",
    )
    ap.add_argument("--keep", action="store_true", help="keep the data dir (path is printed)")
    ap.add_argument(
        "--strato16",
        type=int,
        metavar="N",
        help="instead: STRATO 16's collection view vs the seed table, a token of N balances",
    )
    opts = ap.parse_args()
    if opts.strato16 is not None:
        cirrus16_scenario.main(opts.strato16, opts.batch)
        return
    s = Settings(
        rows=opts.rows or (100_000 if opts.quick else 1_000_000),
        batch=opts.batch,
        duration=opts.duration or (3 if opts.quick else 5),
        connections=opts.connections,
        raw_seconds=1.0 if opts.quick else 1.5,
        quick=opts.quick,
    )
    if s.rows < 1_000 or s.batch < 1:
        raise SystemExit("--rows must be at least 1,000 and --batch at least 1")
    client = choose_client(opts.client)
    load_start = os.getloadavg()[0]
    if load_start > (os.cpu_count() or 1) / 2:
        print(f"note: the machine is busy (1-minute load {load_start:.1f}): figures will be noisy")
    t_start = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="cirrus-bench-"))
    data_dir = tmp / "node"
    try:
        print(f"indexing {s.rows:,} Car rows into {data_dir} ...", flush=True)
        built = build_table(s.rows, s.batch, data_dir)
        with running_node(data_dir, timeout=120.0) as node:
            startup = node.startup_s
            print(f"node up in {startup:.2f} s at {node.url}", flush=True)
            wait_idle(node.url)
            tokens = {MAIN_USER: node.token(MAIN_USER)}
            visible = {MAIN_USER: visible_chains(node.url, tokens[MAIN_USER])}
            other = None
            for name in OTHER_USERS:
                tok = node.token(name)
                chains = visible_chains(node.url, tok)
                if not chains:
                    other = name
                    tokens[name], visible[name] = tok, chains
                    break
            qs = queries(built, other)
            print(
                "visible private chains: "
                + ", ".join(f"{u} {len(v)}" for u, v in visible.items())
                + " (raw SQL next, with the node idle)",
                flush=True,
            )
            wait_quiet(node.proc.pid)
            raw = bench_raw(s, built, qs, visible)
            print(f"HTTP ({client.name}) ...", flush=True)
            web = bench_http(s, client, node, tokens, qs, raw)
            wait_quiet(node.proc.pid)
    finally:
        if opts.keep:
            print(f"data dir kept: {data_dir}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    total = time.perf_counter() - t_start

    eq = web["a"]
    ratios = {k: web[k].latency.p50_ms / raw[k].sql_stats.p50_ms for k in web}
    targets = {
        "indexing_rows_per_s": (
            built.rate,
            f">= {TARGET_INDEX_RATE:,.0f}",
            built.rate >= TARGET_INDEX_RATE,
        ),
        "a_p50_ms": (
            eq.latency.p50_ms,
            f"< {TARGET_EQ_P50_MS}",
            eq.latency.p50_ms < TARGET_EQ_P50_MS,
        ),
        "a_req_per_s": (
            eq.throughput.rate,
            f">= {TARGET_EQ_RATE:,.0f} ({s.connections} connections)",
            eq.throughput.rate >= TARGET_EQ_RATE,
        ),
        "b_http_raw_ratio": (
            ratios["b"],
            f"< {TARGET_ILIKE_RATIO}",
            ratios["b"] < TARGET_ILIKE_RATIO,
        ),
    }
    labels = {
        "indexing_rows_per_s": "indexing rows/s",
        "a_p50_ms": f"(a) HTTP p50 ms, {MAIN_USER}",
        "a_req_per_s": f"(a) req/s, {MAIN_USER}",
        "b_http_raw_ratio": "(b) HTTP/raw SQL p50",
    }
    if "a2" in web:
        eq2, who = web["a2"], next(q.user for q in qs if q.key == "a2")
        targets["a2_p50_ms"] = (
            eq2.latency.p50_ms,
            f"< {TARGET_EQ_P50_MS}",
            eq2.latency.p50_ms < TARGET_EQ_P50_MS,
        )
        targets["a2_req_per_s"] = (
            eq2.throughput.rate,
            f">= {TARGET_EQ_RATE:,.0f} ({s.connections} connections)",
            eq2.throughput.rate >= TARGET_EQ_RATE,
        )
        labels["a2_p50_ms"] = f"(a) HTTP p50 ms, {who}"
        labels["a2_req_per_s"] = f"(a) req/s, {who}"

    m = machine(sqlite=sqlite3.sqlite_version)
    m["load_1min_at_start"] = round(load_start, 2)
    m["load_1min_at_end"] = round(os.getloadavg()[0], 2)
    print()
    print(
        f"Cirrus benchmark: {s.rows:,} rows in {TABLE} (Python {m['python']}, SQLite "
        f"{m['sqlite']}, {m['cpus']} CPUs, 1-min load {load_start:.1f} -> "
        f"{m['load_1min_at_end']:.1f}; client: {client.note})"
    )
    print(
        f"  indexing, Indexer.row + write_rows, {s.batch:,}-row transactions: "
        f"{built.rate:,.0f} rows/s ({built.seconds:.1f} s; rows {built.row_seconds:.1f} s, "
        f"upserts+commits {built.write_seconds:.1f} s); database {built.db_bytes / 1e6:,.0f} MB"
    )
    print(
        f"  node start-up on this data dir: {startup:.2f} s; private chains visible to: "
        + ", ".join(f"{u} {len(v)}" for u, v in visible.items())
    )
    head = (
        f"  {'query':<50} {'SQL p50':>9} {'run() p50':>9} {'HTTP p50':>9} {'HTTP p95':>9} "
        f"{'HTTP/SQL':>8} {'req/s c=1':>10} {f'req/s c={s.connections}':>11} "
        f"{f'p50 c={s.connections}':>10}"
    )
    print(head)
    for q in qs:
        r, w = raw[q.key], web[q.key]
        print(
            f"  {'(' + q.key + ')':<5} {q.label:<44} "
            f"{r.sql_stats.p50_ms:>7.2f}ms {r.run_stats.p50_ms:>7.2f}ms "
            f"{w.latency.p50_ms:>7.2f}ms {w.latency.p95_ms:>7.2f}ms {ratios[q.key]:>8.2f} "
            f"{w.latency.rate:>10,.1f} {w.throughput.rate:>11,.1f} {w.throughput.p50_ms:>8.1f}ms"
        )
    print("  targets:")
    for k, (value, want, ok) in targets.items():
        print(f"    {labels[k]:<26} {value:>12,.2f}   {want:<28} {mark(ok)}")
    print("  query plans (the node's SQL; then, for comparison, without its private-chain clause):")
    for q in qs:
        r = raw[q.key]
        print(f"    {'(' + q.key + ')':<5} {' | '.join(r.plan)}")
        print(
            f"          w/o: {' | '.join(r.unscoped_plan)}  "
            f"(SQL p50 {r.unscoped_stats.p50_ms:.2f}ms)"
        )
    print(f"  whole run: {total:.0f} s")

    result = {
        "date": utc_now(),
        "machine": m,
        "quick": s.quick,
        "settings": asdict(s),
        "client": {"tool": client.name, "detail": client.note},
        "indexing": {
            "rows": built.rows,
            "batch": s.batch,
            "rows_per_s": round(built.rate, 1),
            "seconds": round(built.seconds, 3),
            "row_build_seconds": round(built.row_seconds, 3),
            "upsert_commit_seconds": round(built.write_seconds, 3),
            "upserts_only_rows_per_s": round(built.rows / built.write_seconds, 1),
            "untimed_setup_seconds": round(built.setup_seconds, 3),
            "db_bytes": built.db_bytes,
        },
        "node_startup_s": round(startup, 3),
        "visible_private_chains": {u: len(v) for u, v in visible.items()},
        "queries": {
            q.key: {
                "query": q.label,
                "user": q.user,
                "example_path": q.paths[0],
                "paths": len(q.paths),
                "sql": raw[q.key].sql,
                "plan": raw[q.key].plan,
                "raw_sql": rounded(asdict(raw[q.key].sql_stats)),
                "backend_run": rounded(asdict(raw[q.key].run_stats)),
                "without_chain_clause": {
                    "plan": raw[q.key].unscoped_plan,
                    "raw_sql": rounded(asdict(raw[q.key].unscoped_stats)),
                },
                "http_1_connection": rounded(asdict(web[q.key].latency)),
                f"http_{s.connections}_connections": rounded(asdict(web[q.key].throughput)),
                "http_raw_ratio_p50": round(ratios[q.key], 3),
            }
            for q in qs
        },
        "targets": {
            k: {"value": round(v, 3), "target": want, "met": ok}
            for k, (v, want, ok) in targets.items()
        },
        "run_seconds": round(total, 1),
    }
    path = write_results("cirrus", result)
    print(f"written to {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
