"""Calls: internal, external, super, library, `new`, conversions."""

from __future__ import annotations

from typing import Any

from .. import ast as A
from ..binding import takes_variadic
from ..decimals import dec_truncate
from ..defs import CompiledFunction, ContractDef
from ..ops import (
    check_int,
    convert,
    copy_in,
    describe,
    make_coercer,
    parse_int_text,
    resolve_chain_spec,
    type_error,
)
from ..runtime import (
    Fn,
    Frame,
    invoke,
    jdel_dict,
    jpop,
    jpush,
)
from ..types import (
    ACCOUNT,
    BOOL,
    BYTES,
    DECIMAL,
    STRING,
    UINT,
    AccountType,
    AddressType,
    ArrayType,
    BoolType,
    BytesType,
    ContractType,
    DecimalType,
    EnumType,
    IntType,
    StringType,
    StructType,
    Type,
    UserDefinedType,
    VariadicType,
)
from ..values import (
    Address,
    ArrayValue,
    ContractRef,
    StructValue,
    default_value,
)
from .base import CExpr, CompilerBase, coerced
from .closures import copied, ret_type, unpack_returns, values_of
from .lowlevel import LOW_LEVEL


def drop_beyond(fr: Frame, a: Any) -> None:
    """A push stores at index ``len(a)``: it replaces what an earlier write past the end put
    there."""
    if len(a) in a.beyond:
        jdel_dict(fr, a.beyond, len(a))


class CallsMixin(CompilerBase):
    """Calls: internal, external, super, library, `new`, conversions."""

    # ---------------------------------------------------------------- calls

    def x_New(self, e: A.New) -> CExpr:
        self.error("'new' needs arguments: new C(...)", e)

    def x_TypeExpr(self, e: A.TypeExpr) -> CExpr:
        self.error("a type cannot be used as a value", e)

    def x_Call(self, e: A.Call) -> CExpr:
        func = e.func
        if self.bchk:  # the platform's optimizer does not look into call arguments
            self.unvisited.update(id(a) for a in e.args)
        if e.names is not None:
            if isinstance(func, A.Ident) and self.lookup_local(func.name) is None:
                fns = self.c.functions.get(func.name)
                if fns:  # the overload whose parameter names are the names given
                    compiled = {n: self.expr(a) for n, a in zip(e.names, e.args, strict=True)}
                    fn = self.pick_named(fns, e.names, func.name, e, compiled)
                    return self.call_chosen(fn, [compiled[p] for p, _ in fn.params])
            args = self.named_args(e)
        else:
            args = e.args
        if isinstance(func, A.TypeExpr):
            return self.cast(func.type, args, e)
        if isinstance(func, A.New):
            return self.new_expr(func, args, e)
        if isinstance(func, A.Ident):
            return self.call_ident(func.name, args, e)
        if isinstance(func, A.Member):
            return self.call_member(func, args, e)
        self.error("expression is not callable", e)

    def named_args(self, e: A.Call) -> list[A.Expr]:
        assert e.names is not None
        params: list[str] | None = None
        func = e.func
        if isinstance(func, A.Ident):
            fns = self.c.functions.get(func.name)
            if fns:
                params = [p for p, _ in fns[0].params]
            else:
                sf = self.scope_function(func.name, len(e.args), e)
                if sf is not None:
                    params = [p for p, _ in sf.params]
            st = self.c.types.get(func.name)
            if isinstance(st, StructType):
                params = [n for n, _ in st.fields]
            ev = self.c.events.get(func.name)
            if ev is not None:
                params = [p[0] for p in ev.params]
        elif isinstance(func, A.Member):
            want = set(e.names)
            for c in self.uc.contracts.values():
                f = next(
                    (g for g in c.functions.get(func.name, ()) if {p for p, _ in g.params} == want),
                    None,
                )
                if f is not None:
                    params = [p for p, _ in f.params]
                    break
        if params is None:
            self.error("cannot resolve the parameters of this named-argument call", e)
        by_name = dict(zip(e.names, e.args, strict=True))
        missing = [p for p in params if p not in by_name]
        extra = [n for n in e.names if n not in params]
        if missing or extra:
            self.error(f"named arguments do not match the parameters ({', '.join(params)})", e)
        return [by_name[p] for p in params]

    def call_ident(self, name: str, args: list[A.Expr], e: A.Call) -> CExpr:
        if self.lookup_local(name) is None:
            builtin = getattr(self, "b_" + name, None)
            if builtin is not None and name not in self.c.functions:
                return builtin(args, e)  # type: ignore[no-any-return]
        fns = self.c.functions.get(name)
        if fns:
            return self.call_function(fns, args, e, name)
        free = self.free_variadic_call(name, args)
        if free is not None:
            return free
        sf = self.scope_function(name, len(args), e)
        if sf is not None:
            return self.static_call(sf, args, e)
        t = self.c.types.get(name)
        if isinstance(t, UserDefinedType):
            self.error(f"use {name}.wrap(...) to make a {name}", e)
        if isinstance(t, StructType):
            if t.fields and isinstance(t.fields[-1][1], VariadicType):
                return self.variadic_struct(t, args, e)
            if len(args) != len(t.fields):
                self.error(f"struct {name} has {len(t.fields)} members, {len(args)} given", e)
            fns2 = [self._arg(a, ft) for a, (_, ft) in zip(args, t.fields, strict=True)]
            names = [n for n, _ in t.fields]
            st = t

            def make_struct(fr: Frame) -> Any:
                return StructValue(
                    st, {n: copy_in(fr, f(fr)) for n, f in zip(names, fns2, strict=True)}
                )

            return make_struct, t
        if isinstance(t, EnumType) or name in self.uc.contracts:
            target = t if t is not None else ContractType(name)
            if len(args) != 1:
                self.error(f"conversion to {name} takes one argument", e)
            f, _ = self.expr(args[0])
            vm = self.vm
            return (lambda fr: convert(f(fr), target, vm)), target
        ev = self.c.events.get(name)
        if ev is not None:  # pre-0.4.21 event invocation without `emit`
            return self.emit_code(ev, args, None, e), None
        self.error(f"undeclared function '{name}'", e)

    def internal_call(self, fn: CompiledFunction, args: list[A.Expr], e: A.Node) -> CExpr:
        if self.static_internal(fn):
            return self.static_call(fn, args, e)
        argvals = values_of([self._arg(a, t) for a, (_, t) in zip(args, fn.params, strict=True)])
        key = (fn.name, len(fn.params))
        rt = ret_type(fn)
        nret = len(fn.returns)

        def call_internal(fr: Frame) -> Any:
            target = fr.cdef.vtable.get(key, fn) if fr.cdef is not None else fn
            r = invoke(fr.ctx, target, fr.acct, argvals(fr), fr.sender, fr.value, fr.ro)
            return r[0] if nret == 1 else unpack_returns(r, nret)

        return call_internal, rt

    def static_call(self, fn: CompiledFunction, args: list[A.Expr], e: A.Node) -> CExpr:
        """A call of one exact implementation (``Base.f()``, ``super.f()`` resolved)."""
        argvals = values_of([self._arg(a, t) for a, (_, t) in zip(args, fn.params, strict=True)])
        nret = len(fn.returns)

        def call_static(fr: Frame) -> Any:
            r = invoke(fr.ctx, fn, fr.acct, argvals(fr), fr.sender, fr.value, fr.ro)
            return r[0] if nret == 1 else unpack_returns(r, nret)

        return call_static, ret_type(fn)

    def call_member(self, func: A.Member, args: list[A.Expr], e: A.Call) -> CExpr:
        obj = func.obj
        name = func.name
        if name in LOW_LEVEL or name == "code":
            low = self.low_level_call(func, args, e)
            if low is not None:
                return low
        ut = self.value_type_of(obj)
        if ut is not None:
            return self.value_type_call(ut, name, args, e)
        if (
            isinstance(obj, A.TypeExpr)
            and isinstance(obj.type, A.ElementaryTypeName)
            and obj.type.name in ("string", "bytes")
            and name == "concat"
        ):
            return self.concat_call(obj.type.name, args, e)
        if (
            isinstance(obj, A.Ident)
            and self.lookup_local(obj.name) is None
            and (obj.name not in self.c.svars)
        ):
            o = obj.name
            if o == "super":
                return self.super_call(name, args, e)
            if o == "abi":
                return self.abi_member_call(name, args, e)
            if o == "Util" and o not in self.uc.contracts and name in ("bytes32ToString", "b32"):
                return self.util_call(name, args, e)  # blockapps-sol's Util, built into SolidVM
            if o in self.uc.contracts and o != "this":
                owner = self.uc.contracts[o]
                fn = owner.find_function(name, len(args))
                vfn = fn if fn is not None and takes_variadic(fn) else None
                if fn is None:
                    vfn = next(
                        (
                            f
                            for f in owner.functions.get(name, ())
                            if takes_variadic(f) and len(args) >= len(f.params) - 1
                        ),
                        None,
                    )
                if vfn is not None and (owner in self.c.linearization or owner.kind == "library"):
                    impl = self._impl_in(owner, name, len(vfn.params)) or vfn
                    return self.static_bound_call(impl, [self.expr(a) for a in args])
                if fn is None and owner.constructor is not None and name == o:
                    fn = None
                if fn is not None and (owner in self.c.linearization or owner.kind == "library"):
                    if (
                        owner.kind == "library"
                        and owner is not self.c
                        and fn.visibility == "private"
                    ):
                        self.error(f"function '{o}.{name}' is private to library {o}", e)
                    if fn.getter_of is None and fn.decl is not None and fn.decl.body is None:
                        self.error(f"function '{o}.{name}' has no implementation", e)
                    # Base.f(): exactly that implementation (or the nearest one it inherits)
                    impl = self._impl_in(owner, name, len(args)) or fn
                    return self.static_call(impl, args, e)
                if fn is None:
                    return self.qualified_type_call(owner, name, args, e)
            if o == "this":
                return self.external_call(
                    (lambda fr: ContractRef(fr.cdef.name, fr.acct.address)),
                    ContractType(self.c.name),
                    name,
                    args,
                    e,
                )
        base, bt = self.expr(
            obj, vivify=name in ("push", "pop") or self.wants_storage_receiver(name)
        )
        bound = self.bound_call(base, bt, name, args, e)
        if bound is not None:
            return bound
        if isinstance(bt, ArrayType) or (bt is None and name in ("push", "pop")):
            if name == "push":
                return self.array_push(base, bt, args, e)
            if name == "pop":
                if args:
                    self.error("pop() takes no arguments", e)
                return (lambda fr: jpop(fr, base(fr))), bt.elem if bt else None
        if isinstance(bt, DecimalType):
            return self.decimal_method(base, name, args, e)
        if isinstance(bt, BytesType) and name == "push":
            self.error("push on bytes is not supported; use string concatenation", e)
        if name in ("transfer", "send") and (
            isinstance(bt, (AddressType, AccountType)) or bt is None
        ):
            if len(args) != 1:
                self.error(f"{name} takes one argument", e)
            amount, _ = self.expr(args[0])
            is_send = name == "send"

            def run_transfer(fr: Frame) -> Any:
                ok = fr.ctx.world.transfer_value(fr, base(fr), check_int(amount(fr)), is_send)
                return ok if is_send else None

            return run_transfer, BOOL if is_send else None
        if isinstance(bt, (ContractType, AddressType, AccountType)) or bt is None:
            return self.external_call(base, bt, name, args, e)
        self.error(f"type {bt.name} has no function '{name}'", e)

    def decimal_method(self, base: Fn, name: str, args: list[A.Expr], e: A.Call) -> CExpr:
        """``d.truncate(n)``: ``d`` cut (toward zero) or padded to ``n`` decimal places."""
        if name != "truncate":
            self.error(f"type decimal has no function '{name}'", e)
        if len(args) != 1:
            self.error("truncate takes one argument: the number of decimal places", e)
        n, nt = self.expr(args[0])
        if nt is not None and not isinstance(nt, IntType):
            self.error(f"truncate needs an integer number of places, not {nt.name}", args[0])
        return (lambda fr: dec_truncate(base(fr), n(fr))), DECIMAL

    def _impl_in(self, owner: ContractDef, name: str, n: int) -> CompiledFunction | None:
        for b in owner.linearization:
            for f in b.own_functions:
                if (
                    f.name == name
                    and len(f.params) == n
                    and (
                        f.getter_of is not None or (f.decl is not None and f.decl.body is not None)
                    )
                ):
                    return f
        return None

    def super_call(self, name: str, args: list[A.Expr], e: A.Call) -> CExpr:
        me = self.c.name
        key = (me, name, len(args))
        # compile-time check that some base implements it
        found = None
        for b in self.c.linearization[1:]:
            found = self._impl_in(b, name, len(args))
            if found:
                break
        if found is None:
            self.error(f"no base contract implements '{name}' for super", e)
        argvals = values_of([self._arg(a, t) for a, (_, t) in zip(args, found.params, strict=True)])
        nret = len(found.returns)

        def call_super(fr: Frame) -> Any:
            impl = fr.cdef.super_table.get(key, found)
            r = invoke(fr.ctx, impl, fr.acct, argvals(fr), fr.sender, fr.value, fr.ro)
            return r[0] if nret == 1 else unpack_returns(r, nret)

        return call_super, ret_type(found)

    def array_push(self, base: Fn, bt: Type | None, args: list[A.Expr], e: A.Call) -> CExpr:
        et = bt.elem if isinstance(bt, ArrayType) else None
        if isinstance(bt, ArrayType) and bt.length is not None:
            self.error("push is not available on fixed-size arrays", e)
        if not args:
            if et is None:
                self.error("push() without a value needs a known element type", e)

            def push_default(fr: Frame) -> Any:
                v = default_value(et)
                a = base(fr)
                if a.beyond:
                    drop_beyond(fr, a)
                jpush(fr, a, v)
                return v

            return push_default, et
        if len(args) != 1:
            self.error("push takes one argument", e)
        val, vt = self.expr(args[0])
        if et is not None:
            self.check_assignable(vt, et, args[0])
        co = make_coercer(et, self.vm)
        cp = et is None or et.complex

        def push(fr: Frame) -> Any:
            a = base(fr)
            if not isinstance(a, list):
                raise type_error(f"push on {describe(a)}")
            v = val(fr)
            if co is not None:
                v = co(v)
            if cp:
                v = copy_in(fr, v)
            if getattr(a, "beyond", None):
                drop_beyond(fr, a)
            jpush(fr, a, v)
            return len(a)

        return push, UINT

    def external_call(
        self, base: Fn, bt: Type | None, name: str, args: list[A.Expr], e: A.Call
    ) -> CExpr:
        fn: CompiledFunction | None = None
        compiled = [self.expr(a) for a in args]
        spread = bool(compiled) and isinstance(compiled[-1][1], VariadicType)
        if isinstance(bt, ContractType):
            target = self.uc.contracts.get(bt.name)
            if target is not None:
                fns = target.functions.get(name, [])
                cands = self.candidates(fns, len(args))
                if not cands and not (spread and fns):
                    self.error(
                        f"contract {bt.name} has no function '{name}' taking {len(args)} arguments",
                        e,
                    )
                fn = self.choose_overload(cands or fns, compiled)
                if not fn.external:
                    self.error(f"function '{name}' of {bt.name} is not visible from outside", e)
        if spread or (fn is not None and takes_variadic(fn)):
            # bound when it runs: the target's overloads, its fallback, its getters
            rawfns = [f for f, _ in compiled]
            rt0 = ret_type(fn) if fn is not None else None

            def call_external_bound(fr: Frame) -> Any:
                vals = [name] + [copy_in(fr, a(fr)) for a in rawfns]
                return fr.ctx.world.low_level_call(fr, base(fr), "typed", vals)

            return call_external_bound, rt0
        if fn is not None:
            argfns = []
            for (f, _), (_, t) in zip(compiled, fn.params, strict=True):
                co = make_coercer(t, self.vm)
                arg = coerced(f, co)
                # a value coerced to a value type is no array, struct or mapping: nothing to copy
                argfns.append(arg if co is not None and not t.complex else copied(arg))
            rt = ret_type(fn)
        else:
            argfns = [copied(f) for f, _ in compiled]
            rt = None
        argvals = values_of(argfns)
        nargs = len(args)
        sig = fn.signature if fn is not None else None
        # what the caller expects back, should a fallback (a proxy) answer the call
        want = tuple(make_coercer(t, self.vm) for _, t in fn.returns) if fn is not None else None

        def call_external(fr: Frame) -> Any:
            target = base(fr)
            return fr.ctx.world.call_from(fr, target, name, argvals(fr), nargs, sig, want)

        return call_external, rt

    def new_expr(self, n: A.New, args: list[A.Expr], e: A.Call) -> CExpr:
        tn = n.type
        if isinstance(tn, A.ArrayTypeName):
            at = self.uc.resolve_type(tn, self.c)
            assert isinstance(at, ArrayType)
            if len(args) != 1:
                self.error("new array needs exactly one length argument", e)
            size, _ = self.expr(args[0])
            et = at.elem

            def new_array(fr: Frame) -> Any:
                k = check_int(size(fr))
                if k < 0:
                    raise type_error("negative array length")
                fr.ctx.charge_memory(k)
                if et.complex:
                    return ArrayValue(at, [default_value(et) for _ in range(k)])
                return ArrayValue(at, [default_value(et)] * k)

            return new_array, ArrayType(et, None)
        if isinstance(tn, A.ElementaryTypeName) and tn.name in ("bytes", "string"):
            size, _ = self.expr(args[0])
            s = tn.name

            def new_bytes(fr: Frame) -> Any:
                k = check_int(size(fr))
                fr.ctx.charge_memory(k)
                return bytes(k) if s == "bytes" else "\0" * k

            return new_bytes, BYTES if s == "bytes" else STRING
        if not isinstance(tn, A.UserTypeName):
            self.error("'new' needs a contract or array type", e)
        cname = tn.path[-1]
        target = self.uc.contracts.get(cname)
        if target is None:
            self.error(f"contract '{cname}' is not declared", e)
        if target.kind in ("interface", "library", "abstract"):
            self.error(f"cannot create an instance of {target.kind} '{cname}'", e)
        if target is self.c or self.c in target.linearization:
            self.error(f"contract '{cname}' cannot create itself", e)
        ctor = target.constructor
        params = ctor.params if ctor else []
        if n.salt is not None or (ctor is not None and takes_variadic(ctor)):
            return self.flexible_new(target, args, n.salt, e)
        compiled = [self.expr(a) for a in args]
        if compiled and isinstance(compiled[-1][1], VariadicType):
            return self.flexible_new(target, args, None, e, compiled)
        if len(args) != len(params):
            self.error(
                f"constructor of {cname} takes {len(params)} arguments, {len(args)} given", e
            )
        argfns = [
            coerced(f, make_coercer(t, self.vm))
            for (f, _), (_, t) in zip(compiled, params, strict=True)
        ]

        def new_contract(fr: Frame) -> Any:
            vals = [copy_in(fr, a(fr)) for a in argfns]
            acct = fr.ctx.world.create_from(fr, target, vals)
            return ContractRef(cname, acct.address)

        return new_contract, ContractType(cname)

    def cast(self, tn: A.TypeName, args: list[A.Expr], e: A.Call) -> CExpr:
        if isinstance(tn, A.ElementaryTypeName) and tn.name == "account":
            return self.account_ctor(args, e)
        if (
            len(args) == 2
            and isinstance(tn, A.ElementaryTypeName)
            and tn.name in ("string", "bytes")
            and isinstance(args[1], A.StringLit)
        ):
            return self.encoding_cast(tn.name, args, e)  # string(b, "utf-8"), bytes(s, "raw")
        t = self.uc.resolve_type(tn, self.c)
        if isinstance(t, IntType) and len(args) == 2 and self.vm != "EVM":
            return self.int_from_text(t, args, e)
        if isinstance(t, StringType) and len(args) in (2, 3) and self.vm != "EVM":
            return self.string_of_int(args, e)  # string(n, 16[, bytes])
        if len(args) != 1:
            self.error(f"conversion to {t.name} takes one argument", e)
        f, st = self.expr(args[0])
        if isinstance(st, UserDefinedType):
            self.error(
                f"conversion from {st.name} to {t.name} is not allowed; use {st.name}.unwrap(...)",
                e,
            )
        if isinstance(t, DecimalType) and st is not None:
            if not isinstance(st, (IntType, StringType, DecimalType)):
                self.error(f"cannot convert {st.name} to decimal", args[0])
        elif isinstance(st, DecimalType) and not isinstance(t, IntType):
            self.error(f"cannot convert decimal to {t.name}", args[0])
        ok = (BoolType, StringType, BytesType)
        if isinstance(t, BoolType) and st is not None and not isinstance(st, ok):
            self.error(f'bool(...) takes a bool or "true"/"false", not {st.name}', e)
        vm = self.vm
        return (lambda fr: convert(f(fr), t, vm)), t

    def int_from_text(self, t: IntType, args: list[A.Expr], e: A.Call) -> CExpr:
        """``uint(s, base)``: a string read in base 10 or 16."""
        f, st = self.expr(args[0])
        if st is not None and not isinstance(st, StringType):
            self.error(f"{t.name}(value, base) reads a string, not {st.name}", args[0])
        b, bt = self.expr(args[1])
        if bt is not None and not isinstance(bt, IntType):
            self.error(f"the base must be an integer, not {bt.name}", args[1])
        name = t.name

        def run_parse(fr: Frame) -> Any:
            s = f(fr)
            if type(s) is not str:
                raise type_error(f"{name}(value, base) reads a string, got {describe(s)}")
            return parse_int_text(s, b(fr), name)

        return run_parse, t

    def account_ctor(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if not 1 <= len(args) <= 3:
            self.error("account() takes an address and an optional chain", e)
        if len(args) == 3 and not (
            isinstance(args[1], A.StringLit) and args[1].value == "ancestor"
        ):
            self.error('account(): only account(a, "ancestor", n) takes a third argument', args[2])
        af, _ = self.expr(args[0])
        if len(args) == 1:
            return (lambda fr: convert(af(fr), ACCOUNT, "SolidVM")), ACCOUNT
        cf, _ = self.expr(args[1])
        nf = self.expr(args[2])[0] if len(args) == 3 else None

        def make_account(fr: Frame) -> Any:
            a = convert(af(fr), ACCOUNT, "SolidVM")
            spec = cf(fr)
            return Address(a.value, resolve_chain_spec(fr, spec, nf(fr) if nf else None))

        return make_account, ACCOUNT
