"""Producer: the thread that seals what the queue holds, and its halt after an internal error."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.node.errors import ApiError
from tests.unit.ledger_parts import opened, transfer


def test_the_producer_seals_queued_transactions_and_answers_on_the_loop(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        subs = [transfer(ledger, "alice", "bob", 1) for _ in range(3)]

        async def run() -> list[dict[str, Any]]:
            loop = asyncio.get_running_loop()
            ledger.producer.start()
            try:
                for s in subs:
                    s.future = loop.create_future()
                ledger.queue.put(subs)
                return list(
                    await asyncio.wait_for(
                        asyncio.gather(*(s.future for s in subs if s.future)), 10
                    )
                )
            finally:
                await ledger.producer.stop()

        results = asyncio.run(run())
        assert [r["status"] for r in results] == ["Success"] * 3
        assert not ledger.queue.has_pending()
        assert ledger.store.get_meta("snapshot_block") == str(ledger.state.head.number)  # at stop


def test_an_internal_error_halts_production(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        bad = transfer(ledger, "alice", "bob", 1)
        del bad.payload["toAddress"]  # not a contract error: the block cannot be sealed

        async def run() -> None:
            loop = asyncio.get_running_loop()
            ledger.producer.start()
            try:
                bad.future = loop.create_future()
                ledger.queue.put([bad])
                await asyncio.wait_for(bad.future, 10)
            finally:
                await ledger.producer.stop()

        with pytest.raises(ApiError) as err:
            asyncio.run(run())
        assert err.value.status == 503
        assert ledger.producer.halted and "internal error" in ledger.producer.halted
        assert ledger.queue.waiting() == [bad]  # still Pending on disk: re-run after a restart


def _blocks_of(ledger: Any, subs: list[Any]) -> list[int]:
    return [
        ledger.store.one("SELECT block_number FROM txs WHERE hash=?", s.hash)["block_number"]
        for s in subs
    ]


async def _drained(ledger: Any) -> None:
    for _ in range(1000):
        if not ledger.queue.has_pending():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the queue did not drain")


def test_resolve_false_transactions_arriving_one_by_one_share_a_block(tmp_path: Path) -> None:
    """An idle producer waits a moment for company (``group_wait``): one block, one commit."""
    with opened(tmp_path) as ledger:
        subs = [transfer(ledger, "alice", "bob", 1) for _ in range(5)]
        ledger.producer.group_wait = 1.0  # wide, for a loaded machine (the node's is 10 ms)

        async def run() -> None:
            ledger.producer.start()
            try:
                for s in subs:
                    ledger.queue.record([s])
                    ledger.queue.put([s])
                    await asyncio.sleep(0.02)
                await _drained(ledger)
            finally:
                await ledger.producer.stop()

        asyncio.run(run())
        assert len(set(_blocks_of(ledger, subs))) == 1
        assert {ledger.results.result(s.hash)["status"] for s in subs} == {"Success"}


def test_a_transaction_its_request_waits_for_is_not_held_back(tmp_path: Path) -> None:
    """A resolve=true transaction ends the wait at once, taking the queued ones with it."""
    with opened(tmp_path) as ledger:
        early = transfer(ledger, "alice", "bob", 1)
        waited = transfer(ledger, "alice", "bob", 1)
        ledger.producer.group_wait = 30.0

        async def run() -> tuple[float, dict[str, Any]]:
            loop = asyncio.get_running_loop()
            ledger.producer.start()
            try:
                ledger.queue.record([early])
                ledger.queue.put([early])
                await asyncio.sleep(0.05)
                assert ledger.queue.is_queued(early.hash)  # held, waiting for company
                t0 = loop.time()
                waited.future = loop.create_future()
                ledger.queue.put([waited])
                res = await asyncio.wait_for(waited.future, 10)
                return loop.time() - t0, res
            finally:
                await ledger.producer.stop()

        took, res = asyncio.run(run())
        assert res["status"] == "Success" and took < 5.0
        assert len(set(_blocks_of(ledger, [early, waited]))) == 1


@pytest.mark.parametrize("awaited", [False, True])
def test_an_idle_producer_writes_strato16_rows_once_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, awaited: bool
) -> None:
    """STRATO 16's rows of a block wait behind the chain; with no transaction coming, the
    producer wakes when they are due and writes them without anyone asking: in steps after a
    submission (resolve=false, answered without the producer), all at once after a block whose
    client awaits it (resolve=true: its next request comes once it is answered)."""
    from tests.unit.ledger_parts import COUNTER, address

    with opened(tmp_path) as ledger:
        behind = ledger.behind16
        assert behind is not None
        behind.delay = 0.2
        calls: list[str] = []
        for name in ("step", "drain"):
            method = getattr(behind, name)

            def counted(*args: Any, _method: Any = method, _name: str = name) -> None:
                calls.append(_name)
                _method(*args)

            monkeypatch.setattr(behind, name, counted)
        payload = ledger.validator.check_upload({"src": COUNTER, "args": {"start": 1}}, "t")
        alice = address(ledger, "alice")
        sub = ledger.keys.new_sub("alice", alice, "CONTRACT", payload, "", None, resolve=awaited)

        async def run() -> tuple[bool, float, list[str]]:
            loop = asyncio.get_running_loop()
            ledger.producer.start()
            try:
                sub.future = loop.create_future()
                ledger.queue.put([sub])
                result = await asyncio.wait_for(sub.future, 10)
                assert result["status"] == "Success"
                queued = behind.pending()  # (sealed: its rows wait for the delay)
                start = loop.time()
                while behind.pending() and loop.time() - start < 10:
                    await asyncio.sleep(0.01)
                return queued, loop.time() - start, list(calls)  # (stopping drains too)
            finally:
                await ledger.producer.stop()

        queued, took, used = asyncio.run(run())
        assert queued and not behind.pending()
        assert 0.05 < took < 5  # written after the delay, by the producer alone
        assert used == (["drain"] if awaited else ["step"])
        through = ledger.store.get_meta("cirrus16_through")
        assert through == str(ledger.state.head.number)
