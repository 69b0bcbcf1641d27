"""Issue 26 item 10: the sign-in throttle sees the real peer, sign-in time does not tell which
names are users, and client secrets are throttled like passwords (real node over loopback).

One node for the module; every test signs in from its own loopback addresses (all of 127/8 is
loopback), so the throttle's per-address counts of one test do not reach another.
"""

from __future__ import annotations

import base64
import statistics
import time

import httpx

from tests.integration.node_fixture import RunningNode


def _from(node: RunningNode, address: str) -> httpx.Client:
    return node.new_client(transport=httpx.HTTPTransport(local_address=address))


def test_x_forwarded_for_does_not_move_the_throttle(node: RunningNode) -> None:
    """uvicorn trusts X-Forwarded-For from 127.0.0.1 by default: a guesser there could name a new
    address per attempt and never reach the per-address allowance."""
    guesser = _from(node, "127.0.0.1")
    statuses = []
    for i in range(7):
        r = guesser.post(
            "/auth/token",
            data={"grant_type": "password", "username": "dave", "password": f"guess-{i}"},
            headers={"X-Forwarded-For": f"10.9.8.{i + 1}"},
        )
        statuses.append(r.status_code)
    assert statuses == [400] * 5 + [429] * 2, statuses
    # the lock is on the real peer: dave signs in from elsewhere, with or without the header
    r = _from(node, "127.0.0.2").post(
        "/auth/token",
        data={"grant_type": "password", "username": "dave", "password": "dave"},
        headers={"X-Forwarded-For": "127.0.0.1"},
    )
    assert r.status_code == 200, r.text


def _sign_in_seconds(client: httpx.Client, username: str) -> float:
    start = time.perf_counter()
    r = client.post(
        "/auth/token",
        data={"grant_type": "password", "username": username, "password": "not-the-password"},
    )
    elapsed = time.perf_counter() - start
    assert r.status_code == 400, r.text
    assert r.json()["error"] == "invalid_grant"
    assert r.json()["error_description"] == "invalid username or password"
    return elapsed


def test_unknown_user_costs_as_much_as_a_wrong_password(node: RunningNode) -> None:
    """A wrong password for a real user pays scrypt; an unknown name must pay it too. Medians of
    interleaved attempts, each from a fresh address (no lock), with a generous bound."""
    known, unknown = [], []
    for i in range(1, 8):
        known_client = _from(node, f"127.0.1.{i}")
        unknown_client = _from(node, f"127.0.2.{i}")
        known_client.get("/health")  # connections open before the clock starts
        unknown_client.get("/health")
        known.append(_sign_in_seconds(known_client, "alice"))
        unknown.append(_sign_in_seconds(unknown_client, f"nobody-{i}"))
    k, u = statistics.median(known), statistics.median(unknown)
    assert u >= 0.5 * k, f"unknown user {u * 1000:.1f} ms vs known user {k * 1000:.1f} ms"


def _basic(client_id: str, secret: str) -> dict[str, str]:
    raw = f"{client_id}:{secret}".encode()
    return {"Authorization": "Basic " + base64.b64encode(raw).decode()}


def test_client_secret_guesses_are_throttled(node: RunningNode) -> None:
    client_id, secret = node.oauth_client()
    guesser = _from(node, "127.0.3.1")
    statuses = []
    for i in range(7):
        r = guesser.post(
            "/auth/token",
            data={"grant_type": "client_credentials"},
            headers=_basic(client_id, f"guess-{i}"),
        )
        statuses.append(r.status_code)
        if r.status_code == 429:
            assert r.json()["error"] == "invalid_client"
            assert int(r.headers["retry-after"]) >= 1
    assert statuses == [401] * 5 + [429] * 2, statuses
    # while locked, the right secret from the guesser's address is refused unchecked
    r = guesser.post(
        "/auth/token", data={"grant_type": "client_credentials"}, headers=_basic(client_id, secret)
    )
    assert r.status_code == 429, r.text
    # the form fields count the same as Basic credentials
    r = guesser.post(
        "/auth/token",
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": "x"},
    )
    assert r.status_code == 429, r.text
    # the client itself, from another address, gets its token
    r = _from(node, "127.0.3.2").post(
        "/auth/token", data={"grant_type": "client_credentials"}, headers=_basic(client_id, secret)
    )
    assert r.status_code == 200, r.text
    assert r.json()["access_token"]


def test_client_secret_guesses_through_the_password_grant_are_throttled(
    node: RunningNode,
) -> None:
    """A password grant with client credentials checks the secret first: same throttle."""
    client_id, _ = node.oauth_client()
    guesser = _from(node, "127.0.3.3")
    statuses = []
    for i in range(7):
        r = guesser.post(
            "/auth/token",
            data={"grant_type": "password", "username": "bob", "password": "bob"},
            headers=_basic(client_id, f"guess-{i}"),
        )
        statuses.append(r.status_code)
    assert statuses == [401] * 5 + [429] * 2, statuses
