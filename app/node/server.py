"""Runs the sandbox node: opens the data dir, builds the app and serves it with uvicorn.

When the node is ready it prints exactly one line to stdout, flushed:
``Sandbox node listening on http://HOST:PORT``. SIGINT/SIGTERM shut it down cleanly (the last
blocks are snapshotted). A lock file keeps two nodes off one data dir.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette

from . import native
from .api import NodeApi, build_app
from .appgen import DEMO_APP
from .apps import AppManager
from .config import NodeConfig, is_loopback
from .connections import (
    ClientGoneMiddleware,
    ConnectionGuard,
    connection_cap,
    guarded_protocol,
    raise_file_limit,
)
from .debug.routes import DebugRoutes
from .files import FileService, blob_store_from_env
from .gcfreeze import tune_for_node
from .ledger import Ledger
from .ledger.codebook import SlowStoredCode
from .oidc import OidcIssuer
from .perms import restrict_umask, secure_data_dir
from .store import Store
from .users import UserStore
from .vault import Vault, load_node_secret

log = logging.getLogger("stratoscope.node")

STATE_FILE = "node.json"


class _Server(uvicorn.Server):
    """uvicorn's server, minus re-raising SIGTERM/SIGINT after a graceful shutdown.

    uvicorn re-delivers the signal once it has shut down, which kills the process before our own
    clean-up runs and turns a clean stop into exit status 143; the node exits 0 instead.
    """

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        handled = (signal.SIGINT, signal.SIGTERM)
        original = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)


class NodeError(Exception):
    """The node cannot start; the message says why."""


@contextlib.contextmanager
def data_dir_lock(data_dir: Path) -> Iterator[None]:
    secure_data_dir(data_dir)
    path = data_dir / "node.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise NodeError(f"another sandbox node is already using {data_dir}") from None
        yield
    finally:
        os.close(fd)


def url_for(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def read_state(data_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads((data_dir / STATE_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class Node:
    """One node process: storage, ledger, HTTP app."""

    def __init__(self, config: NodeConfig) -> None:
        self.config = config
        self.store = Store(config.data_dir)
        self.vault = Vault(load_node_secret(config.data_dir))
        self.users = UserStore(self.store, self.vault)
        self.ledger = Ledger(config, self.store, self.vault)
        self.issuer = OidcIssuer(config.data_dir, self.users)
        self.api = NodeApi(self.ledger, self.users, self.issuer, config.max_body)
        self.apps = AppManager(self.ledger)
        try:
            blobs = blob_store_from_env(config.data_dir) if config.file_storage else None
        except ValueError as exc:
            raise NodeError(str(exc)) from None
        self.files = FileService(self.ledger, blobs, config.max_upload)
        self.debug = DebugRoutes(self.api)  # the step debugger's sessions (app/node/debug)
        self.api.extra_routes = (
            self.apps.routes(self.api) + self.files.routes(self.api) + self.debug.routes()
        )

    def open(self) -> None:
        try:
            self.ledger.open()
        except SlowStoredCode as exc:
            raise NodeError(str(exc)) from None
        if self.store.get_meta("demo_app") is None:
            # the demo asset application of DESIGN.md, created by alice on a fresh data dir
            if "CarDemo" not in self.apps.apps and self.ledger.cert_of_user("alice"):
                self.apps.create("alice", DEMO_APP, internal=True)
            self.store.set_meta("demo_app", "CarDemo")

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.ledger.start()
        self.api.warm_accounts()  # a big node's account table, built on another thread
        try:
            yield
        finally:
            await self.ledger.stop()

    def app(self) -> Starlette:
        return build_app(self.api, self.lifespan)

    def close(self) -> None:
        self.ledger.traces.close()  # its writer thread stores what is pending first
        self.store.close()


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise NodeError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


async def _watch_parent(server: uvicorn.Server, parent: int) -> None:
    """Shut down like on SIGTERM once the parent dies (we are then re-parented)."""
    while os.getppid() == parent:
        await asyncio.sleep(0.5)
    logging.getLogger("stratoscope.node").warning("parent process %d is gone: stopping", parent)
    server.should_exit = True


async def _serve(node: Node, sock: socket.socket) -> None:
    host, port = sock.getsockname()[:2]
    url = url_for(node.config.host if node.config.host != "0.0.0.0" else host, port)
    node.issuer.base_url = url
    files = raise_file_limit()
    guard = ConnectionGuard(
        timeout=node.config.request_timeout,
        max_connections=node.config.max_connections or connection_cap(files),
    )
    config = uvicorn.Config(
        ClientGoneMiddleware(node.app()),
        # no X-Forwarded-For/-Proto: uvicorn trusts them from 127.0.0.1 by default, which would
        # let any local client pick the address the sign-in throttle counts failures against
        proxy_headers=False,
        log_level="warning",
        loop="none",
        http=guarded_protocol(guard),
        lifespan="on",
        access_log=False,
        timeout_graceful_shutdown=5,
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            await task
            return
        await asyncio.sleep(0.005)
    state = {"url": url, "pid": os.getpid(), "issuer": node.issuer.issuer}
    state_path = node.config.data_dir / STATE_FILE
    state_path.write_text(json.dumps(state))
    print(f"Sandbox node listening on {url}", flush=True)
    watcher = (
        asyncio.create_task(_watch_parent(server, node.config.parent_pid))
        if node.config.exit_with_parent
        else None
    )
    try:
        await task
    finally:
        if watcher is not None:
            watcher.cancel()
        with contextlib.suppress(OSError):
            data = read_state(node.config.data_dir)
            data.pop("pid", None)
            state_path.write_text(json.dumps(data))


def serve(config: NodeConfig) -> int:
    """Run until interrupted; returns the process exit status."""
    if not is_loopback(config.host) and not config.allow_remote:
        raise NodeError(
            f"refusing to listen on {config.host}: it is reachable from other machines. "
            "Pass --allow-remote if you mean it (after changing the demo users' passwords)."
        )
    restrict_umask()  # the database, its -wal/-shm, blobs, node.json: readable by us only
    with data_dir_lock(config.data_dir):
        node = Node(config)
        try:
            if not is_loopback(config.host):
                defaults = node.users.users_with_default_password()
                if defaults:
                    raise NodeError(
                        "refusing to listen on a non-loopback address while these users still "
                        f"have their default password: {', '.join(defaults)} "
                        "(change them with: users passwd NAME)"
                    )
            stale = native.stale_modules()
            if stale:
                log.warning(
                    "the compiled modules in %s do not match the sources of %s (edited since "
                    "the build): all of them run as Python, slower; `make install` compiles "
                    "them again",
                    native.native_dir(),
                    ", ".join(stale),
                )
            node.open()
            tune_for_node()  # the collector's settings for the node process
            sock = _bind(config.host, config.port)
            try:
                _run(_serve(node, sock))
            finally:
                sock.close()
        finally:
            node.close()
    return 0


def _run(coro: Any) -> None:
    try:
        import uvloop

        uvloop.run(coro)
    except ImportError:
        asyncio.run(coro)


def configure_logging() -> None:
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
    )
