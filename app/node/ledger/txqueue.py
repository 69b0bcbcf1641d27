"""The transactions waiting for a block, and their durable record (the ``txs`` rows)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

from ..store import Store
from .common import Sub, _to_address

# a transaction's row before it runs (TxQueue.row_of gives its values)
_PENDING_INTO = (
    "INTO txs (seq, hash, sender, username, type, request, status, chain, to_address, "
    "submitted_at) VALUES (?, ?, ?, ?, ?, ?, 'Pending', ?, ?, ?)"
)
PENDING_ROW = "INSERT " + _PENDING_INTO
PENDING_ROW_IF_NEW = "INSERT OR IGNORE " + _PENDING_INTO  # (the intake log's recovery)
PENDING_COLUMNS = 9


class TxQueue:
    """Transactions queued for the block producer, and the one batch it is executing.

    The loop (and worker threads preparing large requests) add; the producer's thread takes a
    batch, executes it and gives back what did not fit. A transaction whose hash is handed out
    before it runs is made durable first: recorded (its row written ``Pending``, :meth:`record`)
    or, a small ``resolve=false`` request's, in the intake log (``intakelog.py``).
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self._queue: list[Sub] = []
        self._running: list[Sub] = []  # the batch the producer's worker is executing
        # how many times each hash is queued or executing: a look-up without a walk of the
        # queue (result polls ask for a batch's hashes while thousands wait)
        self._counts: dict[str, int] = {}
        self._private: dict[str, str] = {}  # hash -> chain, of those on a private chain
        # guards the queue and ``_running``: the loop adds, the producer's thread takes
        self._cv = threading.Condition()
        self._closed = False
        self._urgent = False  # the queue holds a transaction whose request waits (resolve)

    # ------------------------------------------------------------ recording

    def record(self, subs: list[Sub]) -> None:
        """Write the rows of those of ``subs`` not recorded yet (``Pending``)."""
        with self.store.transaction() as db:
            # under the store's lock: the worker may have written some in a block meanwhile
            fresh = [s for s in subs if not s.recorded]
            if fresh:
                self.insert_rows(db, fresh)

    @staticmethod
    def row_of(s: Sub) -> tuple[Any, ...]:
        """The values of ``s``'s ``Pending`` row, in ``PENDING_ROW``'s order."""
        return (
            s.seq,
            s.hash,
            s.sender,
            s.username,
            s.type,
            s.request_json(),
            s.chain,
            _to_address(s),
            s.submitted_at,
        )

    @staticmethod
    def insert_rows(db: Any, subs: list[Sub]) -> None:
        """The ``Pending`` rows of ``subs``, in the caller's transaction."""
        for s in subs:
            s.recorded = True
        db.executemany(PENDING_ROW, [TxQueue.row_of(s) for s in subs])

    @staticmethod
    def insert_sealed(db: Any, sealed: list[tuple[Sub, tuple[Any, ...]]]) -> None:
        """The rows of transactions never recorded, written sealed (in their block's
        transaction): each with (status, result, block number, index, nonce, hash)."""
        for s, _ in sealed:
            s.recorded = True
        db.executemany(
            "INSERT INTO txs (seq, hash, sender, username, type, request, chain, to_address, "
            "submitted_at, status, result, block_number, tx_index, nonce) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (*TxQueue.row_of(s), status, result, number, index, nonce)
                for s, (status, result, number, index, nonce, _) in sealed
            ],
        )

    # ------------------------------------------------------------ the loop's side

    def put(self, subs: list[Sub]) -> None:
        """Queue transactions (recorded, or waited for) for the producer's thread."""
        with self._cv:
            self._queue.extend(subs)
            counts = self._counts
            for s in subs:
                counts[s.hash] = counts.get(s.hash, 0) + 1
                if s.chain:
                    self._private[s.hash] = s.chain
            if not self._urgent:
                self._urgent = any(s.future is not None for s in subs)
            self._cv.notify()

    def is_queued(self, tx_hash: str) -> bool:
        with self._cv:  # the producer's thread moves them from one to the other
            return tx_hash in self._counts

    def queued_among(self, hashes: Iterable[str]) -> set[str]:
        """Those of ``hashes`` queued or executing now."""
        with self._cv:
            counts = self._counts
            return {h for h in hashes if h in counts}

    def chains_among(self, hashes: Iterable[str]) -> dict[str, str]:
        """The private chains of those of ``hashes`` queued or executing now (a transaction
        of the main chain is left out)."""
        with self._cv:
            private = self._private
            return {h: private[h] for h in hashes if h in private} if private else {}

    def queued_hashes(self) -> set[str]:
        """Hashes of the transactions queued or executing now."""
        with self._cv:
            return set(self._counts)

    def has_pending(self) -> bool:
        """Transactions wait in the queue or are executing."""
        return bool(self._queue or self._running)

    def waiting(self) -> list[Sub]:
        """A copy of the queue (not the executing batch)."""
        with self._cv:
            return list(self._queue)

    def discard_async_of(self, username: str) -> list[Sub]:
        """Take ``username``'s queued ``resolve=false`` transactions out; returns them."""
        with self._cv:
            victims = [s for s in self._queue if s.username == username and not s.resolve]
            if victims:
                self._queue = [
                    s for s in self._queue if not (s.username == username and not s.resolve)
                ]
                self._forget(victims)
        return victims

    # ------------------------------------------------------------ the producer's side

    def open(self) -> None:
        """The producer starts: :meth:`wait` blocks until work or :meth:`close`."""
        with self._cv:
            self._closed = False

    def close(self) -> None:
        """The producer stops: wake it."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()

    def wait(self, timeout: float | None = None) -> tuple[bool, bool]:
        """Block until the queue holds anything or the queue is closed, or ``timeout`` seconds
        passed; returns (whether the queue was empty when called, whether it is closed)."""
        with self._cv:
            idle = not self._queue
            deadline = None if timeout is None else time.monotonic() + timeout
            while not self._queue and not self._closed:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._cv.wait(left)
            return idle, self._closed

    def empty(self) -> bool:
        """Nothing waits to be executed (the executing batch aside)."""
        with self._cv:
            return not self._queue

    def gather(self, seconds: float, enough: int = 16) -> None:
        """Wait up to ``seconds`` for more transactions to join the queued ones, so that they
        share a block (one commit): ``resolve=false`` submissions arriving one by one. Ends at
        once when a queued transaction's request waits for it (``resolve=true``, the faucet,
        the node's own), when ``enough`` are queued (a batch makes a block of its own) or the
        queue closes."""
        deadline = time.monotonic() + seconds
        with self._cv:
            while not self._closed and not self._urgent and len(self._queue) < enough:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._cv.wait(left)

    def _still_urgent(self) -> None:
        """Recompute ``_urgent`` after the queue lost some (the caller holds ``_cv``)."""
        self._urgent = any(s.future is not None for s in self._queue)

    def take(self, limit: int) -> list[Sub]:
        """The head of the queue, at most ``limit``: the batch now executing."""
        with self._cv:
            batch, self._queue = self._queue[:limit], self._queue[limit:]
            self._running = batch
            self._still_urgent()
        return batch

    def give_back(self, batch: list[Sub]) -> None:
        """The executing batch failed: back to the head of the queue (still Pending on disk;
        re-run after a restart)."""
        with self._cv:
            self._queue = batch + self._queue
            self._running = []
            self._still_urgent()

    def done(self, rest: list[Sub]) -> None:
        """The executing batch is committed but for ``rest``: it goes back behind the other
        users' transactions (each user's own stay in order)."""
        with self._cv:
            if rest:
                users = {s.username for s in rest}
                others = [s for s in self._queue if s.username not in users]
                self._queue = others + rest + [s for s in self._queue if s.username in users]
                self._still_urgent()
            # the results are committed: a reader that misses them here finds them on disk
            back = {id(s) for s in rest}
            self._forget([s for s in self._running if id(s) not in back])
            self._running = []

    def _forget(self, subs: list[Sub]) -> None:
        """``subs`` left the queue (the caller holds ``_cv``)."""
        counts = self._counts
        for s in subs:
            n = counts.get(s.hash, 0) - 1
            if n > 0:
                counts[s.hash] = n
            else:
                counts.pop(s.hash, None)
                self._private.pop(s.hash, None)
