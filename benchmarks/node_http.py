"""The sandbox node benchmarks' small HTTP client, their settings and the Token they send
transfers of (shared by node_bench.py and node_runaway.py)."""

from __future__ import annotations

import http.client
import json
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from benchlib import ROOT

TOKEN_SOL = ROOT / "resources" / "contracts" / "Token.sol"
SUPPLY = 10**30
TX_PATH = "/svc/v2.3/transaction"
RESULTS_PATH = "/bloc/v2.2/transactions/results"


# recipients: warm-up, (a) by wrk/the Python client, (b) by the batch clients, resolve=false
# submissions by the Python client
WARM_PREFIX = "a0a0a0a0"
SEQ_PREFIX = "b0b0b0b0"
BATCH_PREFIX = "c0c0c0c0"
SUBMIT_PREFIX = "d0d0d0d0"


def recipient(prefix: str, n: int) -> str:
    return f"{prefix}{n:032x}"


@dataclass
class Settings:
    rounds: int
    duration: int  # seconds per sequential measurement
    batches: int
    batch_size: int
    clients: int
    cold_tries: int


# ================================================================ small HTTP client


class Http:
    """A keep-alive JSON client on http.client (only for set-up, checks and the batch clients)."""

    def __init__(self, url: str, token: str | None = None, timeout: float = 120.0) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.timeout = timeout
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body, separators=(",", ":"))
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, data, self.headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                break
            except (ConnectionError, http.client.HTTPException):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                if attempt:
                    raise
        try:
            return resp.status, json.loads(raw)
        except ValueError:
            return resp.status, raw.decode(errors="replace")

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        return self.request("POST", path, body)

    def get(self, path: str) -> tuple[int, Any]:
        return self.request("GET", path)

    def close(self) -> None:
        self.conn.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# ================================================================ the token on the node


def deploy_token(api: Http) -> str:
    status, body = api.post(
        f"{TX_PATH}?resolve=true",
        {
            "txs": [
                {
                    "type": "CONTRACT",
                    "payload": {
                        "contract": "Token",
                        "src": TOKEN_SOL.read_text(),
                        "args": {"_name": "Bench", "_symbol": "BNC", "_supply": SUPPLY},
                        "metadata": {"VM": "SolidVM"},
                    },
                }
            ]
        },
    )
    if status != 200 or body[0]["status"] != "Success":
        raise RuntimeError(f"token upload failed: HTTP {status}: {str(body)[:500]}")
    address: str = body[0]["data"]["contents"]["address"]
    return address


def transfer_tx(contract: str, to: str) -> dict[str, Any]:
    return {
        "type": "FUNCTION",
        "payload": {
            "contractAddress": contract,
            "method": "transfer",
            "args": {"to": to, "amount": 1},
        },
    }


def token_state(api: Http, contract: str) -> dict[str, Any]:
    status, body = api.get(f"/bloc/v2.2/contracts/Token/{contract}/state")
    if status != 200 or not isinstance(body, dict):
        raise RuntimeError(f"state query failed: HTTP {status}: {str(body)[:300]}")
    return body


def transfers_to(state: dict[str, Any], prefix: str) -> int:
    """How many prefix-recipients hold exactly 1 token (each got one transfer)."""
    balances = state.get("balances") or {}
    bad = [k for k, v in balances.items() if k.startswith(prefix) and str(v) != "1"]
    if bad:
        raise RuntimeError(f"recipient {bad[0]} holds {balances[bad[0]]}, expected 1")
    return sum(1 for k in balances if k.startswith(prefix))
