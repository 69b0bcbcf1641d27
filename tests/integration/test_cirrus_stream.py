"""Unbounded Cirrus queries over a large table on a real node: 32 at once leave the node's memory
flat and ``/health`` responsive, and a streamed answer is byte for byte the JSON of the same rows
read page by page (pages small enough to be answered whole), errors included before streaming.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest

from tests.integration.node_fixture import RunningNode, call_tx, submit, upload_tx, wait_for

ROWS = 50_000
PER_TX = 2_000  # Items made by one transaction
CONCURRENT = 32
PAGE = 400  # pages of at most 1,000 rows are answered in one piece (with a Content-Length)
# Generous bounds (the figures are in benchmarks/node_bench.py): before streaming, 32 unbounded
# queries of this table took the node's RSS up by hundreds of MB and held /health for seconds.
RSS_GROWTH_MB = 100
HEALTH_MAX_S = 0.5

SEARCH = "/cirrus/search/Item"
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


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    """A client of a node whose Item table holds ROWS rows (made by a factory contract, PER_TX
    per transaction: the seeding takes a few seconds)."""
    client = node.new_client("alice")
    (res,) = submit(client, upload_tx("Maker", SRC, {"_name": "gold"}))
    assert res["status"] == "Success", res
    maker = res["data"]["contents"]["address"]
    label = "label-" + "x" * 54
    txs = [
        call_tx(maker, "make", {"start": s, "count": PER_TX, "_label": label}, name="Maker")
        for s in range(0, ROWS, PER_TX)
    ]
    results = submit(client, *txs)
    assert all(r["status"] == "Success" for r in results), str(results)[:2000]
    assert client.get(SEARCH, params={"select": "count"}).json() == [{"count": ROWS}]
    return client


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def paged(client: httpx.Client, params: dict[str, str], rows: int, offset: int = 0) -> bytes:
    """The JSON array of ``rows`` rows from ``offset`` read in pages of PAGE rows, each answered
    whole (with a Content-Length), joined as one array."""
    parts: list[bytes] = []
    for start in range(offset, offset + rows, PAGE):
        n = min(PAGE, offset + rows - start)
        r = client.get(SEARCH, params={**params, "limit": str(n), "offset": str(start)})
        assert r.status_code == 200, r.text[:500]
        assert r.headers["content-length"] == str(len(r.content))
        assert r.content.startswith(b"[{") and r.content.endswith(b"}]")
        parts.append(r.content[1:-1])
    return b"[" + b",".join(parts) + b"]"


@dataclass
class Storm:
    """What 32 concurrent unbounded queries did to the node."""

    rss_before_kb: int
    rss_peak_kb: int = 0
    health_s: list[float] = field(default_factory=list)
    bodies: list[tuple[int, int, str]] = field(default_factory=list)  # status, size, sha256
    reference: tuple[int, int, str] = (0, 0, "")


def fetch_digest(client: httpx.Client) -> tuple[int, int, str]:
    digest = hashlib.sha256()
    size = 0
    with client.stream("GET", SEARCH) as r:
        for chunk in r.iter_bytes():
            digest.update(chunk)
            size += len(chunk)
        return r.status_code, size, digest.hexdigest()


@pytest.fixture(scope="module")
def storm(node: RunningNode, alice: httpx.Client) -> Iterator[Storm]:
    reference = fetch_digest(alice)  # also warms the node up: the baseline includes one query
    time.sleep(0.5)
    out = Storm(rss_kb(node.pid))
    out.reference = reference
    out.rss_peak_kb = out.rss_before_kb
    done = threading.Event()
    token = node.token("alice")
    clients = [node.new_client(token=token, timeout=120.0) for _ in range(CONCURRENT)]
    health = node.new_client()

    def sample_rss() -> None:
        while not done.is_set():
            out.rss_peak_kb = max(out.rss_peak_kb, rss_kb(node.pid))
            time.sleep(0.01)

    def probe_health() -> None:
        while not done.is_set():
            t0 = time.perf_counter()
            r = health.get("/health", timeout=60.0)
            out.health_s.append(time.perf_counter() - t0)
            assert r.status_code == 200
            time.sleep(0.02)

    def query(client: httpx.Client) -> None:
        out.bodies.append(fetch_digest(client))

    watchers = [threading.Thread(target=sample_rss), threading.Thread(target=probe_health)]
    for w in watchers:
        w.start()
    time.sleep(0.1)
    queries = [threading.Thread(target=query, args=(c,)) for c in clients]
    for q in queries:
        q.start()
    for q in queries:
        q.join(timeout=300)
    done.set()
    for w in watchers:
        w.join(timeout=60)
    for c in clients:
        c.close()
    health.close()
    yield out


def test_concurrent_unbounded_queries_answer_in_full(storm: Storm) -> None:
    status, size, _ = storm.reference
    assert status == 200 and size > ROWS * 400
    assert storm.bodies == [storm.reference] * CONCURRENT


def test_concurrent_unbounded_queries_keep_memory_flat(storm: Storm) -> None:
    growth_mb = (storm.rss_peak_kb - storm.rss_before_kb) / 1024
    assert growth_mb < RSS_GROWTH_MB, (
        f"RSS {storm.rss_before_kb // 1024} -> {storm.rss_peak_kb // 1024} MB under "
        f"{CONCURRENT} unbounded queries"
    )


def test_health_stays_responsive_during_unbounded_queries(storm: Storm) -> None:
    assert len(storm.health_s) >= 3
    worst = max(storm.health_s)
    assert worst < HEALTH_MAX_S, f"/health took {worst:.2f} s during the queries"


def test_streamed_body_is_the_paged_rows(alice: httpx.Client) -> None:
    r = alice.get(SEARCH)
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    assert r.headers["content-range"] == f"0-{ROWS - 1}/*"
    assert r.content == paged(alice, {}, ROWS)
    rows = r.json()
    assert len(rows) == ROWS and [row["n"] for row in rows[:3]] == [0, 1, 2]


def test_streamed_body_with_order_filter_join_and_offset(alice: httpx.Client) -> None:
    params = {"select": "n,label,Tag(name)", "order": "n.desc", "n": "gte.1000"}
    r = alice.get(SEARCH, params={**params, "offset": "7"}, headers={"Prefer": "count=exact"})
    n = ROWS - 1000 - 7
    assert r.status_code == 206
    assert r.headers["content-range"] == f"7-{ROWS - 1000 - 1}/{ROWS - 1000}"
    assert r.content == paged(alice, params, n, offset=7)
    rows = r.json()
    assert rows[0] == {"n": ROWS - 1 - 7, "label": "label-" + "x" * 54, "Tag": {"name": "gold"}}
    assert rows[-1]["n"] == 1000


def test_streamed_deep_offset_read_from_the_far_end(alice: httpx.Client) -> None:
    # an offset past the middle of an unfiltered table: the node reads it in reverse order
    offset = ROWS * 3 // 5
    r = alice.get(SEARCH, params={"offset": str(offset), "select": "n,label"})
    assert r.status_code == 200
    assert r.headers["content-range"] == f"{offset}-{ROWS - 1}/*"
    assert r.content == paged(alice, {"select": "n,label"}, ROWS - offset, offset=offset)
    assert r.json()[0]["n"] == offset


def test_streamed_range_header(alice: httpx.Client) -> None:
    r = alice.get(
        SEARCH, params={"select": "n"}, headers={"Range": "100-", "Prefer": "count=exact"}
    )
    assert r.status_code == 206
    assert r.headers["content-range"] == f"100-{ROWS - 1}/{ROWS}"
    assert r.json() == [{"n": i} for i in range(100, ROWS)]


@pytest.mark.parametrize(
    ("params", "status", "code"),
    [
        ({"order": "nope.asc"}, 400, "42703"),
        ({"select": "n,Nope(*)"}, 400, "PGRST200"),
        ({"select": "n,Tag(nope)"}, 400, "42703"),
        ({"n": "gt.abc"}, 400, "22P02"),
    ],
)
def test_errors_are_answered_whole_before_any_row(
    alice: httpx.Client, params: dict[str, str], status: int, code: str
) -> None:
    r = alice.get(SEARCH, params=params)
    assert r.status_code == status, r.text[:300]
    assert r.headers["content-length"] == str(len(r.content))
    assert r.json()["code"] == code


def test_count_of_a_large_table_is_one_row(alice: httpx.Client) -> None:
    r = alice.get(SEARCH, params={"select": "count", "n": "lt.30000"})
    assert r.status_code == 200
    assert r.json() == [{"count": 30_000}]
    assert "content-range" not in r.headers


def test_clients_leaving_mid_stream_free_their_reads(
    node: RunningNode, alice: httpx.Client
) -> None:
    def open_files() -> int:
        return len(os.listdir(f"/proc/{node.pid}/fd"))

    before = open_files()
    for _ in range(40):
        with alice.stream("GET", SEARCH) as r:
            assert r.status_code == 200
            next(r.iter_raw())
    # each stream held a connection (2 files: the database and its WAL); they are given back,
    # and the pool keeps a few of them open
    wait_for(lambda: open_files() <= before + 20 or None, 10.0, "the streams' connections closed")
    # the node serves on, writes still commit, and a new query sees them
    (res,) = submit(alice, upload_tx("Tag", SRC, {"_name": "after"}))
    assert res["status"] == "Success", res
    assert alice.get(
        "/cirrus/search/Tag", params={"name": "eq.after", "select": "name"}
    ).json() == [{"name": "after"}]
    assert alice.get(SEARCH, params={"select": "count"}).json() == [{"count": ROWS}]
    assert len(alice.get(SEARCH).content) > ROWS * 400
