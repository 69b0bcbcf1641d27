"""Sealing blocks: executing a batch, committing it with its events and Cirrus rows.

Runs on the block producer's thread (see ``producer``), never on the event loop; only
``_publish`` (results to the waiting requests) runs on the loop.
"""

from __future__ import annotations

import time
from typing import Any

from ..solidvm.ops import keccak256
from ..store import dumps
from .common import SNAPSHOT_EVERY_BLOCKS, SNAPSHOT_EVERY_SECONDS, Head, Sub
from .packing import pack_result
from .reindex import LedgerReindex


class LedgerBlocks(LedgerReindex):
    """Sealing blocks."""

    def _run_block(self, batch: list[Sub]) -> None:
        """Seal all of ``batch`` in one block and hand out the results (callers on the loop
        thread with no producer running: start-up, the offline CLI, app creation)."""
        with self.sealing:
            results = self._seal_block(batch)
            if self.behind16 is not None:  # no producer to write them later
                self.behind16.drain(sealing_held=True)
        self._publish(batch, results)

    def _seal_block(self, batch: list[Sub], budget: float = 0.0) -> list[dict[str, Any]]:
        """Execute ``batch`` in order and commit it as the next block; with a ``budget``
        (seconds), stop after the transaction that exhausts it: only that prefix is sealed and
        its results returned (the caller re-queues the rest). Touches no future: thread-safe
        for the producer's thread, the caller holding ``self.sealing``."""
        number = self.head.number + 1
        ts = max(int(time.time()), self.head.timestamp)
        if self.world.history is not None:
            self._begin(number)
        results = []
        gas = 0
        t0 = time.monotonic()
        for i, sub in enumerate(batch):
            res = self._execute(sub, number, ts, i)
            results.append(res)
            tr = res.get("txResult")
            if isinstance(tr, dict):
                gas += int(tr.get("gasUsed", "0"), 16)
            if budget and time.monotonic() - t0 > budget:
                break
        if not results:
            return results
        batch = batch[: len(results)]
        block_hash = keccak256(
            dumps([self.head.hash, number, ts, [s.hash for s in batch]]).encode()
        ).hex()
        for res in results:
            tr = res.get("txResult")
            if isinstance(tr, dict):
                tr["blockHash"] = block_hash
        events = list(self._pending_events)
        with self.store.transaction() as db:
            fresh = [s for s in batch if not s.recorded]
            if fresh:
                self._insert_rows(db, fresh)
            db.execute(
                "INSERT INTO blocks (number, hash, parent_hash, timestamp, tx_count, gas_used) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (number, block_hash, self.head.hash, ts, len(batch), gas),
            )
            db.executemany(
                "UPDATE txs SET status=?, result=?, block_number=?, tx_index=?, nonce=? "
                "WHERE hash=?",
                [
                    (res["status"], pack_result(res, block_hash), number, i, sub.nonce, sub.hash)
                    for i, (sub, res) in enumerate(zip(batch, results, strict=True))
                ],
            )
            if events:
                db.executemany(
                    "INSERT INTO events (block_number, tx_hash, chain, address, contract, name, "
                    "args) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(number, *e) for e in events],
                )
            for cid in self.dirty_chains:
                chain = self.chains.get(cid)
                if chain is not None:
                    db.execute(
                        "INSERT OR REPLACE INTO chains VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        chain.to_row(),
                    )
            self.dirty_chains.clear()
            self._index_block(number, block_hash, ts)  # never raises: see reindex.py
            with self.code_lock:  # (``_keep_code`` adds under it)
                new_codes = [(h, *self.codes[h]) for h in self.new_codes]
                self.new_codes.clear()
            db.executemany(
                "INSERT OR IGNORE INTO codes (code_hash, vm, source) VALUES (?, ?, ?)", new_codes
            )
        self._advance(Head(number, block_hash, ts))
        self.blocks_since_snapshot += 1
        if (
            self.blocks_since_snapshot >= SNAPSHOT_EVERY_BLOCKS
            or time.monotonic() - self.last_snapshot > SNAPSHOT_EVERY_SECONDS
        ):
            self.snapshot()
        return results

    def _publish(self, batch: list[Sub], results: list[dict[str, Any]]) -> None:
        """Results of a sealed block to the cache and the waiting requests (on the event loop:
        futures are not thread-safe)."""
        for sub, res in zip(batch, results, strict=False):
            self._cache(sub.hash, res)
            if sub.future is not None and not sub.future.done():
                sub.future.set_result(res)
            for fut in self.watchers.pop(sub.hash, ()):
                if not fut.done():
                    fut.set_result(res)
