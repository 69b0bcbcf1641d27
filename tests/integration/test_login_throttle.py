"""Issue 17 item 6: the OAuth password grant slows down repeated failures (real node, HTTP).

One node for the module. Another client address is 127.0.0.2 (all of 127/8 is loopback).
"""

from __future__ import annotations

import time

import httpx

from tests.integration.node_fixture import RunningNode

GRANT = {"grant_type": "password", "username": "carol"}


def _from(node: RunningNode, address: str) -> httpx.Client:
    return node.new_client(transport=httpx.HTTPTransport(local_address=address))


def test_rapid_wrong_passwords_get_429_and_others_still_sign_in(node: RunningNode) -> None:
    guesser = _from(node, "127.0.0.1")
    statuses = []
    for i in range(8):
        r = guesser.post("/auth/token", data={**GRANT, "password": f"guess-{i}"})
        statuses.append(r.status_code)
        if r.status_code == 429:
            assert int(r.headers["retry-after"]) >= 1
            assert r.json()["error"] == "invalid_grant"
            assert "retry in" in r.json()["error_description"]
    assert statuses[:5] == [400] * 5
    assert statuses[5:] == [429] * 3
    # while locked, even the right password from the guesser's address is refused unchecked
    r = guesser.post("/auth/token", data={**GRANT, "password": "carol"})
    assert r.status_code == 429
    # the user herself, from another address, signs in
    r = _from(node, "127.0.0.2").post("/auth/token", data={**GRANT, "password": "carol"})
    assert r.status_code == 200, r.text
    assert r.json()["access_token"]
    # another user from the guesser's address is not affected
    r = guesser.post(
        "/auth/token", data={"grant_type": "password", "username": "bob", "password": "bob"}
    )
    assert r.status_code == 200, r.text


def test_lock_lifts_after_retry_after(node: RunningNode) -> None:
    c = _from(node, "127.0.0.3")
    for i in range(5):
        r = c.post("/auth/token", data={**GRANT, "password": f"nope-{i}"})
        assert r.status_code == 400, r.text
    r = c.post("/auth/token", data={**GRANT, "password": "carol"})
    assert r.status_code == 429
    wait = int(r.headers["retry-after"])
    assert wait == 1  # the first lock is the shortest
    # waiting it out (the node's clock, not a timing assertion): the right password works
    time.sleep(wait + 0.1)
    r = c.post("/auth/token", data={**GRANT, "password": "carol"})
    assert r.status_code == 200, r.text
    # and the success cleared the count: a new failure is a plain 400
    r = c.post("/auth/token", data={**GRANT, "password": "wrong-again"})
    assert r.status_code == 400


def test_sign_in_form_is_throttled_too(node: RunningNode) -> None:
    c = _from(node, "127.0.0.4")
    r = c.get("/auth/.well-known/openid-configuration")
    assert r.status_code == 200
    params = {
        "client_id": "stratoscope-desktop",
        "redirect_uri": "http://127.0.0.1:53682/callback",
        "response_type": "code",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "code_challenge_method": "S256",
        "scope": "openid",
    }
    codes = []
    for i in range(7):
        r = c.post("/auth/authorize", data={**params, "username": "alice", "password": f"x{i}"})
        codes.append(r.status_code)
    assert codes[:5] == [401] * 5, codes
    assert codes[5:] == [429, 429], codes
    assert "Too many failed sign-ins" in r.text
    assert int(r.headers["retry-after"]) >= 1
