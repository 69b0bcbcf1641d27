"""The Describe_ test runner (app/client/test_runner.py) against a real sandbox node started with
``--test-clock``, on the corpus in tests/corpus/describe."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

from app.client.http import StratoClient
from app.client.test_runner import (
    CompileFailure,
    Discovered,
    RunEvent,
    RunReport,
    TestFinished,
    TestOutcome,
    TestRunner,
    TestStarted,
)
from tests.integration.conftest import make_node
from tests.integration.node_fixture import ROOT, RunningNode

CORPUS = ROOT / "tests" / "corpus" / "describe"
T = TypeVar("T")


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--test-clock")
    try:
        yield n
    finally:
        n.stop()


def with_client(node: RunningNode, body: Callable[[StratoClient], Awaitable[T]]) -> T:
    token = node.token("alice")

    async def provide() -> str:
        return token

    async def main() -> T:
        async with StratoClient(node.url, provide) as client:
            return await body(client)

    return asyncio.run(main())


def run_tests(
    node: RunningNode,
    paths: Sequence[Path],
    events: list[RunEvent] | None = None,
    **kw: Any,
) -> RunReport:
    select = kw.pop("select", None)
    sources = kw.pop("sources", None)

    async def body(client: StratoClient) -> RunReport:
        runner = TestRunner(client, **kw)
        sink = events.append if events is not None else None
        return await runner.run(paths, select=select, sources=sources, on_event=sink)

    return with_client(node, body)


def by_id(report: RunReport) -> dict[str, TestOutcome]:
    return {o.case.id: o for o in report.outcomes}


def test_hooks_run_in_order_around_each_test(node: RunningNode) -> None:
    report = run_tests(node, [CORPUS / "hooks"])
    assert [(o.case.id, o.passed) for o in report.outcomes] == [
        ("Describe_Hooks.it_runs_first", True),
        ("Describe_Hooks.it_runs_second", True),
    ]
    assert report.ok and report.passed == 2 and report.failed == 0
    # beforeEach, the test, afterEach; the last test also carries beforeAll's and afterAll's
    first, second = report.outcomes
    assert len(first.tx_hashes) == 4  # beforeAll, beforeEach, test, afterEach
    assert len(second.tx_hashes) == 4  # beforeEach, test, afterEach, afterAll

    async def trail(client: StratoClient) -> Any:
        (tx,) = await client.transactions(hash=second.tx_hashes[-1])
        assert tx.to
        return await client.state("Describe_Hooks", tx.to)

    state = with_client(node, trail)
    assert state["trail"] == (
        "beforeAll,beforeEach,it_runs_first,afterEach,beforeEach,it_runs_second,afterEach,afterAll,"
    )
    assert int(state["tests"]) == 2


def test_state_is_shared_within_a_contract_and_fresh_per_run(node: RunningNode) -> None:
    report = run_tests(node, [CORPUS / "state" / "shared.sol"])
    assert report.ok, report
    assert list(by_id(report)) == [
        "Describe_SharedState.it_starts_from_the_constructor",
        "Describe_SharedState.it_sees_the_previous_test",
        "Describe_SharedState.it_sees_both",
        "Describe_FreshState.it_is_not_shared_with_other_contracts",
    ]
    # run alone, a test that depends on the ones before it sees a fresh deployment
    alone = run_tests(
        node, [CORPUS / "state"], select={"Describe_SharedState.it_sees_the_previous_test"}
    )
    (outcome,) = alone.outcomes
    assert not outcome.passed
    assert outcome.message == "solidity require failed: the first test's write is missing"


def test_reverts_false_and_invalid_tests(node: RunningNode) -> None:
    events: list[RunEvent] = []
    report = run_tests(node, [CORPUS / "reverts"], events=events)
    results = by_id(report)
    source = str(CORPUS / "reverts" / "reverts.sol")
    expected = {
        "Describe_Reverts.it_passes": (True, ""),
        "Describe_Reverts.it_fails_a_require": (False, "solidity require failed: balance too low"),
        "Describe_Reverts.it_reverts_with_a_message": (False, "revert: nothing to see here"),
        "Describe_Reverts.it_returns_false": (False, "returned false"),
        "Describe_Reverts.it_returns_true": (True, ""),
        "Describe_Reverts.it_divides_by_zero": (False, "divide by zero error"),
        "Describe_Reverts.it_returns_a_number": (False, "Test must return () or (bool)."),
        "Describe_Reverts.it_has_an_argument": (
            False,
            "Expected unit test to have zero arguments. To write a property test, prefix the "
            "function name with property_.",
        ),
        "Describe_Reverts.it_is_internal": (False, "Test must be a public or external function"),
        "Describe_FailingBeforeAll.it_never_runs": (
            False,
            "beforeAll failed: solidity require failed: setup refused",
        ),
        "Describe_FailingBeforeAll.it_never_runs_either": (
            False,
            "beforeAll failed: solidity require failed: setup refused",
        ),
    }
    assert {k: (o.passed, o.message) for k, o in results.items()} == expected
    # the location of a failure is the statement that failed (the node reports it), else the
    # failing test's declaration (a test that returns false, or cannot run)
    assert results["Describe_Reverts.it_fails_a_require"].location == f"{source}:11"
    assert results["Describe_Reverts.it_divides_by_zero"].location == f"{source}:28"
    assert results["Describe_Reverts.it_returns_false"].location == f"{source}:18"
    assert results["Describe_Reverts.it_is_internal"].location == f"{source}:37"
    assert results["Describe_FailingBeforeAll.it_never_runs"].location == f"{source}:43"
    assert results["Describe_Reverts.it_passes"].location is None
    assert results["Describe_Reverts.it_reverts_with_a_message"].tx_hashes
    assert (report.passed, report.failed, report.ok) == (2, 9, False)
    # a contract whose constructor takes arguments is not a test contract
    discovered = [e for e in events if isinstance(e, Discovered)]
    assert len(discovered) == 1 and isinstance(events[0], Discovered)
    assert "Describe_NeedsArguments" not in {c.contract for c in discovered[0].cases}
    assert len(discovered[0].cases) == 11
    # every test is started before it finishes, once
    seen: list[str] = []
    for e in events:
        if isinstance(e, TestStarted):
            seen.append(f"start {e.case.id}")
        elif isinstance(e, TestFinished):
            assert f"start {e.outcome.case.id}" in seen
            seen.append(f"end {e.outcome.case.id}")
    assert len(seen) == 22 and len(set(seen)) == 22


def test_property_tests_shrink_their_failing_vector(node: RunningNode) -> None:
    report = run_tests(node, [CORPUS / "properties"], seed=3)
    results = by_id(report)
    assert results["Describe_Properties.property_addition_commutes"].passed
    assert results["Describe_Properties.property_bools_and_addresses"].passed
    small = results["Describe_Properties.property_small_numbers"]
    assert not small.passed
    assert small.vector == [50]
    assert small.message == "returned false; arguments (50)"
    short = results["Describe_Properties.property_short_strings"]
    assert not short.passed
    assert short.vector is not None and len(short.vector) == 1
    assert len(str(short.vector[0]).encode()) == 5  # the shortest failing string (in bytes)
    assert short.message.startswith('solidity require failed: string too long; arguments ("')
    # the generated vectors were sent: 100 runs at most, shrinking tries besides
    assert len(results["Describe_Properties.property_addition_commutes"].tx_hashes) == 100
    # the same seed finds the same failure
    again = by_id(run_tests(node, [CORPUS / "properties"], seed=3))
    assert again["Describe_Properties.property_short_strings"].vector == short.vector


def test_runs_bounds_the_generated_vectors(node: RunningNode) -> None:
    report = run_tests(
        node, [CORPUS / "properties"], runs=7, only=r"addition_commutes$|bools_and_addresses"
    )
    assert [o.case.name for o in report.outcomes] == [
        "property_addition_commutes",
        "property_bools_and_addresses",
    ]
    assert all(o.passed and len(o.tx_hashes) == 7 for o in report.outcomes)


def test_imports_across_folders_and_the_test_clock(node: RunningNode) -> None:
    report = run_tests(node, [CORPUS / "imports", CORPUS / "clock"])
    assert report.ok, report
    assert [o.case.id for o in report.outcomes] == [
        "Describe_BracedImport.it_deploys_the_imported_contract",
        "Describe_ImportedCounter.it_increments",
        "Describe_ImportedCounter.it_adds",
        "Describe_Clock.it_reads_the_move_of_before_each",
        "Describe_Clock.it_keeps_the_earlier_moves",
        "Describe_NextClock.it_starts_again_at_zero",
    ]


def test_a_failure_in_an_imported_file_points_into_that_file(node: RunningNode) -> None:
    results = by_id(run_tests(node, [CORPUS / "positions"]))
    test_file = str(CORPUS / "positions" / "positions_test.sol")
    guard = str(CORPUS / "lib" / "Guard.sol")
    assert {k: (o.location, o.message) for k, o in results.items()} == {
        "Describe_Positions.it_fails_on_a_later_line": (
            f"{test_file}:12",
            "solidity require failed: n is not five",
        ),
        # a library function of an imported file, called from the test
        "Describe_Positions.it_fails_in_an_imported_library": (
            f"{guard}:8",
            "solidity require failed: below the floor",
        ),
        # a contract of an imported file, created and called by the test
        "Describe_Positions.it_fails_in_an_imported_contract": (
            f"{guard}:18",
            "solidity require failed: not enough held",
        ),
    }


def test_a_failing_constructor_points_at_its_require(node: RunningNode, tmp_path: Path) -> None:
    f = tmp_path / "ctor_test.sol"
    f.write_text(
        "contract Describe_Ctor {\n"
        "    uint x;\n"
        "    constructor() {\n"
        "        x = 1;\n"
        '        require(x == 2, "x is not two");\n'
        "    }\n"
        "    function it_a() public {}\n"
        "}\n",
        encoding="utf-8",
    )
    (outcome,) = run_tests(node, [f]).outcomes
    assert (
        outcome.message == "Describe_Ctor constructor failed: solidity require failed: x is not two"
    )
    assert outcome.location == f"{f}:5"


def test_a_compile_error_in_an_imported_file_names_that_file(node: RunningNode) -> None:
    events: list[RunEvent] = []
    report = run_tests(node, [CORPUS / "compile_error", CORPUS / "hooks"], events=events)
    (failure,) = report.failures
    assert failure == CompileFailure(
        str(CORPUS / "lib" / "Broken.sol"), 5, 16, "undeclared identifier 'notDeclaredAnywhere'"
    )
    assert failure in events
    # the other folder still ran
    assert [o.case.id for o in report.outcomes] == [
        "Describe_Hooks.it_runs_first",
        "Describe_Hooks.it_runs_second",
    ]
    assert report.failed == 0 and not report.ok


def test_unsaved_sources_are_what_runs(node: RunningNode, tmp_path: Path) -> None:
    f = tmp_path / "edited.sol"
    f.write_text("contract Describe_Edited { function it_a() public {} }\n", encoding="utf-8")
    buffer = (
        'import "' + str(CORPUS / "lib" / "Counter.sol") + '";\n'
        "contract Describe_Edited {\n"
        '    function it_a() public { require(new Counter().count() == 1, "fresh"); }\n'
        "}\n"
    )
    report = run_tests(node, [f], sources={str(f.resolve()): buffer})
    (outcome,) = report.outcomes
    assert not outcome.passed and outcome.message == "solidity require failed: fresh"
    assert outcome.location == f"{f}:3"


def test_a_run_can_be_cancelled(node: RunningNode) -> None:
    events: list[RunEvent] = []

    async def body(client: StratoClient) -> None:
        runner = TestRunner(client, runs=1_000_000)  # would take hours
        task: asyncio.Task[RunReport] | None = None

        def on_event(e: RunEvent) -> None:
            events.append(e)
            if isinstance(e, TestStarted):
                assert task is not None
                task.cancel()

        task = asyncio.ensure_future(runner.run([CORPUS / "properties"], on_event=on_event))
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 120)

    with_client(node, body)
    assert [type(e) for e in events] == [Discovered, TestStarted]


SLOW_TESTS = """
contract Describe_Slow {
    uint n;
    function spin() internal {
        uint s = 0;
        for (uint i = 0; i < 160000; i++) { s += i; }
        n = s;
    }
    function it_a() public { spin(); }
    function it_b() public { spin(); }
    function it_c() public { spin(); }
    function it_d() public { spin(); }
    function it_e() public { spin(); }
    function it_f() public { spin(); }
}
"""


def test_a_batch_longer_than_one_http_answer_still_finishes(
    node: RunningNode, tmp_path: Path
) -> None:
    """A batch of heavy tests (the platform's, which deploy a whole application in each
    beforeEach) may run longer than the client waits for one answer: the runner submits and
    then reads results by hash, so only a test that makes no progress is a timeout."""
    path = tmp_path / "slow.test.sol"
    path.write_text(SLOW_TESTS)
    token = node.token("alice")

    async def provide() -> str:
        return token

    async def main() -> RunReport:
        # one HTTP answer may take at most 0.2 s; the first batch (4 tests) takes longer
        async with StratoClient(node.url, provide, timeout=0.2) as client:
            return await TestRunner(client).run([path])

    started = time.monotonic()
    report = asyncio.run(main())
    elapsed = time.monotonic() - started
    assert elapsed > 0.4, elapsed  # the batch did outlast one answer
    assert [(o.case.id, o.passed) for o in report.outcomes] == [
        (f"Describe_Slow.it_{c}", True) for c in "abcdef"
    ]
