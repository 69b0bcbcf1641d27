"""How the app starts its sandbox node as a child process (shared by the GUI's supervisor and the
``python -m app test`` command line; no Qt here)."""

from __future__ import annotations

import sys


def node_command() -> list[str]:
    """The program and first arguments of the sandbox node's command line: ``python -m app.node``,
    or in a frozen bundle (PyInstaller sets ``sys.frozen``), which has no ``python -m``, the app's
    own executable with ``--node`` (see app/__main__.py)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--node"]
    return [sys.executable, "-m", "app.node"]
