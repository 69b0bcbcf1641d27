"""The one token formatter: rounded for reading, exact on demand."""

from __future__ import annotations

import pytest

from app.client.units import UNITS_PER_TOKEN, amount_tooltip, exact_tokens, format_amount

T = UNITS_PER_TOKEN


@pytest.mark.parametrize(
    ("units", "text"),
    [
        (0, "0 tokens"),
        (T, "1 token"),
        (-T, "-1 token"),
        (2000 * T, "2,000 tokens"),
        (2_999_999_999_999_999_747_924, "≈3,000 tokens"),
        (T // 2, "0.5 tokens"),
        (1_234_567 * T + 891_200_000_000_000_000, "1,234,567.8912 tokens"),
        (T + 12_345_000_000_000, "≈1 token"),  # 1.000012345: the 4 places lose the tail
        (T + 50_000_000_000_000, "≈1.0001 tokens"),  # half a step rounds up
        (123_456_789_000_000_000, "≈0.1235 tokens"),
        (-123_456_789_000_000_000, "≈-0.1235 tokens"),
        (700, "700 wei"),
        (99_999_999_999_999, "99,999,999,999,999 wei"),
        (100_000_000_000_000, "0.0001 tokens"),
    ],
)
def test_format_amount_rounds_to_four_places_with_the_unit(units: int, text: str) -> None:
    assert format_amount(units) == text


def test_exact_figure_keeps_every_digit() -> None:
    units = 2_999_999_999_999_999_747_924
    assert exact_tokens(units) == "2,999.999999999999747924"
    assert exact_tokens(units, grouping=False) == "2999.999999999999747924"
    assert exact_tokens(-T // 4) == "-0.25"
    assert exact_tokens(5 * T) == "5"
    tip = amount_tooltip(units)
    assert "2,999.999999999999747924 tokens" in tip
    assert "2,999,999,999,999,999,747,924 wei" in tip
