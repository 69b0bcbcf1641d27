"""Streamed Cirrus results on a database file (app/node/cirrus/stream.py): the chunks make the
bytes of the whole array; a detached stream (slow client) ends its read transaction, so the WAL
can be checkpointed, and still sends the rows of its snapshot."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from app.node.cirrus.backend import STANDARD_COLUMNS, CirrusBackend
from app.node.cirrus.query import parse_query
from app.node.cirrus.stream import CHUNK, RowStream, open_rows
from app.node.cirrus.values import Column
from app.node.jsonenc import compact_json

ROWS = 7 * CHUNK + 13


def row(n: int) -> dict[str, Any]:
    a = format(n, "040x")
    return {
        "address": a,
        "chainId": "",
        "record_id": a,
        "block_hash": format(n, "064x"),
        "block_timestamp": "2024-01-02 03:04:05 UTC",
        "block_number": 1,
        "transaction_hash": format(n, "064x"),
        "transaction_sender": a,
        "label": f"thing {n}",
        "qty": n * 10**20,  # beyond SQLite's integers
    }


@pytest.fixture
def backend(tmp_path: Path) -> CirrusBackend:
    path = tmp_path / "node.sqlite3"
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    b = CirrusBackend(db, path)
    cols = [Column(n, k) for n, k in STANDARD_COLUMNS] + [
        Column("label", "text"),
        Column("qty", "int"),
    ]
    db.execute("BEGIN")
    t = b.ensure_table("Thing", "contract", cols)
    b.upsert(t, [row(n) for n in range(ROWS)])
    db.execute("COMMIT")
    return b


def drain(stream: RowStream, read: list[bytes] | None = None) -> bytes:
    parts = [stream.first, *(read or [])]
    while (chunk := stream.next_chunk()) is not None:
        parts.append(chunk)
    return b"[" + b",".join(parts) + b"]"


def checkpoint_busy(b: CirrusBackend) -> int:
    (busy, _, _) = b.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return int(busy)


def test_chunks_make_the_whole_array(backend: CirrusBackend) -> None:
    q = parse_query([("order", "qty.desc")])
    whole, _ = backend.run("Thing", q, None, False)
    stream, n, total = open_rows(backend, "Thing", q, None, False)
    assert isinstance(stream, RowStream) and n == ROWS and total is None
    assert drain(stream) == compact_json(whole)
    assert stream.closed and stream.conn is None


def test_a_detached_stream_frees_the_wal_and_keeps_its_snapshot(backend: CirrusBackend) -> None:
    q = parse_query([])
    whole, _ = backend.run("Thing", q, None, False)
    stream, n, _ = open_rows(backend, "Thing", q, None, False)
    assert isinstance(stream, RowStream) and n == ROWS
    read = [stream.next_chunk() or b""]
    backend.db.execute("BEGIN")
    backend.upsert(backend.tables["Thing"], [row(n) for n in range(ROWS, ROWS + 50)])
    backend.db.execute("COMMIT")
    assert checkpoint_busy(backend) == 1  # the stream's snapshot holds the WAL
    stream.detach()
    assert stream.conn is None and stream.spill is not None
    assert checkpoint_busy(backend) == 0
    assert drain(stream, read) == compact_json(whole)  # the rows as they were, not the new ones
    assert stream.closed


def test_small_and_limited_results_come_whole(backend: CirrusBackend) -> None:
    rows, n, _ = open_rows(backend, "Thing", parse_query([("limit", "1000")]), None, False)
    assert isinstance(rows, list) and n == len(rows) == ROWS  # more than a chunk: not streamed
    rows, n, _ = open_rows(backend, "Thing", parse_query([("qty", "lt.1")]), None, False)
    assert isinstance(rows, list) and n == 1 and rows[0]["label"] == "thing 0"
