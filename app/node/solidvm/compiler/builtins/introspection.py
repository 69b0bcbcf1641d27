"""The chain and the code: block hashes, code collections."""

from __future__ import annotations

from typing import Any

from ... import ast as A
from ...errors import ExecutionError
from ...ops import (
    check_int,
    keccak256,
)
from ...runtime import Frame
from ...types import (
    BYTES32,
    IntType,
)
from ..base import CExpr, CompilerBase


class IntrospectionBuiltins(CompilerBase):
    """The chain and the code: block hashes, code collections."""

    def b_blockhash(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != 1:
            self.error(f"blockhash takes one argument, {len(args)} given", e)
        f, t = self.expr(args[0])
        if self.uc.checks and t is not None and not isinstance(t, IntType):
            self.error(f"Type mismatch: blockhash takes an integer, not {t.name}", args[0])

        def run_blockhash(fr: Frame) -> Any:
            n = check_int(f(fr))
            if n < 0:
                raise ExecutionError(
                    "invalid arguments: blockhash() only accepts arguments greater than or "
                    f"equal to 0: [{n}]",
                    "invalid arguments",
                )
            if n > fr.ctx.block_number:
                raise ExecutionError(
                    f"invalid arguments: the block number given does not exist: [{n}]",
                    "invalid arguments",
                )
            return keccak256(str(n).encode())

        return run_blockhash, BYTES32
