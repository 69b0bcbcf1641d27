"""Typed errors of the STRATO client: what went wrong, with the request that failed.

The UI shows ``str(error)`` (= :meth:`StratoError.user_text`): words first ("Not allowed (HTTP
403): ..."), then the server's own message; the status, method and URL stay on the error
(``detail``) for the HTTP inspector and for people who need them.
"""

from __future__ import annotations

import json
from typing import Any


class StratoError(Exception):
    """Base of every error the client raises on purpose."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        method: str = "",
        url: str = "",
        body: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.method = method
        self.url = url
        self.body = body

    def __str__(self) -> str:
        return self.user_text()

    def user_text(self) -> str:
        """What the user reads: a lead in words naming the HTTP status, then the message."""
        if self.status is None:
            return self.message
        return f"{lead_for(self.status, self.method)} (HTTP {self.status}): {self.message}"

    @property
    def detail(self) -> str:
        """Status, method and URL, for a tooltip or a log line."""
        parts = [f"HTTP {self.status}" if self.status is not None else ""]
        if self.method:
            parts.append(f"{self.method} {self.url}")
        return " · ".join(p for p in parts if p)


# What each refusal means, in words: the lead of the user text (by status, then method).
LEADS = {
    400: "The node refused the request",
    401: "Not signed in, or the sign-in expired",
    403: "Not allowed",
    404: "Not found",
    405: "The node does not offer this",
    409: "Conflict with the node's state",
    413: "Too large for the node",
    422: "The transaction failed",
    429: "The node is busy (too many requests)",
    502: "The node's gateway could not reach its API",
    503: "The node is not ready",
    504: "The node's gateway timed out",
}


def lead_for(status: int, method: str = "") -> str:
    """The words a status code stands for; reads get "could not answer" rather than "refused"."""
    if status == 400 and method == "GET":
        return "The node could not answer the query"
    if status in LEADS:
        return LEADS[status]
    if status >= 500:
        return "The node failed"
    return "The node refused the request"


def error_text(exc: BaseException) -> str:
    """The one way an error becomes text for the user (the message bar, dialogs, results)."""
    return exc.user_text() if isinstance(exc, StratoError) else str(exc)


class NetworkError(StratoError):
    """The node could not be reached, or did not answer in time."""


class AuthError(StratoError):
    """Missing, invalid or expired credentials (401/403, or a refused OAuth grant)."""


class RequestError(StratoError):
    """The node refused the request as invalid (400, 404, 409, 413 ...)."""


class TransactionFailed(StratoError):
    """A transaction ran and failed (422, or a ``Failure`` result)."""


class ServerError(StratoError):
    """The node failed (5xx)."""


def server_message(text: str) -> str:
    """The human part of an error body, whatever shape the service used."""
    try:
        data: Any = json.loads(text)
    except ValueError:
        return text.strip()[:500] or "(empty response)"
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        for key in ("message", "error_description", "error", "details"):
            v = data.get(key)
            if isinstance(v, str) and v:
                return v
            if isinstance(v, dict) and isinstance(v.get("message"), str):
                return str(v["message"])
    return text.strip()[:500]


def error_for(status: int, text: str, method: str, url: str) -> StratoError:
    message = server_message(text)
    cls: type[StratoError]
    if status in (401, 403):
        cls = AuthError
    elif status == 422:
        cls = TransactionFailed
    elif status >= 500:
        cls = ServerError
    else:
        cls = RequestError
    return cls(message, status=status, method=method, url=url, body=text[:10_000])


def network_reason(exc: BaseException) -> str:
    """Why a request got no answer, in words: the underlying OS error when there is one
    (httpx says "All connection attempts failed" for a refused connection)."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    names = {type(e).__name__ for e in chain}
    if any("Timeout" in n for n in names) or any(isinstance(e, TimeoutError) for e in chain):
        return "no answer in time"
    for e in chain:
        if isinstance(e, ConnectionRefusedError):
            return "connection refused (nothing listens at that address and port)"
        if type(e).__name__ == "gaierror" or "Name or service not known" in str(e):
            return "the host name cannot be resolved"
        if isinstance(e, ConnectionResetError):
            return "the connection was reset"
        if "CERTIFICATE_VERIFY_FAILED" in str(e) or type(e).__name__.startswith("SSL"):
            return f"the TLS handshake failed ({e})"
        if isinstance(e, OSError) and e.errno in (101, 113):  # ENETUNREACH, EHOSTUNREACH
            return "no route to the host"
    return str(exc) or type(exc).__name__
