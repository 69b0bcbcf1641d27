"""Service layer (Qt objects over the client) against a real node, on a qasync loop."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
import qasync
from pytestqt.qtbot import QtBot

from app.client.errors import NetworkError
from app.client.http import StratoClient
from app.client.models import TxRequest, TxResult
from app.services.inspector import REDACTED, Exchange, InspectorFeed
from app.services.pending import PendingTracker
from app.services.profiles import Profile
from app.services.session import Credentials, Session
from app.services.tasks import TaskRegistry
from tests.integration.node_fixture import RunningNode

COUNTER = (
    "contract Counter { uint public n; function add() public returns (uint) { n += 1; return n; } }"
)


@pytest.fixture
def loop(qapp: Any) -> Iterator[qasync.QEventLoop]:
    lp = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(lp)
    try:
        yield lp
    finally:
        asyncio.set_event_loop(None)
        lp.close()


def client_for(node: RunningNode, user: str, **kw: Any) -> StratoClient:
    tok = node.token(user)

    async def provide() -> str:
        return tok

    return StratoClient(node.url, provide, **kw)


def test_pending_tracker_reports_each_completion_once(
    node: RunningNode, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    async def body() -> list[TxResult]:
        async with client_for(node, "alice") as client:
            tracker = PendingTracker(client, interval=0.05)
            completed: list[TxResult] = []
            counts: list[int] = []
            tracker.completed.connect(completed.append)
            tracker.count_changed.connect(counts.append)
            sent = await client.submit([TxRequest.upload("Counter", COUNTER)] * 3, resolve=False)
            for r in sent:
                tracker.track(r.hash, "upload")
            tracker.track(sent[0].hash)  # tracking twice changes nothing
            runner = asyncio.ensure_future(tracker.run())
            for _ in range(200):
                if len(completed) == 3:
                    break
                await asyncio.sleep(0.02)
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
            assert counts[:3] == [1, 2, 3] and counts[-1] == 0
            assert tracker.hashes == []
            return completed

    done = loop.run_until_complete(body())
    assert sorted(r.hash for r in done) == sorted({r.hash for r in done})
    assert all(r.ok and r.address for r in done)


def test_inspector_records_and_redacts(node: RunningNode, loop: qasync.QEventLoop) -> None:
    feed = InspectorFeed()
    seen: list[Exchange] = []
    feed.updated.connect(seen.append)

    async def body() -> None:
        async with client_for(node, "alice", event_hooks=feed.hooks) as client:
            await client.get_key()
            await client.submit([TxRequest.upload("Counter", COUNTER)])

    loop.run_until_complete(body())
    assert [e.method for e in seen] == ["GET", "POST"]
    get, post = seen
    assert get.status == 200 and get.elapsed_ms is not None and get.elapsed_ms > 0
    assert get.request_headers["authorization"] == REDACTED
    token = node.token("alice")
    assert token not in get.curl() and REDACTED in get.curl()
    assert token in get.curl(reveal=True)
    assert post.url.endswith("/svc/v2.3/transaction?resolve=true")
    assert '"contract":"Counter"' in post.request_body.replace(" ", "")
    assert '"status":"Success"' in post.response_body
    assert "--data-raw" in post.curl()


def test_task_registry_reports_errors_and_cancels(loop: qasync.QEventLoop, qtbot: QtBot) -> None:
    reg = TaskRegistry()
    failures: list[tuple[str, str]] = []
    results: list[Any] = []
    reg.failed.connect(lambda t, m, _kind: failures.append((t, m)))

    async def ok() -> int:
        return 7

    async def unreachable() -> None:
        async with StratoClient("http://127.0.0.1:9", None, timeout=1) as c:
            await c.health()

    async def forever() -> None:
        await asyncio.sleep(3600)

    async def body() -> None:
        reg.start("compute", ok(), results.append)
        reg.start("health", unreachable())
        long = reg.start("wait", forever())
        # the unreachable node's GET is tried twice, 0.2 s apart: wait for it, not a fixed time
        deadline = loop.time() + 15
        while reg.running > 1 and loop.time() < deadline:
            await asyncio.sleep(0.02)
        assert reg.running == 1
        await reg.shutdown()
        assert long.cancelled() and reg.running == 0

    loop.run_until_complete(body())
    assert results == [7]
    assert failures and failures[0][0] == "health" and "cannot reach the node" in failures[0][1]
    assert issubclass(NetworkError, Exception)


def test_task_registry_shutdown_cancels_what_a_finishing_task_starts(
    loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    """Issue 26, item 11: a task done just before the shutdown whose result starts the next one
    (the files panel's list starts "Counting signers") left that one running after the window
    closed. The registry closes: what is started from then on is cancelled before it runs."""
    reg = TaskRegistry()
    followers: list[asyncio.Task[Any]] = []
    started: list[str] = []
    results: list[int] = []

    async def quick() -> int:
        return 1

    async def forever() -> None:
        started.append("follower")
        await asyncio.sleep(3600)

    async def body() -> None:
        first = reg.start(
            "list", quick(), lambda _r: followers.append(reg.start("count", forever()))
        )
        await asyncio.sleep(0)
        assert first.done() and reg.running == 1  # its done callback has not run yet
        await reg.shutdown()
        assert reg.running == 0
        assert len(followers) == 1
        await asyncio.sleep(0)
        assert followers[0].cancelled() and not started
        late = reg.start("after the shutdown", forever())
        await asyncio.sleep(0)
        assert late.cancelled() and reg.running == 0 and not started
        reg.reopen()  # connecting again
        assert reg.start("again", quick(), results.append) is not None
        await asyncio.sleep(0.05)
        assert results == [1] and reg.running == 0

    loop.run_until_complete(body())


def test_a_sign_in_cancelled_while_the_old_connection_closes_leaks_no_socket(
    node: RunningNode, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    """Issue 26, item 11 (``ResourceWarning: unclosed <socket…>`` in a later test): a window
    closed while a new sign-in replaced the old connection left the new client, its sockets
    open, to the garbage collector. Cancelled at that moment, nothing may stay unclosed."""
    session = Session()
    profile = Profile("Test node", node.url, client_id="stratoscope-desktop")
    loop.run_until_complete(session.open(profile, Credentials("alice", "alice")))
    old = session.client
    assert old is not None
    real_close = old.aclose

    async def cancelled_meanwhile() -> None:
        reopening.cancel()  # the window closes just as the old connection is being closed
        await real_close()

    old.aclose = cancelled_meanwhile  # type: ignore[method-assign]
    reopening = loop.create_task(session.open(profile, Credentials("bob", "bob")))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        with contextlib.suppress(asyncio.CancelledError):
            loop.run_until_complete(reopening)
        loop.run_until_complete(asyncio.sleep(0.2))  # what the cancellation left running ends
        assert old.http.is_closed
        loop.run_until_complete(session.close())
        gc.collect()
    unclosed = [str(w.message) for w in caught if "unclosed" in str(w.message)]
    assert unclosed == []
    assert session.client is None
