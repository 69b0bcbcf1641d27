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
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..perms import create_private_file
from ..store import Store, dumps
from .common import Sub, log
from .txqueue import PENDING_COLUMNS, PENDING_ROW, TxQueue

LOG_FILE = "node-intake.log"  # (the "node" prefix: perms.secure_data_dir tightens it)


class IntakeLog:
    """An append-only file of ``Pending`` rows (one JSON array a line, ``TxQueue.row_of``).

    Thread-safe: the loop and worker threads preparing large requests append, the producer's
    thread settles.
    """

    # emptied once nothing is outstanding and it holds at least this many bytes (an empty
    # check per block while it is small: truncating is a metadata write)
    TRUNCATE_AT = 256 * 1024

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOG_FILE
        create_private_file(self.path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self._lock = threading.Lock()
        self._size = os.fstat(self._fd).st_size
        self._outstanding = 0  # logged, and not yet committed to the store

    def append(self, subs: list[Sub]) -> None:
        """Log ``subs`` (durable when this returns); they are marked ``logged``, so that the
        block that commits them reports them (:meth:`settled`)."""
        data = "".join(dumps(TxQueue.row_of(s)) + "\n" for s in subs).encode("ascii")
        with self._lock:
            if self._fd < 0:
                raise RuntimeError("the intake log is closed")
            view = memoryview(data)
            while view:  # a regular file takes it in one write; a short one is finished
                view = view[os.write(self._fd, view) :]
            self._size += len(data)
            self._outstanding += len(subs)
        for s in subs:
            s.logged = True

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
            if self._outstanding <= 0 and self._size >= self.TRUNCATE_AT and self._fd >= 0:
                self._outstanding = 0
                os.ftruncate(self._fd, 0)
                self._size = 0

    @property
    def outstanding(self) -> int:
        """Logged transactions not yet committed to the store."""
        with self._lock:
            return self._outstanding

    def recover(self, store: Store) -> int:
        """At start (nothing appends yet): write the ``Pending`` rows of the logged
        transactions the store does not have, then empty the file. Returns how many were
        written. A line cut short by a kill during its write (its request was never answered)
        is skipped."""
        rows = []
        with open(self.path, "rb") as f:
            for n, line in enumerate(f, 1):
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
                db.executemany(PENDING_ROW.replace("INSERT", "INSERT OR IGNORE", 1), rows)
                written = db.total_changes - before
            if written:
                log.info("%d logged transactions recovered from %s", written, self.path)
        with self._lock:
            os.ftruncate(self._fd, 0)
            self._size = 0
            self._outstanding = 0
        return written

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


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
