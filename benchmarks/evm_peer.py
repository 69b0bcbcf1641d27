"""The EVM peers of node_bench.py: anvil (Foundry's Rust dev chain) and Ganache 7.9.2.

Both are installed with npm into benchmarks/.peer/ when missing, started fresh for each
measurement (quiet logging, deterministic dev accounts, automine; anvil with ANVIL_BEST), get
the same Token as the sandbox (benchmarks/evm/Token.sol, compiled ahead of time into
Token.json) deployed by the first dev account, and receive the same workload: 100 warm-up
transfers, then sequential Token.transfer(new recipient, 1) calls (the node signs with its
unlocked account) from the Python keep-alive client or wrk: eth_sendTransactionSync on anvil
(answered with the receipt), eth_sendTransaction on Ganache (answered once mined), and, as the
generic client, eth_sendTransaction then eth_getTransactionReceipt until it is there.
Afterwards the sender's nonce and token balance must account for every answered transfer.
"""

from __future__ import annotations

import http.client
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchlib import BENCH, ROOT
from evm_token import call_data, constructor_args, load_artifact, to_int, transfer_data
from node_http import SEQ_PREFIX, SUPPLY, WARM_PREFIX, Http, free_port, recipient
from seq_client import EVM_GAS, SeqRun, run_python, run_wrk

PEER = BENCH / ".peer"
# anvil at its best for this workload (each flag measured alone in the README's Performance
# section). Every block, anvil re-hashes its whole state for the state root, so whatever grows
# the state per block costs every later block:
#   --prune-history    keeps no historical states: by default, once 500 are held in memory,
#                      every new block serialises the oldest whole state to JSON on disk
#   --hardfork cancun  the newest fork without a per-block system write: from Prague (the
#                      default is the latest fork) each block stores its parent's hash in the
#                      EIP-2935 contract, one more storage slot per block to re-hash
# Neither changes the work asked for: each transfer is still mined into its own block, its
# receipt returned, and the Token (compiled for paris) runs the same.
ANVIL_BEST = ("--prune-history", "--hardfork", "cancun")
BIN = PEER / "node_modules" / ".bin"
WARMUP = 100


@dataclass(frozen=True)
class Peer:
    """One EVM dev chain: its npm package and how to start it on a port."""

    name: str  # "anvil", "ganache"
    package: str  # npm name@version
    binary: str  # in node_modules/.bin
    send: str  # the method that answers once the transaction is mined (see seq_client)

    def command(self, port: int) -> list[str]:
        exe = str(BIN / self.binary)
        if self.name == "anvil":
            return [exe, "--port", str(port), "--quiet", *ANVIL_BEST]
        return [exe, "--port", str(port), "--wallet.deterministic", "--logging.quiet"]


ANVIL = Peer("anvil", "@foundry-rs/anvil-linux-amd64@1.7.1", "anvil", "eth_sendTransactionSync")
GANACHE = Peer("ganache", "ganache@7.9.2", "ganache", "eth_sendTransaction")
PEERS = (ANVIL, GANACHE)


def ensure_peer(peer: Peer) -> str | None:
    """Install ``peer`` into benchmarks/.peer when missing; why it is unusable, or None."""
    if (BIN / peer.binary).exists():
        return None
    npm = shutil.which("npm")
    if npm is None:
        return "npm not found on this machine"
    print(f"installing {peer.package} into {PEER.relative_to(ROOT)} ...", flush=True)
    res = subprocess.run(
        [npm, "install", "--prefix", str(PEER), peer.package],
        capture_output=True,
        text=True,
        check=False,
    )
    if res.returncode != 0 or not (BIN / peer.binary).exists():
        lines = (res.stderr or res.stdout).strip().splitlines()
        return "npm install failed: " + (lines[-1] if lines else f"exit {res.returncode}")
    return None


def peer_version(peer: Peer) -> str:
    """The installed version, from the package's package.json."""
    import json

    name = peer.package.rsplit("@", 1)[0]
    with_pkg = PEER / "node_modules" / name / "package.json"
    try:
        return f"{peer.name} {json.loads(with_pkg.read_text())['version']}"
    except (OSError, ValueError, KeyError):
        return peer.name


# ================================================================ JSON-RPC


def rpc(api: Http, method: str, params: list[Any]) -> Any:
    status, body = api.post("/", {"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    if status != 200 or not isinstance(body, dict) or "result" not in body:
        raise RuntimeError(f"{method}: HTTP {status}: {str(body)[:300]}")
    return body["result"]


def receipt(api: Http, tx_hash: str, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        r = rpc(api, "eth_getTransactionReceipt", [tx_hash])
        if r is not None:
            return dict(r)
        if time.monotonic() > deadline:
            raise RuntimeError(f"no receipt for {tx_hash} after {timeout:g} s")
        time.sleep(0.005)


def send_and_wait(api: Http, tx: dict[str, Any]) -> dict[str, Any]:
    r = receipt(api, rpc(api, "eth_sendTransaction", [tx]))
    if r.get("status") != "0x1":
        raise RuntimeError(f"transaction failed: {r}")
    return r


@contextmanager
def running_peer(peer: Peer, log: Path) -> Iterator[str]:
    """A started peer on a free port, answering eth_blockNumber; stopped on leaving.

    Its HOME is a directory of its own, removed with it: anvil keeps state snapshots under
    ``$HOME/.foundry/anvil/tmp`` and leaves them there when it is stopped (half a gigabyte a
    run: a day of benchmarks filled the disk)."""
    port = free_port()
    home = Path(tempfile.mkdtemp(prefix=f"{peer.name}-home-"))
    env = {**os.environ, "HOME": str(home)}
    with log.open("ab") as out:
        proc = subprocess.Popen(
            peer.command(port), stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{peer.name} exited: {log.read_text(errors='replace')[-1000:]}")
            try:
                api = Http(url, timeout=2)
                rpc(api, "eth_blockNumber", [])
                api.close()
                break
            except (OSError, RuntimeError, http.client.HTTPException):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{peer.name} did not answer in 60 s") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(home, ignore_errors=True)


# ================================================================ one measurement


def deploy_token(api: Http, sender: str, art: dict[str, Any]) -> str:
    data = "0x" + art["bytecode"] + constructor_args("Bench", "BNC", SUPPLY)
    r = send_and_wait(api, {"from": sender, "data": data, "gas": hex(3_000_000)})
    address: str = r["contractAddress"]
    return address


def token_balance(api: Http, token: str, selector: str, who: str) -> int:
    return to_int(rpc(api, "eth_call", [{"to": token, "data": call_data(selector, who)}, "latest"]))


def settled_nonce(api: Http, sender: str, timeout: float = 30.0) -> int:
    """The sender's nonce once nothing of it is pending and it stayed for 0.3 s (a request cut
    off by the end of a run may still be on its way in)."""
    deadline = time.monotonic() + timeout
    last = -1
    while True:
        latest = int(rpc(api, "eth_getTransactionCount", [sender, "latest"]), 16)
        pending = int(rpc(api, "eth_getTransactionCount", [sender, "pending"]), 16)
        if (latest == pending == last) or time.monotonic() > deadline:
            return latest
        last = latest if latest == pending else -1
        time.sleep(0.3 if latest == pending else 0.05)


def peer_round(peer: Peer, client: str, duration: int, log: Path) -> SeqRun:
    """One sequential measurement on a fresh ``peer`` with ``client``: "python" and "wrk" send
    with ``peer.send``; "python-receipt" sends with eth_sendTransaction and then asks for the
    receipt until it is there (what a generic client does)."""
    art = load_artifact()
    ids = art["method_identifiers"]
    transfer_sel, balance_sel = ids["transfer(address,uint256)"], ids["balanceOf(address)"]
    with running_peer(peer, log) as url:
        api = Http(url)
        sender = rpc(api, "eth_accounts", [])[0]
        token = deploy_token(api, sender, art)
        for i in range(WARMUP):
            data = transfer_data(transfer_sel, recipient(WARM_PREFIX, i), 1)
            send_and_wait(api, {"from": sender, "to": token, "data": data, "gas": hex(EVM_GAS)})
        before = settled_nonce(api, sender)
        if client == "wrk":
            args = [sender, token, transfer_sel, peer.send]
            run = run_wrk("evm_token_transfer.lua", url, args, duration)
        else:
            method = "eth_sendTransaction" if client == "python-receipt" else peer.send
            run = run_python("evm", url, [sender, token, transfer_sel, method], duration)
            run.client = client
        run.executed = settled_nonce(api, sender) - before
        left = token_balance(api, token, balance_sel, sender)
        # wrk numbers its requests from 2: its Lua request() runs once before the first one
        first = token_balance(api, token, balance_sel, recipient(SEQ_PREFIX, 1 + (client == "wrk")))
        run.verified = (
            run.bad == 0
            and run.socket_errors == 0
            and run.completed <= run.executed <= run.generated
            and left == SUPPLY - WARMUP - run.executed  # every executed transfer moved 1 token
            and first == 1
        )
        api.close()
    return run
