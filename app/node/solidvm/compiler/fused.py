"""Operators whose operands are local variables, read in place.

``i < n``, ``a - b``, ``x += y`` (its combining step), ``return x``, ``i++``: the shapes that
fill loops and small library functions. Reading the slots inside the operator's own closure
spares a Python call per operand; a checked read (bounds.py) is checked in place, operands in
the order they are written, so the values and the errors are those of the unfused closures.

A local read is described by (slot, checked), as the function compiler records it for each
closure that reads a local (``CompilerBase.reads``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from ..ops import check_int, op_add_any
from ..runtime import RETURN, Fn, Frame
from .bounds import underflow
from .closures import order_guard, sub_any

LocalRead = tuple[int, bool]
"""(slot, checked): a closure that reads local ``slot``, failing below zero when checked."""

_ORDER: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}


def fused_compare(op: str, a: LocalRead, b: LocalRead) -> Fn:
    """``x < y`` (and ``>``, ``<=``, ``>=``) of two locals."""
    f = _ORDER[op]
    sa, ca = a
    sb, cb = b
    if not (ca or cb):

        def order_locals(fr: Frame) -> Any:
            loc = fr.l
            x = loc[sa]
            y = loc[sb]
            if type(x) is not int or type(y) is not int:
                order_guard(x, y)
            return f(x, y)

        return order_locals

    def order_locals_checked(fr: Frame) -> Any:
        loc = fr.l
        x = loc[sa]
        if ca and x < 0:
            raise underflow(x)
        y = loc[sb]
        if cb and y < 0:
            raise underflow(y)
        if type(x) is not int or type(y) is not int:
            order_guard(x, y)
        return f(x, y)

    return order_locals_checked


_ARITH: dict[str, tuple[Callable[[Any, Any], Any], Callable[[Frame, Any, Any], Any]]] = {
    "+": (operator.add, op_add_any),
    "-": (operator.sub, sub_any),
}


def fused_arith(op: str, a: LocalRead, b: LocalRead) -> Fn | None:
    """``x + y`` or ``x - y`` of two locals (None for the other operators)."""
    if op not in _ARITH:
        return None
    f, slow = _ARITH[op]
    sa, ca = a
    sb, cb = b
    if not (ca or cb):

        def arith_locals(fr: Frame) -> Any:
            loc = fr.l
            x = loc[sa]
            y = loc[sb]
            if type(x) is int and type(y) is int:
                return f(x, y)
            return slow(fr, x, y)

        return arith_locals

    def arith_locals_checked(fr: Frame) -> Any:
        loc = fr.l
        x = loc[sa]
        if ca and x < 0:
            raise underflow(x)
        y = loc[sb]
        if cb and y < 0:
            raise underflow(y)
        if type(x) is int and type(y) is int:
            return f(x, y)
        return slow(fr, x, y)

    return arith_locals_checked


def return_local(a: LocalRead, co: Callable[[Any], Any]) -> Fn:
    """``return x;`` of one local, converted by ``co`` to the declared return type."""
    slot, checked = a

    def run_ret_local(fr: Frame) -> Any:
        v = fr.l[slot]
        if checked and v < 0:
            raise underflow(v)
        fr.ret = [co(v)]
        return RETURN

    return run_ret_local


def incdec_local(
    slot: int, checked: bool, delta: int, wrap: Callable[[int], int] | None, prefix: bool
) -> Fn:
    """``x++``, ``--x``, ... of a local integer."""

    def run_incdec_local(fr: Frame) -> Any:
        loc = fr.l
        old = loc[slot]
        if checked and old < 0:
            raise underflow(old)
        if type(old) is not int:
            check_int(old)
        new = old + delta
        if wrap is not None:
            new = wrap(new)
        loc[slot] = new
        return new if prefix else old

    return run_incdec_local
