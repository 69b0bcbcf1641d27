"""Assignments and the places they write to (lvalues)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ast as A
from ..errors import ExecutionError
from ..ops import (
    Coercer,
    copy_in,
    describe,
    dyn_get,
    dyn_put,
    index_error,
    make_coercer,
    memory_write_error,
    storage_read,
    storage_write,
    type_error,
)
from ..runtime import (
    MISSING,
    Fn,
    Frame,
    jset_dict,
)
from ..types import (
    BYTE_VALUE,
    UINT,
    ArrayType,
    BytesType,
    MappingType,
    StructType,
    TupleType,
    Type,
    VariadicType,
)
from ..values import (
    default_value,
)
from .base import CExpr, CompilerBase, Lvalue, coerced
from .bounds import nonnegative, underflow
from .checks import index_problem
from .closures import (
    comb_values,
    get_item,
    key_ok,
    len_get,
    len_put_for,
    put_dict,
    put_list,
    put_local,
    slot0,
    slot1,
)


class AssignmentMixin(CompilerBase):
    """Assignments and the places they write to (lvalues)."""

    # ---------------------------------------------------------------- assignment

    def x_Assign(self, e: A.Assign) -> CExpr:
        if isinstance(e.target, A.TupleExpr):
            return self.tuple_assign(e)
        op = e.op
        target = e.target
        if op == "=" and isinstance(target, A.Ident):
            lv = self.lookup_local(target.name)
            checked = self.uint_checked(target.name) and not self.known_nonnegative(e.value)
            val, vt = self.expr(e.value)
            if checked:
                val = nonnegative(val)
            if lv is not None:
                if lv.type is not None:
                    self.check_assignable(vt, lv.type, e.value)
                co = make_coercer(lv.type, self.vm)
                slot = lv.slot
                if co is None:

                    def set_local(fr: Frame) -> Any:
                        v = fr.l[slot] = val(fr)
                        return v

                    return set_local, lv.type

                conv = co

                def set_local_c(fr: Frame) -> Any:
                    v = fr.l[slot] = conv(val(fr))
                    return v

                return set_local_c, lv.type
            sv = self.c.svars.get(target.name)
            if sv is not None and not sv.constant:
                self.check_assignable(vt, sv.type, e.value)
                co = make_coercer(sv.type, self.vm)
                name = sv.name
                cp = sv.type.complex

                def set_state(fr: Frame) -> Any:
                    v = val(fr)
                    if co is not None:
                        v = co(v)
                    if cp:
                        v = copy_in(fr, v)
                    jset_dict(fr, fr.st, name, v)
                    return v

                return set_state, sv.type
        check_old = False
        if op == "=":
            ref, get, put, t = self.unvisited_lvalue(target)
        else:
            ref, get, put, t = self.lvalue(target)
            check_old = isinstance(target, A.Ident) and self.uint_checked(target.name)
        val, vt = self.expr(e.value)
        if op == "=":
            if t is not None:
                self.check_assignable(vt, t, e.value)
            co = make_coercer(t, self.vm)
            cp = t is not None and t.complex

            def assign(fr: Frame) -> Any:
                c, k = ref(fr)
                v = val(fr)
                if co is not None:
                    v = co(v)
                if cp:
                    v = copy_in(fr, v)
                put(fr, c, k, v)
                return v

            return assign, t
        bop = op[:-1]
        comb, _ = self.binop(bop, slot0, t, slot1, vt, e)
        co = make_coercer(t, self.vm)

        local = self.lookup_local(target.name) if isinstance(target, A.Ident) else None
        if local is not None:  # `x += e` on a local: no place to look up
            return self.compound_local(local.slot, comb, val, co, check_old), t
        if check_old:  # `x += e` on a checked unsigned name: its old value (bounds.py)

            def compound_uint(fr: Frame) -> Any:
                c, k = ref(fr)
                old = get(c, k)
                if old < 0:
                    raise underflow(old)
                v = comb_values(fr, comb, old, val(fr))
                if co is not None:
                    v = co(v)
                put(fr, c, k, v)
                return v

            return compound_uint, t

        def compound(fr: Frame) -> Any:
            c, k = ref(fr)
            v = comb_values(fr, comb, get(c, k), val(fr))
            if co is not None:
                v = co(v)
            put(fr, c, k, v)
            return v

        return compound, t

    def compound_local(
        self, slot: int, comb: Fn, val: Fn, co: Coercer | None, check_old: bool
    ) -> Fn:
        if check_old:

            def compound_local_uint(fr: Frame) -> Any:
                loc = fr.l
                old = loc[slot]
                if old < 0:
                    raise underflow(old)
                v = comb_values(fr, comb, old, val(fr))
                if co is not None:
                    v = co(v)
                loc[slot] = v
                return v

            return compound_local_uint

        def compound_local(fr: Frame) -> Any:
            loc = fr.l
            v = comb_values(fr, comb, loc[slot], val(fr))
            if co is not None:
                v = co(v)
            loc[slot] = v
            return v

        return compound_local

    def tuple_assign(self, e: A.Assign) -> CExpr:
        assert isinstance(e.target, A.TupleExpr)
        if e.op != "=":
            self.error("compound assignment to a tuple", e)
        targets: list[tuple[Any, Any, Coercer | None] | None] = []
        for item in e.target.items:
            if item is None:
                targets.append(None)
            else:
                ref, _get, put, t = self.unvisited_lvalue(item)
                targets.append((ref, put, make_coercer(t, self.vm)))
        val, vt = self.expr(e.value)
        n = len(targets)
        if (isinstance(vt, TupleType) and len(vt.items) != n) or (
            vt is not None and not isinstance(vt, (TupleType, VariadicType))
        ):
            got = len(vt.items) if isinstance(vt, TupleType) else 1
            self.error(f"cannot assign {got} value{'s' if got != 1 else ''} to {n} targets", e)

        def run_tuple_assign(fr: Frame) -> Any:
            vals = val(fr)
            if not isinstance(vals, tuple) or len(vals) != n:
                raise type_error("tuple size mismatch in assignment")
            refs = [(t[0](fr), t[1], t[2]) if t is not None else None for t in targets]
            for r, v in zip(refs, vals, strict=True):
                if r is not None:
                    (c, k), put, co = r
                    put(fr, c, k, copy_in(fr, co(v) if co else v))
            return vals

        return run_tuple_assign, None

    def byte_lvalue(self, obj: A.Expr, key: Fn) -> Lvalue:
        """``b[i] = n`` on a SolidVM bytestring: the byte becomes ``n & 0xff`` and the whole value
        is written back where ``b`` lives (bytes are immutable values), as the platform does."""
        ref, get, put, _ = self.lvalue(obj)

        def byte_ref(fr: Frame) -> tuple[Any, Any]:
            return (fr, ref(fr)), key(fr)

        def byte_get(c: Any, i: Any) -> Any:
            b = get(*c[1])
            if type(i) is int and 0 <= i < len(b):
                return b[i]
            raise index_error(i, len(b))

        def byte_put(fr: Frame, c: Any, i: Any, v: Any) -> None:
            owner = c[1]
            b = get(*owner)
            if type(v) is not int:
                raise type_error(f"bytestring element cannot be set to {describe(v)}")
            if type(i) is not int or not 0 <= i < len(b):
                raise ExecutionError(
                    "invalid write: Cannot assign a value outside the allocated space for a "
                    f"bytestring (index {i}, length {len(b)})",
                    "invalid write",
                )
            put(fr, owner[0], owner[1], b[:i] + bytes([v & 0xFF]) + b[i + 1 :])

        return byte_ref, byte_get, byte_put, BYTE_VALUE

    def lvalue(
        self, e: A.Expr, vivify_base: bool = True
    ) -> tuple[
        Callable[[Frame], tuple[Any, Any]],
        Callable[[Any, Any], Any],
        Callable[[Frame, Any, Any, Any], None],
        Type | None,
    ]:
        """(ref, get, put, type): ref evaluates the container and key once."""
        if isinstance(e, A.Ident):
            lv = self.lookup_local(e.name)
            if lv is not None:
                slot = lv.slot
                return (lambda fr: (fr.l, slot)), get_item, put_local, lv.type
            sv = self.c.svars.get(e.name)
            if sv is not None:
                if sv.constant:
                    self.error(f"cannot assign to constant '{sv.name}'", e)
                name = sv.name
                return (lambda fr: (fr.st, name)), get_item, put_dict, sv.type
            if self.scope_constant(e.name) is not None:
                self.error(f"cannot assign to constant '{e.name}'", e)
            self.error(f"undeclared identifier '{e.name}'", e)
        if isinstance(e, A.Index):
            if e.index is None:
                self.error("index expression expected", e)
            base, bt = self.expr(e.obj, vivify=vivify_base)
            key, kt = self.expr(e.index)
            if self.uc.checks and (problem := index_problem(bt, kt)):
                self.error(problem, e.index)
            if isinstance(bt, MappingType):
                if not key_ok(kt, bt.key):
                    key = coerced(key, make_coercer(bt.key, self.vm))
                dv_t = bt.value

                def map_get(c: Any, k: Any) -> Any:
                    v = c.get(k, MISSING)
                    return default_value(dv_t) if v is MISSING else v

                return (lambda fr: (base(fr), key(fr))), map_get, put_dict, bt.value
            if isinstance(bt, ArrayType):
                et = bt.elem
                if self.is_storage(e.obj):
                    # SolidVM writes storage arrays at any index (the length stays)
                    def st_get(c: Any, k: Any) -> Any:
                        if type(k) is int and 0 <= k < len(c):
                            return c[k]
                        return storage_read(c, k, et)

                    return (lambda fr: (base(fr), key(fr))), st_get, storage_write, et

                def arr_ref(fr: Frame) -> tuple[Any, Any]:
                    a = base(fr)
                    i = key(fr)
                    if type(i) is int and 0 <= i < len(a):
                        return a, i
                    if type(i) is not int:
                        raise type_error(f"array index must be an integer, got {describe(i)}")
                    raise memory_write_error(i, len(a))

                return arr_ref, get_item, put_list, et
            if bt is None:

                def dyn_ref(fr: Frame) -> tuple[Any, Any]:
                    c = base(fr)
                    k = key(fr)
                    if isinstance(c, list) and not (type(k) is int and 0 <= k < len(c)):
                        raise index_error(k, len(c))
                    if not isinstance(c, (list, dict)):
                        raise type_error(f"cannot index {describe(c)}")
                    return c, k

                return dyn_ref, dyn_get, dyn_put, None
            if isinstance(bt, BytesType) and self.vm != "EVM":
                return self.byte_lvalue(e.obj, key)
            self.error(f"cannot assign to an element of {bt.name if bt else 'this value'}", e)
        if isinstance(e, A.Member):
            base, bt = self.expr(e.obj, vivify=vivify_base)
            name = e.name
            if isinstance(bt, StructType):
                if name not in bt.field_types:
                    self.error(f"struct {bt.name} has no member '{name}'", e)
                return (lambda fr: (base(fr), name)), get_item, put_dict, bt.field_types[name]
            if name == "length" and isinstance(bt, ArrayType) and bt.length is None:
                et = bt.elem
                return (lambda fr: (base(fr), None)), len_get, len_put_for(et), UINT
            if bt is None:
                return (lambda fr: (base(fr), name)), dyn_get, dyn_put, None
            self.error(f"cannot assign to member '{name}' of {bt.name}", e)
        self.error("expression is not assignable", e)
