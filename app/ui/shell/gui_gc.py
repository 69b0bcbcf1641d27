"""Python's cycle collector runs in the GUI thread only.

CPython runs its cycle collector in whichever thread happens to allocate when a generation's
threshold is crossed: an I/O worker (the app's executor, a test's node reader) then frees the Qt
objects of every garbage cycle. A QObject destroyed off its thread cannot unregister its timers
or socket notifiers (Qt warns "Timers cannot be stopped from another thread"); the GUI thread's
event dispatcher later delivers their event to freed memory and the process dies with a
segfault inside event processing. A closed qasync loop's timer object, left in a cycle, is the
usual victim. So automatic collection is switched off and the same threshold rule is applied
by a timer in the GUI thread.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

__all__ = ["GuiThreadCollector", "collect_due", "collect_in_gui_thread"]

INTERVAL_MS = 200

_installed: GuiThreadCollector | None = None


class GuiThreadCollector(QObject):
    """Collects, on a GUI-thread timer, the generations the automatic collector would have."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.collect_due)
        self.timer.start()
        gc.disable()

    def collect_due(self) -> int:
        """Collect the oldest generation past its threshold (what allocation would trigger)."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        due = -1
        for gen in range(3):
            if thresholds[gen] and counts[gen] > thresholds[gen]:
                due = gen
        return gc.collect(due) if due >= 0 else 0


def collect_in_gui_thread(app: QCoreApplication) -> GuiThreadCollector:
    """Install the collector on ``app`` (once per process; ``app`` lives as long as it does)."""
    global _installed
    if _installed is None:
        _installed = GuiThreadCollector(app)
    return _installed


def collect_due() -> int:
    """Once installed, collect what is due now (the tests call it between two tests)."""
    return _installed.collect_due() if _installed is not None else 0
