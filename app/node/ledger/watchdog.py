"""The wall-clock budget of a transaction, besides its step budget."""

from __future__ import annotations

import threading
import time

from ..solidvm.runtime import ExecContext
from ..solidvm.world import World


class Watchdog:
    """Stops a transaction that outlives its wall-clock budget.

    A thread looks at the world's current execution every few milliseconds; past the budget it
    makes the execution's next step check fail with the time limit's message. The interpreter
    pays nothing per step for it, and the step budget stays the deterministic limit.
    """

    POLL = 0.01

    def __init__(self, world: World, limit: float) -> None:
        self.world = world
        self.limit = limit
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.limit > 0 and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="tx-watchdog", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        seen: ExecContext | None = None
        since = 0.0
        while not self._stop.wait(self.POLL):
            ctx = self.world.current
            now = time.monotonic()
            if ctx is not seen:
                seen, since = ctx, now
            elif ctx is not None and not ctx.overtime and now - since > self.limit:
                ctx.overtime = self.limit
                ctx.max_steps = -1  # any step check now fails with ctx.out_of_gas()
