"""ChainState: the live state and the committed view readers get of it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.node.ledger.common import Head
from tests.unit.ledger_parts import address, opened


def test_without_producer_the_live_state_is_the_committed_one(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        state = ledger.state
        key = ("", int(address(ledger, "alice"), 16))
        state.world.balances[key] = 7
        assert state.committed().balances.get(key) == 7


def test_a_pinned_view_does_not_see_the_block_being_executed(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        state = ledger.state
        key = ("", int(address(ledger, "alice"), 16))
        before = state.world.balances.get(key)
        state.keep_history()
        with state.pinned_view() as view:
            state.begin(state.head.number + 1)
            state.will_write(state.world.balances, key)
            state.world.balances[key] = 1
            assert view.balances.get(key) == before  # the block is not committed
        with state.pinned_view() as later:
            assert later.balances.get(key) == before  # still not: the head did not move
        state.advance(Head(state.head.number + 1, "ab" * 32, state.head.timestamp))
        with state.pinned_view() as after:
            assert after.balances.get(key) == 1


def test_committed_needs_the_loop_once_readers_run_beside_the_worker(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        ledger.state.keep_history()
        with pytest.raises(RuntimeError, match="pins a view"):
            ledger.state.committed()

        async def on_loop() -> bool:
            first = ledger.state.committed()
            return first is ledger.state.committed()  # one view per loop turn

        assert asyncio.run(on_loop())


def test_block_times_and_hashes_come_from_the_store(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        head = ledger.state.head
        assert head.number >= 0
        assert ledger.state.block_times({head.number, 10_000}) == {head.number: head.timestamp}
        assert ledger.state.block_hash(head.number) == head.hash
        assert ledger.state.block_hash(head.number + 1) is None  # being sealed
