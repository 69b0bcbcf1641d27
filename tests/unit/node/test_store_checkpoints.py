"""WAL checkpoints on a thread of their own while blocks are produced (store.Checkpointer)."""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
import time
from pathlib import Path

import pytest

from app.node.store import BACKGROUND_NICE, Checkpointer, Store, background_priority

ROWS, SIZE = 1500, 3000  # past SQLite's 1000 pages: a commit would have checkpointed


def _copied(store: Store) -> int:
    """Bytes of the database file proper: what checkpoints copied out of the WAL."""
    return store.path.stat().st_size


def _commit_blobs(store: Store, letter: str, n: int) -> int:
    """``n`` commits, each rewriting one of 50 rows with ``SIZE`` bytes; returns bytes written."""
    blob = letter * SIZE
    for i in range(n):
        with store.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (f"k{i % 50}", blob)
            )
    return n * SIZE


def test_commits_leave_checkpoints_to_the_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Checkpointer, "PERIOD", 3600.0)  # not during the writes
    store = Store(tmp_path)
    store.checkpoint_in_background()
    assert store.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    before = _copied(store)
    blob = "x" * SIZE
    for i in range(ROWS):
        with store.transaction() as db:
            db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (f"k{i}", blob))
    assert _copied(store) < before + SIZE * 10  # no commit checkpointed

    store.checkpoint_in_background(False)
    assert store.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
    monkeypatch.setattr(Checkpointer, "PERIOD", 0.02)
    store.checkpoint_in_background()
    deadline = time.monotonic() + 10
    while _copied(store) < ROWS * SIZE and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _copied(store) >= ROWS * SIZE  # the thread copied it all
    store.close()
    again = Store(tmp_path)
    assert again.get_meta(f"k{ROWS - 1}") == blob
    again.close()


def test_the_wal_stays_bounded_under_steady_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A passive checkpoint never finds a busy WAL idle: without the RESTART past ``LIMIT``
    the WAL would never start over (377 MB after 3,000 token-transfer blocks), holding about
    everything written. The bound is loose, three quarters of what was written: the thread
    waits for a core on a loaded machine (CI under load: 15 MB of 95 MB; beside two CPU
    burners 12.5 MB of 48.9 MB, and 27.8 MB of 58.8 MB)."""
    monkeypatch.setattr(Checkpointer, "PERIOD", 0.02)
    monkeypatch.setattr(Checkpointer, "LIMIT", 1024 * 1024)
    store = Store(tmp_path)
    store.checkpoint_in_background()
    wal = store.path.with_name(store.path.name + "-wal")
    end = time.monotonic() + 2.0
    written = 0
    while time.monotonic() < end:
        written += _commit_blobs(store, "y", 10)
    size = wal.stat().st_size
    store.close()
    assert written > 8 * 1024 * 1024  # enough commits to tell
    assert size < max(6 * 1024 * 1024, written * 3 // 4), (size, written)


def test_the_pass_holding_the_lock_finds_nothing_new_to_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large commit that lands while a pass runs (a Cirrus read draining a backlog) is
    copied by another pass without the store's lock: the pass holding it, which every
    request reading through the store waits for, copies nothing (it copied them all: 94 ms
    with the loop waiting)."""
    monkeypatch.setattr(Checkpointer, "PERIOD", 3600.0)  # only the step called here
    monkeypatch.setattr(Checkpointer, "LIMIT", 256 * 1024)
    store = Store(tmp_path)
    passes: list[tuple[int, int, bool]] = []  # (frames in the WAL, copied, lock held)
    passive = Checkpointer._passive

    def recorded(db: sqlite3.Connection) -> tuple[int, int]:
        log, done = passive(db)
        passes.append((log, done, store.lock._is_owned()))  # type: ignore[attr-defined]
        if len(passes) == 1:  # committed while the first pass ran: ~4 MB it did not copy
            with store.transaction() as db2:
                for i in range(1300):
                    db2.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                        (f"big{i}", "b" * SIZE),
                    )
        return log, done

    monkeypatch.setattr(Checkpointer, "_passive", staticmethod(recorded))
    try:
        store.checkpoint_in_background()
        cp = store._checkpointer
        assert cp is not None
        checker = sqlite3.connect(store.path, isolation_level=None, check_same_thread=False)
        try:
            cp.step(checker)
        finally:
            checker.close()
        locked = [i for i, p in enumerate(passes) if p[2]]
        assert locked == [len(passes) - 1]  # one pass held the lock: the last
        before, last = passes[-2], passes[-1]
        assert before[0] > 1000 and before[1] == before[0]  # the big commit, copied unlocked
        assert last[1] == before[1]  # nothing left for the pass holding the lock
    finally:
        store.close()
    again = Store(tmp_path)
    assert again.get_meta("big1299") == "b" * SIZE
    again.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice value")
def test_the_checkpoint_thread_runs_at_background_priority(tmp_path: Path) -> None:
    """Its thread alone yields the CPU (the WAL copies were taking a sequential request's
    core); the node's other threads keep theirs."""
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen: list[int] = []

    def probe() -> None:
        background_priority()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    t = threading.Thread(target=probe)
    t.start()
    t.join()
    assert seen == [BACKGROUND_NICE] and BACKGROUND_NICE > 0
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before
    store = Store(tmp_path)
    store.checkpoint_in_background()
    try:
        (thread,) = [t for t in threading.enumerate() if t.name == "wal-checkpoint"]
        tid = thread.native_id
        assert tid is not None
        deadline = time.monotonic() + 5
        while (
            os.getpriority(os.PRIO_PROCESS, tid) != BACKGROUND_NICE and time.monotonic() < deadline
        ):
            time.sleep(0.01)
        assert os.getpriority(os.PRIO_PROCESS, tid) == BACKGROUND_NICE
    finally:
        store.close()


def test_the_committing_thread_checkpoints_when_the_thread_gets_no_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checkpoint thread runs at a low priority: on a machine other processes keep busy
    it may get next to no CPU. Past BACKSTOP x LIMIT bytes of WAL the committing thread
    checkpoints itself, so the WAL stays bounded whatever the thread does (here: nothing, its
    period is an hour)."""
    monkeypatch.setattr(Checkpointer, "PERIOD", 3600.0)
    monkeypatch.setattr(Checkpointer, "LIMIT", 256 * 1024)
    store = Store(tmp_path)
    store.checkpoint_in_background()
    wal = store.path.with_name(store.path.name + "-wal")
    written = _commit_blobs(store, "z", 2400)
    size = wal.stat().st_size
    store.close()
    bound = (
        Checkpointer.BACKSTOP + 1
    ) * Checkpointer.LIMIT + Checkpointer.BACKSTOP_EVERY * 2 * SIZE
    assert written > 3 * bound  # without the backstop the WAL would hold it all
    assert size < bound, (size, written)
