"""Transaction results: an in-memory cache in front of the database, and waiting for them."""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from ..store import Store
from .common import (
    RESULT_CACHE,
    Sub,
    pending_result,
)
from .packing import unpack_result
from .txqueue import TxQueue


class Results:
    """Results by hash (recent ones cached), and the requests waiting for queued ones.

    Futures are not thread-safe: :meth:`publish`, :meth:`settle` and :meth:`fail_all` run on
    the event loop (or on the only thread there is, with no producer running).
    """

    def __init__(self, store: Store, queue: TxQueue) -> None:
        self.store = store
        self.queue = queue
        self._cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._watchers: dict[str, list[asyncio.Future[dict[str, Any]]]] = {}

    def remember(self, tx_hash: str, res: dict[str, Any]) -> None:
        self._cache[tx_hash] = res
        if len(self._cache) > RESULT_CACHE:
            self._cache.popitem(last=False)

    def result(self, tx_hash: str) -> dict[str, Any]:
        res = self._cache.get(tx_hash)
        if res is not None:
            return res
        if self.queue.is_queued(tx_hash):  # (not committed: nothing to read on disk)
            return pending_result(tx_hash)
        row = self.store.one(
            "SELECT t.status, t.result, b.hash FROM txs t LEFT JOIN blocks b "
            "ON b.number = t.block_number WHERE t.hash=?",
            tx_hash,
        )
        if row is None or row["result"] is None:
            return pending_result(tx_hash)
        return unpack_result(row["result"], tx_hash, row["status"], row["hash"] or "")

    def results_of(self, hashes: Iterable[str]) -> list[dict[str, Any]]:
        """Results of ``hashes``: a poll for a batch still executing or queued reads nothing
        from the store, whose lock the producer holds while it commits a block."""
        hashes = list(hashes)
        cache = self._cache
        queued = self.queue.queued_among(h for h in hashes if h not in cache)
        return [
            cache.get(h) or (pending_result(h) if h in queued else self.result(h)) for h in hashes
        ]

    def queued_of(self, hashes: Iterable[str]) -> set[str]:
        """Those of ``hashes`` still queued or executing (answered ``Pending``): a client
        polling a long backlog asks for the same queued hashes again and again, and their
        answer needs neither a look-up nor a result object (see routes/tx.py)."""
        cache = self._cache
        return self.queue.queued_among(h for h in hashes if h not in cache)

    async def wait_results(self, hashes: list[str], timeout: float) -> list[dict[str, Any]]:
        """Results of ``hashes``, waiting up to ``timeout`` for queued ones (``?resolve``)."""
        queued = self.queue.queued_among(hashes)
        loop = asyncio.get_running_loop()
        futures = []
        for h in queued:
            fut: asyncio.Future[dict[str, Any]] = loop.create_future()
            self._watchers.setdefault(h, []).append(fut)
            futures.append(fut)
        if futures:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(asyncio.gather(*futures)), timeout)
        return self.results_of(hashes)

    def settle(self, tx_hash: str, res: dict[str, Any]) -> None:
        """``tx_hash`` is final with ``res``: cached, and its watchers answered."""
        self.remember(tx_hash, res)
        for fut in self._watchers.pop(tx_hash, ()):
            if not fut.done():
                fut.set_result(res)

    def publish(self, batch: list[Sub], results: list[dict[str, Any]]) -> None:
        """Results of a sealed block to the cache and the waiting requests."""
        for sub, res in zip(batch, results, strict=False):
            self.remember(sub.hash, res)
            if sub.future is not None and not sub.future.done():
                sub.future.set_result(res)
            for fut in self._watchers.pop(sub.hash, ()):
                if not fut.done():
                    fut.set_result(res)

    def fail_all(self, error: Callable[[], BaseException]) -> None:
        """Block production stopped: every waiting request gets an ``error()``."""
        for futs in self._watchers.values():
            for fut in futs:
                if not fut.done():
                    fut.set_exception(error())
        self._watchers.clear()
