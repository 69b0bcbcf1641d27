"""STRATO 16's Cirrus rows written behind the chain, many blocks in one transaction.

The platform's slipstream indexes the chain after the fact; so does the sandbox for STRATO 16's
global tables (``contract``, ``storage``, ``mapping``, ``event``, ``event_array``, their history
and views). Sealing a block takes what those rows need with the block's own values
(:attr:`Indexer16.capture`: closures over encoded values, nothing that a later block changes)
and commits the block without them; the queued blocks' writes then run in block order, many
blocks in one transaction, on the block producer's thread once ``delay`` has passed since the
oldest queued block: in steps of about a millisecond (:meth:`Behind16.step`) while no
transaction waits, or all at once (:meth:`Behind16.drain`) at such a moment after a block whose
client awaits its result (resolve=true: the producer decides, producer.py); all at once too
between two blocks of a producer that never waits, when a reader needs them, and on stop.
The seed's contract, collection and event rows go the same way (their statements are taken by
:class:`SeedWrites`, deferred.py; a drain that fails writes a block's seed rows again contract
by contract, and a contract that fails again is left to the rebuild at the next start,
``missed``). Writing many blocks' pages in one commit
instead of one commit each, off the requests' critical path, is what brings ``POST``
throughput near ``serve --cirrus-names seed``'s (``benchmarks/cirrus16_write_cost.py``).

Readers see every block committed before they asked: a Cirrus request waits for
:meth:`Behind16.caught_up` (a drain when anything is queued, usually under a millisecond), so a
client that got its ``resolve=true`` answer finds the block's rows.

Crash safety: ``meta`` keeps ``cirrus16_through``, the last block whose rows are written
(updated in the drain's own transaction). A start after a crash rebuilds the rows of the
blocks after it (:func:`catch_up`): every indexed contract changed or created since, from its
state, and those blocks' events from the node's own ``events`` table, whose rows are deleted
first (so that a rebuild never doubles one); the seed's rows the same way
(``Reindexer.catch_up_seed``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from ..gcfreeze import collector_paused
from ..store import Store
from ..text import scrubbing
from .deferred import OwnedJob, Owner, SeedWrites
from .indexer import cirrus_timestamp
from .indexer16 import AcctKey, Indexer16, no_clock
from .strato16 import physical

log = logging.getLogger("stratoscope.node")

THROUGH_KEY = "cirrus16_through"
DELAY_ENV = "STRATOSCOPE_CIRRUS16_DELAY_MS"
# a file the node writes, when it stops, the thread CPU its STRATO 16 rows took (benchmarks)
CPU_ENV = "STRATOSCOPE_CIRRUS16_CPU_FILE"
# seconds a block's STRATO 16 rows may wait (unless a reader needs them): 0.1 s drained a
# sequential client's blocks twice as often, at a per-drain cost (the transaction, the
# contracts' storage upserts, a request stalled on the sealing lock) that 0.25 s halves
# (benchmarks/cirrus16_write_cost.py: wrk -9.3 % -> -5.7 %, batched -11.6 % -> -4.1 %)
DELAY = 0.25
MAX_BLOCKS = 200  # blocks queued before they are written whatever the delay
# a drain's step, between two blocks of the producer (see step): its jobs run this long, then
# their rows are written and committed, ~1 ms in all for a sequential client's blocks
STEP_SECONDS = 0.0002

Job = Callable[[], None]


def configured_delay() -> float:
    """The delay, in seconds: :data:`DELAY`, or ``$STRATOSCOPE_CIRRUS16_DELAY_MS`` (the tests
    hold rows back for longer so that a crash finds some queued)."""
    raw = os.environ.get(DELAY_ENV, "")
    try:
        return max(0.0, float(raw) / 1000) if raw else DELAY
    except ValueError:
        return DELAY


class Behind16:
    """The queue of sealed blocks whose STRATO 16 rows are not written yet."""

    def __init__(
        self,
        ix: Indexer16,
        store: Store,
        sealing: threading.Lock,
        forget: Callable[[], None],
        publish: Callable[[], None],
        delay: float | None = None,
        max_blocks: int = MAX_BLOCKS,
        seed: SeedWrites | None = None,
        missed: Callable[[int, Owner], None] | None = None,
    ) -> None:
        self.ix = ix
        self.seed = seed  # the seed tables' row writes, behind the chain too (deferred.py)
        # a contract whose seed rows of a block failed again, alone: noted for the rebuild
        # at the next start (the Reindexer's ``cirrus_missed``), in the drain's transaction
        self.missed = missed
        self.store = store
        self.sealing = sealing  # held while the store's connection writes a block
        self.forget = forget  # after a rollback: the writers' memory of what it undid
        self.publish = publish  # after a commit: readers see the views it registered
        self.delay = configured_delay() if delay is None else delay
        self.max_blocks = max(1, max_blocks)
        self._lock = threading.Lock()
        self._draining = threading.Lock()  # one drain (or step) at a time, in block order
        self._queue: list[tuple[int, list[Job]]] = []
        self._taken: list[tuple[int, list[Job]]] = []  # a drain's blocks not written yet
        self._since = 0.0  # when the oldest queued block was sealed (monotonic)
        self._current: tuple[int, list[Job]] | None = None
        self.failed: int | None = None  # a block whose rows failed: none written until restart
        self.cpu = 0.0  # thread CPU seconds the drains took (see cpu_report)
        self.clock = time.thread_time if os.environ.get(CPU_ENV) else no_clock
        ix.clock = self.clock
        self.blocks = 0  # blocks whose rows the drains wrote

    # ------------------------------------------------------------ while sealing

    def begin(self, number: int) -> None:
        """Block ``number``'s STRATO 16 writes are taken from here on."""
        jobs: list[Job] = []
        self._current = (number, jobs)
        self.ix.capture = jobs
        if self.seed is not None:
            self.seed.capture = jobs

    def restart(self) -> None:
        """The block's Cirrus writes were rolled back: what was taken for it too."""
        self.drop_from(0)

    def taken(self) -> int:
        """How many jobs the block being sealed has taken so far (see :meth:`drop_from`)."""
        return len(self._current[1]) if self._current is not None else 0

    def drop_from(self, mark: int) -> None:
        """The block's writes since :meth:`taken` gave ``mark`` were rolled back (one
        contract's, in a savepoint): the jobs taken since too."""
        if self._current is not None:
            del self._current[1][mark:]

    def end(self) -> None:
        """The block's writes are taken: queued (it is committed right after)."""
        self.ix.capture = None
        if self.seed is not None:
            self.seed.capture = None
        cur, self._current = self._current, None
        if cur is None or not cur[1]:
            return
        with self._lock:
            if not self._queue:
                self._since = time.monotonic()
            self._queue.append(cur)

    # ------------------------------------------------------------ when to write

    def pending(self) -> bool:
        """Blocks whose rows are not committed yet (queued, or a drain's not written yet)."""
        with self._lock:
            return bool(self._queue or self._taken)

    def wait(self) -> float | None:
        """Seconds until a drain is due (0: now, or a drain is under way), None when nothing is
        queued."""
        with self._lock:
            return self._wait()

    def due(self) -> bool:
        w = self.wait()
        return w is not None and w <= 0

    def must_drain(self) -> bool:
        """Due, for a producer with transactions waiting: a drain is due and none is under way
        in steps (a producer that never waits drains between two blocks), or ``max_blocks``
        wait whatever is under way (the steps fell behind)."""
        with self._lock:
            if len(self._taken) + len(self._queue) >= self.max_blocks:
                return True
            return not self._taken and self._wait() == 0.0

    def _wait(self) -> float | None:
        if self._taken:
            return 0.0
        if not self._queue:
            return None
        if len(self._queue) >= self.max_blocks:
            return 0.0
        return max(0.0, self._since + self.delay - time.monotonic())

    # ------------------------------------------------------------ writing

    def step(self, budget: float = STEP_SECONDS) -> None:
        """One step of a drain, on the producer's thread while no transaction waits (see
        Producer): the jobs of the oldest blocks taken, for about ``budget`` seconds (one
        block at least), then their rows written with the mark, in one transaction; a drain's
        first step takes the queue. A request that arrives meanwhile waits for one step
        (~1 ms), not for the whole drain: a quarter second of a sequential client's blocks
        took ~5 ms, written at once, which was its requests' p99. And no thread of its own
        wants the interpreter while the loop and the producer serve a request."""
        with self._draining:
            with self._lock:
                if not self._taken:
                    self._taken, self._queue = self._queue, []
                taken = self._taken
            rest = taken  # (interrupted: they stay taken, for the next step)
            try:
                if taken:
                    with self.sealing:
                        rest = self._write_taken(taken, True, time.monotonic() + budget)
            finally:
                with self._lock:
                    self._taken = rest

    def drain(self, sealing_held: bool = False) -> None:
        """Write every queued block's rows, in block order, in one transaction (a drain under
        way: the rest of it too). Never raises: a batch that fails is written block by block,
        and a block that fails again is logged and left to the rebuild at the next start
        (``cirrus16_through`` stays before it). ``sealing_held``: the caller holds
        ``sealing`` (else it is taken to forget, after a failure, what the rollback undid:
        the producer must not be sealing meanwhile)."""
        with self._draining:
            with self._lock:
                self._taken = taken = self._taken + self._queue
                self._queue = []
            if taken:
                # with the cyclic collector paused: a drain allocates thousands of objects a
                # block, whose young passes (16-23 ms of a gen1 pass, interpreter lock held)
                # were the worst stalls of the loop while a Cirrus read drained 150 blocks;
                # what the drain made is garbage by its end, freed by reference counting
                with collector_paused():
                    self._write_taken(taken, sealing_held)
            with self._lock:  # (interrupted: they stay taken, for the next drain)
                self._taken = []

    def stop(self) -> None:
        """The producer stops: write what is queued."""
        self.drain()
        self.cpu_report()

    def cpu_report(self) -> None:
        """With ``$STRATOSCOPE_CIRRUS16_CPU_FILE`` set: the thread CPU the STRATO 16 rows took
        (capture while sealing, drains), written there as JSON. A figure of the work itself,
        which a loaded machine does not swamp as it does throughput
        (``benchmarks/cirrus16_write_cost.py``)."""
        path = os.environ.get(CPU_ENV, "")
        if not path:
            return
        report = {"capture": self.ix.cpu, "writer": self.cpu, "blocks": self.blocks}
        try:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(report, f)
        except OSError as exc:
            log.warning("could not write %s: %s", path, exc)

    def _write_taken(
        self, queued: list[tuple[int, list[Job]]], sealing_held: bool, until: float = 0.0
    ) -> list[tuple[int, list[Job]]]:
        """Write ``queued``; with ``until`` (a ``time.monotonic`` deadline), only the blocks
        begun before it (one at least): returns the blocks left."""
        started = self.clock()
        done = len(queued)
        try:
            if queued and self.failed is None:
                done = self._write(queued, sealing_held, until)
        finally:
            self.cpu += self.clock() - started
            self.blocks += done
        return queued[done:] if self.failed is None else []

    def _forget(self, sealing_held: bool) -> None:
        if sealing_held:
            self.forget()
        else:
            with self.sealing:
                self.forget()

    def _write(
        self, queued: list[tuple[int, list[Job]]], sealing_held: bool, until: float = 0.0
    ) -> int:
        """Write the queued blocks in one transaction (with ``until``, those begun before it);
        if that fails, all of them block by block. Returns how many were written or failed."""
        done = 0
        try:
            with self.store.transaction() as db:
                seed = self.seed
                self.ix.begin_batch()
                if seed is not None:
                    seed.begin_batch()
                try:
                    for _, jobs in queued:
                        for job in jobs:
                            job()
                        done += 1
                        if until and time.monotonic() >= until:
                            break
                    if seed is not None:
                        seed.write_batch()
                    self.ix.write_batch()
                finally:
                    if seed is not None:
                        seed.end_batch()
                    self.ix.end_batch(write=False)
                self._through(db, queued[done - 1][0])
            self.publish()
            return done
        except Exception as exc:
            self._forget(sealing_held)
            log.warning(
                "writing STRATO 16's rows of blocks %d-%d at once failed (%s: %s); "
                "writing them block by block",
                queued[0][0],
                queued[-1][0],
                type(exc).__name__,
                exc,
            )
        for number, jobs in queued:
            try:
                try:
                    with self.store.transaction() as db, scrubbing(db):
                        for job in jobs:
                            job()
                        self._through(db, number)
                except Exception:
                    self._forget(sealing_held)
                    if not any(isinstance(j, OwnedJob) for j in jobs):
                        raise
                    with self.store.transaction() as db, scrubbing(db):
                        self._write_by_contract(db, number, jobs)
                        self._through(db, number)
                self.publish()
            except Exception:
                self._forget(sealing_held)
                log.exception(
                    "writing STRATO 16's rows of block %d failed; they are rebuilt at the "
                    "next start",
                    number,
                )
                # the later blocks wait for the rebuild too (their rows build on this one's):
                # ``cirrus16_through`` stays before this block until the next start
                self.failed = number
                log.warning(
                    "STRATO 16's rows of block %d and later wait for the next start", number
                )
                return len(queued)
        return len(queued)

    def _write_by_contract(self, db: Any, number: int, jobs: list[Job]) -> None:
        """Block ``number``'s jobs again, the seed's rows one contract at a time, each in its
        own savepoint: a contract whose rows fail again loses this block's seed rows (noted
        for the rebuild at the next start), the others keep theirs; then STRATO 16's."""
        seed = [j for j in jobs if isinstance(j, OwnedJob)]
        owners: dict[Owner, None] = {}
        for j in seed:
            owners.update(dict.fromkeys(j.owners()))
        for owner in owners:
            db.execute("SAVEPOINT seed_one")
            try:
                for j in seed:
                    j.run_for(owner)
            except Exception:
                db.execute("ROLLBACK TO seed_one")
                log.exception(
                    "writing the Cirrus rows of contract %s (chain %r) in block %d failed; "
                    "they are rebuilt at the next start",
                    owner[1],
                    owner[0],
                    number,
                )
                if self.missed is not None:
                    self.missed(number, owner)
            finally:
                db.execute("RELEASE seed_one")
        for job in jobs:
            if not isinstance(job, OwnedJob):
                job()

    async def caught_up(self) -> None:
        """Return once the rows of every block committed before the call are written (a
        reader of STRATO 16's tables waits for this: read-your-writes)."""
        if self.pending():  # (being written: drain waits for that drain's commit)
            await asyncio.to_thread(self.drain)

    def _through(self, db: Any, number: int) -> None:
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET "
            "value = excluded.value WHERE CAST(value AS INTEGER) < CAST(excluded.value AS INTEGER)",
            (THROUGH_KEY, str(number)),
        )


# ------------------------------------------------------------ at start


Contract = tuple[AcctKey, Any, int]  # (key, account, the last block that changed or created it)


def catch_up(
    ix: Indexer16,
    store: Store,
    head: int,
    contracts: Iterable[Contract],
    tracked_vars: Callable[[Any], Iterable[Any]],
) -> int:
    """Rebuild the STRATO 16 rows of the blocks after ``cirrus16_through`` (queued when the
    node stopped without writing them: a crash), up to ``head``; then ``cirrus16_through`` is
    ``head``. ``contracts``: the indexed contracts with the last block that changed them.
    Returns how many blocks were rebuilt. A data dir without the entry (written before
    rows went behind the chain, or just rebuilt whole) has nothing to rebuild."""
    raw = store.get_meta(THROUGH_KEY)
    through = int(raw) if raw is not None and raw.isdigit() else head
    with store.transaction() as db, scrubbing(db):
        if through < head:
            _rebuild(ix, store, through, contracts, tracked_vars)
        db.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (THROUGH_KEY, str(head))
        )
    if through < head:
        log.info("Cirrus: rebuilt STRATO 16's rows of blocks %d-%d", through + 1, head)
    return max(0, head - through)


def _block(store: Store, number: int) -> tuple[int, str, int]:
    b = store.one("SELECT hash, timestamp FROM blocks WHERE number=?", number)
    return (number, str(b["hash"]) if b else "", int(b["timestamp"]) if b else 0)


def _rebuild(
    ix: Indexer16,
    store: Store,
    through: int,
    contracts: Iterable[Contract],
    tracked_vars: Callable[[Any], Iterable[Any]],
) -> None:
    db = store.db
    for table in ("event", "event_array"):
        db.execute(
            f"DELETE FROM {physical(table)} WHERE CAST(block_number AS INTEGER) > ?", (through,)
        )
    for key, acct, last in sorted(contracts, key=lambda c: (c[2], c[0])):
        if last <= through:
            continue
        block = _block(store, last)
        ix.adopt(key, acct)  # its stamps (kept once) and views
        ix.flush(block, [key], [], {})
        stamped = (block[1], cirrus_timestamp(block[2]), block[0])
        for cv in tracked_vars(acct):
            ix.write_entries(acct, cv, None, stamped)
    for number, rows, senders in events_after(store, through):
        ix.flush(_block(store, number), [], rows, senders)


RecordedEvent = tuple[str, str, str, str, str, str]  # tx hash, chain, address, contract, name, args


def events_after(
    store: Store, through: int
) -> list[tuple[int, list[RecordedEvent], dict[str, str]]]:
    """The node's recorded events of the blocks after ``through``, block by block in order:
    (number, its events in order, each of their transactions' sender): what a rebuild of
    Cirrus rows reads."""
    by_block: dict[int, list[Any]] = {}
    for e in store.all(
        "SELECT e.block_number, e.tx_hash, e.chain, e.address, e.contract, e.name, e.args, "
        "t.sender FROM events e LEFT JOIN txs t ON t.hash = e.tx_hash WHERE e.block_number > ? "
        "ORDER BY e.id",
        through,
    ):
        by_block.setdefault(int(e[0]), []).append(tuple(e))
    out = []
    for number, evs in sorted(by_block.items()):
        senders = {str(e[1]): str(e[7] or "") for e in evs}
        rows = [(str(e[1]), str(e[2]), str(e[3]), str(e[4]), str(e[5]), str(e[6])) for e in evs]
        out.append((number, rows, senders))
    return out
