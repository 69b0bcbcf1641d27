"""The chain and the code: block hashes, code collections."""

from __future__ import annotations

from ... import ast as A
from ...ops import (
    keccak256,
)
from ...types import (
    BYTES32,
)
from ..base import CExpr, CompilerBase


class IntrospectionBuiltins(CompilerBase):
    """The chain and the code: block hashes, code collections."""

    def b_blockhash(self, args: list[A.Expr], e: A.Call) -> CExpr:
        f, _ = self.expr(args[0])
        return (lambda fr: keccak256(str(f(fr)).encode())), BYTES32
