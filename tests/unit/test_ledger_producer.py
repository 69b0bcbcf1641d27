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
