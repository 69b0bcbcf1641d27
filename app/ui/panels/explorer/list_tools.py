"""What every Explorer list has: relative times ("2 min ago", the exact time in the tooltip,
kept current by one shared ticking clock), a count, and an export of the filtered list to CSV or
JSON (the Tables panel's writer: the file appears whole, written off the GUI thread)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QSizePolicy, QToolButton, QWidget

from app.services.controller import AppController
from app.services.export import PageReader, write_rows
from app.ui.widgets.common import name_widget, while_alive
from app.ui.widgets.file_places import EXPORT, place_dialog, safe_file_name

TICK_MS = 30_000  # relative times are repainted this often ("just now" -> "1 min ago")


def parse_time(text: Any) -> float | None:
    """Seconds since the epoch of a node's time: ISO 8601 (``2026-11-29T08:30:06.000Z``,
    ``2026-11-29 08:30:06 UTC``) or a number of seconds or milliseconds."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text) / (1000 if text > 1e11 else 1)
    s = str(text or "").strip()
    if not s:
        return None
    if s.replace(".", "", 1).isdigit():
        return parse_time(float(s))
    s = s.removesuffix(" UTC").replace(" ", "T", 1)
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def relative(seconds: float | None, now: float | None = None) -> str:
    """``just now``, ``42 s ago``, ``2 min ago``, ``3 h ago``, ``5 days ago``, ``in 2 min``."""
    if seconds is None:
        return ""
    delta = (time.time() if now is None else now) - seconds
    ahead = delta < 0
    d = abs(delta)
    if d < 5:
        return "just now"
    if d < 60:
        text = f"{int(d)} s"
    elif d < 3600:
        text = f"{int(d // 60)} min"
    elif d < 86400:
        text = f"{int(d // 3600)} h"
    else:
        days = int(d // 86400)
        text = f"{days} day{'s' * (days != 1)}"
    return f"in {text}" if ahead else f"{text} ago"


def exact(seconds: float | None) -> str:
    """The exact time in the tooltip: local time with its offset, and UTC."""
    if seconds is None:
        return ""
    local = datetime.fromtimestamp(seconds).astimezone()
    utc = datetime.fromtimestamp(seconds, UTC)
    return f"{local:%Y-%m-%d %H:%M:%S %Z} ({utc:%Y-%m-%d %H:%M:%S} UTC)"


class Clock(QObject):
    """One timer for every list's relative times. Signals: tick()."""

    tick = Signal()
    _shared: Clock | None = None

    def __init__(self, interval_ms: int = TICK_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.tick.emit)
        self.timer.start()

    @classmethod
    def shared(cls) -> Clock:
        if cls._shared is None:
            cls._shared = Clock()
        return cls._shared


class ListBar(QWidget):
    """A list's count ("1,234 accounts") and its Export ▾ (CSV, JSON) of the filtered list.

    ``source()`` gives what to export now: a page reader (the list's own reads with its filter
    and order), its page size, a file name and the columns; None: nothing to export."""

    exported = Signal(str)  # what happened, in words

    def __init__(
        self,
        controller: AppController,
        object_name: str,
        source: Callable[[], tuple[PageReader, int, str, list[str]] | None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.source = source
        self.task: asyncio.Task[Any] | None = None
        self.count = QLabel("", self)
        name_widget(self.count, f"{object_name}Count", "How many rows the list has")
        self.status = QLabel("", self)
        name_widget(self.status, f"{object_name}ExportStatus", "Export status")
        # a long path ("Exported 12 row(s) to /home/…") is cut, not widening a narrow pane:
        # the whole text is in the tooltip
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.export = QToolButton(self)
        self.export.setText("Export")
        self.export.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        name_widget(self.export, f"{object_name}Export", "Export the filtered list")
        menu = QMenu(self.export)
        self.csv_action = menu.addAction("CSV…", lambda: self.ask("csv"))
        self.json_action = menu.addAction("JSON…", lambda: self.ask("json"))
        self.export.setMenu(menu)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.count)
        lay.addWidget(self.status, 1)
        lay.addWidget(self.export)

    def set_count(self, text: str) -> None:
        self.count.setText(text)

    def ask(self, fmt: str) -> None:
        src = self.source()
        if src is None:
            self.status.setText("Nothing to export yet.")
            return
        place_dialog(
            self,
            self.controller,
            EXPORT,
            f"Export as {fmt.upper()}",
            f"{fmt.upper()} (*.{fmt})",
            lambda name: self.export_to(Path(name), fmt),
            save_suffix=fmt,
            suggested=f"{safe_file_name(src[2])}.{fmt}",
        )

    def export_to(self, path: Path, fmt: str) -> asyncio.Task[Any] | None:
        src = self.source()
        if src is None or self.task is not None:
            return None
        read, page, _name, columns = src
        self.status.setText("Exporting…")
        self.export.setEnabled(False)

        def progress(n: int) -> None:
            self.status.setText(f"Exporting… {n:,} rows")

        def done(n: int) -> None:
            self._finish(f"Exported {n:,} row(s) to {path}")

        def failed(text: str) -> None:
            self._finish(f"✘ export failed: {text}")

        self.task = self.controller.tasks.start(
            f"Exporting to {path.name}",
            write_rows(path, read, page, fmt, columns, while_alive(self, progress)),
            on_done=while_alive(self, done),
            on_error=while_alive(self, failed),
        )
        return self.task

    def _finish(self, text: str) -> None:
        self.task = None
        self.export.setEnabled(True)
        self.status.setText(text)
        self.status.setToolTip(text)
        self.exported.emit(text)
