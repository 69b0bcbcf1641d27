"""The sandbox node: a STRATO-compatible server (``python -m app.node``)."""

from .native import use_compiled

use_compiled(__name__, __path__)  # before any module of the package is imported (native.py)
