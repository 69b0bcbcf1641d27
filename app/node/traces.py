"""Keeps the call traces of recent transactions (a sandbox extension; see solidvm/trace.py).

The executing thread hands each transaction's recorder to :meth:`TraceKeeper.note`, which turns it
into JSON text there (never on the event loop); the block's commit writes the texts of its
transactions into the ``traces`` table in the same SQLite transaction and drops the oldest rows
past ``--trace-keep``. A trace is bounded when recorded (frames, events and writes per
transaction; long values cut) and once more as text (:data:`MAX_TRACE_BYTES`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from typing import Any

from .solidvm.trace import DEFAULT_MAX_ITEMS, TraceRecorder
from .store import Store, dumps

MAX_TRACE_BYTES = 2_000_000  # one transaction's trace as stored
DEFAULT_KEEP = 10_000  # transactions whose traces are kept (the most recent)

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
    """Traces waiting for their block's commit, and the stored ones."""

    def __init__(
        self, store: Store, keep: int = DEFAULT_KEEP, max_items: int = DEFAULT_MAX_ITEMS
    ) -> None:
        self.store = store
        self.keep = keep  # 0: traces are off
        self.max_items = max_items
        self._pending: dict[str, str] = {}
        self._lock = threading.Lock()
        if keep > 0:
            with store.lock:
                store.db.execute(SCHEMA)

    @property
    def enabled(self) -> bool:
        return self.keep > 0

    def note(self, tx_hash: str, recorder: TraceRecorder | None) -> None:
        """The executing thread: keep ``recorder``'s tree until the block commits."""
        if recorder is None:
            return
        tree = recorder.finish()
        if tree is None:
            return
        text = bounded_text(tree)
        with self._lock:
            pending = self._pending
            pending[tx_hash] = text
            while len(pending) > self.keep:  # a replay at start-up, with no commit between
                del pending[next(iter(pending))]

    def write(self, db: sqlite3.Connection, hashes: list[str]) -> None:
        """Inside the block's SQLite transaction: store the traces of ``hashes`` and forget
        the oldest past ``keep``; pending traces of transactions not in the block are dropped
        (a replay records them again)."""
        with self._lock:
            pending, self._pending = self._pending, {}
        rows = [(h, pending[h]) for h in hashes if h in pending]
        if not rows:
            return
        db.executemany("INSERT OR REPLACE INTO traces (hash, body) VALUES (?, ?)", rows)
        top = db.execute("SELECT MAX(seq) FROM traces").fetchone()[0]
        if top is not None and top > self.keep:
            db.execute("DELETE FROM traces WHERE seq <= ?", (top - self.keep,))

    def read(self, tx_hash: str) -> dict[str, Any] | None:
        """The stored trace of ``tx_hash`` (None when none is kept). A worker-thread read."""
        if not self.enabled:
            return None
        row = self.store.one("SELECT body FROM traces WHERE hash=?", tx_hash)
        if row is None:
            return None
        out: dict[str, Any] = json.loads(row[0])
        return out
