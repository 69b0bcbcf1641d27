"""Scenario (d) of node_bench.py: reads while runaway transactions execute."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from benchlib import running_node
from node_http import (
    BATCH_PREFIX,
    RESULTS_PATH,
    TX_PATH,
    Http,
    Settings,
    deploy_token,
    recipient,
    transfer_tx,
)

RUNAWAY_TXS = 30
SPIN_SOL = """
contract Spin {
    function spin() public { uint i = 0; while (true) { i = i + 1; } }
}
"""


# ================================================================ (d) runaway batch


@dataclass
class RunawayRun:
    runaway_txs: int
    probe_seconds: float
    health_n: int
    health_p50_ms: float
    health_p99_ms: float
    read_n: int
    read_p50_ms: float
    read_p99_ms: float
    other_tx_ms: list[float]  # bob's resolve=true transfers during the batch
    runaway_done_during: int  # runaway transactions finished while probing
    runaway_failed: bool  # all of them ended as Failure (out of gas / time limit)


def _pct(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * q))] * 1000 if s else float("nan")


def runaway_round(s: Settings, data_dir: Path) -> RunawayRun:
    probe_s = 4.0 if s.rounds == 1 else 10.0
    with running_node(data_dir) as node:
        alice = Http(node.url, node.token("alice"))
        bob = Http(node.url, node.token("bob"))
        anon = Http(node.url)
        status, body = alice.post(
            f"{TX_PATH}?resolve=true",
            {
                "txs": [
                    {
                        "type": "CONTRACT",
                        "payload": {"contract": "Spin", "src": SPIN_SOL, "args": {}},
                    }
                ]
            },
        )
        if status != 200 or body[0]["status"] != "Success":
            raise RuntimeError(f"Spin upload failed: HTTP {status}: {str(body)[:300]}")
        spin = body[0]["data"]["contents"]["address"]
        token = deploy_token(bob)
        call = {"type": "FUNCTION", "payload": {"contractAddress": spin, "method": "spin"}}
        status, body = alice.post(TX_PATH, {"txs": [call] * RUNAWAY_TXS})
        if status != 200:
            raise RuntimeError(f"runaway batch refused: HTTP {status}: {str(body)[:300]}")
        hashes = [r["hash"] for r in body]
        time.sleep(0.2)
        health: list[float] = []
        reads: list[float] = []
        other: list[float] = []
        end = time.monotonic() + probe_s
        n = 0
        while time.monotonic() < end:
            t0 = time.monotonic()
            status, _ = anon.get("/health")
            health.append(time.monotonic() - t0)
            t0 = time.monotonic()
            status2, _ = bob.get(f"/bloc/v2.2/contracts/Token/{token}/state")
            reads.append(time.monotonic() - t0)
            if status != 200 or status2 != 200:
                raise RuntimeError(f"probe failed: HTTP {status}/{status2}")
            n += 1
            if n % 50 == 0:
                t0 = time.monotonic()
                status, body = bob.post(
                    f"{TX_PATH}?resolve=true",
                    {"txs": [transfer_tx(token, recipient(BATCH_PREFIX, n))]},
                )
                other.append(time.monotonic() - t0)
                if status != 200:
                    raise RuntimeError(f"bob's transfer failed: HTTP {status}: {str(body)[:300]}")
            time.sleep(0.01)
        status, res = alice.post(RESULTS_PATH, hashes)
        done_during = sum(1 for r in res if r["status"] != "Pending")
        failed = all(r["status"] in ("Failure", "Pending") for r in res)
        for c in (alice, bob, anon):
            c.close()
    return RunawayRun(
        runaway_txs=RUNAWAY_TXS,
        probe_seconds=probe_s,
        health_n=len(health),
        health_p50_ms=_pct(health, 0.5),
        health_p99_ms=_pct(health, 0.99),
        read_n=len(reads),
        read_p50_ms=_pct(reads, 0.5),
        read_p99_ms=_pct(reads, 0.99),
        other_tx_ms=[round(x * 1000, 1) for x in other],
        runaway_done_during=done_during,
        runaway_failed=failed,
    )
