"""Validator: a bad transaction is a 400 naming its field, before anything is queued."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.node.errors import ApiError
from tests.unit.ledger_parts import COUNTER, address, opened


def _bad(ledger: Any, txs: Any) -> str:
    with pytest.raises(ApiError) as err:
        ledger.validator.validate("alice", txs, "")
    assert err.value.status == 400
    return str(err.value.body)


def test_bad_requests_name_the_field(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        assert "txs must be a non-empty array" in _bad(ledger, [])
        assert "txs[0].type" in _bad(ledger, [{"type": "NOPE", "payload": {}}])
        assert "txs[0].payload.toAddress" in _bad(
            ledger, [{"type": "TRANSFER", "payload": {"toAddress": "xyz", "value": 1}}]
        )
        assert "txs[0].payload.value is required" in _bad(
            ledger, [{"type": "TRANSFER", "payload": {"toAddress": "ab" * 20}}]
        )
        assert "Couldn't find contract details" in _bad(
            ledger,
            [{"type": "FUNCTION", "payload": {"contractAddress": "0" * 39 + "1", "method": "x"}}],
        )


def test_good_transactions_come_back_normalised(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        to = address(ledger, "bob")
        checked = ledger.validator.validate(
            "alice",
            [
                {"type": "TRANSFER", "payload": {"toAddress": "0x" + to.upper(), "value": "5"}},
                {"type": "CONTRACT", "payload": {"src": COUNTER, "args": {"start": 3}}},
            ],
            "",
        )
        assert checked[0] == ("TRANSFER", {"toAddress": to, "value": 5}, "")
        kind, payload, chain = checked[1]
        assert (kind, payload["contract"], payload["metadata"], chain) == (
            "CONTRACT",
            "Counter",
            {"VM": "SolidVM"},
            "",
        )


def test_an_upload_needs_a_known_contract_and_valid_arguments(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        v = ledger.validator
        with pytest.raises(ApiError, match="Could not find"):
            v.check_upload({"src": COUNTER, "contract": "Nope"}, "txs[0]")
        with pytest.raises(ApiError):
            v.check_upload({"src": COUNTER, "args": {"start": "not a number"}}, "txs[0]")
        with pytest.raises(ApiError):
            v.check_upload({"src": "contract {", "args": {}}, "txs[0]")
