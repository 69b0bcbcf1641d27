"""TxQueue: the waiting transactions, the executing batch and their durable record."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from app.node.txvisibility import hidden_hashes
from tests.unit.ledger_parts import opened, transfer


def test_recording_writes_pending_rows_once(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        subs = [transfer(ledger, "alice", "bob", 1) for _ in range(2)]
        ledger.queue.record(subs)
        ledger.queue.record(subs)  # already recorded: nothing written twice
        rows = ledger.store.all(
            "SELECT status FROM txs WHERE hash IN (?, ?)", *(s.hash for s in subs)
        )
        assert [r["status"] for r in rows] == ["Pending", "Pending"]
        assert all(s.recorded for s in subs)


def test_what_did_not_fit_goes_behind_the_other_users(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        q = ledger.queue
        a1, a2 = transfer(ledger, "alice", "bob", 1), transfer(ledger, "alice", "bob", 2)
        b1 = transfer(ledger, "bob", "alice", 1)
        q.put([a1, a2])
        batch = q.take(10)
        assert batch == [a1, a2] and q.is_queued(a1.hash) and q.has_pending()
        q.put([b1])
        q.done([a2])  # a1 was sealed, a2 was not
        assert q.waiting() == [b1, a2]
        assert not q.is_queued(a1.hash)
        assert q.queued_hashes() == {b1.hash, a2.hash}


def test_a_failed_batch_goes_back_to_the_head(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        q = ledger.queue
        a, b = transfer(ledger, "alice", "bob", 1), transfer(ledger, "bob", "alice", 1)
        q.put([a])
        batch = q.take(10)
        q.put([b])
        q.give_back(batch)
        assert q.waiting() == [a, b]


def test_only_a_users_async_transactions_are_discarded(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        q = ledger.queue
        keep = transfer(ledger, "alice", "bob", 1)
        keep.resolve = True
        gone = transfer(ledger, "alice", "bob", 2)
        other = transfer(ledger, "bob", "alice", 3)
        q.put([keep, gone, other])
        assert q.discard_async_of("alice") == [gone]
        assert q.waiting() == [keep, other]
        assert q.queued_hashes() == {keep.hash, other.hash} and not q.is_queued(gone.hash)


def test_waiting_ends_with_work_or_when_closed(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        q = ledger.queue
        q.open()
        got: list[tuple[bool, bool]] = []
        t = threading.Thread(target=lambda: got.append(q.wait()))
        t.start()
        q.put([transfer(ledger, "alice", "bob", 1)])
        t.join(5)
        assert got[0][1] is False  # work, not closed
        q.take(10)
        q.done([])
        t = threading.Thread(target=lambda: got.append(q.wait()))
        t.start()
        q.close()
        t.join(5)
        assert got[1] == (True, True)


def test_gather_waits_for_company_but_not_for_an_awaited_transaction(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        queue = ledger.queue
        queue.open()
        queue.put([transfer(ledger, "alice", "bob", 1)])
        t0 = time.monotonic()
        queue.gather(0.2)  # resolve=false only: the whole wait
        assert time.monotonic() - t0 >= 0.19
        waited = transfer(ledger, "alice", "bob", 1)

        async def make_future() -> None:
            waited.future = asyncio.get_running_loop().create_future()

        asyncio.run(make_future())
        timer = threading.Timer(0.05, queue.put, ([waited],))
        t0 = time.monotonic()
        timer.start()
        queue.gather(30.0)  # ends when the awaited one arrives
        assert time.monotonic() - t0 < 10.0
        assert len(queue.take(10)) == 2
        t0 = time.monotonic()
        queue.put([transfer(ledger, "alice", "bob", 1) for _ in range(16)])
        queue.gather(30.0)  # a batch: a block of its own, no wait
        assert time.monotonic() - t0 < 10.0
        assert len(queue.take(100)) == 16
        t0 = time.monotonic()
        queue.put([transfer(ledger, "alice", "bob", 1)])
        queue.close()
        queue.gather(30.0)  # closed: no wait
        assert time.monotonic() - t0 < 10.0


def test_queued_hashes_follow_the_queue_through_takes_and_give_backs(tmp_path: Path) -> None:
    """What is queued or executing, told without walking the queue: the same transaction
    queued twice stays queued until both have left."""
    with opened(tmp_path) as ledger:
        q = ledger.queue
        a, b = transfer(ledger, "alice", "bob", 1), transfer(ledger, "bob", "alice", 1)
        q.put([a, a])
        q.put([b])
        assert q.queued_among([a.hash, b.hash, "ff" * 32]) == {a.hash, b.hash}
        q.give_back(q.take(1))  # failed: still queued
        assert q.queued_hashes() == {a.hash, b.hash}
        q.take(2)
        q.done([])  # both copies of a sealed
        assert q.queued_hashes() == {b.hash} and not q.is_queued(a.hash)
        q.take(1)
        assert q.is_queued(b.hash)  # executing
        q.done([b])  # did not fit: back in the queue
        assert q.queued_hashes() == {b.hash}
        q.take(1)
        q.done([])
        assert q.queued_hashes() == set() and not q.has_pending()


def test_queued_private_transactions_are_hidden_from_non_members(tmp_path: Path) -> None:
    """A resolve=false transaction has no row until its block: the queue tells its private
    chain, so that a non-member's resolve does not wait for it (the wait would show that it
    exists); after its block, its row tells."""
    with opened(tmp_path) as ledger:
        q = ledger.queue
        chain = "c0" * 32
        private = transfer(ledger, "alice", "bob", 1)
        private.chain = chain
        public = transfer(ledger, "alice", "bob", 2)
        q.put([private, public])
        assert q.chains_among([private.hash, public.hash, "ab" * 32]) == {private.hash: chain}
        assert hidden_hashes(ledger, "bob", [public.hash, private.hash]) == {private.hash}
        batch = q.take(10)
        assert q.chains_among([private.hash]) == {private.hash: chain}  # executing
        q.done([])
        assert q.chains_among([private.hash]) == {}
        with ledger.store.transaction() as db:  # as its block would
            ledger.queue.insert_rows(db, batch)
        assert hidden_hashes(ledger, "bob", [public.hash, private.hash]) == {private.hash}
