"""Intake: a request's transactions checked, signed, recorded (or logged) and queued; seed
rule 3; the intake log's recovery."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from app.node.errors import ApiError
from tests.unit.ledger_parts import address, balance, opened


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


def _logged_hashes(ledger: Any) -> list[str]:
    """The hashes in the intake log's file (up to its zeros), in order."""
    data = ledger.intake_log.path.read_bytes()
    return [json.loads(line)[1] for line in data[: data.index(b"\0")].splitlines()]


def _row(ledger: Any, tx_hash: str) -> Any:
    return ledger.store.one("SELECT status, block_number FROM txs WHERE hash=?", tx_hash)


def _count(ledger: Any) -> int:
    return int(ledger.store.all("SELECT COUNT(*) AS n FROM txs")[0]["n"])


def test_resolve_false_is_logged_before_its_hash_is_given(tmp_path: Path) -> None:
    """Its hash is handed out once the intake log has it: no row yet (written with its block,
    sealed), but a restart (here without running it, as after a kill) finds it and runs it."""
    with opened(tmp_path) as ledger:
        sender = address(ledger, "alice")
        out = asyncio.run(
            ledger.intake.submit(
                "alice", sender, [_transfer(ledger, "bob", 1)] * 2, None, "", False
            )
        )
        hashes = [r["hash"] for r in out]
        assert [r["status"] for r in out] == ["Pending", "Pending"]
        assert _logged_hashes(ledger) == hashes
        assert ledger.intake_log.outstanding == 2
        for h in hashes:
            assert _row(ledger, h) is None
            assert ledger.queue.is_queued(h)
            assert ledger.results.result(h)["status"] == "Pending"
    with opened(tmp_path) as ledger:  # (the producer never ran)
        for h in hashes:
            row = _row(ledger, h)
            assert row is not None and row["status"] == "Pending"
            assert ledger.queue.is_queued(h)
        assert _logged_hashes(ledger) == []
        before = balance(ledger, "bob")
        ledger.run_pending()
        assert balance(ledger, "bob") == before + 2
        assert {_row(ledger, h)["status"] for h in hashes} == {"Success"}


def test_a_sealed_block_settles_its_logged_transactions(tmp_path: Path) -> None:
    """Once their block is committed the log need not keep them: with none outstanding (and
    enough bytes in it) the file is emptied; a restart then runs nothing twice."""
    with opened(tmp_path) as ledger:
        ledger.intake_log.TRUNCATE_AT = 1  # (emptied whenever nothing is outstanding)
        sender = address(ledger, "alice")
        first = asyncio.run(
            ledger.intake.submit("alice", sender, [_transfer(ledger, "bob", 5)], None, "", False)
        )
        asyncio.run(
            ledger.intake.submit("alice", sender, [_transfer(ledger, "bob", 7)], None, "", False)
        )
        ledger.producer.run_pending(limit=1)  # the first only: the second stays outstanding
        assert _row(ledger, first[0]["hash"])["status"] == "Success"
        assert ledger.intake_log.outstanding == 1
        assert len(_logged_hashes(ledger)) == 2  # not emptied while one is outstanding
        ledger.producer.run_pending()
        assert ledger.intake_log.outstanding == 0
        assert _logged_hashes(ledger) == []
        bob = balance(ledger, "bob")
        count = _count(ledger)
    with opened(tmp_path) as ledger:
        assert not ledger.queue.has_pending()
        assert balance(ledger, "bob") == bob
        assert _count(ledger) == count


def test_recovery_skips_a_cut_line_and_rows_already_stored(tmp_path: Path) -> None:
    """A kill during an append leaves a line cut short (its request was never answered): it is
    skipped. A logged transaction whose block was committed before the kill keeps its row."""
    with opened(tmp_path) as ledger:
        ledger.intake_log.TRUNCATE_AT = 1 << 30  # never emptied: as if killed before
        sender = address(ledger, "alice")
        sealed, queued = (
            asyncio.run(
                ledger.intake.submit(
                    "alice", sender, [_transfer(ledger, "bob", v)], None, "", False
                )
            )[0]["hash"]
            for v in (1, 2)
        )
        ledger.producer.run_pending(limit=1)
        assert _row(ledger, sealed)["status"] == "Success"
        with ledger.intake_log.path.open("r+b") as f:  # cut short: zeros after it
            f.seek(f.read().index(b"\0"))
            f.write(b'[99999,"' + b"ab" * 32 + b'","0x')
    with opened(tmp_path) as ledger:
        assert _row(ledger, sealed)["status"] == "Success"
        assert _row(ledger, queued)["status"] == "Pending"
        assert _row(ledger, "ab" * 32) is None
        assert [s.hash for s in ledger.queue.waiting()] == [queued]


def test_a_resolve_true_request_discards_the_senders_async_ones(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        sender = address(ledger, "alice")
        (queued,) = asyncio.run(
            ledger.intake.submit("alice", sender, [_transfer(ledger, "bob", 1)], None, "", False)
        )
        ledger.intake.discard_pending_of("alice")
        assert ledger.results.result(queued["hash"])["status"] == "Discarded"
        row = ledger.store.one("SELECT status, result FROM txs WHERE hash=?", queued["hash"])
        assert row is not None and row["status"] == "Discarded"
        assert json.loads(row["result"])["status"] == "Discarded"
        assert not ledger.queue.is_queued(queued["hash"])
        assert ledger.intake_log.outstanding == 0  # its row stands for it now
    with opened(tmp_path) as ledger:  # and a restart does not run it
        assert not ledger.queue.has_pending()
        row = ledger.store.one("SELECT status FROM txs WHERE hash=?", queued["hash"])
        assert row is not None and row["status"] == "Discarded"


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
        # recorded, not logged: their rows' insert runs beside the producer (Intake.prepare)
        assert len(rows) == 100 and {r["status"] for r in rows} == {"Pending"}
        assert _logged_hashes(ledger) == []
        assert all(ledger.queue.is_queued(r["hash"]) for r in out)
