"""What indexing STRATO 16's Cirrus names costs the write path: the same node with and without.

Two configurations of the same build, in alternating rounds on fresh data dirs:

  seed   ``serve --cirrus-names seed``: the seed's tables only (no STRATO 16 rows written)
  both   ``serve`` (the default): the seed's tables and STRATO 16's global tables and views

and in each round the write scenarios of ``benchmarks/node_bench.py``:

  sequential  Token.transfer with ?resolve=true, one keep-alive connection, one request at a
              time: the Python http.client client (what the app and test runners pay) and,
              when installed, wrk -t1 -c1
  batched     batches of 100 transfers with resolve=false from 2 client processes, then
              polling the results until none is Pending

Reported: the median over the rounds of each figure per configuration, and the drop of
``both`` against ``seed`` (the issue allows at most 10 %). Every round checks the token's state
afterwards (node_bench's verification).

Throughput on a shared machine moves with the others' load; so ``both`` also reports the thread
CPU its node spent on STRATO 16's rows (taking the values while sealing, and the writer's
drains: ``$STRATOSCOPE_CIRRUS16_CPU_FILE``, see cirrus/behind16.py) per 1,000 transactions
(the transfers, the warm-up's included), a figure of the work itself.

The results go to ``benchmarks/results/`` only with ``--save``.

    python benchmarks/cirrus16_write_cost.py [--rounds N] [--duration S] [--batches N] [--save]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import machine, write_results
from node_http import Settings
from node_write import WARMUP, batch_round, seq_round

CONFIGS: dict[str, tuple[str, ...]] = {"seed": ("--cirrus-names", "seed"), "both": ()}
LIMIT_DROP = 0.10
CPU_ENV = "STRATOSCOPE_CIRRUS16_CPU_FILE"  # (app/node/cirrus/behind16.py)


def cpu_per_1000(path: Path, txs: int) -> float | None:
    """Milliseconds of thread CPU the node's STRATO 16 rows took per 1,000 transactions (None:
    no report, as with ``--cirrus-names seed``)."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    finally:
        path.unlink(missing_ok=True)
    return (float(report["capture"]) + float(report["writer"])) * 1000 / max(1, txs) * 1000


def clients() -> list[str]:
    """The Python keep-alive client, and wrk -t1 -c1 when installed (see seq_client.py)."""
    return ["python", "wrk"] if shutil.which("wrk") else ["python"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="rounds per configuration (>= 3)")
    ap.add_argument("--duration", type=int, default=5, help="seconds per sequential run")
    ap.add_argument("--batches", type=int, default=60, help="batches of 100 per batched run")
    ap.add_argument("--save", action="store_true", help="write benchmarks/results/ too")
    opts = ap.parse_args()
    s = Settings(opts.rounds, opts.duration, opts.batches, 100, 2, 0)
    figures: dict[str, dict[str, list[float]]] = {c: {} for c in CONFIGS}
    cpus: dict[str, list[float]] = {}  # both: ms of thread CPU per 1,000 tx, by scenario
    print(f"machine: {machine()}; load: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="c16cost-") as tmp:
        cpu_file = Path(tmp) / "cirrus16-cpu.json"
        os.environ[CPU_ENV] = str(cpu_file)
        for r in range(s.rounds):
            # alternate which configuration goes first, so that neither always runs warmer
            order = list(CONFIGS) if r % 2 == 0 else list(reversed(CONFIGS))
            for config in order:
                flags = CONFIGS[config]
                for client in clients():
                    run = seq_round(client, s.duration, Path(tmp) / f"{config}-{client}-{r}", flags)
                    if not run.verified:
                        raise SystemExit(f"{config}: the token's state does not add up: {run}")
                    figures[config].setdefault(f"seq_{client}", []).append(run.rate)
                    figures[config].setdefault(f"p50_{client}", []).append(run.p50_ms)
                    cpu = cpu_per_1000(cpu_file, run.executed + WARMUP)
                    if cpu is not None:
                        cpus.setdefault(f"seq_{client}", []).append(cpu)
                    print(
                        f"  round {r + 1} {config:<4} sequential ({client}): "
                        f"{run.rate:,.0f} tx/s, p50 {run.p50_ms:.2f} ms"
                        + ("" if cpu is None else f", STRATO 16 rows {cpu:.1f} ms CPU / 1,000 tx"),
                        flush=True,
                    )
                b = batch_round(s, Path(tmp) / f"{config}-batch-{r}", flags)
                if not b.verified:
                    raise SystemExit(f"{config}: batched run not verified: {b}")
                figures[config].setdefault("batched", []).append(b.rate)
                cpu = cpu_per_1000(cpu_file, b.txs)
                if cpu is not None:
                    cpus.setdefault("batched", []).append(cpu)
                print(
                    f"  round {r + 1} {config:<4} batched: {b.rate:,.0f} tx/s"
                    + ("" if cpu is None else f", STRATO 16 rows {cpu:.1f} ms CPU / 1,000 tx"),
                    flush=True,
                )
    print()
    print(f"medians of {s.rounds} rounds; load now {os.getloadavg()[0]:.2f}")
    print(f"  {'figure':<22} {'seed':>10} {'both':>10} {'change':>8}")
    out: dict[str, Any] = {"rounds": s.rounds, "machine": machine(), "figures": {}}
    for key in figures["seed"]:
        a = statistics.median(figures["seed"][key])
        z = statistics.median(figures["both"][key])
        change = z / a - 1
        higher_is_better = not key.startswith("p50")
        drop = -change if higher_is_better else change
        flag = "" if drop <= LIMIT_DROP else "  > 10 %"
        print(f"  {key:<22} {a:>10,.2f} {z:>10,.2f} {change:>+7.1%}{flag}")
        out["figures"][key] = {
            "seed": figures["seed"][key],
            "both": figures["both"][key],
            "median_seed": round(a, 3),
            "median_both": round(z, 3),
            "change": round(change, 4),
        }
    print("  thread CPU of STRATO 16's rows (capture + writer), ms per 1,000 transactions:")
    out["cpu_ms_per_1000_tx"] = {}
    for key, values in cpus.items():
        med = statistics.median(values)
        print(f"  {key:<22} {med:>10.1f}   (rounds: {', '.join(f'{v:.1f}' for v in values)})")
        out["cpu_ms_per_1000_tx"][key] = {"rounds": values, "median": round(med, 2)}
    if opts.save:
        print(f"results: {write_results('cirrus16_write_cost', out)}")


if __name__ == "__main__":
    main()
