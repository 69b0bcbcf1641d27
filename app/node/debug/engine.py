"""A debug session: one run of debug-compiled code on its own thread, paused and stepped.

The run (a call, a deploy or a ``Describe_`` test; see :mod:`.launch`) executes on the session's
thread against a world of its own (a fresh one, or a copy-on-read overlay of the node's committed
state): nothing it does reaches the chain, and while it is paused the thread waits inside the
statement hook holding no lock of the node's, so blocks, reads and the event loop keep going.

Every inspection of a paused run (stack, variables, evaluate) is a function sent to that thread
and run there, as the platform's debugger serves evaluations from its paused VM thread: frames
and storage are never read from two threads at once.

Stepping counts frames (functions and modifier bodies): step in stops at the next statement,
step over at the next one no deeper than the current frame, step out at the next one in a
shallower frame; stepping out of the outermost frame runs to the end (breakpoints still stop it).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..solidvm.runtime import Frame
from .compiler import ACTIVE, DebugUnit, StmtInfo
from .sources import SourceMap

T = TypeVar("T")

COMMAND_TIMEOUT = 10.0  # seconds an inspection waits for the paused thread
MAX_EVENTS = 2_000  # events a session keeps (outputs of a printing loop, stops)


class DebugStopped(BaseException):
    """Raised from a hook to end the run (stop, disconnect, idle timeout)."""


class NotPaused(Exception):
    """The request needs a paused run."""


@dataclass
class Breakpoint:
    file: str
    line: int
    condition: str | None = None
    verified: bool = False
    compiled_line: int | None = None
    hits: int = 0


@dataclass
class DebugFrame:
    fr: Frame
    label: str  # Contract.function, or Contract.modifier (modifier)
    kind: str  # "function" or "modifier"
    info: StmtInfo | None = None  # the statement it is at (None: none ran yet)


@dataclass
class Event:
    seq: int
    kind: str  # stopped, continued, output, terminated
    body: dict[str, Any] = field(default_factory=dict)


class DebugSession:
    """One debugged run. Control methods may be called from any thread."""

    def __init__(
        self,
        unit: DebugUnit,
        sources: SourceMap,
        plan: Callable[[DebugSession], dict[str, Any]],
        *,
        stop_on_entry: bool = False,
        pause_on_failure: bool = True,
        name: str = "debug",
    ) -> None:
        self.unit = unit
        self.sources = sources
        self.plan = plan
        self.name = name
        self.stop_on_entry = stop_on_entry
        self.pause_on_failure = pause_on_failure
        self.state = "new"  # new, running, paused, finished
        self.reason = ""
        self.description = ""
        self.result: dict[str, Any] | None = None
        self.stack: list[DebugFrame] = []
        self.breakpoints: dict[str, list[Breakpoint]] = {}  # file -> breakpoints
        self._bp_lines: dict[int, list[Breakpoint]] = {}
        self.watches: list[str] = []
        # the newest MAX_EVENTS events; ``_dropped`` older ones were let go (a run printing in a
        # loop must not grow a session without bound): an event's seq stays its place overall
        self.events: list[Event] = []
        self._dropped = 0
        self.listeners: list[Callable[[Event], None]] = []
        # called on the run's thread as it pauses and as it goes on (the node's overlay
        # unpins its committed view meanwhile)
        self.on_pause: list[Callable[[], None]] = []
        self.on_resume: list[Callable[[], None]] = []
        self.last_used = time.monotonic()
        self.created = time.time()
        self._cv = threading.Condition()
        self._commands: queue.Queue[Any] = queue.Queue()
        self._pause_req = False
        self._stop = False
        self._entry_armed = False
        self._unwinding = False
        # what the `try`s being run catch, innermost last: a failure one of them catches does
        # not stop (pause on failure stops on uncaught failures, as other debuggers do)
        self._catchers: list[Callable[[BaseException], bool]] = []
        self._step: tuple[str, int] | None = None
        self._thread: threading.Thread | None = None
        # per pause: variable references (DAP-style ids) and the frames they belong to
        self.refs: dict[int, Callable[[], list[dict[str, Any]]]] = {}
        self.pause_count = 0
        self.stopped_at = 0.0  # monotonic time of the last stop (benchmarks)

    # ------------------------------------------------------------ life cycle

    def start(self) -> None:
        self.state = "running"
        self._thread = threading.Thread(target=self._main, name=f"debug-{self.name}", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        ACTIVE.tracer = self
        try:
            result = self.plan(self)
        except DebugStopped:
            result = {"status": "stopped", "message": "the debug session was stopped"}
        except Exception as exc:  # a failure the plan did not turn into a result
            result = {"status": "failed", "message": str(exc)}
        finally:
            ACTIVE.tracer = None
        with self._cv:
            self.state = "finished"
            self._step = None
            self.stack = []
            self.result = result
        self._drain()
        msg = result.get("message") or result.get("status", "")
        self.emit("output", {"category": "console", "output": f"{msg}\n"})
        self.emit("terminated", {"result": result})

    def _drain(self) -> None:
        """Answer inspections still queued (sent as the run went on or ended): not paused."""
        while True:
            try:
                item = self._commands.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, tuple) and item[1].set_running_or_notify_cancel():
                item[1].set_exception(NotPaused("the run is finished, not paused"))

    def begin_target(self) -> None:
        """Called by a plan just before the run it was asked for (after set-up calls)."""
        self._entry_armed = self.stop_on_entry

    def output(self, text: str) -> None:
        self.emit(
            "output", {"category": "stdout", "output": text if text.endswith("\n") else text + "\n"}
        )

    def emit(self, kind: str, body: dict[str, Any]) -> None:
        with self._cv:
            ev = Event(self._dropped + len(self.events) + 1, kind, body)
            self.events.append(ev)
            if len(self.events) > MAX_EVENTS:
                cut = len(self.events) - MAX_EVENTS
                del self.events[:cut]
                self._dropped += cut
            self._cv.notify_all()
        for cb in list(self.listeners):
            cb(ev)

    def wait_events(self, after: int, timeout: float) -> list[Event]:
        """Events newer than sequence number ``after``, waiting up to ``timeout`` for one."""
        with self._cv:
            self._cv.wait_for(lambda: self.last_seq() > after, timeout)
            return self.events_after(after)

    def last_seq(self) -> int:
        return self._dropped + len(self.events)

    def events_after(self, after: int) -> list[Event]:
        """Events with a sequence number above ``after`` still kept (a reader further behind
        than MAX_EVENTS gets the oldest kept ones: it can tell from their numbers)."""
        return self.events[max(0, after - self._dropped) :]

    def wait_stopped(self, timeout: float = 10.0) -> str:
        """Wait until the run is paused or finished; the state."""
        with self._cv:
            self._cv.wait_for(lambda: self.state in ("paused", "finished"), timeout)
            return self.state

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    # ------------------------------------------------------------ control (any thread)

    def _command(self, cmd: str) -> None:
        self.last_used = time.monotonic()
        with self._cv:
            if self.state != "paused":
                raise NotPaused(f"cannot {cmd.replace('_', ' ')}: the run is {self.state}")
            self.state = "running"  # taken by the thread; inspections now wait for a pause
            self._cv.notify_all()
        self._commands.put(cmd)

    def resume(self) -> None:
        self._command("continue")

    def step_in(self) -> None:
        self._command("step_in")

    def step_over(self) -> None:
        self._command("step_over")

    def step_out(self) -> None:
        self._command("step_out")

    def pause(self) -> None:
        self.last_used = time.monotonic()
        self._pause_req = True

    def stop(self) -> None:
        """End the run: at the next statement, or now when paused."""
        self._stop = True
        with self._cv:
            paused = self.state == "paused"
            if paused:
                self.state = "running"  # until the thread has unwound and finished
        if paused:
            self._commands.put("stop")

    def on_thread(self, fn: Callable[[], T], timeout: float = COMMAND_TIMEOUT) -> T:
        """Run ``fn`` on the paused run's thread and return what it returns."""
        self.last_used = time.monotonic()
        if threading.current_thread() is self._thread:
            return fn()
        with self._cv:
            if self.state != "paused":
                raise NotPaused(f"the run is {self.state}, not paused")
        fut: Future[T] = Future()
        self._commands.put((fn, fut))
        if self.state == "finished":  # it ended between the check and the put
            self._drain()
        return fut.result(timeout)

    @property
    def stepping(self) -> int | None:
        """The platform's ``Stepping n``: the frame count below which the step stops."""
        st = self._step
        if st is None:
            return None
        mode, d = st
        return d + {"in": 2, "over": 1, "out": 0}[mode]

    # ------------------------------------------------------------ breakpoints

    def set_breakpoints(self, file: str, lines: list[tuple[int, str | None]]) -> list[Breakpoint]:
        """Replace the breakpoints of ``file`` (a line and an optional condition each)."""
        self.last_used = time.monotonic()
        span = self.sources.find(file)
        bps: list[Breakpoint] = []
        for line, cond in lines:
            bp = Breakpoint(file, line, cond or None)
            if span is not None:
                bp.compiled_line = self.sources.compiled_line(span.name, line)
                bp.verified = bp.compiled_line is not None
            bps.append(bp)
        with self._cv:
            self.breakpoints[file] = bps
            index: dict[int, list[Breakpoint]] = {}
            for group in self.breakpoints.values():
                for bp in group:
                    if bp.compiled_line is not None:
                        index.setdefault(bp.compiled_line, []).append(bp)
            self._bp_lines = index
        return bps

    def all_breakpoints(self) -> list[Breakpoint]:
        with self._cv:
            return [bp for group in self.breakpoints.values() for bp in group]

    # ------------------------------------------------------------ hooks (the run's thread)

    def enter(self, fr: Frame, label: str, kind: str) -> None:
        self.stack.append(DebugFrame(fr, label, kind))

    def leave(self, fr: Frame) -> None:
        if self.stack:
            self.stack.pop()

    def guard(self, catcher: Callable[[BaseException], bool] | None) -> None:
        """A ``try``'s guarded part starts (``catcher``: what its clauses catch) or ends."""
        if catcher is None:
            self._catchers.pop()
        else:
            self._catchers.append(catcher)

    def caught(self, exc: BaseException) -> bool:
        """Whether a ``try`` up the stack catches ``exc`` (a clause that does not hands it to
        the next one out)."""
        return any(c(exc) for c in reversed(self._catchers))

    def on_stmt(self, fr: Frame, info: StmtInfo) -> None:
        self._unwinding = False
        stack = self.stack
        if stack:
            stack[-1].info = info
        if self._stop:
            raise DebugStopped
        reason = ""
        if self._pause_req:
            reason = "pause"
        elif self._entry_armed:
            reason = "entry"
        elif self._step is not None:
            mode, depth = self._step
            d = len(stack)
            if mode == "in" or (mode == "over" and d <= depth) or (mode == "out" and d < depth):
                reason = "step"
        bps = self._bp_lines.get(info.line) if self._bp_lines else None
        if bps and reason != "pause":
            for bp in bps:
                if bp.condition is None or self._condition(bp.condition):
                    bp.hits += 1
                    reason = "breakpoint"
                    break
        if reason:
            self._entry_armed = False
            self._pause(reason)

    def on_fail(self, fr: Frame, info: StmtInfo, exc: BaseException) -> None:
        if self._unwinding or not self.pause_on_failure or self.caught(exc):
            return
        self._unwinding = True  # the outer statements it leaves do not stop again
        if self.stack:
            self.stack[-1].info = info
        self._pause("exception", str(getattr(exc, "message", None) or exc))

    def _condition(self, text: str) -> bool:
        from .inspection import evaluate_raw

        try:
            v, _ = evaluate_raw(self, 0, text)
        except Exception:
            return False  # a condition that does not evaluate does not stop
        return v is True

    def _pause(self, reason: str, description: str = "") -> None:
        self._step = None
        self._pause_req = False
        self.refs = {}
        self.pause_count += 1
        with self._cv:
            self.state = "paused"
            self.reason = reason
            self.description = description
            self._cv.notify_all()
        self.stopped_at = time.monotonic()
        for cb in self.on_pause:
            cb()
        self.emit("stopped", {"reason": reason, "description": description})
        while True:
            try:
                item = self._commands.get(timeout=0.5)
            except queue.Empty:
                if self._stop:
                    raise DebugStopped from None
                continue
            if isinstance(item, tuple):
                fn, fut = item
                if not fut.set_running_or_notify_cancel():
                    continue
                try:
                    fut.set_result(fn())
                except BaseException as exc:  # answered to the asking thread
                    fut.set_exception(exc)
                continue
            if item == "stop" or self._stop:
                raise DebugStopped
            d = len(self.stack)
            if item == "step_in":
                self._step = ("in", d)
            elif item == "step_over":
                self._step = ("over", d)
            elif item == "step_out":
                self._step = ("out", d)
            self.refs = {}
            for cb in self.on_resume:
                cb()
            self.emit("continued", {})
            return

    # ------------------------------------------------------------ positions

    def position(self, df: DebugFrame) -> dict[str, Any]:
        info = df.info
        if info is None:
            return {"name": "", "line": 0, "column": 0}
        name, line = self.sources.locate(info.line)
        return {"name": name, "line": line, "column": info.column}
