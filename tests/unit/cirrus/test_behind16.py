"""The queue of STRATO 16 writes kept behind the chain (cirrus/behind16.py), on a real store:
when it is due, that it writes blocks in order in one transaction with ``cirrus16_through``,
and what a failing write leaves behind."""

from __future__ import annotations

import gc
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


def test_steps_write_the_oldest_blocks_within_their_budget_then_the_rest(store: Store) -> None:
    """A drain in steps (the producer's, between blocks): each writes the oldest blocks it
    took for about its budget (one block at least) in a transaction with the mark; blocks
    sealed meanwhile wait for the next drain; a reader's drain writes all that is left."""
    behind, ix, calls = make(store, delay=60)

    def slow_block(number: int) -> None:
        def job() -> None:
            time.sleep(0.003)  # longer than a step's budget
            store.db.execute("INSERT INTO written VALUES (?, 'slow')", (number,))

        behind.begin(number)
        assert ix.capture is not None
        ix.capture.append(job)
        behind.end()

    for n in (1, 2, 3):
        slow_block(n)
    assert not behind.due() and behind.wait() is not None  # the delay has not passed
    behind.step(0.001)  # (a step when not due still writes: the producer asks only when due)
    assert written(store) == [(1, "slow")] and store.get_meta(THROUGH_KEY) == "1"
    assert behind.pending() and behind.due() and behind.wait() == 0.0  # under way: go on
    slow_block(4)  # sealed during the drain: the next drain's
    behind.step(0.001)
    behind.step(0.001)
    assert written(store) == [(1, "slow"), (2, "slow"), (3, "slow")]
    assert store.get_meta(THROUGH_KEY) == "3" and calls == ["publish"] * 3
    assert behind.pending() and not behind.due()  # block 4 waits for its delay
    seal(behind, ix, store, 5, "e")
    behind.step(1.0)  # a drain's first step takes the queue: 4 and 5 in one transaction
    assert written(store)[-2:] == [(4, "slow"), (5, "e")] and store.get_meta(THROUGH_KEY) == "5"
    for n in (6, 7):
        slow_block(n)
    behind.step(0.001)
    behind.drain()  # a reader's: the rest of the drain under way, at once
    assert [b for b, _ in written(store)][-2:] == [6, 7] and not behind.pending()
    assert store.get_meta(THROUGH_KEY) == "7" and behind.blocks == 7


def test_staged_rows_are_built_when_written(store: Store) -> None:
    """A job whose rows need nothing live (Staged) builds them once, when it is written."""
    ix = Capture()
    behind = Behind16(
        cast(Indexer16, ix), store, threading.Lock(), lambda: None, lambda: None, delay=0
    )
    seen: list[str] = []

    def staged(number: int) -> Staged:
        def make_rows() -> list[str]:
            seen.append("build")
            return [f"row{number}"]

        def put(rows: list[str]) -> None:
            seen.append("write")
            store.db.executemany("INSERT INTO written VALUES (?, ?)", [(number, r) for r in rows])

        return Staged(make_rows, put)

    for number, write in ((1, behind.step), (2, behind.drain)):
        behind.begin(number)
        assert ix.capture is not None
        ix.capture.append(staged(number))
        behind.end()
        write()
    assert seen == ["build", "write"] * 2
    assert written(store) == [(1, "row1"), (2, "row2")]


class Taken:
    """What a job holds of its block (a weak reference tells when it is freed)."""


def test_a_drained_blocks_jobs_are_freed_when_the_drain_ends(store: Store) -> None:
    """Nothing of a drain is kept once it is written: what the jobs took is freed then, not
    at the next drain (the collector's young passes walked it until then)."""
    behind, ix, _ = make(store, delay=0)
    taken = Taken()
    gone = weakref.ref(taken)

    def job(held: Taken = taken) -> None:
        store.db.execute("INSERT INTO written VALUES (1, ?)", (type(held).__name__,))

    behind.begin(1)
    assert ix.capture is not None
    ix.capture.append(job)
    behind.end()
    del job, taken
    assert gone() is not None  # queued
    behind.step()
    assert written(store) == [(1, "Taken")] and not behind.pending()
    assert gone() is None and behind.blocks == 1


def test_a_drain_writes_with_the_collector_paused_and_turns_it_back_on(store: Store) -> None:
    """A drain's young passes held the interpreter lock 16-23 ms each while a Cirrus read
    drained 150 blocks: it writes with the cyclic collector paused, and on again after (also
    when a write fails)."""
    behind, ix, _ = make(store, delay=60)
    seen: list[bool] = []
    behind.begin(1)
    assert ix.capture is not None
    ix.capture.append(lambda: seen.append(gc.isenabled()))
    behind.end()
    seal(behind, ix, store, 2, "boom")
    assert gc.isenabled()
    behind.drain()
    assert seen and not any(seen)  # (the failed batch's jobs ran again block by block)
    assert gc.isenabled()
