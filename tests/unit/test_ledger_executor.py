"""Executor: one transaction against the world, its result, and what it notes for others."""

from __future__ import annotations

import gc
from pathlib import Path

from tests.unit.ledger_parts import COUNTER, address, balance, opened, transfer


def test_a_transfer_moves_value_and_notes_the_accounts(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        a, b = balance(ledger, "alice"), balance(ledger, "bob")
        sub = transfer(ledger, "alice", "bob", 5)
        key = ("", int(sub.sender, 16))
        nonce = ledger.state.world.nonces.get(key, 0)
        res = ledger.executor.execute(sub, ledger.state.head.number + 1, 0, 0)
        assert res["status"] == "Success"
        assert res["data"]["tag"] == "Send"
        assert (balance(ledger, "alice"), balance(ledger, "bob")) == (a - 5, b + 5)
        assert sub.nonce == nonce and ledger.state.world.nonces[key] == nonce + 1
        assert key in ledger.changes.balances
        assert ("", int(address(ledger, "bob"), 16)) in ledger.changes.balances


def test_a_failure_is_a_result_and_still_uses_the_nonce(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        sub = transfer(ledger, "alice", "bob", 10**40)
        key = ("", int(sub.sender, 16))
        nonce = ledger.state.world.nonces.get(key, 0)
        res = ledger.executor.execute(sub, ledger.state.head.number + 1, 0, 0)
        assert res["status"] == "Failure"
        assert "insufficient balance" in res["txResult"]["message"]
        assert ledger.state.world.nonces[key] == nonce + 1


def test_a_deployment_notes_metadata_code_events_and_changes(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        keys, ex = ledger.keys, ledger.executor
        sender = address(ledger, "alice")
        payload = ledger.validator.check_upload({"src": COUNTER, "args": {"start": 1}}, "t")
        up = keys.new_sub("alice", sender, "CONTRACT", payload, "", None)
        number = ledger.state.head.number + 1
        res = ex.execute(up, number, 0, 0)
        assert res["status"] == "Success"
        contract = res["data"]["contents"]["address"]
        k = ("", int(contract, 16))
        assert ledger.state.meta[k].name == "Counter"
        assert ledger.state.meta[k].created_tx == up.hash
        assert k in ledger.changes.contracts
        assert [c[0] for c in ledger.codes.take_new()] == [ledger.state.meta[k].code_hash]
        call = keys.new_sub(
            "alice", sender, "FUNCTION", {"contractAddress": contract, "method": "bump"}, "", None
        )
        assert ex.execute(call, number, 0, 1)["status"] == "Success"
        assert ledger.state.world.accounts[k].storage["n"] == 2
        assert [e[4] for e in ledger.journal.events] == ["Bumped"]
        assert ledger.journal.senders[call.hash] == sender
        assert ledger.journal.touched[k] == (call.hash, sender)


def test_a_traced_call_leaves_no_reference_cycle(tmp_path: Path) -> None:
    """A traced transaction's context and recorder are freed by reference counting once the
    trace is stored: each one left to the cyclic collector made its passes costlier."""
    with opened(tmp_path) as ledger:
        assert ledger.traces.enabled
        ex, keys = ledger.executor, ledger.keys
        sender = address(ledger, "alice")
        payload = ledger.validator.check_upload({"src": COUNTER, "args": {"start": 1}}, "t")
        up = keys.new_sub("alice", sender, "CONTRACT", payload, "", None)
        number = ledger.state.head.number + 1
        contract = ex.execute(up, number, 0, 0)["data"]["contents"]["address"]
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for i in range(6):
                call = keys.new_sub(
                    "alice",
                    sender,
                    "FUNCTION",
                    {"contractAddress": contract, "method": "bump"},
                    "",
                    None,
                )
                assert ex.execute(call, number, 0, 1 + i)["status"] == "Success"
                if i in (2, 5):  # the writer lets go of the first batch when taking the next
                    ledger.traces.flush()
            assert ledger.traces.read(call.hash) is not None  # traced indeed
            gc.collect()
            left = [type(o).__name__ for o in gc.garbage]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert "ExecContext" not in left and "TraceRecorder" not in left, left[:20]
