"""BlockSealer: a batch executed and committed as the next block, in one transaction."""

from __future__ import annotations

from pathlib import Path

from tests.unit.ledger_parts import opened, transfer


def test_a_block_commits_its_transactions_and_moves_the_head(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        parent = ledger.state.head
        subs = [transfer(ledger, "alice", "bob", v) for v in (1, 2)]
        ledger.sealer.run_block(subs)  # not recorded before: written with the block
        head = ledger.state.head
        assert head.number == parent.number + 1
        block = ledger.store.one("SELECT * FROM blocks WHERE number=?", head.number)
        assert block is not None
        assert (block["hash"], block["parent_hash"], block["tx_count"]) == (
            head.hash,
            parent.hash,
            2,
        )
        rows = ledger.store.all(
            "SELECT hash, status, block_number, tx_index FROM txs WHERE block_number=? "
            "ORDER BY tx_index",
            head.number,
        )
        assert [(r["hash"], r["status"], r["tx_index"]) for r in rows] == [
            (subs[0].hash, "Success", 0),
            (subs[1].hash, "Success", 1),
        ]
        res = ledger.results.result(subs[1].hash)  # published to the cache
        assert res["txResult"]["blockHash"] == head.hash


def test_a_budget_seals_only_a_prefix(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        subs = [transfer(ledger, "alice", "bob", 1) for _ in range(3)]
        done = ledger.sealer.seal(subs, budget=1e-9)
        assert len(done) == 1  # the first exhausts the budget
        tx_count = ledger.store.one(
            "SELECT tx_count FROM blocks WHERE number=?", ledger.state.head.number
        )
        assert tx_count is not None and tx_count[0] == 1
        assert ledger.store.one("SELECT 1 FROM txs WHERE hash=?", subs[1].hash) is None


def test_blocks_after_the_snapshot_replay_to_the_same_state(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        ledger.sealer.run_block([transfer(ledger, "bob", "alice", 3)])
        head = ledger.state.head
        balances = {k: v for k, v in ledger.state.world.balances.items() if v}
    with opened(tmp_path) as ledger:
        assert ledger.state.head == head
        assert {k: v for k, v in ledger.state.world.balances.items() if v} == balances
