"""The HTTP inspector feed: every request the client makes, with timing, secrets redacted.

Requests made by the app's own loops (the health watch, the pending-transaction tracker, the
reads a new block triggers) are marked as background: code that polls runs inside
:func:`background`, a context variable that tasks started from there inherit, so the mark
needs no argument threaded through the client. The feed keeps separate budgets for the two
kinds, so a quiet hour of polling cannot push the user's own requests out.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import Context, ContextVar, copy_context
from dataclasses import dataclass, field
from typing import Any

import httpx
from PySide6.QtCore import QObject, Signal

REDACTED = "Bearer ***"
MAX_BODY = 64 * 1024
SECRET_HEADERS = ("authorization", "proxy-authorization", "cookie", "set-cookie")
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
USER_LIMIT = 2000  # the user's own requests kept
BACKGROUND_LIMIT = 500  # background polls kept (about eight minutes of health polls)

_background: ContextVar[str] = ContextVar("stratoscope_background", default="")


@contextmanager
def background(reason: str) -> Iterator[None]:
    """Mark the requests made inside (and in tasks started inside) as the app's own polling;
    ``reason`` says which loop (shown in the inspector)."""
    token = _background.set(reason)
    try:
        yield
    finally:
        _background.reset(token)


def background_context(reason: str) -> Context:
    """A copy of the current context with requests marked as ``reason`` (for a task started
    from a timer, which runs outside any task's context)."""
    ctx = copy_context()
    ctx.run(_background.set, reason)
    return ctx


def background_reason() -> str:
    """Why the current code runs in the background ("" for the user's own actions)."""
    return _background.get()


@dataclass
class Exchange:
    """One request and its response, as the inspector shows them."""

    id: int
    method: str
    url: str
    request_headers: dict[str, str]
    request_body: str
    started: float
    status: int | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: str = ""
    elapsed_ms: float | None = None
    error: str = ""
    authorization: str = ""  # kept apart, shown only when the user asks for it
    background: str = ""  # the loop that made it ("" when the user's action did)

    @property
    def is_write(self) -> bool:
        return self.method.upper() in WRITE_METHODS

    def curl(self, reveal: bool = False) -> str:
        """The request as a curl command line (token redacted unless ``reveal``)."""
        parts = ["curl", "-s", "-X", self.method, _q(self.url)]
        for k, v in self.request_headers.items():
            if k.lower() in ("content-length", "host", "accept-encoding", "connection"):
                continue
            shown = self.authorization if reveal and k.lower() == "authorization" else v
            parts += ["-H", _q(f"{k}: {shown or v}")]
        if self.request_body:
            parts += ["--data-raw", _q(self.request_body)]
        return " ".join(parts)


def _q(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def _text(data: bytes) -> str:
    cut = data[:MAX_BODY]
    text = cut.decode("utf-8", "replace")
    return text + ("\n... (truncated)" if len(data) > MAX_BODY else "")


class InspectorFeed(QObject):
    """Attach :attr:`hooks` to a ``StratoClient``; emits ``added``/``updated`` per exchange and
    ``removed`` when one is dropped to stay within its kind's budget (oldest first).

    ``exchanges`` holds at most ``limit`` user requests plus ``background_limit`` background
    ones, oldest first."""

    added = Signal(object)  # Exchange
    updated = Signal(object)  # Exchange (response arrived)
    removed = Signal(object)  # Exchange (dropped: its kind's budget is full)

    def __init__(
        self,
        limit: int = USER_LIMIT,
        parent: QObject | None = None,
        *,
        background_limit: int = BACKGROUND_LIMIT,
    ) -> None:
        super().__init__(parent)
        self.exchanges: deque[Exchange] = deque()
        self.limits = {False: max(1, limit), True: max(1, background_limit)}
        self._counts = {False: 0, True: 0}
        self._next = 1

    @property
    def capacity(self) -> int:
        return self.limits[False] + self.limits[True]

    def count(self, background: bool) -> int:
        """How many exchanges of the kind are held."""
        return self._counts[background]

    def append(self, ex: Exchange) -> None:
        """Hold ``ex`` (dropping the oldest of its kind when the budget is full); emits
        ``removed`` for the dropped one, then ``added``."""
        kind = bool(ex.background)
        if self._counts[kind] >= self.limits[kind]:
            oldest = next(e for e in self.exchanges if bool(e.background) == kind)
            self.exchanges.remove(oldest)
            self._counts[kind] -= 1
            self.removed.emit(oldest)
        self.exchanges.append(ex)
        self._counts[kind] += 1
        self.added.emit(ex)

    def clear(self) -> None:
        self.exchanges.clear()
        self._counts = {False: 0, True: 0}

    @property
    def hooks(self) -> dict[str, list[Any]]:
        return {"request": [self._on_request], "response": [self._on_response]}

    async def _on_request(self, request: httpx.Request) -> None:
        headers = {}
        auth = ""
        for k, v in request.headers.items():
            if k.lower() in SECRET_HEADERS:
                auth = v if k.lower() == "authorization" else auth
                headers[k] = REDACTED if k.lower() == "authorization" else "***"
            else:
                headers[k] = v
        body = _text(request.content) if request.content else ""
        ex = Exchange(
            self._next,
            request.method,
            str(request.url),
            headers,
            body,
            time.perf_counter(),
            authorization=auth,
            background=background_reason(),
        )
        self._next += 1
        request.extensions["stratoscope.exchange"] = ex
        self.append(ex)

    def on_error(self, request: httpx.Request, message: str) -> None:
        """The request got no response (refused, reset, timed out)."""
        ex = request.extensions.get("stratoscope.exchange")
        if not isinstance(ex, Exchange):
            return
        ex.error = message
        ex.elapsed_ms = (time.perf_counter() - ex.started) * 1000
        self.updated.emit(ex)

    async def _on_response(self, response: httpx.Response) -> None:
        ex = response.request.extensions.get("stratoscope.exchange")
        if not isinstance(ex, Exchange):
            return
        await response.aread()
        ex.status = response.status_code
        ex.elapsed_ms = (time.perf_counter() - ex.started) * 1000
        ex.response_headers = {
            k: ("***" if k.lower() in SECRET_HEADERS else v) for k, v in response.headers.items()
        }
        ex.response_body = _text(response.content)
        self.updated.emit(ex)
