"""Errors raised by SolidVM: parse/compile errors (with source positions) and execution errors.

Execution errors carry a ``kind`` (a stable machine-readable tag) and a ``message`` that the node
puts into ``txResult.message``; the texts follow the real platform where it has one.
"""

from __future__ import annotations

from typing import Any


class SolidVMError(Exception):
    """Base of every error SolidVM raises on purpose."""

    kind: str = "error"

    def __init__(self, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if kind is not None:
            self.kind = kind

    def __str__(self) -> str:
        return self.message


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
