"""One app per sandbox: a second start brings the running window forward instead of showing a
window whose sandbox node cannot start ("another sandbox node is already using …", "Loading…"
for ever, and a Restart that cannot work).

The first instance listens on a local socket (QLocalServer) named after the user and the sandbox
data directory; a later start with the same data directory connects (QLocalSocket), asks the
running one to show itself, and exits. Another ``--sandbox-dir`` is another instance.
"""

from __future__ import annotations

import getpass
import hashlib
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QWidget

from app.services.sandbox import default_sandbox_dir

RAISE = b"raise\n"
CONNECT_MS = 500  # a running instance answers at once; a stale socket file refuses at once


def instance_name(sandbox_dir: Path | None) -> str:
    """The local socket's name: one per user and sandbox data directory (short enough for the
    104-byte limit of a Unix socket path)."""
    where = str((sandbox_dir or default_sandbox_dir()).expanduser().resolve())
    digest = hashlib.sha256(f"{getpass.getuser()}\0{where}".encode()).hexdigest()[:16]
    return f"stratoscope-{digest}"


class SingleInstance(QObject):
    """``claim()``: True when this process is the first (it then listens), False when another
    one runs (it has been asked to come forward). Signal: raise_requested()."""

    raise_requested = Signal()

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.server: QLocalServer | None = None

    def claim(self) -> bool:
        if self._ask_running():
            return False
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not server.listen(self.name):
            # a socket file left by a process that died: nobody answered on it, remove it
            QLocalServer.removeServer(self.name)
            if not server.listen(self.name):
                return True  # no single-instance guard, but never a reason not to start
        server.newConnection.connect(self._on_connection)
        self.server = server
        return True

    def _ask_running(self) -> bool:
        sock = QLocalSocket(self)
        sock.connectToServer(self.name)
        if not sock.waitForConnected(CONNECT_MS):
            sock.deleteLater()
            return False
        sock.write(RAISE)
        sock.waitForBytesWritten(CONNECT_MS)
        sock.disconnectFromServer()
        sock.deleteLater()
        return True

    def _on_connection(self) -> None:
        assert self.server is not None
        while (sock := self.server.nextPendingConnection()) is not None:
            sock.readyRead.connect(lambda s=sock: self._read(s))
            sock.disconnected.connect(sock.deleteLater)
            if sock.bytesAvailable():
                self._read(sock)

    def _read(self, sock: QLocalSocket) -> None:
        if RAISE.strip() in bytes(sock.readAll().data()):
            self.raise_requested.emit()

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None


def bring_forward(window: QWidget) -> None:
    """Show ``window`` in front: restored if minimized, raised, and given the keyboard (the
    window manager may only flash it in the task bar, as it does for any app asking focus)."""
    state = window.windowState()
    if state & Qt.WindowState.WindowMinimized:
        window.setWindowState(state & ~Qt.WindowState.WindowMinimized)
    window.show()
    window.raise_()
    window.activateWindow()
