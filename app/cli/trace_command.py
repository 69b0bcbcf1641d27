"""``python -m app trace HASH`` (``stratoscope trace``): print one transaction's call trace.

Signed in as ``python -m app test`` signs in (node_access.py). One line per call frame, indented
by depth as Foundry prints its traces: ``[steps] Contract(address)::function(args)``, then the
frame's calls, events and storage writes in the order they happened, then ``← [Return] values``
or ``← [Fail] message at Contract:line:column``. Colours only on a terminal (``--color``).
Exit 0 when printed, 1 when the node has no trace to show (it keeps none: a STRATO node; the
transaction is unknown; or no trace was kept for it), 2 when the node cannot be used.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from app.client.errors import StratoError
from app.client.http import StratoClient
from app.client.traces import TraceUnavailable, render_trace

from .node_access import AccessError, SignIn, sign_in, terminal_prompt

EXIT_OK, EXIT_NO_TRACE, EXIT_ERROR = 0, 1, 2
DEFAULT_NODE = "http://127.0.0.1:8080"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stratoscope trace",
        description="Print the call trace a Stratoscope sandbox node recorded for a transaction.",
    )
    p.add_argument("hash", metavar="HASH", help="the transaction's hash (64 hex digits)")
    p.add_argument(
        "--node",
        metavar="URL",
        default=os.environ.get("STRATOSCOPE_NODE", DEFAULT_NODE),
        help=f"the node (default $STRATOSCOPE_NODE or {DEFAULT_NODE})",
    )
    p.add_argument(
        "--user", metavar="NAME", help="sign in as this user (on a sandbox: default alice)"
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colours: on a terminal only (auto, the default), always or never",
    )
    return p


def use_colour(choice: str, out: TextIO) -> bool:
    if choice != "auto":
        return choice == "always"
    return out.isatty() and not os.environ.get("NO_COLOR")


async def print_trace(client: StratoClient, tx_hash: str, out: TextIO, colour: bool) -> None:
    """The trace of ``tx_hash`` on ``out`` (raises TraceUnavailable when there is none)."""
    tree = await client.trace(tx_hash)
    for line in render_trace(tree, colour):
        print(line, file=out)


async def _run(opts: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    client = StratoClient(opts.node)
    session: SignIn | None = None
    try:
        session = await sign_in(client, opts.user, ask=terminal_prompt())
        client.set_token_provider(session.oidc.access_token)
        await print_trace(client, opts.hash, out, use_colour(opts.color, out))
    except TraceUnavailable as exc:
        print(f"stratoscope trace: {exc.message}", file=err)
        return EXIT_NO_TRACE
    except (AccessError, StratoError) as exc:
        print(f"stratoscope trace: {exc}", file=err)
        return EXIT_ERROR
    finally:
        if session is not None:
            await session.aclose()
        await client.aclose()
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    opts = parser().parse_args(argv)
    h = opts.hash.lower().removeprefix("0x")
    if len(h) != 64 or any(c not in "0123456789abcdef" for c in h):
        print("stratoscope trace: HASH must be 64 hex digits", file=sys.stderr)
        return EXIT_ERROR
    opts.hash = h
    try:
        return asyncio.run(_run(opts, sys.stdout, sys.stderr))
    except KeyboardInterrupt:
        print("stratoscope trace: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
