"""The embedded sandbox node: a child process the app starts, watches and stops.

Runs ``python -m app.node serve --port 0`` (in a frozen bundle: the app's own executable with
``--node serve ...``) with QProcess (no blocking, no threads), reads the
``Sandbox node listening on URL`` line, keeps the node's log, reports when it dies, and can
restart it on the same data dir (its state survives).
"""

from __future__ import annotations

import sys
from collections import deque
from pathlib import Path

from platformdirs import user_data_dir
from PySide6.QtCore import QObject, QProcess, Signal

LISTENING = "Sandbox node listening on "


def default_sandbox_dir() -> Path:
    return Path(user_data_dir("stratoscope", appauthor=False)) / "sandbox"


def node_command() -> list[str]:
    """The program and first arguments of the sandbox node's command line: ``python -m app.node``,
    or in a frozen bundle (PyInstaller sets ``sys.frozen``), which has no ``python -m``, the app's
    own executable with ``--node`` (see app/__main__.py)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--node"]
    return [sys.executable, "-m", "app.node"]


class SandboxSupervisor(QObject):
    ready = Signal(str)  # base URL
    state_changed = Signal(str)  # "stopped" | "starting" | "running" | "crashed"
    log_line = Signal(str)

    def __init__(self, data_dir: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.data_dir = data_dir or default_sandbox_dir()
        self.url: str | None = None
        self.state = "stopped"
        self.log: deque[str] = deque(maxlen=2000)
        self.extra_args: list[str] = []  # more ``serve`` options (``--gas``)
        self._proc: QProcess | None = None
        self._stopping = False
        self._out = b""

    def _set(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    def start(self) -> None:
        if self._proc is not None and self._proc.state() != QProcess.ProcessState.NotRunning:
            return
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self._remember(f"the sandbox node could not start: {self.data_dir}: {exc.strerror}")
            self._set("crashed")
            return
        proc = QProcess(self)
        program, *prefix = node_command()
        proc.setProgram(program)
        proc.setArguments(
            [
                *prefix,
                "serve",
                "--port",
                "0",
                "--data-dir",
                str(self.data_dir),
                "--exit-with-parent",  # no orphan node if the app is killed
                *self.extra_args,
            ]
        )
        proc.readyReadStandardOutput.connect(self._on_stdout)
        proc.readyReadStandardError.connect(self._on_stderr)
        proc.finished.connect(self._on_finished)
        proc.errorOccurred.connect(self._on_error)
        self._proc = proc
        self._stopping = False
        self.url = None
        self._set("starting")
        proc.start()

    def stop(self, timeout_ms: int = 10_000) -> None:
        """Ask the node to stop (SIGTERM, a clean shutdown); kill it if it does not."""
        proc = self._proc
        if proc is None or proc.state() == QProcess.ProcessState.NotRunning:
            self._set("stopped")
            return
        self._stopping = True
        proc.terminate()
        if not proc.waitForFinished(timeout_ms):
            proc.kill()
            proc.waitForFinished(2000)
        self._set("stopped")

    async def stop_async(self, timeout: float = 10.0) -> None:
        """Like :meth:`stop` without blocking the event loop while the node shuts down."""
        import asyncio

        proc = self._proc
        if proc is None or proc.state() == QProcess.ProcessState.NotRunning:
            self._set("stopped")
            return
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def finished(*_args: object) -> None:
            if not done.done():
                done.set_result(None)

        proc.finished.connect(finished)
        self._stopping = True
        proc.terminate()
        try:
            await asyncio.wait_for(done, timeout)
        except TimeoutError:
            proc.kill()
            proc.waitForFinished(2000)
        self._set("stopped")

    def restart(self) -> None:
        self.stop()
        self.start()

    def _remember(self, line: str) -> None:
        self.log.append(line)
        self.log_line.emit(line)

    def _on_stdout(self) -> None:
        assert self._proc is not None
        self._out += bytes(self._proc.readAllStandardOutput().data())
        *lines, self._out = self._out.split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "replace").rstrip()
            self._remember(line)
            if line.startswith(LISTENING) and self.url is None:
                self.url = line[len(LISTENING) :].strip()
                self._set("running")
                self.ready.emit(self.url)

    def _on_stderr(self) -> None:
        assert self._proc is not None
        text = bytes(self._proc.readAllStandardError().data()).decode("utf-8", "replace")
        for line in text.splitlines():
            self._remember(line)

    def _on_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        if self._stopping:
            self._set("stopped")
            return
        self._remember(f"the sandbox node exited (status {code})")
        self._set("crashed")

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self._remember(f"the sandbox node could not start: {error.name}")
            self._set("crashed")
