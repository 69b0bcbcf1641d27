"""Library calls, ``using L for T`` member calls, free functions and user-defined value types.

Library and free functions run like internal functions, in the calling contract's account (the
platform never deploys libraries: ``L.f()`` and ``x.f()`` run L's code on the caller's storage).
``x.f(a)`` with ``using L for T`` compiles to ``L.f(x, a)``: complex receivers (structs, arrays,
mappings) are passed as references, so a library function taking ``S storage self`` changes the
caller's storage; value types are passed by value.
"""

from __future__ import annotations

from typing import Any

from .. import ast as A
from ..defs import CompiledFunction, ContractDef, StateVar, UsingDef
from ..errors import CompileError
from ..ops import convert, copy_in, make_coercer
from ..runtime import Fn, Frame, invoke
from ..types import (
    AccountType,
    AddressType,
    ArrayType,
    ContractType,
    EnumType,
    IntType,
    StructType,
    TupleType,
    Type,
    UserDefinedType,
)
from ..values import StructValue
from .base import CExpr, CompilerBase, coerced
from .closures import ret_type, unpack_returns, values_of

_ADDRESSES = (AddressType, AccountType)


class LibrariesMixin(CompilerBase):
    """Library calls, ``using ... for`` member calls, free functions, value types."""

    # ------------------------------------------------------------ using L for T: x.f(args)

    def using_candidates(self, name: str) -> list[tuple[UsingDef, CompiledFunction]]:
        """Functions called ``name`` of the libraries this contract attaches with ``using``."""
        out: list[tuple[UsingDef, CompiledFunction]] = []
        for u in self.c.usings:
            for fn in u.library.functions.get(name, ()):
                if fn.visibility != "private":
                    out.append((u, fn))
        return out

    def wants_storage_receiver(self, name: str) -> bool:
        """True when every attached ``name`` takes its receiver from storage and may write it:
        the receiver expression then creates a missing mapping entry, as an assignment would."""
        cands = self.using_candidates(name) if self.c.usings else []
        if not cands:
            return False
        for _, fn in cands:
            d = fn.decl
            if d is None or not d.params or d.params[0].location != "storage" or not fn.writes:
                return False
        return True

    def bound_call(
        self, base: Fn, bt: Type | None, name: str, args: list[A.Expr], e: A.Call
    ) -> CExpr | None:
        """``x.f(args)`` through ``using``; None when no attached library declares ``f``."""
        if not self.c.usings:
            return None
        if isinstance(bt, ArrayType) and name in ("push", "pop"):
            return None
        is_addr = bt is None or isinstance(bt, (*_ADDRESSES, ContractType))
        if is_addr and name in ("transfer", "send"):
            return None
        if isinstance(bt, ContractType):
            target = self.uc.contracts.get(bt.name)
            if target is not None and target.find_function(name) is not None:
                return None
        cands = self.using_candidates(name)
        covering = [u for u in self.c.usings if covers(u, bt)]
        if not cands:
            if covering and bt is not None and not is_addr:
                libs = ", ".join(dict.fromkeys(u.library.name for u in covering))
                self.error(
                    f"type {bt.name} has no function '{name}' (none in the libraries attached "
                    f"to it: {libs})",
                    e,
                )
            return None
        applicable = [(u, fn) for u, fn in cands if covers(u, bt)]
        if not applicable:
            u, _ = cands[0]
            shown = bt.name if bt is not None else "this value"
            self.error(
                f"function '{u.library.name}.{name}' is attached to {u.text}, not to {shown}", e
            )
        fitting = [(u, fn) for u, fn in applicable if len(fn.params) == len(args) + 1]
        if not fitting:
            u, fn = applicable[0]
            self.error(
                f"function '{u.library.name}.{name}' takes {len(fn.params) - 1} arguments after "
                f"its receiver, {len(args)} given",
                e,
            )
        typed = [(u, fn) for u, fn in fitting if self._accepts(bt, fn.params[0][1], e)]
        if not typed:
            u, fn = fitting[0]
            assert bt is not None
            self.error(
                f"function '{u.library.name}.{name}' takes a {fn.params[0][1].name} as its "
                f"receiver, not a {bt.name}",
                e,
            )
        _, fn = typed[0]
        self.check_udvt(bt, fn.params[0][1], e)
        recv = coerced(base, make_coercer(fn.params[0][1], self.vm))
        argvals = values_of(
            [recv] + [self._arg(a, t) for a, (_, t) in zip(args, fn.params[1:], strict=True)]
        )
        nret = len(fn.returns)

        def call_bound(fr: Frame) -> Any:
            r = invoke(fr.ctx, fn, fr.acct, argvals(fr), fr.sender, fr.value, fr.ro)
            return r[0] if nret == 1 else unpack_returns(r, nret)

        return call_bound, ret_type(fn)

    def _accepts(self, src: Type | None, dst: Type, node: A.Node) -> bool:
        if src is None:
            return True
        if isinstance(src, UserDefinedType) or isinstance(dst, UserDefinedType):
            return src == dst
        try:
            self.check_assignable(src, dst, node)
        except CompileError:
            return False
        return True

    # ------------------------------------------------------------ plain names

    def scope_function(self, name: str, nargs: int, e: A.Node) -> CompiledFunction | None:
        """A free function, or a function of a library named in ``using``, called by name."""
        found: list[CompiledFunction] = []
        fd = self.uc.file_def
        if self.c is not fd:
            found.extend(fd.functions.get(name, ()))
        if not found:
            found.extend(fn for _, fn in self.using_candidates(name))
        if not found:
            return None
        fn = next((f for f in found if len(f.params) == nargs), None)
        if fn is None:
            self.error(
                f"function '{name}' takes {len(found[0].params)} arguments, {nargs} given", e
            )
        return fn

    def scope_constant(self, name: str) -> StateVar | None:
        """A file-level constant, or a constant of a library named in ``using``."""
        sv = self.uc.file_def.svars.get(name)
        if sv is None:
            for u in self.c.usings:
                sv = u.library.svars.get(name)
                if sv is not None:
                    break
        return sv if sv is not None and sv.constant else None

    def this_type(self) -> Type | None:
        """``this`` is the calling contract; in a free function its contract type is unknown."""
        return None if self.c is self.uc.file_def else ContractType(self.c.name)

    def static_internal(self, fn: CompiledFunction) -> bool:
        """Calls made by library and free-function code go to exactly that function: their frame
        belongs to the calling contract, whose overrides must not capture them."""
        return self.c.kind == "library" or self.c is self.uc.file_def

    # ------------------------------------------------------------ qualified names: L.S(...)

    def qualified_type_call(
        self, owner: ContractDef, name: str, args: list[A.Expr], e: A.Call
    ) -> CExpr:
        """``L.S(a, b)`` (struct) and ``L.E(i)`` (enum conversion) of a contract or library."""
        t = None
        for b in owner.linearization:
            t = b.own_types.get(name)
            if t is not None:
                break
        if isinstance(t, StructType):
            return self.struct_ctor(t, args, e)
        if isinstance(t, EnumType):
            if len(args) != 1:
                self.error(f"conversion to {t.name} takes one argument", e)
            f, _ = self.expr(args[0])
            vm = self.vm
            et = t
            return (lambda fr: convert(f(fr), et, vm)), et
        if isinstance(t, UserDefinedType):
            self.error(f"use {owner.name}.{name}.wrap(...) to make a {name}", e)
        self.error(f"contract {owner.name} has no function '{name}'", e)

    def struct_ctor(self, st: StructType, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != len(st.fields):
            self.error(f"struct {st.name} has {len(st.fields)} members, {len(args)} given", e)
        fns = [self._arg(a, ft) for a, (_, ft) in zip(args, st.fields, strict=True)]
        names = [n for n, _ in st.fields]

        def make_struct(fr: Frame) -> Any:
            return StructValue(st, {n: copy_in(fr, f(fr)) for n, f in zip(names, fns, strict=True)})

        return make_struct, st

    # ------------------------------------------------------------ user-defined value types

    def value_type_of(self, obj: A.Expr) -> UserDefinedType | None:
        """The value type named by ``Price`` or ``C.Price`` (when it is not a variable)."""
        if isinstance(obj, A.Ident):
            if self.lookup_local(obj.name) is not None or obj.name in self.c.svars:
                return None
            t = self.c.types.get(obj.name)
        elif isinstance(obj, A.Member) and isinstance(obj.obj, A.Ident):
            owner = self.uc.contracts.get(obj.obj.name)
            if owner is None or self.lookup_local(obj.obj.name) is not None:
                return None
            t = owner.types.get(obj.name)
        else:
            return None
        return t if isinstance(t, UserDefinedType) else None

    def value_type_call(
        self, ut: UserDefinedType, name: str, args: list[A.Expr], e: A.Call
    ) -> CExpr:
        """``Price.wrap(x)`` and ``Price.unwrap(p)``: no run-time cost beyond the argument."""
        if name not in ("wrap", "unwrap"):
            self.error(f"user-defined value type {ut.name} has no member '{name}'", e)
        if len(args) != 1:
            self.error(f"'{name}' must take one argument", e)
        f, t = self.expr(args[0])
        if name == "wrap":
            if isinstance(t, UserDefinedType) or (
                t is not None and not self._accepts(t, ut.actual, args[0])
            ):
                shown = t.name if t is not None else "?"
                self.error(f"{ut.name}.wrap expects a {ut.actual.name}, not a {shown}", args[0])
            return coerced(f, make_coercer(ut.actual, self.vm)), ut
        if t is not None and t != ut:
            self.error(f"{ut.name}.unwrap expects a {ut.name}, not a {t.name}", args[0])
        return f, ut.actual

    def check_udvt(self, src: Type | None, dst: Type, node: A.Node) -> None:
        """A value type converts to and from nothing implicitly, not even its underlying type."""
        if src is None or isinstance(src, TupleType) or src == dst:
            return
        if isinstance(dst, UserDefinedType):
            hint = "" if isinstance(src, UserDefinedType) else f"; use {dst.name}.wrap(...)"
            self.error(f"type {src.name} is not implicitly convertible to {dst.name}{hint}", node)
        if isinstance(src, UserDefinedType):
            self.error(
                f"type {src.name} is not implicitly convertible to {dst.name}; "
                f"use {src.name}.unwrap(...)",
                node,
            )

    def no_value_type_operand(self, op: str, t: Type | None, node: A.Node) -> None:
        if isinstance(t, UserDefinedType):
            self.error(
                f"operator '{op}' is not defined for user-defined value type {t.name}; "
                f"use {t.name}.unwrap(...) first",
                node,
            )


def covers(u: UsingDef, bt: Type | None) -> bool:
    """Whether ``using L for T`` attaches L's functions to values of static type ``bt``."""
    t = u.target
    if t is None or bt is None or t == bt:
        return True
    if isinstance(t, UserDefinedType) or isinstance(bt, UserDefinedType):
        return False
    if isinstance(t, IntType) and isinstance(bt, IntType):
        return True  # uint covers uint8 ...: the first parameter's type decides
    return isinstance(t, _ADDRESSES) and isinstance(bt, _ADDRESSES)
