"""Intake: a request's transactions checked, signed, recorded and queued; seed rule 3."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.node.errors import ApiError
from tests.unit.ledger_parts import address, opened


def _transfer(ledger: Any, to: str, value: int) -> dict[str, Any]:
    return {"type": "TRANSFER", "payload": {"toAddress": address(ledger, to), "value": value}}


def test_resolve_true_answers_with_the_result(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:

        async def run() -> list[dict[str, Any]]:
            ledger.producer.start()
            try:
                sender = address(ledger, "alice")
                return await ledger.intake.submit(
                    "alice", sender, [_transfer(ledger, "bob", 1)], None, "", True
                )
            finally:
                await ledger.producer.stop()

        (res,) = asyncio.run(run())
        assert res["status"] == "Success"
        row = ledger.store.one("SELECT status FROM txs WHERE hash=?", res["hash"])
        assert row is not None and row["status"] == "Success"


def test_resolve_false_is_recorded_before_its_hash_is_given(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        sender = address(ledger, "alice")
        out = asyncio.run(
            ledger.intake.submit(
                "alice", sender, [_transfer(ledger, "bob", 1)] * 2, None, "", False
            )
        )
        assert [r["status"] for r in out] == ["Pending", "Pending"]
        for r in out:
            row = ledger.store.one("SELECT status FROM txs WHERE hash=?", r["hash"])
            assert row is not None and row["status"] == "Pending"
            assert ledger.queue.is_queued(r["hash"])


def test_a_resolve_true_request_discards_the_senders_async_ones(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        sender = address(ledger, "alice")
        (queued,) = asyncio.run(
            ledger.intake.submit("alice", sender, [_transfer(ledger, "bob", 1)], None, "", False)
        )
        ledger.intake.discard_pending_of("alice")
        assert ledger.results.result(queued["hash"])["status"] == "Discarded"
        row = ledger.store.one("SELECT status FROM txs WHERE hash=?", queued["hash"])
        assert row is not None and row["status"] == "Discarded"
        assert not ledger.queue.is_queued(queued["hash"])


def test_bad_parameters_are_a_400_and_queue_nothing(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        sender = address(ledger, "alice")
        with pytest.raises(ApiError) as err:
            asyncio.run(
                ledger.intake.submit("alice", sender, [_transfer(ledger, "bob", 1)], 5, "", False)
            )
        assert err.value.status == 400 and "txParams" in str(err.value.body)
        assert not ledger.queue.has_pending()


def test_a_resolve_timeout_records_the_transaction_it_names(tmp_path: Path) -> None:
    with opened(tmp_path, resolve_timeout=0.05) as ledger:  # no producer: nothing runs
        sender = address(ledger, "alice")
        with pytest.raises(ApiError) as err:
            asyncio.run(
                ledger.intake.submit("alice", sender, [_transfer(ledger, "bob", 1)], None, "", True)
            )
        assert err.value.status == 504
        (h,) = err.value.body["hashes"]
        row = ledger.store.one("SELECT status FROM txs WHERE hash=?", h)
        assert row is not None and row["status"] == "Pending"  # it survives a crash
        assert ledger.queue.is_queued(h)


def test_a_batch_is_checked_signed_and_recorded_off_the_event_loop(tmp_path: Path) -> None:
    """100 transactions are ~5 ms of checking and signing and a commit that may wait for the
    producer's: the loop keeps serving meanwhile (it used to for more than 200 only)."""
    with opened(tmp_path) as ledger:
        sender = address(ledger, "alice")
        txs = [_transfer(ledger, "bob", 1) for _ in range(100)]

        async def run() -> tuple[int, list[dict[str, Any]]]:
            ticks = 0
            stop = False

            async def ticker() -> None:
                nonlocal ticks
                while not stop:
                    ticks += 1
                    await asyncio.sleep(0)

            task = asyncio.create_task(ticker())
            await asyncio.sleep(0)
            before = ticks
            out = await ledger.intake.submit("alice", sender, txs, None, "", False)
            during = ticks - before
            stop = True
            await task
            return during, out

        during, out = asyncio.run(run())
        assert during > 0  # the loop ran other work while the batch was prepared
        assert len(out) == 100 and all(r["status"] == "Pending" for r in out)
        rows = ledger.store.all(
            f"SELECT status FROM txs WHERE hash IN ({','.join('?' * len(out))})",
            *[r["hash"] for r in out],
        )
        assert len(rows) == 100 and {r["status"] for r in rows} == {"Pending"}
        assert all(ledger.queue.is_queued(r["hash"]) for r in out)
