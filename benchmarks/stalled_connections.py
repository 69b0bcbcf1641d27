"""Stalled clients against the node (issue 26, item 8): does ``/health`` keep answering, and when
does the node let go of them?

The node starts under a 1,024-file soft limit (the usual default). The benchmark then opens
``--sockets`` connections (default 1,200), a third sending nothing, a third half of their
headers, a third a body shorter than its ``Content-Length``; meanwhile and afterwards it measures
``GET /health`` and a value transfer with ``resolve=true``, and how long until the node has
closed every stalled socket. Results print and go to benchmarks/results/stalled_connections.json.

    python benchmarks/stalled_connections.py [--sockets N]
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import selectors
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module benchlib

from benchlib import Node, machine, rounded, utc_now, write_results


@contextlib.contextmanager
def soft_file_limit(soft: int) -> Iterator[None]:
    """Children started inside inherit ``soft`` as their open-file limit."""
    old = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, old[1]), old[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, old)


def open_stalled(url: str, token: str, n: int) -> list[socket.socket]:
    u = httpx.URL(url)
    assert u.host is not None and u.port is not None
    kinds = (
        b"",
        b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ",
        b"POST /bloc/v2.2/transaction HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer " + token.encode() + b"\r\nContent-Length: 1000\r\n\r\n{",
    )
    socks = []
    for i in range(n):
        s = socket.create_connection((u.host, u.port), timeout=10)
        if kinds[i % 3]:
            s.sendall(kinds[i % 3])
        socks.append(s)
    return socks


def probe(client: httpx.Client, to: str, rounds: int = 5) -> dict[str, Any]:
    """/health and a resolved transfer, ``rounds`` times: seconds, or the error's name."""
    health: list[float] = []
    writes: list[float] = []
    errors: list[str] = []

    def health_check() -> httpx.Response:
        return client.get("/health")

    def transfer() -> httpx.Response:
        tx = {"type": "TRANSFER", "payload": {"toAddress": to, "value": 1}}
        return client.post("/bloc/v2.2/transaction", params={"resolve": "true"}, json={"txs": [tx]})

    requests: list[tuple[list[float], Callable[[], httpx.Response]]] = [
        (health, health_check),
        (writes, transfer),
    ]
    for _ in range(rounds):
        for bucket, send in requests:
            t0 = time.perf_counter()
            try:
                r = send()
                r.raise_for_status()
                bucket.append(time.perf_counter() - t0)
            except httpx.HTTPError as exc:
                errors.append(type(exc).__name__)
    return {
        "health_p50_s": statistics.median(health) if health else None,
        "health_max_s": max(health, default=None),
        "write_p50_s": statistics.median(writes) if writes else None,
        "answered": len(health) + len(writes),
        "errors": errors,
    }


def wait_closed(socks: list[socket.socket], within: float) -> tuple[int, float]:
    """How many the node closed within ``within`` seconds, and when the last one went."""
    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, s)
    closed, last, t0 = 0, 0.0, time.monotonic()
    while closed < len(socks) and time.monotonic() - t0 < within:
        for key, _ in sel.select(timeout=0.5):
            s = key.data
            try:
                data = s.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                sel.unregister(s)
                closed += 1
                last = time.monotonic() - t0
    sel.close()
    return closed, last


def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sockets", type=int, default=1200)
    ap.add_argument("--wait", type=float, default=70.0, help="seconds to wait for the closes")
    opts = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this client needs the sockets
    with tempfile.TemporaryDirectory() as tmp:
        with soft_file_limit(1024):  # the node's limit; ours is back once it has started
            node = Node.start(Path(tmp) / "data")
        try:
            token = node.token("alice")
            bob = httpx.get(
                f"{node.url}/svc/v2.3/key",
                params={"username": "bob"},
                headers={"Authorization": f"Bearer {token}"},
                timeout=30,
            ).json()["address"]
            with httpx.Client(
                base_url=node.url,
                headers={"Authorization": f"Bearer {token}"},
                timeout=20,
                limits=httpx.Limits(max_keepalive_connections=0),  # a new connection each time
            ) as client:
                before = probe(client, bob)
                t0 = time.monotonic()
                socks = open_stalled(node.url, token, opts.sockets)
                opened_s = time.monotonic() - t0
                try:
                    during = probe(client, bob)
                    closed, last = wait_closed(socks, opts.wait)
                finally:
                    for s in socks:
                        s.close()
                after = probe(client, bob)
        finally:
            node.stop()
    result = {
        "when": utc_now(),
        "machine": machine(),
        "node_soft_file_limit_at_start": 1024,
        "stalled_sockets": opts.sockets,
        "opening_them_s": opened_s,
        "before": before,
        "while_stalled": during,
        "closed_by_the_node": closed,
        "last_closed_after_s": last,
        "after": after,
    }
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    path = write_results("stalled_connections", rounded(result))
    print(f"{opts.sockets} stalled sockets opened in {opened_s:.1f} s")
    for name in ("before", "while_stalled", "after"):
        r = result[name]
        print(
            f"{name:>14}: /health p50 {ms(r['health_p50_s'])} max {ms(r['health_max_s'])}, "
            f"write p50 {ms(r['write_p50_s'])}, {r['answered']} answered, errors {r['errors']}"
        )
    print(f"closed by the node: {closed}/{opts.sockets}, the last after {last:.1f} s")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
