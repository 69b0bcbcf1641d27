"""Shared constants and helpers for the SolidVM test corpus.

The engine is imported lazily so that the corpus can be collected while the engine is still being
written; every helper goes through the public API documented in ``docs/solidvm.md``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ALICE = "a1" * 20
BOB = "b2" * 20
CAROL = "c3" * 20
DAVE = "d4" * 20  # registered, but with no organization
NOBODY = "e5" * 20  # no identity at all
ZERO = "0" * 40

IDENTITIES: dict[str, dict[str, str]] = {
    ALICE: {"commonName": "alice", "organization": "Acme", "organizationalUnit": "Engineering"},
    BOB: {"commonName": "bob", "organization": "Globex", "organizationalUnit": "Logistics"},
    CAROL: {"commonName": "carol", "organization": "Acme", "organizationalUnit": "Sales"},
    DAVE: {"commonName": "dave", "organization": "", "organizationalUnit": ""},
}

TIMESTAMP = 1_700_000_000
BLOCK_NUMBER = 42

CONTRACTS_DIR = Path(__file__).resolve().parents[3] / "resources" / "contracts"


def compile_src(src: str | dict[str, str], vm: str = "SolidVM") -> Any:
    """``compile_source`` of the engine (imported on first use)."""
    from app.node.solidvm import compile_source

    return compile_source(src, vm=vm)


def make_env(sender: str, block_number: int = BLOCK_NUMBER, timestamp: int = TIMESTAMP) -> Any:
    from app.node.solidvm import TxEnv

    return TxEnv(sender=sender, block_number=block_number, timestamp=timestamp)


def load_contract(filename: str) -> str:
    return (CONTRACTS_DIR / filename).read_text(encoding="utf-8")


def decode(value: Any) -> Any:
    """One call-result element; JSON text of an array or struct is decoded to Python."""
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def values(res: Any) -> list[Any]:
    """The call's return values, arrays and structs as Python lists and dicts."""
    return [decode(v) for v in res.values]


def event_args(event: Any) -> list[Any]:
    """Argument values of an EventLog as a list of strings in declaration order.

    ``EventLog.args`` may be a list of values, a list of ``(name, value)`` pairs or a dict.
    """
    args = event.args
    if isinstance(args, dict):
        return list(args.values())
    return [a[1] if isinstance(a, tuple | list) and len(a) == 2 else a for a in args]


def event_arg_names(event: Any) -> list[str]:
    """Argument names of an EventLog (when the engine records them)."""
    args = event.args
    if isinstance(args, dict):
        return list(args)
    return [str(a[0]) for a in args if isinstance(a, tuple | list) and len(a) == 2]


def events(res: Any) -> list[tuple[str, list[Any]]]:
    """``[(event name, [args...]), ...]`` of a call result."""
    return [(e.name, event_args(e)) for e in res.events]


def c(body: str, name: str = "C") -> str:
    """Wrap contract members in ``contract <name> { ... }``."""
    return f"contract {name} {{\n{body}\n}}\n"
