"""Shared state of a function compiler: scopes, local slots, errors; the mixins build on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from .. import ast as A
from ..defs import CompiledFunction, ContractDef, EventDef, ModifierDef, StateVar
from ..errors import ExecutionError
from ..ops import Coercer, make_coercer
from ..runtime import Fn
from ..types import STRING, DecimalType, EnumType, MappingType, StructType, Type, UserDefinedType
from ..values import default_value
from .closures import slot0, slot1

if TYPE_CHECKING:
    from .unit import UnitCompiler

CExpr = tuple[Fn, Type | None]
"""A compiled expression and its static type (None when only known at run time)."""

Lvalue = tuple[
    Callable[[Any], tuple[Any, Any]],
    Callable[[Any, Any], Any],
    Callable[[Any, Any, Any, Any], None],
    Type | None,
]
"""(ref, get, put, type) of an assignable place: ref evaluates container and key once."""

CERT_MAPPING = MappingType(STRING, STRING)


def coerced(f: Fn, c: Coercer | None) -> Fn:
    if c is None:
        return f
    return lambda fr: c(f(fr))


def const(v: Any) -> Fn:
    return lambda fr: v


def fresh(t: Type) -> Fn:
    return lambda fr: default_value(t)


def must_return(body: Fn, name: str) -> Fn:
    """SolidVM refuses a library function with unnamed return values that ends without
    returning them."""

    def checked(fr: Any) -> Any:
        r = body(fr)
        if fr.ret is None:
            raise ExecutionError(
                f"type error: Library function '{name}' must return a value", "type error"
            )
        return r

    return checked


class LocalVar:
    __slots__ = ("location", "slot", "type", "visible")

    def __init__(
        self, slot: int, type_: Type | None, location: str | None, visible: bool = False
    ) -> None:
        self.slot = slot
        self.type = type_
        self.location = location
        self.visible = visible  # known to the platform's optimizer by name (bounds.py)


class CompilerBase:
    """State of one function compiler; the mixins (statements, expressions, calls) add the rest."""

    def __init__(self, uc: UnitCompiler, c: ContractDef, fn: CompiledFunction | None) -> None:
        self.uc = uc
        self.c = c
        self.fn = fn
        self.vm = uc.vm
        self.scopes: list[dict[str, LocalVar]] = []
        self.nslots = 0
        self.in_modifier = False
        self.loop_depth = 0
        # the platform's underflow checks (bounds.py): inside an expression its optimizer
        # visits; inside `unchecked`; call arguments it does not visit (ids of their nodes)
        self.bchk = False
        self.unchecked = False
        self.in_for_init = False
        self.unvisited: set[int] = set()
        # closures that read a local slot, as (slot, checked): operators on them read the
        # slots in place (fused.py); slot0/slot1 are the operands of `x op= e`
        self.reads: dict[Fn, tuple[int, bool]] = {slot0: (0, False), slot1: (1, False)}

    if TYPE_CHECKING:
        # Implemented by the mixins that FunctionCompiler combines; declared here for the checker.
        def expr(self, e: A.Expr, statement: bool = False, vivify: bool = False) -> CExpr: ...
        def block(self, b: A.Block, new_scope: bool = True) -> Fn: ...
        def stmt(self, s: A.Stmt) -> Fn: ...
        def cond(self, e: A.Expr, visited: bool = False) -> Fn: ...
        def visited(self, e: A.Expr, statement: bool = False, vivify: bool = False) -> CExpr: ...
        def unvisited_lvalue(self, target: A.Expr) -> Lvalue: ...
        def uint_checked(self, name: str) -> bool: ...
        def checked_get(self, target: A.Expr, get: Any) -> Any: ...
        def uint_declared(self, t: Type, init: A.Expr | None = None) -> bool: ...
        def known_nonnegative(self, e: A.Expr) -> bool: ...
        def check_assignable(self, src: Type | None, dst: Type, node: A.Node) -> None: ...
        def emit_code(
            self, ev: EventDef, args: list[A.Expr], names: list[str] | None, node: A.Node
        ) -> Fn: ...
        def lvalue(self, e: A.Expr, vivify_base: bool = True) -> Lvalue: ...
        def binop(
            self, op: str, fa: Fn, ta: Type | None, fb: Fn, tb: Type | None, e: A.Node
        ) -> CExpr: ...
        def expect_int(self, t: Type | None, node: A.Node) -> None: ...
        def wrapper(self, t: Type | None) -> Callable[[int], int] | None: ...
        def constant_ref(self, sv: StateVar, e: A.Node) -> CExpr: ...
        def enum_value(self, et: EnumType, name: str, e: A.Node) -> CExpr: ...
        def external_call(
            self, base: Fn, bt: Type | None, name: str, args: list[A.Expr], e: A.Call
        ) -> CExpr: ...
        def array_push(self, base: Fn, bt: Type | None, args: list[A.Expr], e: A.Call) -> CExpr: ...
        def internal_call(self, fn: CompiledFunction, args: list[A.Expr], e: A.Node) -> CExpr: ...
        def static_call(self, fn: CompiledFunction, args: list[A.Expr], e: A.Node) -> CExpr: ...
        def cast(self, tn: A.TypeName, args: list[A.Expr], e: A.Call) -> CExpr: ...
        def is_storage(self, e: A.Expr) -> bool: ...
        def abi_member_call(self, name: str, args: list[A.Expr], e: A.Call) -> CExpr: ...
        def concat_call(self, owner: str, args: list[A.Expr], e: A.Call) -> CExpr: ...
        def encoding_cast(self, target: str, args: list[A.Expr], e: A.Call) -> CExpr: ...
        def string_of_int(self, args: list[A.Expr], e: A.Call) -> CExpr: ...
        def type_member(self, tn: A.TypeName, name: str, e: A.Member) -> CExpr: ...
        def util_call(self, name: str, args: list[A.Expr], e: A.Call) -> CExpr: ...
        # variadic.py, lowlevel.py, builtins/introspection.py
        def call_function(
            self, fns: list[CompiledFunction], args: list[A.Expr], e: A.Call, name: str
        ) -> CExpr: ...
        def call_chosen(self, fn: CompiledFunction, compiled: list[CExpr]) -> CExpr: ...
        def pick_named(
            self,
            fns: list[CompiledFunction],
            names: list[str],
            what: str,
            e: A.Node,
            compiled: dict[str, CExpr] | None = None,
        ) -> CompiledFunction: ...
        def candidates(self, fns: list[CompiledFunction], n: int) -> list[CompiledFunction]: ...
        def choose_overload(
            self, cands: list[CompiledFunction], compiled: list[CExpr]
        ) -> CompiledFunction: ...
        def static_bound_call(self, fn: CompiledFunction, compiled: list[CExpr]) -> CExpr: ...
        def free_variadic_call(self, name: str, args: list[A.Expr]) -> CExpr | None: ...
        def variadic_index(self, base: Fn, key: Fn) -> CExpr: ...
        def variadic_member(self, base: Fn, name: str, e: A.Member) -> CExpr: ...
        def msg_member(self, name: str, e: A.Member) -> CExpr: ...
        def variadic_struct(self, st: StructType, args: list[A.Expr], e: A.Call) -> CExpr: ...
        def low_level_call(self, func: A.Member, args: list[A.Expr], e: A.Call) -> CExpr | None: ...
        def flexible_new(
            self,
            target: ContractDef,
            args: list[A.Expr],
            salt: A.Expr | None,
            e: A.Call,
            compiled: list[CExpr] | None = None,
        ) -> CExpr: ...
        def account_member(self, base: Fn, name: str, e: A.Member) -> CExpr | None: ...
        def code_call(self, base: Fn, args: list[A.Expr], e: A.Call) -> CExpr: ...
        # libraries.py: using-for, free functions, user-defined value types
        def bound_call(
            self, base: Fn, bt: Type | None, name: str, args: list[A.Expr], e: A.Call
        ) -> CExpr | None: ...
        def wants_storage_receiver(self, name: str) -> bool: ...
        def scope_function(self, name: str, nargs: int, e: A.Node) -> CompiledFunction | None: ...
        def scope_constant(self, name: str) -> StateVar | None: ...
        def this_type(self) -> Type | None: ...
        def static_internal(self, fn: CompiledFunction) -> bool: ...
        def qualified_type_call(
            self, owner: ContractDef, name: str, args: list[A.Expr], e: A.Call
        ) -> CExpr: ...
        def value_type_of(self, obj: A.Expr) -> UserDefinedType | None: ...
        def value_type_call(
            self, ut: UserDefinedType, name: str, args: list[A.Expr], e: A.Call
        ) -> CExpr: ...
        def check_udvt(self, src: Type | None, dst: Type, node: A.Node) -> None: ...
        def no_value_type_operand(self, op: str, t: Type | None, node: A.Node) -> None: ...
        def try_stmt(self, s: A.Try) -> Fn: ...
        def throw_stmt(self, s: A.Throw) -> Fn: ...
        def custom_error_code(
            self, e: A.Expr, args: list[A.Expr], names: list[str] | None, node: A.Node, prefix: str
        ) -> Fn: ...

    def error(self, msg: str, node: A.Node | A.Pos) -> NoReturn:
        self.uc.error(msg, node)

    # ------------------------------------------------------------ scopes

    def push_scope(self) -> None:
        self.scopes.append({})

    def pop_scope(self) -> None:
        self.scopes.pop()

    def declare(
        self,
        name: str,
        t: Type | None,
        node: A.Node,
        location: str | None = None,
        visible: bool = False,
    ) -> int:
        if name in self.scopes[-1]:
            self.error(f"identifier '{name}' is already declared", node)
        slot = self.nslots
        self.nslots += 1
        if name:
            self.scopes[-1][name] = LocalVar(slot, t, location, visible)
        return slot

    def lookup_local(self, name: str) -> LocalVar | None:
        for s in reversed(self.scopes):
            v = s.get(name)
            if v is not None:
                return v
        return None

    # ------------------------------------------------------------ functions

    def compile_function(self, d: A.FunctionDecl, base_names: set[str]) -> None:
        fn = self.fn
        assert fn is not None and d.body is not None
        self.push_scope()
        for (_, t), p in zip(fn.params, d.params, strict=True):
            self.declare(p.name or "", t, p, p.location, visible=True)
        fn.param_coercers = [make_coercer(t, self.vm) for _, t in fn.params]
        ret_slots: list[int] = []
        ret_init: list[tuple[int, Type]] = []
        for (rname, t), p in zip(fn.returns, d.returns, strict=True):
            slot = self.declare(rname or "", t, p, visible=True)
            ret_slots.append(slot)
            ret_init.append((slot, t))
        fn.ret_slots = ret_slots
        fn.ret_init = ret_init
        mods: list[tuple[ModifierDef, list[Fn]]] = []
        for inv in d.modifiers:
            name = inv.path[-1]
            if fn.is_ctor and name in base_names:
                self.c.ctor_base_args[name] = [self.expr(a)[0] for a in (inv.args or [])]
                continue
            m = self.c.modifiers.get(name)
            if m is None:
                self.error(f"modifier '{name}' is not declared", inv)
            args = inv.args or []
            if len(args) != len(m.params):
                self.error(
                    f"modifier '{name}' takes {len(m.params)} arguments, {len(args)} given", inv
                )
            mods.append((m, [self._arg(a, t) for a, (_, t) in zip(args, m.params, strict=True)]))
        fn.mods = mods
        # the body is a scope of its own: as on the platform, a local may reuse the name of a
        # parameter or named return (it shadows it from there on)
        fn.body = self.block(d.body)
        if self.c.kind == "library" and not all(n for n, _ in fn.returns):
            fn.body = must_return(fn.body, fn.name)
        self.pop_scope()
        fn.nslots = self.nslots

    def _arg(self, e: A.Expr, t: Type) -> Fn:
        f, at = self.expr(e)
        self.check_arg(at, t, e)
        return coerced(f, make_coercer(t, self.vm))

    def check_arg(self, at: Type | None, t: Type, e: A.Node) -> None:
        """Argument types the compiler refuses: value types and decimals do not mix; with the
        platform's static checks on, any clear mismatch (as in a declaration)."""
        if isinstance(at, UserDefinedType) or isinstance(t, UserDefinedType):
            self.check_udvt(at, t, e)
        if isinstance(t, DecimalType) or isinstance(at, DecimalType):
            self.check_assignable(at, t, e)
        if self.uc.checks and not self.uc.type_overloads:
            self.check_assignable(at, t, e)
