"""The block producer: one thread that alone executes and commits blocks, fed by the loop
through the queue, while the loop keeps serving."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
from typing import Any

from ..cirrus.behind16 import Behind16
from ..config import NodeConfig
from ..errors import ApiError
from ..store import Store
from .blocks import BlockSealer
from .common import (
    GROUP_WAIT,
    SLICE_SECONDS,
    SWITCH_INTERVAL,
    Sub,
    log,
)
from .results import Results
from .snapshots import Snapshots
from .state import ChainState
from .txqueue import TxQueue
from .watchdog import Watchdog


class Producer:
    """Takes batches from the queue and seals them, on its own thread; hands the results to
    the loop. After an internal error it stops for good (``halted`` says why)."""

    def __init__(
        self,
        config: NodeConfig,
        store: Store,
        state: ChainState,
        queue: TxQueue,
        sealer: BlockSealer,
        results: Results,
        snapshots: Snapshots,
    ) -> None:
        self.config = config
        self.store = store
        self.state = state
        self.queue = queue
        self.sealer = sealer
        self.results = results
        self.snapshots = snapshots
        self.halted: str | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # the transactions' wall-clock budget; read-only calls' worlds join it (read_call.py)
        self.watchdog = Watchdog(state.world, config.tx_time_limit)
        self.behind16: Behind16 | None = None  # set by the Ledger (cirrus/behind16.py)
        self.group_wait = GROUP_WAIT  # see TxQueue.gather
        # the last block held a transaction whose client awaits its result (resolve=true)
        self._awaited = False

    def start(self) -> None:
        """Start the block producer: one thread that alone executes and commits blocks, fed
        by the loop through the queue, while the loop keeps serving. Its results come back to
        the loop with ``call_soon_threadsafe`` (futures are not thread-safe)."""
        self._loop = asyncio.get_running_loop()
        self.state.keep_history()
        self.watchdog.start()
        # The worker holds the GIL while it executes; the loop gets it back at each switch
        # interval (5 ms by default), several times per request: a shorter one (0.5 ms,
        # common.SWITCH_INTERVAL) keeps the loop's requests fast while contracts run.
        sys.setswitchinterval(SWITCH_INTERVAL)
        self.queue.open()
        self.store.checkpoint_in_background()  # not in the blocks' commits
        # transactions recorded before a crash or shutdown are in the queue already: they
        # run first
        self._thread = threading.Thread(target=self._produce, name="block-producer", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        self.queue.close()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join)  # it ends after its slice, if any
            self._thread = None
        if self.queue.has_pending() and not self.halted:
            with contextlib.suppress(Exception):
                done = await asyncio.to_thread(self._run_slice)
                if done is not None:
                    self.results.publish(*done)
        self.watchdog.stop()
        if self.behind16 is not None:
            await asyncio.to_thread(self.behind16.stop)  # (writes what is queued)
        self.snapshots.snapshot()
        await asyncio.to_thread(self.store.checkpoint_in_background, False)

    def _produce(self) -> None:
        """The producer thread: a slice as soon as the queue holds anything. Transactions
        that arrive while a slice runs wait and go together into the next one."""
        loop = self._loop
        assert loop is not None
        behind = self.behind16
        while True:
            # (with STRATO 16's rows queued, it wakes when they are due)
            idle, closed = self.queue.wait(None if behind is None else behind.wait())
            if closed:
                return
            if behind is not None and behind.due():
                if self.queue.empty():  # then look at the queue again
                    if self._awaited:
                        # its client sends the next request once answered: one drain makes
                        # one request in ~200 wait ~13 ms, where ~1 ms steps made one in 8
                        # wait, each paying a commit (~7 % of a sequential client's rate)
                        behind.drain()
                    else:
                        # submissions (resolve=false) are answered without the producer:
                        # steps leave the loop the interpreter between them
                        behind.step()
                    continue
                if behind.must_drain():  # a busy producer's: all of them, between two blocks
                    behind.drain()
            elif self.queue.empty():  # woke a moment before the rows are due
                continue
            if idle and self.config.block_time > 0:
                time.sleep(self.config.block_time)
            elif idle and self.group_wait > 0:
                # resolve=false submissions one by one: a few share one block and one commit
                # (fewer commits for the loop's recording to wait on); not when one is awaited
                self.queue.gather(self.group_wait)
            try:
                done = self._run_slice()
            except Exception as exc:
                loop.call_soon_threadsafe(self._halt, exc)
                return
            if done is not None:
                loop.call_soon_threadsafe(self.results.publish, *done)
                try:
                    self.sealer.block_published()
                except Exception as exc:  # a snapshot that cannot be written: as a block
                    loop.call_soon_threadsafe(self._halt, exc)
                    return

    def _run_slice(self, limit: int = 2_000) -> tuple[list[Sub], list[dict[str, Any]]] | None:
        """One block, on the producer's thread: at most ``limit`` transactions and about
        ``SLICE_SECONDS`` of execution; the rest goes back to the queue, behind the other
        users' transactions (each user's own stay in order). Returns the sealed transactions
        and their results, for ``Results.publish`` on the loop."""
        batch = self.queue.take(limit)
        if not batch:
            return None
        try:
            done = self.sealer.seal(batch, SLICE_SECONDS)
        except BaseException:
            self.queue.give_back(batch)  # still Pending on disk; re-run after a restart
            raise
        self.queue.done(batch[len(done) :])
        self._awaited = any(s.resolve for s in batch[: len(done)])
        return batch[: len(done)], done

    def _halt(self, exc: BaseException) -> None:
        """A block could not be committed: stop producing rather than diverge from the disk."""
        log.critical("block production stopped: %s", exc, exc_info=exc)
        halted = f"block production stopped after an internal error ({exc}); restart the node"
        self.halted = halted
        for sub in self.queue.waiting():
            if sub.future is not None and not sub.future.done():
                sub.future.set_exception(ApiError(503, halted))
        self.results.fail_all(lambda: ApiError(503, halted))

    def run_pending(self, limit: int = 2_000) -> None:
        """Seal the head of the queue in one block now, on this thread (no producer running)."""
        batch = self.queue.take(limit)
        if batch:
            try:
                self.sealer.run_block(batch)
            except Exception:
                self.queue.give_back(batch)  # still Pending on disk; re-run after a restart
                raise
        self.queue.done([])
