"""Run the platform's own deployment script against a fresh sandbox node and check what it printed.

    python tools/run_platform_deploy.py CONTRACTS_DIR [--user alice] [--timeout 600]
                                        [--log FILE] [--serve-arg=--gas ...] [--keep-data]
                                        [--sandbox-dir DIR]

CONTRACTS_DIR is a checkout of the platform's ``mercata/contracts`` with its ``node_modules``
installed (``npm ci``; blockapps-rest 8.4.0 built from source, see the README's "Deploying the
platform's contracts"). The script starts a sandbox node the way the desktop app starts its
embedded one (``python -m app.node serve --port 0 --data-dir DIR --exit-with-parent``), writes the
``.env`` the deploy README asks for (node URL, the OAuth **discovery** URL, the node's OAuth
client, a demo user), runs ``node deploy/deploy.js`` unmodified, and checks that

* it printed ``====== Deployment Successful ======``, the ``Label: address`` lines and the
  ``KEY=address`` lines of its ``.env`` snippet, every value 40 hex digits (``undefined`` is what
  it prints for a manager the contract's state lacks);
* the printed addresses are the ones in the node: ``MERCATA_CORE`` holds a ``Mercata``, every
  other printed address is a value of a state variable of it and holds a contract;
* the creating transaction succeeded; it reports the transaction's execution time, how many
  contracts it created and the wall-clock times of the script's steps.

An existing ``.env`` in CONTRACTS_DIR is put back afterwards. deploy.js itself writes the bundled
source to ``contract_source`` there. Nothing is fetched: this is not part of ``make test`` (it
needs Node.js and the platform's checkout). Exit status: 0 all checks pass, 1 the deployment or a
check failed, 2 the run could not start (no ``node``, no ``node_modules``, the sandbox did not
start).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.launch import node_command  # noqa: E402

LISTENING = "Sandbox node listening on "
START_TIMEOUT = 60.0
SUCCESS_BANNER = "====== Deployment Successful ======"
PASTE_MARKER = "# Paste these into your .env"
HEX40 = re.compile(r"^[0-9a-f]{40}$")
NODE_SAID = re.compile(r"""data: [`'"](Error running the transaction: .*?)[`'"],?$""")
# the variables deploy.js reads (config.js, deploy.js); a stale one in our environment would win
# over the .env (dotenv does not override), so they are taken out of the child's environment
ENV_KEYS = (
    "NODE_URL",
    "OAUTH_URL",
    "OAUTH_CLIENT_ID",
    "OAUTH_CLIENT_SECRET",
    "GLOBAL_ADMIN_NAME",
    "GLOBAL_ADMIN_PASSWORD",
    "CONTRACTS_DIR",
    "MAIN_FILE",
    "APP_NAME",
    "GAS_PRICE",
    "GAS_LIMIT",
)


class RunError(Exception):
    """The run could not start (exit status 2)."""


# ------------------------------------------------------------------ what deploy.js printed


@dataclass
class DeployOutput:
    """What deploy.js printed on success: its summary lines and its ``.env`` snippet."""

    succeeded: bool = False
    address: str = ""  # "Address:" of the summary (the Mercata contract)
    labelled: dict[str, str] = field(default_factory=dict)  # "Rate Strategy" -> value
    env: dict[str, str] = field(default_factory=dict)  # "RATE_STRATEGY" -> value
    error: str = ""  # the first line of "Deployment failed: ..." when it failed


def parse_deploy_output(text: str) -> DeployOutput:
    """Read deploy.js's summary: the ``Label: value`` lines between the success banner and the
    closing ``====`` line, and the ``KEY=value`` lines after "# Paste these into your .env"."""
    out = DeployOutput()
    lines = text.splitlines()
    for line in lines:
        if line.startswith(("Deployment failed:", "Unhandled error:")):
            out.error = line.strip()
            break
    # axios dumps the failed response; its body is the node's message
    said = next((m.group(1) for line in lines if (m := NODE_SAID.search(line))), None)
    if said:
        out.error = f"{out.error}; the node said: {said}" if out.error else said
    try:
        start = lines.index(SUCCESS_BANNER)
    except ValueError:
        return out
    out.succeeded = True
    i = start + 1
    while i < len(lines) and not lines[i].startswith("===="):
        label, sep, value = lines[i].partition(": ")
        if sep and label not in ("Contract",):
            if label == "Address":
                out.address = value.strip()
            else:
                out.labelled[label.strip()] = value.strip()
        i += 1
    try:
        j = lines.index(PASTE_MARKER, i)
    except ValueError:
        return out
    for line in lines[j + 1 :]:
        if line.startswith("#"):
            if out.env:  # the closing "# ----" line after the entries
                break
            continue
        key, sep, value = line.partition("=")
        if sep and re.fullmatch(r"[A-Z][A-Z0-9_]*", key):
            out.env[key] = value.strip()
    return out


def check_printed(out: DeployOutput) -> list[str]:
    """Problems with what was printed: nothing missing, every value an address."""
    problems: list[str] = []
    if not out.succeeded:
        problems.append(f"no '{SUCCESS_BANNER}' line" + (f" ({out.error})" if out.error else ""))
        return problems
    if not HEX40.match(out.address):
        problems.append(f"Address: {out.address!r} is not an address")
    if not out.labelled:
        problems.append("no manager lines after the success banner")
    if not out.env:
        problems.append(f"no KEY=address lines after '{PASTE_MARKER}'")
    for what, values in (("line", out.labelled), ("env line", out.env)):
        for k, v in values.items():
            if not HEX40.match(v):
                problems.append(f"{what} {k}: {v!r} is not an address")
    if out.env and out.env.get("MERCATA_CORE") != out.address:
        problems.append(
            f"MERCATA_CORE={out.env.get('MERCATA_CORE')!r} differs from Address: {out.address!r}"
        )
    # every labelled manager is also in the .env snippet (the snippet adds MERCATA_CORE)
    missing = set(out.labelled.values()) - set(out.env.values())
    if missing:
        problems.append(
            f"addresses printed as lines but not in the .env snippet: {sorted(missing)}"
        )
    return problems


def state_addresses(state: Any) -> set[str]:
    """Every 40-hex string value among a contract state's variables (top level)."""
    if not isinstance(state, dict):
        return set()
    return {v for v in state.values() if isinstance(v, str) and HEX40.match(v)}


# ------------------------------------------------------------------ the sandbox node


class Sandbox:
    """A sandbox node in a subprocess on a fresh data dir, as the desktop app starts its own."""

    def __init__(self, data_dir: Path, extra: list[str]) -> None:
        self.data_dir = data_dir
        self.extra = extra
        self.url = ""
        self.log: list[str] = []
        self._proc: subprocess.Popen[str] | None = None
        self._drain: threading.Thread | None = None

    def start(self) -> str:
        argv = [
            *node_command(),
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(self.data_dir),
            "--exit-with-parent",
            *self.extra,
        ]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        assert self._proc.stdout is not None
        found: list[str] = []
        ready = threading.Event()

        def read(stream: TextIO) -> None:
            for raw in stream:
                line = raw.rstrip("\n")
                self.log.append(line)
                if not found and line.startswith(LISTENING):
                    found.append(line[len(LISTENING) :].strip())
                    ready.set()
            ready.set()  # the node exited

        self._drain = threading.Thread(target=read, args=(self._proc.stdout,), daemon=True)
        self._drain.start()
        if not ready.wait(START_TIMEOUT) or not found:
            self.stop()
            tail = "\n".join(self.log[-15:])
            raise RunError(f"the sandbox node did not start:\n{tail}")
        self.url = found[0]
        return self.url

    def attach(self) -> str:
        """Use the node already running on ``data_dir`` (the desktop app's embedded sandbox, as
        ``make run`` starts it): its URL from the ``node.json`` it wrote, checked with /health."""
        try:
            url = str(json.loads((self.data_dir / "node.json").read_text())["url"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RunError(f"no running sandbox node on {self.data_dir} ({exc})") from exc
        try:
            ok = httpx.get(f"{url}/health", timeout=10).status_code == 200
        except httpx.HTTPError:
            ok = False
        if not ok:
            raise RunError(f"the sandbox node of {self.data_dir} does not answer at {url}")
        self.url = url
        return url

    def cli(self, *args: str) -> str:
        """``python -m app.node <command> --data-dir DIR <args>``: its standard output."""
        cmd, *rest = args
        proc = subprocess.run(
            [*node_command(), cmd, "--data-dir", str(self.data_dir), *rest],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if proc.returncode != 0:
            raise RunError(f"{cmd} failed: {proc.stderr.strip() or proc.stdout.strip()}")
        return proc.stdout.strip()

    def stop(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if self._drain is not None:
            self._drain.join(5)
        if proc.stdout is not None:
            proc.stdout.close()
        self._proc = None


# ------------------------------------------------------------------ the run


@contextlib.contextmanager
def env_file(contracts: Path, text: str) -> Iterator[Path]:
    """Write ``.env`` in the checkout for the run; put back the one that was there."""
    path = contracts / ".env"
    backup = path.read_bytes() if path.exists() else None
    path.write_text(text, encoding="utf-8")
    try:
        yield path
    finally:
        if backup is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(backup)


def env_text(url: str, client_id: str, secret: str, user: str, password: str) -> str:
    """The ``.env`` of the deploy README: the OAuth URL is the discovery document's."""
    return (
        f"NODE_URL={url}\n"
        f"OAUTH_URL={url}/auth/.well-known/openid-configuration\n"
        f"OAUTH_CLIENT_ID={client_id}\n"
        f"OAUTH_CLIENT_SECRET={secret}\n"
        f"GLOBAL_ADMIN_NAME={user}\n"
        f"GLOBAL_ADMIN_PASSWORD={password}\n"
    )


@dataclass
class Timed:
    """deploy.js's output lines with the seconds since it started at which each arrived."""

    lines: list[tuple[float, str]] = field(default_factory=list)
    returncode: int | None = None
    elapsed: float = 0.0

    @property
    def text(self) -> str:
        return "\n".join(line for _, line in self.lines)

    def at(self, prefix: str) -> float | None:
        return next((t for t, line in self.lines if line.startswith(prefix)), None)


def run_deploy(contracts: Path, timeout: float, echo: TextIO | None) -> Timed:
    """``node deploy/deploy.js`` in the checkout, every output line time-stamped."""
    env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
    t0 = time.monotonic()
    proc = subprocess.Popen(
        ["node", "deploy/deploy.js"],
        cwd=contracts,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    timed = Timed()
    assert proc.stdout is not None

    def read(stream: TextIO) -> None:
        for raw in stream:
            line = raw.rstrip("\n")
            timed.lines.append((time.monotonic() - t0, line))
            if echo is not None:
                echo.write(raw)

    reader = threading.Thread(target=read, args=(proc.stdout,), daemon=True)
    reader.start()
    try:
        timed.returncode = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
        timed.lines.append((time.monotonic() - t0, f"(killed after {timeout:g} s)"))
    reader.join(10)
    proc.stdout.close()
    timed.elapsed = time.monotonic() - t0
    return timed


def check_node(url: str, token: str, out: DeployOutput, report: list[str]) -> list[str]:
    """Compare the printed addresses with the node's: the Mercata state, the accounts, the
    creating transaction (whose execution time and created contracts go to ``report``)."""
    problems: list[str] = []
    auth = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url, headers=auth, timeout=60) as http:
        r = http.get(f"/bloc/v2.2/contracts/Mercata/{out.address}/state")
        if r.status_code != 200:
            return [f"state of Mercata at {out.address}: HTTP {r.status_code} {r.text[:200]}"]
        in_state = state_addresses(r.json())
        for key, addr in sorted(out.env.items()):
            if key != "MERCATA_CORE" and addr not in in_state:
                problems.append(f"{key}={addr} is no state variable of the Mercata contract")
        names: dict[str, str] = {}
        for addr in sorted(set(out.env.values())):
            r = http.get("/strato-api/eth/v1.2/account", params={"address": addr})
            rows = r.json() if r.status_code == 200 else []
            name = rows[0].get("contractName") if rows else None
            if not name:
                problems.append(f"no contract at {addr}")
            else:
                names[addr] = str(name)
        if names.get(out.address) not in (None, "Mercata"):
            problems.append(f"MERCATA_CORE holds a {names[out.address]}, not a Mercata")
        kinds = sorted({n for a, n in names.items() if a != out.address})
        report.append(f"contracts at the printed manager addresses: {', '.join(kinds) or 'none'}")
        r = http.get("/strato-api/eth/v1.2/transaction/last/20")
        txs = r.json() if r.status_code == 200 else []
        tx = next(
            (
                t
                for t in txs
                if t.get("transactionType") == "Contract"
                and (t.get("metadata") or {}).get("name") == "Mercata"
            ),
            None,
        )
        if tx is None:
            problems.append("the node lists no transaction creating Mercata")
            return problems
        r = http.get(f"/bloc/v2.2/transactions/{tx['hash']}/result")
        res = r.json() if r.status_code == 200 else {}
        tx_result = res.get("txResult") or {}
        created = [a for a in str(tx_result.get("contractsCreated", "")).split(",") if a]
        report.append(
            f"transaction {tx['hash']}: {res.get('status')}, "
            f"{len(created)} contracts created, "
            f"executed in {float(tx_result.get('time') or 0):.3f} s, "
            f"source {len(str(tx.get('codeOrData', '')))} characters"
        )
        if res.get("status") != "Success":
            problems.append(f"the Mercata transaction's status is {res.get('status')}")
    return problems


def preflight(contracts: Path) -> None:
    if not (contracts / "deploy" / "deploy.js").is_file():
        raise RunError(
            f"{contracts} has no deploy/deploy.js (want the platform's mercata/contracts)"
        )
    if not (contracts / "node_modules" / "blockapps-rest").is_dir():
        raise RunError(
            f"{contracts}/node_modules/blockapps-rest is missing: run npm ci there first "
            "(blockapps-rest 8.4.0 built from source, see the README)"
        )
    if shutil.which("node") is None:
        raise RunError("Node.js (node) is not on PATH")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("contracts", type=Path, help="the platform's mercata/contracts checkout")
    ap.add_argument("--user", default="alice", help="demo user who deploys (password = name)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds deploy.js may take")
    ap.add_argument("--log", type=Path, help="also write deploy.js's whole output here")
    ap.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        help="one more option for the node's serve command (repeatable), e.g. --serve-arg=--gas",
    )
    ap.add_argument("--keep-data", action="store_true", help="keep the node's data dir")
    ap.add_argument(
        "--sandbox-dir",
        type=Path,
        help="deploy on the node already running on this data dir instead of a fresh one "
        "(the app's embedded sandbox: ~/.local/share/stratoscope/sandbox on Linux)",
    )
    ap.add_argument("--quiet", action="store_true", help="do not echo deploy.js's output")
    opts = ap.parse_args(argv)
    contracts = opts.contracts.resolve()
    tmp = Path(tempfile.mkdtemp(prefix="stratoscope-deploy-"))
    running = opts.sandbox_dir is not None
    node = Sandbox(opts.sandbox_dir.resolve() if running else tmp / "node", opts.serve_arg)
    try:
        preflight(contracts)
        t_start = time.monotonic()
        url = node.attach() if running else node.start()
        client_id, _, secret = node.cli("oauth-client").partition(" ")
        how = "running" if running else f"started in {time.monotonic() - t_start:.1f} s"
        print(f"sandbox node {url} (data dir {node.data_dir}), {how}")
        dotenv = env_text(url, client_id, secret, opts.user, opts.user)
        with env_file(contracts, dotenv):
            timed = run_deploy(contracts, opts.timeout, None if opts.quiet else sys.stdout)
        if opts.log:
            opts.log.write_text(timed.text + "\n", encoding="utf-8")
        out = parse_deploy_output(timed.text)
        problems = check_printed(out)
        report: list[str] = []
        if timed.returncode != 0:
            problems.insert(0, f"deploy.js exited with {timed.returncode}")
        if out.succeeded and not problems:
            token = node.cli("token", "--user", opts.user)
            problems += check_node(url, token, out, report)
        print("\n--- run_platform_deploy summary")
        t_up, t_done = timed.at("Deploying contract"), timed.at("Contract deployed successfully")
        steps = f"deploy.js took {timed.elapsed:.2f} s"
        if t_up is not None and t_done is not None:
            steps += f"; upload -> result -> state: {t_done - t_up:.2f} s"
        print(steps)
        for line in report:
            print(line)
        print(f"{len(out.labelled)} manager lines, {len(out.env)} .env lines printed")
        if problems:
            for p in problems:
                print(f"FAIL {p}")
            return 1
        print("OK: deploy.js deployed Mercata and printed every manager address")
        return 0
    except RunError as exc:
        print(f"run_platform_deploy: {exc}", file=sys.stderr)
        return 2
    finally:
        node.stop()
        if opts.keep_data and not running:
            print(f"node data kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
