"""A signed-in client for a command line: a temporary sandbox node, or a given node URL.

``TemporarySandbox`` starts ``python -m app.node serve --port 0 --test-clock`` on a fresh data
dir, waits for its ``Sandbox node listening on URL`` line, and stops it and removes the dir on
every way out (Ctrl+C included). ``sign_in`` gets a token the way the app does: a saved profile
of that URL (its flow; its secrets from the keyring), the sandbox's demo users (password = name),
environment variables for CI (``STRATOSCOPE_TOKEN``, ``STRATOSCOPE_USERNAME``,
``STRATOSCOPE_PASSWORD``), or a prompt on a terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.client.auth import OidcSession, OidcSettings
from app.client.errors import AuthError, NetworkError, ServerError, StratoError
from app.client.http import StratoClient
from app.launch import node_command

LISTENING = "Sandbox node listening on "
START_TIMEOUT = 60.0
SANDBOX_NAME = "stratoscope-sandbox"
SANDBOX_CLIENT_ID = "stratoscope-desktop"  # the sandbox's public OAuth client (as the app's)


class AccessError(Exception):
    """The node cannot be used: unreachable, not started, or the sign-in failed (words)."""


class TemporarySandbox:
    """An embedded sandbox node for one run, on a data dir that is removed afterwards."""

    def __init__(self) -> None:
        self.url = ""
        self.data_dir: Path | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._log: list[str] = []
        self._drain: asyncio.Task[None] | None = None

    async def start(self) -> str:
        self.data_dir = Path(tempfile.mkdtemp(prefix="stratoscope-test-"))
        argv = [
            *node_command(),
            "serve",
            "--port",
            "0",
            "--test-clock",
            "--data-dir",
            str(self.data_dir / "node"),
        ]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
            start_new_session=True,  # Ctrl+C reaches us; we stop the node ourselves
        )
        assert self._proc.stdout is not None
        try:
            async with asyncio.timeout(START_TIMEOUT):
                while True:
                    raw = await self._proc.stdout.readline()
                    if not raw:
                        tail = "\n".join(self._log[-15:])
                        raise AccessError(f"the temporary sandbox node did not start:\n{tail}")
                    line = raw.decode("utf-8", "replace").rstrip()
                    self._log.append(line)
                    if line.startswith(LISTENING):
                        self.url = line[len(LISTENING) :].strip()
                        break
        except TimeoutError:
            raise AccessError(
                f"the temporary sandbox node did not start in {START_TIMEOUT:g} s"
            ) from None
        self._drain = asyncio.create_task(self._read_rest())
        return self.url

    async def _read_rest(self) -> None:
        """Keep reading the node's output so that it never blocks on a full pipe (in chunks:
        ``readline`` raises on a line beyond the stream's 64 KiB limit, ending the drain)."""
        assert self._proc is not None and self._proc.stdout is not None
        while await self._proc.stdout.read(64 * 1024):
            pass

    async def stop(self) -> None:
        proc = self._proc
        self._proc = None
        try:
            if proc is not None and proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), 15)
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
                    await proc.wait()
            if self._drain is not None:
                self._drain.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._drain
        finally:
            if self.data_dir is not None:
                shutil.rmtree(self.data_dir, ignore_errors=True)
                self.data_dir = None


@dataclass
class SignIn:
    """A token source for one user of one node."""

    oidc: OidcSession
    username: str

    async def aclose(self) -> None:
        await self.oidc.aclose()


def _discovery_url(node_url: str, discovery: str = "") -> str:
    return discovery or node_url.rstrip("/") + "/auth/.well-known/openid-configuration"


async def _password(
    node_url: str, username: str, password: str, *, discovery: str = "", client_id: str = ""
) -> SignIn:
    settings = OidcSettings(_discovery_url(node_url, discovery), client_id or SANDBOX_CLIENT_ID)
    oidc = OidcSession(settings)
    try:
        await oidc.password(username, password)
    except BaseException:
        await oidc.aclose()
        raise
    return SignIn(oidc, username)


def _same_node(a: str, b: str) -> bool:
    return a.rstrip("/").lower() == b.rstrip("/").lower()


def _saved_secret(key: str) -> str | None:
    """A secret of a saved profile from the OS keyring; None without a usable keyring (the
    app's encrypted-file store needs its passphrase: then the user is asked instead)."""
    try:
        from app.services.secrets import KeyringStore, keyring_usable

        if not keyring_usable():
            return None
        return KeyringStore().get(key)
    except Exception:  # a broken keyring: ask instead
        return None


async def sign_in(
    client: StratoClient,
    user: str | None,
    *,
    ask: Callable[[str, bool], str] | None = None,
) -> SignIn:
    """Sign in to ``client``'s node as the app would. ``ask(prompt, secret)`` reads from the
    terminal (None: no terminal, so only saved or given credentials are used)."""
    url = client.base_url
    try:
        health = await client.health()
    except (NetworkError, ServerError) as exc:
        raise AccessError(str(exc)) from None
    except StratoError as exc:
        raise AccessError(f"{url} answers, but not as a STRATO node ({exc})") from None
    sandbox = health.raw.get("name") == SANDBOX_NAME

    env_token = os.environ.get("STRATOSCOPE_TOKEN", "").strip()
    if env_token:
        oidc = OidcSession(OidcSettings(_discovery_url(url), SANDBOX_CLIENT_ID))
        oidc.use_token(env_token)
        return SignIn(oidc, user or "")

    from app.services.profiles import Profile, ProfileError, ProfileStore

    profile: Profile | None = None
    with contextlib.suppress(ProfileError, OSError):
        profile = next((p for p in ProfileStore().load() if _same_node(p.node_url, url)), None)

    try:
        if profile is not None and profile.flow in ("token", "client_credentials"):
            what = "token" if profile.flow == "token" else "client_secret"
            secret = _saved_secret(profile.secret_key(what))
            if secret is None and ask is not None:
                secret = ask(f"{what.replace('_', ' ')} for {profile.name}: ", True)
            if not secret:
                raise AccessError(f"profile {profile.name!r} has no saved {what}")
            settings = OidcSettings(
                _discovery_url(url, profile.discovery_url),
                profile.client_id or SANDBOX_CLIENT_ID,
                secret if what == "client_secret" else None,
            )
            oidc = OidcSession(settings)
            if what == "token":
                oidc.use_token(secret)
            else:
                try:
                    await oidc.client_credentials()
                except BaseException:
                    await oidc.aclose()
                    raise
            return SignIn(oidc, profile.username)

        username = (
            user
            or os.environ.get("STRATOSCOPE_USERNAME")
            or (profile.username if profile else "")
            or ("alice" if sandbox else "")
        )
        if not username:
            if ask is None:
                raise AccessError(
                    f"signing in to {url} needs a user: give --user (and STRATOSCOPE_PASSWORD) "
                    "or run on a terminal"
                )
            username = ask(f"user name for {url}: ", False).strip()
        password = os.environ.get("STRATOSCOPE_PASSWORD")
        if password is None and profile is not None:
            password = _saved_secret(profile.secret_key(f"password:{username}"))
        if password is None and sandbox:
            password = username  # the demo users' default password on a sandbox node
        if password is None:
            if ask is None:
                raise AccessError(
                    f"signing in to {url} as {username} needs a password: set "
                    "STRATOSCOPE_PASSWORD or run on a terminal"
                )
            password = ask(f"password of {username} at {url}: ", True)
        discovery = profile.discovery_url if profile else ""
        client_id = profile.client_id if profile else ""
        try:
            return await _password(
                url, username, password, discovery=discovery, client_id=client_id
            )
        except AuthError:
            if ask is None or not sandbox or os.environ.get("STRATOSCOPE_PASSWORD"):
                raise
            password = ask(f"password of {username} at {url}: ", True)
            return await _password(url, username, password)
    except AuthError as exc:
        raise AccessError(f"cannot sign in to {url}: {exc.message}") from None
    except NetworkError as exc:
        raise AccessError(str(exc)) from None


def terminal_prompt() -> Callable[[str, bool], str] | None:
    """A prompt on the terminal, or None when stdin is not one (CI, pipes)."""
    if not sys.stdin.isatty():
        return None

    def ask(prompt: str, secret: bool) -> str:
        return getpass.getpass(prompt) if secret else input(prompt)

    return ask
