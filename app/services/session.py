"""One signed-in connection to a node: the client, the identity provider session, live health.

The session owns the ``StratoClient`` (one ``httpx.AsyncClient``) and the ``OidcSession`` that
feeds it tokens. Switching the user keeps the client and swaps the token source, so the HTTP
inspector and the spelling the node answered to carry over. ``watch`` polls ``/health`` and
emits the latest block number when it changes; the rest of the app refreshes on that signal.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from app.client.auth import OidcSession, OidcSettings, jwt_claims
from app.client.errors import AuthError, NetworkError, ServerError, StratoError
from app.client.http import StratoClient
from app.client.models import Health

from .inspector import InspectorFeed, background, background_reason
from .profiles import Profile

log = logging.getLogger("stratoscope.services")

SANDBOX_CLIENT_ID = "stratoscope-desktop"  # the sandbox's public OAuth client
HEALTH_INTERVAL = 1.0


def discovery_url_for(profile: Profile) -> str:
    """The profile's discovery URL, or the node's own issuer (the sandbox's)."""
    if profile.discovery_url:
        return profile.discovery_url
    return profile.node_url.rstrip("/") + "/auth/.well-known/openid-configuration"


async def node_health(client: StratoClient) -> Health:
    """The node's /health, or an error saying the node (not the sign-in) is the problem."""
    try:
        return await client.health()
    except (NetworkError, ServerError):
        raise  # "cannot reach the node at <url>: connection refused", or the node's 5xx
    except StratoError as exc:
        why = f"GET /health gave HTTP {exc.status}" if exc.status is not None else exc.message
        raise NetworkError(
            f"{client.base_url} answers, but not as a STRATO node ({why}): check the node URL",
            method=exc.method,
            url=exc.url,
            body=exc.body,
        ) from None


@dataclass(frozen=True)
class Credentials:
    """What one sign-in needs besides the profile; only the fields of its flow are used."""

    username: str = ""
    password: str = ""
    client_secret: str = ""
    token: str = ""


class Session(QObject):
    """Signals:
    state_changed(str): ``disconnected``, ``connecting``, ``connected`` or ``unreachable``.
    health_changed(object): the latest ``Health`` (None when the node does not answer).
    block_changed(int): the latest block number, when it changes.
    user_changed(str): the user the session now acts as.
    """

    state_changed = Signal(str)
    health_changed = Signal(object)
    block_changed = Signal(int)
    user_changed = Signal(str)

    def __init__(self, feed: InspectorFeed | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.feed = feed
        self.profile: Profile | None = None
        self.client: StratoClient | None = None
        self.oidc: OidcSession | None = None
        self.username = ""
        self.state = "disconnected"
        self.health: Health | None = None
        self.last_block: int | None = None
        self.health_interval = HEALTH_INTERVAL

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    @property
    def node_url(self) -> str:
        return self.profile.node_url if self.profile else ""

    # ------------------------------------------------------------ sign-in

    async def _sign_in(
        self,
        profile: Profile,
        creds: Credentials,
        open_browser: Callable[[str], object] | None,
    ) -> tuple[OidcSession, str]:
        """A fresh identity-provider session for ``creds``, and the user name it signed in."""
        settings = OidcSettings(
            discovery_url_for(profile),
            profile.client_id or SANDBOX_CLIENT_ID,
            creds.client_secret or None,
        )
        # building an httpx client loads the CA bundle (~30 ms): not on the GUI thread
        oidc = await asyncio.to_thread(OidcSession, settings)
        try:
            if profile.flow == "token":
                if not creds.token.strip():
                    raise AuthError("paste an access token to use this profile")
                oidc.use_token(creds.token.strip())
            elif profile.flow == "client_credentials":
                await oidc.client_credentials()
            elif profile.flow == "authorization_code":
                if open_browser is None:
                    raise AuthError("this profile signs in through the browser")
                await oidc.authorization_code(open_browser)
            else:
                if not creds.username:
                    raise AuthError("enter a user name")
                await oidc.password(creds.username, creds.password)
        except BaseException:
            await oidc.aclose()
            raise
        assert oidc.token is not None
        claims = jwt_claims(oidc.token.access_token)
        name = str(claims.get("preferred_username") or claims.get("sub") or creds.username)
        return oidc, name

    async def open(
        self,
        profile: Profile,
        creds: Credentials,
        *,
        open_browser: Callable[[str], object] | None = None,
    ) -> None:
        """Sign in and connect; the previous connection closes only once this one works."""
        previous = self.state
        self._set_state("connecting")
        try:
            profile.check()
            client = await asyncio.to_thread(
                lambda: StratoClient(
                    profile.node_url,
                    None,
                    event_hooks=self.feed.hooks if self.feed else None,
                    error_hook=self.feed.on_error if self.feed else None,
                )
            )
            try:
                # the node first: a wrong node URL is then reported as such, not as a sign-in
                # failure at the identity provider derived from it
                health = await node_health(client)
                oidc, name = await self._sign_in(profile, creds, open_browser)
            except BaseException:
                await client.aclose()
                raise
            client.set_token_provider(oidc.access_token)
            try:
                await client.get_key()  # proves the token is accepted by the API
            except BaseException:
                await client.aclose()
                await oidc.aclose()
                raise
        except BaseException:
            self._set_state(previous if self.client else "disconnected")
            raise
        # the new parts are kept before any await: cancelled from here on (the window closing),
        # they are still closed by whoever closes the session, never left to the collector
        old_client, old_oidc = self.client, self.oidc
        self.profile, self.client, self.oidc, self.username = profile, client, oidc, name
        self.last_block = None
        self._on_health(health)
        self._set_state("connected")
        self.user_changed.emit(name)
        await _close_both(old_client, old_oidc)

    async def switch_user(self, creds: Credentials) -> None:
        """Act as another user of the same node (password flow) without reconnecting."""
        if self.client is None or self.profile is None:
            raise AuthError("not connected")
        oidc, name = await self._sign_in(self.profile, creds, None)
        old, self.oidc = self.oidc, oidc
        self.client.set_token_provider(oidc.access_token)
        if old is not None:
            await _close_both(None, old)
        self.username = name
        self.user_changed.emit(name)

    # ------------------------------------------------------------ health

    def _on_health(self, health: Health | None) -> None:
        self.health = health
        self.health_changed.emit(health)
        block = health.last_block if health is not None else None
        if block is not None and block != self.last_block:
            self.last_block = block
            # what a new block seen by the watch triggers is background work too
            with background("new block") if background_reason() else nullcontext():
                self.block_changed.emit(block)

    def node_lost(self) -> None:
        """The node is known to be gone (the embedded sandbox's process exited): unreachable
        and no health now, rather than at the next poll."""
        if self.state == "connected":
            self._on_health(None)
            self._set_state("unreachable")

    async def poll_health(self) -> Health | None:
        client = self.client
        if client is None:
            return None
        try:
            health = await client.health()
        except StratoError as exc:
            log.info("health check failed: %s", exc)
            self._on_health(None)
            if self.state == "connected":
                self._set_state("unreachable")
            return None
        if self.state == "unreachable":
            self._set_state("connected")
        self._on_health(health)
        return health

    async def watch(self) -> None:
        """Poll the node's health for as long as the session lives (run as a task)."""
        with background("health poll"):
            while True:
                await asyncio.sleep(self.health_interval)
                await self.poll_health()

    # ------------------------------------------------------------ close

    async def _close_parts(self) -> None:
        client, oidc = self.client, self.oidc
        self.client = self.oidc = None
        await _close_both(client, oidc)

    async def close(self) -> None:
        await self._close_parts()
        self.profile = None
        self.username = ""
        self._set_state("disconnected")


async def _close_both(client: StratoClient | None, oidc: OidcSession | None) -> None:
    """Close both, to the end even when the caller is cancelled meanwhile: an interrupted
    close leaves open sockets for the garbage collector (a ResourceWarning a test later)."""

    async def close() -> None:
        try:
            if client is not None:
                await client.aclose()
        finally:
            if oidc is not None:
                await oidc.aclose()

    if client is not None or oidc is not None:
        await asyncio.shield(close())
