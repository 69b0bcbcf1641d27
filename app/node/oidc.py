"""The sandbox node's built-in OpenID Connect issuer, mounted at ``{base}/auth``.

It plays the identity provider of a STRATO deployment: it signs RS256 JWTs carrying
``preferred_username`` and ``email`` claims and serves what the official clients (blockapps-rest,
the asset framework, ``scurl``) expect of an OIDC provider. The node mounts it with
``Mount("/auth", routes=issuer.routes())`` and calls :meth:`OidcIssuer.verify` on every API request.

Endpoints (each also answers with a trailing slash, which blockapps-rest appends):

=========================================  =====================================================
``GET  /.well-known/openid-configuration``  discovery document, absolute URLs from ``base_url``
``GET  /jwks``                              the signing key as a JWK set
``POST /token``                             grants ``password``, ``client_credentials``,
                                            ``authorization_code`` (PKCE S256 required) and
                                            ``refresh_token``; RFC 6749 JSON errors
``GET|POST /authorize``                     HTML login form of the authorization-code flow;
                                            redirect URIs must be http loopback URLs
``GET  /userinfo``                          ``sub``, ``preferred_username``, ``email``
``GET  /logout``                            signed-out page, or 302 to a loopback
                                            ``post_logout_redirect_uri``
=========================================  =====================================================

Keycloak's spellings under ``/protocol/openid-connect/`` (``token``, ``auth``, ``userinfo``,
``logout``, ``certs``) are aliases. Tokens are stateless: an access token is valid until it
expires; refresh tokens live 24 hours; authorization codes are single-use and live 5 minutes.

Client authentication at the token endpoint: HTTP Basic
(``base64(urlencode(id):urlencode(secret))``) or ``client_id``/``client_secret`` form fields, not
both. A request with a secret must pass
:meth:`UserDirectory.client_subject`; one without a secret is a public client and must pass
:meth:`UserDirectory.client_exists`. A ``password`` grant that names no client at all is
accepted as an anonymous public client; its tokens carry ``aud``/``azp`` ``stratoscope``.

The :class:`UserDirectory` is called from worker threads (password hashing may be slow), so its
methods must be thread-safe.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote_plus, urlsplit, urlunsplit

import jwt
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .oidc_forms import (
    _NO_STORE,
    DEFAULT_SCOPE,
    SUPPORTED_SCOPES,
    _AuthCode,
    _AuthRequest,
    _b64url,
    _BadParams,
    _grant_scope,
    _invalid_client,
    _invalid_grant,
    _invalid_request,
    _is_loopback_uri,
    _login_page,
    _message_page,
    _number,
    _OAuthError,
    _PageError,
    _parse_params,
    _read_form,
    _redirect,
    _RedirectError,
    _s256,
    _with_query,
)
from .oidc_keys import int_b64url, load_or_create_key
from .throttle import LoginThrottle, Throttled

__all__ = [
    "ALGORITHM",
    "DEFAULT_CLIENT_ID",
    "DEFAULT_SCOPE",
    "KEY_FILE_NAME",
    "InvalidJwt",
    "OidcIssuer",
    "UnknownUserError",
    "UserDirectory",
]

KEY_FILE_NAME = "oidc-signing-key.pem"
ALGORITHM = "RS256"
DEFAULT_CLIENT_ID = "stratoscope"

REFRESH_LIFETIME = 24 * 3600
CODE_LIFETIME = 300
NBF_LEEWAY = 30  # seconds of clock skew tolerated on "nbf" (another process may have signed)

VERIFY_CACHE_SIZE = 4096
MAX_PENDING_CODES = 4096
MAX_TOKEN_LENGTH = 8192
MAX_STATE_LENGTH = 1024

_CHALLENGE_RE = re.compile(r"[A-Za-z0-9_-]{43}")
_VERIFIER_RE = re.compile(r"[A-Za-z0-9._~-]{43,128}")


class UserDirectory(Protocol):
    """What the issuer needs to know about users and OAuth clients."""

    def check_password(self, username: str, password: str) -> bool: ...

    def email_of(self, username: str) -> str | None:
        """The user's e-mail address; None for an unknown user."""
        ...

    def client_subject(self, client_id: str, client_secret: str) -> str | None:
        """The username a client_credentials grant acts as; None for bad client credentials."""
        ...

    def client_exists(self, client_id: str) -> bool:
        """Whether the client may use the flows of public clients (auth code + PKCE)."""
        ...


class InvalidJwt(Exception):
    """A token failed verification; ``str(exc)`` is a short reason."""


class UnknownUserError(ValueError):
    """:meth:`OidcIssuer.issue` was asked for a user the directory does not know."""


# --------------------------------------------------------------------------------------------
# Request parsing and responses


class OidcIssuer:
    """Signs and verifies the node's tokens and serves the OIDC endpoints under ``/auth``."""

    def __init__(self, data_dir: Path, users: UserDirectory, token_lifetime: int = 3600) -> None:
        if token_lifetime <= 0:
            raise ValueError("token_lifetime must be positive")
        self._users = users
        self.token_lifetime = token_lifetime
        self.key_path = data_dir / KEY_FILE_NAME
        self._private_key = load_or_create_key(self.key_path)
        self._public_key = self._private_key.public_key()
        numbers = self._public_key.public_numbers()
        n, e = int_b64url(numbers.n), int_b64url(numbers.e)
        canonical = json.dumps({"e": e, "kty": "RSA", "n": n}, separators=(",", ":"))
        self.kid: str = _b64url(hashlib.sha256(canonical.encode("ascii")).digest())
        self._jwk: dict[str, str] = {
            "kty": "RSA",
            "kid": self.kid,
            "use": "sig",
            "alg": ALGORITHM,
            "n": n,
            "e": e,
        }
        #: Source of the current time (seconds since the epoch); tests may replace it.
        self.clock: Callable[[], float] = time.time
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, tuple[dict[str, Any], float]] = OrderedDict()
        self._codes: dict[str, _AuthCode] = {}
        self.throttle = LoginThrottle()
        self._base_url = ""
        self._issuer = ""
        self._accepted: frozenset[str] = frozenset()
        self.base_url = "http://127.0.0.1:8080"

    # ---- identity -----------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """Scheme, host and port the node is reached at, without a trailing slash."""
        return self._base_url

    @base_url.setter
    def base_url(self, value: str) -> None:
        value = value.rstrip("/")
        try:
            parts = urlsplit(value)
            _ = parts.port
        except ValueError as exc:
            raise ValueError(f"invalid base URL {value!r}") from exc
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
            raise ValueError(f"invalid base URL {value!r}")
        issuer = value + "/auth"
        accepted = {issuer}
        host = parts.hostname
        if host in ("127.0.0.1", "localhost"):
            other = "localhost" if host == "127.0.0.1" else "127.0.0.1"
            netloc = other if parts.port is None else f"{other}:{parts.port}"
            accepted.add(urlunsplit(parts._replace(netloc=netloc)) + "/auth")
        self._base_url = value
        self._issuer = issuer
        self._accepted = frozenset(accepted)

    @property
    def issuer(self) -> str:
        return self._issuer

    def accepted_issuers(self) -> set[str]:
        """The issuer, plus the same URL with 127.0.0.1 and localhost swapped."""
        return set(self._accepted)

    def jwks(self) -> dict[str, Any]:
        return {"keys": [dict(self._jwk)]}

    def discovery_document(self) -> dict[str, Any]:
        issuer = self.issuer
        return {
            "issuer": issuer,
            "authorization_endpoint": f"{issuer}/authorize",
            "token_endpoint": f"{issuer}/token",
            "jwks_uri": f"{issuer}/jwks",
            "userinfo_endpoint": f"{issuer}/userinfo",
            "end_session_endpoint": f"{issuer}/logout",
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": [
                "password",
                "client_credentials",
                "authorization_code",
                "refresh_token",
            ],
            "code_challenge_methods_supported": ["S256"],
            "id_token_signing_alg_values_supported": [ALGORITHM],
            "subject_types_supported": ["public"],
            "scopes_supported": list(SUPPORTED_SCOPES),
            "claims_supported": [
                "iss",
                "sub",
                "aud",
                "azp",
                "exp",
                "iat",
                "nbf",
                "jti",
                "nonce",
                "preferred_username",
                "email",
                "scope",
                "typ",
            ],
            "token_endpoint_auth_methods_supported": [
                "client_secret_basic",
                "client_secret_post",
                "none",
            ],
        }

    # ---- tokens -------------------------------------------------------------------------------

    def _sign(self, claims: dict[str, Any]) -> str:
        return jwt.encode(claims, self._private_key, algorithm=ALGORITHM, headers={"kid": self.kid})

    def issue(
        self,
        username: str,
        *,
        client_id: str = DEFAULT_CLIENT_ID,
        scope: str = DEFAULT_SCOPE,
        nonce: str | None = None,
    ) -> dict[str, Any]:
        """A token response (access, ID and refresh token) for a known user.

        Raises :class:`UnknownUserError` when the directory does not know ``username``.
        """
        email = self._users.email_of(username)
        if email is None:
            raise UnknownUserError(f"unknown user {username!r}")
        now = int(self.clock())
        common = {
            "iss": self.issuer,
            "sub": username,
            "aud": client_id,
            "azp": client_id,
            "iat": now,
            "nbf": now,
            "preferred_username": username,
            "email": email,
            "scope": scope,
        }
        access = {
            **common,
            "exp": now + self.token_lifetime,
            "jti": secrets.token_urlsafe(16),
            "typ": "Bearer",
        }
        id_token = {
            **common,
            "exp": now + self.token_lifetime,
            "jti": secrets.token_urlsafe(16),
            "typ": "ID",
            "auth_time": now,
        }
        if nonce is not None:
            id_token["nonce"] = nonce
        refresh = {
            **common,
            "exp": now + REFRESH_LIFETIME,
            "jti": secrets.token_urlsafe(16),
            "typ": "Refresh",
        }
        return {
            "access_token": self._sign(access),
            "id_token": self._sign(id_token),
            "refresh_token": self._sign(refresh),
            "token_type": "Bearer",
            "expires_in": self.token_lifetime,
            "refresh_expires_in": REFRESH_LIFETIME,
            "scope": scope,
        }

    def verify(self, token: str) -> dict[str, Any]:
        """The claims of a valid access token; raises :class:`InvalidJwt` otherwise.

        Successful verifications are cached (bounded, least recently used out) until the token
        expires; a cache hit still checks the expiry and the issuer.
        """
        now = self.clock()
        with self._lock:
            hit = self._cache.get(token) if isinstance(token, str) else None
            if hit is not None:
                claims, expires_at = hit
                if now < expires_at and claims["iss"] in self._accepted:
                    self._cache.move_to_end(token)
                    return dict(claims)
                del self._cache[token]
        claims = self._decode(token, "Bearer", now)
        with self._lock:
            self._cache[token] = (claims, float(claims["exp"]))
            while len(self._cache) > VERIFY_CACHE_SIZE:
                self._cache.popitem(last=False)
        return dict(claims)

    def _decode(self, token: str, expected_typ: str, now: float) -> dict[str, Any]:
        if not isinstance(token, str) or not token:
            raise InvalidJwt("malformed token")
        if len(token) > MAX_TOKEN_LENGTH:
            raise InvalidJwt("token too long")
        try:
            header = jwt.get_unverified_header(token)
        except (jwt.InvalidTokenError, ValueError, TypeError):
            raise InvalidJwt("malformed token") from None
        if header.get("alg") != ALGORITHM:
            raise InvalidJwt("signing algorithm not allowed")
        if header.get("kid") != self.kid:
            raise InvalidJwt("unknown key id")
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                self._public_key,
                algorithms=[ALGORITHM],
                options={
                    "verify_signature": True,
                    "verify_exp": False,  # checked below against self.clock
                    "verify_nbf": False,
                    "verify_iat": False,
                    "verify_aud": False,
                    "verify_iss": False,
                    "require": ["exp", "iat", "iss", "sub"],
                },
            )
        except jwt.InvalidSignatureError:
            raise InvalidJwt("signature verification failed") from None
        except jwt.MissingRequiredClaimError as exc:
            raise InvalidJwt(f"missing claim {exc.claim}") from None
        except (jwt.InvalidTokenError, ValueError, TypeError):
            raise InvalidJwt("malformed token") from None
        iss = claims.get("iss")
        if not isinstance(iss, str) or iss not in self._accepted:
            raise InvalidJwt("wrong issuer")
        exp = _number(claims.get("exp"))
        iat = _number(claims.get("iat"))
        if exp is None or iat is None:
            raise InvalidJwt("malformed time claims")
        if now >= exp:
            raise InvalidJwt("token expired")
        if "nbf" in claims:
            nbf = _number(claims["nbf"])
            if nbf is None:
                raise InvalidJwt("malformed time claims")
            if nbf > now + NBF_LEEWAY:
                raise InvalidJwt("token not yet valid")
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub:
            raise InvalidJwt("malformed subject")
        if claims.get("typ") != expected_typ:
            raise InvalidJwt(
                "not an access token" if expected_typ == "Bearer" else "wrong token type"
            )
        return claims

    # ---- token endpoint -----------------------------------------------------------------------

    def _client_credentials(
        self, authorization: str | None, form: Mapping[str, str]
    ) -> tuple[str | None, str | None]:
        """(client_id, client_secret) from HTTP Basic or the form; an empty secret is none."""
        form_id, form_secret = form.get("client_id"), form.get("client_secret")
        if authorization is not None:
            scheme, _, value = authorization.strip().partition(" ")
            if scheme.lower() == "basic":
                try:
                    decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
                except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
                    raise _invalid_client("malformed Basic credentials") from None
                raw_id, sep, raw_secret = decoded.partition(":")
                client_id, secret = unquote_plus(raw_id), unquote_plus(raw_secret)
                if not sep or not client_id:
                    raise _invalid_client("malformed Basic credentials")
                if form_secret is not None:
                    raise _invalid_request("use one client authentication method, not two")
                if form_id is not None and form_id != client_id:
                    raise _invalid_request("client_id does not match the Basic credentials")
                return client_id, secret or None
        return form_id, form_secret

    def _guard(self, who: str, address: str, error: str) -> None:
        """429 with Retry-After, the secret unchecked, while ``who`` or ``address`` is locked."""
        try:
            self.throttle.check(who, address)
        except Throttled as exc:
            raise _OAuthError(
                429,
                error,
                f"too many failed sign-ins for this user or address: retry in {exc.retry_after} s",
                {"Retry-After": str(exc.retry_after)},
            ) from None

    def _client_subject(self, client_id: str, secret: str, address: str) -> str | None:
        """:meth:`UserDirectory.client_subject` behind the sign-in throttle: a client secret is
        a password too (counted as user ``client <id>``; user names have no space)."""
        who = f"client {client_id}"
        self._guard(who, address, "invalid_client")
        subject = self._users.client_subject(client_id, secret)
        if subject is None:
            self.throttle.failed(who, address)
        else:
            self.throttle.succeeded(who, address)
        return subject

    def _authenticate_client(
        self, client_id: str | None, secret: str | None, address: str = ""
    ) -> str:
        if not client_id:
            raise _invalid_client("client authentication required")
        if secret is not None:
            if self._client_subject(client_id, secret, address) is None:
                raise _invalid_client("client authentication failed")
        elif not self._users.client_exists(client_id):
            raise _invalid_client("unknown client")
        return client_id

    def _issue_or_fail(
        self, username: str, client_id: str, scope: str, nonce: str | None = None
    ) -> dict[str, Any]:
        try:
            return self.issue(username, client_id=client_id, scope=scope, nonce=nonce)
        except UnknownUserError:
            raise _invalid_grant("the user no longer exists") from None

    def _token_grant(
        self, authorization: str | None, form: dict[str, str], address: str = ""
    ) -> dict[str, Any]:
        grant_type = form.get("grant_type")
        if grant_type is None:
            raise _invalid_request("grant_type is required")
        handlers = {
            "password": self._grant_password,
            "client_credentials": self._grant_client_credentials,
            "authorization_code": self._grant_authorization_code,
            "refresh_token": self._grant_refresh_token,
        }
        handler = handlers.get(grant_type)
        if handler is None:
            raise _OAuthError(400, "unsupported_grant_type", "grant type not supported")
        client_id, secret = self._client_credentials(authorization, form)
        return handler(client_id, secret, form, address)

    def _grant_password(
        self, client_id: str | None, secret: str | None, form: dict[str, str], address: str = ""
    ) -> dict[str, Any]:
        if client_id is None and secret is None:
            # An anonymous public client (curl, scripts): the user's password is the credential.
            client = DEFAULT_CLIENT_ID
        else:
            client = self._authenticate_client(client_id, secret, address)
        username, password = form.get("username"), form.get("password")
        if username is None or password is None:
            raise _invalid_request("username and password are required")
        scope = _grant_scope(form.get("scope"))
        self._guard(username, address, "invalid_grant")
        if not self._users.check_password(username, password):
            self.throttle.failed(username, address)
            raise _invalid_grant("invalid username or password")
        self.throttle.succeeded(username, address)
        return self._issue_or_fail(username, client, scope)

    def _grant_client_credentials(
        self, client_id: str | None, secret: str | None, form: dict[str, str], address: str = ""
    ) -> dict[str, Any]:
        if not client_id or secret is None:
            raise _invalid_client("client_credentials needs a client id and secret")
        subject = self._client_subject(client_id, secret, address)
        if subject is None:
            raise _invalid_client("client authentication failed")
        return self._issue_or_fail(subject, client_id, _grant_scope(form.get("scope")))

    def _grant_authorization_code(
        self, client_id: str | None, secret: str | None, form: dict[str, str], address: str = ""
    ) -> dict[str, Any]:
        code, redirect_uri = form.get("code"), form.get("redirect_uri")
        verifier = form.get("code_verifier")
        if code is None or redirect_uri is None:
            raise _invalid_request("code and redirect_uri are required")
        if verifier is None:
            raise _invalid_request("code_verifier is required (PKCE)")
        if not client_id:
            raise _invalid_request("client_id is required")
        client = self._authenticate_client(client_id, secret, address)
        with self._lock:
            record = self._codes.pop(code, None)  # single use, even when the exchange fails
        if record is None:
            raise _invalid_grant("unknown or already used authorization code")
        if self.clock() >= record.expires_at:
            raise _invalid_grant("authorization code expired")
        if record.client_id != client:
            raise _invalid_grant("authorization code was issued to another client")
        if record.redirect_uri != redirect_uri:
            raise _invalid_grant("redirect_uri does not match the authorization request")
        if not _VERIFIER_RE.fullmatch(verifier) or not hmac.compare_digest(
            _s256(verifier), record.code_challenge
        ):
            raise _invalid_grant("PKCE verification failed")
        return self._issue_or_fail(record.username, client, record.scope, record.nonce)

    def _grant_refresh_token(
        self, client_id: str | None, secret: str | None, form: dict[str, str], address: str = ""
    ) -> dict[str, Any]:
        token = form.get("refresh_token")
        if token is None:
            raise _invalid_request("refresh_token is required")
        try:
            claims = self._decode(token, "Refresh", self.clock())
        except InvalidJwt as exc:
            raise _invalid_grant(f"invalid refresh token: {exc}") from None
        token_client = claims.get("azp")
        if not isinstance(token_client, str) or not token_client:
            raise _invalid_grant("invalid refresh token: no client")
        if client_id is not None and client_id != token_client:
            raise _invalid_grant("refresh token was issued to another client")
        if client_id is None and secret is None and token_client == DEFAULT_CLIENT_ID:
            client = DEFAULT_CLIENT_ID  # issued to an anonymous password-grant client
        else:
            client = self._authenticate_client(token_client, secret, address)
        original = claims.get("scope")
        original_scopes = original.split() if isinstance(original, str) else []
        scope = " ".join(original_scopes) or DEFAULT_SCOPE
        requested = form.get("scope")
        if requested is not None:
            narrowed = requested.split()
            if not narrowed or any(s not in original_scopes for s in narrowed):
                raise _OAuthError(400, "invalid_scope", "scope exceeds the original grant")
            scope = " ".join(dict.fromkeys(narrowed))
        return self._issue_or_fail(claims["sub"], client, scope)

    async def _token_endpoint(self, request: Request) -> Response:
        try:
            form = await _read_form(request)
            authorization = request.headers.get("authorization")
            address = request.client.host if request.client else ""
            tokens = await run_in_threadpool(self._token_grant, authorization, form, address)
        except _BadParams as exc:
            return _invalid_request(str(exc)).response()
        except _OAuthError as exc:
            return exc.response()
        return JSONResponse(tokens, headers=dict(_NO_STORE))

    # ---- authorization endpoint ---------------------------------------------------------------

    def _authorization_request(self, params: Mapping[str, str]) -> _AuthRequest:
        client_id = params.get("client_id")
        if client_id is None or not self._users.client_exists(client_id):
            raise _PageError(400, "Unknown application", "The client_id is missing or unknown.")
        redirect_uri = params.get("redirect_uri")
        if redirect_uri is None or not _is_loopback_uri(redirect_uri):
            raise _PageError(
                400,
                "Redirect not allowed",
                "The redirect_uri must be an http URL on 127.0.0.1, [::1] or localhost.",
            )
        state = params.get("state")
        if state is not None and len(state) > MAX_STATE_LENGTH:
            raise _RedirectError(redirect_uri, None, "invalid_request", "state is too long")

        def fail(error: str, description: str) -> _RedirectError:
            return _RedirectError(redirect_uri, state, error, description)

        if params.get("response_type") != "code":
            raise fail("unsupported_response_type", "only response_type=code is supported")
        challenge = params.get("code_challenge")
        if challenge is None:
            raise fail("invalid_request", "PKCE is required: send code_challenge")
        if params.get("code_challenge_method") != "S256":
            raise fail("invalid_request", "code_challenge_method must be S256")
        if not _CHALLENGE_RE.fullmatch(challenge):
            raise fail("invalid_request", "malformed code_challenge")
        try:
            scope = _grant_scope(params.get("scope"))
        except _OAuthError as exc:
            raise fail(exc.error, exc.description) from None
        nonce = params.get("nonce")
        if nonce is not None and len(nonce) > MAX_STATE_LENGTH:
            raise fail("invalid_request", "nonce is too long")
        return _AuthRequest(client_id, redirect_uri, state, challenge, scope, nonce)

    def _authorize_get(self, params: dict[str, str]) -> Response:
        try:
            return _login_page(self._authorization_request(params))
        except _PageError as exc:
            return _message_page(exc.title, exc.message, exc.status)
        except _RedirectError as exc:
            return exc.response()

    def _authorize_post(self, params: dict[str, str], address: str = "") -> Response:
        try:
            auth = self._authorization_request(params)
        except _PageError as exc:
            return _message_page(exc.title, exc.message, exc.status)
        except _RedirectError as exc:
            return exc.response()
        username, password = params.get("username", ""), params.get("password", "")
        try:
            self.throttle.check(username, address)
        except Throttled as exc:
            page = _login_page(
                auth, username, f"Too many failed sign-ins: try again in {exc.retry_after} s."
            )
            page.status_code = 429
            page.headers["Retry-After"] = str(exc.retry_after)
            return page
        if not (
            username
            and password
            and self._users.check_password(username, password)
            and self._users.email_of(username) is not None
        ):
            if username and password:
                self.throttle.failed(username, address)
            return _login_page(auth, username, "Invalid username or password.")
        self.throttle.succeeded(username, address)
        code = secrets.token_urlsafe(32)
        now = self.clock()
        record = _AuthCode(
            username=username,
            client_id=auth.client_id,
            redirect_uri=auth.redirect_uri,
            code_challenge=auth.code_challenge,
            scope=auth.scope,
            nonce=auth.nonce,
            expires_at=now + CODE_LIFETIME,
        )
        with self._lock:
            for stale in [c for c, r in self._codes.items() if r.expires_at <= now]:
                del self._codes[stale]
            while len(self._codes) >= MAX_PENDING_CODES:
                del self._codes[next(iter(self._codes))]
            self._codes[code] = record
        params_out = {"code": code}
        if auth.state is not None:
            params_out["state"] = auth.state
        return _redirect(_with_query(auth.redirect_uri, params_out))

    async def _authorize_endpoint(self, request: Request) -> Response:
        try:
            if request.method == "POST":
                params = await _read_form(request)
                address = request.client.host if request.client else ""
                return await run_in_threadpool(self._authorize_post, params, address)
            params = _parse_params(request.scope.get("query_string", b""))
        except _BadParams as exc:
            return _message_page("Bad request", str(exc), 400)
        return await run_in_threadpool(self._authorize_get, params)

    # ---- userinfo, logout, discovery, JWKS ----------------------------------------------------

    def _userinfo(self, authorization: str | None) -> Response:
        scheme, _, token = (authorization or "").strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return JSONResponse(
                {"error": "invalid_request", "error_description": "bearer token required"},
                status_code=401,
                headers={**_NO_STORE, "WWW-Authenticate": 'Bearer realm="stratoscope"'},
            )
        try:
            claims = self.verify(token)
            email = self._users.email_of(claims["sub"])
            if email is None:
                raise InvalidJwt("unknown user")
        except InvalidJwt as exc:
            return JSONResponse(
                {"error": "invalid_token", "error_description": str(exc)},
                status_code=401,
                headers={
                    **_NO_STORE,
                    "WWW-Authenticate": 'Bearer realm="stratoscope", error="invalid_token"',
                },
            )
        body = {"sub": claims["sub"], "preferred_username": claims["sub"], "email": email}
        return JSONResponse(body, headers=dict(_NO_STORE))

    async def _userinfo_endpoint(self, request: Request) -> Response:
        return await run_in_threadpool(self._userinfo, request.headers.get("authorization"))

    async def _logout_endpoint(self, request: Request) -> Response:
        try:
            if request.method == "POST":
                params = await _read_form(request)
            else:
                params = _parse_params(request.scope.get("query_string", b""))
        except _BadParams as exc:
            return _message_page("Bad request", str(exc), 400)
        target = params.get("post_logout_redirect_uri") or params.get("redirect_uri")
        if target is None:
            return _message_page("Signed out", "You have been signed out of the sandbox node.", 200)
        if not _is_loopback_uri(target):
            return _message_page(
                "Redirect not allowed",
                "The post_logout_redirect_uri must be an http URL on 127.0.0.1, [::1] or "
                "localhost.",
                400,
            )
        state = params.get("state")
        if state is not None and len(state) <= MAX_STATE_LENGTH:
            target = _with_query(target, {"state": state})
        return _redirect(target)

    async def _discovery_endpoint(self, request: Request) -> Response:
        return JSONResponse(
            self.discovery_document(),
            headers={"Cache-Control": "no-cache", "Access-Control-Allow-Origin": "*"},
        )

    async def _jwks_endpoint(self, request: Request) -> Response:
        return JSONResponse(
            self.jwks(),
            headers={"Cache-Control": "no-cache", "Access-Control-Allow-Origin": "*"},
        )

    def routes(self) -> list[BaseRoute]:
        """Routes to mount with ``Mount("/auth", routes=issuer.routes())``."""
        table: list[tuple[tuple[str, ...], Callable[[Request], Awaitable[Response]], list[str]]] = [
            (("/.well-known/openid-configuration",), self._discovery_endpoint, ["GET"]),
            (("/jwks", "/protocol/openid-connect/certs"), self._jwks_endpoint, ["GET"]),
            (("/token", "/protocol/openid-connect/token"), self._token_endpoint, ["POST"]),
            (
                ("/authorize", "/protocol/openid-connect/auth"),
                self._authorize_endpoint,
                ["GET", "POST"],
            ),
            (
                ("/userinfo", "/protocol/openid-connect/userinfo"),
                self._userinfo_endpoint,
                ["GET", "POST"],
            ),
            (
                ("/logout", "/protocol/openid-connect/logout"),
                self._logout_endpoint,
                ["GET", "POST"],
            ),
        ]
        routes: list[BaseRoute] = []
        for paths, endpoint, methods in table:
            for path in paths:
                routes.append(Route(path, endpoint, methods=methods))
                routes.append(Route(path + "/", endpoint, methods=methods))
        return routes
