"""Stratoscope launcher (``python -m app``, ``stratoscope``): the desktop window.

``--tour`` instead prints a guided tour of the sandbox's contract engine on the sample contracts
(no window, no display needed).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--tour" in args:
        from .node.tour import run_tour

        return run_tour()
    from .ui.app import main as gui_main

    return gui_main(args)


if __name__ == "__main__":
    sys.exit(main())
