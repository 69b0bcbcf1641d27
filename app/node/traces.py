"""Keeps the call traces of recent transactions (a sandbox extension; see solidvm/trace.py).

The executing thread hands each transaction's recorder to :meth:`TraceKeeper.note`; a writer
thread of its own (never the event loop) turns it into JSON text and stores it in the ``traces``
table just after, dropping the oldest rows past ``--trace-keep``, so that the transaction's
answer does not wait for it. Until then the route makes the tree from the recorder (a recorder
holds only values that no later transaction can change). A trace can be lost when the node is
killed in between; a clean shutdown stores it. A trace is bounded when recorded (frames, events
and writes per transaction; long values cut) and once more as text (:data:`MAX_TRACE_BYTES`).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from typing import Any

from .solidvm.trace import DEFAULT_MAX_ITEMS, TraceRecorder
from .store import Store, dumps

MAX_TRACE_BYTES = 2_000_000  # one transaction's trace as stored
DEFAULT_KEEP = 10_000  # transactions whose traces are kept (the most recent)
WRITE_DELAY = 0.25  # seconds the writer gathers traces before one commit stores them all

log = logging.getLogger("stratoscope.node")

SCHEMA = """
CREATE TABLE IF NOT EXISTS traces (
    seq INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    body TEXT NOT NULL
)
"""


def bounded_text(trace: dict[str, Any], limit: int = MAX_TRACE_BYTES) -> str:
    """``trace`` as JSON text of at most about ``limit`` characters: past it, the frames keep
    their calls but lose their events and writes, then only the root frame is left; either
    way ``truncated`` says so."""
    text = dumps(trace)
    if len(text) <= limit:
        return text
    root = trace["root"]

    def calls_only(frame: dict[str, Any]) -> dict[str, Any]:
        kept = [calls_only(i) for i in frame.get("items", []) if i.get("type") == "call"]
        return {**frame, "items": [*kept, {"type": "truncated", "reason": "size"}]}

    trace = {**trace, "truncated": True, "root": calls_only(root)}
    text = dumps(trace)
    if len(text) <= limit:
        return text
    bare = {**root, "items": [{"type": "truncated", "reason": "size"}]}
    for k in ("args", "returns"):
        if k in bare and len(dumps(bare[k])) > limit // 4:
            bare[k] = [{"value": "… (too large)"}]
    return dumps({**trace, "frames": 1, "root": bare})


class TraceKeeper:
    """Traces waiting to be written, the writer thread, and the stored ones."""

    def __init__(
        self, store: Store, keep: int = DEFAULT_KEEP, max_items: int = DEFAULT_MAX_ITEMS
    ) -> None:
        self.store = store
        self.keep = keep  # 0: traces are off
        self.max_items = max_items
        # hash -> recorder, in execution order, until the writer has stored its text
        self._pending: dict[str, TraceRecorder] = {}
        self._cv = threading.Condition()
        self._closing = False
        self._thread: threading.Thread | None = None
        if keep > 0:
            with store.lock:
                store.db.execute(SCHEMA)
            store.before_close(self.close)  # whoever closes the store: the writer stops first

    @property
    def enabled(self) -> bool:
        return self.keep > 0

    def note(self, tx_hash: str, recorder: TraceRecorder | None) -> None:
        """The executing thread: hand ``recorder`` over to the writer (cheap: the tree is made
        and stored by the writer thread, while the node answers)."""
        if recorder is None or not recorder.roots:
            return
        with self._cv:
            if self._closing:
                return
            pending = self._pending
            pending.pop(tx_hash, None)  # a replay's: the latest run counts
            pending[tx_hash] = recorder
            while len(pending) > max(self.keep, 1_000):  # a writer far behind drops the oldest
                del pending[next(iter(pending))]
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._write_loop, name="trace-writer", daemon=True
                )
                self._thread.start()
            self._cv.notify()

    def _write_loop(self) -> None:
        while True:
            with self._cv:
                while not self._pending and not self._closing:
                    self._cv.wait()
                if not self._pending:
                    return
                closing = self._closing
            if not closing:  # gather what comes meanwhile: one SQLite commit for many
                time.sleep(WRITE_DELAY)
            with self._cv:
                batch = list(self._pending.items())[:2_000]
            rows = []
            for h, rec in batch:
                try:
                    tree = rec.finish()
                except Exception:  # a recorder that cannot be shown must not stop the writer
                    log.exception("call trace of %s could not be made", h)
                    continue
                if tree is not None:
                    rows.append((h, bounded_text(tree)))
            try:
                self._write(rows)
            except sqlite3.Error:
                log.exception("call traces could not be stored")
            with self._cv:
                for h, rec in batch:
                    if self._pending.get(h) is rec:
                        del self._pending[h]

    def _write(self, rows: list[tuple[str, str]]) -> None:
        """Store ``rows`` and forget the oldest traces past ``keep``, in one transaction."""
        if not rows:
            return
        with self.store.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO traces (hash, body) VALUES (?, ?)", rows)
            top = db.execute("SELECT MAX(seq) FROM traces").fetchone()[0]
            if top is not None and top > self.keep:
                db.execute("DELETE FROM traces WHERE seq <= ?", (top - self.keep,))

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every trace noted so far is stored (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while self._pending and self._thread is not None and time.monotonic() < deadline:
                self._cv.notify()
                self._cv.wait(0.05)

    def close(self) -> None:
        """Store what is pending and stop the writer (before the store closes)."""
        with self._cv:
            self._closing = True
            self._cv.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def read(self, tx_hash: str) -> dict[str, Any] | None:
        """The trace of ``tx_hash`` (None when none is kept). A worker-thread read: one the
        writer has not stored yet is made from its recorder."""
        if not self.enabled:
            return None
        with self._cv:
            rec = self._pending.get(tx_hash)
        if rec is not None:
            tree = rec.finish()
            if tree is not None:
                out: dict[str, Any] = json.loads(bounded_text(tree))
                return out
        row = self.store.one("SELECT body FROM traces WHERE hash=?", tx_hash)
        if row is None:
            return None
        stored: dict[str, Any] = json.loads(row[0])
        return stored
