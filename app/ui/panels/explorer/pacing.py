"""Pacing of the Explorer's detail reads: a detail is built only once the keyboard's selection
settles (holding an arrow key would otherwise start 2-4 reads per row passed), and the reads of
a detail that another replaced are cancelled (no late answer lands on a newer detail)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QObject, QTimer

from app.services.tasks import TaskRegistry

SETTLE_MS = 150  # a keyboard selection loads its detail this long after it last moved


class Settle(QObject):
    """One pending detail load: :meth:`later` waits until the selection has not moved for
    :data:`SETTLE_MS`; :meth:`now` (a click, Enter) loads at once and drops what was pending."""

    def __init__(self, parent: QObject | None = None, delay_ms: int = SETTLE_MS) -> None:
        super().__init__(parent)
        self._pending: Callable[[], object] | None = None
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(delay_ms)
        self.timer.timeout.connect(self._fire)

    @property
    def pending(self) -> bool:
        return self._pending is not None

    def later(self, load: Callable[[], object]) -> None:
        self._pending = load
        self.timer.start()

    def now(self, load: Callable[[], object]) -> None:
        self.cancel()
        load()

    def cancel(self) -> None:
        self.timer.stop()
        self._pending = None

    def _fire(self) -> None:
        load, self._pending = self._pending, None
        if load is not None:
            load()


class OwnedTasks:
    """The registry's ``start`` for one detail, remembering its tasks so that they can all be
    cancelled when the detail is replaced (:meth:`cancel`)."""

    def __init__(self, registry: TaskRegistry) -> None:
        self.registry = registry
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def running(self) -> int:
        return sum(1 for t in self._tasks if not t.done())

    def start(
        self,
        title: str,
        coro: Coroutine[Any, Any, Any],
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        *,
        background: str = "",
    ) -> asyncio.Task[Any]:
        task = self.registry.start(title, coro, on_done, on_error, background=background)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def cancel(self) -> None:
        for t in list(self._tasks):
            t.cancel()
        self._tasks.clear()
