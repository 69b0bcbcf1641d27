"""The `Describe_*` test runs of the composer's Tests view: discovery and runs as Qt signals.

The runner (app/client/test_runner.py) is pure async; this service gives it the session's client
(the node the app is connected to, sandbox or real), owns the one run task (a new run cancels the
one before; Stop cancels it) and turns its events into signals. Events of a run that was stopped
or replaced never reach the view: each run has a number, and only the current one speaks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.client.test_runner import (
    CompileFailure,
    Discovered,
    RunEvent,
    RunReport,
    TestFinished,
    TestRunner,
    TestStarted,
    discover,
)

from .session import Session
from .tasks import TaskRegistry


class TestRunService(QObject):
    """Signals:
    discovered(list, list): test cases and compile failures found in the files (no node used).
    run_started(object): the test ids about to run (a frozenset; empty: every test found).
    run_discovered(list): the test cases the run found in its files (before running them).
    case_started(object): a ``TestCase`` began.
    case_finished(object): its ``TestOutcome``.
    compile_failed(object): a ``CompileFailure`` met while running.
    run_finished(object): the ``RunReport`` once all ran.
    run_stopped(): the run was stopped (Stop) before it ended.
    run_failed(str): it could not run (not connected, node unreachable ...), in words.
    running_changed(bool)
    """

    __test__ = False  # not a pytest test class despite the name

    discovered = Signal(list, list)
    run_started = Signal(object)
    run_discovered = Signal(list)
    case_started = Signal(object)
    case_finished = Signal(object)
    compile_failed = Signal(object)
    run_finished = Signal(object)
    run_stopped = Signal()
    run_failed = Signal(str)
    running_changed = Signal(bool)

    def __init__(self, session: Session, tasks: TaskRegistry, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.tasks = tasks
        self.runs = 100  # generated vectors per property test
        self._run: asyncio.Task[Any] | None = None
        self._discovery: asyncio.Task[Any] | None = None
        self._generation = 0  # the current run's number; older runs' events are dropped

    @property
    def running(self) -> bool:
        return self._run is not None

    # ------------------------------------------------------------ discovery

    def discover(self, paths: Sequence[Path], sources: Mapping[str, str] | None = None) -> None:
        """Find the tests in ``paths`` (parsing happens on a worker thread); a newer discovery
        replaces one still going."""
        if self._discovery is not None:
            self._discovery.cancel()

        def found(result: tuple[list[Any], list[Any]]) -> None:
            self._discovery = None
            cases, failures = result
            self.discovered.emit(list(cases), list(failures))

        self._discovery = self.tasks.start(
            "Finding tests",
            asyncio.to_thread(discover, list(paths), dict(sources) if sources else None),
            on_done=found,
            on_error=self.run_failed.emit,
        )

    # ------------------------------------------------------------ runs

    def run(
        self,
        paths: Sequence[Path],
        select: Collection[str] | None = None,
        sources: Mapping[str, str] | None = None,
    ) -> None:
        """Run the tests of ``paths`` (only the ids in ``select`` when given) on the connected
        node; a run still going is cancelled first."""
        self._cancel()
        client = self.session.client
        if client is None:
            self.run_failed.emit("not connected to a node: connect first, then run the tests")
            return
        self._generation += 1
        generation = self._generation
        runner = TestRunner(client, runs=self.runs)

        def on_event(event: RunEvent) -> None:
            if generation == self._generation:
                self._emit(event)

        def done(report: RunReport) -> None:
            if generation == self._generation:
                self._ended()
                self.run_finished.emit(report)

        def failed(text: str) -> None:
            if generation == self._generation:
                self._ended()
                self.run_failed.emit(text)

        self.run_started.emit(frozenset(select or ()))
        self._run = self.tasks.start(
            "Running tests",
            runner.run(
                list(paths),
                select=set(select) if select is not None else None,
                sources=dict(sources) if sources else None,
                on_event=on_event,
            ),
            on_done=done,
            on_error=failed,
        )
        self.running_changed.emit(True)

    def stop(self) -> None:
        """Cancel the run (its tasks end; what it sent stays on the node)."""
        if self._run is None:
            return
        self._cancel()
        self.run_stopped.emit()

    def _cancel(self) -> None:
        if self._run is not None:
            self._run.cancel()
            self._generation += 1  # whatever the cancelled run still says is dropped
            self._ended()

    def _ended(self) -> None:
        self._run = None
        self.running_changed.emit(False)

    def _emit(self, event: RunEvent) -> None:
        if isinstance(event, TestStarted):
            self.case_started.emit(event.case)
        elif isinstance(event, TestFinished):
            self.case_finished.emit(event.outcome)
        elif isinstance(event, CompileFailure):
            self.compile_failed.emit(event)
        elif isinstance(event, Discovered):
            self.run_discovered.emit(list(event.cases))
