"""Recursive-descent parser: tokens -> :mod:`ast` nodes.

Errors are :class:`ParseError` with ``line N, column M`` of the offending token. Nesting depth is
capped so that hostile input gets a parse error instead of exhausting the Python stack. The
grammar is split by concern: ``declarations``, ``statements``, ``expressions``; ``base`` holds the
token cursor.
"""

from __future__ import annotations

from .. import ast as A
from .base import RESERVED_WORDS, is_elementary
from .declarations import DeclarationsMixin
from .expressions import ExpressionsMixin
from .statements import StatementsMixin


class Parser(DeclarationsMixin, StatementsMixin, ExpressionsMixin):
    """The whole grammar."""


def parse(src: str, vm: str = "SolidVM") -> A.SourceUnit:
    """Parse a whole source unit (EVM sources are Solidity, where `record` is a plain name)."""
    return Parser(src, RESERVED_WORDS if vm == "SolidVM" else frozenset()).parse_unit()


__all__ = ["Parser", "is_elementary", "parse"]
