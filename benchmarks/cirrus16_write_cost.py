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

    python benchmarks/cirrus16_write_cost.py [--rounds N] [--duration S] [--batches N]
"""

from __future__ import annotations

import argparse
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
from node_write import batch_round, seq_round

CONFIGS: dict[str, tuple[str, ...]] = {"seed": ("--cirrus-names", "seed"), "both": ()}
LIMIT_DROP = 0.10


def clients() -> list[str]:
    """The Python keep-alive client, and wrk -t1 -c1 when installed (see seq_client.py)."""
    return ["python", "wrk"] if shutil.which("wrk") else ["python"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="rounds per configuration (>= 3)")
    ap.add_argument("--duration", type=int, default=5, help="seconds per sequential run")
    ap.add_argument("--batches", type=int, default=60, help="batches of 100 per batched run")
    opts = ap.parse_args()
    s = Settings(opts.rounds, opts.duration, opts.batches, 100, 2, 0)
    figures: dict[str, dict[str, list[float]]] = {c: {} for c in CONFIGS}
    print(f"machine: {machine()}; load: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="c16cost-") as tmp:
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
                    print(
                        f"  round {r + 1} {config:<4} sequential ({client}): "
                        f"{run.rate:,.0f} tx/s, p50 {run.p50_ms:.2f} ms",
                        flush=True,
                    )
                b = batch_round(s, Path(tmp) / f"{config}-batch-{r}", flags)
                if not b.verified:
                    raise SystemExit(f"{config}: batched run not verified: {b}")
                figures[config].setdefault("batched", []).append(b.rate)
                print(f"  round {r + 1} {config:<4} batched: {b.rate:,.0f} tx/s", flush=True)
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
    print(f"results: {write_results('cirrus16_write_cost', out)}")


if __name__ == "__main__":
    main()
