"""SolidVM: the sandbox node's interpreter for the SolidVM dialect of Solidity.

``compile_source`` parses and compiles source text once; a :class:`World` runs deployments and
calls of the compiled contracts. See ``docs/solidvm.md`` for the encodings and error texts.
"""

from __future__ import annotations

from ..native import use_compiled

use_compiled(__name__, __path__)  # before any module of the package is imported (native.py)

from .compile import VMS, CompiledUnit, compile_source, join_sources  # noqa: E402
from .defs import CompiledFunction, ContractDef  # noqa: E402
from .errors import (  # noqa: E402
    ArgumentError,
    CompileError,
    ExecutionError,
    ParseError,
    SolidVMError,
)
from .world import AccountState, EventLog, ExecResult, TxEnv, World, contract_address  # noqa: E402

__all__ = [
    "VMS",
    "AccountState",
    "ArgumentError",
    "CompileError",
    "CompiledFunction",
    "CompiledUnit",
    "ContractDef",
    "EventLog",
    "ExecResult",
    "ExecutionError",
    "ParseError",
    "SolidVMError",
    "TxEnv",
    "World",
    "check_imports",
    "compile_source",
    "contract_address",
    "join_sources",
]
