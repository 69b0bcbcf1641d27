"""What the write path could gain at most by moving optional work out of it (issue 27).

The sandbox's write path does more than execute and commit a block: it computes and writes
Cirrus rows (behind the chain, cirrus/behind16.py), records call traces and builds each
result's stateDiff. Moving such a job to another process could at best make it free. This
measures that bound: the same node with parts of its work switched off by hooks that its
interpreter loads at start (node_hooks.py), interleaved with the node as shipped:

  as shipped
  rows not written        the Cirrus rows are computed while sealing, never written
  no Cirrus               no Cirrus row computed or written (the block's inputs dropped)
  no Cirrus/traces/diffs  that, ``--traces off``, and no stateDiff

Each round runs every variant once (the order alternating), each with node_bench.py's Python
client: sequential ``resolve=true`` transfers for ``--duration`` seconds, then (unless
``--no-batch``) batches of 100. Prints the medians per variant beside the node as shipped.
A variant is an experiment, not a mode: a node so started serves no Cirrus rows, traces or
stateDiffs.

    python benchmarks/write_bound.py [--rounds 3] [--duration 8] [--no-batch]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling modules

from benchlib import machine, utc_now, write_results
from benchstats import median_of
from node_hooks import hooked, hooks_source
from node_http import Settings
from node_write import batch_round, seq_round

_SWITCHES = '''
"""Hooks of benchmarks/write_bound.py: parts of the node's work switched off."""
SWITCHED = {switched!r}


def _nothing_written(self, queued, sealing_held, until=0.0):
    """Behind16._write_taken: the queued blocks' rows were computed; none is written."""
    return []


def _nothing_indexed(self, number, block_hash, ts):
    """Reindexer.index_block: the block's Cirrus inputs dropped, no row computed."""
    self.forget_pending()


def _no_state_diff(self, res):
    """Executor._state_diff: no stateDiff."""
    self.last_diff = None
    self.last_diff_text = None
    return ""


def _after_load(name, module):
    for cls, meth, replacement in SWITCHED[name]:
        owner = getattr(module, cls)
        getattr(owner, meth)  # (renamed in the node: fail here, not measure nothing)
        setattr(owner, meth, globals()[replacement])
'''

Switched = dict[str, list[tuple[str, str, str]]]
NO_CIRRUS: Switched = {
    "app.node.ledger.reindex": [("Reindexer", "index_block", "_nothing_indexed")]
}
# variant -> (the node's extra flags, module -> [(class, method, its replacement)])
VARIANTS: dict[str, tuple[tuple[str, ...], Switched]] = {
    "as shipped": ((), {}),
    "rows not written": (
        (),
        {"app.node.cirrus.behind16": [("Behind16", "_write_taken", "_nothing_written")]},
    ),
    "no Cirrus": ((), NO_CIRRUS),
    "no Cirrus/traces/diffs": (
        ("--traces", "off"),
        {**NO_CIRRUS, "app.node.ledger.executor": [("Executor", "_state_diff", "_no_state_diff")]},
    ),
}


def switches(switched: Switched) -> str:
    """The node's ``sitecustomize.py`` for a variant (for the node as shipped: the finder
    alone, which switches nothing, so that every variant pays the same hooks)."""
    return hooks_source(_SWITCHES.format(switched=switched), switched)


def one_round(name: str, tmp: Path, duration: int, batches: bool) -> dict[str, Any]:
    flags, switched = VARIANTS[name]
    out: dict[str, Any] = {"variant": name}
    with hooked(tmp, switches(switched)):
        seq = seq_round("python", duration, tmp / "seq", flags)
        out.update(rate=seq.rate, first=seq.first_rate, p50=seq.p50_ms, p99=seq.p99_ms)
        out["verified"] = seq.verified
        if batches:
            batch = batch_round(Settings(1, duration, 50, 100, 2, 0), tmp / "batch", flags)
            out["batch"] = batch.rate
            out["verified"] = out["verified"] and batch.verified
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=8, help="seconds per sequential run")
    ap.add_argument("--no-batch", action="store_true", help="sequential transfers only")
    args = ap.parse_args()
    names = list(VARIANTS)
    runs: list[dict[str, Any]] = []
    for r in range(args.rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            with tempfile.TemporaryDirectory() as tmp:
                run = one_round(name, Path(tmp), args.duration, not args.no_batch)
            runs.append(run)
            batch = f", batches {run['batch']:,.0f} tx/s" if "batch" in run else ""
            print(
                f"round {r + 1}: {name:24s} {run['rate']:6.0f} tx/s, p50 {run['p50']:.2f} ms, "
                f"p99 {run['p99']:.2f} ms{batch} (verified={run['verified']})",
                flush=True,
            )
    keys = ["rate", "first", "p50", "p99"] + ([] if args.no_batch else ["batch"])
    table = {
        name: {k: median_of([x for x in runs if x["variant"] == name], k) for k in keys}
        for name in names
    }
    shipped = table["as shipped"]
    print(f"\nmedians of {args.rounds} rounds (and against the node as shipped):")
    for name, med in table.items():
        cells = []
        for k in keys:
            rel = med[k] / shipped[k] - 1 if med is not shipped else 0.0
            cells.append(f"{k} {med[k]:,.2f}" + (f" ({rel:+.0%})" if rel else ""))
        print(f"  {name:24s} " + ", ".join(cells))
    path = write_results(
        "write_bound",
        {
            "date": utc_now(),
            "machine": machine(load_1min=os.getloadavg()[0]),
            "rounds": args.rounds,
            "duration_s": args.duration,
            "medians": table,
            "runs": runs,
            "all_verified": all(x["verified"] for x in runs),
        },
    )
    print(f"\nwritten to {path}")


if __name__ == "__main__":
    main()
