"""Every coroutine the UI starts goes through one registry: tracked, cancellable, reported.

Closing the window calls :meth:`TaskRegistry.shutdown`, which cancels what still runs and waits
for it, so no request outlives its window; from then on the registry starts nothing (a task
finishing during the shutdown may hand on to another one, which is cancelled at once) until
:meth:`TaskRegistry.reopen` (connecting again). Failures reach the UI through one signal
(``failed(title, message, kind)``) instead of dialogs opened inside coroutines.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.client.errors import AuthError, NetworkError, StratoError, error_text
from app.client.scenario import ScenarioError

from .inspector import background_context
from .profiles import ProfileError
from .secrets import SecretStoreError

# errors whose message is written for the user; anything else is a bug and is logged in full
USER_ERRORS = (StratoError, ProfileError, SecretStoreError, ScenarioError)

log = logging.getLogger("stratoscope.services")


class TaskRegistry(QObject):
    # title, message the user can act on, kind: "auth" (sign in again), "network" (the node
    # did not answer: over once it answers again) or "error"
    failed = Signal(str, str, str)
    busy_changed = Signal(int)  # number of running tasks

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tasks: dict[asyncio.Task[Any], str] = {}
        self._closed = False  # shut down: new tasks are cancelled before they run

    @property
    def running(self) -> int:
        return len(self._tasks)

    def start(
        self,
        title: str,
        coro: Coroutine[Any, Any, Any],
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        *,
        background: str = "",
    ) -> asyncio.Task[Any]:
        """Run ``coro`` on the loop; its result goes to ``on_done``, its error (as a sentence)
        to ``on_error`` when given (a dialog showing it in place), else to ``failed``.
        ``background`` names the loop that starts it: its requests are marked as polling in
        the HTTP inspector (a task started inside a background loop is marked already)."""
        ctx = background_context(background) if background else None
        task = asyncio.get_event_loop().create_task(coro, context=ctx)
        if self._closed:
            task.cancel()  # the coroutine never starts; nobody hears of it
            return task
        self._tasks[task] = title
        self.busy_changed.emit(len(self._tasks))

        def finished(t: asyncio.Task[Any]) -> None:
            self._tasks.pop(t, None)
            self.busy_changed.emit(len(self._tasks))
            if t.cancelled():
                return
            exc = t.exception()
            if exc is None:
                if on_done is not None:
                    on_done(t.result())
                return
            if isinstance(exc, USER_ERRORS):
                text = error_text(exc)
            else:
                log.error("%s failed", title, exc_info=exc)
                text = f"unexpected error: {type(exc).__name__}: {exc}"
            if on_error is not None:
                on_error(text)
            else:
                kind = "error"
                if isinstance(exc, AuthError):
                    kind = "auth"
                elif isinstance(exc, NetworkError):
                    kind = "network"
                self.failed.emit(title, text, kind)

        task.add_done_callback(finished)
        return task

    def reopen(self) -> None:
        """Start tasks again after a shutdown (a controller that connects anew)."""
        self._closed = False

    async def shutdown(self) -> None:
        """Cancel every running task and wait until all have finished; start no more."""
        self._closed = True
        while self._tasks:  # a done callback run meanwhile may have started one before we closed
            tasks = list(self._tasks)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
