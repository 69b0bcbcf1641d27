"""Transaction results: an in-memory cache in front of the database, and waiting for them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

from .base import LedgerBase
from .common import (
    RESULT_CACHE,
    pending_result,
)
from .packing import unpack_result


class LedgerResults(LedgerBase):
    """Transaction results."""

    def _cache(self, tx_hash: str, res: dict[str, Any]) -> None:
        self.results[tx_hash] = res
        if len(self.results) > RESULT_CACHE:
            self.results.popitem(last=False)

    def result(self, tx_hash: str) -> dict[str, Any]:
        res = self.results.get(tx_hash)
        if res is not None:
            return res
        row = self.store.one(
            "SELECT t.status, t.result, b.hash FROM txs t LEFT JOIN blocks b "
            "ON b.number = t.block_number WHERE t.hash=?",
            tx_hash,
        )
        if row is None or row["result"] is None:
            return pending_result(tx_hash)
        return unpack_result(row["result"], tx_hash, row["status"], row["hash"] or "")

    def results_of(self, hashes: Iterable[str]) -> list[dict[str, Any]]:
        return [self.result(h) for h in hashes]

    def is_queued(self, tx_hash: str) -> bool:
        with self.queue_cv:  # the producer's thread moves them from one to the other
            return any(s.hash == tx_hash for s in self.running) or any(
                s.hash == tx_hash for s in self.queue
            )

    def has_pending(self) -> bool:
        """Transactions wait in the queue or are executing."""
        return bool(self.queue or self.running)

    async def wait_results(self, hashes: list[str], timeout: float) -> list[dict[str, Any]]:
        """Results of ``hashes``, waiting up to ``timeout`` for queued ones (``?resolve``)."""
        with self.queue_cv:  # the producer's thread moves them from one to the other
            queued = {s.hash for s in self.queue} | {s.hash for s in self.running}
        loop = asyncio.get_running_loop()
        futures = []
        for h in set(hashes) & queued:
            fut: asyncio.Future[dict[str, Any]] = loop.create_future()
            self.watchers.setdefault(h, []).append(fut)
            futures.append(fut)
        if futures:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(asyncio.gather(*futures)), timeout)
        return self.results_of(hashes)
