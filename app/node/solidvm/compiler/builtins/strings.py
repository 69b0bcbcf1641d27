"""String and bytes conversions."""

from __future__ import annotations

from typing import Any

from ... import ast as A
from ...ops import (
    bytes_text,
    convert,
)
from ...runtime import Frame
from ...types import (
    ADDRESS,
    STRING,
)
from ..base import CExpr, CompilerBase


class StringBuiltins(CompilerBase):
    """String and bytes conversions."""

    def b_bytes32ToString(self, args: list[A.Expr], e: A.Call) -> CExpr:
        f, _ = self.expr(args[0])

        def to_string(fr: Frame) -> Any:
            v = f(fr)
            if isinstance(v, bytes):  # padded bytes32: the text before the zeros
                return bytes_text(v.rstrip(b"\0"))
            return convert(v, STRING, "SolidVM")

        return to_string, STRING

    def b_addressToAsciiString(self, args: list[A.Expr], e: A.Call) -> CExpr:
        f, _ = self.expr(args[0])
        return (lambda fr: convert(f(fr), ADDRESS, "SolidVM").hex), STRING
