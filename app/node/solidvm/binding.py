"""Binding argument values to parameters when the shape is only known at run time.

SolidVM spreads a ``variadic`` value given as the last argument of any call into separate
arguments, collects the trailing arguments of a call into a function's ``variadic`` parameter,
and picks among overloads by the run-time values (first match in declaration order). Calls whose
argument list is fixed at compile time never come here.
"""

from __future__ import annotations

from typing import Any

from .defs import CompiledFunction
from .errors import ExecutionError
from .ops import describe
from .runtime import Frame
from .types import VariadicType
from .values import VariadicValue

MAX_ARGS = 10_000
"""Arguments one call may pass after spreading; more is certainly a runaway program."""


def takes_variadic(fn: CompiledFunction) -> bool:
    return bool(fn.params) and isinstance(fn.params[-1][1], VariadicType)


def spread_last(fr: Frame, vals: list[Any]) -> list[Any]:
    """``f(a, v)`` with ``v`` variadic passes the elements of ``v`` after ``a`` (one step per
    value: copying long argument lists in a loop runs out of gas)."""
    if vals and type(vals[-1]) is VariadicValue:
        vals = vals[:-1] + list(vals[-1])
        ctx = fr.ctx
        ctx.steps += len(vals)
        if ctx.steps > ctx.max_steps:
            raise ctx.out_of_gas()
    if len(vals) > MAX_ARGS:
        raise ExecutionError(
            f"invalid arguments: a call may pass at most {MAX_ARGS} arguments, {len(vals)} given",
            "invalid arguments",
        )
    return vals


def try_bind(fn: CompiledFunction, vals: list[Any]) -> list[Any] | None:
    """The argument list ``fn`` runs with, or None when ``vals`` do not fit its parameters."""
    params = fn.params
    n = len(params)
    rest: Any = None
    if n and isinstance(params[-1][1], VariadicType):
        k = n - 1
        if len(vals) < k:
            return None
        tail = vals[k:]
        rest = tail[0] if len(tail) == 1 and type(tail[0]) is VariadicValue else VariadicValue(tail)
        fixed = vals[:k]
    else:
        if n != 1 and len(vals) == 1 and type(vals[0]) is VariadicValue:
            vals = list(vals[0])
        if len(vals) != n:
            return None
        fixed = vals
    coercers = fn.param_coercers
    out: list[Any] = []
    for i, v in enumerate(fixed):
        co = coercers[i] if i < len(coercers) else None
        if co is None:
            out.append(v)
            continue
        try:
            out.append(co(v))
        except ExecutionError:
            return None
    if rest is not None:
        out.append(rest)
    return out


def bind(
    fns: list[CompiledFunction], vals: list[Any], what: str
) -> tuple[CompiledFunction, list[Any]]:
    """The first of ``fns`` (overloads, in declaration order) that accepts ``vals``."""
    for fn in fns:
        bound = try_bind(fn, vals)
        if bound is not None:
            return fn, bound
    got = ", ".join(describe(v) for v in vals[:8]) + (", ..." if len(vals) > 8 else "")
    wants = "; ".join(f"({', '.join(t.name for _, t in fn.params)})" for fn in fns[:4]) or "()"
    raise ExecutionError(
        f"type error: argument type mismatch in '{what}': got ({got}), expected {wants}",
        "type error",
    )
