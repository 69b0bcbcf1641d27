"""Keeps the call traces of recent transactions (a sandbox extension; see solidvm/trace.py).

The executing thread hands each transaction's recorder to :meth:`TraceKeeper.note`, which
keeps only its compact form (``trace_show.compact``: plain tuples of shown values). At the end
of a block (:meth:`TraceKeeper.end_block`, or every :data:`BLOB_COUNT` traces) the block's
compact forms become one ``marshal`` blob: one call for the block instead of one per trace,
and what the traces of a block share (a function's header, an event's, the tags) written
once. A writer thread of its own (never the event loop) stores the blobs
just after, so that the transaction's answer does not wait for it. The JSON tree is made when
a trace is read, from the pending form until the writer has stored it. A trace can be lost
when the node is killed in between; a clean shutdown stores it. A trace is bounded when
recorded (frames, events and writes per transaction; long values cut) and once more as text
(:data:`MAX_TRACE_BYTES`).

Where: a database file of their own beside the node's (:data:`TRACES_FILE`), with a connection
and a lock of its own, so that storing traces never holds the node's database (a block's seal
waited for the writer's commits when they shared it). What the writer gathers in one go is
one row of ``trace_batches`` (the hashes and the stored forms, each a marshal tuple; a stored
form is one trace, or a run of traces of one blob), and each trace one row of ``trace_index``
keyed by its hash's first 8 bytes as an integer (a rowid table: the cheapest index SQLite has)
naming its batch; a read checks the full hash in the batch. Whole batches are dropped, oldest
first, while the others hold ``keep`` traces.
"""

from __future__ import annotations

import hashlib
import json
import logging
import marshal
import sqlite3
import threading
import time
from itertools import islice
from pathlib import Path
from typing import Any, cast

from .bulkwrite import insert_many
from .perms import create_private_file
from .solidvm.trace import DEFAULT_MAX_ITEMS, TraceRecorder
from .solidvm.trace_show import Compact, tree_of
from .store import Store, dumps

MAX_TRACE_BYTES = 2_000_000  # one transaction's trace as stored
# a compact trace (trace_show.Compact) kept on its own (stored_form) as marshal bytes up to
# this size; JSON text of it is at most about ten times as long (a character escaped as
# \uXXXX: 6 for one byte; keys and brackets: under 100 characters for the 10 or so bytes an
# item takes at least), so well under MAX_TRACE_BYTES. A larger one is stored as its JSON
# text, cut by bounded_text.
MAX_COMPACT_BYTES = 64_000
DEFAULT_KEEP = 10_000  # transactions whose traces are kept (the most recent)
WRITE_DELAY = 0.25  # seconds the writer gathers traces before one commit stores them all

log = logging.getLogger("stratoscope.node")

TRACES_FILE = "traces.sqlite3"  # beside the node's database (store.DB_FILE)
BATCH_BYTES = 1_000_000  # stored forms per trace_batches row, about (one read loads a row)
BATCH_COUNT = 2_000  # traces per trace_batches row, at most
BLOB_COUNT = 128  # traces per blob (end_block), at most
# a trace of more frames, events and writes than this is kept on its own, as before blobs
# (stored_form: as JSON text past MAX_COMPACT_BYTES); the others share their block's blob,
# up to this many bytes (a blob is read whole to read one of its traces)
BLOB_ITEMS = 100
BLOB_BYTES = 1_000_000

SCHEMA = """
CREATE TABLE IF NOT EXISTS trace_batches (
    seq INTEGER PRIMARY KEY,
    count INTEGER NOT NULL,
    hashes BLOB NOT NULL,
    bodies BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS trace_index (
    h INTEGER PRIMARY KEY,
    batch INTEGER NOT NULL
)
"""


def hash_key(tx_hash: str) -> int:
    """``trace_index``'s key of a transaction hash: its first 8 bytes as a signed integer
    (none of SQLite's integers is wider); a hash that is not hex, by its BLAKE2b digest."""
    try:
        head = bytes.fromhex(tx_hash[:16])
    except ValueError:
        head = b""
    if len(head) != 8:
        head = hashlib.blake2b(tx_hash.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(head, "big", signed=True)


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


class InBlob:
    """A pending trace that is the ``i``-th compact form in ``blob`` (its block's)."""

    __slots__ = ("blob", "i")

    def __init__(self, blob: bytes, i: int) -> None:
        self.blob = blob
        self.i = i


# What trace_batches keeps of a trace, one element of a row's ``bodies``: its compact form as
# marshal bytes (an older version's), its JSON text (one past MAX_COMPACT_BYTES, and rows of
# the oldest versions), or a run of traces of one blob:
# (start, count, blob), the traces ``marshal.loads(blob)[start : start + count]``.
Body = bytes | str | tuple[int, int, bytes]
Pending = bytes | Compact | InBlob  # a trace waiting for the writer


class TraceKeeper:
    """Traces waiting to be written, the writer thread, and the stored ones."""

    def __init__(
        self, store: Store, keep: int = DEFAULT_KEEP, max_items: int = DEFAULT_MAX_ITEMS
    ) -> None:
        self.store = store
        self.keep = keep  # 0: traces are off
        self.max_items = max_items
        # (hash, compact form, items) of the block being executed (note; end_block hands
        # them over)
        self._block: list[tuple[str, Compact, int]] = []
        self._block_lock = threading.Lock()  # (flush and close hand them over from elsewhere)
        # hash -> its form, in execution order, until the writer has stored it
        self._pending: dict[str, Pending] = {}
        self._cv = threading.Condition()
        self._closing = False
        self._waiting = False  # the writer waits for a trace (else it is busy or asleep)
        self._thread: threading.Thread | None = None
        self._db: sqlite3.Connection | None = None
        self._db_lock = threading.Lock()  # the traces file's connection: writer and readers
        self._kept = 0  # traces in trace_batches
        self._stale = 0  # trace_index rows of dropped batches, about (_forget_oldest)
        if keep > 0:
            self._db = self._open(store.path.parent / TRACES_FILE)
            self._adopt_old_table()
            store.before_close(self.close)  # whoever closes the store: the writer stops first

    @property
    def enabled(self) -> bool:
        return self.keep > 0

    # ------------------------------------------------------------ the file

    def _open(self, path: Path) -> sqlite3.Connection:
        try:
            return self._connect(path)
        except sqlite3.DatabaseError as exc:  # a file an OS crash left torn (synchronous=OFF)
            log.warning("%s cannot be read (%s): its call traces are dropped", path.name, exc)
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            return self._connect(path)

    def _connect(self, path: Path) -> sqlite3.Connection:
        create_private_file(path)
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            # no fsync, not even at checkpoints (a third of the writer's time): a killed
            # process loses nothing it committed, an OS crash may tear the file (_open)
            db.execute("PRAGMA synchronous=OFF")
            for stmt in SCHEMA.split(";"):
                db.execute(stmt)
            self._kept = _count(db)
        except BaseException:
            db.close()
            raise
        return db

    def _adopt_old_table(self) -> None:
        """A data dir from before the traces had a file of their own: its ``traces`` table
        (one row per trace, in the node's database) moves into this file, once, at start."""
        store = self.store
        with store.lock:
            found = store.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='traces'"
            ).fetchone()
            if found is None:
                return
            rows = store.db.execute("SELECT hash, body FROM traces ORDER BY seq").fetchall()
        for i in range(0, len(rows), BATCH_COUNT):
            self._write([([str(r[0])], r[1]) for r in rows[i : i + BATCH_COUNT]])
        with store.transaction() as db:
            db.execute("DROP TABLE traces")
        log.info("moved %d call traces into %s", len(rows), TRACES_FILE)

    # ------------------------------------------------------------ the executing thread

    def note(self, tx_hash: str, recorder: TraceRecorder | None) -> None:
        """The executing thread: keep ``recorder``'s compact form until the block ends (the
        recorder, its frames and the journal are freed now; the JSON tree is made when read)."""
        if recorder is None or not recorder.roots:
            return
        try:
            form = recorder.compact()
        except Exception:  # a recorder that cannot be shown must not fail the transaction
            log.exception("call trace of %s could not be made", tx_hash)
            return
        if form is None:
            return
        with self._block_lock:
            self._block.append((tx_hash, form, recorder.count))
            full = len(self._block) >= BLOB_COUNT
        if full:
            self.end_block()

    def end_block(self) -> None:
        """The block's traces (those noted since the last call) as one blob, handed over to
        the writer (the executing thread, at the end of each block; flush and close)."""
        with self._block_lock:
            taken, self._block = self._block, []
        if not taken:
            return
        kept = blobs_of(taken)
        with self._cv:
            if self._closing:
                return
            pending = self._pending
            for h, p in kept:
                pending.pop(h, None)  # a replay's: the latest run counts
                pending[h] = p
            while len(pending) > max(self.keep, 1_000):  # a writer far behind drops the oldest
                del pending[next(iter(pending))]
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._write_loop, name="trace-writer", daemon=True
                )
                self._thread.start()
            elif self._waiting:  # (else it is gathering, or storing: it looks again after)
                self._cv.notify()

    # ------------------------------------------------------------ the writer thread

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
                batch = list(islice(self._pending.items(), BATCH_COUNT))
            rows = _runs(batch)
            try:
                self._write(rows)
            except (sqlite3.Error, ValueError):
                log.exception("call traces could not be stored")
            with self._cv:
                for h, form in batch:
                    if self._pending.get(h) is form:
                        del self._pending[h]
                self._cv.notify_all()  # (flush waits for it)

    def _write(self, rows: list[tuple[list[str], Body]]) -> None:
        """Store ``rows`` (hashes and what is kept of them) as batches of about
        :data:`BATCH_BYTES` and forget the oldest batches while the others hold ``keep``
        traces, in one transaction."""
        if not rows or self._db is None:
            return
        groups: list[list[tuple[list[str], Body]]] = [[]]
        size = 0
        for r in rows:
            body = r[1]
            n = len(body[2]) if isinstance(body, tuple) else len(body)
            if groups[-1] and size + n > BATCH_BYTES:
                groups.append([])
                size = 0
            groups[-1].append(r)
            size += n
        with self._db_lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                for g in groups:
                    hashes = tuple(h for hs, _ in g for h in hs)
                    cur = db.execute(
                        "INSERT INTO trace_batches (count, hashes, bodies) VALUES (?, ?, ?)",
                        (len(hashes), marshal.dumps(hashes), marshal.dumps(tuple(b for _, b in g))),
                    )
                    seq = cur.lastrowid
                    # statements of many rows, not a step per row (see bulkwrite.py)
                    insert_many(
                        db,
                        "INSERT OR REPLACE INTO trace_index (h, batch) VALUES (?, ?)",
                        [(hash_key(h), seq) for h in hashes],
                    )
                    self._kept += len(hashes)
                self._forget_oldest(db)
            except BaseException:
                db.execute("ROLLBACK")
                self._kept = _count(db)
                raise
            db.execute("COMMIT")

    def _forget_oldest(self, db: sqlite3.Connection) -> None:
        """Drop whole batches, oldest first, while the others hold ``keep`` traces. Their
        ``trace_index`` rows go later, all at once (one pass over the index, once it holds
        about ``keep`` stale rows): until then a stale row names a batch that is gone, which
        a read takes as no trace."""
        gone = 0
        while True:
            row = db.execute("SELECT seq, count FROM trace_batches ORDER BY seq LIMIT 1").fetchone()
            if row is None or self._kept - int(row[1]) < self.keep:
                break
            db.execute("DELETE FROM trace_batches WHERE seq = ?", (int(row[0]),))
            self._kept -= int(row[1])
            gone += int(row[1])
        self._stale += gone
        if self._stale > max(self.keep, BATCH_COUNT):
            first = db.execute("SELECT MIN(seq) FROM trace_batches").fetchone()[0]
            db.execute("DELETE FROM trace_index WHERE batch < ?", (first or 0,))
            self._stale = 0

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every trace noted so far is stored (tests, shutdown)."""
        self.end_block()
        deadline = time.monotonic() + timeout
        with self._cv:
            while self._pending and self._thread is not None and time.monotonic() < deadline:
                self._cv.notify()
                self._cv.wait(0.05)

    def close(self) -> None:
        """Store what is pending and stop the writer (before the store closes)."""
        self.end_block()
        with self._cv:
            self._closing = True
            self._cv.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None
        with self._db_lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # ------------------------------------------------------------ readers (worker threads)

    def read(self, tx_hash: str) -> dict[str, Any] | None:
        """The trace of ``tx_hash`` (None when none is kept). A worker-thread read: one the
        writer has not stored yet is made from its pending form."""
        if not self.enabled:
            return None
        with self._block_lock:  # (its block still executing)
            found: Pending | str | None = next(
                (f for h, f, _ in reversed(self._block) if h == tx_hash), None
            )
        if found is None:
            with self._cv:
                found = self._pending.get(tx_hash)
        if found is None:
            found = self._stored(tx_hash)
            if found is None:
                return None
        if isinstance(found, InBlob):
            found = marshal.loads(found.blob)[found.i]
        elif isinstance(found, bytes):  # a compact trace
            found = marshal.loads(found)
        # a compact trace (plain tuples) as its tree, as its JSON text reads
        text = found if isinstance(found, str) else bounded_text(tree_of(cast(Compact, found)))
        stored: dict[str, Any] = json.loads(text)
        return stored

    def _stored(self, tx_hash: str) -> bytes | str | Compact | None:
        with self._db_lock:
            if self._db is None:
                return None
            row = self._db.execute(
                "SELECT b.hashes, b.bodies FROM trace_index i JOIN trace_batches b "
                "ON b.seq = i.batch WHERE i.h = ?",
                (hash_key(tx_hash),),
            ).fetchone()
        if row is None:
            return None
        hashes = marshal.loads(row[0])
        try:
            at = hashes.index(tx_hash)
        except ValueError:  # another hash with the same first 8 bytes: it was overwritten
            return None
        seen = 0
        for body in marshal.loads(row[1]):
            n = body[1] if isinstance(body, tuple) else 1
            if at < seen + n:
                if isinstance(body, tuple):  # a run of a blob's traces
                    form: Compact = marshal.loads(body[2])[body[0] + at - seen]
                    return form
                kept: bytes | str = body
                return kept
            seen += n
        return None

    def stored_count(self) -> int:
        """Traces in the file (tests, benchmarks)."""
        with self._db_lock:
            return self._kept


def _count(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COALESCE(SUM(count), 0) FROM trace_batches").fetchone()[0])


def blobs_of(taken: list[tuple[str, Compact, int]]) -> list[tuple[str, Pending]]:
    """What becomes of a block's traces (hash, compact form, items recorded): the runs of
    those of at most :data:`BLOB_ITEMS` items each as one ``marshal`` blob; a larger trace,
    or each of a run whose blob passes :data:`BLOB_BYTES`, on its own (:func:`stored_form`)."""
    out: list[tuple[str, Pending]] = []
    run: list[tuple[str, Compact]] = []
    for h, form, items in taken:
        if items <= BLOB_ITEMS:
            run.append((h, form))
            continue
        out += _blob(run)
        run = []
        out.append((h, stored_form(form)))
    out += _blob(run)
    return out


def _blob(run: list[tuple[str, Compact]]) -> list[tuple[str, Pending]]:
    if not run:
        return []
    try:
        blob = marshal.dumps(tuple(f for _, f in run), 4)
    except ValueError:  # a value marshal cannot hold (none is expected): one at a time
        return [(h, stored_form(f)) for h, f in run]
    if len(blob) > BLOB_BYTES:  # (long values: each on its own, the large ones as JSON)
        return [(h, stored_form(f)) for h, f in run]
    return [(h, InBlob(blob, i)) for i, (h, _) in enumerate(run)]


def _runs(batch: list[tuple[str, Pending]]) -> list[tuple[list[str], Body]]:
    """The writer's rows of pending traces: the consecutive traces of one blob as one run
    (start, count, blob), any other trace on its own (a large one as its JSON text, cut)."""
    rows: list[tuple[list[str], Body]] = []
    blob: bytes | None = None  # the open run's: its blob, first index, next index, hashes
    start = nxt = 0
    hashes: list[str] = []
    for h, form in batch:
        if isinstance(form, InBlob) and form.blob is blob and form.i == nxt:
            hashes.append(h)
            nxt += 1
            continue
        if blob is not None:
            rows.append((hashes, (start, len(hashes), blob)))
            blob = None
        if isinstance(form, InBlob):
            blob, start, nxt, hashes = form.blob, form.i, form.i + 1, [h]
        elif isinstance(form, bytes):
            rows.append(([h], form))
        else:
            try:  # a large one: its JSON text, cut
                rows.append(([h], bounded_text(tree_of(form))))
            except Exception:  # a trace that cannot be shown must not stop the writer
                log.exception("call trace of %s could not be made", h)
    if blob is not None:
        rows.append((hashes, (start, len(hashes), blob)))
    return rows


def stored_form(c: Compact) -> bytes | Compact:
    """What ``trace_batches`` keeps of one compact trace on its own: its ``marshal`` bytes,
    or, past :data:`MAX_COMPACT_BYTES`, the form itself (the writer stores its JSON text, cut
    to :data:`MAX_TRACE_BYTES`)."""
    try:
        blob = marshal.dumps(c, 4)
    except ValueError:  # a value marshal cannot hold (none is expected): the JSON text
        return c
    return blob if len(blob) <= MAX_COMPACT_BYTES else c
