"""Builtins of the platform's test runner: ``fastForward`` moves the test clock ahead."""

from __future__ import annotations

from typing import Any

from ... import ast as A
from ...errors import ExecutionError
from ...ops import check_int
from ...runtime import Frame
from ..base import CExpr, CompilerBase


class TestingBuiltins(CompilerBase):
    """``fastForward(seconds)``: declared only when the unit is compiled with ``test_clock``."""

    def b_fastForward(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if not self.uc.test_clock:
            self.error(
                "undeclared function 'fastForward' (it exists only on a node started with "
                "--test-clock, as in the platform's test runner)",
                e,
            )
        if len(args) != 1:
            self.error("fastForward takes one argument: the number of seconds", e)
        secs, t = self.expr(args[0])
        self.expect_int(t, args[0])

        def fast_forward(fr: Frame) -> Any:
            n = check_int(secs(fr))  # negative moves it back, as on the platform
            world = fr.ctx.world
            if not world.test_clock:
                raise ExecutionError(
                    f"invalid arguments: fastForward can only be called during testing ({n})",
                    "invalid arguments",
                )
            # as the platform: the running transaction's block time moves (not journaled: a
            # revert or a caught failure leaves it moved); World keeps it for the contract
            fr.ctx.timestamp += n
            return None

        return fast_forward, None
