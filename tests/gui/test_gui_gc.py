"""The known crash of the full suite under load (issue 26): a segfault inside Qt's event
processing. Its cause: the cycle collector, run by whichever thread allocates, freed a closed
qasync loop's timer object on a worker thread; the timer stayed registered with the GUI thread's
dispatcher and its next event went to freed memory. ``collect_in_gui_thread`` (installed by the
app and by the tests' ``qapp``) keeps collections in the GUI thread.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import asyncio, gc, sys, threading, time
import qasync
from PySide6.QtWidgets import QApplication
from app.ui.shell.gui_gc import collect_in_gui_thread

app = QApplication([])
if sys.argv[1] == "guarded":
    collect_in_gui_thread(app)

def closed_loop_in_a_cycle() -> None:
    lp = qasync.QEventLoop(app)
    asyncio.set_event_loop(lp)
    async def body() -> None:
        lp.call_later(0.3, lambda: None)  # its Qt timer is still registered at close
        await asyncio.sleep(0.01)
    lp.run_until_complete(body())
    asyncio.set_event_loop(None)
    lp.close()
    cycle: list[object] = [lp]
    cycle.append(cycle)  # only the cycle collector can free it now

closed_loop_in_a_cycle()

def worker() -> None:  # an I/O worker or a node's log reader: it allocates
    gc.set_threshold(50, 1, 1)  # so that its next allocations are due a full collection
    junk = [[i] for i in range(5000)]
    del junk

t = threading.Thread(target=worker)
t.start()
t.join()
end = time.monotonic() + 1.0
while time.monotonic() < end:
    app.processEvents()
    time.sleep(0.01)
print("survived", flush=True)
"""


def run(mode: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", CHILD, mode],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_worker_thread_never_frees_qt_objects() -> None:
    unguarded = run("unguarded")
    # the hazard is real: the worker's collection destroys the timer object off its thread
    assert (
        unguarded.returncode != 0
        or "Timers cannot be stopped from another thread" in unguarded.stderr
    ), unguarded
    guarded = run("guarded")
    assert guarded.returncode == 0, guarded.stderr[-3000:]
    assert guarded.stdout.strip() == "survived"
    assert "cannot be stopped from another thread" not in guarded.stderr
