"""The sandbox's debugger routes: sessions per signed-in user, and the platform's REST API.

``POST /vm-debug/sessions`` starts a session (a launch request, :func:`.launch.parse_launch`); it
runs on a copy of the committed state (:mod:`.overlay`) on its own thread. The platform's routes
(status, pause, resume, breakpoints, step-in/over/out, stack-trace, variables, watches, eval) are
served for each session under ``/vm-debug/sessions/{id}/`` and, for the caller's latest session,
under ``/vm-debug/`` itself (where the platform's nginx put them). Richer routes beside them
(frames, scopes, variables by reference, evaluate in a frame, events) serve the app and the
debug adapter. A user has at most :data:`MAX_PER_USER` sessions, the node :data:`MAX_TOTAL`; a
session idle for :data:`IDLE_SECONDS` is stopped. Nothing here runs contract code, compiles or
waits for a paused run on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..errors import ApiError
from ..routes.base import JsonBody
from ..solidvm.world import TxEnv
from . import inspection as I
from .compiler import DebugUnit
from .engine import DebugSession, Event, NotPaused
from .launch import (
    LaunchError,
    LaunchSpec,
    compile_spec,
    make_plan,
    parse_breakpoints,
    parse_launch,
    session_for,
)
from .overlay import ViewSource, overlay_world, same_code_swap
from .platform import PlatformState, ShapeError, parse_strings, status_of
from .platform import parse_breakpoints as parse_platform_bps
from .rerun import describe, prepare_rerun

if TYPE_CHECKING:
    from ..api import NodeApi
    from ..ledger import Ledger

PREFIX = "/vm-debug"
MAX_PER_USER = 2
MAX_TOTAL = 16
IDLE_SECONDS = 600.0
MAX_WAIT = 25.0  # seconds an events request may wait

Handler = Callable[[Request], Awaitable[Response]]


class Entry:
    """A session and who owns it."""

    def __init__(self, sid: str, user: str, session: DebugSession) -> None:
        self.id = sid
        self.user = user
        self.session = session
        self.platform = PlatformState(session)

    def summary(self) -> dict[str, Any]:
        s = self.session
        return {
            "id": self.id,
            "state": s.state,
            "reason": s.reason if s.state == "paused" else "",
            "description": s.description if s.state == "paused" else "",
            "result": s.result,
            "files": s.sources.names,
            "created": s.created,
        }


class DebugSessions:
    """The node's debug sessions, per user, bounded and idle-timed out."""

    def __init__(self, ledger: Ledger, idle: float = IDLE_SECONDS) -> None:
        self.ledger = ledger
        self.idle = idle
        self.entries: dict[str, Entry] = {}
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        # sessions being compiled, per user: they count against the bounds before they exist
        # (parallel starts would each see room otherwise)
        self.starting: dict[str, int] = {}
        self._reaper: threading.Thread | None = None

    def _reap_forever(self) -> None:
        while True:
            time.sleep(min(30.0, self.idle / 2))
            self.reap()

    def reap(self) -> None:
        now = time.monotonic()
        with self.lock:
            old = [e for e in self.entries.values() if now - e.session.last_used > self.idle]
            for e in old:
                del self.entries[e.id]
        for e in old:
            e.session.stop()

    def of(self, user: str, sid: str | None) -> Entry:
        self.reap()
        with self.lock:
            if sid is None:
                mine = [e for e in self.entries.values() if e.user == user]
                if not mine:
                    raise ApiError(
                        404, {"error": "no debug session: start one with POST /vm-debug/sessions"}
                    )
                return mine[-1]
            e = self.entries.get(sid)
        if e is None or e.user != user:
            raise ApiError(404, {"error": f"no debug session {sid}"})
        return e

    def mine(self, user: str) -> list[Entry]:
        """The user's sessions, oldest first (read under the lock: the reaper and other
        requests change the table meanwhile)."""
        with self.lock:
            return [e for e in self.entries.values() if e.user == user]

    def create(self, user: str, sender: str, body: Any) -> Entry:
        """Compile and start a session (on a worker thread: this compiles). Its place is
        taken before it compiles and given back if it fails."""
        self.reap()
        with self.lock:
            mine = sum(e.user == user for e in self.entries.values()) + self.starting.get(user, 0)
            if mine >= MAX_PER_USER:
                raise ApiError(
                    429,
                    {"error": f"at most {MAX_PER_USER} debug sessions per user: stop one first"},
                )
            if len(self.entries) + sum(self.starting.values()) >= MAX_TOTAL:
                raise ApiError(429, {"error": f"the node runs {MAX_TOTAL} debug sessions already"})
            self.starting[user] = self.starting.get(user, 0) + 1
        try:
            return self._create(user, sender, body)
        finally:
            with self.lock:
                left = self.starting.pop(user) - 1
                if left:
                    self.starting[user] = left

    def _create(self, user: str, sender: str, body: Any) -> Entry:
        if isinstance(body, dict) and body.get("transaction") is not None:
            return self._start(*prepare_rerun(self.ledger, user, body), user)  # rerun.py
        try:
            spec = parse_launch(body, source_of=self.source_of)
            unit = compile_spec(spec, self.ledger.world.test_clock)
        except LaunchError as exc:
            raise ApiError(400, {"error": str(exc), "field": exc.field}) from None
        ledger = self.ledger
        env = TxEnv(sender=sender, block_number=ledger.head.number + 1, timestamp=int(time.time()))

        def plan(s: DebugSession) -> dict[str, Any]:
            source = ViewSource(ledger)
            s.on_pause.append(source.unpin)
            s.on_resume.append(source.pin)
            source.pin()
            try:
                world = overlay_world(ledger.world, source, same_code_swap(unit.contracts))
                return make_plan(spec, unit, world, env)(s)
            finally:
                source.unpin()

        return self._start(spec, unit, plan, user)

    def _start(
        self,
        spec: LaunchSpec,
        unit: DebugUnit,
        plan: Callable[[DebugSession], dict[str, Any]],
        user: str,
    ) -> Entry:
        if self._reaper is None:  # idle sessions end even when nobody asks the routes
            self._reaper = threading.Thread(target=self._reap_forever, daemon=True)
            self._reaper.start()
        sid = str(next(self.ids))
        session = session_for(spec, unit, plan, name=sid)
        entry = Entry(sid, user, session)
        with self.lock:
            self.entries[sid] = entry
        session.start()
        return entry

    def source_of(self, address: str) -> tuple[str, str, str]:
        """The source a deployed contract was compiled from (file ``<Contract>.sol``)."""
        with self.ledger.pinned_view() as view:
            acct = view.account(int(address, 16), "")
        cdef = acct.cdef if acct is not None else None
        if cdef is None:
            raise LaunchError("address", f"no contract at {address} on the main chain")
        if cdef.vm != "SolidVM" or cdef.unit is None:
            raise LaunchError("address", f"{cdef.name} at {address} is not SolidVM code")
        return f"{cdef.name}.sol", cdef.unit.source, cdef.name

    def delete(self, entry: Entry) -> None:
        with self.lock:
            self.entries.pop(entry.id, None)
        entry.session.stop()


async def _events_after(s: DebugSession, after: int, wait: float) -> list[Event]:
    """Events newer than ``after``, waiting up to ``wait`` seconds for one (see
    :func:`_wait_on_loop`)."""
    evs = s.events_after(after)
    if evs or wait <= 0:
        return evs
    await _wait_on_loop(s, lambda: bool(s.events_after(after)), wait)
    return s.events_after(after)


async def _wait_on_loop(s: DebugSession, ready: Callable[[], bool], wait: float) -> None:
    """Until ``ready()`` or ``wait`` seconds, on the loop: a long poll must not hold one of
    the loop's worker threads, nor wake the loop to look again. The session's thread wakes
    the wait when it emits an event (``call_soon_threadsafe``); it changes its state before
    it emits, so a stop or the end is seen."""
    if ready():
        return
    loop = asyncio.get_running_loop()
    arrived = asyncio.Event()

    def wake(_ev: Event) -> None:  # on the session's thread
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(arrived.set)

    s.listeners.append(wake)  # before looking again: nothing emitted in between is missed
    try:
        deadline = loop.time() + wait
        while not ready():
            left = deadline - loop.time()
            if left <= 0:
                return
            arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(arrived.wait(), left)
    finally:
        s.listeners.remove(wake)


def _sid(request: Request) -> str | None:
    v = request.path_params.get("sid")
    return v if isinstance(v, str) else None


async def _off_loop(fn: Callable[[], Any]) -> Any:
    try:
        return await asyncio.to_thread(fn)
    except NotPaused as exc:
        raise ApiError(409, {"error": str(exc)}) from None
    except ShapeError as exc:
        raise ApiError(400, {"error": str(exc)}) from None
    except LaunchError as exc:
        raise ApiError(400, {"error": str(exc), "field": exc.field}) from None
    except LookupError as exc:
        raise ApiError(404, {"error": str(exc).strip("'\"")}) from None
    except TimeoutError:
        raise ApiError(504, {"error": "the paused run did not answer in time"}) from None


class DebugRoutes:
    """Handlers; :meth:`routes` lists them for the node's app."""

    def __init__(self, api: NodeApi) -> None:
        self.api = api
        self.sessions = DebugSessions(api.ledger)

    def entry(self, request: Request) -> Entry:
        return self.sessions.of(request.state.user, _sid(request))

    # ------------------------------------------------------------ sessions

    async def start(self, request: Request) -> Response:
        body = await self.api.json_body(request)
        user = request.state.user
        sender = self.api.sender_of(user)
        entry = await _off_loop(lambda: self.sessions.create(user, sender, body))
        # answer once it first stops or finishes (a quick run finishes before the answer)
        s = entry.session
        await _wait_on_loop(s, lambda: s.state in ("paused", "finished"), 2.0)
        return JsonBody(entry.summary())

    async def transaction(self, request: Request) -> Response:
        """GET /vm-debug/transaction?hash=: what a re-run of that transaction runs (rerun.py)."""
        user, raw = request.state.user, request.query_params.get("hash")
        return JsonBody(await _off_loop(lambda: describe(self.ledger_of(), user, raw)))

    def ledger_of(self) -> Ledger:
        return self.sessions.ledger

    async def sessions_of(self, request: Request) -> Response:
        self.sessions.reap()
        return JsonBody([e.summary() for e in self.sessions.mine(request.state.user)])

    async def show(self, request: Request) -> Response:
        return JsonBody(self.entry(request).summary())

    async def delete(self, request: Request) -> Response:
        e = self.entry(request)
        self.sessions.delete(e)
        return JsonBody({"id": e.id, "state": "stopped"})

    async def events(self, request: Request) -> Response:
        e = self.entry(request)
        after = _int(request, "after", 0)
        wait = min(float(_int(request, "wait", 0)), MAX_WAIT)
        evs = await _events_after(e.session, after, wait)
        return JsonBody([{"seq": ev.seq, "event": ev.kind, "body": ev.body} for ev in evs])

    async def control(self, request: Request) -> Response:
        """The rich control route: POST .../control {"action": continue|stepIn|...}, or
        {"action": "pauseOnFailure", "value": bool}."""
        e = self.entry(request)
        body = await self.api.json_body(request)
        action = body.get("action") if isinstance(body, dict) else None
        s = e.session
        acts: dict[str, Callable[[], None]] = {
            "continue": s.resume,
            "next": s.step_over,
            "stepIn": s.step_in,
            "stepOut": s.step_out,
            "pause": s.pause,
            "stop": s.stop,
        }
        if action == "pauseOnFailure":
            value = body.get("value")
            if not isinstance(value, bool):
                raise ApiError(400, {"error": "value: must be true or false", "field": "value"})
            s.pause_on_failure = value
            return JsonBody(e.summary())
        if action not in acts:
            raise ApiError(
                400, {"error": f"action: must be one of {', '.join(acts)}", "field": "action"}
            )
        await _off_loop(acts[action])
        return JsonBody(e.summary())

    async def frames(self, request: Request) -> Response:
        s = self.entry(request).session
        return JsonBody(await _off_loop(lambda: s.on_thread(lambda: I.stack_trace(s))))

    async def scopes(self, request: Request) -> Response:
        s = self.entry(request).session
        frame = _int(request, "frame", 1)
        return JsonBody(await _off_loop(lambda: s.on_thread(lambda: I.scopes(s, frame))))

    async def variables(self, request: Request) -> Response:
        s = self.entry(request).session
        raw = str(request.path_params["ref"])
        if not raw.isdigit() or len(raw) > 9:
            raise ApiError(400, {"error": "ref: must be a variables reference", "field": "ref"})
        ref = int(raw)
        return JsonBody(await _off_loop(lambda: s.on_thread(lambda: I.variables(s, ref))))

    async def evaluate(self, request: Request) -> Response:
        s = self.entry(request).session
        body = await self.api.json_body(request)
        if not isinstance(body, dict) or not isinstance(body.get("expression"), str):
            raise ApiError(
                400, {"error": "expression: must be a SolidVM expression", "field": "expression"}
            )
        frame = body.get("frame", 1)
        if not isinstance(frame, int) or isinstance(frame, bool):
            raise ApiError(400, {"error": "frame: must be a frame id", "field": "frame"})
        text = body["expression"]
        return JsonBody(await _off_loop(lambda: s.on_thread(lambda: I.evaluate(s, frame, text))))

    async def source_breakpoints(self, request: Request) -> Response:
        """POST {file, breakpoints: [{line, condition?}]}: replaces that file's breakpoints."""
        s = self.entry(request).session
        body = await self.api.json_body(request)
        if not isinstance(body, dict) or not isinstance(body.get("file"), str):
            raise ApiError(400, {"error": "file: must be a file name", "field": "file"})
        f = body["file"]
        raw = body.get("breakpoints", [])
        items = [
            {"file": f, **b} if isinstance(b, dict) else b
            for b in (raw if isinstance(raw, list) else [raw])
        ]
        try:
            bps = parse_breakpoints(items)
        except LaunchError as exc:
            raise ApiError(400, {"error": str(exc), "field": exc.field}) from None
        set_ = s.set_breakpoints(f, [(line, cond) for _, line, cond in bps])
        return JsonBody(
            [{"line": b.line, "verified": b.verified, "condition": b.condition} for b in set_]
        )

    # ------------------------------------------------------------ the platform's routes

    async def p_status(self, request: Request) -> Response:
        e = self.entry(request)
        return JsonBody(await _off_loop(lambda: status_of(e.platform)))

    async def _platform_command(
        self, request: Request, act: Callable[[DebugSession], None]
    ) -> Response:
        e = self.entry(request)

        def go() -> Any:
            with contextlib.suppress(NotPaused):  # the platform answers the status as is
                act(e.session)
            return status_of(e.platform)

        return JsonBody(await _off_loop(go))

    async def p_pause(self, request: Request) -> Response:
        return await self._platform_command(request, DebugSession.pause)

    async def p_resume(self, request: Request) -> Response:
        return await self._platform_command(request, DebugSession.resume)

    async def p_step_in(self, request: Request) -> Response:
        return await self._platform_command(request, DebugSession.step_in)

    async def p_step_over(self, request: Request) -> Response:
        return await self._platform_command(request, DebugSession.step_over)

    async def p_step_out(self, request: Request) -> Response:
        return await self._platform_command(request, DebugSession.step_out)

    async def p_breakpoints(self, request: Request) -> Response:
        e = self.entry(request)
        if request.method == "GET":
            return JsonBody(e.platform.breakpoints())
        body = await self.api.json_body(request)
        try:
            bps = parse_platform_bps(body)
        except ShapeError as exc:
            raise ApiError(400, {"error": str(exc)}) from None
        if request.method == "PUT":
            e.platform.add(bps)
        else:
            e.platform.remove(bps)
        return JsonBody(await _off_loop(lambda: status_of(e.platform)))

    async def p_breakpoints_file(self, request: Request) -> Response:
        e = self.entry(request)
        e.platform.remove_file(request.path_params["file"])
        return JsonBody(await _off_loop(lambda: status_of(e.platform)))

    async def p_stack(self, request: Request) -> Response:
        e = self.entry(request)
        s = e.session

        def read() -> Any:
            try:
                return s.on_thread(lambda: [s.position(df) for df in reversed(s.stack)])
            except NotPaused:
                return []

        return JsonBody(await _off_loop(read))

    async def p_variables(self, request: Request) -> Response:
        s = self.entry(request).session

        def read() -> Any:
            try:
                return s.on_thread(lambda: I.platform_variables(s))
            except NotPaused:
                return {}

        return JsonBody(await _off_loop(read))

    async def p_watches(self, request: Request) -> Response:
        e = self.entry(request)
        s = e.session
        if request.method == "GET":

            def read() -> Any:
                try:
                    return s.on_thread(
                        lambda: {w: I.platform_eval(s, w) for w in e.platform.watches}
                    )
                except NotPaused:
                    return {}

            return JsonBody(await _off_loop(read))
        body = await self.api.json_body(request)
        try:
            exprs = parse_strings(body)
        except ShapeError as exc:
            raise ApiError(400, {"error": str(exc)}) from None
        if request.method == "PUT":
            e.platform.add_watches(exprs)
        else:
            e.platform.remove_watches(exprs)
        return JsonBody(await _off_loop(lambda: status_of(e.platform)))

    async def p_eval(self, request: Request) -> Response:
        s = self.entry(request).session
        body = await self.api.json_body(request)
        try:
            exprs = parse_strings(body)
        except ShapeError as exc:
            raise ApiError(400, {"error": str(exc)}) from None

        def run() -> Any:
            try:
                return s.on_thread(lambda: [I.platform_eval(s, x) for x in exprs])
            except (NotPaused, TimeoutError):
                return [{"Left": ""} for _ in exprs]

        return JsonBody(await _off_loop(run))

    # ------------------------------------------------------------ table

    def routes(self) -> list[BaseRoute]:
        e = self.api.endpoint
        out: list[BaseRoute] = [
            Route(f"{PREFIX}/sessions", e(self.start), methods=["POST"]),
            Route(f"{PREFIX}/sessions", e(self.sessions_of), methods=["GET"]),
            Route(f"{PREFIX}/transaction", e(self.transaction), methods=["GET"]),
        ]
        rich: list[tuple[str, Handler, list[str]]] = [
            ("", self.show, ["GET"]),
            ("", self.delete, ["DELETE"]),
            ("/events", self.events, ["GET"]),
            ("/control", self.control, ["POST"]),
            ("/frames", self.frames, ["GET"]),
            ("/scopes", self.scopes, ["GET"]),
            ("/variables/{ref}", self.variables, ["GET"]),
            ("/evaluate", self.evaluate, ["POST"]),
            ("/source-breakpoints", self.source_breakpoints, ["POST"]),
        ]
        for path, h, methods in rich:
            out.append(Route(f"{PREFIX}/sessions/{{sid}}{path}", e(h), methods=methods))
        platform: list[tuple[str, Handler, list[str]]] = [
            ("/status", self.p_status, ["GET"]),
            ("/pause", self.p_pause, ["PUT"]),
            ("/resume", self.p_resume, ["PUT"]),
            ("/breakpoints", self.p_breakpoints, ["GET", "PUT", "DELETE"]),
            ("/breakpoints/{file}", self.p_breakpoints_file, ["DELETE"]),
            ("/step-in", self.p_step_in, ["POST"]),
            ("/step-over", self.p_step_over, ["POST"]),
            ("/step-out", self.p_step_out, ["POST"]),
            ("/stack-trace", self.p_stack, ["GET"]),
            ("/variables", self.p_variables, ["GET"]),
            ("/watches", self.p_watches, ["GET", "PUT", "DELETE"]),
            ("/eval", self.p_eval, ["POST"]),
        ]
        for path, h, methods in platform:
            out.append(Route(f"{PREFIX}/sessions/{{sid}}{path}", e(h), methods=methods))
            out.append(Route(f"{PREFIX}{path}", e(h), methods=methods))
        return out


def _int(request: Request, name: str, default: int) -> int:
    v = request.query_params.get(name)
    if v is None or v == "":
        return default
    if not v.isdigit() or len(v) > 9:
        raise ApiError(400, {"error": f"{name}: must be a non-negative integer", "field": name})
    return int(v)
