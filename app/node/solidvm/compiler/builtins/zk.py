"""Zero-knowledge builtins: ``ecAdd``, ``ecMul``, ``ecPairing`` (alt_bn128) and ``poseidon``.

As STRATO 16.10 declares them: ``ecAdd(x1, y1, x2, y2)`` and ``ecMul(x, y, s)`` return the point
as a tuple ``(uint x, uint y)``; ``ecPairing(...)`` returns a bool and ``poseidon(...)`` a uint,
and both take a ``uint[]``, a ``variadic`` or the integers themselves as arguments.
The arithmetic is in ``bn254.py`` and ``poseidon.py``.

Steps: a pairing costs much more than anything else a contract does, so it is charged by the
pair and the budget (the node's wall-clock limit too) is checked between pairs: a transaction
that pairs too much stops between two Miller loops instead of after all of them.
"""

from __future__ import annotations

from typing import Any

from ... import ast as A
from ...bn254 import ec_add, ec_mul, pairing_check, warm_up
from ...ops import check_int, type_error
from ...poseidon import MAX_INPUTS, poseidon
from ...runtime import Fn, Frame
from ...types import BOOL, UINT, ArrayType, TupleType, VariadicType
from ...values import ArrayValue, VariadicValue
from ..base import CExpr, CompilerBase

EC_ADD_STEPS = 5  # a field inversion: a few microseconds
EC_MUL_STEPS = 500  # ~250 doublings and additions: about a millisecond
PAIRING_STEPS = 20_000  # one Miller loop (~75 ms); the final exponentiation costs as much
POSEIDON_STEPS = 100  # 60-70 rounds of the permutation: well under a millisecond

POINT = TupleType([UINT, UINT])


def charge(fr: Frame, steps: int) -> None:
    ctx = fr.ctx
    ctx.steps += steps
    if ctx.steps > ctx.max_steps:
        raise ctx.out_of_gas()


def int_list(vals: list[Any]) -> list[int]:
    """The integers of a builtin's arguments: one array or variadic argument gives its elements."""
    if len(vals) == 1 and type(vals[0]) in (ArrayValue, VariadicValue):
        vals = list(vals[0])
    return [check_int(v) for v in vals]


class ZkBuiltins(CompilerBase):
    """alt_bn128 point arithmetic, the pairing check and the Poseidon hash."""

    def _int_args(self, args: list[A.Expr], e: A.Call, name: str, n: int, what: str) -> list[Fn]:
        if len(args) != n:
            self.error(f"{name} takes {what}", e)
        fns = []
        for a in args:
            f, t = self.expr(a)
            self.expect_int(t, a)
            fns.append(f)
        return fns

    def _list_arg(self, args: list[A.Expr]) -> Fn:
        """One ``uint[]``/``variadic`` argument, or any number of integers, as a list of ints."""
        compiled = [self.expr(a) for a in args]
        if len(compiled) == 1 and isinstance(compiled[0][1], ArrayType | VariadicType):
            f0 = compiled[0][0]
            return lambda fr: int_list([f0(fr)])
        for (_, t), a in zip(compiled, args, strict=True):
            self.expect_int(t, a)
        fns = [f for f, _ in compiled]
        return lambda fr: int_list([f(fr) for f in fns])

    def b_ecAdd(self, args: list[A.Expr], e: A.Call) -> CExpr:
        fx1, fy1, fx2, fy2 = self._int_args(
            args, e, "ecAdd", 4, "two alt_bn128 points: ecAdd(x1, y1, x2, y2)"
        )

        def run_ec_add(fr: Frame) -> Any:
            charge(fr, EC_ADD_STEPS)
            x1, y1 = check_int(fx1(fr)), check_int(fy1(fr))
            return ec_add(x1, y1, check_int(fx2(fr)), check_int(fy2(fr)))

        return run_ec_add, POINT

    def b_ecMul(self, args: list[A.Expr], e: A.Call) -> CExpr:
        fx, fy, fs = self._int_args(
            args, e, "ecMul", 3, "an alt_bn128 point and a scalar: ecMul(x, y, s)"
        )

        def run_ec_mul(fr: Frame) -> Any:
            charge(fr, EC_MUL_STEPS)
            return ec_mul(check_int(fx(fr)), check_int(fy(fr)), check_int(fs(fr)))

        return run_ec_mul, POINT

    def b_ecPairing(self, args: list[A.Expr], e: A.Call) -> CExpr:
        values = self._list_arg(args)
        warm_up()  # compiling runs before any transaction's clock starts

        def run_ec_pairing(fr: Frame) -> Any:
            vals = values(fr)
            charge(fr, len(vals))
            return pairing_check(vals, lambda: charge(fr, PAIRING_STEPS))

        return run_ec_pairing, BOOL

    def b_poseidon(self, args: list[A.Expr], e: A.Call) -> CExpr:
        values = self._list_arg(args)

        def run_poseidon(fr: Frame) -> Any:
            vals = values(fr)
            if not 1 <= len(vals) <= MAX_INPUTS:
                shown = ",".join(map(str, vals))
                raise type_error(f"invalid args passed to poseidon: [{shown}]")
            charge(fr, POSEIDON_STEPS)
            return poseidon(vals)

        return run_poseidon, UINT
