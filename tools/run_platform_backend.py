"""Run the platform's own backend (``mercata/backend``) against a sandbox with Mercata deployed by
the platform's own script, call its read endpoints and print what each answered.

    python tools/run_platform_backend.py BACKEND_DIR CONTRACTS_DIR [--user alice] [--markdown]
                                         [--keep-data] [--serve-arg=--gas ...]

BACKEND_DIR is a copy of the platform's ``mercata/backend`` with ``node_modules`` installed and
built (``npm ci``, ``npx tsc``: ``dist/app.js``), unmodified; CONTRACTS_DIR a
``mercata/contracts`` checkout ready for ``tools/run_platform_deploy.py``. The script

1. starts a sandbox node on a fresh data dir and runs ``deploy/deploy.js`` on it (as
   ``run_platform_deploy.py`` does), taking the addresses it prints;
2. starts a small recording proxy in front of the node and ``node dist/app.js`` with the env of
   the backend's ``src/config/config.ts`` (``NODE_URL`` = the proxy, the OAuth discovery URL and
   client of the node, ``NODE_ENV=development``, the deployed addresses);
3. calls each read endpoint of ``ENDPOINTS`` with a demo user's bearer token and prints a table:
   the HTTP status, how many deployed addresses the answer names, the first request the backend
   sent to the node that failed (status and the node's message), and the answer's start.

Nothing is fetched; not part of ``make test`` (it needs Node.js and the platform's checkouts).
Exit status: 0 the table was printed, 2 the run could not start.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_platform_deploy import (
    RunError,
    Sandbox,
    check_printed,
    env_file,
    env_text,
    parse_deploy_output,
    preflight,
    run_deploy,
)

LISTENING = "Server running at "
START_TIMEOUT = 90.0
HEX40 = re.compile(r"[0-9a-f]{40}")
# read (GET) endpoints of src/api/routes/*.ts; ``{KEY}`` is an address deploy.js printed. Left
# out: the ones that call outside services (credit card, on-ramp, referrals, contact)
ENDPOINTS = (
    "user/me",
    "user/admin",
    "user/admin/issues",
    "user/admin/issues/executed",
    "user/admin/contract/search?search=Lending",
    "user/admin/contract/details?address={LENDING_POOL}",
    "config",
    "tokens",
    "tokens/balance",
    "tokens/transferable",
    "tokens/stats",
    "tokens/v2",
    "tokens/v2/earning-assets",
    "tokens/v2/net-balance",
    "tokens/v2/earning-assets/public",
    "tokens/v2/borrowing-history",
    "tokens/v2/net-balance-history",
    "vouchers/balance",
    "oracle/price",
    "lending/pools",
    "lending/collateral",
    "lending/collateral/public",
    "lending/liquidity",
    "lending/liquidity/public",
    "lending/loans",
    "lending/safety/info",
    "lending/safety/info/public",
    "lending/interest",
    "lending/liquidate",
    "lending/liquidate/near-unhealthy",
    "events",
    "events/contracts",
    "events/activities?activity_types=Pool:Swap,LendingPool:Deposit",
    "bridge/networkConfigs",
    "bridge/withdrawalSummary",
    "bridge/depositActions",
    "bridge/transactions/withdrawal",
    "cdp/vaults",
    "cdp/vault-candidates",
    "cdp/liquidatable",
    "cdp/assets",
    "cdp/stats",
    "cdp/admin/global-paused",
    "cdp/admin/all-configs",
    "cdp/bad-debt",
    "cdp/interest",
    "rewards/overview",
    "rewards/leaderboard",
    "rewards/activities",
    "swap-pools",
    "swap-pools/tokens",
    "swap-pools/positions",
    "metal-forge/configs",
    "v1/metrics/tvl",
    "v1/metrics/stablecoins",
    "protocol-fees/revenue",
    "protocol-fees/revenue/lending",
    "vault/info",
    "vault/user",
    "vault/balances",
    "vault/transactions",
    "earn/token-apys",
    "earn/save-usdst/info",
    "earn/save-usdst/user",
)


# ------------------------------------------------------------------ the recording proxy


@dataclass
class Upstream:
    """One request the backend sent to the node and what the node answered."""

    method: str
    path: str
    status: int
    body: str


class Recorder:
    """A plain HTTP proxy to the node that keeps every request and answer, so that a failing
    endpoint can be traced to the node's answer that broke it (the node logs no requests)."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.seen: list[Upstream] = []
        self.lock = threading.Lock()
        self.client = httpx.Client(base_url=target, timeout=120)
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("host", "content-length", "connection")
                }
                try:
                    resp = recorder.client.request(
                        self.command, self.path, content=body, headers=headers
                    )
                    status, data, ctype = (
                        resp.status_code,
                        resp.content,
                        resp.headers.get("content-type", "application/json"),
                    )
                except httpx.HTTPError as exc:
                    status, data, ctype = 502, str(exc).encode(), "text/plain"
                with recorder.lock:
                    recorder.seen.append(
                        Upstream(
                            self.command, self.path, status, data[:400].decode(errors="replace")
                        )
                    )
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _forward

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def mark(self) -> int:
        with self.lock:
            return len(self.seen)

    def since(self, mark: int) -> list[Upstream]:
        with self.lock:
            return self.seen[mark:]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.client.close()


# ------------------------------------------------------------------ the backend


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def backend_env(
    node_url: str, proxy_url: str, client_id: str, secret: str, port: int, deployed: dict[str, str]
) -> dict[str, str]:
    """The env of ``src/config/config.ts``; the addresses as deploy.js prints them (its
    ``ESCROW`` is the backend's ``ESCROW_ADDRESS``)."""
    env = {k: v for k, v in os.environ.items() if not re.fullmatch(r"[A-Z][A-Z0-9_]*", k)}
    env.update({k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ})
    env.update(deployed)
    if "ESCROW" in deployed:
        env["ESCROW_ADDRESS"] = deployed["ESCROW"]
    env.update(
        NODE_URL=proxy_url,
        OAUTH_DISCOVERY_URL=f"{node_url}/auth/.well-known/openid-configuration",
        OAUTH_CLIENT_ID=client_id,
        OAUTH_CLIENT_SECRET=secret,
        NODE_ENV="development",
        PORT=str(port),
    )
    return env


class Backend:
    """``node dist/app.js`` in the backend checkout; ready when it prints that it listens."""

    def __init__(self, directory: Path, env: dict[str, str]) -> None:
        self.directory = directory
        self.env = env
        self.log: list[str] = []
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["node", "dist/app.js"],
            cwd=self.directory,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=self.env,
        )
        ready = threading.Event()
        stdout = self.proc.stdout
        assert stdout is not None

        def read() -> None:
            for raw in stdout:
                self.log.append(raw.rstrip("\n"))
                if raw.startswith(LISTENING):
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(START_TIMEOUT) or self.proc.poll() is not None:
            tail = "\n".join(line for line in self.log[-20:] if line.strip())
            self.stop()
            raise RunError(f"the backend did not start:\n{tail}")

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None


# ------------------------------------------------------------------ the calls


@dataclass
class Row:
    endpoint: str
    status: int
    named: int  # how many deployed addresses the answer names
    failed: str  # the first failing request to the node and its answer
    answer: str  # its start, whitespace squeezed
    body: str = ""  # the whole answer


def node_message(body: str) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return body[:120]
    if isinstance(data, dict):
        code = data.get("code")
        msg = data.get("message") or data.get("error") or data
        return f"{code}: {msg}" if code else str(msg)
    return str(data)[:120]


def backend_error(lines: list[str]) -> str:
    """The first error the backend logged, for a failure no node answer explains."""
    for line in lines:
        text = line.strip()
        if re.match(r"^(\w*Error|Error\b)", text) and "(500)" not in text:
            return text[:200]
    return next((line.strip()[:200] for line in lines if "rror" in line), "")


def call(
    base: str,
    endpoint: str,
    token: str,
    recorder: Recorder,
    deployed: set[str],
    log: list[str] | None = None,
) -> Row:
    """One endpoint: its status, the deployed addresses it names, and what broke it (the node's
    failing answer, else the backend's first logged error when it answered 5xx)."""
    mark = recorder.mark()
    logged = len(log) if log is not None else 0
    try:
        resp = httpx.get(
            f"{base}/api/{endpoint}", headers={"Authorization": f"Bearer {token}"}, timeout=120
        )
        status, text = resp.status_code, resp.text
    except httpx.HTTPError as exc:
        status, text = 0, str(exc)
    # the backend polls the node in the background too: prefer the failing request whose
    # message the endpoint's answer repeats, else the first that failed during the call
    failures = [u for u in recorder.since(mark) if u.status >= 400]
    said = [(u, node_message(u.body).split(": ", 1)[-1]) for u in failures]
    failed = next((u for u, m in said if m in text or json.dumps(m)[1:-1] in text), None)
    failed = failed or (failures[0] if failures else None)
    how = ""
    if failed is not None:
        path = failed.path if len(failed.path) < 140 else failed.path[:137] + "..."
        how = f"{failed.method} {path} -> {failed.status} {node_message(failed.body)}"
    if not how and status >= 500 and log is not None:
        time.sleep(0.2)  # its log lines arrive through a pipe
        how = f"backend: {backend_error(log[logged:])}"
    named = len(set(HEX40.findall(text)) & deployed) if status == 200 else 0
    return Row(endpoint, status, named, how, " ".join(text.split())[:100], text)


def print_table(rows: list[Row], markdown: bool) -> None:
    if markdown:
        print(
            "| endpoint (`GET /api/...`) | status | deployed addresses named"
            " | first failing request to the node |"
        )
        print("|---|---|---|---|")
        for r in rows:
            failed = r.failed.replace("|", "\\|") or "-"
            print(f"| `{r.endpoint}` | {r.status} | {r.named} | {failed} |")
        return
    for r in rows:
        print(f"{r.status:3d} {r.named:2d} /api/{r.endpoint}")
        print(f"        answer: {r.answer}")
        if r.failed:
            print(f"        node:   {r.failed}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("backend", type=Path, help="the platform's mercata/backend, built (dist/)")
    ap.add_argument("contracts", type=Path, help="the platform's mercata/contracts checkout")
    ap.add_argument("--user", default="alice", help="demo user who deploys and calls")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--keep-data", action="store_true", help="keep the node's data dir")
    ap.add_argument("--backend-log", type=Path, help="write the backend's output here")
    ap.add_argument("--answers", type=Path, help="write each endpoint's whole answer (JSON lines)")
    ap.add_argument(
        "--dump",
        type=Path,
        help="write every request the backend sent to the node and the node's answer (JSON lines)",
    )
    ap.add_argument(
        "--serve-arg", action="append", default=[], help="one more option for the node's serve"
    )
    opts = ap.parse_args(argv)
    backend_dir, contracts = opts.backend.resolve(), opts.contracts.resolve()
    tmp = Path(tempfile.mkdtemp(prefix="stratoscope-backend-"))
    node = Sandbox(tmp / "node", opts.serve_arg)
    recorder: Recorder | None = None
    backend: Backend | None = None
    try:
        preflight(contracts)
        if not (backend_dir / "dist" / "app.js").is_file():
            raise RunError(f"{backend_dir}/dist/app.js missing: run npm ci and npx tsc there")
        url = node.start()
        client_id, _, secret = node.cli("oauth-client").partition(" ")
        print(f"sandbox node {url}")
        with env_file(contracts, env_text(url, client_id, secret, opts.user, opts.user)):
            timed = run_deploy(contracts, 600.0, None)
        out = parse_deploy_output(timed.text)
        problems = check_printed(out)
        if problems:
            raise RunError("the deployment failed: " + "; ".join(problems))
        print(f"Mercata deployed at {out.address}; {len(out.env)} addresses printed")
        recorder = Recorder(url)
        port = free_port()
        backend = Backend(
            backend_dir, backend_env(url, recorder.url, client_id, secret, port, out.env)
        )
        t0 = time.monotonic()
        backend.start()
        print(f"backend listening on port {port} after {time.monotonic() - t0:.1f} s")
        token = node.cli("token", "--user", opts.user)
        deployed = set(out.env.values()) | {out.address}
        base = f"http://127.0.0.1:{port}"
        rows = [
            call(base, e.format(**out.env), token, recorder, deployed, backend.log)
            for e in ENDPOINTS
        ]
        if opts.answers:
            with opts.answers.open("w", encoding="utf-8") as f:
                for r in rows:
                    f.write(
                        json.dumps({"endpoint": r.endpoint, "status": r.status, "body": r.body})
                    )
                    f.write("\n")
        if opts.backend_log:
            opts.backend_log.write_text("\n".join(backend.log) + "\n", encoding="utf-8")
        print_table(rows, opts.markdown)
        if opts.dump:
            with opts.dump.open("w", encoding="utf-8") as f:
                for u in recorder.since(0):
                    f.write(json.dumps(u.__dict__) + "\n")
        ok = sum(1 for r in rows if r.status == 200)
        print(f"\n{ok} of {len(rows)} endpoints answered 200")
        return 0
    except RunError as exc:
        print(f"run_platform_backend: {exc}", file=sys.stderr)
        return 2
    finally:
        if backend is not None:
            backend.stop()
        if recorder is not None:
            recorder.stop()
        node.stop()
        if opts.keep_data:
            print(f"node data kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
