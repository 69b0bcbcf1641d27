"""A token with many holders on the sandbox node: reading its state, and a mixed load that
grows it (issue 26, items 6 and 7).

A fresh node gets the Token of resources/contracts/Token.sol and ``--holders`` holders (default
88,000; transfers of 1 token, 2,000 per request), then:

  a) page: sequential reads of the ``balances`` mapping, interleaved, ``--reps`` each: the first
     page of 50 (``state?name=balances&offset=0&count=50``), a page of 50 near the end, its
     length (``&length``) and the whole state (about 4 MB at 88,000 holders); then ``GET
     /health`` every 20 ms, and a first page every 100 ms, while 2 clients read the whole state in
     a loop, and /health while 4 clients read first pages in a loop
  b) mixed: ``--rounds`` rounds (default 3) of ``--round-s`` seconds (default 60) of 64
     keep-alive connections, each wrk process one kind of request: /health (4 connections),
     the last 5 blocks and one block by number (8), the last 10 transactions (8), pages of 50
     of ``balances`` at four offsets (16), Cirrus queries on the token's tables (12: its row, its
     last 20 Transfer events, 20 rows of its ``balances`` in the ``mapping`` table, one holder's
     Transfer events), and ``resolve=true`` transfers, each to a new holder (16), so the state
     grows all along. Per round: requests/s of each kind and in all, p99 latency, errors; the
     node's RSS (VmRSS, sampled every second: at the round's end and its peak); the holders at
     the round's end; the node's CPU time per request (user + system over the round's
     requests: on a shared machine the rate moves with the others' load, this figure much
     less). A rate or a CPU time per request that grows from round to round is the thing to
     look for.

wrk is required (installed from Debian when missing). Results print as tables and are written
to benchmarks/results/state_load.json.

    python benchmarks/state_load_bench.py [--holders N] [--reps N] [--rounds N] [--round-s S]
                                          [--only page|mixed]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module benchlib

from benchlib import (
    BENCH,
    Node,
    choose_tool,
    machine,
    rounded,
    running_node,
    utc_now,
    write_results,
    wrk_bench,
)
from node_http import TX_PATH, Http, deploy_token, recipient, transfer_tx

LUA = BENCH / "lua"
HOLDER_PREFIX = "d0d0d0d0"
PER_REQUEST = 2_000
# (kind, connections) of the mixed load: 64 in all
MIX = [
    ("health", 4),
    ("blocks", 8),
    ("transactions", 8),
    ("state pages", 16),
    ("cirrus", 12),
    ("transfers", 16),
]


# ================================================================ HTTP


class Raw:
    """One keep-alive connection that reads answers as bytes (the client decodes nothing)."""

    def __init__(self, url: str, token: str | None = None) -> None:
        parts = urlsplit(url)
        host = parts.hostname or "127.0.0.1"
        self.conn = http.client.HTTPConnection(host, parts.port, timeout=300)
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}

    def get(self, path: str) -> tuple[float, bytes]:
        """(seconds, body) of a GET that must answer 200."""
        t0 = time.perf_counter()
        self.conn.request("GET", path, None, self.headers)
        r = self.conn.getresponse()
        body = r.read()
        dt = time.perf_counter() - t0
        if r.status != 200:
            raise RuntimeError(f"GET {path}: HTTP {r.status}: {body[:300]!r}")
        return dt, body

    def close(self) -> None:
        self.conn.close()


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_s(pid: int) -> float:
    """The process's CPU time so far (user + system), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ms(xs: list[float]) -> dict[str, float]:
    """p50, p99 and max of durations in seconds, as milliseconds."""
    s = sorted(xs)
    return {
        "p50_ms": statistics.median(s) * 1000,
        "p99_ms": s[min(len(s) - 1, int(len(s) * 0.99))] * 1000,
        "max_ms": s[-1] * 1000,
        "n": len(s),
    }


# ================================================================ set-up


def add_holders(api: Http, contract: str, holders: int) -> float:
    """``holders`` transfers of 1 token to new holders; returns the seconds it took."""
    t0 = time.perf_counter()
    for start in range(0, holders, PER_REQUEST):
        txs = [
            {
                "type": "FUNCTION",
                "payload": {
                    "contractAddress": contract,
                    "method": "transfer",
                    "args": {"to": recipient(HOLDER_PREFIX, i), "amount": 1},
                },
            }
            for i in range(start, min(holders, start + PER_REQUEST))
        ]
        status, body = api.post(f"{TX_PATH}?resolve=true", {"txs": txs})
        if status != 200 or any(r["status"] != "Success" for r in body):
            raise RuntimeError(f"transfers failed: HTTP {status}: {str(body)[:300]}")
    # then blocks of one transfer each: the mixed load's "last 5 blocks" starts as it goes on
    # (a block of 2,000 transactions answers 0.7 MB, built on the event loop)
    for i in range(5):
        txs = [transfer_tx(contract, recipient(HOLDER_PREFIX, holders + i))]
        status, body = api.post(f"{TX_PATH}?resolve=true", {"txs": txs})
        if status != 200 or body[0]["status"] != "Success":
            raise RuntimeError(f"transfer failed: HTTP {status}: {str(body)[:300]}")
    return time.perf_counter() - t0


def state_route(contract: str) -> str:
    return f"/bloc/v2.2/contracts/Token/{contract}/state"


def holders_now(url: str, token: str, contract: str) -> int:
    c = Raw(url, token)
    try:
        _, body = c.get(f"{state_route(contract)}?name=balances&length")
    finally:
        c.close()
    n: int = json.loads(body)["balances"]
    return n


def last_block(url: str, token: str) -> int:
    c = Raw(url, token)
    try:
        _, body = c.get("/strato-api/eth/v1.2/block/last/1")
    finally:
        c.close()
    n: int = json.loads(body)[0]["blockData"]["number"]
    return n


# ================================================================ (a) paged reads


def read_loop(url: str, token: str, path: str, stop: threading.Event, out: list[float]) -> None:
    c = Raw(url, token)
    try:
        while not stop.is_set():
            out.append(c.get(path)[0])
    finally:
        c.close()


def probe_while(
    url: str,
    token: str,
    loaders: list[str],
    probes: list[tuple[str, float]],
    seconds: float,
) -> tuple[list[dict[str, float]], dict[str, float]]:
    """Each ``probes`` path sent every ``interval`` seconds, while one client per ``loaders``
    path reads it in a loop; the probes' latencies, and the loaders'."""
    stop = threading.Event()
    loaded: list[float] = []
    threads = [
        threading.Thread(target=read_loop, args=(url, token, p, stop, loaded)) for p in loaders
    ]
    for t in threads:
        t.start()
    time.sleep(0.5)  # the loaders are under way

    def probe(path: str, interval: float) -> list[float]:
        c = Raw(url, token)
        out = []
        try:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                out.append(c.get(path)[0])
                time.sleep(interval)
        finally:
            c.close()
        return out

    try:
        with ThreadPoolExecutor(len(probes)) as pool:
            results = list(pool.map(lambda pi: probe(*pi), probes))
    finally:
        stop.set()
        for t in threads:
            t.join()
    return [ms(r) for r in results], ms(loaded)


def bench_page(node: Node, token: str, contract: str, holders: int, reps: int) -> dict[str, Any]:
    route = state_route(contract)
    first = f"{route}?name=balances&offset=0&count=50"
    reads = {
        "first page of 50": first,
        "page of 50 near the end": f"{route}?name=balances&offset={holders - 100}&count=50",
        "length": f"{route}?name=balances&length",
        "whole state": route,
    }
    c = Raw(node.url, token)
    times: dict[str, list[float]] = {k: [] for k in reads}
    sizes = {}
    try:
        for _ in range(reps):
            for k, path in reads.items():
                dt, body = c.get(path)
                times[k].append(dt)
                sizes[k] = len(body)
    finally:
        c.close()
    out: dict[str, Any] = {
        "sequential": {k: {**ms(v), "bytes": sizes[k]} for k, v in times.items()}
    }
    (health, page), whole = probe_while(
        node.url, token, [route, route], [("/health", 0.02), (first, 0.1)], 10
    )
    out["during whole-state reads"] = {"health": health, "first page": page, "whole state": whole}
    (health,), pages = probe_while(node.url, token, [first] * 4, [("/health", 0.02)], 10)
    out["during first-page reads"] = {"health": health, "first page": pages}
    return out


def print_page(res: dict[str, Any]) -> None:
    print("\n(a) reads of the balances mapping, sequential (ms)")
    print(f"  {'read':<26} {'p50':>8} {'p99':>8} {'bytes':>10}")
    for k, v in res["sequential"].items():
        print(f"  {k:<26} {v['p50_ms']:>8.1f} {v['p99_ms']:>8.1f} {v['bytes']:>10,}")
    for during, figs in (
        ("2 clients reading the whole state", res["during whole-state reads"]),
        ("4 clients reading first pages", res["during first-page reads"]),
    ):
        print(f"  while {during}:")
        for k, v in figs.items():
            print(
                f"    {k:<24} p50 {v['p50_ms']:7.1f}  p99 {v['p99_ms']:7.1f}  "
                f"max {v['max_ms']:7.1f} ms  ({v['n']} requests)"
            )


# ================================================================ (b) mixed load


def mix_commands(
    url: str, token: str, contract: str, holders: int, round_no: int, secs: int, block: int
) -> list[tuple[str, list[str]]]:
    """(kind, wrk command) of each wrk process of one round."""
    route = state_route(contract)
    holder = recipient(HOLDER_PREFIX, holders // 2)
    gets = {
        "health": ["/health"],
        "blocks": [
            "/strato-api/eth/v1.2/block/last/5",
            f"/strato-api/eth/v1.2/block?number={block}",
        ],
        "transactions": ["/strato-api/eth/v1.2/transaction/last/10"],
        "state pages": [
            f"{route}?name=balances&offset={k}&count=50"
            for k in (0, holders // 4, holders // 2, holders - 100)
        ],
        "cirrus": [
            f"/cirrus/search/Token?address=eq.{contract}",
            f"/cirrus/search/Token.Transfer?address=eq.{contract}&order=id.desc&limit=20",
            f"/cirrus/search/mapping?address=eq.{contract}&collection_name=eq.balances&limit=20",
            f"/cirrus/search/Token.Transfer?to=eq.{holder}",
        ],
    }
    out = []
    for kind, conns in MIX:
        wrk = ["wrk", "-t1", f"-c{conns}", f"-d{secs}s", "--timeout", "30s"]
        if kind == "transfers":
            prefix = f"e{round_no:07x}"
            args = [token, contract, prefix]
            out.append((kind, [*wrk, "-s", str(LUA / "mixed_transfer.lua"), url, "--", *args]))
        else:
            script = str(LUA / "cirrus_get.lua")  # sends its paths in turn
            out.append((kind, [*wrk, "-s", script, url, "--", token, *gets[kind]]))
    return out


def mixed_round(
    node: Node, token: str, contract: str, holders: int, round_no: int, secs: int
) -> dict[str, Any]:
    rss: list[float] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(1.0):
            rss.append(rss_mb(node.proc.pid))

    sampler = threading.Thread(target=sample)
    sampler.start()
    block = last_block(node.url, token)  # one transfer: that block stays small
    cmds = mix_commands(node.url, token, contract, holders, round_no, secs, block)
    cpu0 = cpu_s(node.proc.pid)
    try:
        with ThreadPoolExecutor(len(cmds)) as pool:
            figs = list(pool.map(lambda kc: wrk_bench(kc[1], timeout=secs + 120), cmds))
    finally:
        stop.set()
        sampler.join()
    cpu = cpu_s(node.proc.pid) - cpu0
    kinds = {}
    for (kind, _), f in zip(cmds, figs, strict=True):
        kinds[kind] = {
            "rate": f["requests"] / (f["duration_us"] / 1e6),
            "requests": f["requests"],
            "p99_ms": f["p99_us"] / 1000,
            "socket_errors": f["socket_errors"],  # connect, read, write, timeout (30 s)
            "status_errors": f["status_errors"],  # answers other than 2xx/3xx
            "failed_transfers": f.get("bad", 0),  # answered but not Success (or not 200)
        }
    requests = sum(k["requests"] for k in kinds.values())
    return {
        "round": round_no,
        "rate": sum(k["rate"] for k in kinds.values()),
        # the node's CPU time per request: what a request costs, whatever else the machine
        # runs (the rate moves with the machine's load; this moves with the node's own cost)
        "cpu_ms_per_request": cpu * 1000 / requests if requests else 0.0,
        "kinds": kinds,
        "rss_end_mb": rss[-1] if rss else rss_mb(node.proc.pid),
        "rss_peak_mb": max(rss, default=0.0),
        "holders_after": holders_now(node.url, token, contract),
        "load_after": os.getloadavg()[0],
    }


def bench_mixed(
    node: Node, token: str, contract: str, rounds: int, secs: int
) -> list[dict[str, Any]]:
    out = []
    for r in range(1, rounds + 1):
        holders = holders_now(node.url, token, contract)
        res = mixed_round(node, token, contract, holders, r, secs)
        res["holders_before"] = holders
        out.append(res)
        print_round(res, secs)
    return out


def errors(kind: dict[str, Any]) -> int:
    return int(kind["socket_errors"] + kind["status_errors"] + kind["failed_transfers"])


def print_round(r: dict[str, Any], secs: int) -> None:
    if r["round"] == 1:
        print(f"\n(b) mixed load, 64 connections, rounds of {secs} s (req/s; p99 ms; !: errors)")
        print(
            "  "
            + "  ".join(f"{k:>18}" for k, _ in MIX)
            + f"  {'all':>7}  CPU/req  RSS end/peak  holders"
        )
    cells = "  ".join(
        f"{v['rate']:>8.1f} {v['p99_ms']:>7.0f}{'!' if errors(v) else ' '}"
        for v in r["kinds"].values()
    )
    print(
        f"  {cells}  {r['rate']:>7.1f}  {r['cpu_ms_per_request']:>4.2f} ms"
        f"  {r['rss_end_mb']:>5.0f}/{r['rss_peak_mb']:<5.0f} MB"
        f"  {r['holders_before']:,} -> {r['holders_after']:,}",
        flush=True,
    )


# ================================================================ main


def timed(label: str, fn: Callable[[], Any]) -> Any:
    print(f"{label} ...", end=" ", flush=True)
    t0 = time.perf_counter()
    out = fn()
    print(f"{time.perf_counter() - t0:.1f} s", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--holders", type=int, default=88_000)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--round-s", type=int, default=60)
    ap.add_argument("--only", choices=("page", "mixed"))
    opts = ap.parse_args()
    tool, version = choose_tool("wrk", "")
    if tool != "wrk":
        raise SystemExit("this benchmark needs wrk")
    print(f"load before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    results: dict[str, Any] = {
        "when": utc_now(),
        "machine": machine(wrk=version, load_before=os.getloadavg()[0]),
        "holders": opts.holders,
    }
    with (
        tempfile.TemporaryDirectory(prefix="state-load-") as tmp,
        running_node(Path(tmp) / "data") as node,
    ):
        token = node.token()
        api = Http(node.url, token)
        contract = deploy_token(api)
        results["set_up_s"] = timed(
            f"{opts.holders:,} holders", lambda: add_holders(api, contract, opts.holders)
        )
        api.close()
        holders = holders_now(node.url, token, contract)
        if opts.only != "mixed":
            results["page"] = bench_page(node, token, contract, holders, opts.reps)
            print_page(results["page"])
        if opts.only != "page":
            results["mixed"] = bench_mixed(node, token, contract, opts.rounds, opts.round_s)
    results["machine"]["load_after"] = os.getloadavg()[0]
    print(f"load after: {os.getloadavg()[0]:.2f}")
    print(f"results: {write_results('state_load', rounded(results))}")


if __name__ == "__main__":
    main()
