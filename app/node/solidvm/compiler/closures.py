"""Small closures and helpers the compiled code shares (lvalue accessors, operators)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..decimals import dec_add, dec_div, dec_mod, dec_mul, dec_sub
from ..defs import CompiledFunction
from ..errors import ExecutionError
from ..ops import (
    check_int,
    copy_in,
    describe,
    op_add_any,
    op_div,
    op_floordiv,
    op_mod,
    op_mul,
    op_pow,
    op_shl,
    op_shr,
    op_ushr,
    type_error,
)
from ..runtime import (
    ExecContext,
    Fn,
    Frame,
    jdel_dict,
    jreplace_list,
    jset_dict,
    jset_list,
)
from ..types import (
    LITERAL,
    UINT,
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
)
from ..values import (
    Address,
    DecimalValue,
    default_value,
)


def slot0(fr: Frame) -> Any:
    return fr.l[0]


def slot1(fr: Frame) -> Any:
    return fr.l[1]


class _Pair:
    """A two-slot pseudo-frame used to combine an old value with the right-hand side."""

    __slots__ = ("ctx", "l")

    def __init__(self, ctx: ExecContext, a: Any, b: Any) -> None:
        self.ctx = ctx
        self.l = [a, b]


def comb_values(fr: Frame, comb: Fn, old: Any, rhs: Any) -> Any:
    return comb(_Pair(fr.ctx, old, rhs))  # type: ignore[arg-type]


def get_item(c: Any, k: Any) -> Any:
    return c[k]


def put_local(fr: Frame, c: list[Any], k: int, v: Any) -> None:
    c[k] = v


def put_dict(fr: Frame, c: dict[Any, Any], k: Any, v: Any) -> None:
    jset_dict(fr, c, k, v)


def put_list(fr: Frame, c: list[Any], k: int, v: Any) -> None:
    jset_list(fr, c, k, v)


def len_get(c: Any, k: Any) -> Any:
    return len(c)


def len_put_for(et: Type) -> Callable[[Frame, Any, Any, Any], None]:
    def put(fr: Frame, c: Any, k: Any, v: Any) -> None:
        n = check_int(v)
        if n < 0:
            raise type_error("negative array length")
        if n <= len(c):
            jreplace_list(fr, c, c[:n])
        else:
            fr.ctx.charge_memory(n - len(c))
            grown = [default_value(et) for _ in range(n - len(c))]
            b = getattr(c, "beyond", None)
            if b:  # storage elements written past the end come into view
                for i in [i for i in b if len(c) <= i < n]:
                    grown[i - len(c)] = b[i]
                    jdel_dict(fr, b, i)
            jreplace_list(fr, c, list(c) + grown)

    return put


def key_ok(kt: Type | None, key: Type) -> bool:
    """True when keys of static type ``kt`` need no conversion for a mapping keyed by ``key``."""
    if kt is None:
        return isinstance(key, (IntType, StringType, BoolType, EnumType))
    if isinstance(key, (AddressType, AccountType, ContractType)):
        return isinstance(kt, (AddressType, AccountType, ContractType))
    if isinstance(key, BytesType):
        return isinstance(kt, BytesType)
    if isinstance(key, DecimalType):
        return isinstance(kt, DecimalType)
    return True


def order_guard(a: Any, b: Any) -> None:
    """Refuse to order values of types that have no order between them (not two ints)."""
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        raise type_error("cannot order bools")
    if (ta is str) != (tb is str) and not (isinstance(a, Address) or isinstance(b, Address)):
        raise type_error(f"cannot compare {describe(a)} with {describe(b)}")


def make_compare(fa: Fn, fb: Fn, op: str) -> Fn:
    guard = order_guard
    if op == "<":

        def lt(fr: Frame) -> Any:
            a = fa(fr)
            b = fb(fr)
            if type(a) is int and type(b) is int:
                return a < b
            guard(a, b)
            return a < b

        return lt
    if op == ">":

        def gt(fr: Frame) -> Any:
            a = fa(fr)
            b = fb(fr)
            if type(a) is int and type(b) is int:
                return a > b
            guard(a, b)
            return a > b

        return gt
    if op == "<=":

        def le(fr: Frame) -> Any:
            a = fa(fr)
            b = fb(fr)
            if type(a) is int and type(b) is int:
                return a <= b
            guard(a, b)
            return a <= b

        return le

    def ge(fr: Frame) -> Any:
        a = fa(fr)
        b = fb(fr)
        if type(a) is int and type(b) is int:
            return a >= b
        guard(a, b)
        return a >= b

    return ge


DEC_OPS: dict[str, Callable[[Any, Any], DecimalValue]] = {
    "+": dec_add,
    "-": dec_sub,
    "*": dec_mul,
    "/": dec_div,
    "%": dec_mod,
}


def make_dec_arith(op: str, fa: Fn, fb: Fn) -> Fn:
    f = DEC_OPS[op]
    return lambda fr: f(fa(fr), fb(fr))


def int_binop(fa: Fn, fb: Fn, op: Callable[[int, int], int], sym: str = "") -> Fn:
    dec = DEC_OPS.get(sym)

    def run(fr: Frame) -> Any:
        a = fa(fr)
        b = fb(fr)
        if type(a) is not int or type(b) is not int:
            if dec is not None and (type(a) is DecimalValue or type(b) is DecimalValue):
                return dec(a, b)  # operands whose types are only known at run time
            check_int(a)
            check_int(b)
        return op(a, b)

    return run


def sub_any(fr: Frame, a: Any, b: Any) -> Any:
    """``a - b`` when the two are not both ints."""
    if type(a) is DecimalValue or type(b) is DecimalValue:
        return dec_sub(a, b)
    check_int(a)
    check_int(b)
    return a - b


def make_arith(op: str, fa: Fn, fb: Fn, vm: str = "EVM") -> Fn:
    if op == "+":

        def add(fr: Frame) -> Any:
            a = fa(fr)
            b = fb(fr)
            if type(a) is int and type(b) is int:
                return a + b
            return op_add_any(fr, a, b)

        return add
    if op == "-":

        def sub(fr: Frame) -> Any:
            a = fa(fr)
            b = fb(fr)
            if type(a) is int and type(b) is int:
                return a - b
            return sub_any(fr, a, b)

        return sub
    table: dict[str, Callable[[int, int], int]] = {
        "*": op_mul,
        "/": op_div if vm == "EVM" else op_floordiv,
        "%": op_mod,
        "**": op_pow,
        "<<": op_shl,
        ">>": op_shr,
        ">>>": op_ushr,
        "&": lambda a, b: a & b,
        "|": lambda a, b: a | b,
        "^": lambda a, b: a ^ b,
    }
    f = table.get(op)
    if f is None:
        raise ExecutionError(f"unknown operator {op}", "internal error")
    return int_binop(fa, fb, f, op)


def result_type(ta: Type | None, tb: Type | None) -> Type | None:
    if isinstance(ta, IntType) and ta is not LITERAL:
        return ta
    if isinstance(tb, IntType) and tb is not LITERAL:
        return tb
    if isinstance(ta, EnumType) or isinstance(tb, EnumType):
        return UINT
    if ta is LITERAL or tb is LITERAL:
        return LITERAL if (ta is LITERAL or ta is None) and (tb is LITERAL or tb is None) else UINT
    return ta or tb


def ret_type(fn: CompiledFunction) -> Type | None:
    if len(fn.returns) == 1:
        return fn.returns[0][1]
    if not fn.returns:
        return None
    return TupleType([t for _, t in fn.returns])


def copied(f: Fn) -> Fn:
    """``f``'s value, copied if it is an array, struct or mapping (an external call's
    argument)."""
    return lambda fr: copy_in(fr, f(fr))


def values_of(fns: list[Fn]) -> Callable[[Frame], list[Any]]:
    """A closure that evaluates ``fns`` in order into a new list: a call's arguments. Written
    out for the common counts, as a list comprehension costs a function object and a frame of
    its own (Python 3.11) on every call."""
    n = len(fns)
    if n == 0:
        return lambda fr: []
    if n == 1:
        (a0,) = fns
        return lambda fr: [a0(fr)]
    if n == 2:
        a0, a1 = fns
        return lambda fr: [a0(fr), a1(fr)]
    if n == 3:
        a0, a1, a2 = fns
        return lambda fr: [a0(fr), a1(fr), a2(fr)]
    return lambda fr: [a(fr) for a in fns]


def unpack_returns(r: list[Any], n: int) -> Any:
    if n == 1:
        return r[0]
    if n == 0:
        return None
    return tuple(r)
