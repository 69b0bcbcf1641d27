"""The queue of STRATO 16 writes kept behind the chain (cirrus/behind16.py), on a real store:
when it is due, that it writes blocks in order in one transaction with ``cirrus16_through``,
and what a failing write leaves behind."""

from __future__ import annotations

import threading
import time
import weakref
from pathlib import Path
from typing import Any, cast

import pytest

from app.node.cirrus.behind16 import THROUGH_KEY, Behind16
from app.node.cirrus.indexer16 import Indexer16, Staged
from app.node.store import Store


class Capture:
    """What Behind16 uses of an Indexer16: the list writes go to while a block is sealed,
    and the batch a drain gathers rows in (nothing to gather here)."""

    capture: list[Any] | None = None
    batches = 0

    def begin_batch(self) -> None:
        self.batches += 1

    def write_batch(self) -> None:
        pass

    def end_batch(self, write: bool = True) -> None:
        pass


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path)
    s.db.execute("CREATE TABLE written (block INTEGER, what TEXT)")
    return s


def make(store: Store, **kw: Any) -> tuple[Behind16, Capture, list[str]]:
    ix = Capture()
    calls: list[str] = []
    behind = Behind16(
        cast(Indexer16, ix),
        store,
        threading.Lock(),
        lambda: calls.append("forget"),
        lambda: calls.append("publish"),
        **kw,
    )
    return behind, ix, calls


def seal(behind: Behind16, ix: Capture, store: Store, number: int, *whats: str) -> None:
    """A block whose sealing leaves writes of ``whats`` (``boom``: a write that fails)."""
    behind.begin(number)
    for what in whats:
        assert ix.capture is not None

        def job(what: str = what) -> None:
            if what == "boom":
                raise RuntimeError("boom")
            store.db.execute("INSERT INTO written VALUES (?, ?)", (number, what))

        ix.capture.append(job)
    behind.end()
    assert ix.capture is None


def written(store: Store) -> list[tuple[int, str]]:
    return [tuple(r) for r in store.db.execute("SELECT block, what FROM written ORDER BY rowid")]


def test_blocks_are_written_in_order_in_one_go_with_their_mark(store: Store) -> None:
    behind, ix, calls = make(store, delay=60)
    seal(behind, ix, store, 1, "a", "b")
    seal(behind, ix, store, 2)  # nothing for STRATO 16: not queued
    seal(behind, ix, store, 3, "c")
    assert written(store) == [] and behind.pending()
    behind.drain()
    assert written(store) == [(1, "a"), (1, "b"), (3, "c")]
    assert store.get_meta(THROUGH_KEY) == "3"
    assert calls == ["publish"] and not behind.pending() and behind.wait() is None


def test_due_after_the_delay_or_at_max_blocks(store: Store) -> None:
    behind, ix, _ = make(store, delay=0.05, max_blocks=3)
    assert behind.wait() is None and not behind.due()
    seal(behind, ix, store, 1, "a")
    wait = behind.wait()
    assert wait is not None and 0 < wait <= 0.05 and not behind.due()
    time.sleep(0.06)
    assert behind.due()
    behind.drain()
    seal(behind, ix, store, 2, "a")
    seal(behind, ix, store, 3, "a")
    assert not behind.due()
    seal(behind, ix, store, 4, "a")
    assert behind.due()  # three blocks queued, whatever the delay


def test_a_rolled_back_block_leaves_nothing_queued(store: Store) -> None:
    behind, ix, _ = make(store, delay=60)
    behind.begin(1)
    assert ix.capture is not None
    ix.capture.append(lambda: None)
    behind.restart()
    behind.end()
    assert not behind.pending()


def test_a_failing_block_stops_the_mark_before_it(store: Store) -> None:
    behind, ix, calls = make(store, delay=60)
    seal(behind, ix, store, 1, "a")
    behind.drain()
    seal(behind, ix, store, 2, "b")
    seal(behind, ix, store, 3, "boom")
    seal(behind, ix, store, 4, "d")
    behind.drain()
    # the batch failed, block 2 alone was written; 3 failed: 3 and 4 wait for the next start
    assert written(store) == [(1, "a"), (2, "b")]
    assert store.get_meta(THROUGH_KEY) == "2"
    assert behind.failed == 3 and "forget" in calls
    seal(behind, ix, store, 5, "e")
    behind.drain()
    assert written(store) == [(1, "a"), (2, "b")]  # nothing more until the rebuild
    assert store.get_meta(THROUGH_KEY) == "2"


def test_the_writer_thread_drains_when_due_and_on_stop(store: Store) -> None:
    behind, ix, _ = make(store, delay=0.05)
    behind.start()
    try:
        seal(behind, ix, store, 1, "a")
        deadline = time.monotonic() + 5
        while behind.pending() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert written(store) == [(1, "a")]
        behind.delay = 60.0
        seal(behind, ix, store, 2, "b")
        time.sleep(0.1)
        assert written(store) == [(1, "a")]  # not due yet
    finally:
        behind.stop()
    assert written(store) == [(1, "a"), (2, "b")] and not behind.pending()
    assert store.get_meta(THROUGH_KEY) == "2"


def test_the_writer_builds_staged_rows_before_it_takes_the_sealing_lock(store: Store) -> None:
    """A job whose rows need nothing live (Staged) is built off the sealing lock, beside the
    producer, and written under it; a drain that a reader asks for builds and writes it."""
    sealing = threading.Lock()
    ix = Capture()
    behind = Behind16(cast(Indexer16, ix), store, sealing, lambda: None, lambda: None, delay=0)
    seen: list[tuple[str, bool]] = []

    def staged(number: int) -> Staged:
        def make_rows() -> list[str]:
            seen.append(("build", sealing.locked()))
            return [f"row{number}"]

        def put(rows: list[str]) -> None:
            seen.append(("write", sealing.locked()))
            store.db.executemany("INSERT INTO written VALUES (?, ?)", [(number, r) for r in rows])

        return Staged(make_rows, put)

    behind.begin(1)
    assert ix.capture is not None
    ix.capture.append(staged(1))
    behind.end()
    behind.start()
    try:
        deadline = time.monotonic() + 5
        while behind.pending() and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        behind.stop()
    assert seen == [("build", False), ("write", True)]
    assert written(store) == [(1, "row1")]
    seen.clear()
    behind.begin(2)
    capture = ix.capture
    assert capture is not None
    capture.append(staged(2))
    behind.end()
    behind.drain()  # a reader's: built and written at once
    assert [s for s, _ in seen] == ["build", "write"] and written(store)[-1] == (2, "row2")


class Taken:
    """What a job holds of its block (a weak reference tells when it is freed)."""


def test_a_drained_blocks_jobs_are_freed_when_the_drain_ends(store: Store) -> None:
    """The writer thread keeps nothing of a drain once it is written: what the jobs took is
    freed then, not at the next drain (the collector's young passes walked it until then)."""
    behind, ix, _ = make(store, delay=0.05)
    taken = Taken()
    gone = weakref.ref(taken)

    def job(held: Taken = taken) -> None:
        store.db.execute("INSERT INTO written VALUES (1, ?)", (type(held).__name__,))

    behind.begin(1)
    assert ix.capture is not None
    ix.capture.append(job)
    behind.end()
    del job, taken
    behind.start()
    try:
        deadline = time.monotonic() + 5
        while behind.pending() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert written(store) == [(1, "Taken")]
        deadline = time.monotonic() + 5
        while gone() is not None and time.monotonic() < deadline:
            time.sleep(0.01)  # (the writer thread is leaving the drain)
        assert gone() is None  # no other drain ran meanwhile: the delay is long past
        assert behind.blocks == 1
    finally:
        behind.stop()
