"""Expressions: literals, names, members, indexing and operators."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ast as A
from ..decimals import dec_neg
from ..defs import StateVar
from ..errors import ExecutionError
from ..ops import (
    as_bool,
    chain_id_of,
    check_int,
    copy_in,
    describe,
    dyn_index,
    dyn_member,
    index_error,
    make_coercer,
    op_add_any,
    storage_read,
    storage_vivify,
    type_error,
    values_equal,
)
from ..runtime import (
    MISSING,
    Fn,
    Frame,
    jdel_dict,
    jset_dict,
)
from ..types import (
    ACCOUNT,
    ADDRESS,
    BOOL,
    BYTE_VALUE,
    BYTES,
    DECIMAL,
    LITERAL,
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
    MappingType,
    StringType,
    StructType,
    TupleType,
    Type,
    VariadicType,
)
from ..values import (
    Address,
    ArrayValue,
    ContractRef,
    DecimalValue,
    default_value,
)
from .base import CExpr, CompilerBase, coerced, const
from .bounds import local_reader, nonnegative, read_local, read_state
from .checks import index_problem
from .closures import key_ok, make_arith, make_compare, make_dec_arith, result_type
from .fused import fused_arith, fused_compare, incdec_local

EMPTY_ARRAY = ArrayType(UINT, None)  # the type of `[]` until it is converted


class ExpressionsMixin(CompilerBase):
    """Expressions: literals, names, members, indexing and operators."""

    # ------------------------------------------------------------ expressions

    def expr(self, e: A.Expr, statement: bool = False, vivify: bool = False) -> CExpr:
        if self.bchk and id(e) in self.unvisited:  # a call's argument: no underflow checks
            self.bchk = False
            try:
                return self.expr(e, statement, vivify)
            finally:
                self.bchk = True
        m = getattr(self, "x_" + type(e).__name__, None)
        if m is None:
            self.error(f"unsupported expression {type(e).__name__}", e)
        if vivify and isinstance(e, (A.Index, A.Member)):
            return m(e, True)  # type: ignore[no-any-return]
        if isinstance(e, A.Unary) and statement:
            return m(e, statement)  # type: ignore[no-any-return]
        return m(e)  # type: ignore[no-any-return]

    def x_NumberLit(self, e: A.NumberLit) -> CExpr:
        return const(e.value), LITERAL

    def x_DecimalLit(self, e: A.DecimalLit) -> CExpr:
        if self.vm == "EVM":
            self.error("decimal numbers are a SolidVM feature", e)
        return const(DecimalValue(e.mantissa, e.places)), DECIMAL

    def x_StringLit(self, e: A.StringLit) -> CExpr:
        return const(e.value), STRING

    def x_HexLit(self, e: A.HexLit) -> CExpr:
        return const(e.value), BYTES

    def x_BoolLit(self, e: A.BoolLit) -> CExpr:
        return const(e.value), BOOL

    def x_TupleExpr(self, e: A.TupleExpr) -> CExpr:
        items = [self.expr(i) if i is not None else None for i in e.items]
        fns = [i[0] if i is not None else const(None) for i in items]
        t = TupleType([i[1] if i is not None else None for i in items])
        if len(fns) == 2:
            f0, f1 = fns
            return (lambda fr: (f0(fr), f1(fr))), t
        return (lambda fr: tuple(f(fr) for f in fns)), t

    def x_ArrayLit(self, e: A.ArrayLit) -> CExpr:
        if not e.items:
            # `[]`: an empty dynamic array, typed by where it goes (an argument, a declaration)
            return (lambda fr: ArrayValue(EMPTY_ARRAY, [])), None
        items = [self.expr(i) for i in e.items]
        et = next((t for _, t in items if t is not None and t is not LITERAL), items[0][1])
        if et is None or et is LITERAL:
            et = UINT
        at = ArrayType(et, len(items))
        fns = [f for f, _ in items]
        n = len(fns)
        if isinstance(et, DecimalType):  # [1, 2.5]: the integers become decimals too
            co = make_coercer(et, self.vm)
            fns = [coerced(f, co) for f in fns]

        def run_array(fr: Frame) -> Any:
            fr.ctx.charge_memory(n)
            return ArrayValue(at, [copy_in(fr, f(fr)) for f in fns])

        return run_array, at

    # ---------------------------------------------------------------- identifiers

    def x_Ident(self, e: A.Ident) -> CExpr:
        name = e.name
        lv = self.lookup_local(name)
        checked = self.bchk and self.uint_checked(name)
        if lv is not None:
            slot = lv.slot
            read = read_local(slot) if checked else local_reader(slot)
            self.reads[read] = (slot, checked)
            return read, lv.type
        sv = self.c.svars.get(name)
        if sv is not None:
            if sv.constant:
                return self.checked_constant(self.constant_ref(sv, e), sv, checked)
            if checked:
                return read_state(name), sv.type
            return (lambda fr: fr.st[name]), sv.type
        sc = self.scope_constant(name)
        if sc is not None:
            return self.checked_constant(self.constant_ref(sc, e), sc, checked)
        if name == "now":
            return (lambda fr: fr.ctx.timestamp), UINT
        if name == "this":
            cname = self.c.name
            return (lambda fr: ContractRef(fr.cdef.name if fr.cdef else cname, fr.acct.address)), (
                self.this_type()
            )
        if name in ("msg", "tx", "block", "super", "abi"):
            self.error(f"'{name}' cannot be used as a value", e)
        if name in self.c.functions:
            self.error(f"function '{name}' must be called", e)
        self.error(f"undeclared identifier '{name}'", e)

    def checked_constant(self, ref: CExpr, sv: StateVar, checked: bool) -> CExpr:
        init = sv.decl.init
        if not checked or (isinstance(init, A.NumberLit) and init.value >= 0):
            return ref
        return nonnegative(ref[0]), ref[1]

    def constant_ref(self, sv: StateVar, e: A.Node) -> CExpr:
        def const_value(fr: Frame) -> Any:
            f = sv._const_fn
            if f is None:
                raise ExecutionError(f"constant '{sv.name}' is not initialized", "internal error")
            return f(fr)

        if sv.decl.init is not None and isinstance(sv.decl.init, (A.NumberLit, A.StringLit)):
            v = sv.decl.init.value
            co = make_coercer(sv.type, self.vm)
            v = co(v) if co else v
            return const(v), sv.type
        return const_value, sv.type

    # ---------------------------------------------------------------- members

    def x_Member(self, e: A.Member, vivify: bool = False) -> CExpr:
        obj = e.obj
        name = e.name
        if (
            isinstance(obj, A.Call)
            and isinstance(obj.func, A.Ident)
            and obj.func.name == "type"
            and len(obj.args) == 1
            and isinstance(obj.args[0], A.TypeExpr)
        ):
            return self.type_member(obj.args[0].type, name, e)
        if (
            isinstance(obj, A.Ident)
            and self.lookup_local(obj.name) is None
            and (obj.name not in self.c.svars)
        ):
            special = self.special_member(obj.name, name, e)
            if special is not None:
                return special
        if isinstance(obj, A.Member) and isinstance(obj.obj, A.Ident):
            # C.E.V : enum value of another contract
            owner = self.uc.contracts.get(obj.obj.name)
            if owner is not None:
                et = owner.types.get(obj.name) or owner.own_types.get(obj.name)
                if isinstance(et, EnumType):
                    return self.enum_value(et, name, e)
        base, bt = self.expr(obj, vivify=vivify)
        if isinstance(bt, VariadicType):
            return self.variadic_member(base, name, e)
        if isinstance(bt, StructType):
            if name not in bt.field_types:
                self.error(f"struct {bt.name} has no member '{name}'", e)
            ft = bt.field_types[name]
            return (lambda fr: base(fr)[name]), ft
        if name == "length":
            if isinstance(bt, (ArrayType, BytesType)):
                return (lambda fr: len(base(fr))), UINT
            if isinstance(bt, StringType):
                return (lambda fr: len(base(fr).encode())), UINT
        if isinstance(bt, (AddressType, AccountType, ContractType)) or bt is None:
            if name == "chainId":
                return (lambda fr: chain_id_of(fr, base(fr))), UINT
            if name == "balance":
                return (lambda fr: fr.ctx.world.balance_at(fr, base(fr))), UINT
            member = self.account_member(base, name, e)
            if member is not None:
                return member
        if isinstance(bt, ContractType):
            target = self.uc.contracts.get(bt.name)
            if target is not None and target.find_function(name) is None:
                self.error(f"contract {bt.name} has no member '{name}'", e)
            self.error(f"function '{name}' of {bt.name} must be called", e)
        if bt is None:
            return (lambda fr: dyn_member(fr, base(fr), name)), None
        self.error(f"type {bt.name} has no member '{name}'", e)

    def enum_value(self, et: EnumType, name: str, e: A.Node) -> CExpr:
        if name not in et.index:
            self.error(f"enum {et.name} has no value '{name}'", e)
        return const(et.index[name]), et

    def special_member(self, oname: str, name: str, e: A.Member) -> CExpr | None:
        types = self.c.types
        if oname in types and isinstance(types[oname], EnumType):
            et = types[oname]
            assert isinstance(et, EnumType)
            return self.enum_value(et, name, e)
        if oname == "msg":
            if name == "sender":
                return (lambda fr: fr.sender), ACCOUNT
            if name == "value":
                return (lambda fr: fr.value), UINT
            if name in ("data", "sig"):
                return self.msg_member(name, e)
            self.error(f"'msg' has no member '{name}'", e)
        if oname == "tx":
            if name == "origin":
                return (lambda fr: fr.ctx.origin), ACCOUNT
            if name == "gasprice":
                return const(1), UINT
            field = {
                "username": "commonName",
                "organization": "organization",
                "organizationalUnit": "organizationalUnit",
                "group": "organizationalUnit",
                "certificate": "certString",
            }.get(name)
            if field is None:
                self.error(f"'tx' has no member '{name}'", e)

            def tx_field(fr: Frame) -> Any:
                cert = fr.ctx.world.identities.get(fr.ctx.origin.value)
                return cert.get(field, "") if cert else ""

            return tx_field, STRING
        if oname == "block":
            if name == "timestamp":
                return (lambda fr: fr.ctx.timestamp), UINT
            if name == "number":
                return (lambda fr: fr.ctx.block_number), UINT
            if name == "coinbase":
                return const(Address(0)), ADDRESS
            if name == "difficulty":
                return (lambda fr: fr.ctx.difficulty), UINT
            if name == "gaslimit":

                def gas_limit(fr: Frame) -> Any:
                    limit = fr.ctx.gas_limit
                    return fr.ctx.max_steps if limit is None else limit

                return gas_limit, UINT
            self.error(f"'block' has no member '{name}'", e)
        if oname in self.uc.contracts:
            owner = self.uc.contracts[oname]
            t = owner.own_types.get(name)
            if t is None:
                for b in owner.linearization:
                    t = b.own_types.get(name)
                    if t:
                        break
            if t is None:
                sv = owner.svars.get(name)
                if sv is not None and sv.constant:
                    return self.constant_ref(sv, e)
                self.error(f"'{name}' must be called on an instance of {oname}", e)
            self.error(f"type '{oname}.{name}' cannot be used as a value", e)
        return None

    # ---------------------------------------------------------------- indexing

    def x_Index(self, e: A.Index, vivify: bool = False) -> CExpr:
        if e.index is None:
            self.error("index expression expected", e)
        base, bt = self.expr(e.obj, vivify=vivify)
        key, kt = self.expr(e.index)
        if isinstance(bt, VariadicType):
            return self.variadic_index(base, key)
        if self.uc.checks and (problem := index_problem(bt, kt)):
            self.error(problem, e.index)
        if isinstance(bt, MappingType):
            vt = bt.value
            kco = make_coercer(bt.key, self.vm) if not key_ok(kt, bt.key) else None
            if kco is not None:
                key = coerced(key, kco)
            if vt.complex:
                if vivify:

                    def map_vivify(fr: Frame) -> Any:
                        m = base(fr)
                        k = key(fr)
                        v = m.get(k, MISSING)
                        if v is MISSING:
                            v = default_value(vt)
                            jset_dict(fr, m, k, v)
                        return v

                    return map_vivify, vt

                def map_complex(fr: Frame) -> Any:
                    v = base(fr).get(key(fr), MISSING)
                    return default_value(vt) if v is MISSING else v

                return map_complex, vt
            dv = default_value(vt)
            return (lambda fr: base(fr).get(key(fr), dv)), vt
        if isinstance(bt, ArrayType):
            et = bt.elem
            if self.is_storage(e.obj):
                if vivify and et.complex:
                    return (lambda fr: storage_vivify(fr, base(fr), key(fr), et)), et

                def arr_storage(fr: Frame) -> Any:
                    a = base(fr)
                    i = key(fr)
                    if type(i) is int and 0 <= i < len(a):
                        return a[i]
                    return storage_read(a, i, et)

                return arr_storage, et

            def arr_index(fr: Frame) -> Any:
                a = base(fr)
                i = key(fr)
                if type(i) is int and 0 <= i < len(a):
                    return a[i]
                if type(i) is not int:
                    raise type_error(f"array index must be an integer, got {describe(i)}")
                raise index_error(i, len(a))

            return arr_index, et
        if isinstance(bt, BytesType):
            if self.vm != "EVM":
                # SolidVM: an element of a bytestring is its integer value (0..255)

                def byte_value(fr: Frame) -> Any:
                    b = base(fr)
                    i = key(fr)
                    if type(i) is int and 0 <= i < len(b):
                        return b[i]
                    raise index_error(i, len(b))

                return byte_value, BYTE_VALUE

            def bytes_index(fr: Frame) -> Any:
                b = base(fr)
                i = key(fr)
                if type(i) is int and 0 <= i < len(b):
                    return b[i : i + 1]
                raise index_error(i, len(b))

            return bytes_index, BytesType(1)
        if bt is None:
            return (lambda fr: dyn_index(fr, base(fr), key(fr), vivify)), None
        self.error(f"type {bt.name} cannot be indexed", e)

    # ---------------------------------------------------------------- operators

    def x_Unary(self, e: A.Unary, statement: bool = False) -> CExpr:
        op = e.op
        if op in ("++", "--"):
            return self.incdec(e, statement)
        if op == "delete":
            return self.delete(e)
        f, t = self.expr(e.operand)
        if isinstance(t, VariadicType):
            t = None
        self.no_value_type_operand(op, t, e)
        if op == "!":
            if t is not None and not isinstance(t, BoolType):
                self.error(f"'!' needs a bool, not {t.name}", e)
            return (lambda fr: not as_bool(f(fr))), BOOL
        if op == "-":
            if isinstance(e.operand, A.NumberLit):
                v = -e.operand.value
                return const(v), LITERAL
            if isinstance(t, DecimalType):
                if isinstance(e.operand, A.DecimalLit):
                    return const(dec_neg(DecimalValue(e.operand.mantissa, e.operand.places))), t
                return (lambda fr: dec_neg(f(fr))), t
            self.expect_int(t, e)
            wrap = self.wrapper(t)
            if wrap:
                return (lambda fr: wrap(-check_int(f(fr)))), t
            return (lambda fr: -check_int(f(fr))), t
        if op == "+":
            return f, t
        if op == "~":
            self.expect_int(t, e)
            if self.vm == "EVM" and isinstance(t, IntType) and t is not LITERAL:
                w = t.wrap
                return (lambda fr: w(~check_int(f(fr)))), t
            if isinstance(t, IntType) and not t.signed and t is not LITERAL:
                # SolidVM: bitwise not of an unsigned value flips its 256 bits
                mask = (1 << t.bits) - 1
                return (lambda fr: check_int(f(fr)) ^ mask), t
            return (lambda fr: ~check_int(f(fr))), t
        self.error(f"unknown operator '{op}'", e)

    def expect_int(self, t: Type | None, node: A.Node) -> None:
        self.no_value_type_operand(getattr(node, "op", "arithmetic"), t, node)
        if t is not None and not isinstance(t, IntType):
            self.error(f"operator needs an integer operand, not {t.name}", node)

    def wrapper(self, t: Type | None) -> Callable[[int], int] | None:
        if self.vm == "EVM" and isinstance(t, IntType) and t is not LITERAL:
            return t.wrap
        return None

    def incdec(self, e: A.Unary, statement: bool) -> CExpr:
        ref, get, put, t = self.lvalue(e.operand)
        self.expect_int(t, e)
        delta = 1 if e.op == "++" else -1
        wrap = self.wrapper(t)
        prefix = e.prefix
        target = e.operand
        if isinstance(target, A.Ident) and (local := self.lookup_local(target.name)) is not None:
            # `i++` on a local: no place to look up (its old value checked as checked_get says)
            checked = self.uint_checked(target.name)
            return incdec_local(local.slot, checked, delta, wrap, prefix), t
        get = self.checked_get(e.operand, get)

        def run_incdec(fr: Frame) -> Any:
            c, k = ref(fr)
            old = check_int(get(c, k))
            new = old + delta
            if wrap is not None:
                new = wrap(new)
            put(fr, c, k, new)
            return new if prefix else old

        return run_incdec, t

    def delete(self, e: A.Unary) -> CExpr:
        target = e.operand
        if isinstance(target, A.Ident):
            lv = self.lookup_local(target.name)
            if lv is not None and lv.type is not None and not lv.type.complex:
                # the platform deletes storage only: a value-type local fails when it runs
                msg = (
                    "Unimplemented feature in SolidVM: deleteVar not yet supported for local "
                    f"variables: {target.name}"
                )

                def run_delete_local(fr: Frame) -> Any:
                    raise ExecutionError(msg, "unimplemented")

                return run_delete_local, None
        if isinstance(target, A.Index):
            base, bt = self.expr(target.obj, vivify=True)
            if isinstance(bt, MappingType):
                assert target.index is not None
                key, kt = self.expr(target.index)
                if self.uc.checks and (problem := index_problem(bt, kt)):
                    self.error(problem, target.index)
                if not key_ok(kt, bt.key):
                    key = coerced(key, make_coercer(bt.key, self.vm))

                def run_del_key(fr: Frame) -> Any:
                    jdel_dict(fr, base(fr), key(fr))

                return run_del_key, None
        ref, _get, put, t = self.lvalue(target, vivify_base=True)
        if t is None:
            self.error("cannot delete this expression", e)

        def run_delete(fr: Frame) -> Any:
            c, k = ref(fr)
            put(fr, c, k, default_value(t))

        return run_delete, None

    def x_Binary(self, e: A.Binary) -> CExpr:
        op = e.op
        if op in ("&&", "||"):
            a = self.cond(e.left)
            b = self.cond(e.right)
            if op == "&&":
                return (lambda fr: a(fr) and b(fr)), BOOL
            return (lambda fr: a(fr) or b(fr)), BOOL
        fa, ta = self.expr(e.left)
        fb, tb = self.expr(e.right)
        return self.binop(op, fa, ta, fb, tb, e)

    def binop(self, op: str, fa: Fn, ta: Type | None, fb: Fn, tb: Type | None, e: A.Node) -> CExpr:
        if isinstance(ta, VariadicType):
            ta = None
        if isinstance(tb, VariadicType):
            tb = None
        self.no_value_type_operand(op, ta, e)
        self.no_value_type_operand(op, tb, e)
        if isinstance(ta, DecimalType) or isinstance(tb, DecimalType):
            return self.decimal_binop(op, fa, ta, fb, tb, e)
        if op in ("==", "!="):
            if op == "==":
                return (lambda fr: values_equal(fa(fr), fb(fr))), BOOL
            return (lambda fr: not values_equal(fa(fr), fb(fr))), BOOL
        if op in ("<", ">", "<=", ">="):
            for t in (ta, tb):
                if t is not None and not isinstance(
                    t, (IntType, EnumType, AddressType, AccountType, StringType, BytesType)
                ):
                    self.error(f"operator '{op}' cannot compare {t.name}", e)
            ra, rb = self.reads.get(fa), self.reads.get(fb)
            if ra is not None and rb is not None:
                return fused_compare(op, ra, rb), BOOL
            return make_compare(fa, fb, op), BOOL
        rt = result_type(ta, tb)
        if op == "+" and (
            isinstance(ta, (StringType, BytesType))
            or isinstance(tb, (StringType, BytesType))
            or ta is None
            or tb is None
        ):
            if isinstance(ta, StringType) or isinstance(tb, StringType):
                rt = STRING
            elif isinstance(ta, BytesType) or isinstance(tb, BytesType):
                rt = BYTES

            def add_any(fr: Frame) -> Any:
                return op_add_any(fr, fa(fr), fb(fr))

            return add_any, rt
        for t in (ta, tb):
            if t is not None and not isinstance(t, (IntType, EnumType)):
                self.error(f"operator '{op}' needs integer operands, not {t.name}", e)
        wrap = self.wrapper(rt)
        ra, rb = self.reads.get(fa), self.reads.get(fb)
        fused = fused_arith(op, ra, rb) if ra is not None and rb is not None else None
        f = fused if fused is not None else make_arith(op, fa, fb, self.vm)
        if wrap is not None:
            inner = f
            return (lambda fr: wrap(inner(fr))), rt
        return f, rt

    def decimal_binop(
        self, op: str, fa: Fn, ta: Type | None, fb: Fn, tb: Type | None, e: A.Node
    ) -> CExpr:
        """An operator with a decimal operand: the other must be a decimal too, or an integer
        literal (which counts as a decimal with 0 places); integer variables need decimal(x)."""
        ordering = op in ("<", ">", "<=", ">=")
        if op not in ("==", "!=", "+", "-", "*", "/", "%") and not ordering:
            self.error(f"operator '{op}' is not defined for decimal", e)
        for t in (ta, tb):
            if t is None or isinstance(t, DecimalType):
                continue
            if isinstance(t, IntType):
                if t is LITERAL and not ordering:
                    continue
                what = "an integer literal" if t is LITERAL else t.name
                self.error(
                    f"operator '{op}' cannot mix decimal and {what}: convert with decimal(...)", e
                )
            self.error(f"operator '{op}' cannot combine decimal and {t.name}", e)
        if op in ("==", "!="):
            if op == "==":
                return (lambda fr: values_equal(fa(fr), fb(fr))), BOOL
            return (lambda fr: not values_equal(fa(fr), fb(fr))), BOOL
        if ordering:
            return make_compare(fa, fb, op), BOOL
        return make_dec_arith(op, fa, fb), DECIMAL

    def x_Ternary(self, e: A.Ternary) -> CExpr:
        c = self.cond(e.cond)
        a, ta = self.expr(e.then)
        b, tb = self.expr(e.other)
        t = ta if ta is not None and ta is not LITERAL else tb
        return (lambda fr: a(fr) if c(fr) else b(fr)), t
