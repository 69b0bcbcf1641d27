"""Hashes and signatures."""

from __future__ import annotations

import hashlib
from typing import Any

from ... import ast as A
from ...ops import (
    keccak256,
    pack,
)
from ...runtime import (
    Frame,
)
from ...types import (
    BYTES32,
    BytesType,
)
from ..base import CExpr, CompilerBase


class CryptoBuiltins(CompilerBase):
    """Hashes and signatures."""

    def b_keccak256(self, args: list[A.Expr], e: A.Call) -> CExpr:
        fns = [self.expr(a)[0] for a in args]
        return (lambda fr: keccak256(pack([f(fr) for f in fns]))), BYTES32

    def b_sha256(self, args: list[A.Expr], e: A.Call) -> CExpr:
        fns = [self.expr(a)[0] for a in args]
        return (lambda fr: hashlib.sha256(pack([f(fr) for f in fns])).digest()), BYTES32

    def b_ripemd160(self, args: list[A.Expr], e: A.Call) -> CExpr:
        fns = [self.expr(a)[0] for a in args]

        def run_ripemd(fr: Frame) -> Any:
            from Crypto.Hash import RIPEMD160

            h = RIPEMD160.new()
            h.update(pack([f(fr) for f in fns]))
            return bytes(h.digest())

        return run_ripemd, BytesType(20)
