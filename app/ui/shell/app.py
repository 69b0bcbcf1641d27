"""Start the desktop app: QApplication, the qasync loop, the controller and the main window.

The window is shown before anything touches the network or the disk; connecting (and starting
the embedded sandbox) runs as the first task on the loop. On the first run the welcome (and its
guided tour) follows once that task ends. ``--self-test`` checks the installation instead.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

BENCH_ENV = "STRATOSCOPE_BENCH_REPORT"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="stratoscope", description="Stratoscope desktop app")
    p.add_argument("--config-dir", type=Path, help="where profiles and settings live")
    p.add_argument("--sandbox-dir", type=Path, help="data dir of the embedded sandbox node")
    p.add_argument(
        "--theme",
        choices=("system", "light", "dark"),
        help="colour scheme (default: the one chosen last in View > Theme, else the system's)",
    )
    p.add_argument(
        "--self-test",
        action="store_true",
        help="check Qt, the secret store and the embedded node (headless), print the results, exit",
    )
    return p.parse_args(argv)


if TYPE_CHECKING:
    from app.ui.shell.main_window import MainWindow

# qtawesome: the icons, set just after the window shows (~0.1 s to import)
WARM_IMPORTS = (
    "anyio._backends._asyncio",
    "httpcore",
    "h11",
    "segno",
    "segno.encoder",
    "qtawesome",
)


def _warm_imports() -> None:
    """Import what the first request and the first paint need, off the GUI thread (importing
    anyio's backend on first use stalled the loop ~30 ms)."""
    import contextlib
    import importlib

    os.environ.setdefault("QT_API", "pyside6")  # qtawesome's Qt shim: our binding
    for name in WARM_IMPORTS:
        with contextlib.suppress(ImportError):  # an optional speed-up only
            importlib.import_module(name)


def _start_warm_imports() -> None:
    import threading

    threading.Thread(target=_warm_imports, name="stratoscope-warm", daemon=True).start()


def _end_on_signals(window: MainWindow) -> None:
    """SIGTERM and SIGINT close the window as Ctrl+Q does, without questions (the app used to
    ignore SIGTERM at logout or from ``kill``). Python runs a signal handler only when it next
    runs bytecode, and Qt's loop may sleep in C++ for long: the signal also writes to a socket
    whose notifier wakes Qt at once."""
    import signal
    import socket

    from PySide6.QtCore import QSocketNotifier, QTimer

    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    signal.set_wakeup_fd(writer.fileno())
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, window)

    def drain() -> None:
        with contextlib.suppress(OSError):
            reader.recv(64)

    def release() -> None:
        signal.set_wakeup_fd(-1)
        reader.close()
        writer.close()

    notifier.activated.connect(drain)
    window.destroyed.connect(release)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: QTimer.singleShot(0, window.quit_without_questions))


def _freeze_startup_objects() -> None:
    import gc

    gc.freeze()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.self_test:
        from app.ui.shell.self_test import main as self_test

        return self_test()
    _start_warm_imports()
    import qasync
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.services.controller import AppController
    from app.ui.shell.gui_gc import collect_in_gui_thread
    from app.ui.shell.icons import APP_ID, app_icon
    from app.ui.shell.main_window import MainWindow
    from app.ui.shell.screen_fit import fit_dialogs
    from app.ui.shell.theme import apply_theme
    from app.ui.shell.welcome_dialog import welcome_after

    app = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(app, QApplication)
    collect_in_gui_thread(app)  # a worker thread must never free Qt objects
    app.setApplicationName("Stratoscope")
    app.setOrganizationName("Stratoscope")
    app.setDesktopFileName(APP_ID)  # packaging/<APP_ID>.desktop: the desktop's icon and name
    app.setWindowIcon(app_icon())
    from app.ui.shell.single_instance import SingleInstance, bring_forward, instance_name

    instance = SingleInstance(instance_name(args.sandbox_dir))
    if not instance.claim():
        print("Stratoscope is already running with this sandbox: its window was brought forward.")
        return 0
    apply_theme(app, args.theme or "system")
    fit_dialogs(app)  # dialogs stay on a small screen, frame included
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    loop.set_default_executor(ThreadPoolExecutor(4, thread_name_prefix="stratoscope-io"))

    controller = AppController(config_directory=args.config_dir, sandbox_dir=args.sandbox_dir)
    window = MainWindow(controller)
    window.follow_saved_theme = args.theme is None
    instance.raise_requested.connect(functools.partial(bring_forward, window))
    bench = BenchProbe(os.environ.get(BENCH_ENV), controller, window)
    window.show()
    QTimer.singleShot(0, bench.shown)
    # Start-up objects (Qt wrappers, modules, icons) live as long as the app: keep them out of
    # the full collections that otherwise walk them all and stall the GUI thread 30-130 ms.
    QTimer.singleShot(5000, _freeze_startup_objects)

    done = asyncio.Event()
    app.aboutToQuit.connect(done.set)
    _end_on_signals(window)
    connecting = controller.tasks.start("Connecting", controller.start())
    if not bench.path:  # the benchmark measures the window, not the welcome
        welcome_after(window, connecting)
    with loop:
        loop.run_until_complete(done.wait())
    # Tear Qt objects down while the interpreter is whole: left to the final garbage
    # collection, PySide6 6.12 can free them in an order that aborts the process.
    instance.close()
    instance.raise_requested.disconnect()
    window.deleteLater()
    controller.deleteLater()
    del window, controller, bench
    app.processEvents()
    import gc

    gc.collect()
    return 0


class BenchProbe:
    """With ``STRATOSCOPE_BENCH_REPORT=FILE``: measures when the window shows, when the account
    panel is filled, and the longest event-loop stall, writes them to FILE and closes the app."""

    def __init__(self, path: str | None, controller: object, window: object) -> None:
        self.path = path
        if not path:
            return
        from PySide6.QtCore import QTimer

        from app.services.account import AccountView
        from app.services.controller import AppController
        from app.ui.shell.main_window import MainWindow

        assert isinstance(controller, AppController) and isinstance(window, MainWindow)
        self.window = window
        self.t_shown: float | None = None
        self.t_ready: float | None = None
        self.max_stall = 0.0
        self._last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._beat)
        self.timer.start()

        def on_view(view: AccountView) -> None:
            if self.t_ready is None and view.loaded and view.balance is not None:
                self.t_ready = time.time()
                QTimer.singleShot(300, self._finish)  # keep measuring stalls a little longer

        controller.account.changed.connect(on_view)

    def _beat(self) -> None:
        now = time.perf_counter()
        self.max_stall = max(self.max_stall, now - self._last - 0.005)
        self._last = now

    def shown(self) -> None:
        if self.path:
            self.t_shown = time.time()
            self.max_stall = 0.0  # stalls before the window exists are start-up, not stalls
            self._last = time.perf_counter()

    def _finish(self) -> None:
        assert self.path
        Path(self.path).write_text(
            json.dumps(
                {"shown": self.t_shown, "ready": self.t_ready, "max_stall_s": self.max_stall}
            )
        )
        self.window.close()
