"""String and bytes conversions."""

from __future__ import annotations

from ... import ast as A
from ...ops import (
    convert,
)
from ...types import (
    ADDRESS,
    STRING,
)
from ..base import CExpr, CompilerBase


class StringBuiltins(CompilerBase):
    """String and bytes conversions."""

    def b_bytes32ToString(self, args: list[A.Expr], e: A.Call) -> CExpr:
        f, _ = self.expr(args[0])
        return (lambda fr: convert(f(fr), STRING, "SolidVM")), STRING

    def b_addressToAsciiString(self, args: list[A.Expr], e: A.Call) -> CExpr:
        f, _ = self.expr(args[0])
        return (lambda fr: convert(f(fr), ADDRESS, "SolidVM").hex), STRING
