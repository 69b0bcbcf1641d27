"""Compiler: syntax tree -> contract definitions whose function bodies are Python closures.

Each expression compiles to ``fn(frame) -> value`` together with its static type when known; each
statement to ``fn(frame) -> signal``. Names are resolved once, here: locals become list slots,
state variables dictionary keys, internal calls vtable keys. Running a call then only executes
closures, which is several times faster than walking the tree on every call.

``unit`` handles declarations and inheritance; ``function`` combines the mixins that compile
bodies: ``statements``, ``expressions``, ``assignment``, ``calls`` and ``builtins/``.
"""

from __future__ import annotations

from .unit import UnitCompiler

__all__ = ["UnitCompiler"]
