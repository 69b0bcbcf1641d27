"""Small SolidVM builtins: ``identity``, ``log``, ``modExp``; ``sha3`` is a reserved word."""

from __future__ import annotations

import logging
from typing import Any

from ... import ast as A
from ...ops import check_int, div_zero, type_error
from ...runtime import Frame, keep_log_line
from ...types import (
    UINT,
    AccountType,
    AddressType,
    ContractType,
    EnumType,
    Type,
)
from ...values import Address, ArrayValue, ContractRef, MappingValue, StructValue, TextBytes
from ..base import CExpr, CompilerBase

contract_log = logging.getLogger("stratoscope.node.contracts")


def show_value(v: Any, t: Type | None) -> str:
    """A value as SolidVM's ``log`` prints it."""
    if isinstance(t, EnumType) and type(v) is int and 0 <= v < len(t.values):
        return f"{t.name}.{t.values[v]} (= {v:x})"
    if v is True or v is False:
        return "True" if v else "False"
    if isinstance(v, str):
        return v
    if type(v) is TextBytes:
        return v.decode("utf-8", "replace")
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, ContractRef) or isinstance(t, ContractType):
        name = v.cname if isinstance(v, ContractRef) else getattr(t, "name", "?")
        return f"Contract: {name}/{v.hex if isinstance(v, Address) else v}"
    if isinstance(v, Address) or isinstance(t, (AddressType, AccountType)):
        return v.hex if isinstance(v, Address) else str(v)
    if isinstance(v, tuple):
        return "(" + ", ".join(show_value(x, None) for x in v) + ")"
    if isinstance(v, ArrayValue):
        return "[" + ", ".join(show_value(x, v.atype.elem) for x in v) + "]"
    if isinstance(v, StructValue):
        types = v.stype.field_types
        fields = ", ".join(f"{n}: {show_value(v[n], types.get(n))}" for n in sorted(v))
        return f"{v.stype.name}{{{fields}}}"
    if isinstance(v, MappingValue):
        kt, vt = v.mtype.key, v.mtype.value
        items = ", ".join(f"{show_value(k, kt)}: {show_value(x, vt)}" for k, x in v.items())
        return "{" + items + "}"
    return str(v)


def mod_exp(b: int, e: int, m: int) -> int:
    """``modExp(base, exponent, modulus)`` as SolidVM computes it (``modExp(0, 0, m)`` is 0,
    ``modExp(b, 0, m)`` is 1 for any ``m``)."""
    if e < 0:
        raise type_error("modExp: negative exponent")
    if b == 0:
        return 0
    if e == 0:
        return 1
    if m == 0:
        raise div_zero()
    return pow(b, e, m)


class UtilityBuiltins(CompilerBase):
    """``identity(v)``, ``log(...)``, ``modExp(b, e, m)``."""

    def b_identity(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != 1:
            self.error("identity takes one value", e)
        return self.expr(args[0])

    def b_log(self, args: list[A.Expr], e: A.Call) -> CExpr:
        ev = self.c.events.get("log")
        if ev is not None:  # an event named `log`, invoked without `emit`
            return self.emit_code(ev, args, None, e), None
        parts = [self.expr(a) for a in args]
        cname = self.c.name

        def run_log(fr: Frame) -> Any:
            ctx = fr.ctx
            for f, t in parts:
                text = show_value(f(fr), t)
                ctx.charge_memory(len(text))
                if keep_log_line(ctx.logs, text):
                    contract_log.info("log %s %s: %s", cname, fr.acct.hex, text)
            return None

        return run_log, None

    def b_modExp(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != 3:
            self.error("modExp takes three integers: base, exponent and modulus", e)
        fns = []
        for a in args:
            f, t = self.expr(a)
            self.expect_int(t, a)
            fns.append(f)
        fb, fe, fm = fns

        def run_mod_exp(fr: Frame) -> Any:
            b, x, m = check_int(fb(fr)), check_int(fe(fr)), check_int(fm(fr))
            ctx = fr.ctx
            ctx.steps += x.bit_length()
            if ctx.steps > ctx.max_steps:
                raise ctx.out_of_gas()
            return mod_exp(b, x, m)

        return run_mod_exp, UINT

    def b_sha3(self, args: list[A.Expr], e: A.Call) -> CExpr:
        self.error("'sha3' is a reserved word in SolidVM; use keccak256", e)
