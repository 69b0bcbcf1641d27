"""Compiling runs off the event loop, within a time bound, and stores nothing until a
transaction deploys the code (issue 26, items 4 and 5).

A single-transaction upload and ``/contracts/compile`` compiled on the loop: a 16 KB source of
8,000 ``1+1+...`` terms stalled ``/health`` for 34 s. The compile cache kept every source it saw
(memory and the ``codes`` table grew with each compile). The latency bound is generous; the
figures themselves are in benchmarks/compile_bench.py.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from app.node.store import DB_FILE
from tests.integration.conftest import make_node
from tests.integration.node_fixture import (
    RunningNode,
    call_tx,
    deploy,
    submit,
    transfer_tx,
    upload_tx,
)

BOUND_S = 0.5  # p99 of /health while compiles run (the issue's figure: 34 s)
TX_ROUTE = "/strato/v2.3/transaction"
COMPILE_ROUTE = "/bloc/v2.2/contracts/compile"
XABI_ROUTE = "/bloc/v2.2/contracts/xabi"


def chain_source(terms: int, tag: int) -> str:
    """A contract returning ``1+1+...`` of ``terms`` terms (``tag`` makes the source distinct)."""
    expr = "+".join(["1"] * terms)
    return (
        f"contract Chain{tag} {{\n"
        "    uint public x;\n"
        f"    function f() public returns (uint) {{ return {expr}; }}\n"
        "}\n"
    )


def functions_source(n: int, tag: int) -> str:
    body = "".join(
        f"    function f{i}(uint a) public returns (uint) {{ x = a + {i + tag}; return x; }}\n"
        for i in range(n)
    )
    return f"contract Many{tag} {{\n    uint public x;\n{body}}}\n"


def p99(samples: list[float]) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * 0.99))]


def codes_rows(node: RunningNode) -> int:
    db = sqlite3.connect(f"file:{node.data_dir / DB_FILE}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM codes").fetchone()[0])
    finally:
        db.close()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in clock ticks


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    # a compile bound far above what these sources need, even on a loaded machine
    n = make_node(tmp_path_factory, "--compile-time-limit", "120", name="compile")
    try:
        yield n
    finally:
        n.stop()


def test_health_answers_while_long_operator_chains_compile(node: RunningNode) -> None:
    alice = node.new_client("alice", timeout=20.0)
    answers: list[tuple[str, int, float]] = []

    def compile_many() -> None:
        for tag in range(6):
            src = chain_source(8000, tag)
            t0 = time.monotonic()
            if tag % 2:  # a single-transaction upload
                r = alice.post(
                    TX_ROUTE,
                    params={"resolve": "true"},
                    json={"txs": [upload_tx(f"Chain{tag}", src)]},
                )
                ok = r.status_code == 200 and r.json()[0]["status"] == "Success"
                answers.append(("upload", 200 if ok else r.status_code, time.monotonic() - t0))
            else:
                r = alice.post(COMPILE_ROUTE, json=[{"contractName": f"Chain{tag}", "source": src}])
                answers.append(("compile", r.status_code, time.monotonic() - t0))

    worker = threading.Thread(target=compile_many)
    probe = node.new_client(timeout=5.0)  # on the loop, a compile held /health for 34 s
    latencies: list[float] = []
    worker.start()
    try:
        while worker.is_alive() or len(latencies) < 10:
            t0 = time.monotonic()
            r = probe.get("/health")
            latencies.append(time.monotonic() - t0)
            assert r.status_code == 200, r.text
            time.sleep(0.05)
    finally:
        worker.join()
    assert [a[:2] for a in answers] == [
        ("compile", 200),
        ("upload", 200),
        ("compile", 200),
        ("upload", 200),
        ("compile", 200),
        ("upload", 200),
    ], answers
    assert max(a[2] for a in answers) < 10.0, answers  # linear now: was 34 s each
    assert p99(latencies) < BOUND_S, f"/health p99 {p99(latencies):.3f} s over {len(latencies)}"
    # the deployed chain computes what it says
    address = deploy(alice, "Chain100", chain_source(8000, 100))
    res = submit(alice, call_tx(address, "f"))
    assert res[0]["data"]["contents"] == ["8000"], res


def test_compiling_without_deploying_stores_nothing_and_memory_stays_bounded(
    node: RunningNode,
) -> None:
    alice = node.new_client("alice", timeout=60.0)
    submit(alice, transfer_tx(node.address("bob"), 1))  # anything compiled so far is flushed
    rows = codes_rows(node)
    rss_before = rss_mb(node.pid)
    for tag in range(60):  # 60 distinct sources of 24 KB: about 160 MB compiled
        src = functions_source(300, 1000 + tag)
        if tag % 3 == 0:
            r = alice.post(XABI_ROUTE, json={"src": src})
        elif tag % 3 == 1:
            r = alice.post(COMPILE_ROUTE, json=[{"source": src}])
        else:  # an upload whose constructor fails compiles too, and deploys nothing
            failing = src.replace(
                "uint public x;", "uint public x;\n    constructor() { require(false); }"
            )
            submit(alice, upload_tx(f"Many{1000 + tag}", failing), expect=422)
            continue
        assert r.status_code == 200, r.text
    submit(alice, transfer_tx(node.address("bob"), 1))  # a block is sealed: nothing to add
    assert codes_rows(node) == rows, "compiles and failed uploads wrote code to the codes table"
    grown = rss_mb(node.pid) - rss_before
    assert grown < 100, f"the node grew by {grown:.0f} MB for compiles it does not keep"
    # deploying stores the code, and it loads again after a restart
    address = deploy(alice, "Many2000", functions_source(3, 2000))
    assert codes_rows(node) == rows + 1
    node.restart()
    alice = node.client("alice")
    res = submit(alice, call_tx(address, "f2", {"a": 5}))
    assert res[0]["data"]["contents"] == ["2007"], res


def test_a_compile_past_the_bound_answers_400_and_stops(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    n = make_node(tmp_path_factory, "--compile-time-limit", "0.2", name="compilebound")
    try:
        alice = n.new_client("alice", timeout=60.0)
        slow = functions_source(8000, 0)  # about 0.4 MB: seconds to compile
        attempts: dict[str, Callable[[], httpx.Response]] = {
            "compile": lambda: alice.post(COMPILE_ROUTE, json=[{"source": slow}]),
            "xabi": lambda: alice.post(XABI_ROUTE, json={"src": slow}),
            "upload": lambda: alice.post(
                TX_ROUTE, params={"resolve": "true"}, json={"txs": [upload_tx("Many0", slow)]}
            ),
            "chain": lambda: alice.post(
                "/bloc/v2.2/chain",
                json={
                    "label": "slow",
                    "src": slow,
                    "contract": "Many0",
                    "members": [{"orgName": "Acme", "access": True}],
                    "balances": [{"address": n.address("alice"), "balance": 100}],
                },
            ),
        }
        for what, attempt in attempts.items():
            t0 = time.monotonic()
            r = attempt()
            took = time.monotonic() - t0
            assert r.status_code == 400, f"{what}: {r.status_code} {r.text[:300]}"
            assert "compile time limit exceeded" in r.text, f"{what}: {r.text[:300]}"
            assert took < 5.0, f"{what}: the answer took {took:.1f} s"
        # the compiles stopped: the node is idle again, and healthy
        time.sleep(0.3)
        cpu0 = cpu_seconds(n.pid)
        time.sleep(1.0)
        busy = cpu_seconds(n.pid) - cpu0
        assert busy < 0.5, f"the node used {busy:.2f} s of CPU in 1 s after the refusals"
        assert n.client().get("/health").status_code == 200
        address = deploy(alice, "Small", functions_source(2, 7).replace("Many7", "Small"))
        res = submit(alice, call_tx(address, "f1", {"a": 1}))
        assert res[0]["data"]["contents"] == ["9"], res
    finally:
        n.stop()
