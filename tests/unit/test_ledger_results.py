"""Results: the cache in front of the txs table, and requests waiting for queued results."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.node.errors import ApiError
from tests.unit.ledger_parts import opened, transfer


def test_an_unknown_or_unfinished_transaction_is_pending(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        sub = transfer(ledger, "alice", "bob", 1)
        assert ledger.results.result(sub.hash)["status"] == "Pending"
        ledger.queue.record([sub])
        assert ledger.results.result(sub.hash)["status"] == "Pending"


def test_a_poll_of_queued_transactions_reads_nothing_from_the_store(tmp_path: Path) -> None:
    """Queued or executing: pending without a query (the producer holds the store's lock
    while it commits); a sealed one not cached any more is still read back."""
    with opened(tmp_path) as ledger:
        queued = [transfer(ledger, "alice", "bob", n) for n in (1, 2)]
        ledger.queue.record(queued)
        ledger.queue.put(queued)
        statements: list[str] = []
        ledger.store.db.set_trace_callback(statements.append)
        try:
            out = ledger.results.results_of([s.hash for s in queued])
        finally:
            ledger.store.db.set_trace_callback(None)
        assert [r["status"] for r in out] == ["Pending", "Pending"]
        assert [r["hash"] for r in out] == [s.hash for s in queued]
        assert statements == []
        unknown = "ab" * 32
        ledger.store.db.set_trace_callback(statements.append)
        try:
            assert ledger.results.results_of([unknown])[0]["status"] == "Pending"
        finally:
            ledger.store.db.set_trace_callback(None)
        assert len(statements) == 1  # not queued: looked for on disk


def test_queued_of_names_the_queued_hashes_not_yet_answered(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        queued = [transfer(ledger, "alice", "bob", n) for n in (1, 2)]
        ledger.queue.record(queued)
        ledger.queue.put(queued)
        unknown = "ab" * 32
        assert ledger.results.queued_of([queued[0].hash, unknown, queued[1].hash]) == {
            queued[0].hash,
            queued[1].hash,
        }
        # answered (in the cache) while still counted as queued: the answer wins
        ledger.results.remember(queued[0].hash, {"status": "Success", "hash": queued[0].hash})
        assert ledger.results.queued_of([s.hash for s in queued]) == {queued[1].hash}


def test_a_sealed_result_is_read_back_from_the_store(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        sub = transfer(ledger, "alice", "bob", 1)
        ledger.queue.record([sub])
        ledger.sealer.run_block([sub])
        cached = ledger.results.result(sub.hash)
    with opened(tmp_path) as ledger:  # a fresh cache: from the txs row
        stored = ledger.results.result(sub.hash)
        assert stored["status"] == "Success"
        assert stored["txResult"]["blockHash"] == cached["txResult"]["blockHash"]


def test_waiters_get_the_published_result(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        sub = transfer(ledger, "alice", "bob", 1)
        ledger.queue.record([sub])
        ledger.queue.put([sub])

        async def wait_and_publish() -> list[str]:
            waiting = asyncio.ensure_future(ledger.results.wait_results([sub.hash], 5))
            await asyncio.sleep(0)
            res = {"status": "Success", "hash": sub.hash, "txResult": None, "data": None}
            ledger.results.publish([sub], [res])
            return [r["status"] for r in await waiting]

        assert asyncio.run(wait_and_publish()) == ["Success"]
        assert ledger.results.result(sub.hash)["status"] == "Success"  # cached


def test_a_halt_fails_every_waiter(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        sub = transfer(ledger, "alice", "bob", 1)
        ledger.queue.put([sub])

        async def wait_and_halt() -> None:
            loop = asyncio.get_running_loop()
            fut: asyncio.Future[list[dict[str, object]]] = loop.create_future()
            waiting = asyncio.ensure_future(ledger.results.wait_results([sub.hash], 5))
            await asyncio.sleep(0)
            ledger.results.fail_all(lambda: ApiError(503, "stopped"))
            fut.set_result(await waiting)

        with pytest.raises(ApiError):
            asyncio.run(wait_and_halt())
