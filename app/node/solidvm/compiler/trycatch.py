"""try/catch (Solidity's expression form and SolidVM's block form), throw, and custom errors.

What a failure is caught as follows the platform (see ``catching``). A caught failure keeps every
write the current function made, inside the try too; what the failed call made (storage, events,
created contracts) is already gone, because ``invoke`` undoes a call that fails.
"""

from __future__ import annotations

from typing import Any

from .. import ast as A
from ..catching import (
    EXCEPTION_NAMES,
    PYTHON_ERRORS,
    THROW_PREFIX,
    UNCATCHABLE,
    custom_error,
    error_reason,
    exception_name,
    panic_code,
)
from ..errors import CustomError, ExecutionError, SolidVMError, located
from ..ops import Coercer, copy_in, make_coercer, type_error
from ..runtime import Fn, Frame
from ..types import TupleType, Type
from ..values import default_value
from .base import CompilerBase

Clause = tuple[int | None, Fn]
"""A Solidity-form catch clause: the slot of its parameter (if named) and its body."""

SolidVMClause = tuple[list[tuple[int, Coercer | None, Type]], Fn]
"""A block-form catch clause: (slot, coercer, type) per named value, and its body."""


class TryCatchMixin(CompilerBase):
    """try/catch, throw and custom errors."""

    # ------------------------------------------------------------ custom errors

    def error_params(self, e: A.Expr, node: A.Node) -> tuple[str, list[tuple[str, Type]]]:
        """The name and parameters of the custom error ``e`` names (``E`` or ``C.E``)."""
        if (
            isinstance(e, A.Member)
            and isinstance(e.obj, A.Ident)
            and e.obj.name in self.uc.contracts
        ):
            found = self.uc.contracts[e.obj.name].errors.get(e.name)
            if found is None:
                self.error(f"error '{e.obj.name}.{e.name}' is not declared", node)
            return e.name, found
        if not isinstance(e, A.Ident):
            self.error("expected the name of a declared error", node)
        params = self.c.errors.get(e.name)
        if params is None:
            self.error(f"error '{e.name}' is not declared", node)
        return e.name, params

    def custom_error_code(
        self, e: A.Expr, args: list[A.Expr], names: list[str] | None, node: A.Node, prefix: str
    ) -> Fn:
        """``revert E(args)`` / ``throw E(args)``: raises a :class:`CustomError`."""
        name, params = self.error_params(e, node)
        if names is not None:
            by_name = dict(zip(names, args, strict=True))
            if sorted(names) != sorted(p for p, _ in params) or len(by_name) != len(names):
                self.error(
                    f"named arguments do not match the parameters of error '{name}' "
                    f"({', '.join(p for p, _ in params)})",
                    node,
                )
            args = [by_name[p] for p, _ in params]
        if len(args) != len(params):
            self.error(
                f"error '{name}' takes {len(params)} arguments but {len(args)} were given", node
            )
        fns: list[Fn] = []
        for a, (_, t) in zip(args, params, strict=True):
            f, at = self.expr(a)
            self.check_assignable(at, t, a)
            fns.append(f)  # printed as they are, like the platform; a catch clause converts them
        types = [t for _, t in params]

        def run_custom_error(fr: Frame) -> Any:
            raise custom_error(prefix, name, [f(fr) for f in fns], types)

        return run_custom_error

    def throw_stmt(self, s: A.Throw) -> Fn:
        v = s.value
        if isinstance(v, A.Call) and isinstance(v.func, A.Ident | A.Member):
            return self.custom_error_code(v.func, v.args, v.names, s, THROW_PREFIX)

        def run_bad_throw(fr: Frame) -> Any:
            # the platform accepts any expression here and fails when the statement runs
            raise ExecutionError(
                "invalid arguments: Invalid argument for throw.: "
                "throw needs a declared error, as in throw MyError(args)",
                "invalid arguments",
            )

        return run_bad_throw

    # ------------------------------------------------------------ try / catch

    def guarded(self, f: Fn, s: A.Try) -> Fn:
        """The part of ``s`` whose failures its clauses see (the expression of Solidity's form,
        the body of SolidVM's), as it runs; the step debugger wraps it to know what a failure
        will meet on its way out. The ordinary compile runs it as it is."""
        return f

    def try_stmt(self, s: A.Try) -> Fn:
        if s.expr is None:
            return self.try_block(s)
        return self.try_expr(s, s.expr)

    def try_expr(self, s: A.Try, expr: A.Expr) -> Fn:
        """Solidity's form: the failure of ``expr`` is caught, never that of the blocks."""
        f, t = self.visited(expr)
        f = self.guarded(f, s)
        self.push_scope()
        binds: list[tuple[int, Coercer | None, bool]] = []  # slot, conversion, copy
        if s.returns is not None:
            rtypes = [self.uc.resolve_type(p.type, self.c) for p in s.returns]
            have = len(t.items) if isinstance(t, TupleType) else None if t is None else 1
            if have is not None and have != len(rtypes):
                self.error(
                    f"try/catch statement expected a tuple of the same length as the returns "
                    f"statement: the call returns {have} values, returns declares {len(rtypes)}",
                    s,
                )
            for i, (p, rt) in enumerate(zip(s.returns, rtypes, strict=True)):
                if isinstance(t, TupleType):
                    self.check_assignable(t.items[i], rt, p)
                elif t is not None:
                    self.check_assignable(t, rt, p)
                slot = self.declare(p.name or "", rt, p, p.location)
                copy = rt.complex and p.location != "storage"
                binds.append((slot, make_coercer(rt, self.vm), copy))
        body = self.block(s.body, new_scope=False)
        self.pop_scope()
        clauses: dict[str, Clause] = {}
        for c in s.catches:
            if c.name in clauses:
                self.error(f"duplicate catch clause '{c.name or 'catch'}'", c)
            clauses[c.name] = self.solidity_clause(c)
        nret = len(binds)

        def run_try(fr: Frame) -> Any:
            depth = fr.ctx.depth
            try:
                v = f(fr)
            except SolidVMError as exc:
                err: SolidVMError = exc
            except PYTHON_ERRORS as exc:
                err = located(ExecutionError(f"type error: {exc}", "type error"), exc)
            else:
                if nret:
                    vals = list(v) if type(v) is tuple else [v]
                    if len(vals) != nret:
                        raise type_error(
                            "try/catch statement expected a tuple of the same length as the "
                            "returns statement"
                        )
                    loc = fr.l
                    for (slot, co, cp), x in zip(binds, vals, strict=True):
                        y = x if co is None else co(x)
                        loc[slot] = copy_in(fr, y) if cp else y
                return body(fr)
            return catch_solidity(fr, err, depth, clauses)

        return run_try

    def solidity_clause(self, c: A.CatchClause) -> Clause:
        self.push_scope()
        slot = None
        if c.params:
            p = c.params[0]
            t = self.uc.resolve_type(p.type, self.c)
            if p.name:
                slot = self.declare(p.name, t, p, p.location)
        body = self.block(c.body, new_scope=False)
        self.pop_scope()
        return slot, body

    def try_block(self, s: A.Try) -> Fn:
        """SolidVM's form ``try {...} catch Name(a, b) {...} catch {...}``."""
        body = self.guarded(self.block(s.body), s)
        clauses: dict[str, SolidVMClause] = {}
        for c in s.catches:
            if c.name in clauses:
                self.error(f"duplicate catch clause '{c.name or 'catch'}'", c)
            clauses[c.name] = self.solidvm_clause(c)

        def run_try_block(fr: Frame) -> Any:
            depth = fr.ctx.depth
            try:
                return body(fr)
            except SolidVMError as exc:
                err: SolidVMError = exc
            except PYTHON_ERRORS as exc:
                err = located(ExecutionError(f"type error: {exc}", "type error"), exc)
            return catch_solidvm(fr, err, depth, clauses)

        return run_try_block

    def solidvm_clause(self, c: A.CatchClause) -> SolidVMClause:
        self.push_scope()
        binds: list[tuple[int, Coercer | None, Type]] = []
        params = self.c.errors.get(c.name) if c.name else None
        if params is not None:
            names = c.names or []
            if len(names) > len(params):
                self.error(
                    f"error '{c.name}' has {len(params)} parameters but the catch clause names "
                    f"{len(names)} values",
                    c,
                )
            for n, (_, t) in zip(names, params, strict=False):
                binds.append((self.declare(n, t, c), make_coercer(t, self.vm), t))
        elif c.name and c.name not in EXCEPTION_NAMES:
            self.error(
                f"unknown error '{c.name}' in catch clause: declare it (error {c.name}(...);) "
                "or catch one of SolidVM's exceptions (Require, Assert, RevertError, "
                "DivideByZero, IndexOutOfBounds, TypeError, ...)",
                c,
            )
        body = self.block(c.body, new_scope=False)
        self.pop_scope()
        return binds, body


def catches(s: A.Try, err: BaseException) -> bool:
    """Whether the clauses of ``s`` catch ``err`` raised in its guarded part (as ``run_try`` and
    ``run_try_block`` would decide): the step debugger stops only on failures nothing catches."""
    if isinstance(err, PYTHON_ERRORS):
        err = ExecutionError(f"type error: {err}", "type error")
    if not isinstance(err, ExecutionError) or err.kind in UNCATCHABLE:
        return False
    names = {c.name for c in s.catches}
    if "" in names:
        return True
    if s.expr is not None:  # Solidity's form
        return ("Error" if err.kind in ("require", "assert") else "Panic") in names
    return exception_name(err) in names


def _catchable(err: SolidVMError, fr: Frame, depth: int) -> ExecutionError:
    """``err`` as an ExecutionError the clauses may see; re-raises what must not be caught."""
    if not isinstance(err, ExecutionError) or err.kind in UNCATCHABLE:
        raise err
    fr.ctx.depth = depth
    return err


def catch_solidity(fr: Frame, err: SolidVMError, depth: int, clauses: dict[str, Clause]) -> Any:
    exc = _catchable(err, fr, depth)
    value: Any
    if exc.kind in ("require", "assert"):
        clause = clauses.get("Error")
        value = error_reason(exc)
    else:
        clause = clauses.get("Panic")
        value = panic_code(exc)
    if clause is None:
        clause = clauses.get("")
        value = b""  # the platform never fills the bytes of `catch (bytes data)`
    if clause is None:
        raise exc
    slot, body = clause
    if slot is not None:
        fr.l[slot] = value
    return body(fr)


def catch_solidvm(
    fr: Frame, err: SolidVMError, depth: int, clauses: dict[str, SolidVMClause]
) -> Any:
    exc = _catchable(err, fr, depth)
    clause = clauses.get(exception_name(exc))
    if clause is None:
        clause = clauses.get("")
        if clause is None:
            raise exc
    binds, body = clause
    if binds and isinstance(exc, CustomError):
        vals = exc.values
        loc = fr.l
        for i, (slot, co, t) in enumerate(binds):
            v = vals[i] if i < len(vals) else default_value(t)
            loc[slot] = co(v) if co else v
    return body(fr)
