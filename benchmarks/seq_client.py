"""The sequential load generators of node_bench.py: a Python keep-alive client and wrk.

The Python client is what a real client pays per transaction: one ``http.client`` connection
with TCP_NODELAY, one request at a time, each waiting for its answer, in a separate process so
that it never shares an interpreter with the benchmark. Its modes:

  strato         POST /svc/v2.3/transaction?resolve=true, one Token.transfer per request; an
                 answer counts when it is HTTP 200 and says "Success"
  strato-submit  the same without resolve (resolve=false): the node answers with the hash
                 before executing; the hashes go back to the caller, which waits for them
  evm            Token.transfer(to, 1) from an unlocked dev account (the node signs) with the
                 given method: eth_sendTransactionSync (EIP-7966, anvil) answers with the
                 receipt; after eth_sendTransaction the client asks eth_getTransactionReceipt
                 until the receipt is there. A transfer is done when its receipt says status
                 0x1, as a client that waits for the transaction (ethers' tx.wait(), viem's
                 waitForTransactionReceipt) sees it.

Besides the rate over the whole run, the Python client reports ``first_rate``: the rate over
its first 1,000 answers (after the warm-up), which compares the systems at the same state size.
anvil recomputes its state root from every storage slot for every block, so each new recipient
makes its next blocks dearer: it answers ~1,000 tx/s at first and ~250 tx/s after 3,000
transfers, and its rate over a run depends on the run's length.

wrk (-t1 -c1) runs benchmarks/lua/strato_transfer.lua or evm_token_transfer.lua; on the EVM
peers it sends one request per transfer (Lua cannot fetch a receipt without a second request):
eth_sendTransactionSync on anvil (answered with the receipt), eth_sendTransaction on Ganache
(answered once the transaction is mined: Ganache's eager instamine).
"""

from __future__ import annotations

import http.client
import json
import multiprocessing as mp
import queue
import socket
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from benchlib import BENCH, wrk_bench
from benchstats import percentile_ms, rate_of_first
from node_http import SEQ_PREFIX, SUBMIT_PREFIX, TX_PATH, recipient, transfer_tx

LUA = BENCH / "lua"
EVM_GAS = 100_000  # given explicitly, so that no peer estimates gas per transaction
FIRST_N = 1_000  # first_rate: the rate over this many answers (all systems at equal state)


@dataclass
class SeqRun:
    """One sequential measurement."""

    client: str  # "python" or "wrk"
    rate: float  # answered requests (transfers) per second
    completed: int  # answered requests
    generated: int  # requests the client started (completed, plus at most one cut off)
    bad: int  # answers that were not a success
    socket_errors: int
    p50_ms: float
    p99_ms: float
    executed: int = -1  # transactions the server shows afterwards
    verified: bool = False
    receipt_polls: int = 0  # evm: eth_getTransactionReceipt calls beyond one per transfer
    first_rate: float | None = None  # Python client: the rate over the first FIRST_N answers
    hashes: list[str] = field(default_factory=list, repr=False)  # strato-submit only

    def row(self) -> dict[str, Any]:
        """The figures for the JSON file (without the hashes)."""
        d = asdict(self)
        d.pop("hashes")
        return d


class NoDelayConnection(http.client.HTTPConnection):
    """An HTTPConnection that sets TCP_NODELAY itself (whatever the Python version does)."""

    def connect(self) -> None:
        super().connect()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _post(conn: http.client.HTTPConnection, path: str, body: bytes, headers: dict[str, str]) -> Any:
    conn.request("POST", path, body, headers)
    resp = conn.getresponse()
    data = resp.read()
    if resp.status != 200:
        raise ValueError(f"HTTP {resp.status}")
    return json.loads(data)


def _strato_once(
    conn: http.client.HTTPConnection, headers: dict[str, str], path: str, contract: str, to: str
) -> tuple[bool, str]:
    body = json.dumps({"txs": [transfer_tx(contract, to)]}).encode()
    res = _post(conn, path, body, headers)
    return res[0]["status"] == "Success", res[0]["hash"]


def _evm_once(
    conn: http.client.HTTPConnection, method: str, tx: dict[str, Any], n: int
) -> tuple[bool, int]:
    """Send one transfer and wait for its receipt; (success, extra receipt polls).

    ``eth_sendTransactionSync`` (EIP-7966, anvil) answers with the receipt itself; after
    ``eth_sendTransaction`` the receipt is asked for until it is there.
    """
    headers = {"Content-Type": "application/json"}
    send = {"jsonrpc": "2.0", "id": n, "method": method, "params": [tx]}
    answer = _post(conn, "/", json.dumps(send).encode(), headers).get("result")
    if answer is None:
        return False, 0
    if method == "eth_sendTransactionSync":
        return answer.get("status") == "0x1", 0
    ask = {"jsonrpc": "2.0", "id": n, "method": "eth_getTransactionReceipt", "params": [answer]}
    body = json.dumps(ask).encode()
    polls = 0
    while True:
        receipt = _post(conn, "/", body, headers).get("result")
        if receipt is not None:
            return receipt.get("status") == "0x1", polls
        polls += 1
        time.sleep(0.0002)


def _worker(mode: str, url: str, args: list[str], duration: float, out: Any) -> None:
    from evm_token import transfer_data  # after spawn: a fresh interpreter

    parts = urlsplit(url)
    conn = NoDelayConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    latencies: list[float] = []
    answered_at: list[float] = []  # seconds since t0, for first_rate
    hashes: list[str] = []
    generated = bad = errors = polls = 0
    prefix = SUBMIT_PREFIX if mode == "strato-submit" else SEQ_PREFIX
    if mode.startswith("strato"):
        token, contract = args
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        path = f"{TX_PATH}?resolve=true" if mode == "strato" else TX_PATH
    else:
        sender, contract, selector, method = args
    t0 = time.perf_counter()
    end = t0 + duration
    while True:
        t = time.perf_counter()
        if t >= end:
            break
        generated += 1
        to = recipient(prefix, generated)
        try:
            if mode.startswith("strato"):
                ok, tx_hash = _strato_once(conn, headers, path, contract, to)
                if mode == "strato-submit":
                    hashes.append(tx_hash)
                    ok = True
            else:
                data = transfer_data(selector, to, 1)
                tx = {"from": sender, "to": contract, "data": data, "gas": hex(EVM_GAS)}
                ok, extra = _evm_once(conn, method, tx, generated)
                polls += extra
        except (OSError, http.client.HTTPException, ValueError, KeyError, IndexError):
            errors += 1
            conn.close()
            continue
        done = time.perf_counter()
        latencies.append(done - t)
        if len(answered_at) < FIRST_N:
            answered_at.append(done - t0)
        bad += not ok
    elapsed = time.perf_counter() - t0
    conn.close()
    run = SeqRun(
        client="python",
        rate=len(latencies) / elapsed,
        completed=len(latencies),
        generated=generated,
        bad=bad,
        socket_errors=errors,
        p50_ms=percentile_ms(latencies, 50),
        p99_ms=percentile_ms(latencies, 99),
        receipt_polls=polls,
        first_rate=rate_of_first(answered_at, FIRST_N),
        hashes=hashes,
    )
    out.put(asdict(run))


def run_python(mode: str, url: str, args: list[str], duration: float) -> SeqRun:
    """The Python client in a spawned process for ``duration`` seconds."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_worker, args=(mode, url, args, duration, q))
    p.start()
    deadline = time.monotonic() + duration + 120
    try:
        while True:
            try:
                res = q.get(timeout=1)
                break
            except queue.Empty:
                if not p.is_alive() or time.monotonic() > deadline:
                    raise RuntimeError(f"the Python client died (exit {p.exitcode})") from None
    finally:
        p.join(timeout=10)
    return SeqRun(**res)


def run_wrk(script: str, url: str, args: list[str], duration: int) -> SeqRun:
    """wrk -t1 -c1 with one of the Lua scripts in benchmarks/lua."""
    lua: Path = LUA / script
    cmd = ["wrk", "-t1", "-c1", f"-d{duration}s", "--timeout", "30s", "-s", str(lua)]
    f = wrk_bench([*cmd, url, "--", *args], timeout=duration + 60)
    return SeqRun(
        client="wrk",
        rate=f["requests"] / (f["duration_us"] / 1e6),
        completed=f["requests"],
        generated=f["generated"],
        bad=f["bad"],
        socket_errors=f["socket_errors"],
        p50_ms=f["p50_us"] / 1000,
        p99_ms=f["p99_us"] / 1000,
    )
