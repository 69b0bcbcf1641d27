"""Statements: blocks, declarations, control flow, return, emit, revert."""

from __future__ import annotations

from typing import Any

from .. import ast as A
from ..catching import REVERT_PREFIX
from ..defs import EventDef
from ..errors import ExecutionError, Where, note_where
from ..ops import (
    Coercer,
    as_bool,
    copy_in,
    describe,
    make_coercer,
    type_error,
)
from ..runtime import (
    BREAK,
    CONTINUE,
    PUSHED,
    RETURN,
    Fn,
    Frame,
)
from ..types import (
    LITERAL,
    AccountType,
    AddressType,
    BoolType,
    BytesType,
    ContractType,
    DecimalType,
    EnumType,
    IntType,
    StringType,
    TupleType,
    Type,
    UserDefinedType,
    VariadicType,
)
from ..values import (
    default_value,
)
from .base import CompilerBase, const
from .bounds import underflow
from .fused import return_local


class StatementsMixin(CompilerBase):
    """Statements: blocks, declarations, control flow, return, emit, revert."""

    # ------------------------------------------------------------ statements

    def where(self, node: A.Node) -> Where:
        return (self.c.name, node.pos[0], node.pos[1])

    def block(self, b: A.Block, new_scope: bool = True) -> Fn:
        # A failure leaving a statement gets that statement's position (note_where keeps the
        # innermost one); the handlers only run when something was raised.
        if new_scope:
            self.push_scope()
        unchecked = self.unchecked
        self.unchecked = unchecked or b.unchecked
        fns = [self.stmt(s) for s in b.stmts]
        self.unchecked = unchecked
        if new_scope:
            self.pop_scope()
        wheres = [self.where(s) for s in b.stmts]
        n = len(fns)
        if n == 0:

            def run0(fr: Frame) -> Any:
                return None

            return run0
        if n == 1:
            (f0,) = fns
            (w0,) = wheres

            def run1(fr: Frame) -> Any:
                ctx = fr.ctx
                ctx.steps += 1
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                try:
                    return f0(fr)
                except Exception as exc:
                    note_where(exc, w0)
                    raise

            return run1
        if n == 2:
            f0, f1 = fns
            w0, w1 = wheres

            def run2(fr: Frame) -> Any:
                ctx = fr.ctx
                ctx.steps += 2
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                try:
                    r = f0(fr)
                except Exception as exc:
                    note_where(exc, w0)
                    raise
                if r is not None:
                    return r
                try:
                    return f1(fr)
                except Exception as exc:
                    note_where(exc, w1)
                    raise

            return run2
        if n == 3:
            f0, f1, f2 = fns
            w0, w1, w2 = wheres

            def run3(fr: Frame) -> Any:
                ctx = fr.ctx
                ctx.steps += 3
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                try:
                    r = f0(fr)
                except Exception as exc:
                    note_where(exc, w0)
                    raise
                if r is not None:
                    return r
                try:
                    r = f1(fr)
                except Exception as exc:
                    note_where(exc, w1)
                    raise
                if r is not None:
                    return r
                try:
                    return f2(fr)
                except Exception as exc:
                    note_where(exc, w2)
                    raise

            return run3

        def run(fr: Frame) -> Any:
            ctx = fr.ctx
            ctx.steps += n
            if ctx.steps > ctx.max_steps:
                raise ctx.out_of_gas()
            try:
                for f in fns:
                    r = f(fr)
                    if r is not None:
                        return r
            except Exception as exc:
                note_where(exc, wheres[fns.index(f)])
                raise
            return None

        return run

    def stmt(self, s: A.Stmt) -> Fn:
        if isinstance(s, A.ExprStmt):
            f, _ = self.visited(s.expr, statement=True)

            def run_expr(fr: Frame) -> Any:
                f(fr)

            return run_expr
        if isinstance(s, A.VarDecl):
            return self.var_decl(s)
        if isinstance(s, A.Block):
            return self.block(s)
        if isinstance(s, A.If):
            return self.if_stmt(s)
        if isinstance(s, A.For):
            return self.for_stmt(s)
        if isinstance(s, A.While):
            return self.while_stmt(s)
        if isinstance(s, A.DoWhile):
            return self.do_while_stmt(s)
        if isinstance(s, A.Break):
            if not self.loop_depth:
                self.error("'break' outside of a loop", s)
            return const(BREAK)
        if isinstance(s, A.Continue):
            if not self.loop_depth:
                self.error("'continue' outside of a loop", s)
            return const(CONTINUE)
        if isinstance(s, A.Return):
            return self.return_stmt(s)
        if isinstance(s, A.Emit):
            return self.emit_stmt(s)
        if isinstance(s, A.Placeholder):
            if not self.in_modifier:
                self.error("'_' is only allowed inside a modifier", s)

            def run_ph(fr: Frame) -> Any:
                fr.ph()

            return run_ph
        if isinstance(s, A.RevertError):
            return self.revert_error(s)
        if isinstance(s, A.Try):
            return self.try_stmt(s)
        if isinstance(s, A.Throw):
            return self.throw_stmt(s)
        if isinstance(s, A.Assembly):
            return self.assembly_stmt(s)
        self.error(f"unsupported statement {type(s).__name__}", s)

    def assembly_stmt(self, s: A.Assembly) -> Fn:
        """``assembly { dst := mload(add(src, 32)) }`` copies ``src`` into ``dst``, as SolidVM
        runs it. The platform resolves the two names only when the block runs, so a name that
        is neither a local nor a state variable fails then, not when compiling."""
        unknown = [
            name
            for name, assigned in ((s.dst, True), (s.src, False))
            if self.lookup_local(name) is None
            and not (name in self.c.svars and not (assigned and self.c.svars[name].constant))
        ]
        if unknown:
            msg = f"unknown variable: assembly: {unknown[0]}"

            def run_unknown(fr: Frame) -> Any:
                raise ExecutionError(msg, "unknown variable")

            return run_unknown
        f, _ = self.expr(A.Assign(s.pos, "=", A.Ident(s.pos, s.dst), A.Ident(s.src_pos, s.src)))

        def run_assembly(fr: Frame) -> Any:
            f(fr)

        return run_assembly

    def var_decl(self, s: A.VarDecl) -> Fn:
        if s.tuple_form and len(s.slots) == 1:
            # `(uint a) = f();`, `var (z) = 7;`: one name in parentheses is a plain declaration
            if s.slots[0] is None:
                self.error("cannot declare a single nameless variable", s)
            assert s.init is not None
            s = A.VarDecl(s.pos, s.slots, s.init)
        if s.tuple_form:
            assert s.init is not None
            init, it = self.expr(s.init)
            slots: list[tuple[int, Coercer | None] | None] = []
            types = it.items if isinstance(it, TupleType) else [None] * len(s.slots)
            if isinstance(it, TupleType) and len(it.items) != len(s.slots):
                self.error(
                    f"tuple has {len(it.items)} components but {len(s.slots)} are declared", s
                )
            if it is not None and not isinstance(it, (TupleType, VariadicType)):
                self.tuple_arity_error(it, len(s.slots), s)
            for vs, vt in zip(s.slots, types, strict=False):
                if vs is None:
                    slots.append(None)
                    continue
                t = self.uc.resolve_type(vs.type, self.c) if vs.type is not None else vt
                slot = self.declare(vs.name, t, vs, vs.location)
                slots.append((slot, make_coercer(t, self.vm)))
            n = len(slots)

            def run_tuple_decl(fr: Frame) -> Any:
                vals = init(fr)
                if not isinstance(vals, tuple) or len(vals) != n:
                    raise type_error("tuple size mismatch in declaration")
                loc = fr.l
                for entry, v in zip(slots, vals, strict=True):
                    if entry is not None:
                        slot, co = entry
                        loc[slot] = co(v) if co else v
                return None

            return run_tuple_decl
        vs = s.slots[0]
        assert vs is not None
        if vs.type is None:
            if s.init is None:
                self.error("'var' declarations need an initial value", s)
            init, t = self.visited(s.init)
            slot = self.declare(vs.name, t, vs, vs.location)

            def run_var(fr: Frame) -> Any:
                fr.l[slot] = init(fr)

            return run_var
        t = self.uc.check_size(self.uc.resolve_type(vs.type, self.c), vs)
        visible = not self.in_for_init  # one typed name: the platform's optimizer knows it
        if s.init is None:
            slot = self.declare(vs.name, t, vs, vs.location, visible)
            if t.complex:

                def run_default_complex(fr: Frame) -> Any:
                    fr.l[slot] = default_value(t)

                return run_default_complex
            dv = default_value(t)

            def run_default(fr: Frame) -> Any:
                fr.l[slot] = dv

            return run_default
        location = vs.location
        if location is None and t.complex and self.is_storage(s.init):
            location = "storage"  # no location: a reference to storage, as in SolidVM
        init, it = self.visited(s.init, vivify=location == "storage")
        if isinstance(it, TupleType):
            self.tuple_arity_error(it, 1, s)
        self.check_assignable(it, t, s.init)
        co = make_coercer(t, self.vm)
        copy = t.complex and location == "memory"
        # `uint x = e;` fails below zero (bounds.py); decided before `x` hides an outer name
        check = visible and self.uint_declared(t, s.init)
        slot = self.declare(vs.name, t, vs, location, visible)
        if check:
            conv = co

            def run_uint(fr: Frame) -> Any:
                v = init(fr)
                if conv is not None:
                    v = conv(v)
                if v < 0:
                    raise underflow(v)
                fr.l[slot] = v

            return run_uint
        if copy:

            def run_copy(fr: Frame) -> Any:
                v = init(fr)
                fr.l[slot] = copy_in(fr, co(v) if co else v)

            return run_copy
        if co is None:

            def run_plain(fr: Frame) -> Any:
                fr.l[slot] = init(fr)

            return run_plain

        def run_coerce(fr: Frame) -> Any:
            fr.l[slot] = co(init(fr))

        return run_coerce

    def tuple_arity_error(self, got: Type, want: int, node: A.Node) -> None:
        n = len(got.items) if isinstance(got, TupleType) else 1
        what = f"a tuple of {n} components" if isinstance(got, TupleType) else f"one {got.name}"
        self.error(f"expected {want} value{'s' if want != 1 else ''}, got {what}", node)

    def check_assignable(self, src: Type | None, dst: Type, node: A.Node) -> None:
        """Catch the obvious static type mismatches at compile time."""
        if (
            src is None
            or isinstance(src, TupleType | VariadicType)
            or isinstance(dst, VariadicType)
        ):
            return
        if isinstance(src, UserDefinedType) or isinstance(dst, UserDefinedType):
            self.check_udvt(src, dst, node)
            return
        groups = (
            (IntType, EnumType),
            (BoolType,),
            (StringType, BytesType),
            (AddressType, AccountType, ContractType, IntType),
        )
        if type(src) is type(dst):
            return
        if src is LITERAL and isinstance(dst, DecimalType):
            return  # an integer literal is a decimal with 0 places
        if isinstance(src, IntType) and isinstance(dst, DecimalType):
            self.error(
                f"type {src.name} is not implicitly convertible to decimal: "
                "convert with decimal(...)",
                node,
            )
        for g in groups:
            if isinstance(src, g) and isinstance(dst, g):
                return
        if isinstance(src, IntType) and isinstance(dst, BytesType):
            return
        self.error(f"type {src.name} is not implicitly convertible to {dst.name}", node)

    def if_stmt(self, s: A.If) -> Fn:
        cond = self.cond(s.cond, visited=True)
        then = self.stmt_scoped(s.then)
        if s.other is None:

            def run_if(fr: Frame) -> Any:
                if cond(fr):
                    return then(fr)
                return None

            return run_if
        other = self.stmt_scoped(s.other)

        def run_if_else(fr: Frame) -> Any:
            if cond(fr):
                return then(fr)
            return other(fr)

        return run_if_else

    def stmt_scoped(self, s: A.Stmt) -> Fn:
        self.push_scope()
        f = self.stmt(s)
        self.pop_scope()
        if isinstance(s, A.Block):
            return f
        w = self.where(s)  # `if (c) revert(...);`: the body's own line, not the `if`'s

        def run_lone(fr: Frame) -> Any:
            try:
                return f(fr)
            except Exception as exc:
                note_where(exc, w)
                raise

        return run_lone

    def cond(self, e: A.Expr, visited: bool = False) -> Fn:
        f, t = self.visited(e) if visited else self.expr(e)
        if isinstance(t, VariadicType):
            t = None
        if isinstance(t, UserDefinedType) or (t is not None and not isinstance(t, BoolType)):
            self.error(f"condition must be a bool, not {t.name}", e)
        if t is None:

            def check_bool(fr: Frame) -> bool:
                return as_bool(f(fr))

            return check_bool
        return f

    def loop_body(self, body: A.Stmt) -> Fn:
        self.loop_depth += 1
        f = self.stmt_scoped(body)
        self.loop_depth -= 1
        return f

    def while_stmt(self, s: A.While) -> Fn:
        cond = self.cond(s.cond, visited=True)
        body = self.loop_body(s.body)

        def run_while(fr: Frame) -> Any:
            ctx = fr.ctx
            while cond(fr):
                ctx.steps += 1
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                r = body(fr)
                if r is not None:
                    if r == BREAK:
                        break
                    if r == CONTINUE:
                        continue
                    return r
            return None

        return run_while

    def do_while_stmt(self, s: A.DoWhile) -> Fn:
        body = self.loop_body(s.body)
        cond = self.cond(s.cond, visited=True)

        def run_do(fr: Frame) -> Any:
            ctx = fr.ctx
            while True:
                ctx.steps += 1
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                r = body(fr)
                if r is not None:
                    if r == BREAK:
                        break
                    if r == CONTINUE:
                        continue  # as the platform: `continue` re-runs the body unchecked
                    return r
                if not cond(fr):
                    break
            return None

        return run_do

    def for_stmt(self, s: A.For) -> Fn:
        self.push_scope()
        self.in_for_init = True  # not looked at by the platform's optimizer (bounds.py)
        init = self.stmt(s.init) if s.init is not None else None
        self.in_for_init = False
        cond = self.cond(s.cond, visited=True) if s.cond is not None else None
        post = self.visited(s.post, statement=True)[0] if s.post is not None else None
        body = self.loop_body(s.body)
        self.pop_scope()

        def run_for(fr: Frame) -> Any:
            ctx = fr.ctx
            if init is not None:
                init(fr)
            while cond is None or cond(fr):
                ctx.steps += 1
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                r = body(fr)
                if r is not None:
                    if r == BREAK:
                        break
                    if r != CONTINUE:
                        return r
                if post is not None:
                    post(fr)
            return None

        return run_for

    def modifier_return(self, value: A.Expr) -> Fn:
        """``return v;`` in a modifier: as SolidVM, ``v`` becomes the result of the function the
        modifier wraps (the Mercata library's governance modifiers return a vote's result)."""
        f, _ = self.expr(value)

        def run_modifier_return(fr: Frame) -> Any:
            v = f(fr)
            target = fr.up
            fn = fr.fn
            if target is None or fn is None or not fn.returns:
                return RETURN
            n = len(fn.returns)
            if n == 1:
                target.ret = [v]
            elif isinstance(v, tuple | list) and len(v) == n:
                target.ret = list(v)
            else:
                raise type_error(f"the modifier returned {describe(v)} for {n} return values")
            return RETURN

        return run_modifier_return

    def return_stmt(self, s: A.Return) -> Fn:
        if self.in_modifier:
            if s.value is None:
                return const(RETURN)
            return self.modifier_return(s.value)
        fn = self.fn
        if fn is None:
            self.error("'return' outside of a function", s)
        rtypes = [t for _, t in fn.returns]
        if s.value is None:
            if rtypes and not any(n for n, _ in fn.returns):
                pass  # bare return in a function with unnamed returns returns defaults

            def run_ret_none(fr: Frame) -> Any:
                return RETURN

            return run_ret_none
        if not rtypes:
            self.error("function has no return values", s)
        if len(rtypes) == 1:
            f, t = self.visited(s.value)
            if isinstance(t, TupleType):
                self.error(f"function returns 1 value, {len(t.items)} given", s.value)
            if t is not None:
                self.check_assignable(t, rtypes[0], s.value)
            co = make_coercer(rtypes[0], self.vm)
            if co is None:

                def run_ret1(fr: Frame) -> Any:
                    fr.ret = [f(fr)]
                    return RETURN

                return run_ret1
            read = self.reads.get(f)
            if read is not None:  # `return x;` of a local: its slot read in place
                return return_local(read, co)

            def run_ret1c(fr: Frame) -> Any:
                fr.ret = [co(f(fr))]
                return RETURN

            return run_ret1c
        f, t = self.visited(s.value)
        if isinstance(t, TupleType) and len(t.items) != len(rtypes):
            self.error(f"function returns {len(rtypes)} values, {len(t.items)} given", s.value)
        if t is not None and not isinstance(t, (TupleType, VariadicType)):
            self.error(f"function returns {len(rtypes)} values, 1 given", s.value)
        cos = [make_coercer(rt, self.vm) for rt in rtypes]
        n = len(rtypes)

        def run_retn(fr: Frame) -> Any:
            vals = f(fr)
            if not isinstance(vals, tuple) or len(vals) != n:
                raise type_error(f"expected {n} return values")
            fr.ret = [c(v) if c else v for c, v in zip(cos, vals, strict=True)]
            return RETURN

        return run_retn

    def find_event(self, e: A.Expr) -> EventDef:
        name = e.name if isinstance(e, A.Ident) else e.name if isinstance(e, A.Member) else None
        if name is None:
            self.error("expected an event name after 'emit'", e)
        ev = self.c.events.get(name)
        if ev is None:  # `emit L.E(...)`, or an event of a library named in `using`
            owner = e.obj.name if isinstance(e, A.Member) and isinstance(e.obj, A.Ident) else None
            libs = [self.uc.contracts[owner]] if owner in self.uc.contracts else []
            for lib in libs or [u.library for u in self.c.usings]:
                ev = lib.events.get(name)
                if ev is not None:
                    break
        if ev is None:
            self.error(f"event '{name}' is not declared", e)
        return ev

    def emit_stmt(self, s: A.Emit) -> Fn:
        ev = self.find_event(s.event)
        return self.emit_code(ev, s.args, s.names, s)

    def emit_code(
        self, ev: EventDef, args: list[A.Expr], names: list[str] | None, node: A.Node
    ) -> Fn:
        if len(args) != len(ev.params):
            self.error(
                f"event '{ev.name}' takes {len(ev.params)} arguments but {len(args)} were given",
                node,
            )
        if names is not None:
            by_name = dict(zip(names, args, strict=True))
            try:
                args = [by_name[p[0]] for p in ev.params]
            except KeyError as k:
                self.error(f"event '{ev.name}' has no argument {k}", node)
        fns = [self._arg(a, t) for a, (_, t, _) in zip(args, ev.params, strict=True)]

        def run_emit(fr: Frame) -> Any:
            if fr.ro:
                raise ExecutionError(
                    "invalid write: cannot emit events from a read-only call", "invalid write"
                )
            vals = [copy_in(fr, f(fr)) for f in fns]
            ctx = fr.ctx
            # journaled, so that a call that fails inside `try` takes its events with it
            ctx.journal.append((ctx.events, PUSHED, None))
            ctx.events.append((fr.acct, ev, vals))
            return None

        return run_emit

    def revert_error(self, s: A.RevertError) -> Fn:
        return self.custom_error_code(s.error, s.args, s.names, s, REVERT_PREFIX)
