"""The intake log: ``resolve=false`` transactions made durable before their hashes are handed
out, with one append to a file of their own instead of a transaction in the store.

Recording a submission's ``Pending`` row took the store's lock, which the producer holds while
it commits a block: a ``resolve=false`` request waited for the block before it, and its row was
written twice (``Pending``, then sealed). A line per transaction appended here survives a
``kill -9`` as a WAL commit does (both are in the kernel's page cache when the call returns;
neither is synced: ``synchronous=NORMAL``), and its row is written once, sealed, with its block.

The log holds, at any moment, every logged transaction not yet committed to the store (and some
that are): the producer reports each block's logged transactions once committed
(:meth:`IntakeLog.settled`), and when none is left outstanding the file is emptied. At start,
:meth:`IntakeLog.recover` writes the ``Pending`` rows of those the store does not have (they
then run like any recorded transaction) and empties the file.
"""

from __future__ import annotations

import json
import mmap
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..perms import create_private_file
from ..store import Store, dumps
from .common import Sub, log
from .txqueue import PENDING_COLUMNS, PENDING_ROW_IF_NEW, TxQueue

LOG_FILE = "node-intake.log"  # (the "node" prefix: perms.secure_data_dir tightens it)


class IntakeLog:
    """``Pending`` rows (one JSON array a line, ``TxQueue.row_of``) in a file mapped into
    memory, its unused end zeros.

    Appending is a copy into the mapping, made holding the interpreter's lock: an ``os.write``
    lets go of it, and under load (the producer executing) the loop then waited for it to
    come back, up to a switch interval, on every submission (~0.1 ms at the median). The
    mapping is shared, so what is copied is in the kernel's page cache at once, as a written
    file is: it survives the process's death.

    Thread-safe: the loop and worker threads append, the producer's thread settles.
    """

    # the file's first size, doubled whenever an append does not fit
    CAPACITY = 1 << 20
    # emptied once nothing is outstanding and it holds at least this many bytes
    TRUNCATE_AT = 256 * 1024

    def __init__(self, data_dir: Path, capacity: int = CAPACITY) -> None:
        self.path = data_dir / LOG_FILE
        create_private_file(self.path)
        self._fd = os.open(self.path, os.O_RDWR)
        self._lock = threading.Lock()
        self._capacity = max(capacity, os.fstat(self._fd).st_size)
        os.ftruncate(self._fd, self._capacity)
        self._map: mmap.mmap | None = mmap.mmap(self._fd, self._capacity)
        # appends go on after the last whole line (recover() empties the file; a line cut
        # short by a kill, and whatever follows it, is zeroed here)
        zero = self._map.find(b"\0")
        self._used = self._map.rfind(b"\n", 0, self._capacity if zero < 0 else zero) + 1
        if self._used < self._capacity:
            self._map[self._used :] = bytes(self._capacity - self._used)
        self._outstanding = 0  # logged, and not yet committed to the store

    def append(self, subs: list[Sub]) -> None:
        """Log ``subs`` (durable when this returns); they are marked ``logged``, so that the
        block that commits them reports them (:meth:`settled`)."""
        data = "".join(dumps(TxQueue.row_of(s)) + "\n" for s in subs).encode("ascii")
        with self._lock:
            if self._map is None:
                raise RuntimeError("the intake log is closed")
            end = self._used + len(data)
            if end > self._capacity:
                self._grow(end)
            self._map[self._used : end] = data
            self._used = end
            self._outstanding += len(subs)
        for s in subs:
            s.logged = True

    def _grow(self, needed: int) -> None:
        """A larger file and mapping (the caller holds the lock)."""
        assert self._map is not None
        capacity = self._capacity
        while capacity < needed:
            capacity *= 2
        self._map.close()
        os.ftruncate(self._fd, capacity)
        self._map = mmap.mmap(self._fd, capacity)
        self._capacity = capacity

    def _empty(self) -> None:
        """All zeros again (the caller holds the lock): cut to nothing, then to its size (a
        hole reads as zeros; the mapping is not touched in between)."""
        os.ftruncate(self._fd, 0)
        os.ftruncate(self._fd, self._capacity)
        self._used = 0

    def settled(self, subs: Iterable[Sub]) -> None:
        """``subs`` were committed to the store (sealed, or discarded): those that were logged
        are no longer outstanding; with none left, the file is emptied."""
        n = 0
        for s in subs:
            if s.logged:
                s.logged = False
                n += 1
        if not n:
            return
        with self._lock:
            self._outstanding -= n
            if self._outstanding <= 0 and self._used >= self.TRUNCATE_AT and self._map:
                self._outstanding = 0
                self._empty()

    @property
    def outstanding(self) -> int:
        """Logged transactions not yet committed to the store."""
        with self._lock:
            return self._outstanding

    def lines(self) -> list[bytes]:
        """The logged lines (everything before ``_used``: the opening zeroed what followed the
        last whole line, and appends hold no zero byte)."""
        with self._lock:
            if self._map is None:
                return []
            text = self._map[: self._used]
        return text.splitlines(keepends=True)

    def recover(self, store: Store) -> int:
        """At start (nothing appends yet): write the ``Pending`` rows of the logged
        transactions the store does not have, then empty the file. Returns how many were
        written. A line cut short by a kill during its copy (its request was never answered)
        is skipped."""
        rows = []
        for n, line in enumerate(self.lines(), 1):
            row = _parse(line)
            if row is None:
                log.warning("%s: line %d is incomplete; skipped", self.path, n)
                continue
            rows.append(row)
        written = 0
        if rows:
            with store.transaction() as db:
                before = db.total_changes
                # a row committed already (sealed, or written by an earlier recovery) stays
                db.executemany(PENDING_ROW_IF_NEW, rows)
                written = db.total_changes - before
            if written:
                log.info("%d logged transactions recovered from %s", written, self.path)
        with self._lock:
            self._empty()
            self._outstanding = 0
        return written

    def close(self) -> None:
        with self._lock:
            if self._map is not None:
                self._map.close()
                self._map = None
                os.close(self._fd)


def _parse(line: bytes) -> tuple[Any, ...] | None:
    """A logged row, or None when the line is not a whole one."""
    if not line.endswith(b"\n"):
        return None
    try:
        row = json.loads(line)
    except ValueError:
        return None
    if not isinstance(row, list) or len(row) != PENDING_COLUMNS:
        return None
    return tuple(row)
