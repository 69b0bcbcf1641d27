"""The state route on a mapping of 60,000 entries (issue 26, item 6): a page of 50 costs about
what 50 entries cost, not the whole mapping; the whole state is read and encoded off the event
loop, so ``/health`` answers meanwhile; and every read shows one committed block, also while
transactions add entries."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit

SRC = """
contract Big {
    mapping(address => uint) balances;
    uint total;
    function fill(uint start, uint n) public {
        for (uint i = start; i < start + n; i++) {
            if (i % 10 == 3) { balances[address(i + 1)] = 0; }
            else { balances[address(i + 1)] = i + 1; }
        }
        total = start + n;
    }
}
"""
ENTRIES = 60_000
PER_TX = 10_000


def shown(total: int, start: int = 0) -> dict[str, str]:
    """The mapping (from entry ``start``) as the state route shows it after ``fill`` up to
    ``total``: an entry holding 0 reads as absent."""
    return {format(i + 1, "040x"): str(i + 1) for i in range(start, total) if i % 10 != 3}


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory)
    try:
        yield n
    finally:
        n.stop()


@pytest.fixture(scope="module")
def big(node: RunningNode) -> str:
    alice = node.client("alice")
    addr = deploy(alice, "Big", SRC)
    for start in range(0, ENTRIES, PER_TX):
        res = submit(alice, call_tx(addr, "fill", {"start": start, "n": PER_TX}))
        assert res[0]["status"] == "Success", res
    return addr


def timed_get(
    client: httpx.Client, route: str, **params: str | int
) -> tuple[float, httpx.Response]:
    t0 = time.perf_counter()
    r = client.get(route, params=params, timeout=120)
    return time.perf_counter() - t0, r


def test_pages_are_right_and_cost_far_less_than_the_whole_state(
    node: RunningNode, big: str
) -> None:
    alice = node.client("alice")
    route = f"/bloc/v2.2/contracts/Big/{big}/state"
    everything = shown(ENTRIES)
    keys = list(everything)
    _, r = timed_get(alice, route)
    assert r.status_code == 200, r.text[:500]
    whole = r.json()
    assert whole["total"] == str(ENTRIES)
    assert whole["balances"] == everything and list(whole["balances"]) == keys
    for offset in (0, 37, 40_000, len(keys) - 20):
        _, r = timed_get(alice, route, name="balances", offset=offset, count=50)
        assert r.status_code == 200, r.text[:500]
        assert list(r.json()["balances"].items()) == [
            (k, everything[k]) for k in keys[offset : offset + 50]
        ], offset
    _, r = timed_get(alice, route, name="balances", length="")
    assert r.json() == {"balances": len(keys)}
    _, r = timed_get(alice, route, name="balances", offset=len(keys) - 3)
    assert r.json() == {"balances": {k: everything[k] for k in keys[-3:]}}
    _, r = timed_get(alice, route, name="balances", offset=5, count=0)
    assert r.json() == {"balances": {}}
    # cost: the first page against the whole state, alternating (the machine may be busy)
    pages, wholes = [], []
    for _ in range(5):
        pages.append(timed_get(alice, route, name="balances", offset=0, count=50)[0])
        wholes.append(timed_get(alice, route)[0])
    page_ms, whole_ms = statistics.median(pages) * 1000, statistics.median(wholes) * 1000
    assert page_ms < whole_ms / 5, f"a 50-entry page took {page_ms:.0f} ms, all {whole_ms:.0f}"


def test_health_answers_while_whole_states_are_read_and_each_read_is_one_block(
    node: RunningNode, big: str
) -> None:
    route = f"/bloc/v2.2/contracts/Big/{big}/state"
    stop = threading.Event()
    reads: list[int] = []
    errors: list[str] = []

    def read_loop() -> None:
        client = node.new_client("alice")
        try:
            while not stop.is_set():
                r = client.get(route, timeout=120)
                if r.status_code != 200:
                    errors.append(f"{r.status_code}: {r.text[:300]}")
                    return
                state = r.json()
                total = int(state["total"])
                balances = state["balances"]  # a block's entries, and only them:
                tail = list(balances.items())[-450:]
                if len(balances) != total - (total + 6) // 10 or tail != list(
                    shown(total, total - 500).items()
                ):
                    errors.append(f"state at total {total} shows {len(balances)}")
                    return
                reads.append(total)
        finally:
            client.close()

    def write_loop() -> None:  # blocks add entries while the reads run
        client = node.new_client("alice")
        try:
            start = ENTRIES
            while not stop.is_set():
                res = submit(client, call_tx(big, "fill", {"start": start, "n": 500}))
                if res[0]["status"] != "Success":
                    errors.append(str(res)[:300])
                    return
                start += 500
                time.sleep(0.05)
        finally:
            client.close()

    workers = [threading.Thread(target=read_loop) for _ in range(3)]
    workers.append(threading.Thread(target=write_loop))
    for w in workers:
        w.start()
    health = node.new_client()
    latencies = []
    try:
        t_end = time.monotonic() + 4.0
        while time.monotonic() < t_end and not errors:
            t0 = time.perf_counter()
            r = health.get("/health", timeout=30)
            latencies.append((time.perf_counter() - t0) * 1000)
            assert r.status_code == 200
            time.sleep(0.05)
    finally:
        stop.set()
        for w in workers:
            w.join(timeout=120)
        health.close()
    assert not errors, errors
    assert len(reads) >= 2 and len(set(reads)) >= 2, reads  # reads met several blocks
    latencies.sort()
    p90 = latencies[int(len(latencies) * 0.9)]
    assert p90 < 100, f"/health p90 {p90:.0f} ms (max {latencies[-1]:.0f}) under state reads"


def test_health_answers_while_cirrus_reads_a_large_mapping(node: RunningNode, big: str) -> None:
    """Cirrus rows of one contract's 60,000-entry mapping, 20 at a time: the query filters on
    ``address`` but reads every row of that address to order them, so it is no index look-up
    and must not run on the event loop."""
    paths = [
        f"/cirrus/search/mapping?address=eq.{big}&collection_name=eq.balances&limit=20",
        f"/cirrus/search/mapping?address=eq.{big}&limit=20&offset=30000",
    ]
    for p in paths:
        r = node.client("alice").get(p)
        assert r.status_code == 200 and len(r.json()) == 20, r.text[:300]
    stop = threading.Event()

    def loop(path: str) -> None:
        client = node.new_client("alice")
        while not stop.is_set():
            assert client.get(path, timeout=120).status_code == 200

    workers = [threading.Thread(target=loop, args=(p,)) for p in paths * 2]
    for w in workers:
        w.start()
    health = node.new_client()
    latencies = []
    try:
        t_end = time.monotonic() + 4.0
        while time.monotonic() < t_end:
            t0 = time.perf_counter()
            assert health.get("/health", timeout=30).status_code == 200
            latencies.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.05)
    finally:
        stop.set()
        for w in workers:
            w.join(timeout=120)
    latencies.sort()
    p90 = latencies[int(len(latencies) * 0.9)]
    assert p90 < 100, f"/health p90 {p90:.0f} ms (max {latencies[-1]:.0f}) under Cirrus reads"
