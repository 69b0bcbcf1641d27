"""OAuth 2 / OpenID Connect sign-in for a STRATO node (no Qt).

Flows: resource-owner password, client credentials, authorization code with PKCE through the
system browser and a loopback redirect, and a pasted token as the last resort. Tokens are
refreshed shortly before they expire; the access token is what ``StratoClient`` asks for.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from .errors import AuthError, NetworkError, error_for, network_reason

REFRESH_MARGIN = 60.0


@dataclass
class OidcSettings:
    discovery_url: str
    client_id: str
    client_secret: str | None = None
    scope: str = "openid email profile"


@dataclass
class Token:
    access_token: str
    expires_at: float
    refresh_token: str | None = None
    id_token: str | None = None

    def expiring(self, margin: float = REFRESH_MARGIN) -> bool:
        return time.time() > self.expires_at - margin

    @classmethod
    def from_response(cls, d: dict[str, Any]) -> Token:
        expires_in = float(d.get("expires_in") or 300)
        return cls(
            access_token=str(d["access_token"]),
            expires_at=time.time() + expires_in,
            refresh_token=d.get("refresh_token"),
            id_token=d.get("id_token"),
        )

    @classmethod
    def pasted(cls, access_token: str) -> Token:
        """A token copied from elsewhere: its expiry comes from its own ``exp`` claim."""
        exp = jwt_claims(access_token).get("exp")
        return cls(access_token.strip(), float(exp) if isinstance(exp, int | float) else 1e18)


def jwt_claims(token: str) -> dict[str, Any]:
    """The (unverified) claims of a JWT, for display: user name, organisation, expiry."""
    try:
        part = token.split(".")[1]
        data = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (IndexError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    return verifier, challenge.rstrip(b"=").decode()


class OidcSession:
    """Obtains and refreshes tokens from one identity provider."""

    def __init__(self, settings: OidcSettings, *, timeout: float = 20.0) -> None:
        self.settings = settings
        self.http = httpx.AsyncClient(timeout=timeout)
        self.discovery: dict[str, Any] | None = None
        self.token: Token | None = None
        self._lock = asyncio.Lock()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def discover(self) -> dict[str, Any]:
        if self.discovery is None:
            url = self.settings.discovery_url
            try:
                resp = await self.http.get(url)
            except httpx.HTTPError as exc:
                raise NetworkError(
                    f"cannot reach the identity provider at {url}: {network_reason(exc)}",
                    method="GET",
                    url=url,
                ) from None
            if resp.status_code != 200:
                err = error_for(resp.status_code, resp.text, "GET", url)
                raise AuthError(
                    f"the identity provider's discovery document at {url} cannot be read "
                    f"(HTTP {resp.status_code}): {err.message}; check the profile's discovery URL",
                    method="GET",
                    url=url,
                    body=err.body,
                )
            try:
                data = resp.json()
            except ValueError:
                data = None
            if not isinstance(data, dict) or "token_endpoint" not in data:
                raise AuthError(
                    f"{url} is not an OpenID Connect discovery document (no token_endpoint): "
                    "check the profile's discovery URL",
                    method="GET",
                    url=url,
                )
            self.discovery = data
        return self.discovery

    async def _token_request(self, form: dict[str, str]) -> Token:
        endpoint = str((await self.discover())["token_endpoint"])
        s = self.settings
        try:
            if s.client_secret:
                resp = await self.http.post(
                    endpoint, data=form, auth=httpx.BasicAuth(s.client_id, s.client_secret)
                )
            else:
                resp = await self.http.post(endpoint, data={**form, "client_id": s.client_id})
        except httpx.HTTPError as exc:
            raise NetworkError(
                f"cannot reach the identity provider's token endpoint {endpoint}: "
                f"{network_reason(exc)}",
                method="POST",
                url=endpoint,
            ) from None
        if resp.status_code != 200:
            err = error_for(resp.status_code, resp.text, "POST", endpoint)
            raise AuthError(
                err.message,
                status=resp.status_code,
                method="POST",
                url=endpoint,
                body=resp.text[:2000],
            )
        self.token = Token.from_response(resp.json())
        return self.token

    async def password(self, username: str, password: str) -> Token:
        return await self._token_request(
            {
                "grant_type": "password",
                "username": username,
                "password": password,
                "scope": self.settings.scope,
            }
        )

    async def client_credentials(self) -> Token:
        return await self._token_request(
            {"grant_type": "client_credentials", "scope": self.settings.scope}
        )

    async def refresh(self) -> Token:
        if self.token is None or not self.token.refresh_token:
            raise AuthError("the session expired and cannot be refreshed: sign in again")
        return await self._token_request(
            {"grant_type": "refresh_token", "refresh_token": self.token.refresh_token}
        )

    def use_token(self, access_token: str) -> Token:
        self.token = Token.pasted(access_token)
        return self.token

    async def access_token(self) -> str:
        """A valid access token, refreshed first when it is about to expire."""
        async with self._lock:
            if self.token is None:
                raise AuthError("not signed in")
            if self.token.expiring() and self.token.refresh_token:
                await self.refresh()
            return self.token.access_token

    async def authorization_code(
        self, open_browser: Callable[[str], object], *, timeout: float = 300.0
    ) -> Token:
        """Sign in through the system browser; the provider redirects to a loopback listener."""
        disc = await self.discover()
        verifier, challenge = pkce_pair()
        state = secrets.token_urlsafe(16)
        loop = asyncio.get_running_loop()
        got: asyncio.Future[dict[str, list[str]]] = loop.create_future()

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                line = await asyncio.wait_for(reader.readline(), 10)
                target = line.decode("latin-1").split(" ")[1] if b" " in line else "/"
                query = parse_qs(urlsplit(target).query)
                ok = query.get("state") == [state] and "code" in query
                text = (
                    "Signed in. You can close this tab and return to Stratoscope."
                    if ok
                    else "Sign-in failed: "
                    + html.escape(
                        str(
                            query.get("error_description")
                            or query.get("error")
                            or "unexpected answer"
                        )
                    )
                )
                body = f"<!doctype html><meta charset=utf-8><p>{text}</p>".encode()
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                    + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                    + body
                )
                await writer.drain()
                if (ok or "error" in query) and not got.done():
                    got.set_result(query)
            except (TimeoutError, OSError, IndexError):
                # a stray or broken connection to the loopback port: ignore it and keep waiting
                # for the browser's real redirect
                return
            finally:
                writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        redirect = f"http://127.0.0.1:{port}/callback"
        url = (
            str(disc["authorization_endpoint"])
            + "?"
            + urlencode(
                {
                    "response_type": "code",
                    "client_id": self.settings.client_id,
                    "redirect_uri": redirect,
                    "scope": self.settings.scope,
                    "state": state,
                    "code_challenge": challenge,
                    "code_challenge_method": "S256",
                }
            )
        )
        try:
            open_browser(url)
            query = await asyncio.wait_for(got, timeout)
        except TimeoutError:
            raise AuthError("no answer from the browser sign-in in time") from None
        finally:
            server.close()
            await server.wait_closed()
        if "error" in query:
            raise AuthError(f"sign-in refused: {query.get('error_description') or query['error']}")
        return await self._token_request(
            {
                "grant_type": "authorization_code",
                "code": query["code"][0],
                "redirect_uri": redirect,
                "code_verifier": verifier,
            }
        )
