"""The app's service root: profiles, secrets, the embedded sandbox, the session and the account.

The window holds one ``AppController``. ``start`` picks the last used profile, or on a first run
starts the embedded sandbox and signs in as ``alice``. Everything the UI asks for goes through
here as a coroutine started on the task registry, so closing the window cancels it cleanly.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices

from app.client.errors import AuthError, NetworkError, StratoError

from .account import AccountService
from .assets import AssetService
from .chains import ChainService
from .cirrus import CirrusService
from .composer import ComposerService
from .dashboard import DashboardService
from .explorer_contracts import ExplorerContractsService
from .files import FileService
from .inspector import InspectorFeed
from .names import NameService
from .pending import PendingTracker
from .profiles import (
    AppSettings,
    ContactStore,
    Profile,
    ProfileError,
    ProfileStore,
    SavedQueryStore,
    config_dir,
)
from .sandbox import SandboxSupervisor, port_of
from .search import SearchService
from .secret_service import SecretService
from .session import Credentials, Session
from .tasks import TaskRegistry
from .test_runs import TestRunService
from .transfers import TransferService
from .tx_words import TxWords

log = logging.getLogger("stratoscope.services")

SANDBOX_PROFILE = "Sandbox"
DEMO_USERS = ("alice", "bob", "carol", "dave", "admin")
SANDBOX_START_TIMEOUT = 60.0


class SandboxError(StratoError):
    """The embedded sandbox node did not start; the message holds the end of its log."""


def sandbox_profile() -> Profile:
    return Profile(SANDBOX_PROFILE, "http://127.0.0.1", sandbox=True, username="alice")


class AppController(QObject):
    """Signals:
    message(str, str, str, str): level (``error``/``warning``/``info``), title, text and the
        action that helps (``sign-in``, ``restart`` or ""): the one bridge through which services
        tell the user something.
    profiles_changed(list): the saved profiles.
    users_changed(list): user names the switcher offers on this node.
    contacts_changed(dict): the address book (name -> address).
    names_changed(dict): names to show for addresses (address -> name): contacts first, then
        the node's users with a certificate.
    settings_loaded(): settings.json was read (:meth:`setting` now answers from it).
    node_error(str, str): title and text of a failure to reach the node (a message that is
        over once the node answers again).
    """

    message = Signal(str, str, str, str)
    node_error = Signal(str, str)
    profiles_changed = Signal(list)
    users_changed = Signal(list)
    contacts_changed = Signal(dict)
    names_changed = Signal(dict)
    settings_loaded = Signal()

    def __init__(
        self,
        *,
        config_directory: Path | None = None,
        sandbox_dir: Path | None = None,
        secrets: SecretService | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        cfg = config_directory or config_dir()
        self.tasks = TaskRegistry(self)
        self.feed = InspectorFeed(parent=self)
        self.profiles = ProfileStore(cfg)
        self.settings = AppSettings(cfg)
        self.contact_store = ContactStore(cfg)
        self.contacts: dict[str, str] = {}
        self._users: list[tuple[str, str]] = []  # (common name, address) of the node's users
        self.secrets = secrets or SecretService(cfg, parent=self)
        self.sandbox = SandboxSupervisor(sandbox_dir, self)
        self.session = Session(self.feed, self)
        self.account = AccountService(self.session, self.tasks, self)
        self.composer = ComposerService(self.session, self)
        self.cirrus = CirrusService(self.session, self, saved=SavedQueryStore(cfg))
        self.chains = ChainService(self.session, self)
        self.assets = AssetService(self.session, self, chains=self.chains, profiles=self.profiles)
        self.files = FileService(self.session, self)
        self.dashboard = DashboardService(self.session, self.feed, self)
        self.search = SearchService(self.session, self)
        self.test_runs = TestRunService(self.session, self.tasks, self)
        self.explorer_contracts = ExplorerContractsService(self.session, self)
        self.names = NameService(self.session, self, self.tasks)  # address -> name, for every view
        self.tx_words = TxWords(self.session, self.tasks, self)  # "Asset created: Car (CarDemo)"
        self.contacts_changed.connect(self.names.set_contacts)
        self.contacts_changed.connect(self.search.set_contacts)
        # one tracker for the app's life: a new connection gives it the new client
        self.pending = PendingTracker(None, parent=self)
        self.transfers = TransferService(
            self.session, self.composer, self.chains, self.pending, self
        )
        self.saved_profiles: list[Profile] = []
        self._watch: asyncio.Task[Any] | None = None
        self._pending_task: asyncio.Task[Any] | None = None
        self._settings: dict[str, Any] = {}
        self.settings_ready = False  # settings.json read (saving before would drop its values)
        # two writes at once (the window's state and the composer's draft on quit) interleaved
        # in the same file and left JSON that read back as no settings at all
        self._settings_lock = asyncio.Lock()
        self.open_browser: Callable[[str], object] = _open_browser  # browser sign-in opens this
        # passwords that signed in during this run, in memory only: switching back needs none
        self._recent_passwords: dict[tuple[str, str], str] = {}
        self.tasks.failed.connect(self._on_task_failed)
        self.sandbox.state_changed.connect(self._on_sandbox_state)

    # ------------------------------------------------------------ start-up

    async def start(self) -> None:
        """Connect to the last used profile, or to the embedded sandbox as alice."""
        await self.load_settings()
        self.contacts = await asyncio.to_thread(self.contact_store.load)
        self.contacts_changed.emit(dict(self.contacts))
        self.names_changed.emit(self.address_names())
        try:
            self.saved_profiles = await asyncio.to_thread(self.profiles.load)
        except ProfileError as exc:
            self.message.emit("warning", "Connection profiles", str(exc), "")
            self.saved_profiles = []
        self.profiles_changed.emit(list(self.saved_profiles))
        last = self._settings.get("last_profile")
        profile = next((p for p in self.saved_profiles if p.name == last), None)
        if profile is None or profile.sandbox:
            profile = sandbox_profile()
        user = str(self._settings.get("last_user", {}).get(profile.name) or profile.username)
        if profile.flow == "password" and not user:
            user = "alice"
        creds = await self.stored_credentials(profile, user)
        await self.connect_profile(profile, creds)

    async def stored_credentials(self, profile: Profile, user: str) -> Credentials:
        """What is remembered for signing in with ``profile`` (sandbox demo users need nothing)."""
        password = self._recent_passwords.get((profile.name, user))
        if password is None:
            password = await self.secrets_get(profile.secret_key(f"password:{user}"))
        if password is None and profile.sandbox:
            password = user  # demo users' default password on a sandbox node (see README)
        secret = await self.secrets_get(profile.secret_key("client_secret")) or ""
        token = await self.secrets_get(profile.secret_key("token")) or ""
        return Credentials(user, password or "", secret, token)

    async def secrets_get(self, key: str) -> str | None:
        try:
            return await self.secrets.get(key)
        except Exception as exc:  # a broken keyring must not stop the app from starting
            log.warning("secret store unavailable: %s", exc)
            return None

    def _on_task_failed(self, title: str, text: str, kind: str) -> None:
        if kind == "network":  # over by itself once the node answers again
            self.node_error.emit(title, text)
            return
        self.message.emit("error", title, text, "sign-in" if kind == "auth" else "")

    # ------------------------------------------------------------ small UI state

    def setting(self, key: str, default: Any = None) -> Any:
        """A value kept in settings.json (window geometry, last panel, drafts ...); known once
        :meth:`start` has read the file."""
        return self._settings.get(key, default)

    async def load_settings(self) -> None:
        """Read settings.json (off the GUI thread), then emit ``settings_loaded`` (the window
        restores its geometry and last panel from it)."""
        self._settings = await asyncio.to_thread(self.settings.load)
        self.settings_ready = True
        self.settings_loaded.emit()

    async def save_settings(self, **values: Any) -> None:
        """Keep ``values`` in settings.json, written off the GUI thread; a failure is a warning."""
        self._settings.update(values)
        try:
            async with self._settings_lock:  # one write at a time, each with the latest values
                await asyncio.to_thread(self.settings.save, dict(self._settings))
        except OSError as exc:
            self.message.emit("warning", "Settings", f"cannot save settings: {exc}", "")

    # ------------------------------------------------------------ first run

    @property
    def first_run(self) -> bool:
        """True until :meth:`first_run_done`: the welcome has not been shown yet (known once
        :meth:`start` has read the settings)."""
        return not self._settings.get("welcome_shown", False)

    async def first_run_done(self) -> None:
        """Remember that the welcome was shown (``welcome_shown`` in settings.json)."""
        await self.save_settings(welcome_shown=True)

    # ------------------------------------------------------------ sandbox

    @property
    def sandbox_gas(self) -> bool:
        """Whether the embedded sandbox charges gas (then the faucet funds accounts)."""
        return bool(self._settings.get("sandbox_gas", False))

    async def set_sandbox_gas(self, gas: bool) -> None:
        """Remember the choice; a running sandbox restarts with it (its data stays)."""
        if gas == self.sandbox_gas:
            return
        await self.save_settings(sandbox_gas=gas)
        if self.sandbox.state in ("running", "starting"):
            await self.sandbox.stop_async()

    async def ensure_sandbox(self) -> str:
        """The embedded node's URL, starting it first if needed."""
        sb = self.sandbox
        sb.extra_args = ["--gas"] if self.sandbox_gas else []
        if sb.state == "running" and sb.url:
            return sb.url
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[str] = loop.create_future()

        def on_ready(url: str) -> None:
            if not fut.done():
                fut.set_result(url)

        def on_state(state: str) -> None:
            if state == "crashed" and not fut.done():
                tail = "\n".join(list(sb.log)[-8:])
                fut.set_exception(SandboxError(f"the sandbox node did not start:\n{tail}"))

        sb.ready.connect(on_ready)
        sb.state_changed.connect(on_state)
        try:
            if sb.state != "starting":
                await sb.choose_port(self.setting("sandbox_port"))  # the last run's, if free
                sb.start()
            url = await asyncio.wait_for(fut, SANDBOX_START_TIMEOUT)
        except TimeoutError:
            sb.stop()
            raise SandboxError("the sandbox node did not start within a minute") from None
        finally:
            sb.ready.disconnect(on_ready)
            sb.state_changed.disconnect(on_state)
        if port_of(url) not in (None, self.setting("sandbox_port")):
            await self.save_settings(sandbox_port=port_of(url))
        return url

    def _on_sandbox_state(self, state: str) -> None:
        if state == "crashed" and self.session.profile and self.session.profile.sandbox:
            self.session.node_lost()  # no health poll needed to know it does not answer
            self.message.emit(
                "error",
                "Sandbox node stopped",
                "The embedded sandbox node exited. Its log is under Sandbox log (Ctrl+L); "
                "Restart brings it back with its data.",
                "restart",
            )

    async def restart_sandbox(self) -> None:
        await self.sandbox.stop_async()
        profile = self.session.profile or sandbox_profile()
        user = self.session.username or profile.username or "alice"
        await self.connect_profile(
            profile if profile.sandbox else sandbox_profile(),
            await self.stored_credentials(sandbox_profile(), user),
        )

    # ------------------------------------------------------------ connect / switch

    async def connect_profile(
        self, profile: Profile, creds: Credentials, *, remember: bool = False
    ) -> None:
        """Sign in with ``profile``; on success it becomes the last used profile."""
        self.tasks.reopen()  # after a shutdown, connecting again brings the controller back
        if profile.sandbox:
            url = await self.ensure_sandbox()
            profile = replace(profile, node_url=url)
        await self.session.open(profile, creds, open_browser=self.open_browser)
        if profile.flow == "password" and creds.password:
            self._recent_passwords[(profile.name, self.session.username)] = creds.password
        if not profile.sandbox and self.sandbox.state in ("running", "starting"):
            await self.sandbox.stop_async()
        self._restart_watchers()
        if remember:
            await self._remember(profile, creds)
        await self._remember_last(profile.name, self.session.username)
        await self.refresh_users()

    async def switch_user(
        self, username: str, password: str | None = None, *, remember: bool = False
    ) -> None:
        """Act as ``username`` on the same node; a stored or (sandbox) default password is used
        when none is given. Raises AuthError when the password is wrong."""
        profile = self.session.profile
        if profile is None:
            raise AuthError("not connected")
        if password is None:
            password = (await self.stored_credentials(profile, username)).password
            if not password:
                raise AuthError(f"no password of {username} is stored: enter it")
        creds = Credentials(username, password)
        await self.session.switch_user(creds)
        self._recent_passwords[(profile.name, self.session.username)] = password
        if remember:
            await self.secrets.set(profile.secret_key(f"password:{username}"), password)
        await self._remember_last(profile.name, self.session.username)

    async def test_connection(self, profile: Profile, creds: Credentials) -> str:
        """Try ``profile`` without touching the current session; a sentence saying what worked."""
        if profile.sandbox:
            url = await self.ensure_sandbox()
            profile = replace(profile, node_url=url)
        probe = Session(None)
        try:
            await probe.open(profile, creds, open_browser=self.open_browser)
            health = probe.health
            block = health.last_block if health else None
            return (
                f"Connected to {profile.node_url} as {probe.username}"
                + (f"; latest block {block}" if block is not None else "")
                + (f"; node version {health.version}" if health and health.version else "")
            )
        finally:
            await probe.close()

    async def save_profile(self, profile: Profile, creds: Credentials, remember: bool) -> None:
        profile.check()
        await asyncio.to_thread(self.profiles.upsert, profile)
        self.saved_profiles = await asyncio.to_thread(self.profiles.load)
        self.profiles_changed.emit(list(self.saved_profiles))
        if remember:
            await self._remember(profile, creds)

    async def add_contact(self, name: str, address: str) -> None:
        self.contacts = await asyncio.to_thread(self.contact_store.add, name, address)
        self.contacts_changed.emit(dict(self.contacts))
        self.names_changed.emit(self.address_names())

    def address_names(self) -> dict[str, str]:
        """address -> the name to show beside it: a contact's name, else the user's."""
        names = {a.lower(): n for n, a in self._users}
        names.update({a.lower(): n for n, a in self.contacts.items()})
        return names

    async def _remember(self, profile: Profile, creds: Credentials) -> None:
        if creds.password and creds.username:
            await self.secrets.set(profile.secret_key(f"password:{creds.username}"), creds.password)
        if creds.client_secret:
            await self.secrets.set(profile.secret_key("client_secret"), creds.client_secret)
        if creds.token:
            await self.secrets.set(profile.secret_key("token"), creds.token)

    async def _remember_last(self, profile_name: str, user: str) -> None:
        last_user = {**self._settings.get("last_user", {}), profile_name: user}
        await self.save_settings(last_profile=profile_name, last_user=last_user)

    async def refresh_users(self) -> list[str]:
        """Users to offer in the switcher: those with a certificate, plus the sandbox's demo
        users (dave has no certificate on purpose)."""
        names: list[str] = []
        profile = self.session.profile
        try:
            self._users = await self.composer.users()
            names = [name for name, _address in self._users]
            self.names_changed.emit(self.address_names())
        except StratoError as exc:
            log.info("cannot list users: %s", exc)
        if profile is not None and profile.sandbox:
            names = sorted(set(names) | set(DEMO_USERS))
        if self.session.username and self.session.username not in names:
            names.append(self.session.username)
        self.users_changed.emit(names)
        return names

    # ------------------------------------------------------------ background loops

    def _restart_watchers(self) -> None:
        for t in (self._watch, self._pending_task):
            if t is not None:
                t.cancel()
        client = self.session.client
        assert client is not None
        self.pending.client = client
        self._watch = self.tasks.start("Watching the node", self.session.watch())
        self._pending_task = self.tasks.start("Tracking transactions", self.pending.run())

    # ------------------------------------------------------------ shutdown

    async def shutdown(self) -> None:
        """Cancel everything, close the connection, stop the sandbox."""
        await self.tasks.shutdown()
        await self.session.close()
        await self.sandbox.stop_async()


def _open_browser(url: str) -> None:
    if not QDesktopServices.openUrl(QUrl(url)):
        raise NetworkError(f"cannot open a browser; open this address by hand: {url}")
