"""The wall-clock budget of a transaction, besides its step budget."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

from ..solidvm.runtime import ExecContext
from ..solidvm.world import World


class Watchdog:
    """Stops a transaction that outlives its wall-clock budget.

    A thread looks at the world's current execution every few milliseconds; past the budget it
    makes the execution's next step check fail with the time limit's message. The interpreter
    pays nothing per step for it, and the step budget stays the deterministic limit. The same
    thread watches the worlds of read-only calls for as long as they run (:meth:`watching`):
    one thread for the node, not one per call.
    """

    POLL = 0.01

    def __init__(self, world: World, limit: float) -> None:
        self.world = world
        self.limit = limit
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # ``_thread`` and ``_others``
        self._others: dict[int, World] = {}  # by id: the worlds of read-only calls running

    def start(self) -> None:
        with self._lock:
            if self.limit > 0 and self._thread is None:
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name="tx-watchdog", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
            self._stop.set()
        if thread is not None:
            thread.join()

    @contextlib.contextmanager
    def watching(self, world: World) -> Iterator[None]:
        """``world``'s executions held to the budget too meanwhile (a read-only call's)."""
        self.start()  # (started with the producer; also for a ledger that was not)
        key = id(world)
        with self._lock:
            self._others[key] = world
        try:
            yield
        finally:
            with self._lock:
                self._others.pop(key, None)

    def _run(self) -> None:
        seen: dict[int, tuple[ExecContext | None, float]] = {}  # by world: context, since
        while not self._stop.wait(self.POLL):
            with self._lock:
                worlds = [self.world, *self._others.values()]
            now = time.monotonic()
            for world in worlds:
                ctx = world.current
                key = id(world)
                was = seen.get(key)
                if was is None or was[0] is not ctx:
                    seen[key] = (ctx, now)
                elif ctx is not None and not ctx.overtime and now - was[1] > self.limit:
                    ctx.overtime = self.limit
                    ctx.max_steps = -1  # any step check now fails with ctx.out_of_gas()
            if len(seen) > len(worlds):  # worlds no longer watched (their ids may be reused)
                keep = {id(w) for w in worlds}
                seen = {k: v for k, v in seen.items() if k in keep}
