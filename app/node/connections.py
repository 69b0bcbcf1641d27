"""Keeps stalled clients from holding the node's connections (issue 26, item 8).

uvicorn only times out a connection that is idle *after* a response: one that sends nothing,
half a request line or headers, or a body shorter than its ``Content-Length`` stays open for
good, and enough of them exhaust the process's file descriptors so that even ``/health`` is
refused. :func:`guarded_protocol` builds uvicorn's httptools protocol with two additions:

* a request timeout: a request's headers must be complete within ``timeout`` seconds of the
  connection (or of the previous response), and its body may not pause longer than that;
  otherwise the connection is closed;
* a connection cap below the descriptor limit: past it, the connection that has waited longest
  on its client is closed to make room (a new one only when every connection is being served),
  so a flood of stalled sockets cannot lock out ``/health``.

:func:`raise_file_limit` lifts the soft descriptor limit to the hard one at start, and
:class:`ClientGoneMiddleware` turns a client that went away mid-body into one log line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("stratoscope.node")

RESERVED_FILES = 128  # descriptors kept for the database, uploads, threads and the listener
MAX_FILES = 65536  # how far the soft limit is raised when the hard one allows
MAX_CONNECTIONS = 4096  # the automatic cap's ceiling (a local node has few real clients)

# phases of a connection: waiting on the client for headers, or for more body; or being served
HEADERS, BODY, SERVED = "headers", "body", "served"


def raise_file_limit(wanted: int = MAX_FILES) -> int:
    """Lift the soft descriptor limit towards the hard one; returns the soft limit in force."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):  # pragma: no cover - every POSIX system has it
        return 1024
    target = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(OSError, ValueError):  # refused: the soft limit as it is
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return MAX_FILES if soft == resource.RLIM_INFINITY else int(soft)


def connection_cap(file_limit: int) -> int:
    """Connections served at once: below the descriptor limit, leaving room for the rest."""
    return max(16, min(MAX_CONNECTIONS, file_limit - RESERVED_FILES))


@dataclass
class ConnectionGuard:
    """Settings shared by every connection of one server, and what it did (for the log)."""

    timeout: float
    max_connections: int
    timed_out: int = field(default=0)
    shed: int = field(default=0)


def guarded_protocol(guard: ConnectionGuard) -> type[HttpToolsProtocol]:
    """uvicorn's httptools protocol with the request timeout and the connection cap."""

    class GuardedProtocol(HttpToolsProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.phase = HEADERS
            self.since = 0.0  # start of the wait on the client (headers), or its last bytes (body)
            self.timer: asyncio.TimerHandle | None = None

        # ------------------------------------------------------------------ the wait timer

        def _wait(self, phase: str) -> None:
            self.phase = phase
            self.since = self.loop.time()
            if self.timer is None:
                self.timer = self.loop.call_later(guard.timeout, self._check)

        def _stop_waiting(self) -> None:
            self.phase = SERVED
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

        def _check(self) -> None:
            self.timer = None
            if self.phase == SERVED or self.transport.is_closing():
                return
            now = self.loop.time()
            if self.phase == BODY and self.flow.read_paused:
                self.since = now  # the app is not reading: not the client's fault
            left = self.since + guard.timeout - now
            if left > 0:
                self.timer = self.loop.call_later(left, self._check)
                return
            guard.timed_out += 1
            log.debug("closing a connection from %s: no complete request in time", self.client)
            self.transport.close()

        # ------------------------------------------------------------- protocol callbacks

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._wait(HEADERS)
            if len(self.connections) > guard.max_connections:
                self._shed()

        def _shed(self) -> None:
            """Close the connection that has waited longest on its client (this one if none)."""
            victim: GuardedProtocol = self
            for other in self.connections:
                if (
                    isinstance(other, GuardedProtocol)
                    and other is not self
                    and other.phase != SERVED
                    and not other.transport.is_closing()
                    and (victim is self or other.since < victim.since)
                ):
                    victim = other
            guard.shed += 1
            if guard.shed == 1 or guard.shed % 1000 == 0:
                log.warning(
                    "more than %d connections: closing the one that waited longest on its "
                    "client (%d so far)",
                    guard.max_connections,
                    guard.shed,
                )
            victim.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            super().connection_lost(exc)

        def on_headers_complete(self) -> None:
            super().on_headers_complete()
            if self.phase == HEADERS:
                self._wait(BODY)  # on_message_complete follows at once when there is no body

        def on_body(self, body: bytes) -> None:
            super().on_body(body)
            if self.phase == BODY:
                self.since = self.loop.time()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            if self.phase == BODY:
                self._stop_waiting()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and not self.pipeline:
                self._wait(HEADERS)  # the next request (uvicorn's keep-alive timer also runs)

    return GuardedProtocol


class ClientGoneMiddleware:
    """A client that disconnects before its body is read is one log line, not a traceback."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except ClientDisconnect:
            client_gone(scope)


def client_gone(scope: Scope) -> None:
    """Log the one line for a request whose client went away before sending its body."""
    client = scope.get("client")
    who = f"{client[0]}:{client[1]}" if client else "a client"
    log.info(
        "%s disconnected before sending its whole request: %s %s",
        who,
        scope.get("method", "?"),
        scope.get("path", "?"),
    )
