"""The Explorer's Events feed on a sandbox with many events: the merged newest-first feed of
several ``<Contract>.<Event>`` tables, read the way the Events view reads it.

A fresh node gets ``--tables`` contracts, each emitting ``--events`` events (in calls of 1,000
emits each). Then, with the app's client and its :class:`EventFeed` (each table paged by
``id``, the pages merged by block): the time to the first 100 merged rows (what the view asks
for on showing), to each of the next 9 pages of 100 (scrolling), and to a page after 5,000 rows;
and the requests it took. No Qt: the figures are the node's and the merge's.

    python benchmarks/explorer_events_bench.py [--tables N] [--events N]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the app

from benchlib import machine, rounded, running_node, utc_now, write_results

from app.client.http import StratoClient
from app.client.models import TxRequest
from app.services.explorer_contracts import EventFeed

SRC = """
contract Emitter%d {
    event Tick(uint n, string tag);
    function burst(uint from, uint count) public {
        for (uint i = from; i < from + count; i++) { emit Tick(i, "t"); }
    }
}
"""
PER_CALL = 1000


async def seed(client: StratoClient, tables: int, events: int) -> None:
    addresses = []
    for t in range(tables):
        res = await client.run(TxRequest.upload(f"Emitter{t}", SRC % t))
        contents = res.contents if isinstance(res.contents, dict) else {}
        addresses.append(str(contents["address"]))
    for start in range(0, events, PER_CALL):
        n = min(PER_CALL, events - start)
        for a in addresses:
            await client.run(TxRequest.call(a, "burst", {"from": start, "count": n}))


async def measure(client: StratoClient, tables: int) -> dict[str, Any]:
    async def read(table: str, before: int | None, limit: int) -> list[dict[str, Any]]:
        params = [("order", "id.desc"), ("limit", str(limit))]
        if before is not None:
            params.append(("id", f"lt.{before}"))
        rows, _ = await client.cirrus(table, params)
        return rows

    names = [f"Emitter{t}.Tick" for t in range(tables)]
    feed = EventFeed(names, read)
    t0 = time.perf_counter()
    first = await feed.next(100)
    first_ms = (time.perf_counter() - t0) * 1000
    first_requests, first_rows = feed.pages_read, feed.rows_read
    scroll = []
    for _ in range(9):
        t = time.perf_counter()
        await feed.next(100)
        scroll.append((time.perf_counter() - t) * 1000)
    pages_after_1000 = feed.pages_read
    rows_after_1000 = feed.rows_read
    await feed.next(4000)  # on to row 5,000
    t = time.perf_counter()
    deep = await feed.next(100)
    deep_ms = (time.perf_counter() - t) * 1000
    blocks = [r.block_number or 0 for r in first]
    assert blocks == sorted(blocks, reverse=True), "the feed is not newest first"
    return {
        "first_100_ms": first_ms,
        "requests_for_first_100": first_requests,
        "rows_read_for_first_100": first_rows,
        "next_page_ms_median": statistics.median(scroll),
        "next_page_ms_max": max(scroll),
        "page_after_5000_ms": deep_ms,
        "requests_for_1000_rows": pages_after_1000,
        "rows_read_for_1000_rows": rows_after_1000,
        "deep_rows": len(deep),
    }


async def main_async(args: argparse.Namespace, url: str, token: str) -> dict[str, Any]:
    async def tok() -> str:
        return token

    async with StratoClient(url, tok, timeout=120) as client:
        t = time.perf_counter()
        await seed(client, args.tables, args.events)
        seed_s = time.perf_counter() - t
        out = await measure(client, args.tables)
        out["seed_s"] = seed_s
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=3)
    ap.add_argument("--events", type=int, default=10_000, help="events per table")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="explorer-events-"))
    try:
        with running_node(base / "data") as node:
            figures = asyncio.run(main_async(args, node.url, node.token("alice")))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"Events feed: {args.tables} tables x {args.events:,} events")
    for k, v in figures.items():
        print(f"  {k:28} {rounded(v)}")
    write_results(
        "explorer_events",
        {
            "when": utc_now(),
            "machine": machine(),
            "tables": args.tables,
            "events_per_table": args.events,
            "figures": {k: rounded(v) for k, v in figures.items()},
        },
    )


if __name__ == "__main__":
    main()
