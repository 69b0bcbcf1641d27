"""The step debugger's compile mode: the same source compiled with a hook around every statement.

The ordinary compile stays as it is (nothing is added to its closures, so normal execution pays
nothing). :func:`compile_debug` compiles a source a second time with :class:`DebugFunctionCompiler`,
which wraps each statement in a closure that reports its position to the tracer of the running
thread (:data:`ACTIVE`), and each function and modifier body in one that reports entry and exit.
Outside a debug session's thread the tracer is None and the wrappers only run the statement.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..solidvm import ast as A
from ..solidvm.abi import contract_xabi
from ..solidvm.compile import CompiledUnit, code_collection, join_sources
from ..solidvm.compiler.base import LocalVar
from ..solidvm.compiler.function import FunctionCompiler
from ..solidvm.compiler.trycatch import catches
from ..solidvm.compiler.unit import UnitCompiler
from ..solidvm.errors import ParseError
from ..solidvm.parser import parse
from ..solidvm.runtime import Fn, Frame

if TYPE_CHECKING:
    from ..solidvm.defs import ContractDef, ModifierDef


class StmtInfo:
    """What the compiler knows of one statement: where it is and which locals it can see."""

    __slots__ = ("column", "contract", "fc", "function", "line", "locals")

    def __init__(
        self,
        line: int,
        column: int,
        contract: str,
        function: str,
        local_vars: dict[str, LocalVar],
        fc: FunctionCompiler,
    ) -> None:
        self.line = line
        self.column = column
        self.contract = contract  # the contract (or library) the statement is written in
        self.function = function
        self.locals = local_vars  # name -> slot and type, innermost declaration winning
        self.fc = fc  # compiles watch and evaluate expressions in this statement's scope


class Tracer(Protocol):
    """What a debug session does at the hooks (all on the thread that runs the code)."""

    def on_stmt(self, fr: Frame, info: StmtInfo) -> None: ...
    def on_fail(self, fr: Frame, info: StmtInfo, exc: BaseException) -> None: ...
    def enter(self, fr: Frame, label: str, kind: str) -> None: ...
    def leave(self, fr: Frame) -> None: ...
    def guard(self, catcher: Callable[[BaseException], bool] | None) -> None: ...


class _Active(threading.local):
    tracer: Tracer | None = None


ACTIVE = _Active()
"""The tracer of the current thread: set by a debug session's thread while it runs."""


def _entered(body: Fn, label: str, kind: str) -> Fn:
    def run(fr: Frame) -> Any:
        t = ACTIVE.tracer
        if t is None:
            return body(fr)
        t.enter(fr, label, kind)
        try:
            return body(fr)
        finally:
            t.leave(fr)

    return run


class DebugFunctionCompiler(FunctionCompiler):
    """A function compiler whose statements and bodies call the thread's tracer."""

    def label(self) -> str:
        fn = self.fn
        if fn is not None:
            name = fn.name or "constructor"
            return f"{self.c.name}.{name}"
        return self.c.name

    def stmt(self, s: A.Stmt) -> Fn:
        if isinstance(s, A.Block) or self.in_for_init:
            # a `for`'s init runs as part of the `for` statement: one stop there, not two
            return super().stmt(s)
        visible: dict[str, LocalVar] = {}
        for scope in self.scopes:
            visible.update(scope)
        info = StmtInfo(s.pos[0], s.pos[1], self.c.name, self.label(), visible, self)
        f = super().stmt(s)

        def run_traced(fr: Frame) -> Any:
            t = ACTIVE.tracer
            if t is None:
                return f(fr)
            t.on_stmt(fr, info)
            try:
                return f(fr)
            except Exception as exc:
                t.on_fail(fr, info, exc)
                raise

        return run_traced

    def guarded(self, f: Fn, s: A.Try) -> Fn:
        """While the guarded part of a ``try`` runs, the tracer knows what its clauses catch
        (pause on failure stops only on a failure no ``try`` up the stack catches)."""

        def catcher(exc: BaseException) -> bool:
            return catches(s, exc)

        def run_guarded(fr: Frame) -> Any:
            t = ACTIVE.tracer
            if t is None:
                return f(fr)
            t.guard(catcher)
            try:
                return f(fr)
            finally:
                t.guard(None)

        return run_guarded

    def compile_function(self, d: A.FunctionDecl, base_names: set[str]) -> None:
        super().compile_function(d, base_names)
        fn = self.fn
        assert fn is not None
        fn.body = _entered(fn.body, self.label(), "function")


class DebugUnitCompiler(UnitCompiler):
    """A unit compiler using :class:`DebugFunctionCompiler`; modifier bodies report entry too."""

    function_compiler = DebugFunctionCompiler

    def compile_modifier(self, c: ContractDef, m: ModifierDef) -> None:
        super().compile_modifier(c, m)
        assert m.body is not None
        m.body = _entered(m.body, f"{c.name}.{m.name} (modifier)", "modifier")


class DebugUnit:
    """A source compiled for debugging, with the compiler kept for evaluating expressions."""

    def __init__(self, unit: CompiledUnit, compiler: DebugUnitCompiler) -> None:
        self.unit = unit
        self.compiler = compiler

    @property
    def contracts(self) -> dict[str, ContractDef]:
        return self.unit.contracts


def compile_debug(src: str | dict[str, str], *, test_clock: bool = False) -> DebugUnit:
    """Compile ``src`` (one text, or ``{file: text}``) in debug mode. Raises ParseError or
    CompileError as :func:`compile_source` does."""
    if isinstance(src, str):
        src = code_collection(src)  # type: ignore[assignment]
    text = join_sources(src)
    try:
        tree = parse(text, "SolidVM")
        uc = DebugUnitCompiler(tree, text, "SolidVM", test_clock, True)
        contracts = uc.compile()
    except RecursionError:
        raise ParseError("source nests too deeply", 1, 1) from None
    unit = CompiledUnit(text, "SolidVM", contracts)
    for c in contracts.values():
        c.unit = unit
        c.xabi = contract_xabi(c)
    return DebugUnit(unit, uc)
