"""What the Explorer's GUI benchmarks share (explorer_bench.py, explorer_accounts_bench.py,
explorer_tokens_bench.py): an offscreen Qt application on a qasync loop run the way the app runs
it, an ``AppController`` signed in to a benchmark's node, a heartbeat that measures stalls of the
GUI thread, and a wait for a condition.

The heartbeat is a 5 ms QTimer. A stall is the gap between two beats minus the 5 ms; with each
gap goes the GUI thread's own CPU time within it (``time.thread_time``): a long gap with little
CPU is the machine (other processes, the node) keeping the thread off a core, a long gap full
of CPU is work on the GUI thread.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any


def app_loop() -> Any:
    """The QApplication (offscreen unless QT_QPA_PLATFORM says otherwise) and a qasync loop
    set as the running loop, with the app's 2-thread default executor (no QThread pool)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    class Loop(qasync.QEventLoop):  # type: ignore[misc]
        """Seen as running between run_until_complete calls too (as in the app, where it runs
        all along): Qt events processed in between step tasks that use httpx."""

        def run_forever(self) -> Any:
            try:
                return super().run_forever()
            finally:
                asyncio.events._set_running_loop(self)

    app = QApplication.instance() or QApplication([])
    loop = Loop(app)
    loop.set_default_executor(ThreadPoolExecutor(2))
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)
    return loop


def signed_in(loop: Any, url: str, work: Path, user: str = "alice") -> Any:
    """An ``AppController`` with its config under ``work``, connected to ``url`` as ``user``."""
    from app.services.controller import AppController
    from app.services.profiles import Profile
    from app.services.secret_service import SecretService
    from app.services.session import Credentials

    controller = AppController(
        config_directory=work / "config",
        sandbox_dir=work / "sandbox",
        secrets=SecretService(work / "config", use_keyring=lambda: False),
    )
    profile = Profile("Bench", url, client_id="stratoscope-desktop")
    loop.run_until_complete(controller.connect_profile(profile, Credentials(user, user)))
    return controller


class Heartbeat:
    """Stalls of the GUI thread (see the module's doc): ``stall_ms`` the longest gap since
    ``reset``, ``busy_ms`` the most CPU the GUI thread used within any one gap,
    ``longest_busy_ms`` its CPU within the longest gap."""

    def __init__(self, interval_ms: int = 5) -> None:
        from PySide6.QtCore import QTimer

        self.interval = interval_ms / 1000
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._beat)
        self.reset()

    def reset(self) -> None:
        self.last, self.cpu = time.perf_counter(), time.thread_time()
        self.stall, self.busy, self.longest_busy = 0.0, 0.0, 0.0

    def start(self) -> None:
        self.reset()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _beat(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        gap, used = now - self.last - self.interval, cpu - self.cpu
        if gap > self.stall:
            self.stall, self.longest_busy = gap, used
        self.busy = max(self.busy, used)
        self.last, self.cpu = now, cpu

    @property
    def stall_ms(self) -> float:
        return self.stall * 1000

    @property
    def busy_ms(self) -> float:
        return self.busy * 1000

    @property
    def longest_busy_ms(self) -> float:
        return self.longest_busy * 1000


async def until(cond: Callable[[], Any], timeout: float = 30.0, what: str = "the app") -> float:
    """Wait (1 ms steps of the loop) until ``cond()``; milliseconds it took."""
    t0 = time.perf_counter()
    while not cond():
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError(f"{what} did not get there in time")
        await asyncio.sleep(0.001)
    return (time.perf_counter() - t0) * 1000
