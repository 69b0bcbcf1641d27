"""Running discovered ``Describe_`` tests on a node, through its HTTP API only.

Per file: bundle its imports into one source (:mod:`.bundler`), ask the node's xabi for the
compiled shape (a compile error comes back as ``line N, column M`` and is mapped to the file it
is in), deploy every ``Describe_`` contract of the file in one POST, then send the hook and test
calls in batches: the node takes a list of transactions and, with ``resolve=true``, answers each
in order; one failing transaction does not stop the ones after it. That keeps a file to a handful
of round trips. A property test sends its generated vectors in chunks and stops at the first
failing one, then shrinks it.

Deviations from ``solid-vm-cli test``, where it stays silent: a failing ``beforeEach`` or
``afterEach`` fails its test (the platform ignores them), and a failing ``afterAll`` fails the
contract's last test, so that no failure goes unseen.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import re
import time
import zlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .bundler import Bundle
from .errors import NetworkError, RequestError
from .http import StratoClient
from .models import SourcePosition, TxRequest, TxResult
from .test_discovery import DescribeContract, discover_file, sol_files
from .test_runner import (
    CompileFailure,
    Discovered,
    RunReport,
    TestCase,
    TestFinished,
    TestOutcome,
    TestStarted,
)
from .test_values import Unsupported, arg_specs, as_args, generate, render, shrink

if TYPE_CHECKING:
    from .test_runner import RunEvent, TestRunner

HOOKS = ("beforeAll", "beforeEach", "afterEach", "afterAll")
BATCH_SIZES = (4, 16, 64)  # tests per POST: the first answer comes quickly, later ones in bulk
PROPERTY_CHUNKS = (10, 30, 60)  # generated vectors per POST
SHRINK_BUDGET = 600  # calls at most while shrinking one failure
RESOLVE_TIMEOUT = 120.0
SHRINK_WIDTH = 24  # candidate vectors per POST while shrinking
_LOCATION_RE = re.compile(r"(\S+\.sol):(\d+):(\d+)")


@dataclass
class _Call:
    """One transaction of the plan and what it is for."""

    request: TxRequest
    case: int  # index into the contract's cases; -1 for beforeAll/afterAll
    role: str  # "test", or a hook name


@dataclass(frozen=True)
class _Why:
    """Why a call failed, and where in the files (``file:line``) when the node says."""

    text: str
    where: str | None = None


@dataclass
class _Run:
    """The state of one test while it runs."""

    case: TestCase
    hashes: list[str] = field(default_factory=list)
    message: str = ""
    started: float = 0.0
    where: str | None = None  # the failing statement's file:line, when the node reported it

    def fail(self, why: _Why, prefix: str = "") -> None:
        """Keep the first failure of the test."""
        if not self.message:
            self.message = f"{prefix}{why.text}"
            self.where = why.where


class _FileRun:
    """The tests of one file on one node."""

    def __init__(
        self,
        runner: TestRunner,
        source: Bundle,
        emit: Callable[[RunEvent], None],
        report: RunReport,
    ) -> None:
        self.runner = runner
        self.client = runner.client
        self.bundle = source
        self.emit = emit
        self.report = report
        self.carry: list[str] = []  # beforeAll's hash, for the next property test's record
        self.contracts: set[str] = set()  # every contract of the bundle, from its xabi

    # ---------------------------------------------------------------- plumbing

    async def send(self, requests: list[TxRequest]) -> list[TxResult]:
        # Submit without waiting, then read the results by hash: a batch of heavy tests (each
        # deploying a whole application) can take longer than one HTTP answer may, and a lone
        # failing transaction would be answered 422 with its message only (the platform's way).
        results = await self.client.submit(requests, resolve=False, chain_id=self.runner.chain_id)
        results = await resolved(self.client, results)
        if len(results) != len(requests):
            raise RequestError(
                f"the node answered {len(results)} results for {len(requests)} transactions",
                method="POST",
                url="/transaction",
            )
        return results

    def call(self, address: str, contract: str, method: str, args: Any = None) -> TxRequest:
        return TxRequest.call(
            address, method, args or {}, contract_name=contract, chain_id=self.runner.chain_id
        )

    def failure_text(self, res: TxResult) -> str:
        text = res.message
        if not text or text == "Success!":
            status = res.raw.get("txResult", {}).get("status") if res.raw else None
            if isinstance(status, dict):
                text = str(status.get("details") or "")
        return self.bundle.map_message(text or f"the transaction ended as {res.status}")

    def verdict(self, res: TxResult) -> _Why | None:
        """None when the call passed; else why it failed (and where, when the node says)."""
        if res.status != "Success":
            return _Why(self.failure_text(res), self.place(res.source_position))
        values = res.values
        if values and str(values[0]).lower() == "false":
            return _Why("returned false")
        return None

    def place(self, pos: SourcePosition | None) -> str | None:
        """``file:line`` of a position the node reported, when it is in this bundle: a
        contract of it (the sandbox names the contract; lines are the bundle's), one of its
        files (a file name, lines its own), or no name (a single-text upload)."""
        if pos is None:
            return None
        if pos.name in self.contracts or not pos.name:
            loc = self.bundle.locate(pos.line, pos.column)
            return f"{loc.file}:{loc.line}"
        if any(f.name == pos.name for f in self.bundle.files):
            return f"{pos.name}:{pos.line}"
        return None

    def location(self, run: _Run) -> str:
        if run.where:
            return run.where
        m = _LOCATION_RE.search(run.message)
        return f"{m[1]}:{m[2]}" if m else f"{run.case.file}:{run.case.line}"

    def finish(self, run: _Run, passed: bool, vector: list[Any] | None = None) -> None:
        outcome = TestOutcome(
            case=run.case,
            passed=passed,
            message="" if passed else run.message,
            location=None if passed else self.location(run),
            tx_hashes=tuple(run.hashes),
            vector=vector,
            seconds=round(time.monotonic() - run.started, 6) if run.started else 0.0,
        )
        self.report.outcomes.append(outcome)
        self.emit(TestFinished(outcome))

    def fail_all(self, cases: Sequence[TestCase], message: str, where: str | None = None) -> None:
        for case in cases:
            self.emit(TestStarted(case))
            self.finish(_Run(case, message=message, where=where), passed=False)

    # ---------------------------------------------------------------- one contract

    @staticmethod
    def problem(case: TestCase, func: Mapping[str, Any] | None) -> str | None:
        """The platform's reasons a function cannot be run as a test."""
        if func is None:
            return "not a function of the compiled contract"
        if str(func.get("visibility") or "Public") not in ("Public", "External"):
            return "Test must be a public or external function"
        vals = [v for v in (func.get("vals") or {}).values() if isinstance(v, dict)]
        if vals and not (len(vals) == 1 and vals[0].get("tag") == "Bool"):
            return "Test must return () or (bool)."
        has_args = bool(func.get("args"))
        if case.kind == "unit" and has_args:
            return (
                "Expected unit test to have zero arguments. To write a property test, "
                "prefix the function name with property_."
            )
        if case.kind == "property" and not has_args:
            return (
                "Expected property test to have at least one argument. To write a unit "
                "test, prefix the function name with it_."
            )
        return None

    async def run_contract(
        self, contract: str, address: str, funcs: Mapping[str, Any], cases: list[TestCase]
    ) -> None:
        hooks = {h for h in HOOKS if h in funcs}
        runs = [_Run(c) for c in cases]

        def hook(name: str, case: int) -> list[_Call]:
            if name not in hooks:
                return []
            return [_Call(self.call(address, contract, name), case, name)]

        pending: list[_Call] = hook("beforeAll", -1)
        batch_no = 0
        group: list[int] = []  # cases whose calls are in `pending`
        last = len(cases) - 1
        for i, case in enumerate(cases):
            func = funcs.get(case.name)
            problem = self.problem(case, func if isinstance(func, dict) else None)
            if case.kind == "property" and problem is None:
                if pending:
                    if not await self.flush(pending, group, runs):
                        return
                    pending, group = [], []
                assert isinstance(func, dict)
                tail = hook("afterEach", i) + (hook("afterAll", -1) if i == last else [])
                await self.run_property(address, contract, func, runs[i], hooks, tail)
                continue
            group.append(i)
            if problem is not None:
                runs[i].message = problem
            else:
                pending += hook("beforeEach", i)
                pending.append(_Call(self.call(address, contract, case.name), i, "test"))
                pending += hook("afterEach", i)
            if i == last:
                pending += hook("afterAll", -1)
            size = BATCH_SIZES[min(batch_no, len(BATCH_SIZES) - 1)]
            if len(group) >= size or i == last:
                if not await self.flush(pending, group, runs):
                    return
                pending, group = [], []
                batch_no += 1

    async def flush(self, calls: list[_Call], group: list[int], runs: list[_Run]) -> bool:
        """Send one batch and finish the tests of ``group``; False when ``beforeAll`` failed
        (every test of the contract fails with it and nothing else runs)."""
        for i in group:
            runs[i].started = time.monotonic()
            self.emit(TestStarted(runs[i].case))
        results = await self.send([c.request for c in calls]) if calls else []
        after_all: _Why | None = None
        for call, res in zip(calls, results, strict=True):
            if call.role == "beforeAll":
                why = self.verdict(res)
                if why is not None:
                    message = f"beforeAll failed: {why.text}"
                    for i in group:
                        runs[i].message, runs[i].where = message, why.where
                        runs[i].hashes.append(res.hash)
                        self.finish(runs[i], passed=False)
                    started = {runs[i].case.id for i in group}
                    rest = [r.case for r in runs if r.case.id not in started]
                    self.fail_all(rest, message, why.where)
                    return False
                if group:  # the first test's record shows the contract's setup too
                    runs[group[0]].hashes.append(res.hash)
                else:
                    self.carry.append(res.hash)
                continue
            if call.role == "afterAll":
                after_all = self.verdict(res)
                if group:
                    runs[group[-1]].hashes.append(res.hash)
                continue
            run = runs[call.case]
            run.hashes.append(res.hash)
            why = self.verdict(res)
            if why is not None:
                run.fail(why, "" if call.role == "test" else f"{call.role} failed: ")
        if after_all is not None and group:
            runs[group[-1]].fail(after_all, "afterAll failed: ")
        for i in group:
            self.finish(runs[i], passed=not runs[i].message)
        return True

    # ---------------------------------------------------------------- property tests

    async def run_property(
        self,
        address: str,
        contract: str,
        func: Mapping[str, Any],
        run: _Run,
        hooks: set[str],
        tail: list[_Call],
    ) -> None:
        """``tail``: the afterEach (and, for the contract's last test, afterAll) calls."""
        case = run.case
        run.hashes += self.carry
        self.carry.clear()
        run.started = time.monotonic()
        self.emit(TestStarted(case))
        specs = arg_specs(func)
        seed = zlib.crc32(f"{self.runner.seed}:{case.id}".encode())
        rng = random.Random(seed)
        total = max(1, self.runner.runs)
        try:
            generate(specs, random.Random(0), 0)  # every parameter type can be generated
        except Unsupported as exc:
            run.message = str(exc)
            self.finish(run, passed=False)
            return
        prefix = [self.call(address, contract, "beforeEach")] if "beforeEach" in hooks else []
        failing: tuple[list[Any], _Why] | None = None
        done = 0
        chunk_no = 0
        while done < total and failing is None:
            size = PROPERTY_CHUNKS[min(chunk_no, len(PROPERTY_CHUNKS) - 1)]
            # generated chunk by chunk, in order: the same seed gives the same vectors
            chunk = [generate(specs, rng, n) for n in range(done, min(done + size, total))]
            reqs = [self.call(address, contract, case.name, as_args(specs, v)) for v in chunk]
            results = await self.send(prefix + reqs)
            if prefix:
                run.hashes.append(results[0].hash)
                why = self.verdict(results[0])
                if why is not None:
                    run.fail(why, "beforeEach failed: ")
                results = results[1:]
                prefix = []
            for v, res in zip(chunk, results, strict=True):
                run.hashes.append(res.hash)
                why = self.verdict(res)
                if why is not None:
                    failing = (v, why)
                    break
            done += len(chunk)
            chunk_no += 1
        vector: list[Any] | None = None
        if failing is not None:
            vector, why = await self.shrink(address, contract, specs, run, *failing)
            run.fail(_Why(f"{why.text}; arguments {render(specs, vector)}", why.where))
        if tail:
            for call, res in zip(tail, await self.send([c.request for c in tail]), strict=True):
                run.hashes.append(res.hash)
                why = self.verdict(res)
                if why is not None:
                    run.fail(why, f"{call.role} failed: ")
        self.finish(run, passed=not run.message, vector=vector)

    async def shrink(
        self,
        address: str,
        contract: str,
        specs: list[Any],
        run: _Run,
        vector: list[Any],
        why: _Why,
    ) -> tuple[list[Any], _Why]:
        """A simpler vector that still fails, found greedily (the test's own state may change
        with each try, as it does between the runs)."""
        budget = SHRINK_BUDGET
        while budget > 0:
            found = False
            candidates = shrink(specs, vector)
            while budget > 0 and not found:
                chunk = list(itertools.islice(candidates, min(SHRINK_WIDTH, budget)))
                if not chunk:
                    break
                budget -= len(chunk)
                name = run.case.name
                reqs = [self.call(address, contract, name, as_args(specs, c)) for c in chunk]
                for c, res in zip(chunk, await self.send(reqs), strict=True):
                    run.hashes.append(res.hash)
                    reason = self.verdict(res)
                    if reason is not None:
                        vector, why, found = c, reason, True
                        break
            if not found:
                break
        return vector, why


async def resolved(client: StratoClient, results: list[TxResult]) -> list[TxResult]:
    """``results`` once none is Pending, read by hash, a little later each time. The node runs
    a batch in order, so the wait has no total limit: it ends when no transaction of the batch
    has finished for ``RESOLVE_TIMEOUT`` seconds (one test that long is stuck)."""
    delay = 0.005
    waiting = sum(r.pending for r in results)
    deadline = time.monotonic() + RESOLVE_TIMEOUT
    while waiting:
        await asyncio.sleep(delay)
        got = await client.results([r.hash for r in results])
        if len(got) == len(results):
            results = got
        left = sum(r.pending for r in results)
        if left < waiting:
            waiting, delay = left, 0.005
            deadline = time.monotonic() + RESOLVE_TIMEOUT
        elif time.monotonic() > deadline:
            first = next(r.hash for r in results if r.pending)
            raise NetworkError(
                f"the node did not run transaction {first} in {RESOLVE_TIMEOUT:g} s",
                method="POST",
                url="/bloc/v2.2/transactions/results",
            )
        else:
            delay = min(delay * 2, 0.25)
    return results


def _compile_failure(source: Bundle, exc: RequestError) -> CompileFailure:
    """A node's compile error (``line N, column M: detail``) at its place in the files."""
    text = exc.message
    m = re.search(r"line (\d+), column (\d+):?\s*", text)
    if m is None:
        return CompileFailure(source.root, 0, 0, text)
    loc = source.locate(int(m[1]), int(m[2]))
    detail = (text[: m.start()] + text[m.end() :]).strip() or text
    return CompileFailure(loc.file, loc.line, loc.column, source.map_message(detail))


async def _run_file(
    runner: TestRunner,
    source: Bundle,
    contracts: list[DescribeContract],
    chosen: Callable[[TestCase], bool],
    emit: Callable[[RunEvent], None],
    report: RunReport,
) -> None:
    """``source``: the file bundled at discovery (what its tests were found in)."""
    todo = [(c, [t for t in c.cases if chosen(t)]) for c in contracts]
    todo = [(c, cases) for c, cases in todo if cases]
    if not todo:
        return
    try:
        xabi = await runner.client.xabi(source.source)
    except RequestError as exc:
        if exc.status != 400:
            raise
        failure = _compile_failure(source, exc)
        report.failures.append(failure)
        emit(failure)
        return
    fr = _FileRun(runner, source, emit, report)
    fr.contracts = set(xabi)
    deployable: list[tuple[str, list[TestCase]]] = []
    for c, cases in todo:
        shape = xabi.get(c.name)
        constr = shape.get("constr") if isinstance(shape, dict) else None
        if not isinstance(shape, dict):
            fr.fail_all(cases, f"{c.name} is not in the compiled source")
        elif isinstance(constr, dict) and constr.get("args"):
            fr.fail_all(cases, "Expected constructor to have zero arguments")
        else:
            deployable.append((c.name, cases))
    if not deployable:
        return
    uploads = [
        TxRequest.upload(n, source.source, {}, chain_id=runner.chain_id) for n, _ in deployable
    ]
    created = await fr.send(uploads)
    for (contract, cases), res in zip(deployable, created, strict=True):
        address = res.address or (res.contracts_created[0] if res.contracts_created else None)
        if res.status != "Success" or not address:
            why = f"{contract} constructor failed: {fr.failure_text(res)}"
            fr.fail_all(cases, why, fr.place(res.source_position))
            continue
        funcs = xabi[contract].get("funcs") or {}
        await fr.run_contract(contract, address, funcs, cases)


def _discover_all(
    paths: Sequence[Path], sources: Mapping[str, str] | None
) -> list[tuple[list[DescribeContract], list[CompileFailure], Bundle | None]]:
    return [discover_file(name, sources) for name in sol_files(paths, sources)]


async def execute(
    runner: TestRunner,
    paths: Sequence[Path],
    *,
    select: Collection[str] | None,
    sources: Mapping[str, str] | None,
    on_event: Callable[[RunEvent], None] | None,
) -> RunReport:
    """See :meth:`TestRunner.run`."""
    report = RunReport()

    def emit(event: RunEvent) -> None:
        if on_event is not None:
            on_event(event)

    only = re.compile(runner.only) if runner.only else None
    wanted = set(select) if select is not None else None

    def chosen(case: TestCase) -> bool:
        if wanted is not None and case.id not in wanted:
            return False
        return only is None or only.search(case.id) is not None

    # Reading and scanning files is disk work: off the event loop (the GUI's, too).
    found = await asyncio.to_thread(_discover_all, paths, sources)
    files: list[tuple[Bundle, list[DescribeContract]]] = []
    everything: list[TestCase] = []
    problems: list[CompileFailure] = []
    for contracts, failures, source in found:
        problems.extend(failures)
        if source is not None:
            files.append((source, contracts))
        for c in contracts:
            everything.extend(c.cases)
    emit(Discovered(tuple(everything)))
    for failure in problems:
        report.failures.append(failure)
        emit(failure)
    for source, contracts in files:
        await _run_file(runner, source, contracts, chosen, emit, report)
    return report
