"""Keeps the call traces of recent transactions (a sandbox extension; see solidvm/trace.py).

The executing thread hands each transaction's recorder to :meth:`TraceKeeper.note`, which
keeps only its compact form (``trace_show.compact``: plain tuples of shown values, as
``marshal`` bytes); a writer thread of its own (never the event loop) stores those in the
``traces`` table just after, dropping the oldest rows past ``--trace-keep``, so that the
transaction's answer does not wait for it. The JSON tree is made when a trace is read, from the
pending form until the writer has stored it. A trace can be lost when the node is killed in
between; a clean shutdown stores it. A trace is bounded when recorded (frames, events and writes
per transaction; long values cut) and once more as text (:data:`MAX_TRACE_BYTES`).
"""

from __future__ import annotations

import json
import logging
import marshal
import sqlite3
import threading
import time
from typing import Any

from .solidvm.trace import DEFAULT_MAX_ITEMS, TraceRecorder
from .solidvm.trace_show import Compact, tree_of
from .store import Store, dumps

MAX_TRACE_BYTES = 2_000_000  # one transaction's trace as stored
# a compact trace (trace_show.Compact) stored as marshal bytes up to this size; JSON text of
# it is at most about ten times as long (a character escaped as \uXXXX: 6 for one byte; keys
# and brackets: under 100 characters for the 10 or so bytes an item takes at least), so well
# under MAX_TRACE_BYTES. A larger one is stored as its JSON text, cut by bounded_text.
MAX_COMPACT_BYTES = 64_000
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
        # hash -> its stored form (stored_form), in execution order, until the writer has
        # stored it
        self._pending: dict[str, bytes | Compact] = {}
        self._cv = threading.Condition()
        self._closing = False
        self._waiting = False  # the writer waits for a trace (else it is busy or asleep)
        self._thread: threading.Thread | None = None
        if keep > 0:
            with store.lock:
                store.db.execute(SCHEMA)
            store.before_close(self.close)  # whoever closes the store: the writer stops first

    @property
    def enabled(self) -> bool:
        return self.keep > 0

    def note(self, tx_hash: str, recorder: TraceRecorder | None) -> None:
        """The executing thread: hand ``recorder``'s compact form over to the writer (the
        JSON tree is made when read, the row stored by the writer while the node answers)."""
        if recorder is None or not recorder.roots:
            return
        try:
            form = stored_form(recorder)  # the recorder (its frames, the journal) freed now
        except Exception:  # a recorder that cannot be shown must not fail the transaction
            log.exception("call trace of %s could not be made", tx_hash)
            return
        if form is None:
            return
        with self._cv:
            if self._closing:
                return
            pending = self._pending
            pending.pop(tx_hash, None)  # a replay's: the latest run counts
            pending[tx_hash] = form
            while len(pending) > max(self.keep, 1_000):  # a writer far behind drops the oldest
                del pending[next(iter(pending))]
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._write_loop, name="trace-writer", daemon=True
                )
                self._thread.start()
            elif self._waiting:  # (else it is gathering, or storing: it looks again after)
                self._cv.notify()

    def _write_loop(self) -> None:
        while True:
            with self._cv:
                while not self._pending and not self._closing:
                    self._waiting = True
                    self._cv.wait()
                    self._waiting = False
                if not self._pending:
                    return
                closing = self._closing
            if not closing:  # gather what comes meanwhile: one SQLite commit for many
                time.sleep(WRITE_DELAY)
            with self._cv:
                batch = list(self._pending.items())[:2_000]
            rows: list[tuple[str, bytes | str]] = []
            for h, form in batch:
                if isinstance(form, bytes):
                    rows.append((h, form))
                    continue
                try:  # a large one: its JSON text, cut
                    rows.append((h, bounded_text(tree_of(form))))
                except Exception:  # a trace that cannot be shown must not stop the writer
                    log.exception("call trace of %s could not be made", h)
            try:
                self._write(rows)
            except sqlite3.Error:
                log.exception("call traces could not be stored")
            with self._cv:
                for h, form in batch:
                    if self._pending.get(h) is form:
                        del self._pending[h]

    def _write(self, rows: list[tuple[str, bytes | str]]) -> None:
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
        writer has not stored yet is made from its pending form."""
        if not self.enabled:
            return None
        with self._cv:
            body: bytes | str | Compact | None = self._pending.get(tx_hash)
        if body is None:
            row = self.store.one("SELECT body FROM traces WHERE hash=?", tx_hash)
            if row is None:
                return None
            body = row[0]
        if isinstance(body, bytes):  # a compact trace
            body = marshal.loads(body)
        if isinstance(body, tuple):  # its tree, as its JSON text reads
            body = bounded_text(tree_of(body))
        stored: dict[str, Any] = json.loads(body)
        return stored


def stored_form(rec: TraceRecorder) -> bytes | Compact | None:
    """What the ``traces`` table keeps of ``rec``: its compact form as ``marshal`` bytes, or,
    past :data:`MAX_COMPACT_BYTES`, that form itself (the writer stores its JSON text, cut
    to :data:`MAX_TRACE_BYTES`)."""
    c = rec.compact()
    if c is None:
        return None
    try:
        blob = marshal.dumps(c, 4)
    except ValueError:  # a value marshal cannot hold (none is expected): the JSON text
        return c
    return blob if len(blob) <= MAX_COMPACT_BYTES else c
