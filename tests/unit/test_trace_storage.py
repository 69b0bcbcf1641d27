"""How the node keeps call traces (issue 28: recording must cost little).

A trace is kept in the traces' own file (traces.sqlite3, in batches) as its compact form
(plain tuples of shown values) made when its transaction ends, the block's as one ``marshal``
blob, and shown as JSON only when read; the answer is the tree it was before, whether read
while pending or once stored. A trace too large for the compact form is stored as its cut
JSON text, and rows stored as JSON text by earlier versions still read (their ``traces``
table, in the node's database, moves into the file at start). Many traces share a batch,
found through an index of the hashes' first 8 bytes; old batches go as a whole once the others
hold ``--trace-keep`` traces, their index rows later in one pass.
"""

from __future__ import annotations

import json
import marshal
import os
from pathlib import Path
from typing import Any

import pytest

from app.node import traces
from app.node.ledger import Ledger, Sub
from app.node.solidvm.trace_show import TRACE_VERSION
from app.node.store import Store
from app.node.traces import BATCH_COUNT, TRACES_FILE, InBlob, _runs, hash_key
from tests.unit.ledger_parts import COUNTER, address, opened

MANY = """
contract Many {
    mapping(uint => uint) public notes;
    function fill(uint n) public {
        for (uint i = 0; i < n; i++) { notes[i] = (i + 1) * 1000000000000000000000000000000000001; }
    }
}
"""


def run(ledger: Ledger, type_: str, payload: dict[str, Any]) -> dict[str, Any]:
    sender = address(ledger, "alice")
    sub = ledger.keys.new_sub("alice", sender, type_, payload, "", None)
    res = ledger.executor.execute(sub, ledger.state.head.number + 1, 0, 0)
    assert res["status"] == "Success", res
    res["hash"] = sub.hash
    return res


def deploy(ledger: Ledger, src: str, name: str, args: dict[str, Any]) -> str:
    payload = ledger.validator.check_upload({"src": src, "contract": name, "args": args}, "t")
    res = run(ledger, "CONTRACT", payload)
    return str(res["data"]["contents"]["address"])


def stored(ledger: Ledger, h: str) -> Any:
    body = ledger.traces._stored(h)
    assert body is not None
    return body


def test_a_trace_is_stored_compact_and_reads_as_the_same_tree(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        counter = deploy(ledger, COUNTER, "Counter", {"start": 1})
        h = run(ledger, "FUNCTION", {"contractAddress": counter, "method": "bump", "args": {}})[
            "hash"
        ]
        pending = ledger.traces.read(h)  # before the writer stores it
        ledger.traces.flush()
        assert not ledger.traces._pending
        body = stored(ledger, h)
        assert isinstance(body, tuple) and body[0] == TRACE_VERSION  # its compact form
        kept = ledger.traces.read(h)
    assert kept == pending
    assert kept is not None
    root = kept["root"]
    assert (root["contract"], root["function"], root["status"]) == ("Counter", "bump", "ok")
    assert root["items"] == [
        {"type": "write", "variable": "n", "old": "1", "new": "2"},
        {
            "type": "event",
            "contract": "Counter",
            "address": counter,
            "name": "Bumped",
            "args": [{"value": "2", "name": "n", "type": "uint256"}],
        },
    ]
    assert json.loads(json.dumps(kept)) == kept  # plain JSON, as the route answers it


def test_a_large_trace_is_stored_as_its_json_text(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        many = deploy(ledger, MANY, "Many", {})
        h = run(
            ledger, "FUNCTION", {"contractAddress": many, "method": "fill", "args": {"n": 2000}}
        )["hash"]
        pending = ledger.traces.read(h)
        ledger.traces.flush()
        body = stored(ledger, h)
        assert isinstance(body, str)  # past MAX_COMPACT_BYTES as marshal bytes
        kept = ledger.traces.read(h)
    assert kept == pending and kept is not None
    writes = [i for i in kept["root"]["items"] if i["type"] == "write"]
    assert len(writes) == 2000 and writes[-1]["key"] == ["1999"]


def test_a_trace_stored_as_json_text_by_an_earlier_version_still_reads(tmp_path: Path) -> None:
    tree = {"version": 1, "frames": 1, "truncated": False, "root": {"type": "call", "items": []}}
    old = Store(tmp_path)  # a data dir from before: one row per trace in the node's database
    with old.transaction() as db:
        db.execute(
            "CREATE TABLE traces (seq INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, "
            "body TEXT NOT NULL)"
        )
        db.execute("INSERT INTO traces (hash, body) VALUES (?, ?)", ("ab" * 32, json.dumps(tree)))
    old.close()
    with opened(tmp_path) as ledger:
        assert ledger.traces.read("ab" * 32) == tree
        assert ledger.traces.stored_count() == 1
        gone = ledger.store.one("SELECT 1 FROM sqlite_master WHERE name='traces'")
        assert gone is None  # moved, not copied
    assert (tmp_path / TRACES_FILE).stat().st_mode & 0o077 == 0  # private, as the database


def test_traces_share_batches_and_the_oldest_go_whole(tmp_path: Path) -> None:
    with opened(tmp_path, trace_keep=30) as ledger:
        counter = deploy(ledger, COUNTER, "Counter", {"start": 1})
        hashes: list[str] = []
        for _ in range(4):  # four writer batches of 10 transactions
            for _ in range(10):
                hashes.append(
                    run(
                        ledger,
                        "FUNCTION",
                        {"contractAddress": counter, "method": "bump", "args": {}},
                    )["hash"]
                )
            ledger.traces.flush()
        keeper = ledger.traces
        assert keeper._db is not None
        batches = keeper._db.execute("SELECT count FROM trace_batches ORDER BY seq").fetchall()
        # the deploy's batch and the first bumps' went once the rest held 30
        assert [r[0] for r in batches] == [10, 10, 10]
        assert keeper.stored_count() == 30
        assert all(keeper.read(h) is not None for h in hashes[10:])
        assert all(keeper.read(h) is None for h in hashes[:10])
        bump = keeper.read(hashes[-1])
        assert bump is not None and bump["root"]["items"][0]["new"] == "41"  # started at 1


def test_a_hash_key_is_its_first_eight_bytes() -> None:
    assert hash_key("00" * 7 + "01" + "ff" * 24) == 1
    assert hash_key("ff" * 32) == -1
    assert hash_key("not hex") == hash_key("not hex")  # stable for anything else


def test_a_torn_traces_file_is_started_again(tmp_path: Path) -> None:
    """The traces' file is written without fsync: an OS crash may leave it unreadable. The
    node then starts it again (its traces lost, said in the log) instead of failing."""
    (tmp_path / TRACES_FILE).write_bytes(b"SQLite format 3\x00" + b"\xff" * 4_000)
    with opened(tmp_path) as ledger:
        counter = deploy(ledger, COUNTER, "Counter", {"start": 1})
        h = run(ledger, "FUNCTION", {"contractAddress": counter, "method": "bump", "args": {}})[
            "hash"
        ]
        ledger.traces.flush()
        assert ledger.traces._stored(h) is not None


def test_the_index_rows_of_dropped_batches_go_in_one_pass(tmp_path: Path) -> None:
    with opened(tmp_path, trace_keep=30) as ledger:
        keeper = ledger.traces
        assert keeper._db is not None
        rows: list[tuple[str, bytes]] = [
            (os.urandom(32).hex(), os.urandom(50)) for _ in range(3_000)
        ]
        for i in range(0, len(rows), 100):
            keeper._write([([h], b) for h, b in rows[i : i + 100]])
            index = keeper._db.execute("SELECT COUNT(*) FROM trace_index").fetchone()[0]
            assert index <= 100 + BATCH_COUNT + 100  # the kept batch and the stale rows, bounded
        assert keeper.stored_count() == 100  # one batch holds keep=30 and more: it stays
        assert keeper._stored(rows[-1][0]) == rows[-1][1]
        assert keeper._stored(rows[0][0]) is None  # its row names a batch that went


def bump(ledger: Ledger, counter: str) -> Sub:
    sender = address(ledger, "alice")
    payload = {"contractAddress": counter, "method": "bump", "args": {}}
    return ledger.keys.new_sub("alice", sender, "FUNCTION", payload, "", None)


def test_the_traces_of_a_block_are_kept_as_one_blob(tmp_path: Path) -> None:
    """One ``marshal`` call per block, not per trace: what the block's traces share (the
    function's header, the event's) is written once, and the writer stores the run whole."""
    with opened(tmp_path) as ledger:
        counter = deploy(ledger, COUNTER, "Counter", {"start": 1})
        ledger.traces.flush()
        subs = [bump(ledger, counter) for _ in range(20)]
        results = ledger.sealer.seal(subs)
        assert all(r["status"] == "Success" for r in results)
        keeper = ledger.traces
        assert not keeper._block  # handed over when the block ended
        forms = [keeper._pending[s.hash] for s in subs]
        assert all(isinstance(f, InBlob) for f in forms)
        assert len({id(f.blob) for f in forms if isinstance(f, InBlob)}) == 1
        pending = [keeper.read(s.hash) for s in subs]
        keeper.flush()
        assert keeper._db is not None
        hashes, bodies = keeper._db.execute(
            "SELECT hashes, bodies FROM trace_batches ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        assert list(marshal.loads(hashes)) == [s.hash for s in subs]
        (run,) = marshal.loads(bodies)
        assert run[:2] == (0, 20)
        one_by_one = sum(len(marshal.dumps(f, 4)) for f in marshal.loads(run[2]))
        assert len(run[2]) < one_by_one * 0.7  # the headers once
        kept = [keeper.read(s.hash) for s in subs]
    assert kept == pending
    assert [k["root"]["items"][0]["new"] for k in kept if k] == [str(n) for n in range(2, 22)]


def test_runs_of_a_blob_split_by_the_writer_or_a_replay_read_back(tmp_path: Path) -> None:
    """A writer batch may end inside a blob, and a replayed transaction's newer trace takes
    its hash's place: each trace still reads as its own."""
    with opened(tmp_path) as ledger:
        keeper = ledger.traces
        forms = [(1, 1, 0, ("c", f"header {n}")) for n in range(6)]
        blob = marshal.dumps(tuple(forms), 4)
        hashes = [f"{n:02x}" * 32 for n in range(6)]
        pending: list[tuple[str, Any]] = [(h, InBlob(blob, i)) for i, h in enumerate(hashes)]
        replayed = marshal.dumps((1, 1, 0, ("c", "replayed")), 4)
        pending[3] = (hashes[3], replayed)  # not part of the run any more
        rows = _runs(pending[:5])  # the writer's batch ends inside the blob
        assert rows == [
            (hashes[:3], (0, 3, blob)),
            ([hashes[3]], replayed),
            ([hashes[4]], (4, 1, blob)),
        ]
        keeper._write(rows)
        keeper._write(_runs(pending[5:]))
        assert [keeper._stored(h) for h in hashes] == [
            forms[0],
            forms[1],
            forms[2],
            replayed,  # (its marshal bytes as stored: read() loads them)
            forms[4],
            forms[5],
        ]


def test_a_large_trace_is_kept_on_its_own_between_its_blocks_runs(tmp_path: Path) -> None:
    """A trace of more than BLOB_ITEMS frames, events and writes is kept alone (as JSON text
    past MAX_COMPACT_BYTES); the block's other traces make a blob on each side of it."""
    with opened(tmp_path) as ledger:
        counter = deploy(ledger, COUNTER, "Counter", {"start": 1})
        many = deploy(ledger, MANY, "Many", {})
        keeper = ledger.traces
        keeper.flush()
        sender = address(ledger, "alice")
        fill = ledger.keys.new_sub(
            "alice",
            sender,
            "FUNCTION",
            {"contractAddress": many, "method": "fill", "args": {"n": traces.BLOB_ITEMS + 1}},
            "",
            None,
        )
        subs = [bump(ledger, counter), bump(ledger, counter), fill, bump(ledger, counter)]
        ledger.sealer.seal(subs)
        a, b, large, c = (keeper._pending[s.hash] for s in subs)
        assert isinstance(a, InBlob) and isinstance(b, InBlob) and isinstance(c, InBlob)
        assert (a.blob, a.i, b.i, c.i) == (b.blob, 0, 1, 0) and c.blob is not a.blob
        assert isinstance(large, bytes)  # on its own, its marshal bytes
        keeper.flush()
        kept = [keeper.read(s.hash) for s in subs]
    assert [k["root"]["function"] for k in kept if k] == ["bump", "bump", "fill", "bump"]
    assert kept[2] is not None and len(kept[2]["root"]["items"]) == traces.BLOB_ITEMS + 1


def test_a_blob_past_its_bound_keeps_each_trace_on_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(traces, "BLOB_BYTES", 100)  # every block's blob past it
    with opened(tmp_path) as ledger:
        counter = deploy(ledger, COUNTER, "Counter", {"start": 1})
        keeper = ledger.traces
        keeper.flush()
        subs = [bump(ledger, counter) for _ in range(3)]
        ledger.sealer.seal(subs)
        assert all(isinstance(keeper._pending[s.hash], bytes) for s in subs)
        keeper.flush()
        assert all(isinstance(keeper._stored(s.hash), bytes) for s in subs)
        kept = [keeper.read(s.hash) for s in subs]
    assert [k["root"]["items"][0]["new"] for k in kept if k] == ["2", "3", "4"]
