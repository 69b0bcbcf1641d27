"""A real sandbox node in a subprocess, for the integration tests.

``RunningNode`` runs ``python -m app.node serve --port 0 --data-dir DIR [flags]`` from the project
root, waits for the ``Sandbox node listening on http://HOST:PORT`` line and hands out tokens
(issued by the ``token`` command's code, in this process) and authenticated httpx clients. It
stops the node with SIGTERM, can SIGKILL it, and restarts it on the same data dir (and, when it
can, the same port, so that the tokens issued before the restart keep their issuer).

Every client it hands out is closed when the node stops; pipes and log files are closed too, so
no ResourceWarning escapes (pytest runs with warnings as errors).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx

from app.node.__main__ import _token_for

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = ROOT / "resources" / "contracts"
LISTENING = re.compile(r"^Sandbox node listening on (http://\S+:(\d+))$")
START_TIMEOUT = 30.0
STOP_TIMEOUT = 15.0
HTTP_TIMEOUT = 30.0

HEX40 = re.compile(r"^[0-9a-f]{40}$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")

DEMO_USERS = ("admin", "alice", "bob", "carol", "dave")

T = TypeVar("T")


class NodeStartError(RuntimeError):
    """The node did not print its listening line in time (the message holds its log)."""


def run_cli(data_dir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``python -m app.node <args>`` with ``--data-dir`` put where the sub-command wants it."""
    argv = [sys.executable, "-m", "app.node", *args]
    # --data-dir belongs to the sub-command (``users --data-dir D add ...``)
    argv.insert(4, "--data-dir")
    argv.insert(5, str(data_dir))
    proc = subprocess.run(
        argv, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False, env=_env()
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(args)} exited with {proc.returncode}: {proc.stderr.strip()}"
        )
    return proc


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("PYTHONWARNINGS", None)
    return env


class RunningNode:
    """One sandbox node process on a data dir; restartable."""

    def __init__(self, data_dir: Path, *flags: str, log_dir: Path | None = None) -> None:
        self.data_dir = data_dir
        self.flags = list(flags)
        self.log_dir = log_dir or data_dir.parent
        self.url = ""
        self.port = 0
        self.starts = 0
        self._proc: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        self._lines: list[str] = []
        self._ready = threading.Event()
        self._tokens: dict[str, str] = {}
        self._clients: list[httpx.Client] = []
        self._cached: dict[str | None, httpx.Client] = {}
        self._addresses: dict[str, str] = {}

    # ---------------------------------------------------------------- life cycle

    @property
    def log_path(self) -> Path:
        return self.log_dir / f"{self.data_dir.name}.log"

    def start(self, port: int = 0) -> RunningNode:
        if self._proc is not None:
            raise RuntimeError("node already running")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        argv = [
            sys.executable,
            "-m",
            "app.node",
            "serve",
            "--port",
            str(port),
            "--data-dir",
            str(self.data_dir),
            *self.flags,
        ]
        self._lines = []
        self._ready = threading.Event()
        with self.log_path.open("a", encoding="utf-8") as log:
            log.write(f"--- start {self.starts + 1}: {' '.join(argv[3:])}\n")
            log.flush()
            proc = subprocess.Popen(
                argv,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                env=_env(),
            )
        self._proc = proc
        self._reader = threading.Thread(target=self._read_stdout, args=(proc,), daemon=True)
        self._reader.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._ready.wait(0.05):
            if proc.poll() is not None or time.monotonic() > deadline:
                self._reap(kill=True)
                raise NodeStartError(
                    f"node did not start (exit {proc.returncode}); stdout: {self._lines!r}; "
                    f"log:\n{self.log_tail()}"
                )
        self.starts += 1
        return self

    def _read_stdout(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.rstrip("\n")
            self._lines.append(line)
            m = LISTENING.match(line)
            if m and not self._ready.is_set():
                self.url = m.group(1)
                self.port = int(m.group(2))
                self._ready.set()

    @property
    def stdout_lines(self) -> list[str]:
        return list(self._lines)

    @property
    def pid(self) -> int:
        assert self._proc is not None
        return self._proc.pid

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def _close_clients(self) -> None:
        for c in self._clients:
            c.close()
        self._clients.clear()
        self._cached.clear()

    def _reap(self, *, kill: bool) -> int | None:
        proc = self._proc
        if proc is None:
            return None
        if kill and proc.poll() is None:
            proc.kill()
        try:
            proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(STOP_TIMEOUT)
        # after the process is gone, so that a thread still using a client sees a transport
        # error rather than a closed client
        self._close_clients()
        if self._reader is not None:
            self._reader.join(5)
        if proc.stdout is not None:
            proc.stdout.close()
        self._proc = None
        self._reader = None
        return proc.returncode

    def stop(self) -> int | None:
        """SIGTERM and wait (SIGKILL when it does not exit in time); returns the exit code."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
        return self._reap(kill=False)

    def kill9(self) -> int | None:
        """SIGKILL: no chance to snapshot or flush anything."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        return self._reap(kill=False)

    def restart(self, *, same_port: bool = True) -> RunningNode:
        """Start again on the same data dir (stopping first with SIGTERM if still running)."""
        if self._proc is not None:
            self.stop()
        old_url = self.url
        port = self.port if same_port else 0
        try:
            self.start(port)
        except NodeStartError:
            if port == 0:
                raise
            self.start(0)  # the old port was taken meanwhile
        if self.url != old_url:
            self._tokens.clear()  # the issuer URL changed: old tokens carry another issuer
        return self

    # ---------------------------------------------------------------- users and tokens

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return run_cli(self.data_dir, *args, check=check)

    def token(self, user: str) -> str:
        """What ``python -m app.node token --user USER`` prints, issued by the same code in this
        process: a ``token`` process per user and module cost 1-4 s of Python start-up, minutes
        over the suite (test_node_cli runs the command itself)."""
        tok = self._tokens.get(user)
        if tok is None:
            issued = _token_for(self.data_dir, user)
            if issued is None:
                raise AssertionError(f"token: unknown user {user!r}")
            tok = self._tokens[user] = issued
        return tok

    def add_user(
        self,
        name: str,
        org: str,
        *,
        unit: str | None = None,
        password: str | None = None,
        identity: bool = True,
    ) -> None:
        args = ["users", "add", name, "--org", org]
        if unit is not None:
            args += ["--unit", unit]
        if password is not None:
            args += ["--password", password]
        if not identity:
            args.append("--no-identity")
        self.cli(*args)

    def oauth_client(self) -> tuple[str, str]:
        client_id, secret = self.cli("oauth-client").stdout.split()
        return client_id, secret

    # ---------------------------------------------------------------- HTTP

    def new_client(
        self, user: str | None = None, *, token: str | None = None, **kwargs: Any
    ) -> httpx.Client:
        """A fresh client (closed when the node stops), with a bearer token for ``user``."""
        headers = dict(kwargs.pop("headers", {}) or {})
        if token is None and user is not None:
            token = self.token(user)
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        kwargs.setdefault("timeout", HTTP_TIMEOUT)
        c = httpx.Client(base_url=self.url, headers=headers, **kwargs)
        self._clients.append(c)
        return c

    def client(self, user: str | None = None) -> httpx.Client:
        """The shared client of ``user`` for the current run (None: no Authorization header)."""
        c = self._cached.get(user)
        if c is None or c.is_closed:
            c = self.new_client(user)
            self._cached[user] = c
        return c

    def address(self, user: str) -> str:
        a = self._addresses.get(user)
        if a is None:
            r = self.client(user).get("/svc/v2.3/key")
            assert r.status_code == 200, r.text
            a = str(r.json()["address"])
            self._addresses[user] = a
        return a

    def wait_healthy(self, timeout: float = 10.0) -> dict[str, Any]:
        def probe() -> dict[str, Any] | None:
            try:
                r = self.client().get("/health")
            except httpx.TransportError:
                return None
            return r.json() if r.status_code == 200 else None

        return wait_for(probe, timeout, "node healthy")

    def __enter__(self) -> RunningNode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def running_node(data_dir: Path, *flags: str) -> Iterator[RunningNode]:
    node = RunningNode(data_dir, *flags)
    node.start()
    try:
        yield node
    finally:
        node.stop()


def wait_for(probe: Callable[[], T | None], timeout: float, what: str, poll: float = 0.05) -> T:
    """Call ``probe`` until it returns something other than None (or False); fail after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(poll)


# -------------------------------------------------------------------- request helpers


def upload_tx(
    contract: str,
    src: str | dict[str, str],
    args: dict[str, Any] | None = None,
    vm: str | None = "SolidVM",
    **extra: Any,
) -> dict[str, Any]:
    payload: dict[str, Any] = {"contract": contract, "src": src, "args": args or {}}
    if vm is not None:
        payload["metadata"] = {"VM": vm}
    payload.update(extra)
    return {"type": "CONTRACT", "payload": payload}


def call_tx(
    address: str, method: str, args: dict[str, Any] | None = None, name: str = "", **extra: Any
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "contractName": name,
        "contractAddress": address,
        "method": method,
        "args": {} if args is None else args,
    }
    payload.update(extra)
    return {"type": "FUNCTION", "payload": payload}


def transfer_tx(to: str, value: int | str) -> dict[str, Any]:
    return {"type": "TRANSFER", "payload": {"toAddress": to, "value": value}}


TX_PARAMS = {"gasLimit": 100_000_000, "gasPrice": 1}


def body(*txs: dict[str, Any], tx_params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"txs": list(txs), "txParams": TX_PARAMS if tx_params is None else tx_params}


def submit(
    client: httpx.Client,
    *txs: dict[str, Any],
    resolve: bool = True,
    route: str = "/svc/v2.3/transaction",
    expect: int | None = 200,
    tx_params: dict[str, Any] | None = None,
) -> Any:
    """POST the transactions; returns the decoded body (asserting the status when ``expect``)."""
    r = client.post(
        route,
        params={"resolve": "true" if resolve else "false"},
        json=body(*txs, tx_params=tx_params),
    )
    if expect is not None:
        assert r.status_code == expect, f"{r.status_code}: {r.text[:2000]}"
    return r.json()


def deploy(
    client: httpx.Client,
    contract: str,
    src: str,
    args: dict[str, Any] | None = None,
    vm: str = "SolidVM",
) -> str:
    """Upload with resolve=true; returns the new contract's address."""
    res = submit(client, upload_tx(contract, src, args, vm))
    assert res[0]["status"] == "Success", res
    return str(res[0]["data"]["contents"]["address"])


def create_chain(
    client: httpx.Client,
    creator: str,
    src: str,
    contract: str,
    *,
    label: str,
    args: dict[str, Any] | None = None,
    balance: int = 1000,
    org: str = "Acme",
) -> str:
    """``POST /bloc/v2.2/chain``: a private chain of one member organization (``org``), with
    ``contract`` of ``src`` as its governance contract and ``balance`` for the address
    ``creator``; returns the new chain's ID."""
    r = client.post(
        "/bloc/v2.2/chain",
        json={
            "label": label,
            "src": src,
            "contract": contract,
            "args": args or {},
            "members": [{"orgName": org, "access": True}],
            "balances": [{"address": creator, "balance": balance}],
            "metadata": {"VM": "SolidVM"},
        },
    )
    assert r.status_code == 200, r.text
    chain = r.json()
    assert isinstance(chain, str) and HEX64.match(chain), chain
    return chain


def result_of(client: httpx.Client, tx_hash: str) -> dict[str, Any]:
    r = client.get(f"/bloc/v2.2/transactions/{tx_hash}/result")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def wait_results(client: httpx.Client, hashes: Sequence[str], timeout: float = 30.0) -> list[Any]:
    """Poll ``POST /bloc/v2.2/transactions/results`` until no element is Pending."""

    def probe() -> list[Any] | None:
        r = client.post("/bloc/v2.2/transactions/results", json=list(hashes))
        assert r.status_code == 200, r.text
        items: list[Any] = r.json()
        return None if any(x["status"] == "Pending" for x in items) else items

    return wait_for(probe, timeout, f"{len(hashes)} transaction results", poll=0.1)


def read_contract(name: str) -> str:
    return (CONTRACTS / name).read_text(encoding="utf-8")
