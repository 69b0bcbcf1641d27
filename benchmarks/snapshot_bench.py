"""What the node's storage snapshots cost writers, and how many bytes a transaction stores.

latency) A contract whose mapping holds ``--holders`` entries (200,000: minted in batches), then
         one user's ``resolve=true`` transfers, one after another, for ``--seconds`` (several
         5-second snapshots): p50, p99 and max latency, and the slowest transfer of each
         snapshot interval. Before issue 26 the transfer that triggered a snapshot rewrote the
         contract's whole storage (9 MB of JSON at 200,000 holders) inside its block's seal.
         Then the time the node takes to start again on that data dir (after a clean stop).
bytes)   ``--transfers`` token transfers (Token.sol: a balance mapping and a Transfer event), 50
         per request: the database's growth per transfer (SQLite's dbstat: bytes in use), and
         that of the ``txs`` table with its indexes.

``--baseline DIR`` runs the node of another checkout (the code before a change) too, in turns
with this one (``--rounds``), on the same machine in the same run: the machine is shared, so the
load (``uptime``) is printed with each round. Results print and go to
benchmarks/results/snapshots.json.

    python benchmarks/snapshot_bench.py [--baseline DIR] [--rounds N] [--holders N]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module benchlib

import benchlib
from benchlib import machine, rounded, running_node, utc_now, write_results

MINT_BATCH = 25_000
HOLDERS_SOL = """
contract Holders {
    mapping(address => uint) public balances;

    constructor() public {
        balances[msg.sender] = 1000000000;
    }

    function mint(uint start, uint count) public {
        for (uint i = start; i < start + count; i++) {
            balances[address(i)] = i;
        }
    }

    function transfer(address to, uint amount) public returns (bool) {
        require(balances[msg.sender] >= amount, "insufficient balance");
        balances[msg.sender] -= amount;
        balances[to] += amount;
        return true;
    }
}
"""
TX = "/strato/v2.3/transaction"


def _call(address: str, method: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "FUNCTION",
        "payload": {"contractAddress": address, "method": method, "args": args},
    }


def _post(client: httpx.Client, *txs: dict[str, Any]) -> list[dict[str, Any]]:
    r = client.post(TX, params={"resolve": "true"}, json={"txs": list(txs)}, timeout=600)
    r.raise_for_status()
    out: list[dict[str, Any]] = r.json()
    bad = [x for x in out if x["status"] != "Success"]
    if bad:
        raise RuntimeError(f"a transaction failed: {bad[0]}")
    return out


def _deploy(client: httpx.Client, name: str, src: str, args: dict[str, Any]) -> str:
    tx = {
        "type": "CONTRACT",
        "payload": {"contract": name, "src": src, "args": args, "metadata": {"VM": "SolidVM"}},
    }
    return str(_post(client, tx)[0]["data"]["contents"]["address"])


def _snapshot_block(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT value FROM meta WHERE key='snapshot_block'").fetchone()
    return int(row[0]) if row else -1


def _ro(data_dir: Path) -> sqlite3.Connection:
    path = data_dir / "node.sqlite3"
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q))] * 1000


def latency(data_dir: Path, holders: int, seconds: float) -> dict[str, Any]:
    with running_node(data_dir, timeout=120) as node:
        client = httpx.Client(
            base_url=node.url, headers={"Authorization": f"Bearer {node.token('alice')}"}
        )
        with client:
            contract = _deploy(client, "Holders", HOLDERS_SOL, {})
            t0 = time.perf_counter()
            for start in range(1, holders + 1, MINT_BATCH):
                count = min(MINT_BATCH, holders + 1 - start)
                _post(client, _call(contract, "mint", {"start": start, "count": count}))
            mint_s = time.perf_counter() - t0
            to = format(holders + 7, "040x")  # a new holder, then the same one
            transfer = _call(contract, "transfer", {"to": to, "amount": 1})
            db = _ro(data_dir)
            try:
                first = _snapshot_block(db)
                while _snapshot_block(db) == first:  # the minted entries' snapshot: not measured
                    _post(client, transfer)
                snap = _snapshot_block(db)
                lat: list[float] = []
                per_interval: list[float] = [0.0]
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    t = time.perf_counter()
                    _post(client, transfer)
                    dt = time.perf_counter() - t
                    lat.append(dt)
                    now = _snapshot_block(db)
                    per_interval[-1] = max(per_interval[-1], dt)
                    if now != snap:  # this transfer's block took a snapshot
                        snap = now
                        per_interval.append(0.0)
            finally:
                db.close()
    with running_node(data_dir, timeout=120) as again:  # loads the snapshot: no replay
        restart_s = again.startup_s
    return {
        "holders": holders,
        "mint_s": mint_s,
        "restart_s": restart_s,
        "transfers": len(lat),
        "snapshots": len(per_interval) - 1,
        "p50_ms": _pct(lat, 0.5),
        "p99_ms": _pct(lat, 0.99),
        "max_ms": max(lat) * 1000,
        "slowest_per_interval_ms": [x * 1000 for x in per_interval],
    }


def _used(db: sqlite3.Connection) -> dict[str, int]:
    return {
        str(name): int(n)
        for name, n in db.execute("SELECT name, SUM(pgsize - unused) FROM dbstat GROUP BY name")
    }


def stored_bytes(data_dir: Path, transfers: int) -> dict[str, Any]:
    token_src = (benchlib.ROOT / "resources" / "contracts" / "Token.sol").read_text()
    with running_node(data_dir, timeout=120) as node:
        client = httpx.Client(
            base_url=node.url, headers={"Authorization": f"Bearer {node.token('alice')}"}
        )
        with client:
            token = _deploy(
                client, "Token", token_src, {"_name": "B", "_symbol": "B", "_supply": 10**9}
            )
            db = _ro(data_dir)
            try:
                before = _used(db)
                for k in range(transfers // 50):
                    to = [format(1000 + (k * 50 + j) % 3, "040x") for j in range(50)]
                    _post(client, *(_call(token, "transfer", {"to": a, "amount": 1}) for a in to))
                after = _used(db)
            finally:
                db.close()
    grown = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    txs = sum(
        v for k, v in grown.items() if k == "txs" or k.startswith(("txs_", "sqlite_autoindex_txs"))
    )
    return {
        "transfers": transfers,
        "bytes_per_transfer": sum(grown.values()) / transfers,
        "txs_bytes_per_transfer": txs / transfers,
        "by_table": {
            k: v / transfers for k, v in sorted(grown.items(), key=lambda kv: -kv[1]) if v
        },
    }


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--baseline", type=Path, help="a checkout of the code before, run in turns")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--holders", type=int, default=200_000)
    ap.add_argument("--seconds", type=float, default=21.0, help="of transfers (4 snapshots)")
    ap.add_argument("--transfers", type=int, default=2_000)
    args = ap.parse_args()
    trees = {"now": benchlib.ROOT}
    if args.baseline:
        trees["baseline"] = args.baseline.resolve()
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in trees}
    for r in range(args.rounds):
        for label, tree in trees.items():
            benchlib.ROOT = tree
            with tempfile.TemporaryDirectory(prefix="snapbench-") as tmp:
                load = _load()
                lat = latency(Path(tmp) / "lat", args.holders, args.seconds)
                size = stored_bytes(Path(tmp) / "bytes", args.transfers)
                run = {"round": r + 1, "load_before": load, "latency": lat, "bytes": size}
                runs[label].append(run)
                print(
                    f"[{label} r{r + 1}, load {load}] {lat['transfers']} transfers over "
                    f"{lat['snapshots']} snapshots at {lat['holders']:,} holders: "
                    f"p50 {lat['p50_ms']:.1f} ms, p99 {lat['p99_ms']:.1f} ms, "
                    f"max {lat['max_ms']:.0f} ms; slowest per interval "
                    f"{[round(x) for x in lat['slowest_per_interval_ms']]} ms; "
                    f"restart {lat['restart_s']:.2f} s; "
                    f"{size['bytes_per_transfer']:.0f} B per stored transfer "
                    f"(txs and its indexes {size['txs_bytes_per_transfer']:.0f} B)",
                    flush=True,
                )
    benchlib.ROOT = trees["now"]
    summary = {
        label: {
            "max_ms_median": statistics.median(x["latency"]["max_ms"] for x in rs),
            "p50_ms_median": statistics.median(x["latency"]["p50_ms"] for x in rs),
            "bytes_per_transfer": statistics.median(x["bytes"]["bytes_per_transfer"] for x in rs),
        }
        for label, rs in runs.items()
    }
    out = {
        "when": utc_now(),
        "machine": machine(load_after=_load()),
        "args": {k: str(v) for k, v in vars(args).items()},
        "summary": summary,
        "runs": runs,
    }
    print(f"results: {write_results('snapshots', rounded(out))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
