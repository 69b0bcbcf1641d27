"""Cirrus: indexed, read-only SQL-like access to contract state, events and history."""

from ..native import use_compiled

use_compiled(__name__, __path__)  # before any module of the package is imported (native.py)
