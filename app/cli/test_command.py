"""``python -m app test`` (``stratoscope test``): run the ``Describe_`` tests of SolidVM files.

Without ``--node`` the tests run on a temporary embedded sandbox (started with ``--test-clock``,
removed afterwards); with ``--node URL`` on that node, signed in as the app would. One line per test
(``PASS``/``FAIL``, the test's id; a failure adds where and why), the last line exactly ``N passed,
M failed`` (``-v`` prints each failing test's call trace before it). Exit 0 when all passed, 1 when
some failed, 2 when the tests could not run (a compile error as ``file:line:col: message``, an
unreachable node, no tests found).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import re
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from app.client.errors import StratoError
from app.client.http import StratoClient
from app.client.test_junit import write_junit
from app.client.test_runner import (
    CompileFailure,
    Discovered,
    RunEvent,
    RunReport,
    TestFinished,
    TestOutcome,
    TestRunner,
)
from app.client.traces import NO_ROUTE, TraceUnavailable, render_trace

from .node_access import AccessError, SignIn, TemporarySandbox, sign_in, terminal_prompt
from .trace_command import use_colour

EXIT_PASSED, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stratoscope test",
        description="Run the Describe_ contract tests of SolidVM files (the convention of the "
        "platform's solid-vm-cli test) on a temporary sandbox node or on any STRATO node.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="a .sol file or a folder of them")
    p.add_argument(
        "--node",
        metavar="URL",
        help="run on this node (default: a temporary embedded sandbox with a test clock)",
    )
    p.add_argument(
        "--user",
        metavar="NAME",
        help="sign in as this user (on a sandbox: a demo user; default alice)",
    )
    p.add_argument(
        "--only", metavar="REGEX", help="run only the tests whose Describe_X.it_y id matches"
    )
    p.add_argument(
        "--runs",
        type=int,
        default=100,
        metavar="N",
        help="generated argument vectors per property test (default 100)",
    )
    p.add_argument(
        "--seed", type=int, default=0, metavar="N", help="seed of the generated arguments"
    )
    p.add_argument("--junit", metavar="FILE", type=Path, help="also write JUnit XML here")
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print the call trace of each failing test (on a node that keeps traces)",
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colours of the traces: on a terminal only (auto), always or never",
    )
    return p


def outcome_line(o: TestOutcome) -> str:
    if o.passed:
        return f"PASS {o.case.id}"
    where = f"  {o.location}" if o.location else ""
    message = " ".join(o.message.split()) if o.message else "failed"
    return f"FAIL {o.case.id}{where}  {message}"


class Printer:
    """Prints each finished test as it comes, compile failures on stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self.discovered = 0

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, Discovered):
            self.discovered = len(event.cases)
        elif isinstance(event, TestFinished):
            print(outcome_line(event.outcome), file=self.out, flush=True)
        elif isinstance(event, CompileFailure):
            print(str(event), file=self.err, flush=True)


async def _run(opts: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    sandbox: TemporarySandbox | None = None
    session: SignIn | None = None
    client: StratoClient | None = None
    paths = [Path(p) for p in opts.paths]
    printer = Printer(out, err)
    try:
        if opts.node:
            url = opts.node
        else:
            sandbox = TemporarySandbox()
            url = await sandbox.start()
        client = StratoClient(url)
        session = await sign_in(client, opts.user, ask=None if sandbox else terminal_prompt())
        client.set_token_provider(session.oidc.access_token)
        runner = TestRunner(client, runs=opts.runs, only=opts.only, seed=opts.seed)
        report = await runner.run(paths, on_event=printer)
        if opts.verbose:
            await print_failing_traces(client, report, out, use_colour(opts.color, out))
    except (AccessError, StratoError) as exc:
        print(f"stratoscope test: {exc}", file=err)
        return EXIT_ERROR
    finally:
        if session is not None:
            await session.aclose()
        if client is not None:
            await client.aclose()
        if sandbox is not None:
            await sandbox.stop()
    return finish(opts, report, printer, out, err)


async def print_failing_traces(
    client: StratoClient, report: RunReport, out: TextIO, colour: bool
) -> None:
    """``-v``: the trace of each failing test's failed transaction (else its last one), before
    the summary line; one note when the node keeps no traces."""
    for o in report.outcomes:
        if o.passed or not o.tx_hashes:
            continue
        print(f"Trace of {o.case.id}:", file=out)
        chosen: dict[str, Any] | None = None
        try:
            for h in reversed(o.tx_hashes):
                tree = await client.trace(h)
                if chosen is None or tree["root"].get("status") == "failed":
                    chosen = tree
                if tree["root"].get("status") == "failed":
                    break
        except TraceUnavailable as exc:
            if exc.reason == NO_ROUTE:
                print(f"  ({exc.message})", file=out, flush=True)
                return
            if chosen is None:
                print(f"  ({exc.message})", file=out, flush=True)
                continue
        if chosen is not None:
            for line in render_trace(chosen, colour, indent="  "):
                print(line, file=out)
        out.flush()


def finish(
    opts: argparse.Namespace, report: RunReport, printer: Printer, out: TextIO, err: TextIO
) -> int:
    if not report.outcomes and not report.failures:
        what = "no tests match --only" if printer.discovered and opts.only else "no tests found"
        print(f"stratoscope test: {what} in {' '.join(opts.paths)}", file=err)
        code = EXIT_ERROR
    else:
        print(f"{report.passed} passed, {report.failed} failed", file=out, flush=True)
        code = EXIT_ERROR if report.failures else EXIT_PASSED if report.ok else EXIT_FAILED
    if opts.junit is not None:
        try:
            write_junit(opts.junit, report)
        except OSError as exc:
            print(f"stratoscope test: cannot write {opts.junit}: {exc.strerror}", file=err)
            return EXIT_ERROR
    return code


def _check(opts: argparse.Namespace, err: TextIO) -> bool:
    if opts.only:
        try:
            re.compile(opts.only)
        except re.error as exc:
            print(f"stratoscope test: --only is not a regular expression: {exc}", file=err)
            return False
    if opts.runs < 1:
        print("stratoscope test: --runs must be at least 1", file=err)
        return False
    missing = [p for p in opts.paths if not Path(p).exists()]
    if missing:
        print(f"stratoscope test: no such file or folder: {', '.join(missing)}", file=err)
        return False
    return True


async def _main(opts: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    if task is not None:
        with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows' loop has none
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
    return await _run(opts, out, err)


def main(argv: Sequence[str] | None = None) -> int:
    opts = parser().parse_args(argv)
    for stream in (sys.stdout, sys.stderr):  # a shrunk string may hold any character
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    out, err = sys.stdout, sys.stderr
    if not _check(opts, err):
        return EXIT_ERROR
    try:
        return asyncio.run(_main(opts, out, err))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("stratoscope test: interrupted", file=err)
        return 130
    except BrokenPipeError:  # `... | head`: the reader left; say nothing more
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
