"""Errors raised by SolidVM: parse/compile errors (with source positions) and execution errors.

Execution errors carry a ``kind`` (a stable machine-readable tag) and a ``message`` that the node
puts into ``txResult.message``; the texts follow the real platform where it has one.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any, TypeVar

Where = tuple[str, int, int]
"""Where a failure happened: the contract whose code ran, and the line and column (from 1) of
the innermost statement, in the text the contract was compiled from."""


class SolidVMError(Exception):
    """Base of every error SolidVM raises on purpose."""

    kind: str = "error"
    where: Where | None = None  # set by the innermost statement it passes through

    def __init__(self, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if kind is not None:
            self.kind = kind

    def __str__(self) -> str:
        return self.message


E = TypeVar("E", bound=SolidVMError)


def note_where(exc: BaseException, where: Where) -> None:
    """Record ``where`` on a failure unless a statement nearer to it already did.

    Compiled blocks call this only on their way out of a failure, so a run that succeeds pays
    nothing for positions (a ``try`` costs nothing in Python 3.11 until something is raised).
    """
    if getattr(exc, "where", None) is None:
        with suppress(AttributeError):  # an exception type without a __dict__
            exc.where = where  # type: ignore[attr-defined]


def where_of(exc: BaseException) -> Where | None:
    w = getattr(exc, "where", None)
    return w if isinstance(w, tuple) else None


def located(err: E, cause: BaseException) -> E:
    """``err``, standing for the Python failure ``cause``, at the place ``cause`` happened."""
    err.where = where_of(cause)
    return err


class ParseError(SolidVMError):
    """Malformed source. The message always contains ``line N, column M``."""

    kind = "parse error"

    def __init__(self, message: str, line: int, column: int) -> None:
        self.line = line
        self.column = column
        self.detail = message
        super().__init__(f"line {line}, column {column}: {message}")


class CompileError(ParseError):
    """Well-formed source that the compiler rejects (unknown names, bad event arity, ...)."""

    kind = "compile error"


class ExecutionError(SolidVMError):
    """A contract failed while running; the state is rolled back by the caller."""

    kind = "execution error"
    reason: str | None = None  # a require's own message, which `catch Error(string)` receives


class ArgumentError(ExecutionError):
    """JSON arguments that do not fit the declared parameter types."""

    kind = "type error"


def require_failed(msg: str | None) -> ExecutionError:
    text = "solidity require failed" if msg is None else f"solidity require failed: {msg}"
    err = ExecutionError(text, "require")
    err.reason = msg
    return err


def assert_failed() -> ExecutionError:
    return ExecutionError("solidity assert failed", "assert")


def reverted(msg: str | None) -> ExecutionError:
    return ExecutionError("revert" if msg is None else f"revert: {msg}", "revert")


class CustomError(ExecutionError):
    """``revert E(args)`` / ``throw E(args)`` of a declared custom error; a catch clause of the
    same name receives ``values`` (the runtime values, in declaration order)."""

    kind = "custom error"

    def __init__(self, message: str, name: str, values: list[Any]) -> None:
        super().__init__(message)
        self.name = name
        self.values = values
