"""32 concurrent unbounded Cirrus queries against one node: its memory, and /health meanwhile.

A fresh node gets an ``Item`` table of ``--rows`` rows (default 100,000, one query's cap when
this was written; it is 1,000,000 now), made by a factory contract through the node's API (2,000
per transaction). After one
unbounded ``GET /cirrus/search/Item`` (a warm-up: the baseline includes one such query), 32
clients, one thread each, send the same unbounded query at once and read the answers to the end
(hashing them, keeping nothing); every answer must be the warm-up's bytes. Meanwhile the node's
RSS (/proc/<pid>/status VmRSS) is sampled every 10 ms and ``GET /health`` is sent every 20 ms.
Reported: RSS before, at the peak and 2 s after; wall time of the 32 queries; /health latency
p50/p99/max during them. Run by node_bench.py as scenario (d), or alone:

    python benchmarks/cirrus_unbounded.py [--rows N] [--concurrent N]

Results of a run alone are written to benchmarks/results/cirrus_unbounded.json.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module benchlib

from benchlib import ROOT, machine, rounded, running_node, utc_now, write_results

SEARCH = "/cirrus/search/Item"
PER_TX = 2_000
SRC = """
contract Tag {
    string public name;
    constructor(string _name) public { name = _name; }
}
contract Item {
    uint public n;
    string public label;
    Tag public tag;
    constructor(uint _n, string _label, Tag _tag) public { n = _n; label = _label; tag = _tag; }
}
contract Maker {
    Tag public tag;
    constructor(string _name) public { tag = new Tag(_name); }
    function make(uint start, uint count, string _label) public {
        for (uint i = start; i < start + count; i++) { new Item(i, _label, tag); }
    }
}
"""


@dataclass
class Unbounded:
    rows: int
    concurrent: int
    body_bytes: int
    rss_before_mb: float
    rss_peak_mb: float
    rss_after_mb: float
    seconds: float  # all the queries, from the first sent to the last answer read
    health_p50_ms: float
    health_p99_ms: float
    health_max_ms: float
    health_probes: int
    verified: bool  # every answer was 200 with the warm-up's bytes


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Conn:
    def __init__(self, url: str, token: str | None = None) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(
            parts.hostname or "127.0.0.1", parts.port, timeout=600
        )
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def json(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body)
        self.conn.request(method, path, data, self.headers)
        r = self.conn.getresponse()
        raw = r.read()
        if r.status != 200:
            raise RuntimeError(f"{method} {path}: HTTP {r.status}: {raw[:500]!r}")
        return json.loads(raw)

    def digest(self, path: str) -> tuple[int, int, str]:
        """(status, size, sha256) of the answer, read in 1 MB pieces."""
        self.conn.request("GET", path, None, self.headers)
        r = self.conn.getresponse()
        h = hashlib.sha256()
        size = 0
        while piece := r.read(1 << 20):
            h.update(piece)
            size += len(piece)
        return r.status, size, h.hexdigest()


def seed(api: Conn, rows: int) -> None:
    tx_params = {"gasLimit": 100_000_000, "gasPrice": 1}
    up = {"contract": "Maker", "src": SRC, "args": {"_name": "gold"}, "metadata": {"VM": "SolidVM"}}
    (res,) = api.json(
        "POST",
        "/svc/v2.3/transaction?resolve=true",
        {"txs": [{"type": "CONTRACT", "payload": up}], "txParams": tx_params},
    )
    maker = res["data"]["contents"]["address"]
    txs = [
        {
            "type": "FUNCTION",
            "payload": {
                "contractName": "Maker",
                "contractAddress": maker,
                "method": "make",
                "args": {"start": s, "count": min(PER_TX, rows - s), "_label": "label-" + "x" * 54},
            },
        }
        for s in range(0, rows, PER_TX)
    ]
    # resolve=false, then polling: on a loaded machine the rows take longer than the node's
    # 60 s limit for a resolve=true request
    hashes = [
        r["hash"]
        for r in api.json("POST", "/svc/v2.3/transaction", {"txs": txs, "txParams": tx_params})
    ]
    deadline = time.monotonic() + 600
    while True:
        results = api.json("POST", "/bloc/v2.2/transactions/results", hashes)
        if all(r["status"] != "Pending" for r in results) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    failed = [r for r in results if r["status"] != "Success"]
    if failed:
        why = str(failed[0].get("txResult", {}).get("message", failed[0]))[:300]
        raise RuntimeError(f"seeding failed: {len(failed)} of {len(results)} transactions: {why}")
    if api.json("GET", f"{SEARCH}?select=count") != [{"count": rows}]:
        raise RuntimeError("the table does not hold the rows made")


def bench_unbounded(tmp: Path, rows: int = 100_000, concurrent: int = 32) -> Unbounded:
    # seeding is set-up, not measured: on a loaded machine a 2,000-row transaction can pass the
    # default 2 s wall-clock budget of a transaction
    with running_node(tmp / "unbounded", flags=("--tx-time-limit", "60")) as node:
        pid = node.proc.pid
        token = node.token("alice")
        api = Conn(node.url, token)
        seed(api, rows)
        reference = api.digest(SEARCH)
        time.sleep(1.0)
        before = rss_mb(pid)
        peak = before
        health: list[float] = []
        answers: list[tuple[int, int, str]] = []
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, rss_mb(pid))
                time.sleep(0.01)

        def probe() -> None:
            conn = Conn(node.url)
            while not done.is_set():
                t0 = time.perf_counter()
                conn.json("GET", "/health")
                health.append(time.perf_counter() - t0)
                time.sleep(0.02)

        def query() -> None:
            answers.append(Conn(node.url, token).digest(SEARCH))

        watchers = [threading.Thread(target=sample), threading.Thread(target=probe)]
        for w in watchers:
            w.start()
        time.sleep(0.2)
        clients = [threading.Thread(target=query) for _ in range(concurrent)]
        t0 = time.perf_counter()
        for c in clients:
            c.start()
        for c in clients:
            c.join()
        seconds = time.perf_counter() - t0
        done.set()
        for w in watchers:
            w.join()
        time.sleep(2.0)
        after = rss_mb(pid)
    health.sort()
    return Unbounded(
        rows=rows,
        concurrent=concurrent,
        body_bytes=reference[1],
        rss_before_mb=before,
        rss_peak_mb=peak,
        rss_after_mb=after,
        seconds=seconds,
        health_p50_ms=statistics.median(health) * 1000,
        health_p99_ms=health[min(len(health) - 1, int(len(health) * 0.99))] * 1000,
        health_max_ms=health[-1] * 1000,
        health_probes=len(health),
        verified=reference[0] == 200 and answers == [reference] * concurrent,
    )


def describe(u: Unbounded) -> tuple[str, str, str]:
    """A row of node_bench.py's table."""
    return (
        f"(e) {u.concurrent} unbounded Cirrus queries, {u.rows:,} rows",
        f"{u.seconds:.1f} s",
        f"RSS {u.rss_before_mb:.0f} -> peak {u.rss_peak_mb:.0f} -> {u.rss_after_mb:.0f} MB; "
        f"/health p50 {u.health_p50_ms:.0f} ms, p99 {u.health_p99_ms:.0f} ms, "
        f"max {u.health_max_ms:.0f} ms; " + ("answers verified" if u.verified else "NOT VERIFIED"),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--concurrent", type=int, default=32)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cirrus-unbounded-") as tmp:
        u = bench_unbounded(Path(tmp), opts.rows, opts.concurrent)
    name, value, note = describe(u)
    print(f"{name}: {value}; {note}")
    out = {"date": utc_now(), "machine": machine(), "unbounded": asdict(u)}
    path = write_results("cirrus_unbounded", rounded(out))
    print(f"written to {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
