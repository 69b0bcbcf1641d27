"""Deep pages of the Cirrus backend: a page far down is read from the nearer end of the table
(the order reversed, a small offset), a sorted page sorts only keys and rowids, and the chain
clause is left out when the table holds no row the user may not see. Every page must be exactly
the page a plain ``LIMIT/OFFSET`` over the whole ordered result gives (PostgREST 9 semantics:
NULLs last ascending and first descending, insertion order breaking ties).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from functools import cmp_to_key
from typing import Any

import pytest

from app.node.cirrus import backend as backend_module
from app.node.cirrus.backend import STANDARD_COLUMNS, CirrusBackend
from app.node.cirrus.query import parse_query
from app.node.cirrus.values import Column

Cars = tuple[CirrusBackend, list[dict[str, Any]]]
C1 = "c1" * 32
C2 = "c2" * 32
ROWS = 240
COLORS = ["red", "Red", "blue", None, "green"]


def row(n: int, rng: random.Random) -> dict[str, Any]:
    chain = rng.choice(["", "", "", C1, C2])
    a = format(n, "040x")
    return {
        "address": a,
        "chainId": chain,
        "record_id": f"{a}:{chain}" if chain else a,
        "block_hash": "0" * 64,
        "block_timestamp": "2024-01-02 03:04:05 UTC",
        "block_number": n // 7,
        "transaction_hash": format(n, "064x"),
        "transaction_sender": "0" * 40,
        "color": rng.choice(COLORS),
        "weight": rng.choice([None, *range(-3, 6)]),  # many ties, some NULLs
    }


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def cars(db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> Cars:
    monkeypatch.setattr(backend_module, "REVERSE_MIN", 5)  # deep from the 5th row on
    b = CirrusBackend(db)
    t = b.ensure_table(
        "Car",
        "contract",
        [
            *(Column(n, k) for n, k in STANDARD_COLUMNS),
            Column("color", "text"),
            Column("weight", "int"),
        ],
    )
    rng = random.Random(7)
    rows = [row(n, rng) for n in range(ROWS)]
    b.upsert(t, rows)
    return b, rows


def expected(
    rows: list[dict[str, Any]], visible: set[str] | None, order: list[tuple[str, bool, bool]]
) -> list[dict[str, Any]]:
    """The whole result, ordered in Python: (column, desc, nulls_first) terms, then insertion."""
    out = [(i, r) for i, r in enumerate(rows) if visible is None or r["chainId"] in visible | {""}]

    def compare(a: tuple[int, dict[str, Any]], b: tuple[int, dict[str, Any]]) -> int:
        for col, desc, nulls_first in order:
            va, vb = a[1][col], b[1][col]
            if va == vb:
                continue
            if va is None or vb is None:
                return (-1 if va is None else 1) * (1 if nulls_first else -1)
            c = int(va > vb) - int(va < vb)
            return -c if desc else c
        return a[0] - b[0]

    return [r for _, r in sorted(out, key=cmp_to_key(compare))]


def page(
    b: CirrusBackend, query: str, visible: set[str] | None, offset: int, limit: int
) -> list[dict[str, Any]]:
    pairs = [tuple(p.split("=", 1)) for p in query.split("&") if p]
    pairs += [("offset", str(offset)), ("limit", str(limit))]
    rows, _ = b.run("Car", parse_query(pairs), visible, False)  # type: ignore[arg-type]
    return rows


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [r["address"] for r in rows]


ORDERS = {
    "": [],
    "order=weight.desc": [("weight", True, True)],
    "order=weight.asc": [("weight", False, False)],
    "order=color.asc.nullsfirst,weight.desc": [("color", False, True), ("weight", True, True)],
    "order=weight.desc.nullslast,color.desc": [("weight", True, False), ("color", True, True)],
}
VISIBLE: list[set[str] | None] = [None, set(), {C1}, {C1, C2}]


@pytest.mark.parametrize("query", list(ORDERS))
@pytest.mark.parametrize("visible", VISIBLE, ids=["all", "main", "c1", "c1c2"])
def test_every_page_equals_plain_offset_paging(
    cars: Cars, query: str, visible: set[str] | None
) -> None:
    b, rows = cars
    want = expected(rows, visible, ORDERS[query])
    n = len(want)
    for limit in (1, 7, 50):
        for offset in [*range(0, n + 3, 11), n - limit, n - 1, n, n + 5]:
            if offset < 0:
                continue
            got = ids(page(b, query, visible, offset, limit))
            assert got == ids(want[offset : offset + limit]), (query, visible, offset, limit)


def test_total_and_count_with_and_without_hidden_rows(cars: Cars) -> None:
    b, rows = cars
    for visible in VISIBLE:
        n = len(expected(rows, visible, []))
        counted, _ = b.run("Car", parse_query([("select", "count")]), visible, False)
        assert counted == [{"count": n}]
        got, total = b.run(
            "Car", parse_query([("offset", str(n - 3)), ("limit", "10")]), visible, True
        )
        assert total == n and len(got) == 3


def test_filtered_pages_are_read_forward_and_stay_exact(cars: Cars) -> None:
    b, rows = cars
    want = [r for r in expected(rows, {C1}, [("weight", True, True)]) if r["color"] == "red"]
    for offset in range(0, len(want) + 2, 3):
        got = page(b, "color=eq.red&order=weight.desc", {C1}, offset, 4)
        assert ids(got) == ids(want[offset : offset + 4])


def test_hidden_rows_are_detected(cars: Cars, db: sqlite3.Connection) -> None:
    b, _ = cars
    t = b.table("Car")
    assert b.hides_rows(t, set(), db)
    assert b.hides_rows(t, {C1}, db)
    assert not b.hides_rows(t, {C1, C2}, db)
    assert not b.hides_rows(t, {C1, C2, "ff" * 32}, db)  # a visible chain with no rows
    # a row without a chain is not a main-chain row: the clause stays
    db.execute('UPDATE "cirrus:Car" SET "chainId" = NULL WHERE rowid = 3')
    assert b.hides_rows(t, {C1, C2}, db)


def test_a_page_at_the_end_does_not_walk_the_table(db: sqlite3.Connection) -> None:
    """The last page of 20,000 rows costs about what the first does (SQLite VM steps)."""
    b = CirrusBackend(db)
    t = b.ensure_table("Car", "contract", [*(Column(n, k) for n, k in STANDARD_COLUMNS)])
    rng = random.Random(1)
    plain = [{**row(n, rng), "chainId": ""} for n in range(20_000)]
    b.upsert(t, [{k: v for k, v in r.items() if k not in ("color", "weight")} for r in plain])
    steps = 0

    def count_steps() -> int:
        nonlocal steps
        steps += 1
        return 0

    db.set_progress_handler(count_steps, 100)

    def cost(offset: int) -> int:
        nonlocal steps
        steps = 0
        got, _ = b.run(
            "Car", parse_query([("offset", str(offset)), ("limit", "100")]), set(), False
        )
        assert len(got) == 100
        return steps

    first, middle, last = cost(0), cost(10_000), cost(19_900)
    assert last < 4 * first + 50 < middle
