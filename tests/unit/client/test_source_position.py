"""Where a failed transaction failed, read from its result in every shape a node may use."""

from __future__ import annotations

from typing import Any

import pytest

from app.client.models import SourcePosition, TxResult


def result(tx_result: dict[str, Any]) -> TxResult:
    return TxResult.from_json(
        {"status": "Failure", "hash": "ab" * 32, "txResult": tx_result, "data": None}
    )


@pytest.mark.parametrize(
    "given",
    [
        # the sandbox: the platform's SourcePosition shape, the failing contract as its name
        {"name": "Guard", "line": 8, "column": 9},
        # a SourceAnnotation (the platform's positioned errors): its start
        {
            "start": {"name": "Guard", "line": 8, "column": 9},
            "end": {"name": "Guard", "line": 8, "column": 40},
            "annotation": "solidity require failed",
        },
        # a call stack of positions, innermost first (the platform debugger's list)
        [{"name": "Guard", "line": 8, "column": 9}, {"name": "T", "line": 3, "column": 5}],
        # numbers as strings
        {"name": "Guard", "line": "8", "column": "9"},
    ],
)
def test_the_shapes_of_a_position(given: Any) -> None:
    r = result({"message": "solidity require failed", "sourcePosition": given})
    assert r.source_position == SourcePosition("Guard", 8, 9)


@pytest.mark.parametrize(
    "given",
    [
        None,
        [],
        "line 8",
        {"name": "", "line": 0, "column": 0},  # the platform's "no position"
        {"name": "Guard"},
    ],
)
def test_no_position(given: Any) -> None:
    assert result({"message": "x", "sourcePosition": given}).source_position is None
    assert result({"message": "x"}).source_position is None
    assert TxResult.from_json("nonsense").source_position is None
