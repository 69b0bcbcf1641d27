"""Stratoscope launcher (``python -m app``, ``stratoscope``): the desktop window.

``test PATH...`` runs the ``Describe_`` contract tests of SolidVM files (app/cli/test_command.py,
no window); ``trace HASH`` prints a transaction's call trace (app/cli/trace_command.py).
``debug-adapter`` speaks the Debug Adapter Protocol on stdio (app/cli/debug_adapter.py, for VS
Code and other editors). ``--tour`` instead prints a guided tour of the sandbox's contract engine
on the sample contracts (no window, no display needed). ``--node ARGS...`` runs the sandbox
node's command line (``python -m app.node ARGS...``): a frozen bundle has no ``python -m``, so the
app starts its embedded node as ``stratoscope --node serve ...``.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--node"]:
        from .node.__main__ import main as node_main

        return node_main(args[1:])
    if args[:1] == ["test"]:
        from .cli.test_command import main as test_main

        return test_main(args[1:])
    if args[:1] == ["trace"]:
        from .cli.trace_command import main as trace_main

        return trace_main(args[1:])
    if args[:1] == ["debug-adapter"]:
        from .cli.debug_adapter import main as adapter_main

        return adapter_main(args[1:])
    if "--tour" in args:
        from .node.tour import run_tour

        return run_tour()
    from .ui.shell.app import main as gui_main

    return gui_main(args)


if __name__ == "__main__":
    sys.exit(main())
