"""What the slow sequential transfers overlap inside the node (issue 27: the p99).

write_profile.py says where an average transfer's time goes; this says what the slowest 1 %
had in common. It starts a node whose interpreter first loads hooks (node_hooks.py): they
time, as they happen, the node's own work that a request may have to wait for:

  BlockSealer.seal        a block executed and committed (each request's own, and others')
  Behind16.step / drain   the rows written behind the chain (cirrus/behind16.py): a step of
                          about a millisecond while the producer is idle, or all at once
  Snapshots.snapshot      the state snapshot every 500 blocks
  Checkpointer.step       a WAL checkpoint (its own thread, mostly outside the interpreter lock)
  gcN:thread              a pass of the cyclic collector over generation N, by thread

Then it sends sequential ``resolve=true`` Token transfers over one keep-alive connection with
TCP_NODELAY (as node_bench.py's Python client) and prints the latency percentiles, every kind
of span (how many per 1,000 transfers, its median and p99, the share of the run it took) and,
for the requests slower than ``--slow`` milliseconds, which kinds of span overlapped them
other than their own block's seal. The hooks cost each timed call two clock reads and a
buffered line: the figures are the node's with them.

    python benchmarks/write_tail.py [--transfers 8000] [--slow 2.5] [--flags "--traces off"]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import sys
import tempfile
import time
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules

from benchlib import machine, running_node, utc_now, write_results
from benchstats import percentile_ms
from node_hooks import hooked, hooks_source
from node_http import TX_PATH, Http, deploy_token, recipient, transfer_tx
from node_write import warm_up

SPANS_ENV = "STRATOSCOPE_BENCH_SPANS"  # the hooks' output file (one per node process)
TAIL_PREFIX = "e0e0e0e0"  # this script's recipients

# the node's methods the hooks time: module -> [(class, method)]
TIMED: dict[str, list[tuple[str, str]]] = {
    "app.node.ledger.blocks": [("BlockSealer", "seal")],
    "app.node.cirrus.behind16": [("Behind16", "step"), ("Behind16", "drain")],
    "app.node.ledger.snapshots": [("Snapshots", "snapshot")],
    "app.node.store": [("Checkpointer", "step")],
}

_TIMING = '''
"""Timing hooks of benchmarks/write_tail.py (loaded by the node's interpreter at start)."""
import functools, gc, os, threading, time

_out = open(os.environ[{env!r}] + "." + str(os.getpid()), "w", buffering=1 << 16)
_lock = threading.Lock()
TIMED = {timed!r}


def _span(name, t0, t1):
    with _lock:
        _out.write("%.6f %.3f %s\\n" % (t0, (t1 - t0) * 1000, name))


def _wrap(cls, meth):
    orig = getattr(cls, meth)
    name = cls.__name__ + "." + meth

    @functools.wraps(orig)
    def timed(*args, **kwargs):
        t0 = time.time()
        try:
            return orig(*args, **kwargs)
        finally:
            _span(name, t0, time.time())

    setattr(cls, meth, timed)


def _after_load(name, module):
    for cls, meth in TIMED[name]:
        _wrap(getattr(module, cls), meth)


_gc_started = {{}}


def _on_gc(phase, info):
    me = threading.get_ident()
    if phase == "start":
        _gc_started[me] = time.time()
    elif me in _gc_started:
        name = "gc%d:%s" % (info["generation"], threading.current_thread().name)
        _span(name, _gc_started.pop(me), time.time())


def _flush():
    while True:
        time.sleep(0.5)
        with _lock:
            _out.flush()


gc.callbacks.append(_on_gc)
threading.Thread(target=_flush, name="bench-spans", daemon=True).start()
'''


def timing_hooks(timed: dict[str, list[tuple[str, str]]]) -> str:
    """The node's ``sitecustomize.py``: spans of the ``timed`` methods (module -> [(class,
    method)]) and of the collector's passes, written to ``$STRATOSCOPE_BENCH_SPANS.<pid>``."""
    return hooks_source(_TIMING.format(env=SPANS_ENV, timed=timed), timed)


@dataclass(frozen=True)
class Span:
    """A timed piece of the node's work: wall-clock start (s), duration (ms), kind."""

    start: float
    ms: float
    kind: str

    @property
    def end(self) -> float:
        return self.start + self.ms / 1000


def parse_spans(lines: Iterable[str]) -> list[Span]:
    """The hooks' lines (``start ms kind``), sorted by start; malformed lines skipped."""
    out = []
    for line in lines:
        parts = line.split(None, 2)
        if len(parts) != 3:
            continue
        try:
            out.append(Span(float(parts[0]), float(parts[1]), parts[2].strip()))
        except ValueError:
            continue
    return sorted(out, key=lambda s: s.start)


def overlapping(
    requests: list[tuple[float, float]], spans: list[Span], own: str = "BlockSealer.seal"
) -> Counter[str]:
    """For requests given as (wall-clock start s, latency ms): how many overlapped each kind
    of span; a request's own block (the last ``own`` span that ends inside it) does not count,
    other blocks' seals do. A request that overlapped none counts as ``(none)``."""
    out: Counter[str] = Counter()
    longest = max((s.ms for s in spans), default=0.0) / 1000
    starts = [s.start for s in spans]
    for begin, ms in requests:
        end = begin + ms / 1000
        hits = []
        i = bisect_left(starts, begin - longest)
        while i < len(spans) and spans[i].start < end:
            s = spans[i]
            if s.end > begin:
                hits.append(s)
            i += 1
        seals = [s for s in hits if s.kind == own and s.end <= end]
        mine = seals[-1] if seals else None
        kinds = {s.kind for s in hits if s is not mine}
        out.update(kinds or {"(none)"})
    return out


def span_table(spans: list[Span], seconds: float, transfers: int) -> list[dict[str, Any]]:
    """Per kind: count per 1,000 transfers, median and p99 duration (ms), share of the run."""
    by: dict[str, list[float]] = defaultdict(list)
    for s in spans:
        by[s.kind].append(s.ms)
    rows = []
    for kind, ms in sorted(by.items(), key=lambda kv: -sum(kv[1])):
        rows.append(
            {
                "kind": kind,
                "per_1000": len(ms) * 1000 / transfers,
                "p50_ms": percentile_ms([m / 1000 for m in ms], 50),
                "p99_ms": percentile_ms([m / 1000 for m in ms], 99),
                "share": sum(ms) / 1000 / seconds if seconds > 0 else 0.0,
            }
        )
    return rows


def send_transfers(url: str, token: str, contract: str, n: int) -> list[tuple[float, float]]:
    """``n`` sequential resolve=true transfers: (wall-clock start s, latency ms) of each."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port)
    conn.connect()
    assert conn.sock is not None
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    out = []
    for i in range(n):
        body = json.dumps({"txs": [transfer_tx(contract, recipient(TAIL_PREFIX, i))]})
        wall, t0 = time.time(), time.perf_counter()
        conn.request("POST", TX_PATH + "?resolve=true", body, headers)
        resp = conn.getresponse()
        data = resp.read()
        out.append((wall, (time.perf_counter() - t0) * 1000))
        if resp.status != 200 or b'"Success"' not in data:
            raise RuntimeError(f"transfer {i}: HTTP {resp.status}: {data[:300]!r}")
    conn.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--transfers", type=int, default=8000)
    ap.add_argument("--slow", type=float, default=2.5, help="a slow request, in ms")
    ap.add_argument("--flags", default="", help="added to the node's serve command")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data, flags = Path(tmp) / "data", tuple(args.flags.split())
        env = {SPANS_ENV: str(Path(tmp) / "spans")}
        with hooked(Path(tmp), timing_hooks(TIMED), env), running_node(data, flags=flags) as node:
            token = node.token()
            api = Http(node.url, token)
            contract = deploy_token(api)
            warm_up(api, contract)
            api.close()
            t0 = time.monotonic()
            requests = send_transfers(node.url, token, contract, args.transfers)
            seconds = time.monotonic() - t0
            time.sleep(0.6)  # the hooks flush every half second
            texts = [f.read_text() for f in Path(tmp).glob("spans.*")]
        spans = parse_spans(line for text in texts for line in text.splitlines())
    # the run's own spans only (not the deploy's and the warm-up's)
    first = requests[0][0]
    spans = [s for s in spans if s.end >= first]
    lat = [ms / 1000 for _, ms in requests]
    slow = [(w, ms) for w, ms in requests if ms > args.slow]
    table = span_table(spans, seconds, len(requests))
    causes = overlapping(slow, spans)
    base = overlapping(requests, spans)  # how often any request overlaps each kind
    summary = {p: percentile_ms(lat, p) for p in (50, 99, 99.9)}
    print(
        f"{len(requests)} transfers, {len(requests) / seconds:.0f}/s: p50 {summary[50]:.2f} ms, "
        f"p99 {summary[99]:.2f} ms, p99.9 {summary[99.9]:.2f} ms; "
        f"{len(slow)} slower than {args.slow:g} ms"
    )
    print(f"\n{'span':34s} {'per 1,000':>10s} {'p50 ms':>8s} {'p99 ms':>8s} {'of the run':>11s}")
    for r in table:
        print(
            f"{r['kind']:34s} {r['per_1000']:10.1f} {r['p50_ms']:8.2f} {r['p99_ms']:8.2f} "
            f"{r['share']:10.1%}"
        )
    # overlap is not blame: a long span overlaps requests by chance, as often as the second
    # column says; a kind the slow requests overlap far more often than all of them matters
    print(f"\nthe {len(slow)} requests slower than {args.slow:g} ms overlapped (and all requests):")
    for kind, n in causes.most_common():
        share, all_share = n / max(len(slow), 1), base[kind] / len(requests)
        print(f"  {n:6d} {share:6.0%}  (all: {all_share:6.1%})  {kind}")
    path = write_results(
        "write_tail",
        {
            "date": utc_now(),
            "machine": machine(load_1min=os.getloadavg()[0]),
            "transfers": len(requests),
            "flags": args.flags,
            "rate": len(requests) / seconds,
            "latency_ms": {str(k): v for k, v in summary.items()},
            "slow_ms": args.slow,
            "slow": len(slow),
            "spans": table,
            "slow_overlapped": dict(causes.most_common()),
            "all_overlapped": dict(base.most_common()),
        },
    )
    print(f"\nwritten to {path}")


if __name__ == "__main__":
    main()
