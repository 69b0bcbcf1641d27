"""Decimal arithmetic as the platform does it: SolidVM on Haskell's Data.Decimal (0.5.2).

A value is an exact integer mantissa with 0..255 decimal places (:class:`DecimalValue`). The
places of a result follow SolidVM's rules, operator by operator:

- ``+``: the larger of the operands' places (Data.Decimal's addition; an operand equal to zero
  lends no places, so ``0.00 + 0.0`` is ``0`` and ``1.5 + 0.00`` is ``1.5``);
- ``-``, ``*``, ``/``, ``%``: the exact result rounded to the larger of the operands' places;
- unary ``-``: the value with its trailing zeros dropped (``-(2.0)`` is ``-2``).

An integer operand counts as a decimal with 0 places. Rounding is half to even (Data.Decimal's
``roundTo``); ``/`` first rounds the exact quotient to 255 places (Data.Decimal's ``/``) and then to
the operands' places, and ``%`` is the floored modulo (its sign follows the divisor). Nothing here
uses binary floating point.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import ExecutionError
from .runtime import MAX_INT_BITS
from .values import DecimalValue

MAX_PLACES = 255
MAX_DECIMAL_BITS = MAX_INT_BITS + 848  # an integer's range plus 255 decimal places (~847 bits)
MAX_DIGITS = 2800  # digits of a decimal written out or parsed (about MAX_DECIMAL_BITS)
SAFE_FLOAT_DIGITS = 15  # a double keeps this many significant decimal digits exactly

_READ_RE = re.compile(
    r"[ \t\n\r\f\v]*([+-]?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?[ \t\n\r\f\v]*\Z"
)


def _type_error(msg: str) -> ExecutionError:
    return ExecutionError(f"type error: {msg}", "type error")


def _div_zero() -> ExecutionError:
    return ExecutionError("divide by zero error", "divide by zero")


def _checked(m: int, p: int) -> DecimalValue:
    if m.bit_length() > MAX_DECIMAL_BITS:
        raise ExecutionError(
            f"integer overflow: decimal result exceeds {MAX_DECIMAL_BITS} bits", "integer overflow"
        )
    return DecimalValue(m, p)


def as_decimal(v: Any) -> DecimalValue:
    """An operand as a decimal: integers have 0 places; anything else is a type error."""
    if type(v) is DecimalValue:
        return v
    if type(v) is int:
        return DecimalValue(v, 0)
    kind = type(v).__name__ if not isinstance(v, str) else "a string"
    raise _type_error(f"decimal arithmetic needs decimals or integers, got {kind}")


def div_round(n: int, d: int) -> int:
    """``n / d`` (``d > 0``) rounded half to even, like Data.Decimal's ``divRound``."""
    q, r = divmod(abs(n), d)
    twice = 2 * r
    if twice > d or (twice == d and q % 2 == 1):
        q += 1
    return q if n >= 0 else -q


def round_to(m: int, p: int, places: int) -> int:
    """The mantissa of ``m / 10**p`` at ``places`` places, rounded half to even (``roundTo``)."""
    if places < p:
        return div_round(m, 10 ** (p - places))
    scale: int = 10 ** (places - p)
    return m * scale


def dec_add(a: Any, b: Any) -> DecimalValue:
    x, y = as_decimal(a), as_decimal(b)
    if y.m == 0:
        return DecimalValue(0, 0) if x.m == 0 else x
    if x.m == 0:
        return y
    p = max(x.p, y.p)
    return _checked(x.m * 10 ** (p - x.p) + y.m * 10 ** (p - y.p), p)


def dec_sub(a: Any, b: Any) -> DecimalValue:
    x, y = as_decimal(a), as_decimal(b)
    p = max(x.p, y.p)
    return _checked(x.m * 10 ** (p - x.p) - y.m * 10 ** (p - y.p), p)


def dec_mul(a: Any, b: Any) -> DecimalValue:
    x, y = as_decimal(a), as_decimal(b)
    m, p = x.m * y.m, x.p + y.p
    if p > MAX_PLACES:
        m, p = div_round(m, 10 ** (p - MAX_PLACES)), MAX_PLACES
    return _checked(round_to(m, p, max(x.p, y.p)), max(x.p, y.p))


def is_zero(v: Any) -> bool:
    return v == 0 if type(v) is int else type(v) is DecimalValue and v.m == 0


def dec_div(a: Any, b: Any) -> DecimalValue:
    x, y = as_decimal(a), as_decimal(b)
    if y.m == 0:
        raise _div_zero()
    num = x.m * 10 ** (y.p + MAX_PLACES)
    den = y.m * 10**x.p
    if den < 0:
        num, den = -num, -den
    q = div_round(num, den)  # the quotient at 255 places (Data.Decimal's `/`)
    p = max(x.p, y.p)
    return _checked(round_to(q, MAX_PLACES, p), p)


def dec_mod(a: Any, b: Any) -> DecimalValue:
    x, y = as_decimal(a), as_decimal(b)
    if y.m == 0:
        raise _div_zero()
    p = max(x.p, y.p)
    xm, ym = x.m * 10 ** (p - x.p), y.m * 10 ** (p - y.p)
    return DecimalValue(xm % ym, p)


def normalized(d: DecimalValue) -> DecimalValue:
    """The same value with its trailing zeros dropped (Data.Decimal's ``normalizeDecimal``)."""
    m, p = d.m, d.p
    if m == 0:
        return DecimalValue(0, 0)
    while p and m % 10 == 0:
        m //= 10
        p -= 1
    return DecimalValue(m, p)


def dec_neg(a: Any) -> DecimalValue:
    """Unary minus: SolidVM multiplies by -1, and Data.Decimal's product is normalized."""
    x = as_decimal(a)
    return normalized(DecimalValue(-x.m, x.p))


def dec_truncate(a: Any, places: Any) -> DecimalValue:
    """``d.truncate(n)``: ``n`` places, cutting toward zero (or padding with zeros).

    The platform takes ``n`` as an 8-bit count, so 300 means 44 (its tests rely on this)."""
    x = as_decimal(a)
    if type(places) is not int:
        raise _type_error("truncate needs an integer number of places")
    n = places % 256
    if n >= x.p:
        return _checked(x.m * 10 ** (n - x.p), n)
    q = abs(x.m) // 10 ** (x.p - n)
    return DecimalValue(q if x.m >= 0 else -q, n)


def dec_to_int(a: DecimalValue) -> int:
    """``int(d)`` / ``uint(d)``: rounded half to even to a whole number (``roundTo 0``)."""
    return round_to(a.m, a.p, 0)


def parse_decimal(text: str) -> DecimalValue:
    """Data.Decimal's ``read``: ``[+-]digits[.digits][e[+-]digits]``, spaces around allowed.

    Raises ValueError with the reason when ``text`` is not such a number."""
    m = _READ_RE.match(text)
    if m is None:
        raise ValueError("not a decimal number")
    sign, whole, frac, exp = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    if len(whole) + len(frac) > MAX_DIGITS:
        raise ValueError(f"more than {MAX_DIGITS} digits")
    try:
        e = len(frac) - (int(exp) if exp else 0)
    except ValueError:
        raise ValueError("exponent too large") from None
    if e > MAX_PLACES:
        raise ValueError(f"more than {MAX_PLACES} decimal places")
    if len(whole) + len(frac) - e > MAX_DIGITS:
        raise ValueError(f"more than {MAX_DIGITS} digits")
    n = int(whole + frac)
    if sign == "-":
        n = -n
    if e < 0:
        return DecimalValue(n * 10**-e, 0)
    return DecimalValue(n, e)


def from_float(v: float) -> DecimalValue:
    """A JSON number that arrived as a double: exact when it has at most 15 significant digits.

    The platform reads such numbers through their shortest text (Aeson's Scientific); more
    digits may already have been lost in transit, so they are refused: send a string instead."""
    text = repr(v)
    if text in ("inf", "-inf", "nan"):
        raise ValueError("not a finite number")
    mant = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    if len(mant) > SAFE_FLOAT_DIGITS:
        raise ValueError(
            f"a JSON number with more than {SAFE_FLOAT_DIGITS} significant digits is not exact; "
            'send the decimal as a string, e.g. "0.1234567890123456789"'
        )
    return parse_decimal(text)
