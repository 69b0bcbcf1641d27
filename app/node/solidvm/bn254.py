"""alt_bn128 (BN254) arithmetic of SolidVM's ``ecAdd``, ``ecMul`` and ``ecPairing``.

G1 addition and scalar multiplication are written out here rather than taken from a library,
because the platform's results are those of its curve library's affine formulas, quirks
included, and a sandbox has to agree with them:

- ``(0, 0)`` (before any reduction) is the point at infinity; other coordinates are reduced
  modulo the field prime, and no point is checked to lie on the curve: the formulas run on
  whatever they are given.
- Adding two points with the same x gives the point at infinity, **even a point to itself**
  (``ecAdd(P, P)`` is ``(0, 0)``, not ``2P``; ``ecMul(P, 2)`` doubles).
- ``ecMul`` reduces the scalar modulo the group order, then doubles and adds from the lowest bit.

For points on the curve these are the usual group operations (the unit tests compare them with
py_ecc). The pairing check uses py_ecc's optimal ate pairing (Miller loops multiplied, one final
exponentiation), with the platform's treatment of the point at infinity; a point that is not on
its curve makes the check false, as the platform's unchecked arithmetic does in practice.

The final exponentiation f^((p^12 - 1) / r) is py_ecc's arithmetic split the textbook way:
(p^6 - 1)(p^2 + 1) by two Frobenius maps (linear on the coefficients, their matrices computed
once) and one division, then the remaining (p^4 - p^2 + 1) / r as a power: a 762-bit exponent
instead of py_ecc's 2,790 bits, about four times faster. Tests compare it with py_ecc's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

# the base field of the curve y^2 = x^3 + 3, and the order of its group of points
FIELD = 21888242871839275222246405745257275088696311157297823662689037894645226208583
ORDER = 21888242871839275222246405745257275088548364400416034343698204186575808495617
HARD_EXPONENT = (FIELD**4 - FIELD**2 + 1) // ORDER  # r divides p^4 - p^2 + 1 on BN curves

Point = tuple[int, int] | None  # None: the point at infinity


def to_point(x: int, y: int) -> Point:
    """Integers as a G1 point: the raw pair (0, 0) is infinity, anything else is reduced."""
    if x == 0 and y == 0:
        return None
    return x % FIELD, y % FIELD


def from_point(p: Point) -> tuple[int, int]:
    return (0, 0) if p is None else p


def add(p: Point, q: Point) -> Point:
    """Affine addition; equal x coordinates (a point and itself too) give infinity."""
    if p is None:
        return q
    if q is None:
        return p
    (x1, y1), (x2, y2) = p, q
    if x1 == x2:
        return None
    slope = (y1 - y2) * pow(x1 - x2, -1, FIELD) % FIELD
    x3 = (slope * slope - x1 - x2) % FIELD
    return x3, (slope * (x1 - x3) - y1) % FIELD


def double(p: Point) -> Point:
    if p is None or p[1] == 0:
        return None
    x, y = p
    slope = 3 * x * x * pow(2 * y, -1, FIELD) % FIELD
    x3 = (slope * slope - 2 * x) % FIELD
    return x3, (slope * (x - x3) - y) % FIELD


def multiply(p: Point, scalar: int) -> Point:
    """``scalar * p``, the scalar taken modulo the group order; the doublings of ``p`` are
    added from the highest set bit down, as the platform's recursion does."""
    n = scalar % ORDER
    if n == 0:
        return None
    doubles: list[Point] = []
    d = p
    while n > 1:
        doubles.append(d if n & 1 else None)
        d = double(d)
        n >>= 1
    acc = d
    for q in reversed(doubles):
        if q is not None:
            acc = add(q, acc)
    return acc


def ec_add(x1: int, y1: int, x2: int, y2: int) -> tuple[int, int]:
    return from_point(add(to_point(x1, y1), to_point(x2, y2)))


def ec_mul(x: int, y: int, scalar: int) -> tuple[int, int]:
    return from_point(multiply(to_point(x, y), scalar))


@cache
def _py_ecc() -> tuple[Any, ...]:
    """py_ecc's BN254 pairing pieces, imported on first use (~0.2 s).

    Importing py_ecc raises the interpreter's recursion limit to 100,000 for its own recursive
    code paths, which we do not use; the limit the node chose (deep contract code fails with
    "stack too deep" instead of overflowing the C stack) is put back.
    """
    limit = sys.getrecursionlimit()
    try:
        from py_ecc.fields import optimized_bn128_FQ as FQ
        from py_ecc.fields import optimized_bn128_FQ2 as FQ2
        from py_ecc.fields import optimized_bn128_FQ12 as FQ12
        from py_ecc.optimized_bn128.optimized_curve import b, b2, is_on_curve
        from py_ecc.optimized_bn128.optimized_pairing import pairing
    finally:
        sys.setrecursionlimit(limit)
    return FQ, FQ2, FQ12, b, b2, is_on_curve, pairing


def _sextic_power(e: int) -> tuple[int, int]:
    """(w^6)^e as a + b w^6: w^6 spans a quadratic subfield, (w^6)^2 = 18 w^6 - 82 in py_ecc's
    FQ12 (w^12 - 18 w^6 + 82 = 0), so the power costs two-term products only."""
    a, b = 1, 0
    c, d = 0, 1
    while e:
        if e & 1:
            a, b = (a * c - 82 * b * d) % FIELD, (a * d + b * c + 18 * b * d) % FIELD
        c, d = (c * c - 82 * d * d) % FIELD, (2 * c * d + 18 * d * d) % FIELD
        e >>= 1
    return a, b


@cache
def _frobenius_rows(k: int) -> tuple[tuple[int, ...], ...]:
    """Row i: the coefficients of (w^i)^(p^k) in py_ecc's FQ12 basis 1, w, ..., w^11."""
    FQ12 = _py_ecc()[2]
    # w^(p^k) = w * (w^6)^((p^k - 1) / 6), p = 1 (mod 6)
    a, b = _sextic_power((FIELD**k - 1) // 6)
    w_p = FQ12([0, a, 0, 0, 0, 0, 0, b, 0, 0, 0, 0])
    rows = []
    image = FQ12.one()
    for _ in range(12):
        rows.append(tuple(int(c) for c in image.coeffs))
        image = image * w_p
    return tuple(rows)


def warm_up() -> None:
    """Import py_ecc and compute the Frobenius rows now (~0.2 s once), so that the first pairing
    does not spend it inside a transaction's time budget (called when a contract using
    ``ecPairing`` compiles)."""
    _frobenius_rows(6)
    _frobenius_rows(2)


def frobenius(f: Any, k: int) -> Any:
    """f^(p^k): the coefficients are fixed by it, so it maps the basis only."""
    rows = _frobenius_rows(k)
    out = [0] * 12
    for coeff, row in zip(f.coeffs, rows, strict=True):
        a = int(coeff)
        if a:
            for j in range(12):
                out[j] += a * row[j]
    return type(f)(out)


def final_exponentiation(f: Any) -> Any:
    """f^((p^12 - 1) / r), equal to py_ecc's ``final_exponentiate(f)``."""
    f = frobenius(f, 6) / f  # f^(p^6 - 1)
    f = frobenius(f, 2) * f  # ...^(p^2 + 1)
    return f**HARD_EXPONENT


def pairing_check(values: Sequence[int], tick: Callable[[], None] | None = None) -> bool:
    """True when the product of the pairings e(G1_i, G2_i) is one.

    ``values`` is Ethereum's layout, six integers a pair: x, y of the G1 point, then the G2
    point's x as (imaginary, real) and its y the same way. A length that is not a multiple of six
    is false; no pairs at all is true. A pair whose G1 point is the raw (0, 0), or whose G2
    coordinates are all zero, contributes one. ``tick`` runs before each pair's Miller loop (the
    caller charges steps there and can stop a transaction that ran out of time).
    """
    if len(values) % 6:
        return False
    FQ, FQ2, FQ12, b, b2, is_on_curve, miller = _py_ecc()
    acc: Any = FQ12.one()
    for i in range(0, len(values), 6):
        x1, y1, x2i, x2r, y2i, y2r = values[i : i + 6]
        if x1 == 0 and y1 == 0:
            continue
        g2 = [v % FIELD for v in (x2r, x2i, y2r, y2i)]
        if not any(g2):
            continue
        p1 = (FQ(x1 % FIELD), FQ(y1 % FIELD), FQ.one())
        p2 = (FQ2(g2[:2]), FQ2(g2[2:]), FQ2.one())
        if not is_on_curve(p1, b) or not is_on_curve(p2, b2):
            return False
        if tick is not None:
            tick()
        acc = acc * miller(p2, p1, final_exponentiate=False)
    if tick is not None:
        tick()
    return bool(final_exponentiation(acc) == FQ12.one())
