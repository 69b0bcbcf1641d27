"""Constants, argument parsers and the records the ledger modules share."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from ..errors import bad_request
from ..solidvm.world import ExecResult
from ..store import dumps

log = logging.getLogger("stratoscope.node")

ZERO_HASH = "0" * 64
HEX = set("0123456789abcdef")
TX_TYPES = ("TRANSFER", "CONTRACT", "FUNCTION")
GOVERNANCE = int("100", 16)
GOVERNANCE_HEX = format(GOVERNANCE, "040x")
DEFAULT_GAS_LIMIT = 100_000_000
DEFAULT_GAS_PRICE = 1
BASE_GAS = 21_000
NODE_MAX_STEPS = 2_000_000
MAX_TXS_PER_REQUEST = 5_000
SNAPSHOT_EVERY_BLOCKS = 500
SNAPSHOT_EVERY_SECONDS = 5.0
RESULT_CACHE = 20_000
TIME_LIMIT_PREFIX = "time limit exceeded:"  # the message of solidvm.runtime's time limit
# a block stops taking transactions after this much execution time, so that another user's
# transactions wait at most about this long (plus one transaction) behind a large request
SLICE_SECONDS = 0.25
# requests of more transactions are checked, signed and recorded on a worker thread: 100
# transfers are ~5 ms of checking and signing and a commit that waits for the producer's
PREPARE_ON_LOOP_MAX = 4


def source_size(txs: Any) -> int:
    """Characters of contract source in a request's CONTRACT payloads (a text or a collection);
    a request with any is checked off the event loop (compiling even a short source can take
    long: compile time is not proportional to the length)."""
    total = 0
    for tx in txs if isinstance(txs, list) else ():
        payload = tx.get("payload") if isinstance(tx, dict) else None
        src = payload.get("src") if isinstance(payload, dict) else None
        if isinstance(src, str):
            total += len(src)
        elif isinstance(src, dict | list):
            total += sum(len(str(v)) for v in (src.values() if isinstance(src, dict) else src))
    return total


# how long the producer, idle until a transaction came, waits for others to share its block
# (one commit for several resolve=false submissions); not when a request waits for one. A
# longer wait makes fewer, larger blocks (a block's commit and bookkeeping shared by more
# transactions) and leaves the cores to the requests in between: resolve=false submissions
# one by one answered in 0.62 ms (p50) with 10 ms, 0.80 ms with 2 ms (session 19); their
# results are readable that much later
GROUP_WAIT = 0.010

# sys.setswitchinterval while the producer runs (see producer): how long the loop, woken by a
# request, waits for the interpreter's lock while the producer executes. 1 ms until session 19;
# 0.5 ms: resolve=false submissions p50 0.48 -> 0.41 ms, sequential and batches unchanged (4-5
# interleaved rounds); 0.2 ms was worse (the loop's own requests then lose the lock midway)
SWITCH_INTERVAL = 0.0005


def hex64(n: int) -> str:
    return format(n, "064x")


def norm_address(value: Any, what: str) -> str:
    """40 lowercase hex digits from a string with or without 0x; 400 otherwise."""
    if not isinstance(value, str):
        raise bad_request(f"{what} must be a string of 40 hex digits, got {json.dumps(value)}")
    h = value[2:] if value[:2] in ("0x", "0X") else value
    h = h.lower()
    if len(h) != 40 or not set(h) <= HEX:
        raise bad_request(f"{what} must be 40 hex digits, got {json.dumps(value)[:60]}")
    return h


def norm_chain(value: Any, what: str = "chainid") -> str:
    """64-hex chain id; empty for the main chain."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise bad_request(f"{what} must be a string of 64 hex digits")
    h = value[2:] if value[:2] in ("0x", "0X") else value
    h = h.lower()
    if h == "main":
        return ""
    if not h or len(h) > 64 or not set(h) <= HEX:
        raise bad_request(f"{what} must be 64 hex digits, got {json.dumps(value)[:80]}")
    return h.rjust(64, "0")


def parse_amount(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise bad_request(f"{what} must be a non-negative integer")
    if isinstance(value, int):
        n = value
    elif isinstance(value, float) and value.is_integer():
        n = int(value)
    elif (
        isinstance(value, str) and value.isascii() and value.strip().isdigit() and len(value) < 100
    ):
        n = int(value.strip())
    else:
        raise bad_request(f"{what} must be a non-negative integer, got {json.dumps(value)[:60]}")
    if n < 0 or n.bit_length() > 256:
        raise bad_request(f"{what} must be a non-negative integer below 2**256")
    return n


@dataclass
class Sub:
    """A submitted transaction."""

    seq: int
    hash: str
    sender: str
    username: str
    type: str
    payload: dict[str, Any]
    chain: str
    gas_limit: int
    gas_price: int
    submitted_at: float
    resolve: bool = False
    internal: bool = False
    signature: dict[str, str] = field(default_factory=dict)
    future: asyncio.Future[dict[str, Any]] | None = None
    nonce: int = -1
    recorded: bool = False  # its row is in the database
    logged: bool = False  # in the intake log, its row not yet committed (intakelog.py)
    payload_json: str = ""  # ``dumps(payload)`` when known (encoded once, when signed)

    def request_json(self) -> str:
        """The stored request (its type is a column of the row; ``internal`` only when set):
        byte for byte ``dumps`` of that object, reusing the payload's encoding when known."""
        payload = self.payload_json or dumps(self.payload)
        internal = ',"internal":true' if self.internal else ""
        return (
            f'{{"payload":{payload},"gasLimit":{self.gas_limit},"gasPrice":{self.gas_price},'
            f'"signature":{dumps(self.signature)}{internal}}}'
        )


@dataclass
class ContractMeta:
    name: str
    code_hash: str
    creator: str
    created_block: int
    created_tx: str
    updated_block: int
    updated_tx: str
    history: str = ""
    org: str = ""
    app: str = ""
    table: str = ""

    @property
    def last_block(self) -> int:
        """The last block that changed or created the contract."""
        return max(self.updated_block, self.created_block)


@dataclass
class Head:
    number: int = -1
    hash: str = ZERO_HASH
    timestamp: int = 0


def _to_address(s: Sub) -> str | None:
    if s.type == "FUNCTION":
        return str(s.payload.get("contractAddress"))
    if s.type == "TRANSFER":
        return str(s.payload.get("toAddress"))
    return None


def _failure_status(message: str) -> dict[str, Any]:
    return {
        "stage": "Execution",
        "type": {"tag": "ExecutionFailure", "contents": message},
        "details": message,
    }


def _response_hex(res: ExecResult | None) -> str:
    if res is None or not res.values:
        return ""
    return dumps(res.values).encode().hex()


def pending_result(tx_hash: str) -> dict[str, Any]:
    return {"status": "Pending", "hash": tx_hash, "txResult": None, "data": None}


def discarded_result(tx_hash: str) -> dict[str, Any]:
    message = (
        "discarded: a transaction with resolve=true from the same user was submitted before "
        "this one completed (seed rule 3); it was not executed"
    )
    return {
        "status": "Discarded",
        "hash": tx_hash,
        "txResult": {
            "status": {
                "stage": "Queue",
                "type": {"tag": "Discarded", "contents": message},
                "details": message,
            },
            "message": message,
            "transactionHash": tx_hash,
        },
        "data": None,
    }
