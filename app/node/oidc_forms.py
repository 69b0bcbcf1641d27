"""The OAuth endpoints' plumbing: form and query parsing with limits, OAuth errors, redirect
URIs, PKCE, and the small HTML pages of the sign-in flow (apart from the issuer's keys and tokens).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from .numbers import is_ascii_digits

DEFAULT_SCOPE = "openid email profile"
SUPPORTED_SCOPES = ("openid", "email", "profile")
MAX_BODY_BYTES = 64 * 1024
MAX_FIELDS = 32
MAX_FIELD_LENGTH = 8192
MAX_NAME_LENGTH = 64
MAX_URI_LENGTH = 2048
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
_SCOPE_TOKEN_RE = re.compile(r"[\x21\x23-\x5b\x5d-\x7e]+")
_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class _BadParams(Exception):
    """A malformed query string or form body."""


class _OAuthError(Exception):
    def __init__(
        self, status: int, error: str, description: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(description)
        self.status = status
        self.error = error
        self.description = description
        self.headers = headers or {}

    def response(self) -> JSONResponse:
        headers = {**_NO_STORE, **self.headers}
        if self.status == 401:
            headers["WWW-Authenticate"] = 'Basic realm="stratoscope"'
        body = {"error": self.error, "error_description": self.description}
        return JSONResponse(body, status_code=self.status, headers=headers)


def _invalid_request(description: str) -> _OAuthError:
    return _OAuthError(400, "invalid_request", description)


def _invalid_grant(description: str) -> _OAuthError:
    return _OAuthError(400, "invalid_grant", description)


def _invalid_client(description: str) -> _OAuthError:
    return _OAuthError(401, "invalid_client", description)


def _parse_params(raw: bytes) -> dict[str, str]:
    """Parse a query string or urlencoded body strictly; empty values count as absent."""
    try:
        text = raw.decode("utf-8")
        pairs = parse_qsl(
            text,
            keep_blank_values=True,
            encoding="utf-8",
            errors="strict",
            max_num_fields=MAX_FIELDS,
        )
    except ValueError as exc:  # UnicodeDecodeError is a ValueError
        if isinstance(exc, UnicodeDecodeError):
            raise _BadParams("parameters are not valid UTF-8") from None
        raise _BadParams("too many parameters") from None
    params: dict[str, str] = {}
    seen: set[str] = set()
    for name, value in pairs:
        if len(name) > MAX_NAME_LENGTH:
            raise _BadParams("parameter name too long")
        if name in seen:
            raise _BadParams(f"parameter {name!r} given more than once")
        seen.add(name)
        if len(value) > MAX_FIELD_LENGTH:
            raise _BadParams(f"parameter {name!r} is too long")
        if "\x00" in value:
            raise _BadParams(f"parameter {name!r} contains a NUL character")
        if value:
            params[name] = value
    return params


async def _read_form(request: Request) -> dict[str, str]:
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/x-www-form-urlencoded":
        raise _BadParams("the body must be application/x-www-form-urlencoded")
    declared = request.headers.get("content-length")
    if declared is not None and (not is_ascii_digits(declared) or int(declared) > MAX_BODY_BYTES):
        raise _BadParams("request body too large")
    body = bytearray()
    try:
        async with contextlib.aclosing(request.stream()) as stream:
            async for chunk in stream:
                body += chunk
                if len(body) > MAX_BODY_BYTES:
                    raise _BadParams("request body too large")
    except ClientDisconnect:
        raise _BadParams("client disconnected") from None
    return _parse_params(bytes(body))


def _is_loopback_uri(uri: str) -> bool:
    """An absolute http URL on 127.0.0.1, [::1] or localhost (any port and path, no fragment)."""
    if len(uri) > MAX_URI_LENGTH or any(not 0x21 <= ord(c) <= 0x7E or c in '\\"<>' for c in uri):
        return False
    try:
        parts = urlsplit(uri)
        _ = parts.port  # raises ValueError for a malformed port
    except ValueError:
        return False
    if parts.scheme != "http" or parts.fragment or "#" in uri:
        return False
    if parts.username is not None or parts.password is not None:
        return False
    return parts.hostname in _LOOPBACK_HOSTS


def _with_query(uri: str, params: Mapping[str, str]) -> str:
    parts = urlsplit(uri)
    extra = urlencode(params)
    query = f"{parts.query}&{extra}" if parts.query else extra
    return urlunsplit(parts._replace(query=query))


def _s256(verifier: str) -> str:
    return _b64url(hashlib.sha256(verifier.encode("ascii")).digest())


def _grant_scope(requested: str | None) -> str:
    """The supported subset of the requested scopes, in request order; the default if none."""
    if requested is None:
        return DEFAULT_SCOPE
    granted: list[str] = []
    for token in requested.split(" "):
        if not token:
            continue
        if not _SCOPE_TOKEN_RE.fullmatch(token):
            raise _OAuthError(400, "invalid_scope", "malformed scope")
        if token in SUPPORTED_SCOPES and token not in granted:
            granted.append(token)
    return " ".join(granted) if granted else DEFAULT_SCOPE


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=302, headers=dict(_NO_STORE))


# --------------------------------------------------------------------------------------------
# HTML pages (self-contained: no external assets, everything echoed is escaped)

_STYLE = (
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;background:#eef1f5;"
    "color:#1d2733;margin:0}"
    "main{max-width:380px;margin:8vh auto;background:#fff;padding:2em 2.2em;border-radius:10px;"
    "box-shadow:0 2px 10px rgba(0,0,0,.12)}"
    "h1{font-size:1.35em;margin:0 0 .3em}"
    "label{display:block;margin-top:1em;font-weight:600}"
    "input{display:block;width:100%;box-sizing:border-box;margin-top:.3em;padding:.55em;"
    "border:1px solid #b8c2cc;border-radius:5px;font-size:1em}"
    "button{margin-top:1.6em;width:100%;padding:.65em;border:0;border-radius:5px;"
    "background:#1f6feb;color:#fff;font-size:1em;cursor:pointer}"
    ".error{color:#b3261e;background:#fdecea;padding:.6em;border-radius:5px}"
    ".muted{color:#5b6773;font-size:.9em;overflow-wrap:anywhere}"
)
_HTML_HEADERS = {
    **_NO_STORE,
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _esc(value: str) -> str:
    return html.escape(value, quote=True)


def _html_page(title: str, body: str, status: int = 200) -> HTMLResponse:
    page = (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{_esc(title)}</title><style>{_STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>\n"
    )
    return HTMLResponse(page, status_code=status, headers=dict(_HTML_HEADERS))


def _message_page(title: str, message: str, status: int) -> HTMLResponse:
    return _html_page(title, f"<h1>{_esc(title)}</h1><p>{_esc(message)}</p>", status)


@dataclass(frozen=True, slots=True)
class _AuthRequest:
    """A validated authorization request (RFC 6749 4.1.1 with PKCE)."""

    client_id: str
    redirect_uri: str
    state: str | None
    code_challenge: str
    scope: str
    nonce: str | None

    def hidden_fields(self) -> dict[str, str]:
        fields = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "code_challenge": self.code_challenge,
            "code_challenge_method": "S256",
            "scope": self.scope,
        }
        if self.state is not None:
            fields["state"] = self.state
        if self.nonce is not None:
            fields["nonce"] = self.nonce
        return fields


@dataclass(frozen=True, slots=True)
class _AuthCode:
    username: str
    client_id: str
    redirect_uri: str
    code_challenge: str
    scope: str
    nonce: str | None
    expires_at: float


class _PageError(Exception):
    """An authorization request that must not be redirected: answered with an HTML page."""

    def __init__(self, status: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.title = title
        self.message = message


class _RedirectError(Exception):
    """An authorization error reported to the (validated) redirect URI, RFC 6749 4.1.2.1."""

    def __init__(self, redirect_uri: str, state: str | None, error: str, description: str) -> None:
        super().__init__(description)
        self.redirect_uri = redirect_uri
        self.state = state
        self.error = error
        self.description = description

    def response(self) -> RedirectResponse:
        params = {"error": self.error, "error_description": self.description}
        if self.state is not None:
            params["state"] = self.state
        return _redirect(_with_query(self.redirect_uri, params))


def _login_page(request: _AuthRequest, username: str = "", error: str | None = None) -> Response:
    hidden = "".join(
        f'<input type="hidden" name="{_esc(name)}" value="{_esc(value)}">'
        for name, value in request.hidden_fields().items()
    )
    error_html = f'<p class="error" role="alert">{_esc(error)}</p>' if error else ""
    target = urlsplit(request.redirect_uri).netloc
    body = (
        "<h1>Sign in</h1>"
        f'<p class="muted">Stratoscope sandbox node &middot; application '
        f"<strong>{_esc(request.client_id)}</strong></p>"
        f"{error_html}"
        f'<form method="post">{hidden}'
        f'<label for="username">Username</label><input id="username" name="username" '
        f'type="text" value="{_esc(username)}" autocomplete="username" required autofocus>'
        '<label for="password">Password</label><input id="password" name="password" '
        'type="password" autocomplete="current-password" required>'
        '<button type="submit">Sign in</button></form>'
        f'<p class="muted">You will be sent back to {_esc(target)}.</p>'
    )
    return _html_page("Sign in", body, 401 if error else 200)


# --------------------------------------------------------------------------------------------
# The issuer
