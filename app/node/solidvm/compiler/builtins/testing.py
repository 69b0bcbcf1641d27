"""Builtins of the platform's test runner: ``fastForward`` moves the contracts' clock ahead."""

from __future__ import annotations

from typing import Any

from ... import ast as A
from ...errors import ExecutionError
from ...ops import check_int, type_error
from ...runtime import Frame, jset_dict
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
            n = check_int(secs(fr))
            if n < 0:
                raise type_error("fastForward cannot move the clock backwards")
            world = fr.ctx.world
            if not world.test_clock:
                raise ExecutionError(
                    f"invalid arguments: fastForward can only be called during testing ({n})",
                    "invalid arguments",
                )
            jset_dict(fr, world.clock, "offset", world.clock["offset"] + n)
            fr.ctx.timestamp += n
            return None

        return fast_forward, None
