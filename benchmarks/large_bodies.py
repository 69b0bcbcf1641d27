"""How long large requests hold up the node's event loop: ``GET /health`` while they are served.

Scenarios, each a few requests in a row from one client while another client polls /health:
  calls)   a 4 MB body of 5,000 contract calls whose arguments hold small arrays (refused after
           decoding: no contract at the address, so nothing executes)
  transfers) 5,000 value transfers with resolve=false (0.5 MB; they execute meanwhile)
  results) POST /bloc/v2.2/transactions/results with 10,000 unknown hashes
For each: the slowest /health answer during each request (median and max over the requests) and
the requests' own times. ``--tree DIR`` runs the node of another checkout (the code before a
change) for a comparison on the same machine. Results print and go to
benchmarks/results/large_bodies.json (not with --tree).

    python benchmarks/large_bodies.py [--tree DIR] [--posts N]
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module benchlib

import benchlib
from benchlib import machine, rounded, running_node, utc_now, write_results


def calls_body() -> bytes:
    txs = [
        {
            "type": "FUNCTION",
            "payload": {
                "contractAddress": "00" * 20,
                "method": "set",
                "args": {"pairs": [[j] for j in range(110)], "i": i},
            },
        }
        for i in range(5000)
    ]
    return json.dumps({"txs": txs}).encode()


def transfers_body(to: str) -> bytes:
    txs = [{"type": "TRANSFER", "payload": {"toAddress": to, "value": 1}} for _ in range(5000)]
    return json.dumps({"txs": txs}).encode()


def stalls(url: str, send: Callable[[], httpx.Response], posts: int) -> dict[str, Any]:
    """The slowest /health answer during each of ``posts`` requests made by ``send``."""
    probes: list[tuple[float, float]] = []
    stop = threading.Event()

    def probe() -> None:
        with httpx.Client(base_url=url, timeout=60) as c:
            while not stop.is_set():
                t0 = time.monotonic()
                c.get("/health")
                probes.append((t0, time.monotonic()))
                time.sleep(0.002)

    prober = threading.Thread(target=probe)
    prober.start()
    spans = []
    try:
        time.sleep(0.3)
        for _ in range(posts):
            t0 = time.monotonic()
            send()
            spans.append((t0, time.monotonic()))
            time.sleep(0.1)
    finally:
        stop.set()
        prober.join()
    worst = [max([e - s for s, e in probes if s < b and e > a] or [0.0]) for a, b in spans]
    return {
        "health_worst_median_ms": rounded(statistics.median(worst) * 1000),
        "health_worst_max_ms": rounded(max(worst) * 1000),
        "request_median_s": rounded(statistics.median(b - a for a, b in spans)),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tree", type=Path, help="run the node of this checkout instead")
    ap.add_argument("--posts", type=int, default=5)
    args = ap.parse_args()
    if args.tree:
        benchlib.ROOT = args.tree.resolve()
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, running_node(Path(tmp) / "data") as node:
        headers = {"Authorization": f"Bearer {node.token('alice')}"}
        bob = {"Authorization": f"Bearer {node.token('bob')}"}
        with httpx.Client(base_url=node.url, timeout=120) as c:
            c.get("/svc/v2.3/key", headers=headers)
            to = c.get("/svc/v2.3/key", headers=bob).json()["address"]
            json_headers = {**headers, "content-type": "application/json"}
            calls, transfers = calls_body(), transfers_body(to)
            hashes = [secrets.token_hex(32) for _ in range(10_000)]
            post = "/bloc/v2.2/transaction"
            scenarios: dict[str, Callable[[], httpx.Response]] = {
                "calls": lambda: c.post(post, content=calls, headers=json_headers),
                "transfers": lambda: c.post(
                    post, params={"resolve": "false"}, content=transfers, headers=json_headers
                ),
                "results": lambda: c.post(
                    "/bloc/v2.2/transactions/results", json=hashes, headers=headers
                ),
            }
            for name, send in scenarios.items():
                out[name] = stalls(node.url, send, args.posts)
                print(f"{name:10s} {out[name]}", flush=True)
    if not args.tree:
        write_results(
            "large_bodies",
            {"when": utc_now(), "machine": machine(), "posts": args.posts, "scenarios": out},
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
