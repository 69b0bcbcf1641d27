"""Errors read as words first; the status code stays on the error."""

from __future__ import annotations

import asyncio
import socket

import httpx

from app.client.errors import (
    AuthError,
    NetworkError,
    StratoError,
    error_for,
    error_text,
    network_reason,
)


def test_refusals_lead_with_words_and_keep_the_status() -> None:
    err = error_for(400, '"txs[0] is wrong"', "POST", "/strato/v2.3/transaction")
    assert str(err) == "The node refused the request (HTTP 400): txs[0] is wrong"
    assert err.status == 400 and err.detail == "HTTP 400 · POST /strato/v2.3/transaction"
    forbidden = error_for(403, '{"error": "no member"}', "POST", "/apps/CarDemo/car")
    assert isinstance(forbidden, AuthError)
    assert error_text(forbidden) == "Not allowed (HTTP 403): no member"
    assert str(error_for(400, "bad", "GET", "/x")).startswith("The node could not answer")
    assert str(error_for(422, "revert", "POST", "/x")).startswith("The transaction failed")
    assert str(error_for(599, "boom", "GET", "/x")) == "The node failed (HTTP 599): boom"
    assert str(error_for(418, "tea", "GET", "/x")) == "The node refused the request (HTTP 418): tea"


def test_errors_without_a_status_are_their_message() -> None:
    assert str(StratoError("enter a user name")) == "enter a user name"
    assert error_text(ValueError("plain")) == "plain"
    assert NetworkError("x", method="GET", url="/health").detail == "GET /health"


def test_network_reasons_in_words() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def fail(url: str) -> BaseException:
        async with httpx.AsyncClient(timeout=5) as client:
            try:
                await client.get(url)
            except httpx.HTTPError as exc:
                return exc
        raise AssertionError("answered")

    refused = asyncio.run(fail(f"http://127.0.0.1:{port}/"))
    assert network_reason(refused).startswith("connection refused")
    unknown = asyncio.run(fail("http://no-such-host.invalid/"))
    assert network_reason(unknown) == "the host name cannot be resolved"
    assert network_reason(httpx.ReadTimeout("slow")) == "no answer in time"
