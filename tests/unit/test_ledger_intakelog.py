"""IntakeLog: the mapped file of resolve=false transactions, its growth, emptying and recovery."""

from __future__ import annotations

import json
from pathlib import Path

from app.node.ledger.intakelog import LOG_FILE, IntakeLog
from app.node.store import Store
from tests.unit.ledger_parts import opened, transfer


def _hashes(lines: list[bytes]) -> list[str]:
    return [json.loads(line)[1] for line in lines]


def test_appends_grow_the_file_and_survive_a_reopen(tmp_path: Path) -> None:
    """Past its capacity the file doubles; what was appended reads back after the object is
    gone (as after a kill: nothing was closed or flushed)."""
    with opened(tmp_path / "ledger") as ledger:
        subs = [transfer(ledger, "alice", "bob", i) for i in range(1, 40)]
    logs = tmp_path / "logs"
    logs.mkdir()
    first = IntakeLog(logs, capacity=4096)
    for s in subs:
        first.append([s])
    assert all(s.logged for s in subs) and first.outstanding == len(subs)
    size = (logs / LOG_FILE).stat().st_size
    assert size > 4096 and size & (size - 1) == 0  # doubled from 4096
    del first  # (not closed)
    again = IntakeLog(logs, capacity=4096)
    assert _hashes(again.lines()) == [s.hash for s in subs]
    again.append([subs[0]])  # goes on after the last line
    assert _hashes(again.lines()) == [s.hash for s in subs] + [subs[0].hash]
    again.close()


def test_a_line_cut_by_a_kill_is_dropped_and_the_next_append_starts_clean(
    tmp_path: Path,
) -> None:
    """A copy cut short may have written any of its bytes (memcpy may copy the end first):
    everything after the last whole line is zeroed when the file is opened, so that the next
    line neither joins it nor ends before stale bytes."""
    with opened(tmp_path / "ledger") as ledger:
        a, b, c = (transfer(ledger, "alice", "bob", i) for i in (1, 2, 3))
    logs = tmp_path / "logs"
    logs.mkdir()
    log = IntakeLog(logs, capacity=4096)
    log.append([a])
    log.close()
    path = logs / LOG_FILE
    data = bytearray(path.read_bytes())
    end = data.index(b"\0")
    # its start and its end copied, not its middle (a long line: its end far from its start)
    torn = b'[7,"' + b"cd" * 32 + b'"' + b"\0" * 2500 + b'tail-of-the-line"]\n'
    data[end : end + len(torn)] = torn
    path.write_bytes(bytes(data))
    log = IntakeLog(logs, capacity=4096)
    assert _hashes(log.lines()) == [a.hash]
    log.append([b, c])
    assert _hashes(log.lines()) == [a.hash, b.hash, c.hash]
    assert b"tail-of-the-line" not in path.read_bytes()
    log.close()


def test_settling_empties_the_file_once_nothing_is_outstanding(tmp_path: Path) -> None:
    with opened(tmp_path / "ledger") as ledger:
        a, b = transfer(ledger, "alice", "bob", 1), transfer(ledger, "alice", "bob", 2)
    logs = tmp_path / "logs"
    logs.mkdir()
    log = IntakeLog(logs, capacity=4096)
    log.TRUNCATE_AT = 1
    log.append([a, b])
    log.settled([a])
    assert log.outstanding == 1 and _hashes(log.lines()) == [a.hash, b.hash]
    log.settled([a])  # (settled already: not counted twice)
    assert log.outstanding == 1
    log.settled([b])
    assert log.outstanding == 0 and log.lines() == []
    assert (logs / LOG_FILE).read_bytes() == bytes(4096)  # its size kept, all zeros
    log.append([a])  # from the start again
    assert _hashes(log.lines()) == [a.hash]
    log.close()


def test_recovery_writes_the_missing_rows_and_empties_the_file(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        a, b = transfer(ledger, "alice", "bob", 1), transfer(ledger, "alice", "bob", 2)
        with ledger.store.transaction() as db:
            ledger.queue.insert_rows(db, [a])  # a has its row already
    store = Store(tmp_path)
    try:
        log = IntakeLog(tmp_path)
        log.append([a, b])
        assert log.recover(store) == 1
        rows = store.all("SELECT hash, status FROM txs WHERE hash IN (?, ?)", a.hash, b.hash)
        assert {r["hash"]: r["status"] for r in rows} == {a.hash: "Pending", b.hash: "Pending"}
        assert log.lines() == []
        log.close()
    finally:
        store.close()
