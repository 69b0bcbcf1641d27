"""Assertions and control: require, assert, revert; arithmetic helpers."""

from __future__ import annotations

from typing import Any

from ... import ast as A
from ...errors import assert_failed, require_failed, reverted
from ...ops import (
    display,
    op_mod,
)
from ...runtime import (
    Frame,
)
from ...types import (
    UINT,
)
from ..base import CExpr, CompilerBase


class CoreBuiltins(CompilerBase):
    """Assertions and control: require, assert, revert; arithmetic helpers."""

    def b_require(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if not 1 <= len(args) <= 2:
            self.error("require takes a condition and an optional message", e)
        c = self.cond(args[0])
        if len(args) == 1:

            def req(fr: Frame) -> Any:
                if not c(fr):
                    raise require_failed(None)

            return req, None
        m, _ = self.expr(args[1])

        def req_msg(fr: Frame) -> Any:
            if not c(fr):
                raise require_failed(display(m(fr)))

        return req_msg, None

    def b_assert(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != 1:
            self.error("assert takes one condition", e)
        c = self.cond(args[0])

        def run_assert(fr: Frame) -> Any:
            if not c(fr):
                raise assert_failed()

        return run_assert, None

    def b_revert(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) > 1:
            self.error("revert takes an optional message", e)
        if not args:

            def run_revert(fr: Frame) -> Any:
                raise reverted(None)

            return run_revert, None
        m, _ = self.expr(args[0])

        def run_revert_msg(fr: Frame) -> Any:
            raise reverted(display(m(fr)))

        return run_revert_msg, None

    def b_addmod(self, args: list[A.Expr], e: A.Call) -> CExpr:
        a, b, m = (self.expr(x)[0] for x in args)
        return (lambda fr: op_mod(a(fr) + b(fr), m(fr))), UINT

    def b_mulmod(self, args: list[A.Expr], e: A.Call) -> CExpr:
        a, b, m = (self.expr(x)[0] for x in args)
        return (lambda fr: op_mod(a(fr) * b(fr), m(fr))), UINT

    def b_selfdestruct(self, args: list[A.Expr], e: A.Call) -> CExpr:
        self.error("selfdestruct is not supported by this SolidVM version", e)

    def b_type(self, args: list[A.Expr], e: A.Call) -> CExpr:
        self.error("type(...) is not supported by this SolidVM version", e)
