"""One step-debugger session of the composer, as Qt signals.

The client (:mod:`app.client.debug`) is pure async; this object owns its tasks: the start, the
long poll of the session's events (a background task, so the HTTP inspector marks it polling),
the commands. A stop is followed by the call stack (``stopped(frames, reason, description)``),
so the view has what to show in one signal. Reads of a paused run (scopes, variables, evaluate)
are coroutines the view runs through the task registry with its own callbacks.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.client.debug import DebugClient
from app.client.errors import StratoError, error_text

from .session import Session
from .tasks import TaskRegistry


class DebugService(QObject):
    """Signals:
    started(str): the session's id on the node.
    stopped(list, str, str): the call stack (innermost first), the reason, its description.
    continued(): the run goes on (the view clears the current line).
    output(str): a line of the run's output (``log``, the result).
    finished(object): the run ended: the node's ``result`` (``{"ok", "message", ...}`` or None).
    failed(str): it could not start or the node stopped answering, in words.
    active_changed(bool): a session is open (started, not finished).
    """

    started = Signal(str)
    stopped = Signal(list, str, str)
    continued = Signal()
    output = Signal(str)
    finished = Signal(object)
    failed = Signal(str)
    active_changed = Signal(bool)

    def __init__(self, session: Session, tasks: TaskRegistry, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.tasks = tasks
        self.client: DebugClient | None = None
        self.paused = False
        self._poll: asyncio.Task[Any] | None = None
        self.option_sent: asyncio.Task[Any] | None = None  # the last switch sent to the run

    @property
    def active(self) -> bool:
        return self.client is not None

    def start(self, launch: dict[str, Any]) -> None:
        """Start a session (the launch body of ``POST /vm-debug/sessions``); one at a time:
        a session still open is stopped first."""
        if self.session.client is None:
            self.failed.emit("not connected to a node")
            return
        old = self.client
        client = DebugClient(self.session.client)
        self.client = client
        self.paused = False
        self.active_changed.emit(True)

        async def run() -> dict[str, Any]:
            if old is not None:
                with contextlib.suppress(StratoError):  # the old one is gone either way
                    await old.stop()
            return await client.start(launch)

        def done(summary: dict[str, Any]) -> None:
            if self.client is client:
                self.started.emit(client.sid)
                self._poll = self.tasks.start(
                    "Following the debug session", self._follow(client), background="debugger"
                )

        self.tasks.start("Starting the debugger", run(), on_done=done, on_error=self._fail)

    def _fail(self, text: str) -> None:
        self._end()
        self.failed.emit(text)

    def _end(self) -> None:
        was = self.client is not None
        self.client = None
        self.paused = False
        if was:
            self.active_changed.emit(False)

    async def _follow(self, client: DebugClient) -> None:
        after = 0
        while self.client is client:
            try:
                events = await client.events(after, wait=20)
            except StratoError as exc:
                if self.client is client:
                    self._fail(error_text(exc))
                return
            for ev in events:
                after = ev.seq
                if self.client is not client:
                    return
                if ev.kind == "stopped":
                    frames = await client.frames()
                    self.paused = True
                    self.stopped.emit(
                        frames, str(ev.body.get("reason", "")), str(ev.body.get("description", ""))
                    )
                elif ev.kind == "continued":
                    self.paused = False
                    self.continued.emit()
                elif ev.kind == "output":
                    self.output.emit(str(ev.body.get("output", "")))
                elif ev.kind == "terminated":
                    self._end()
                    self.finished.emit(ev.body.get("result"))
                    with contextlib.suppress(StratoError):  # a finished one still counts
                        await client.stop()  # against the node's sessions per user
                    return

    # ------------------------------------------------------------ commands

    def command(self, action: str) -> None:
        """``continue``, ``next``, ``stepIn``, ``stepOut`` (while paused) or ``stop``."""
        client = self.client
        if client is None or (action != "stop" and not self.paused):
            return
        if action == "stop":
            self._end()
            self.finished.emit(None)
            self.tasks.start("Stopping the debugger", client.stop(), on_error=self.failed.emit)
            return
        self.paused = False
        self.continued.emit()
        self.tasks.start(f"Debugger: {action}", client.control(action), on_error=self.failed.emit)

    def set_pause_on_failure(self, on: bool) -> None:
        """The switch changed during a session: the run follows it (the next launch too)."""
        client = self.client
        if client is not None and client.sid:
            self.option_sent = self.tasks.start(
                "Debugger: pause on failure",
                client.set_pause_on_failure(on),
                on_error=self.failed.emit,
            )

    # ------------------------------------------------------------ reads (while paused)

    async def scopes(self, frame: int) -> list[dict[str, Any]]:
        return [] if self.client is None else await self.client.scopes(frame)

    async def variables(self, ref: int) -> list[dict[str, Any]]:
        return [] if self.client is None else await self.client.variables(ref)

    async def evaluate(self, expression: str, frame: int) -> dict[str, Any]:
        if self.client is None:
            raise StratoError("no debug session is paused")
        return await self.client.evaluate(expression, frame)

    async def shutdown(self) -> None:
        """Stop the session on the node (the window closes)."""
        client = self.client
        self._end()
        if client is not None:
            with contextlib.suppress(StratoError):
                await client.stop()
