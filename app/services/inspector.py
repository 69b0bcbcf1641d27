"""The HTTP inspector feed: every request the client makes, with timing, secrets redacted."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import httpx
from PySide6.QtCore import QObject, Signal

REDACTED = "Bearer ***"
MAX_BODY = 64 * 1024
SECRET_HEADERS = ("authorization", "proxy-authorization", "cookie", "set-cookie")


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

    def curl(self, reveal: bool = False) -> str:
        """The request as a curl command line (token redacted unless ``reveal``)."""
        parts = ["curl", "-X", self.method, _q(self.url)]
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
    """Attach :attr:`hooks` to a ``StratoClient``; emits ``added``/``updated`` per exchange."""

    added = Signal(object)  # Exchange
    updated = Signal(object)  # Exchange (response arrived)

    def __init__(self, limit: int = 2000, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.exchanges: deque[Exchange] = deque(maxlen=limit)
        self._next = 1

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
        )
        self._next += 1
        request.extensions["stratoscope.exchange"] = ex
        self.exchanges.append(ex)
        self.added.emit(ex)

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
