"""``variadic`` values, calls whose arguments are bound at run time, and overload choice.

SolidVM spreads a variadic last argument into separate arguments and gathers trailing arguments
into a ``variadic`` parameter, so such calls are bound when they run (``binding.py``); every
other call keeps its compile-time binding. Overloads are chosen by argument count, then by the
static types of the arguments (first fit in declaration order, as SolidVM picks at run time),
and for named arguments by the parameter names.
"""

from __future__ import annotations

from typing import Any

from .. import ast as A
from ..binding import bind, spread_last, takes_variadic
from ..defs import CompiledFunction
from ..errors import ExecutionError
from ..ops import copy_in, dyn_index, make_coercer
from ..proxies import is_renamed_fallback
from ..runtime import Fn, Frame, invoke
from ..types import (
    LITERAL,
    STRING,
    VARIADIC,
    AccountType,
    AddressType,
    BoolType,
    BytesType,
    ContractType,
    EnumType,
    IntType,
    StringType,
    StructType,
    Type,
    VariadicType,
)
from ..values import StructValue, VariadicValue
from .base import CExpr, CompilerBase, coerced
from .closures import ret_type, unpack_returns

_GROUPS: tuple[tuple[type[Type], ...], ...] = (
    (IntType, EnumType),
    (BoolType,),
    (StringType, BytesType),
    (AddressType, AccountType, ContractType),
)


def fits(src: Type | None, dst: Type) -> bool:
    """Whether a value of static type ``src`` can be passed for a parameter of type ``dst``."""
    if src is None or isinstance(src, VariadicType) or isinstance(dst, VariadicType):
        return True
    if src is LITERAL:
        return isinstance(dst, IntType | EnumType | AddressType | AccountType | BytesType)
    if isinstance(dst, StructType | EnumType | ContractType) and type(src) is type(dst):
        return src.name == dst.name or isinstance(dst, ContractType)
    if type(src) is type(dst):
        return True
    return any(isinstance(src, g) and isinstance(dst, g) for g in _GROUPS)


def variadic_index(fr: Frame, v: Any, i: Any) -> Any:
    if type(v) is VariadicValue:
        if type(i) is int and 0 <= i < len(v):
            return v[i]
        raise ExecutionError(f"index out of bounds: index out of range: {i}", "index out of bounds")
    return dyn_index(fr, v, i, False)


class VariadicMixin(CompilerBase):
    """Variadic values, run-time bound calls and overload choice."""

    # ------------------------------------------------------------ values

    def variadic_member(self, base: Fn, name: str, e: A.Member) -> CExpr:
        self.error(
            f"a variadic value has no member '{name}' (SolidVM offers only indexing: v[i])", e
        )

    def variadic_index(self, base: Fn, key: Fn) -> CExpr:
        return (lambda fr: variadic_index(fr, base(fr), key(fr))), None

    def b_variadic(self, args: list[A.Expr], e: A.Call) -> CExpr:
        """``variadic(a, b, ...)`` collects its arguments (a variadic last one is spread)."""
        compiled = [self.expr(a) for a in args]
        fns = [f for f, _ in compiled]
        spread = self.spreads(compiled)

        def make_variadic(fr: Frame) -> Any:
            vals = [copy_in(fr, f(fr)) for f in fns]
            if spread:
                vals = spread_last(fr, vals)
            fr.ctx.charge_memory(len(vals))
            return VariadicValue(vals)

        return make_variadic, VARIADIC

    def variadic_struct(self, st: StructType, args: list[A.Expr], e: A.Call) -> CExpr:
        """``S(a, b, c, d)`` where S's last member is variadic: it gets the trailing values."""
        k = len(st.fields) - 1
        compiled = [self.expr(a) for a in args]
        spread = self.spreads(compiled)
        if len(compiled) < k and not spread:
            self.error(f"struct {st.name} has {len(st.fields)} members, {len(args)} given", e)
        fns = [f for f, _ in compiled]
        names = [n for n, _ in st.fields]
        coercers = [make_coercer(t, self.vm) for _, t in st.fields[:k]]

        def make_struct(fr: Frame) -> Any:
            vals = [copy_in(fr, f(fr)) for f in fns]
            if spread:
                vals = spread_last(fr, vals)
            if len(vals) < k:
                raise ExecutionError(
                    f"invalid arguments: struct {st.name} needs at least {k} values, "
                    f"{len(vals)} given",
                    "invalid arguments",
                )
            head = [c(v) if c else v for c, v in zip(coercers, vals[:k], strict=True)]
            tail = vals[k:]
            rest = (
                tail[0]
                if len(tail) == 1 and type(tail[0]) is VariadicValue
                else VariadicValue(tail)
            )
            return StructValue(st, dict(zip(names, [*head, rest], strict=True)))

        return make_struct, st

    def msg_member(self, name: str, e: A.Member) -> CExpr:
        """``msg.sig`` (the called function's name) and ``msg.data`` (its arguments)."""
        if self.fn is None and not self.in_modifier:
            self.error(f"'msg.{name}' is only available inside a function or modifier", e)
        if name == "sig":
            return (lambda fr: fr.fn.name if fr.fn is not None else ""), STRING
        if self.in_modifier:

            def modifier_data(fr: Frame) -> Any:
                up = fr.up
                if up.fn is None or is_renamed_fallback(up.fn):
                    return VariadicValue()
                return VariadicValue(up.l[: len(up.fn.params)])

            return modifier_data, VARIADIC
        assert self.fn is not None
        n = len(self.fn.params)
        if self.fn.decl is not None and self.fn.decl.kind == "fallback":
            # reached for a call of another name (a proxy): SolidVM reads msg.data from the
            # contract's function of that name, which it lacks, so the value is empty
            return (
                lambda fr: VariadicValue() if fr.fn.name != "fallback" else VariadicValue(fr.l[:n])
            ), VARIADIC
        return (lambda fr: VariadicValue(fr.l[:n])), VARIADIC

    # ------------------------------------------------------------ overloads

    @staticmethod
    def spreads(compiled: list[CExpr]) -> bool:
        """A variadic last argument is spread into the call's arguments at run time."""
        return bool(compiled) and isinstance(compiled[-1][1], VariadicType)

    def candidates(self, fns: list[CompiledFunction], n: int) -> list[CompiledFunction]:
        return [
            f
            for f in fns
            if (len(f.params) == n and not takes_variadic(f))
            or (takes_variadic(f) and n >= len(f.params) - 1)
        ]

    def choose_overload(
        self, cands: list[CompiledFunction], compiled: list[CExpr]
    ) -> CompiledFunction:
        """The first candidate whose parameter types fit the arguments' static types."""
        if len(cands) == 1:
            return cands[0]
        n = len(compiled)

        def ok(f: CompiledFunction) -> bool:
            return all(fits(t, pt) for (_, t), (_, pt) in zip(compiled, f.params, strict=False))

        fitting = [f for f in cands if ok(f)]
        exact = [f for f in fitting if len(f.params) == n and not takes_variadic(f)]
        return (exact or fitting or cands)[0]

    def arity_error(self, fns: list[CompiledFunction], n: int, what: str, e: A.Node) -> None:
        counts = sorted({len(f.params) for f in fns})
        self.error(
            f"function '{what}' takes {' or '.join(str(c) for c in counts)} arguments, {n} given",
            e,
        )

    def pick_named(
        self,
        fns: list[CompiledFunction],
        names: list[str],
        what: str,
        e: A.Node,
        compiled: dict[str, CExpr] | None = None,
    ) -> CompiledFunction:
        """The overload whose parameter names are exactly the names given (several: the first
        whose parameter types fit the ``compiled`` arguments)."""
        want = set(names)
        if len(want) != len(names):
            self.error("an argument is named twice", e)
        named = [f for f in fns if {p for p, _ in f.params} == want]
        for f in named:
            if compiled is None or all(fits(compiled[p][1], t) for p, t in f.params):
                return f
        if len(named) == 1:
            return named[0]
        if named:
            self.error(
                f"no overload of '{what}' with the parameters ({', '.join(names)}) accepts "
                "arguments of these types",
                e,
            )
        shown = "; ".join(f"({', '.join(p for p, _ in f.params)})" for f in fns)
        self.error(
            f"no overload of '{what}' has the parameters ({', '.join(names)}); "
            f"its parameters are {shown}",
            e,
        )

    # ------------------------------------------------------------ internal calls

    def call_function(
        self, fns: list[CompiledFunction], args: list[A.Expr], e: A.Call, name: str
    ) -> CExpr:
        """A call of an internal function (overloaded, variadic or not) by its name."""
        compiled = [self.expr(a) for a in args]
        if self.spreads(compiled):
            return self.dynamic_internal_call(fns, compiled, name)
        cands = self.candidates(fns, len(compiled))
        if not cands:
            if len(fns) == 1:
                self.error(
                    f"function '{name}' takes {len(fns[0].params)} arguments, "
                    f"{len(compiled)} given",
                    e,
                )
            self.arity_error(fns, len(compiled), name, e)
        fn = self.choose_overload(cands, compiled)
        if not takes_variadic(fn):
            for a, (_, at), (_, t) in zip(args, compiled, fn.params, strict=True):
                self.check_arg(at, t, a)
        return self.call_chosen(fn, compiled)

    def call_chosen(self, fn: CompiledFunction, compiled: list[CExpr]) -> CExpr:
        """A call of ``fn`` (virtually dispatched) with already compiled arguments."""
        if takes_variadic(fn) or self.spreads(compiled):
            return self.dynamic_internal_call([fn], compiled, fn.name)
        argfns = [
            coerced(f, make_coercer(t, self.vm))
            for (f, _), (_, t) in zip(compiled, fn.params, strict=True)
        ]
        nret = len(fn.returns)
        if self.static_internal(fn):  # library and free-function code: exactly this function

            def call_exact(fr: Frame) -> Any:
                vals = [a(fr) for a in argfns]
                r = invoke(fr.ctx, fn, fr.acct, vals, fr.sender, fr.value, fr.ro)
                return unpack_returns(r, nret)

            return call_exact, ret_type(fn)
        if self.arity_shared(fn):
            sig = fn.signature

            def call_overload(fr: Frame) -> Any:
                target = fr.cdef.sigtable.get(sig, fn) if fr.cdef is not None else fn
                vals = [a(fr) for a in argfns]
                r = invoke(fr.ctx, target, fr.acct, vals, fr.sender, fr.value, fr.ro)
                return unpack_returns(r, nret)

            return call_overload, ret_type(fn)
        key = (fn.name, len(fn.params))

        def call_internal(fr: Frame) -> Any:
            target = fr.cdef.vtable.get(key, fn) if fr.cdef is not None else fn
            vals = [a(fr) for a in argfns]
            r = invoke(fr.ctx, target, fr.acct, vals, fr.sender, fr.value, fr.ro)
            return unpack_returns(r, nret)

        return call_internal, ret_type(fn)

    def arity_shared(self, fn: CompiledFunction) -> bool:
        """True when some contract of the unit has another function of ``fn``'s name and
        arity, so that dispatch must go by signature."""
        n = len(fn.params)
        for c in self.uc.contracts.values():
            same = [f for f in c.functions.get(fn.name, ()) if len(f.params) == n]
            if len(same) > 1:
                return True
        return False

    def dynamic_internal_call(
        self, fns: list[CompiledFunction], compiled: list[CExpr], name: str
    ) -> CExpr:
        argfns = [f for f, _ in compiled]
        spread = self.spreads(compiled)
        cands = list(fns)
        shapes = {tuple(t.name for _, t in f.returns) for f in cands}
        rt = ret_type(cands[0]) if len(shapes) == 1 else None
        virtual = not self.static_internal(cands[0])

        def call_bound(fr: Frame) -> Any:
            vals = [a(fr) for a in argfns]
            if spread:
                vals = spread_last(fr, vals)
            cdef = fr.cdef
            impls = (
                [cdef.sigtable.get(f.signature, f) for f in cands] if cdef and virtual else cands
            )
            fn, bound = bind(impls, vals, name)
            r = invoke(fr.ctx, fn, fr.acct, bound, fr.sender, fr.value, fr.ro)
            return unpack_returns(r, len(fn.returns))

        return call_bound, rt

    def free_variadic_call(self, name: str, args: list[A.Expr]) -> CExpr | None:
        """A call of a free function with a variadic parameter (None: no such function)."""
        fd = self.uc.file_def
        if self.c is fd:
            return None
        fns = [f for f in fd.functions.get(name, ()) if takes_variadic(f)]
        if not fns:
            return None
        compiled = [self.expr(a) for a in args]
        cands = self.candidates(fns, len(compiled)) or fns
        return self.static_bound_call(self.choose_overload(cands, compiled), compiled)

    def static_bound_call(self, fn: CompiledFunction, compiled: list[CExpr]) -> CExpr:
        """``Base.f(...)``/``Lib.f(...)`` of a function with a variadic parameter."""
        argfns = [f for f, _ in compiled]
        spread = self.spreads(compiled)

        def call_static_bound(fr: Frame) -> Any:
            vals = [a(fr) for a in argfns]
            if spread:
                vals = spread_last(fr, vals)
            target, bound = bind([fn], vals, fn.name)
            r = invoke(fr.ctx, target, fr.acct, bound, fr.sender, fr.value, fr.ro)
            return unpack_returns(r, len(fn.returns))

        return call_static_bound, ret_type(fn)
