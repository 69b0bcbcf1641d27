"""Stratoscope launcher (``python -m app``, ``stratoscope``).

The desktop window arrives with the GUI milestone. Until then the launcher says so and runs a
short tour of what already works: the sandbox node's contract engine on the sample contracts.
"""

from __future__ import annotations

import sys

from . import __version__

INTRO = f"""Stratoscope {__version__}: a desktop explorer and wallet for STRATO, the BlockApps
blockchain platform, with a built-in sandbox node that needs no network.

This build has the heart of that sandbox node: SolidVM, the engine that runs STRATO
contracts from their Solidity source. The desktop window comes in a later release;
below, SolidVM runs the sample contracts from resources/contracts.
"""

OUTRO = """
Next steps:
  stratoscope-node check FILE.sol   compile your own contract and list its functions
  make test                         run the whole test suite
  make bench                        measure SolidVM's speed on this machine
"""


def main() -> int:
    from .node.tour import run_tour

    print(INTRO)
    status = run_tour()
    print(OUTRO)
    return status


if __name__ == "__main__":
    sys.exit(main())
