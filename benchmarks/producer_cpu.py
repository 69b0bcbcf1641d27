"""CPU time of the block producer per 1,000 Token transfers, in process (issue 27).

A ledger on a fresh temporary data dir (traces on, as the node's default), the Token deployed,
then blocks of 100 signed transfers (each to a new recipient) sealed with ``BlockSealer.seal``
on this thread, as the producer seals them. The figure is this thread's CPU time
(``time.thread_time``): insensitive to the machine's load, unlike wall-clock rates. Signing the
transfers is not counted (the loop does it). ``--profile FILE`` writes a cProfile of the
sealing alone.

``--traces both`` measures what call traces cost (issue 28) in one process, its rounds
alternating with traces on and off (the node's traces switched off as ``--traces off`` does,
in the executing world): the sealing thread's CPU, and the whole process's (the trace writer
thread's included: each round waits for it), medians of each, and their differences per
transfer. Alternating in one process keeps the machine's load and the heap alike for both.

    .venv/bin/python benchmarks/producer_cpu.py [--blocks 30] [--rounds 3] [--profile out.prof]
    .venv/bin/python benchmarks/producer_cpu.py --traces both --rounds 8
"""

from __future__ import annotations

import argparse
import cProfile
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.node import gcfreeze
from app.node.config import NodeConfig
from app.node.ledger import Ledger, Sub
from app.node.store import Store
from app.node.vault import Vault, load_node_secret

TOKEN_SOL = Path(__file__).resolve().parents[1] / "resources" / "contracts" / "Token.sol"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--blocks", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--per-block", type=int, default=100)
    ap.add_argument("--profile", type=Path)
    ap.add_argument("--traces", choices=("on", "off", "both"), default="on")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        store = Store(data_dir)
        ledger = Ledger(
            NodeConfig(data_dir=data_dir, traces=args.traces != "off"),
            store,
            Vault(load_node_secret(data_dir)),
        )
        try:
            ledger.open()
            if hasattr(gcfreeze, "tune_for_node"):  # as `serve` does (not in older trees)
                gcfreeze.tune_for_node()
            ledger.state.keep_history()
            if ledger.behind16 is not None and hasattr(ledger.behind16, "start"):
                ledger.behind16.start()  # (older trees: a writer thread of its own)
            key = ledger.key_of("alice")
            assert key is not None
            sender = key["address"]

            def sub(type_: str, payload: dict[str, object]) -> Sub:
                return ledger.keys.new_sub("alice", sender, type_, payload, "", None)

            deploy = sub(
                "CONTRACT",
                {
                    "contract": "Token",
                    "src": TOKEN_SOL.read_text(),
                    "args": {"_name": "B", "_symbol": "B", "_supply": 10**30},
                    "metadata": {"VM": "SolidVM"},
                },
            )
            res = ledger.sealer.seal([deploy])
            token = res[0]["data"]["contents"]["address"]
            n = 0

            def block() -> list[Sub]:
                nonlocal n
                out = []
                for _ in range(args.per_block):
                    n += 1
                    out.append(
                        sub(
                            "FUNCTION",
                            {
                                "contractAddress": token,
                                "method": "transfer",
                                "args": {"to": f"c0c0c0c0{n:032x}", "amount": 1},
                            },
                        )
                    )
                return out

            for _ in range(5):  # warm-up
                ledger.sealer.seal(block())
            prof = cProfile.Profile() if args.profile else None
            items = ledger.executor.world.trace_items
            # the rows written behind the chain (STRATO 16's, the seed's since session 17):
            # drained as the producer drains them between blocks, and counted
            behind = ledger.behind16 if hasattr(ledger.behind16, "must_drain") else None
            rounds = args.rounds * (2 if args.traces == "both" else 1)
            figures: dict[bool, list[float]] = {True: [], False: []}
            process: dict[bool, list[float]] = {True: [], False: []}
            for r in range(rounds):
                on = args.traces == "on" or (args.traces == "both" and r % 2 == 0)
                ledger.executor.world.trace_items = items if on else 0
                batches = [block() for _ in range(args.blocks)]
                cpu = 0.0
                p0 = time.process_time()
                for b in batches:
                    t0 = time.thread_time()
                    if prof is not None:
                        prof.enable()
                    out = ledger.sealer.seal(b)
                    if hasattr(ledger.sealer, "block_published"):  # as the producer does
                        ledger.sealer.block_published()  # (older trees snapshot in seal)
                    if behind is not None and behind.must_drain():  # as a busy producer
                        behind.drain()
                    if prof is not None:
                        prof.disable()
                    cpu += time.thread_time() - t0
                    assert all(r["status"] == "Success" for r in out), out[0]
                if behind is not None:  # the rest of the round's rows: counted too
                    t0 = time.thread_time()
                    behind.drain()
                    cpu += time.thread_time() - t0
                if ledger.traces is not None:  # the writer thread's share of this round
                    ledger.traces.flush()
                per = 1000 / (args.blocks * args.per_block) * 1000
                figures[on].append(cpu * per)
                process[on].append((time.process_time() - p0) * per)
            for on in (True, False):
                if not figures[on]:
                    continue
                print(
                    f"producer CPU per 1,000 transfers: median "
                    f"{statistics.median(figures[on]):.1f} ms (rounds "
                    f"{', '.join(f'{f:.1f}' for f in figures[on])}; blocks of "
                    f"{args.per_block}, traces {'on' if on else 'off'}); whole process (with "
                    f"the writer threads) {statistics.median(process[on]):.1f} ms"
                )
            if figures[True] and figures[False]:
                t = statistics.median(figures[True]) - statistics.median(figures[False])
                p = statistics.median(process[True]) - statistics.median(process[False])
                print(
                    f"call traces cost per transfer: sealing thread {t:.1f} us "
                    f"({t / statistics.median(figures[False]) * 100:+.1f} %), whole process "
                    f"{p:.1f} us ({p / statistics.median(process[False]) * 100:+.1f} %)"
                )
            if prof is not None:
                prof.dump_stats(str(args.profile))
        finally:
            if ledger.behind16 is not None:
                ledger.behind16.stop()
            if ledger.traces is not None:
                ledger.traces.close()
            store.close()


if __name__ == "__main__":
    main()
