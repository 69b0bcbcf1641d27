"""Where ``python -m app debug-adapter`` runs the debugged code.

Without ``node`` the adapter runs the debugger's engine in this process, on a world of its own
(the temporary sandbox of the adapter: the same contract engine as the node, with the test
runner's clock and a signed-in user): nothing to start, so the first stop comes milliseconds after
launch instead of the seconds a sandbox process takes to boot, and every inspection is a function
call. With ``node`` (a URL) it uses that node's ``/vm-debug/sessions`` routes, signed in as the
test runner signs in, and the run sees that node's committed state.

Both backends speak the engine's shapes (frames, scopes, variables, evaluate results); events
come back through ``on_event(kind, body)`` from another thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeVar

from app.node.debug import inspection as I
from app.node.debug.engine import DebugSession, Event
from app.node.debug.launch import fresh_world, make_session, parse_launch
from app.node.debug.sources import SourceMap

T = TypeVar("T")
OnEvent = Callable[[str, dict[str, Any]], None]


class Backend(Protocol):
    def set_breakpoints(
        self, file: str, lines: list[tuple[int, str | None]]
    ) -> list[dict[str, Any]]: ...
    def run(self) -> None: ...
    def set_pause_on_failure(self, on: bool) -> None: ...
    def control(self, action: str) -> None: ...
    def stack(self) -> list[dict[str, Any]]: ...
    def scopes(self, frame: int) -> list[dict[str, Any]]: ...
    def variables(self, ref: int) -> list[dict[str, Any]]: ...
    def evaluate(self, expr: str, frame: int) -> dict[str, Any]: ...
    def close(self) -> None: ...


class LocalBackend:
    """The engine in this process (see the module's docstring)."""

    def __init__(self, body: dict[str, Any], sources: SourceMap, on_event: OnEvent) -> None:
        spec = parse_launch(body, sources)
        world, env = fresh_world()
        self.session: DebugSession = make_session(spec, world, env, name="adapter")
        self.session.listeners.append(lambda ev: on_event(ev.kind, ev.body))

    def set_breakpoints(
        self, file: str, lines: list[tuple[int, str | None]]
    ) -> list[dict[str, Any]]:
        return [
            {"line": b.line, "verified": b.verified}
            for b in self.session.set_breakpoints(file, lines)
        ]

    def run(self) -> None:
        self.session.start()

    def set_pause_on_failure(self, on: bool) -> None:
        self.session.pause_on_failure = on

    def control(self, action: str) -> None:
        s = self.session
        {
            "continue": s.resume,
            "next": s.step_over,
            "stepIn": s.step_in,
            "stepOut": s.step_out,
            "pause": s.pause,
            "stop": s.stop,
        }[action]()

    def stack(self) -> list[dict[str, Any]]:
        s = self.session
        return s.on_thread(lambda: I.stack_trace(s))

    def scopes(self, frame: int) -> list[dict[str, Any]]:
        s = self.session
        return s.on_thread(lambda: I.scopes(s, frame))

    def variables(self, ref: int) -> list[dict[str, Any]]:
        s = self.session
        return s.on_thread(lambda: I.variables(s, ref))

    def evaluate(self, expr: str, frame: int) -> dict[str, Any]:
        s = self.session
        return s.on_thread(lambda: I.evaluate(s, frame, expr))

    def close(self) -> None:
        self.session.stop()
        self.session.join(5)


EVENT_RETRIES = 3  # network failures in a row the events thread outlasts


class RemoteError(Exception):
    """A node's answer the adapter reports as the request's failure."""

    def __init__(self, message: str, network: bool = False) -> None:
        super().__init__(message)
        self.network = network  # no answer at all (a time-out, a dropped connection)


class RemoteBackend:
    """A node's ``/vm-debug/sessions`` routes (see the module's docstring)."""

    def __init__(
        self, node: str, user: str | None, body: dict[str, Any], on_event: OnEvent
    ) -> None:
        self.on_event = on_event
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.body = body
        self.sid = ""
        self.closed = False
        self.pending: dict[str, list[tuple[int, str | None]]] = {}
        self.call(self._open(node, user))

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    async def _open(self, node: str, user: str | None) -> None:
        from app.client.http import StratoClient

        from .node_access import sign_in

        self.client = StratoClient(node)
        self.signin = await sign_in(self.client, user, ask=None)
        self.client.set_token_provider(self.signin.oidc.access_token)

    async def _req(self, method: str, path: str, body: Any = None) -> Any:
        from app.client.errors import NetworkError, StratoError

        try:
            resp = await self.client.request(
                method, f"/vm-debug/sessions{path}", json_body=body, idempotent=False
            )
        except StratoError as exc:
            raise RemoteError(str(exc), isinstance(exc, NetworkError)) from None
        try:
            return resp.json()
        except ValueError:
            raise RemoteError(
                f"the node answered {method} {path} with something not JSON"
            ) from None

    def set_breakpoints(
        self, file: str, lines: list[tuple[int, str | None]]
    ) -> list[dict[str, Any]]:
        if not self.sid:  # before the run: sent with the launch
            self.pending[file] = lines
            return [{"line": line, "verified": True} for line, _ in lines]
        bps = [{"line": line, "condition": c} for line, c in lines]
        out = self.call(
            self._req("POST", f"/{self.sid}/source-breakpoints", {"file": file, "breakpoints": bps})
        )
        return [{"line": b["line"], "verified": b["verified"]} for b in out]

    def set_pause_on_failure(self, on: bool) -> None:
        if not self.sid:
            self.body["pauseOnFailure"] = on
        else:
            self.call(
                self._req("POST", f"/{self.sid}/control", {"action": "pauseOnFailure", "value": on})
            )

    def run(self) -> None:
        body = dict(self.body)
        body["breakpoints"] = [
            {"file": f, "line": line, "condition": c}
            for f, lines in self.pending.items()
            for line, c in lines
        ]
        created = self.call(self._req("POST", "", body))
        self.sid = created["id"]
        threading.Thread(target=self._events, daemon=True).start()

    def _events(self) -> None:
        """The events thread: long polls until the run's ``terminated``. Whatever ends it
        early is reported (an ``output`` and a ``terminated``, which the adapter answers with
        ``exited``): a thread that ended silently left the editor waiting for good."""
        try:
            self._poll_events()
        except Exception as exc:  # any failure: reported, never silent
            if not self.closed:
                self.on_event("output", {"category": "stderr", "output": f"{exc}\n"})
                self.on_event("terminated", {})

    def _poll_events(self) -> None:
        after = 0
        misses = 0  # network failures in a row: a busy node's long poll may time out once
        while not self.closed:
            try:
                evs = self.call(self._req("GET", f"/{self.sid}/events?after={after}&wait=20"))
                misses = 0
            except RemoteError as exc:
                if exc.network and misses < EVENT_RETRIES and not self.closed:
                    misses += 1
                    time.sleep(0.2 * misses)
                    continue
                raise
            for ev in evs:
                after = ev["seq"]
                self.on_event(ev["event"], ev["body"])
                if ev["event"] == "terminated":
                    return

    def control(self, action: str) -> None:
        self.call(self._req("POST", f"/{self.sid}/control", {"action": action}))

    def stack(self) -> list[dict[str, Any]]:
        return list(self.call(self._req("GET", f"/{self.sid}/frames")))

    def scopes(self, frame: int) -> list[dict[str, Any]]:
        return list(self.call(self._req("GET", f"/{self.sid}/scopes?frame={frame}")))

    def variables(self, ref: int) -> list[dict[str, Any]]:
        return list(self.call(self._req("GET", f"/{self.sid}/variables/{ref}")))

    def evaluate(self, expr: str, frame: int) -> dict[str, Any]:
        body = {"expression": expr, "frame": frame}
        return dict(self.call(self._req("POST", f"/{self.sid}/evaluate", body)))

    def close(self) -> None:
        """Delete the node's session; a node that no longer answers ends it itself when it
        has been idle, so a failed delete is not worth reporting at shutdown."""
        self.closed = True
        try:
            with contextlib.suppress(RemoteError):
                if self.sid:
                    self.call(self._req("DELETE", f"/{self.sid}"))
        finally:
            self.call(self._aclose())
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)
            if not self.thread.is_alive():
                self.loop.close()  # (its self-pipe sockets)

    async def _aclose(self) -> None:
        await self.signin.aclose()
        await self.client.aclose()


__all__ = ["Backend", "Event", "LocalBackend", "RemoteBackend", "RemoteError"]
