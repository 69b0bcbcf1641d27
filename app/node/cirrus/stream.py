"""Large Cirrus results sent as they are read, so that memory stays flat and the event loop free.

A query without ``limit`` may yield up to ``MAX_ROWS`` rows. Its first chunk is read (and every
error found) before the response starts, so a bad query is still answered 400 in full. When more
rows follow, the response streams: each further chunk is read, decoded and encoded to JSON in a
worker thread, and the bytes are the same as those of the whole result encoded at once. The
stream keeps its own connection and read transaction until the last chunk, so every chunk, the
row count in ``Content-Range`` and the total all come from one snapshot.
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import threading
import weakref
from collections import deque
from collections.abc import AsyncGenerator
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

from ..jsonenc import compact_json
from .backend import CirrusBackend, Plan
from .query import Query

CHUNK = 100  # rows read, decoded and encoded at a time
WHOLE = 1_000  # a query limited to this many rows is answered in one piece, as it always was
IDLE_READERS = 8  # connections kept open between queries; more are opened when needed
READER_CACHE_KIB = 256  # page cache of each stream's connection (SQLite's default is 2 MiB)
SNAPSHOT_S = 60.0  # a stream's read transaction ends by then (the rest goes to a temporary file)
# the chunks' own threads: streams never queue ahead of other work sent to the default executor
_CHUNKS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="cirrus-stream")


class ReaderPool:
    """Read-only connections lent to one query each, for as long as its response lasts (a
    thread's own reader cannot be held across the chunks: other queries use it meanwhile)."""

    def __init__(self, backend: CirrusBackend) -> None:
        self.backend = backend
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def acquire(self) -> sqlite3.Connection:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        conn = self.backend.connect_reader()
        conn.execute(f"PRAGMA cache_size=-{READER_CACHE_KIB}")
        return conn

    def release(self, conn: sqlite3.Connection) -> None:
        try:
            if conn.in_transaction:
                conn.rollback()  # read only: ends the snapshot
        except sqlite3.Error:
            conn.close()
            return
        with self._lock:
            if len(self._idle) < IDLE_READERS:
                self._idle.append(conn)
                return
        conn.close()


_POOLS: weakref.WeakKeyDictionary[CirrusBackend, ReaderPool] = weakref.WeakKeyDictionary()
_POOLS_LOCK = threading.Lock()


def pool_of(backend: CirrusBackend) -> ReaderPool | None:
    """The backend's pool, or None when it has no database file to open again."""
    if backend.path is None:
        return None
    with _POOLS_LOCK:
        pool = _POOLS.get(backend)
        if pool is None:
            pool = _POOLS[backend] = ReaderPool(backend)
        return pool


def encode_rows(rows: list[dict[str, Any]]) -> bytes:
    """The rows as the inside of a compact JSON array (no brackets): chunks joined by commas
    inside brackets are the bytes of the whole array."""
    return compact_json(rows)[1:-1]


class RowStream:
    """The rest of a large result: read, decoded and encoded a chunk at a time in worker
    threads while the response is sent. Owns its connection until the rows are all read.

    A stream still running after ``SNAPSHOT_S`` (a slow or stalled client) reads its remaining
    rows into a temporary file and ends its read transaction: an open snapshot keeps SQLite
    from reusing the WAL, which would grow with every write meanwhile."""

    def __init__(
        self,
        backend: CirrusBackend,
        pool: ReaderPool,
        conn: sqlite3.Connection,
        cursor: sqlite3.Cursor,
        plan: Plan,
        visible: set[str] | None,
        first: bytes,
        pending: list[Any],
    ) -> None:
        self.backend = backend
        self.pool = pool
        self.conn: sqlite3.Connection | None = conn
        self.cursor = cursor
        self.plan = plan
        self.visible = visible
        self.first = first
        self.pending = pending
        self.spill: IO[bytes] | None = None  # the rest, encoded, once detached
        self.sizes: deque[int] = deque()  # of the chunks in ``spill``
        self.closed = False
        self._lock = threading.Lock()

    def _read(self) -> bytes | None:
        conn = self.conn
        assert conn is not None
        fetched = self.pending + self.cursor.fetchmany(CHUNK - len(self.pending))
        self.pending = []
        if not fetched:
            return None
        return encode_rows(self.backend.rows_of(self.plan, fetched, self.visible, conn))

    def next_chunk(self) -> bytes | None:
        """The next chunk's encoded rows, or None at the end (worker thread)."""
        with self._lock:
            if self.closed:
                return None
            if self.spill is not None:
                chunk = self.spill.read(self.sizes.popleft()) if self.sizes else None
            else:
                chunk = self._read()
            if chunk is None:
                self._close()
            return chunk

    def detach(self) -> None:
        """Read the remaining rows into a temporary file and end the read transaction (worker
        thread)."""
        with self._lock:
            if self.closed or self.conn is None:
                return
            spill = tempfile.TemporaryFile()  # noqa: SIM115 (read by later chunks)
            try:
                while (chunk := self._read()) is not None:
                    spill.write(chunk)
                    self.sizes.append(len(chunk))
                spill.seek(0)
            except BaseException:
                spill.close()
                raise
            self.spill = spill
            self._release()

    def close(self) -> None:
        """End the read transaction and give the connection back (any thread; waits for a chunk
        being read)."""
        with self._lock:
            self._close()

    def _release(self) -> None:
        if self.conn is not None:
            self.cursor.close()
            self.pool.release(self.conn)
            self.conn = None

    def _close(self) -> None:
        if not self.closed:
            self.closed = True
            self._release()
            if self.spill is not None:
                self.spill.close()

    def __del__(self) -> None:
        # a response never sent (the client left before it started) still frees its snapshot
        if not self.closed:
            self.close()

    async def body(self) -> AsyncGenerator[bytes, None]:
        """The response body: ``[``, the chunks separated by commas, ``]``."""
        loop = asyncio.get_running_loop()
        timer = loop.call_later(SNAPSHOT_S, _CHUNKS.submit, self.detach)
        try:
            first, self.first = self.first, b""
            yield b"[" + first
            while (chunk := await loop.run_in_executor(_CHUNKS, self.next_chunk)) is not None:
                yield b"," + chunk
            yield b"]"
        finally:
            timer.cancel()
            if not self.closed:  # the client went away: close off the loop (a chunk may be read)
                try:
                    _CHUNKS.submit(self.close)
                except RuntimeError:  # the interpreter is exiting: no more threads
                    self.close()


def open_rows(
    backend: CirrusBackend,
    name: str,
    q: Query,
    visible: set[str] | None,
    want_total: bool,
) -> tuple[list[dict[str, Any]] | RowStream, int, int | None]:
    """(rows or a stream of them, how many rows, total when wanted) for one query. The rows
    come as a list when the query asks for at most WHOLE rows or they fit in one chunk (and
    for ``select=count``)."""
    t = backend.table(name)
    pool = pool_of(backend)
    if pool is None:
        rows, total = backend.run(name, q, visible, want_total, backend.reader())
        return rows, len(rows), total
    conn = pool.acquire()
    cursor: sqlite3.Cursor | None = None
    handed = False  # the connection belongs to a stream
    try:
        conn.execute("BEGIN")
        plan = backend.plan(t, q, visible, conn)
        if isinstance(plan, list):
            return plan, len(plan), None
        fetched: list[Any] = []
        whole = True
        if plan.sql is not None:
            cursor = conn.execute(plan.sql, plan.args)
            whole = plan.limit <= WHOLE
            fetched = cursor.fetchall() if whole else cursor.fetchmany(CHUNK + 1)
        if cursor is None or whole or len(fetched) <= CHUNK:
            rows = backend.rows_of(plan, fetched, visible, conn)
            return rows, len(rows), backend.total_of(plan, conn) if want_total else None
        rows = backend.rows_of(plan, fetched[:CHUNK], visible, conn)
        total = backend.total_of(plan, conn) if want_total else None
        n = backend.count_rows(plan, conn)
        stream = RowStream(
            backend, pool, conn, cursor, plan, visible, encode_rows(rows), fetched[CHUNK:]
        )
        handed = True
        return stream, n, total
    finally:
        if not handed:
            if cursor is not None:
                cursor.close()
            pool.release(conn)
