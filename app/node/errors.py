"""Errors the node's HTTP layer turns into responses."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A client-visible failure: HTTP ``status`` and a JSON ``body``.

    Most platform errors are a bare JSON string (the Haskell services encode ``Text``); the body
    is kept as given so that clients matching on the platform's texts keep working.
    """

    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(body if isinstance(body, str) else repr(body))
        self.status = status
        self.body = body
        self.headers = headers or {}


def bad_request(message: str) -> ApiError:
    return ApiError(400, message)
