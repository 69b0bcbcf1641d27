"""The results route's answer: queued hashes written from a template, the others encoded,
the same bytes as compact_json of the whole list."""

from __future__ import annotations

import json
from typing import Any

from app.node.jsonenc import compact_json, heavy
from app.node.ledger.common import pending_result
from app.node.routes.tx import results_body

H = [format(i, "064x") for i in range(6)]


def _done(h: str, **extra: Any) -> dict[str, Any]:
    tx_result = {"message": "Success!", **extra}
    return {"status": "Success", "hash": h, "txResult": tx_result, "data": None}


def _expected(hashes: list[str], queued: set[str], found: dict[str, Any]) -> bytes:
    return compact_json([pending_result(h) if h in queued else found[h] for h in hashes])


def test_a_queued_hash_reads_as_the_pending_result() -> None:
    assert results_body([H[0]], {H[0]}, {}) == compact_json([pending_result(H[0])])


def test_mixed_runs_keep_the_request_order() -> None:
    hashes = [H[0], H[1], H[2], H[3], H[1], H[4], H[5], H[5]]
    queued = {H[1], H[4], H[5]}
    found = {
        H[0]: _done(H[0]),
        H[2]: _done(H[2], text="é ünïcode"),
        H[3]: pending_result(H[3]),  # unknown: answered Pending by the ledger itself
    }
    body = results_body(hashes, queued, found)
    assert body == _expected(hashes, queued, found)
    assert [r["hash"] for r in json.loads(body)] == hashes


def test_nothing_and_nothing_queued() -> None:
    assert results_body([], set(), {}) == b"[]"
    found = {h: _done(h) for h in H}
    assert results_body(H, set(), found) == _expected(H, set(), found)
    assert results_body(H, set(H), {}) == _expected(H, set(H), {})


def test_a_heavy_result_is_encoded_in_pieces_to_the_same_bytes() -> None:
    """An upload's result holds its source and xabi: encoded in pieces (the lock let go
    between them), the same bytes all the same."""
    big = _done(H[1], src="contract C {}\n" * 10_000, xabi={f"f{i}": [i] * 3 for i in range(3_000)})
    assert heavy(big)
    hashes = [H[0], H[1], H[2]]
    found = {H[1]: big, H[2]: _done(H[2])}
    assert results_body(hashes, {H[0]}, found) == _expected(hashes, {H[0]}, found)
