"""The call-trace writer stops before the store it writes to closes (issue 26).

Closing a ledger's store while a trace was still waiting for the writer's next commit made
the writer log "Cannot operate on a closed database" a moment later (the unit tests' ledgers
did, the node closed the writer itself). The trace writer now stops, storing what it holds,
whenever the store closes: nothing is logged, and the trace is kept.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from app.node.store import Store
from app.node.traces import WRITE_DELAY, TraceKeeper
from tests.unit.ledger_parts import COUNTER, address, opened


def test_closing_the_store_stops_the_trace_writer_first(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with opened(tmp_path) as ledger:
        sender = address(ledger, "alice")
        payload = ledger.validator.check_upload({"src": COUNTER, "args": {"start": 1}}, "t")
        up = ledger.keys.new_sub("alice", sender, "CONTRACT", payload, "", None)
        res = ledger.executor.execute(up, ledger.state.head.number + 1, 0, 0)
        assert res["status"] == "Success"
        # waiting for the end of its block, then for the writer's next commit
        assert ledger.traces._block or ledger.traces._pending
    time.sleep(WRITE_DELAY * 3)  # when the writer would have written
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not problems, [r.getMessage() for r in problems]
    store = Store(tmp_path)  # the trace was stored on the way out
    keeper = TraceKeeper(store)
    try:
        assert keeper.read(up.hash) is not None
    finally:
        store.close()
