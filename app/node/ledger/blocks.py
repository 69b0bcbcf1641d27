"""Sealing blocks: executing a batch, committing it with its events and Cirrus rows; and
replaying, at start, the blocks committed after the last snapshot.

Runs on the block producer's thread (see ``producer``), never on the event loop; only
``Results.publish`` (results to the waiting requests) runs on the loop.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from ..bulkwrite import update_rows
from ..cirrus.behind16 import Behind16
from ..solidvm.ops import keccak256
from ..store import Store, dumps
from .codebook import CodeBook, SlowStoredCode
from .common import TIME_LIMIT_PREFIX, Head, Sub, log
from .executor import Executor
from .intakelog import IntakeLog
from .journal import BlockJournal
from .keys import sub_from_row
from .packing import pack_result, unpack_result
from .reindex import Reindexer
from .results import Results
from .snapshots import Snapshots
from .state import ChainState
from .txqueue import TxQueue


class BlockSealer:
    """Executes a batch and commits it as the next block: its transactions' rows and results,
    its events, the private chains and code it changed and its Cirrus rows, in one SQLite
    transaction; then moves the committed head. One block at a time, whatever the thread."""

    def __init__(
        self,
        store: Store,
        state: ChainState,
        codes: CodeBook,
        executor: Executor,
        journal: BlockJournal,
        reindexer: Reindexer,
        snapshots: Snapshots,
        results: Results,
    ) -> None:
        self.store = store
        self.state = state
        self.world = state.world
        self.codes = codes
        self.executor = executor
        self.journal = journal
        self.reindexer = reindexer
        self.snapshots = snapshots
        self.results = results
        # held while a block is executed and committed (one block at a time, whatever thread)
        self._sealing = threading.Lock()
        self.behind16: Behind16 | None = None  # set by the Ledger (cirrus/behind16.py)
        self.intake_log: IntakeLog | None = None  # set by the Ledger (intakelog.py)

    def seal(self, batch: list[Sub], budget: float = 0.0) -> list[dict[str, Any]]:
        """:meth:`_seal_block` under the sealing lock (the producer's thread); the caller
        hands out the results, then calls :meth:`block_published`."""
        with self._sealing:
            return self._seal_block(batch, budget)

    def block_published(self) -> None:
        """After a sealed block's results were handed out: a snapshot if one is due (a few
        milliseconds every 500 blocks, which its transactions' requests no longer wait for)."""
        with self._sealing:
            self.snapshots.block_committed()

    def run_block(self, batch: list[Sub]) -> None:
        """Seal all of ``batch`` in one block and hand out the results (callers on the loop
        thread with no producer running: start-up, the offline CLI, app creation)."""
        with self._sealing:
            results = self._seal_block(batch)
            if self.behind16 is not None:  # no producer: STRATO 16's rows now
                self.behind16.drain(sealing_held=True)
            self.snapshots.block_committed()
        self.results.publish(batch, results)

    def _seal_block(self, batch: list[Sub], budget: float = 0.0) -> list[dict[str, Any]]:
        """Execute ``batch`` in order and commit it as the next block; with a ``budget``
        (seconds), stop after the transaction that exhausts it: only that prefix is sealed and
        its results returned (the caller re-queues the rest). Touches no future: thread-safe
        for the producer's thread, the caller holding ``self._sealing``."""
        head = self.state.head
        number = head.number + 1
        ts = max(int(time.time()), head.timestamp)
        if self.world.history is not None:
            self.state.begin(number)
        results = []
        diffs = []  # each result's stateDiff object and its text (see pack_result)
        gas = 0
        t0 = time.monotonic()
        for i, sub in enumerate(batch):
            res = self.executor.execute(sub, number, ts, i)
            results.append(res)
            diffs.append((self.executor.last_diff, self.executor.last_diff_text))
            tr = res.get("txResult")
            if isinstance(tr, dict):
                gas += int(tr.get("gasUsed", "0"), 16)
            if budget and time.monotonic() - t0 > budget:
                break
        self.executor.block_done()
        if not results:
            return results
        batch = batch[: len(results)]
        block_hash = keccak256(
            dumps([head.hash, number, ts, [s.hash for s in batch]]).encode()
        ).hex()
        for res in results:
            tr = res.get("txResult")
            if isinstance(tr, dict):
                tr["blockHash"] = block_hash
        events = list(self.journal.events)
        # packed before the store's lock is taken: the loop records submissions under it
        sealed = [
            (res["status"], pack_result(res, block_hash, *diff), number, i, sub.nonce, sub.hash)
            for i, (sub, res, diff) in enumerate(zip(batch, results, diffs, strict=True))
        ]
        with self.store.transaction() as db:
            # under the store's lock: the loop may have recorded some meanwhile (a 504)
            fresh = [(s, row) for s, row in zip(batch, sealed, strict=True) if not s.recorded]
            known = [row for s, row in zip(batch, sealed, strict=True) if s.recorded]
            if fresh:  # never recorded (resolve=true): written sealed, in one statement
                TxQueue.insert_sealed(db, fresh)
            db.execute(
                "INSERT INTO blocks (number, hash, parent_hash, timestamp, tx_count, gas_used) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (number, block_hash, head.hash, ts, len(batch), gas),
            )
            if known:  # (one statement: see bulkwrite.py)
                update_rows(
                    db,
                    "txs",
                    ("status", "result", "block_number", "tx_index", "nonce"),
                    "hash",
                    known,
                )
            if events:
                db.executemany(
                    "INSERT INTO events (block_number, tx_hash, chain, address, contract, name, "
                    "args) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(number, *e) for e in events],
                )
            for cid in self.journal.dirty_chains:
                chain = self.state.chains.get(cid)
                if chain is not None:
                    db.execute(
                        "INSERT OR REPLACE INTO chains VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        chain.to_row(),
                    )
            self.journal.dirty_chains.clear()
            self.reindexer.index_block(number, block_hash, ts)  # never raises: see reindex.py
            new_codes = self.codes.take_new()
            if new_codes:
                db.executemany(
                    "INSERT OR IGNORE INTO codes (code_hash, vm, source) VALUES (?, ?, ?)",
                    new_codes,
                )
        if self.intake_log is not None:  # committed: the log need not keep them
            self.intake_log.settled(batch)
        self.state.advance(Head(number, block_hash, ts))
        return results

    def replay(self) -> None:
        """Re-run the blocks committed after the last snapshot."""
        snap = int(self.store.get_meta("snapshot_block") or -1)
        blocks = self.store.all("SELECT * FROM blocks WHERE number > ? ORDER BY number", snap)
        for b in blocks:
            rows = self.store.all(
                "SELECT * FROM txs WHERE block_number=? ORDER BY tx_index", b["number"]
            )
            subs = [sub_from_row(r) for r in rows]
            for i, (sub, row) in enumerate(zip(subs, rows, strict=True)):
                res = self.executor.execute(sub, b["number"], b["timestamp"], i, _overtime(row))
                if res["status"] != row["status"]:
                    _refuse_slow_compile(sub, res, self.codes.config.compile_time_limit)
                    log.warning(
                        "replay of %s gave %s, recorded %s", sub.hash, res["status"], row["status"]
                    )
            self.executor.block_done()
            self.state.head = Head(b["number"], b["hash"], b["timestamp"])
            self.snapshots.block_replayed()
        # events and Cirrus rows of these blocks were committed with them the first time
        self.reindexer.forget_pending()


COMPILE_LIMIT = "compile time limit exceeded:"  # timebox.TimeLimitError's message


def _refuse_slow_compile(sub: Sub, res: dict[str, Any], limit: float) -> None:
    """A replayed transaction whose compile (its upload's, or a source it gave to ``create``)
    now ran past the bound, though it did not when first run: the node does not start rather
    than go on with another state than the one it recorded (see codebook.SlowStoredCode)."""
    message = str((res.get("txResult") or {}).get("message", ""))
    if COMPILE_LIMIT not in message:
        return
    if sub.type in ("CONTRACT", "GENESIS"):
        vm = str((sub.payload.get("metadata") or {}).get("VM", "SolidVM"))
        what = f"stored code {CodeBook.code_hash(vm, sub.payload['src'])}"
    else:
        what = f"the source transaction {sub.hash} gave to create"
    raise SlowStoredCode(what, limit)


def _overtime(row: Any) -> str:
    """The time-limit message a recorded transaction failed with, or ""."""
    if row["status"] != "Failure" or not row["result"]:
        return ""
    res = unpack_result(row["result"], row["hash"], row["status"], "")
    message = str((res.get("txResult") or {}).get("message", ""))
    # a time limit, also the compile's of create() (wrapped: "parse error: create: ...")
    overtime = message.startswith(TIME_LIMIT_PREFIX) or COMPILE_LIMIT in message
    return message if overtime else ""
