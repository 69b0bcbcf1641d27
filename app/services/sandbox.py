"""The embedded sandbox node: a child process the app starts, watches and stops.

Runs ``python -m app.node serve --port PORT`` (in a frozen bundle: the app's own executable
with ``--node serve ...``) with QProcess (no blocking, no threads), reads the
``Sandbox node listening on URL`` line, keeps the node's log, reports when it dies, and can
restart it on the same data dir (its state survives).

The port is the last run's when it is free (copied curl commands and URLs keep working), else
any free one (``--port 0``); a node that cannot bind the port it was given after all (taken
between the check and the start) is started again on a free one, never left failed.
"""

from __future__ import annotations

import asyncio
import socket
from collections import deque
from pathlib import Path
from urllib.parse import urlsplit

from platformdirs import user_data_dir
from PySide6.QtCore import QObject, QProcess, Signal

from app.launch import node_command

LISTENING = "Sandbox node listening on "
CANNOT_LISTEN = "cannot listen on "  # the node's words when its port is taken
HOST = "127.0.0.1"


def default_sandbox_dir() -> Path:
    return Path(user_data_dir("stratoscope", appauthor=False)) / "sandbox"


def port_is_free(port: int, host: str = HOST) -> bool:
    """Whether ``port`` can be bound now, as the node binds it (SO_REUSEADDR, so connections
    of a node that just stopped, in TIME_WAIT, do not count). Blocking: call off the GUI
    thread."""
    if not 0 < port < 65536:
        return False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def port_of(url: str | None) -> int | None:
    """The port of a node URL (None when it has none)."""
    try:
        return urlsplit(url or "").port
    except ValueError:
        return None


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
        self.port = 0  # the port asked for; 0: any free one
        self._proc: QProcess | None = None
        self._stopping = False
        self._out = b""
        self._bind_failed = False

    async def choose_port(self, last: object) -> int:
        """Ask for ``last`` (the previous run's port) when it is free, else any free port;
        the check binds the port briefly, in a worker thread."""
        port = last if isinstance(last, int) and not isinstance(last, bool) else 0
        if port and not await asyncio.to_thread(port_is_free, port):
            self._remember(f"port {port} of the last run is taken: the node takes a free one")
            port = 0
        self.port = port
        return port

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
                str(self.port),
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
        self._bind_failed = False
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
            self._bind_failed = self._bind_failed or CANNOT_LISTEN in line
            if line.startswith(LISTENING) and self.url is None:
                self.url = line[len(LISTENING) :].strip()
                self._set("running")
                self.ready.emit(self.url)

    def _on_stderr(self) -> None:
        assert self._proc is not None
        text = bytes(self._proc.readAllStandardError().data()).decode("utf-8", "replace")
        for line in text.splitlines():
            self._remember(line)
            self._bind_failed = self._bind_failed or CANNOT_LISTEN in line

    def _on_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        if self._stopping:
            self._set("stopped")
            return
        if self._proc is not None:
            self._on_stderr()  # what it said last (why it stopped) may not have been read yet
        if self.url is None and self.port and self._bind_failed:
            self._remember(f"port {self.port} is taken: starting the node on a free port")
            self.port = 0
            self.start()  # still "starting": whoever waits for the node keeps waiting
            return
        self._remember(f"the sandbox node exited (status {code})")
        self._set("crashed")

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self._remember(f"the sandbox node could not start: {error.name}")
            self._set("crashed")
