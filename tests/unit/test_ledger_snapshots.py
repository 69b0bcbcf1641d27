"""Snapshots: what changed is written; a restart loads it and replays the blocks after it."""

from __future__ import annotations

from pathlib import Path

from tests.unit.ledger_parts import balance, opened, transfer


def test_a_snapshot_writes_the_changes_and_forgets_them(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        sub = transfer(ledger, "alice", "bob", 5)
        ledger.queue.record([sub])
        ledger.sealer.run_block([sub])
        assert ledger.changes.balances  # not written yet
        ledger.snapshots.snapshot()
        assert not ledger.changes.balances and not ledger.changes.contracts
        assert ledger.store.get_meta("snapshot_block") == str(ledger.state.head.number)
        row = ledger.store.one(
            "SELECT balance FROM accounts WHERE chain='' AND address=?", sub.sender
        )
        assert row is not None and int(row["balance"]) == balance(ledger, "alice")


def test_a_restart_loads_the_snapshot_and_replays_the_blocks_after_it(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        ledger.snapshots.snapshot()
        snap = ledger.state.head.number
        for value in (1, 2, 3):  # three blocks after the snapshot
            sub = transfer(ledger, "alice", "bob", value)
            ledger.queue.record([sub])
            ledger.sealer.run_block([sub])
        head = ledger.state.head
        alice, bob = balance(ledger, "alice"), balance(ledger, "bob")
        assert ledger.store.get_meta("snapshot_block") == str(snap)
    with opened(tmp_path) as ledger:
        assert ledger.state.head == head
        assert (balance(ledger, "alice"), balance(ledger, "bob")) == (alice, bob)


def test_loading_alone_stops_at_the_snapshot(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        snap_head = ledger.state.head
        sub = transfer(ledger, "alice", "bob", 1)
        ledger.queue.record([sub])
        ledger.sealer.run_block([sub])
        before = balance(ledger, "bob") - 1
    with opened(tmp_path) as ledger:
        from app.node.config import NodeConfig
        from app.node.ledger import Ledger

        fresh = Ledger(NodeConfig(data_dir=tmp_path), ledger.store, ledger.vault)
        fresh.snapshots.load()
        assert fresh.state.head == snap_head
        assert balance(fresh, "bob") == before
