"""Unsigned integers below zero, caught where the platform catches them.

SolidVM's integers are unbounded: ``x - y`` of two uints is simply negative when ``x < y``. The
platform's optimizer (run on every compiled source) inserts checks around some expressions
instead, ``integer out of bounds: underflow: : (Just 0,-1)`` (an ``ArithmeticException``) when
the value is negative:

- the value assigned by ``x = e`` and by a declaration ``uint x = e;`` when ``x`` is a plain name
  of an unsigned type (compound assignments, ``++``/``--``, elements and members: no check of
  the result);
- every read of a plain name of an unsigned type.

Only where the optimizer looks: expression statements, single declarations, ``return``,
conditions and the step of loops, the expression of a Solidity-form ``try``; not arguments of
calls (``require(x - y > 0)`` is not checked), events, reverts, a ``for`` loop's first clause,
tuple declarations, nor modifiers. ``unchecked { ... }`` turns the checks off for the statements
it holds. The optimizer knows a name's type from the function's parameters and named returns
and the single declarations seen so far (not those of a ``for`` loop's first clause, of tuples
or of ``var``), then the contract's state variables and constants: a name it does not know is not
checked. EVM contracts wrap around instead (Solidity's unchecked arithmetic, as before).
"""

from __future__ import annotations

from typing import Any

from .. import ast as A
from ..errors import ExecutionError
from ..runtime import Fn, Frame
from ..types import LITERAL, IntType, Type
from .base import CExpr, CompilerBase


def underflow(v: Any) -> ExecutionError:
    return ExecutionError(f"integer out of bounds: underflow: : (Just 0,{v})", "integer overflow")


def nonnegative(f: Fn) -> Fn:
    """``f``, failing when its value is below zero."""

    def checked(fr: Frame) -> Any:
        v = f(fr)
        if v < 0:
            raise underflow(v)
        return v

    return checked


def local_reader(slot: int) -> Fn:
    return lambda fr: fr.l[slot]


def read_local(slot: int) -> Fn:
    def read_uint(fr: Frame) -> Any:
        v = fr.l[slot]
        if v < 0:
            raise underflow(v)
        return v

    return read_uint


def read_state(name: str) -> Fn:
    def read_uint_state(fr: Frame) -> Any:
        v = fr.st[name]
        if v < 0:
            raise underflow(v)
        return v

    return read_uint_state


class BoundsMixin(CompilerBase):
    """Where the function compiler adds the platform's underflow checks."""

    def visited(self, e: A.Expr, statement: bool = False, vivify: bool = False) -> CExpr:
        """Compile ``e`` as an expression the platform's optimizer looks at."""
        if self.in_modifier or self.in_for_init or self.vm == "EVM":
            return self.expr(e, statement, vivify)
        before = self.bchk
        self.bchk = True
        try:
            return self.expr(e, statement, vivify)
        finally:
            self.bchk = before

    def unvisited_lvalue(self, target: A.Expr) -> Any:
        """The place of ``target = ...``: the optimizer leaves the left side alone."""
        before = self.bchk
        self.bchk = False
        try:
            return self.lvalue(target)
        finally:
            self.bchk = before

    def uint_checked(self, name: str) -> bool:
        """Whether a plain name here is checked: a visited expression, not in ``unchecked``, and
        a name the optimizer knows as unsigned."""
        if not self.bchk or self.unchecked:
            return False
        t = self.optimizer_type(name)
        return isinstance(t, IntType) and not t.signed and t is not LITERAL

    def known_nonnegative(self, e: A.Expr) -> bool:
        """Whether ``e``, compiled here, can never be below zero, so that checking its value
        would be redundant: a literal, a checked unsigned name (its read fails first), sums and
        products of those. Decided when compiling, it spares the check at each evaluation."""
        if isinstance(e, A.NumberLit):
            return e.value >= 0
        if isinstance(e, A.Ident):
            return self.uint_checked(e.name)
        if isinstance(e, A.Binary) and e.op in ("+", "*"):
            return self.known_nonnegative(e.left) and self.known_nonnegative(e.right)
        return False

    def uint_declared(self, t: Type, init: A.Expr | None = None) -> bool:
        """Whether ``T x = e;`` (a single declaration with a type) checks its value: not when
        ``init`` (``e``, compiled as a visited expression) is known to be nonnegative."""
        if not (
            isinstance(t, IntType)
            and not t.signed
            and not (self.unchecked or self.in_modifier or self.in_for_init or self.vm == "EVM")
        ):
            return False
        if init is None:
            return True
        before = self.bchk
        self.bchk = True  # as visited() compiles the value
        try:
            return not self.known_nonnegative(init)
        finally:
            self.bchk = before

    def optimizer_type(self, name: str) -> Type | None:
        for scope in reversed(self.scopes):
            v = scope.get(name)
            if v is not None and v.visible:
                return v.type
        if self.c.kind == "file":  # free functions: the optimizer knows no contract
            return None
        sv = self.c.svars.get(name)
        if sv is not None:
            return sv.type
        sc = self.scope_constant(name)
        return sc.type if sc is not None else None

    def checked_get(self, target: A.Expr, get: Any) -> Any:
        """The getter of an updated place (``x += 1``, ``x++``): the old value of a checked
        name must not be below zero (the result is not checked)."""
        if not (isinstance(target, A.Ident) and self.uint_checked(target.name)):
            return get

        def get_uint(c: Any, k: Any) -> Any:
            v = get(c, k)
            if v < 0:
                raise underflow(v)
            return v

        return get_uint
