"""The platform's ``Describe_`` contract tests, run over the HTTP API of any STRATO node.

The convention is ``solid-vm-cli test``'s: every contract whose name starts with ``Describe_``
and whose constructor takes no arguments is deployed; ``beforeAll`` runs once; then for each
function in source order named ``it_*`` (unit) or ``property_*`` (property: generated arguments)
``beforeEach``, the test and ``afterEach`` run; ``afterAll`` ends the contract. State is shared
across one contract's tests. A test passes when it neither reverts nor returns ``false``.

Pure async, no Qt: the command line (``python -m app test``) and the GUI's Tests view share it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .http import StratoClient

__all__ = [
    "CompileFailure",
    "Discovered",
    "RunEvent",
    "RunReport",
    "TestCase",
    "TestFinished",
    "TestOutcome",
    "TestRunner",
    "TestStarted",
    "discover",
]


@dataclass(frozen=True)
class TestCase:
    """One ``it_*`` or ``property_*`` function of a ``Describe_`` contract."""

    __test__ = False  # not a pytest class

    file: str  # the .sol file that holds the Describe_ contract (as given/resolved)
    contract: str  # "Describe_Counter"
    name: str  # "it_increments" or "property_adds"
    kind: str  # "unit" | "property"
    line: int  # 1-based line of the function's declaration in `file`

    @property
    def id(self) -> str:
        return f"{self.contract}.{self.name}"


@dataclass(frozen=True)
class CompileFailure:
    """The tests of a file cannot run: a bundling or compile error at ``file:line:column``."""

    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.column}: {self.message}"
        return f"{self.file}: {self.message}"


@dataclass
class TestOutcome:
    """How one test went."""

    __test__ = False

    case: TestCase
    passed: bool
    message: str = ""  # revert message, "returned false", hook failure ...
    location: str | None = None  # "file:line" where the node reports one
    tx_hashes: tuple[str, ...] = ()  # transactions this test sent
    vector: list[Any] | None = None  # a property test's failing argument vector
    seconds: float = 0.0


@dataclass(frozen=True)
class TestStarted:
    __test__ = False

    case: TestCase


@dataclass(frozen=True)
class TestFinished:
    __test__ = False

    outcome: TestOutcome


@dataclass(frozen=True)
class Discovered:
    cases: tuple[TestCase, ...]


RunEvent = Discovered | TestStarted | TestFinished | CompileFailure


@dataclass
class RunReport:
    """Every outcome and compile failure of one run."""

    outcomes: list[TestOutcome] = field(default_factory=list)
    failures: list[CompileFailure] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(1 for o in self.outcomes if o.passed)

    @property
    def failed(self) -> int:
        return sum(1 for o in self.outcomes if not o.passed)

    @property
    def ok(self) -> bool:
        return not self.failures and self.failed == 0


def discover(
    paths: Sequence[Path], sources: Mapping[str, str] | None = None
) -> tuple[list[TestCase], list[CompileFailure]]:
    """The test cases of ``paths`` (files or folders), without the network; ``sources``
    overrides file contents (unsaved editor buffers), keyed by absolute path."""
    from .test_discovery import discover as _discover

    return _discover(paths, sources)


class TestRunner:
    """Runs the ``Describe_`` tests of some files on one node, as the client's identity."""

    __test__ = False

    def __init__(
        self,
        client: StratoClient,
        *,
        runs: int = 100,
        only: str | None = None,
        seed: int = 0,
        chain_id: str | None = None,
    ) -> None:
        self.client = client
        self.runs = runs
        self.only = only
        self.seed = seed
        self.chain_id = chain_id

    async def run(
        self,
        paths: Sequence[Path],
        *,
        select: Collection[str] | None = None,
        sources: Mapping[str, str] | None = None,
        on_event: Callable[[RunEvent], None] | None = None,
    ) -> RunReport:
        """Run the tests of ``paths`` (``select``: test ids to run, None = all; ``only`` of the
        runner filters them further). ``sources`` overrides file contents by absolute path.

        Events, in order: one ``Discovered`` with every case found in ``paths`` (before
        ``select``/``only``); a ``CompileFailure`` for each file that cannot run (its tests get
        no outcome); ``TestStarted`` then ``TestFinished`` for each test that runs (the tests
        of one batch start together). Node errors (unreachable, refused) raise StratoError.
        Cancellable: ``asyncio.CancelledError`` propagates (nothing is written to disk)."""
        from .test_execution import execute

        return await execute(self, paths, select=select, sources=sources, on_event=on_event)
