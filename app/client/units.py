"""Token amounts as people read them: one formatter for every balance and value the app shows.

STRATO counts balances in wei, 10^18 to a token. Eighteen decimals help nobody at a
glance, so amounts show rounded to a few places (trailing zeros dropped, "≈" when rounding lost
something); the exact figure and the integer go in a tooltip and on the clipboard. Amounts too
small to show in tokens (a chain's 700 wei) stay in wei, which is what they were set in.
"""

from __future__ import annotations

UNITS_PER_TOKEN = 10**18
PLACES = 4  # decimals shown for a token amount
SMALL = UNITS_PER_TOKEN // 10**PLACES  # below this, an amount reads better in wei


def exact_tokens(units: int, *, grouping: bool = True) -> str:
    """Every digit: ``2,999.999999999999747924`` (no separators with ``grouping=False``)."""
    whole, frac = divmod(abs(units), UNITS_PER_TOKEN)
    sign = "-" if units < 0 else ""
    text = f"{sign}{whole:,}" if grouping else f"{sign}{whole}"
    if frac:
        text += "." + f"{frac:018d}".rstrip("0")
    return text


def format_amount(units: int, *, places: int = PLACES) -> str:
    """A balance or value with its unit, rounded for reading: ``2,000 tokens``,
    ``≈3,000 tokens`` (from 2,999.999999999999747924), ``0.5 tokens``, ``700 wei``, ``0 tokens``."""
    if units == 0:
        return "0 tokens"
    if abs(units) < SMALL:
        return f"{units:,} wei"
    step = UNITS_PER_TOKEN // 10**places
    # round half away from zero on the magnitude, so -x shows as -(x)
    q, r = divmod(abs(units), step)
    if 2 * r >= step:
        q += 1
    whole, frac = divmod(q, 10**places)
    sign = "-" if units < 0 else ""
    text = f"{sign}{whole:,}"
    if frac:
        text += "." + f"{frac:0{places}d}".rstrip("0")
    approx = "≈" if r else ""
    return f"{approx}{text} {'token' if text in ('1', '-1') else 'tokens'}"


def amount_tooltip(units: int) -> str:
    """The exact figure and the integer behind a rounded amount."""
    return f"{exact_tokens(units)} tokens\n{units:,} wei (1 token = 10^18 wei)"
