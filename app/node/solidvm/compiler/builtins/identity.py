"""Identities and certificates: the node's certificate registry."""

from __future__ import annotations

from typing import Any

from ... import ast as A
from ...ops import (
    describe,
    type_error,
)
from ...runtime import (
    Frame,
)
from ...values import (
    Address,
    MappingValue,
)
from ..base import CERT_MAPPING, CExpr, CompilerBase


class IdentityBuiltins(CompilerBase):
    """Identities and certificates: the node's certificate registry."""

    def b_getUserCert(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != 1:
            self.error("getUserCert takes one account", e)
        f, _ = self.expr(args[0])

        def get_cert(fr: Frame) -> Any:
            a = f(fr)
            if not isinstance(a, Address):
                raise type_error(f"getUserCert needs an account, got {describe(a)}")
            cert = fr.ctx.world.identities.get(a.value) or {}
            m = MappingValue(CERT_MAPPING, cert)
            return m

        return get_cert, CERT_MAPPING
