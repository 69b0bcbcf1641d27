"""SolidVM's low-level calls and contract creation from compiled code.

``a.call("f", args...)``, ``a.delegatecall(...)``, ``a.staticcall(...)`` name the function with a
string and return what it returns (variadic); ``a.derive(salt, "C", args...)`` predicts a salted
address; ``create(name, src, args...)`` / ``create2(salt, name, src, args...)`` compile a source
and create a contract of it; ``new C{salt: s}(args...)`` creates at the salted address.
"""

from __future__ import annotations

from typing import Any

from .. import ast as A
from ..binding import spread_last, takes_variadic
from ..defs import ContractDef
from ..ops import copy_in
from ..runtime import Fn, Frame
from ..salted import salt_text
from ..types import (
    ADDRESS,
    VARIADIC,
    AccountType,
    AddressType,
    BoolType,
    ContractType,
    IntType,
    StringType,
    VariadicType,
)
from ..values import Address, ContractRef
from .base import CExpr, CompilerBase

LOW_LEVEL = ("call", "delegatecall", "staticcall", "derive")


def _as_address(v: Any) -> Any:
    """``this`` as an address: SolidVM's ``this`` is a plain address, not a contract value."""
    return Address(v.value, v.chain) if isinstance(v, ContractRef) else v


def _address_of(f: Fn) -> Fn:
    return lambda fr: _as_address(f(fr))


class LowLevelMixin(CompilerBase):
    """Low-level calls, derive, create/create2 and salted ``new``."""

    def raw_args(self, args: list[A.Expr]) -> list[CExpr]:
        """Arguments as written (no conversion to parameter types): what salted addresses hash.
        ``this`` is a plain address there, as in SolidVM."""
        return self.this_as_address(args, [self.expr(a) for a in args])

    def this_as_address(self, args: list[A.Expr], compiled: list[CExpr]) -> list[CExpr]:
        out: list[CExpr] = []
        for a, (f, t) in zip(args, compiled, strict=True):
            if isinstance(a, A.Ident) and a.name == "this" and self.lookup_local("this") is None:
                out.append((_address_of(f), ADDRESS))
            else:
                out.append((f, t))
        return out

    def low_level_call(self, func: A.Member, args: list[A.Expr], e: A.Call) -> CExpr | None:
        """``x.call(...)`` and friends, or None when ``x.name`` is an ordinary function."""
        name = func.name
        obj = func.obj
        if isinstance(obj, A.Call) and isinstance(obj.func, A.Ident) and obj.func.name == "type":
            # the platform types type(C) as a label, which is no address
            self.error("Type mismatch: address and label type do not match.", obj)
        is_this = (
            isinstance(obj, A.Ident)
            and obj.name == "this"
            and self.lookup_local("this") is None
            and "this" not in self.c.svars
        )
        if is_this:
            base = self.expr(obj)[0]
        else:
            base, bt = self.expr(obj)
            if isinstance(bt, ContractType):
                target = self.uc.contracts.get(bt.name)
                if target is not None and name in target.functions:
                    return None
                if name == "code":
                    return self.code_call(base, args, e)
                self.error(
                    f"'{name}' needs an address: write address(x).{name}(...) (x is a {bt.name})",
                    e,
                )
            if bt is not None and not isinstance(bt, AddressType | AccountType | VariadicType):
                return None
        if name == "code":
            return self.code_call(base, args, e)
        compiled = self.raw_args(args)
        spread = bool(compiled) and isinstance(compiled[-1][1], VariadicType)
        need = 2 if name == "derive" else 1
        if len(compiled) < need and not spread:
            what = "the salt and the contract name" if name == "derive" else "the function name"
            self.error(f"'{name}' needs {what} first", e)
        for (_, t), a in zip(compiled[:need], args, strict=False):
            if t is not None and not isinstance(t, StringType | VariadicType):
                self.error(f"'{name}' expects a string here, not {t.name}", a)
        fns = [f for f, _ in compiled]
        if name == "derive":

            def run_derive(fr: Frame) -> Any:
                vals = [f(fr) for f in fns]
                return fr.ctx.world.derive_address(fr, _as_address(base(fr)), vals)

            return run_derive, ADDRESS

        def run_low_level(fr: Frame) -> Any:
            target = _as_address(base(fr))
            vals = [copy_in(fr, f(fr)) for f in fns]
            return fr.ctx.world.low_level_call(fr, target, name, vals)

        return run_low_level, VARIADIC

    def b_create(self, args: list[A.Expr], e: A.Call) -> CExpr:
        return self.create_builtin(args, e, salted=False)

    def b_create2(self, args: list[A.Expr], e: A.Call) -> CExpr:
        return self.create_builtin(args, e, salted=True)

    def create_builtin(self, args: list[A.Expr], e: A.Call, salted: bool) -> CExpr:
        what = "create2" if salted else "create"
        compiled = [self.expr(a) for a in args]
        spread = bool(compiled) and isinstance(compiled[-1][1], VariadicType)
        need = 3 if salted else 2
        if len(compiled) < need and not spread:
            self.error(
                f"{what} takes {'a salt, ' if salted else ''}a contract name and its source, "
                "then the constructor arguments",
                e,
            )
        for (_, t), a in zip(compiled[:need], args, strict=False):
            if t is not None and not isinstance(t, StringType | VariadicType):
                self.error(f"{what} expects a string here, not {t.name}", a)
        fns = [f for f, _ in compiled]

        def run_create(fr: Frame) -> Any:
            vals = [copy_in(fr, f(fr)) for f in fns]
            return fr.ctx.world.create_from_source(fr, vals, salted)

        return run_create, ADDRESS

    def flexible_new(
        self,
        target: ContractDef,
        args: list[A.Expr],
        salt: A.Expr | None,
        e: A.Call,
        compiled: list[CExpr] | None = None,
    ) -> CExpr:
        """``new C(...)`` with a salt, a variadic constructor or a spread last argument."""
        cname = target.name
        if compiled is None:
            compiled = self.raw_args(args)
        else:
            compiled = self.this_as_address(args, compiled)
        spread = bool(compiled) and isinstance(compiled[-1][1], VariadicType)
        ctor = target.constructor
        params = ctor.params if ctor else []
        fixed = len(params) - 1 if ctor is not None and takes_variadic(ctor) else len(params)
        if not spread and (
            len(compiled) < fixed or (len(compiled) > fixed and fixed == len(params))
        ):
            self.error(
                f"constructor of {cname} takes {len(params)} arguments, {len(compiled)} given", e
            )
        saltfn = None
        if salt is not None:
            saltfn, st = self.expr(salt)
            if isinstance(st, IntType | BoolType | AddressType | AccountType | ContractType):
                self.error(f"the salt must be a string, not {st.name}", salt)
        rawfns: list[Fn] = [f for f, _ in compiled]

        def new_flexible(fr: Frame) -> Any:
            world = fr.ctx.world
            raw = [copy_in(fr, f(fr)) for f in rawfns]
            if spread:
                raw = spread_last(fr, raw)
            bound = world.bind_constructor(target, raw)
            s = None
            if saltfn is not None:
                s = (salt_text(saltfn(fr), f"new {cname}"), raw)
            acct = world.create_from(fr, target, bound, s)
            return ContractRef(cname, acct.address)

        return new_flexible, ContractType(cname)
