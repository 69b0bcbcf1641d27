"""Entry script of the frozen app (PyInstaller needs a script, and app/__main__.py uses relative
imports): the same ``main`` as ``python -m app`` and the ``stratoscope`` console script."""

import sys

from app.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
