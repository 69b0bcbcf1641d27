"""Reindexer: a block's Cirrus rows, and the rebuilding of rows a failed block missed."""

from __future__ import annotations

import json
from pathlib import Path

from app.node.ledger.reindex import MISSED_KEY
from tests.unit.ledger_parts import COUNTER, address, opened


def _deploy(ledger: object) -> str:
    from app.node.ledger import Ledger

    assert isinstance(ledger, Ledger)
    payload = ledger.validator.check_upload({"src": COUNTER, "args": {"start": 1}}, "t")
    sub = ledger.keys.new_sub("alice", address(ledger, "alice"), "CONTRACT", payload, "", None)
    ledger.queue.record([sub])
    ledger.sealer.run_block([sub])
    res = ledger.results.result(sub.hash)
    assert res["status"] == "Success"
    return str(res["data"]["contents"]["address"])


def test_a_block_takes_the_journal_and_leaves_it_empty(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        contract = _deploy(ledger)
        j = ledger.journal
        assert not (j.events or j.touched or j.history or j.senders)
        table = ledger.state.meta[("", int(contract, 16))].table
        assert ledger.cirrus.backend is ledger.indexer.backend
        rows = ledger.store.all(f'SELECT * FROM "cirrus:{table}" WHERE address=?', contract)
        assert len(rows) == 1 and rows[0]["n"] is not None


def test_forget_pending_drops_what_a_replay_noted(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        j = ledger.journal
        j.events.append(("h", "", "ab" * 20, "C", "E", "[]"))
        j.senders["h"] = "ab" * 20
        j.touched[("", 1)] = ("h", "ab" * 20)
        ledger.reindexer.forget_pending()
        assert not (j.events or j.senders or j.touched)


def test_missed_rows_are_rebuilt_at_start(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        contract = _deploy(ledger)
        table = ledger.state.meta[("", int(contract, 16))].table
        number = ledger.state.head.number
        before = ledger.store.all(f'SELECT n FROM "cirrus:{table}"')
        assert len(before) == 1
        ledger.store.execute(f'DELETE FROM "cirrus:{table}" WHERE address=?', contract)
        ledger.store.set_meta(MISSED_KEY, json.dumps([["", contract, number], ["", "00" * 20, 1]]))
    with opened(tmp_path) as ledger:  # open() rebuilds them
        assert ledger.store.get_meta(MISSED_KEY) is None
        rows = ledger.store.all(f'SELECT * FROM "cirrus:{table}" WHERE address=?', contract)
        assert len(rows) == 1 and rows[0]["n"] == before[0]["n"]


def test_collection_and_strato16_tables_are_built_once(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        assert ledger.store.get_meta("cirrus_collections") == "1"
        assert ledger.store.get_meta("cirrus16") == "1"
