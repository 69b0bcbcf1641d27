"""Typed errors of the STRATO client: what went wrong, with the request that failed.

The UI shows ``str(error)``: one sentence with the server's own message when it sent one.
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
        where = f" ({self.method} {self.url})" if self.method else ""
        code = f"{self.status}: " if self.status is not None else ""
        return f"{code}{self.message}{where}"


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
