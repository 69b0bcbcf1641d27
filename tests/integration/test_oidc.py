"""The node's OIDC issuer over real HTTP: a uvicorn server in a thread, httpx as the client."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import socket
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import jwt
import pytest
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route

from app.node import oidc
from app.node.oidc import (
    DEFAULT_CLIENT_ID,
    KEY_FILE_NAME,
    InvalidJwt,
    OidcIssuer,
    UnknownUserError,
)

# A confidential client whose secret needs URL-encoding inside HTTP Basic credentials.
ADMIN_CLIENT = "node:admin client"
ADMIN_SECRET = "s3cr:et/+ &=%é"
GUI_CLIENT = "stratoscope-desktop"  # a public client (auth code + PKCE)
REDIRECT = "http://127.0.0.1:53682/callback?from=test"


class Directory:
    """A small in-memory UserDirectory."""

    def __init__(self) -> None:
        self.users = {
            "alice": ("alice-pass", "alice@acme.example"),
            "bob": ("bob-pass", "bob@globex.example"),
            "admin": ("admin-pass", "admin@blockapps.example"),
        }
        self.confidential = {
            ADMIN_CLIENT: (ADMIN_SECRET, "admin"),
            "ghost-client": ("boo", "nobody"),
        }
        self.public = {GUI_CLIENT, "other-app"}

    def check_password(self, username: str, password: str) -> bool:
        entry = self.users.get(username)
        return entry is not None and hmac.compare_digest(entry[0].encode(), password.encode())

    def email_of(self, username: str) -> str | None:
        entry = self.users.get(username)
        return None if entry is None else entry[1]

    def client_subject(self, client_id: str, client_secret: str) -> str | None:
        entry = self.confidential.get(client_id)
        if entry is None or not hmac.compare_digest(entry[0].encode(), client_secret.encode()):
            return None
        return entry[1]

    def client_exists(self, client_id: str) -> bool:
        return client_id in self.public or client_id in self.confidential


@dataclass
class Node:
    issuer: OidcIssuer
    base: str
    data_dir: Path
    http: httpx.Client

    def private_key(self) -> rsa.RSAPrivateKey:
        key = serialization.load_pem_private_key((self.data_dir / KEY_FILE_NAME).read_bytes(), None)
        assert isinstance(key, rsa.RSAPrivateKey)
        return key


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Node]:
    data_dir = tmp_path_factory.mktemp("oidc-node")
    issuer = OidcIssuer(data_dir, Directory())

    async def protected(request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return PlainTextResponse("missing token", status_code=401)
        try:
            claims = issuer.verify(token)
        except InvalidJwt as exc:
            return PlainTextResponse(f"bearer token invalid: invalid jwt: {exc}", status_code=403)
        return JSONResponse(claims)

    app = Starlette(routes=[Mount("/auth", routes=issuer.routes()), Route("/protected", protected)])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="off", ws="none")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.01)
        base = f"http://127.0.0.1:{port}"
        issuer.base_url = base
        with httpx.Client(base_url=base, timeout=10, follow_redirects=False) as http:
            yield Node(issuer, base, data_dir, http)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
    assert not thread.is_alive()


# ---- helpers ------------------------------------------------------------------------------


def _basic(client_id: str, secret: str) -> str:
    raw = f"{quote(client_id, safe='')}:{quote(secret, safe='')}".encode()
    return "Basic " + base64.b64encode(raw).decode("ascii")


def _token(node: Node, data: dict[str, str], **kwargs: Any) -> httpx.Response:
    return node.http.post("/auth/token", data=data, **kwargs)


def _password_tokens(node: Node, user: str = "alice") -> dict[str, Any]:
    r = _token(
        node,
        {"grant_type": "password", "username": user, "password": f"{user}-pass"},
    )
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _forge(node: Node, claims: dict[str, Any], **header: Any) -> str:
    now = int(time.time())
    full = {
        "iss": node.issuer.issuer,
        "sub": "alice",
        "aud": GUI_CLIENT,
        "iat": now,
        "nbf": now,
        "exp": now + 600,
        "typ": "Bearer",
        "email": "alice@acme.example",
        **claims,
    }
    headers = {"kid": node.issuer.kid, **header}
    return jwt.encode(full, node.private_key(), algorithm="RS256", headers=headers)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    return verifier, _b64(hashlib.sha256(verifier.encode()).digest())


def _authorize_params(challenge: str, **extra: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": GUI_CLIENT,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "st-123",
        "scope": "openid email",
        **extra,
    }


def _get_code(node: Node, challenge: str, **extra: str) -> str:
    form = {**_authorize_params(challenge, **extra), "username": "bob", "password": "bob-pass"}
    r = node.http.post("/auth/authorize", data=form)
    assert r.status_code == 302, r.text
    location = r.headers["location"]
    assert location.startswith("http://127.0.0.1:53682/callback?from=test&")
    query = parse_qs(urlsplit(location).query)
    assert query["state"] == [extra.get("state", "st-123")]
    return query["code"][0]


def _exchange(node: Node, code: str, verifier: str, /, **extra: str) -> httpx.Response:
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "code_verifier": verifier,
        "client_id": GUI_CLIENT,
        **extra,
    }
    return _token(node, data)


def _reject_reason(node: Node, token: str) -> str:
    with pytest.raises(InvalidJwt) as info:
        node.issuer.verify(token)
    return str(info.value)


# ---- discovery and keys -------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["", "/"])
def test_discovery_document_with_and_without_trailing_slash(node: Node, suffix: str) -> None:
    r = node.http.get("/auth/.well-known/openid-configuration" + suffix)
    assert r.status_code == 200
    doc = r.json()
    issuer = f"{node.base}/auth"
    assert doc["issuer"] == issuer
    assert doc["token_endpoint"] == f"{issuer}/token"
    assert doc["authorization_endpoint"] == f"{issuer}/authorize"
    assert doc["jwks_uri"] == f"{issuer}/jwks"
    assert doc["userinfo_endpoint"] == f"{issuer}/userinfo"
    assert doc["end_session_endpoint"] == f"{issuer}/logout"
    assert doc["response_types_supported"] == ["code"]
    assert set(doc["grant_types_supported"]) == {
        "password",
        "client_credentials",
        "authorization_code",
        "refresh_token",
    }
    assert doc["code_challenge_methods_supported"] == ["S256"]
    assert doc["id_token_signing_alg_values_supported"] == ["RS256"]
    assert doc["subject_types_supported"] == ["public"]
    assert "openid" in doc["scopes_supported"]
    assert set(doc["token_endpoint_auth_methods_supported"]) == {
        "client_secret_basic",
        "client_secret_post",
        "none",
    }


@pytest.mark.parametrize(
    "path", ["/auth/jwks", "/auth/jwks/", "/auth/protocol/openid-connect/certs/"]
)
def test_jwks_publishes_the_signing_key(node: Node, path: str) -> None:
    r = node.http.get(path)
    assert r.status_code == 200
    (key,) = r.json()["keys"]
    assert key["kty"] == "RSA" and key["use"] == "sig" and key["alg"] == "RS256"
    assert key["kid"] == node.issuer.kid
    public = node.private_key().public_key().public_numbers()
    n = int.from_bytes(base64.urlsafe_b64decode(key["n"] + "=" * (-len(key["n"]) % 4)), "big")
    assert n == public.n and key["e"] == "AQAB"
    # The kid is the RFC 7638 thumbprint of the key.
    canonical = json.dumps({"e": key["e"], "kty": "RSA", "n": key["n"]}, separators=(",", ":"))
    assert key["kid"] == _b64(hashlib.sha256(canonical.encode()).digest())
    # A token verifies with the published key alone (what blockapps-rest does).
    token = _password_tokens(node)["access_token"]
    pub = jwt.PyJWK(key).key
    claims = jwt.decode(token, pub, algorithms=["RS256"], audience=DEFAULT_CLIENT_ID)
    assert claims["preferred_username"] == "alice"


def test_key_is_persisted_with_mode_0600(tmp_path: Path) -> None:
    first = OidcIssuer(tmp_path / "data", Directory())
    key_file = tmp_path / "data" / KEY_FILE_NAME
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert os.listdir(tmp_path / "data") == [KEY_FILE_NAME]  # no temp file left behind
    second = OidcIssuer(tmp_path / "data", Directory())
    assert second.kid == first.kid
    token = first.issue("bob")["access_token"]
    assert second.verify(token)["sub"] == "bob"
    other = OidcIssuer(tmp_path / "elsewhere", Directory())
    assert other.kid != first.kid


def test_accepted_issuers_swap_loopback_names(tmp_path: Path) -> None:
    issuer = OidcIssuer(tmp_path, Directory())
    issuer.base_url = "http://127.0.0.1:9000/"
    assert issuer.issuer == "http://127.0.0.1:9000/auth"
    assert issuer.accepted_issuers() == {
        "http://127.0.0.1:9000/auth",
        "http://localhost:9000/auth",
    }
    issuer.base_url = "https://node.example"
    assert issuer.accepted_issuers() == {"https://node.example/auth"}
    with pytest.raises(UnknownUserError):
        issuer.issue("mallory")


# ---- password grant -----------------------------------------------------------------------


def test_password_grant_issues_rs256_tokens(node: Node) -> None:
    body = _password_tokens(node)
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] > 60
    assert body["scope"] == "openid email profile"
    header = jwt.get_unverified_header(body["access_token"])
    assert header["alg"] == "RS256" and header["kid"] == node.issuer.kid
    claims = node.issuer.verify(body["access_token"])
    assert claims["iss"] == f"{node.base}/auth"
    assert claims["sub"] == claims["preferred_username"] == "alice"
    assert claims["email"] == "alice@acme.example"
    assert claims["aud"] == claims["azp"] == DEFAULT_CLIENT_ID  # no client named: anonymous
    assert claims["typ"] == "Bearer" and claims["jti"]
    assert claims["exp"] - int(time.time()) > 60
    assert claims["nbf"] <= time.time() and claims["iat"] <= time.time()
    options: Any = {"verify_signature": False}
    id_claims = jwt.decode(body["id_token"], options=options)
    refresh = jwt.decode(body["refresh_token"], options=options)
    assert id_claims["typ"] == "ID" and id_claims["email"] == "alice@acme.example"
    assert refresh["typ"] == "Refresh"
    assert refresh["exp"] - refresh["iat"] == 24 * 3600
    r = node.http.get("/protected", headers={"Authorization": f"Bearer {body['access_token']}"})
    assert r.status_code == 200 and r.json()["sub"] == "alice"


@pytest.mark.parametrize(
    ("username", "password"), [("alice", "wrong"), ("mallory", "x"), ("alice", "ALICE-PASS")]
)
def test_password_grant_bad_credentials(node: Node, username: str, password: str) -> None:
    r = _token(node, {"grant_type": "password", "username": username, "password": password})
    assert r.status_code == 400
    assert r.json()["error"] == "invalid_grant"
    assert r.headers["cache-control"] == "no-store"


def test_password_grant_missing_fields_and_unknown_client(node: Node) -> None:
    r = _token(node, {"grant_type": "password", "username": "alice"})
    assert r.status_code == 400 and r.json()["error"] == "invalid_request"
    r = _token(
        node,
        {
            "grant_type": "password",
            "username": "alice",
            "password": "alice-pass",
            "client_id": "no-such-app",
        },
    )
    assert r.status_code == 401 and r.json()["error"] == "invalid_client"
    data = {"grant_type": "password", "username": "alice", "password": "alice-pass"}
    r = _token(node, {**data, "client_id": GUI_CLIENT})
    assert r.status_code == 200
    assert node.issuer.verify(r.json()["access_token"])["aud"] == GUI_CLIENT
    r = _token(node, {**data, "client_secret": "orphan"})
    assert r.status_code == 401 and r.json()["error"] == "invalid_client"


def test_password_grant_with_confidential_client_in_basic_auth(node: Node) -> None:
    data = {"grant_type": "password", "username": "bob", "password": "bob-pass", "scope": "email"}
    r = _token(node, data, headers={"Authorization": _basic(ADMIN_CLIENT, ADMIN_SECRET)})
    assert r.status_code == 200, r.text
    claims = node.issuer.verify(r.json()["access_token"])
    assert claims["sub"] == "bob" and claims["azp"] == ADMIN_CLIENT
    assert claims["scope"] == "email"
    r = _token(node, data, headers={"Authorization": _basic(ADMIN_CLIENT, "nope")})
    assert r.status_code == 401 and r.json()["error"] == "invalid_client"


# ---- client_credentials grant -------------------------------------------------------------


def test_client_credentials_with_urlencoded_basic_auth(node: Node) -> None:
    r = _token(
        node,
        {"grant_type": "client_credentials", "scope": "email openid"},
        headers={"Authorization": _basic(ADMIN_CLIENT, ADMIN_SECRET)},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert {"access_token", "id_token", "refresh_token", "scope"} <= body.keys()
    assert body["scope"] == "email openid"
    claims = node.issuer.verify(body["access_token"])
    assert claims["sub"] == "admin" and claims["email"] == "admin@blockapps.example"
    assert claims["aud"] == ADMIN_CLIENT


def test_client_credentials_with_form_fields(node: Node) -> None:
    data = {
        "grant_type": "client_credentials",
        "client_id": ADMIN_CLIENT,
        "client_secret": ADMIN_SECRET,
    }
    r = _token(node, data)
    assert r.status_code == 200, r.text
    assert node.issuer.verify(r.json()["access_token"])["sub"] == "admin"


@pytest.mark.parametrize(
    ("data", "authorization"),
    [
        ({"client_id": ADMIN_CLIENT, "client_secret": "wrong"}, None),
        ({}, _basic(ADMIN_CLIENT, "wrong")),
        ({"client_id": GUI_CLIENT}, None),  # a public client has no subject
        ({}, None),
        ({}, "Basic not*base64"),
        ({}, "Basic " + base64.b64encode(b"no-colon").decode()),
    ],
)
def test_client_credentials_rejects_bad_clients(
    node: Node, data: dict[str, str], authorization: str | None
) -> None:
    headers = {"Authorization": authorization} if authorization else {}
    r = _token(node, {"grant_type": "client_credentials", **data}, headers=headers)
    assert r.status_code == 401
    assert r.json()["error"] == "invalid_client"
    assert r.headers["www-authenticate"].startswith("Basic")


def test_client_credentials_subject_must_be_a_user(node: Node) -> None:
    r = _token(
        node,
        {"grant_type": "client_credentials"},
        headers={"Authorization": _basic("ghost-client", "boo")},
    )
    assert r.status_code == 400 and r.json()["error"] == "invalid_grant"


def test_basic_auth_and_form_secret_together_is_invalid_request(node: Node) -> None:
    r = _token(
        node,
        {"grant_type": "client_credentials", "client_secret": ADMIN_SECRET},
        headers={"Authorization": _basic(ADMIN_CLIENT, ADMIN_SECRET)},
    )
    assert r.status_code == 400 and r.json()["error"] == "invalid_request"


# ---- malformed token requests ---------------------------------------------------------------


def test_unsupported_and_missing_grant_type(node: Node) -> None:
    r = _token(node, {"grant_type": "implicit"})
    assert r.status_code == 400 and r.json()["error"] == "unsupported_grant_type"
    r = _token(node, {"username": "alice"})
    assert r.status_code == 400 and r.json()["error"] == "invalid_request"


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b"grant_type=password&username=" + b"a" * 10_000 + b"&password=x", None),
        (b"grant_type=password&username=" + b"a" * 100_000, None),
        (b"grant_type=password&grant_type=client_credentials", None),
        (b"grant_type=password&username=%ff%fe&password=x", None),
        (b"&".join(b"f%d=1" % i for i in range(100)), None),
        (b"grant_type=password&username=\xff", None),
        (b'{"grant_type": "password"}', "application/json"),
        (b"", "text/plain"),
        (b"grant_type=password&username=a%00b&password=x", None),
        (b"%%%===&&&", None),
    ],
)
def test_malformed_token_requests_get_400(
    node: Node, content: bytes, content_type: str | None
) -> None:
    headers = {"Content-Type": content_type or "application/x-www-form-urlencoded"}
    r = node.http.post("/auth/token", content=content, headers=headers)
    assert r.status_code == 400, r.text
    assert r.json()["error"] in {"invalid_request", "unsupported_grant_type"}


# ---- refresh_token grant ------------------------------------------------------------------


def test_refresh_grant(node: Node) -> None:
    tokens = _password_tokens(node, "bob")
    r = _token(node, {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
    assert r.status_code == 200, r.text
    fresh = r.json()
    claims = node.issuer.verify(fresh["access_token"])
    assert claims["sub"] == "bob" and claims["azp"] == DEFAULT_CLIENT_ID
    assert fresh["access_token"] != tokens["access_token"]
    # Narrowing the scope is allowed, widening is not.
    r = _token(
        node,
        {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "scope": "email"},
    )
    assert r.status_code == 200 and r.json()["scope"] == "email"
    r = _token(
        node,
        {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "scope": "root"},
    )
    assert r.status_code == 400 and r.json()["error"] == "invalid_scope"


@pytest.mark.parametrize("kind", ["access_token", "id_token", "garbage", "other_client"])
def test_refresh_grant_rejects_wrong_tokens(node: Node, kind: str) -> None:
    tokens = _password_tokens(node, "bob")
    data = {"grant_type": "refresh_token", "refresh_token": tokens.get(kind, "a.b.c")}
    if kind == "other_client":
        data = {**data, "refresh_token": tokens["refresh_token"], "client_id": "other-app"}
    r = _token(node, data)
    assert r.status_code == 400
    assert r.json()["error"] == "invalid_grant"


# ---- authorization code + PKCE ------------------------------------------------------------


@pytest.mark.parametrize("path", ["/auth/authorize", "/auth/authorize/"])
def test_authorize_renders_a_self_contained_login_form(node: Node, path: str) -> None:
    _, challenge = _pkce()
    r = node.http.get(path, params=_authorize_params(challenge))
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    page = r.text
    assert '<form method="post">' in page and 'name="password"' in page
    assert f'name="code_challenge" value="{challenge}"' in page
    assert not re.search(r"""(src|href)=["']?https?:""", page)  # no external assets
    assert "default-src 'none'" in r.headers["content-security-policy"]


def test_authorization_code_flow(node: Node) -> None:
    verifier, challenge = _pkce()
    code = _get_code(node, challenge, nonce="n-42")
    r = _exchange(node, code, verifier)
    assert r.status_code == 200, r.text
    body = r.json()
    claims = node.issuer.verify(body["access_token"])
    assert claims["sub"] == "bob" and claims["scope"] == "openid email"
    id_claims = jwt.decode(
        body["id_token"],
        node.private_key().public_key(),
        algorithms=["RS256"],
        audience=GUI_CLIENT,
        issuer=node.issuer.issuer,
    )
    assert id_claims["nonce"] == "n-42" and id_claims["email"] == "bob@globex.example"
    refresh = {"grant_type": "refresh_token", "refresh_token": body["refresh_token"]}
    r = _token(node, {**refresh, "client_id": GUI_CLIENT})
    assert r.status_code == 200, r.text
    assert node.issuer.verify(r.json()["access_token"])["azp"] == GUI_CLIENT


def test_authorization_code_is_single_use(node: Node) -> None:
    verifier, challenge = _pkce()
    code = _get_code(node, challenge)
    assert _exchange(node, code, verifier).status_code == 200
    r = _exchange(node, code, verifier)
    assert r.status_code == 400 and r.json()["error"] == "invalid_grant"


@pytest.mark.parametrize(
    "change",
    [
        {"code_verifier": "x" * 43},
        {"code_verifier": "short"},
        {"redirect_uri": "http://127.0.0.1:53682/other"},
        {"client_id": "other-app"},
        {"code": "not-a-code"},
    ],
)
def test_authorization_code_exchange_failures(node: Node, change: dict[str, str]) -> None:
    verifier, challenge = _pkce()
    code = _get_code(node, challenge)
    r = _exchange(node, code, verifier, **change)
    assert r.status_code == 400 and r.json()["error"] == "invalid_grant"
    if "code" not in change:  # a failed attempt burns the code
        assert _exchange(node, code, verifier).status_code == 400


def test_authorization_code_missing_verifier(node: Node) -> None:
    verifier, challenge = _pkce()
    code = _get_code(node, challenge)
    data = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT}
    r = _token(node, {**data, "client_id": GUI_CLIENT})
    assert r.status_code == 400 and r.json()["error"] == "invalid_request"
    assert _exchange(node, code, verifier).status_code == 200  # not consumed by a bad request


def test_authorization_code_expires_after_five_minutes(
    node: Node, monkeypatch: pytest.MonkeyPatch
) -> None:
    verifier, challenge = _pkce()
    code = _get_code(node, challenge)
    monkeypatch.setattr(node.issuer, "clock", lambda: time.time() + 301)
    r = _exchange(node, code, verifier)
    assert r.status_code == 400 and r.json()["error"] == "invalid_grant"
    assert "expired" in r.json()["error_description"]


@pytest.mark.parametrize(
    "changes",
    [
        {"client_id": "no-such-app"},
        {"redirect_uri": "https://127.0.0.1/cb"},
        {"redirect_uri": "http://evil.example/cb"},
        {"redirect_uri": "http://127.0.0.1@evil.example/cb"},
        {"redirect_uri": "http://localhost.evil.example/cb"},
        {"redirect_uri": "javascript:alert(1)//127.0.0.1"},
        {"redirect_uri": "http://127.0.0.1:99999/cb"},
        {"redirect_uri": "http://127.0.0.1/cb#frag"},
        {"redirect_uri": "/relative"},
    ],
)
def test_authorize_bad_client_or_redirect_is_a_400_page(
    node: Node, changes: dict[str, str]
) -> None:
    _, challenge = _pkce()
    params = _authorize_params(challenge, **changes)
    for r in (
        node.http.get("/auth/authorize", params=params),
        node.http.post(
            "/auth/authorize", data={**params, "username": "bob", "password": "bob-pass"}
        ),
    ):
        assert r.status_code == 400
        assert "location" not in r.headers
        assert r.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge": ""}, "invalid_request"),
        ({"code_challenge": "too-short"}, "invalid_request"),
        ({"response_type": "token"}, "unsupported_response_type"),
    ],
)
def test_authorize_errors_redirect_to_the_valid_uri(
    node: Node, changes: dict[str, str], error: str
) -> None:
    _, challenge = _pkce()
    r = node.http.get("/auth/authorize", params=_authorize_params(challenge, **changes))
    assert r.status_code == 302
    location = r.headers["location"]
    assert location.startswith("http://127.0.0.1:53682/callback?")
    query = parse_qs(urlsplit(location).query)
    assert query["error"] == [error] and query["state"] == ["st-123"]
    assert "code" not in query


def test_authorize_wrong_password_rerenders_form_escaped(node: Node) -> None:
    _, challenge = _pkce()
    evil = '"><script>alert(1)</script>&'
    form = {
        **_authorize_params(challenge, state=evil, nonce=evil),
        "username": evil,
        "password": "wrong",
    }
    r = node.http.post("/auth/authorize", data=form)
    assert r.status_code == 401
    assert "location" not in r.headers
    assert "Invalid username or password" in r.text
    assert "<script>" not in r.text
    assert "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;" in r.text
    # The same on the GET form.
    r = node.http.get("/auth/authorize", params=_authorize_params(challenge, state=evil))
    assert r.status_code == 200 and "<script>" not in r.text
    assert 'name="state" value="&quot;&gt;&lt;script&gt;' in r.text


# ---- userinfo and logout ------------------------------------------------------------------


def test_userinfo(node: Node) -> None:
    token = _password_tokens(node, "alice")["access_token"]
    r = node.http.get("/auth/userinfo/", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200
    assert r.json() == {
        "sub": "alice",
        "preferred_username": "alice",
        "email": "alice@acme.example",
    }
    r = node.http.get("/auth/userinfo")
    assert r.status_code == 401 and "Bearer" in r.headers["www-authenticate"]
    r = node.http.get("/auth/userinfo", headers={"Authorization": "Bearer 1234"})
    assert r.status_code == 401 and r.json()["error"] == "invalid_token"


def test_logout(node: Node) -> None:
    r = node.http.get("/auth/logout")
    assert r.status_code == 200 and "signed out" in r.text
    target = "http://localhost:3000/bye"
    r = node.http.get("/auth/logout/", params={"post_logout_redirect_uri": target, "state": "s"})
    assert r.status_code == 302 and r.headers["location"] == target + "?state=s"
    r = node.http.get("/auth/logout", params={"post_logout_redirect_uri": "http://evil.example/"})
    assert r.status_code == 400 and "location" not in r.headers


# ---- verification -------------------------------------------------------------------------


def test_protected_route_rejects_invalid_tokens_with_403(node: Node) -> None:
    r = node.http.get("/protected", headers={"Authorization": "Bearer 1234"})
    assert r.status_code == 403 and "invalid jwt" in r.text
    assert node.http.get("/protected").status_code == 401


def test_token_from_another_key_is_rejected(node: Node, tmp_path: Path) -> None:
    stranger = OidcIssuer(tmp_path, Directory())
    stranger.base_url = node.base
    foreign = stranger.issue("alice")["access_token"]
    assert _reject_reason(node, foreign) == "unknown key id"
    # The same, claiming our kid: the signature does not match.
    now = int(time.time())
    claims = {"iss": node.issuer.issuer, "sub": "alice", "iat": now, "exp": now + 60}
    forged = jwt.encode(
        {**claims, "typ": "Bearer"},
        stranger._private_key,
        algorithm="RS256",
        headers={"kid": node.issuer.kid},
    )
    assert _reject_reason(node, forged) == "signature verification failed"
    r = node.http.get("/protected", headers={"Authorization": f"Bearer {forged}"})
    assert r.status_code == 403 and "signature verification failed" in r.text


def test_wrong_issuer_is_rejected_and_swapped_loopback_accepted(node: Node) -> None:
    assert _reject_reason(node, _forge(node, {"iss": "http://evil.example/auth"})) == "wrong issuer"
    swapped = node.base.replace("127.0.0.1", "localhost") + "/auth"
    assert node.issuer.verify(_forge(node, {"iss": swapped}))["iss"] == swapped


def test_expired_and_not_yet_valid_tokens_are_rejected(node: Node) -> None:
    now = int(time.time())
    expired = _forge(node, {"iat": now - 7200, "nbf": now - 7200, "exp": now - 1})
    assert _reject_reason(node, expired) == "token expired"
    future = _forge(node, {"nbf": now + 3600, "exp": now + 7200})
    assert _reject_reason(node, future) == "token not yet valid"


def test_cached_token_still_expires(node: Node, monkeypatch: pytest.MonkeyPatch) -> None:
    token = _password_tokens(node)["access_token"]
    first = node.issuer.verify(token)
    first["sub"] = "mallory"  # callers get copies: the cache is not affected
    assert node.issuer.verify(token)["sub"] == "alice"
    monkeypatch.setattr(node.issuer, "clock", lambda: time.time() + 3601)
    assert _reject_reason(node, token) == "token expired"


def test_verify_cache_is_bounded(node: Node, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oidc, "VERIFY_CACHE_SIZE", 5)
    tokens = [_forge(node, {"jti": str(i)}) for i in range(12)]
    for token in tokens:
        node.issuer.verify(token)
    assert len(node.issuer._cache) <= 5
    assert node.issuer.verify(tokens[0])["jti"] == "0"  # evicted entries verify again


def test_alg_none_and_hs256_are_rejected(node: Node) -> None:
    now = int(time.time())
    claims = {
        "iss": node.issuer.issuer,
        "sub": "alice",
        "iat": now,
        "exp": now + 600,
        "typ": "Bearer",
    }
    payload = _b64(json.dumps(claims).encode())
    for alg in ("none", "None", "NONE"):
        header = _b64(json.dumps({"alg": alg, "kid": node.issuer.kid}).encode())
        assert _reject_reason(node, f"{header}.{payload}.") == "signing algorithm not allowed"
    # HS256 keyed with the public key (algorithm confusion).
    header = _b64(json.dumps({"alg": "HS256", "kid": node.issuer.kid, "typ": "JWT"}).encode())
    public_pem = (
        node.private_key()
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    mac = hmac.new(public_pem, f"{header}.{payload}".encode(), hashlib.sha256).digest()
    assert (
        _reject_reason(node, f"{header}.{payload}.{_b64(mac)}") == "signing algorithm not allowed"
    )
    # An RS256 header on a token whose signature was stripped.
    token = _forge(node, {})
    assert _reject_reason(node, token.rsplit(".", 1)[0] + ".") == "signature verification failed"


def test_refresh_and_id_tokens_are_not_access_tokens(node: Node) -> None:
    tokens = _password_tokens(node)
    assert _reject_reason(node, tokens["refresh_token"]) == "not an access token"
    assert _reject_reason(node, tokens["id_token"]) == "not an access token"
    assert _reject_reason(node, _forge(node, {"typ": None})) == "not an access token"
    r = node.http.get("/protected", headers={"Authorization": f"Bearer {tokens['refresh_token']}"})
    assert r.status_code == 403 and "not an access token" in r.text


@pytest.mark.parametrize(
    "token",
    ["", "1234", "a.b.c", "x" * 10_000, "eyJhbGciOiJSUzI1NiJ9.e30", "....", "ä.ö.ü"],
)
def test_malformed_tokens_are_rejected(node: Node, token: str) -> None:
    with pytest.raises(InvalidJwt):
        node.issuer.verify(token)
