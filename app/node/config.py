"""Settings of one sandbox node process."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_data_dir


def default_data_dir() -> Path:
    return Path(user_data_dir("stratoscope", appauthor=False)) / "sandbox"


@dataclass
class NodeConfig:
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 8080
    gas: bool = False
    index_evm: bool = False
    # "both": the seed's and STRATO 16's; "strato16": only 16's; "seed": only the seed's
    cirrus_names: str = "both"
    resolve_timeout: float = 60.0
    tx_time_limit: float = 2.0  # wall-clock seconds one transaction may run (0: no limit)
    compile_time_limit: float = 10.0  # wall-clock seconds a request's compile may run (0: none)
    block_time: float = 0.0
    allow_remote: bool = False
    max_body: int = 4 * 1024 * 1024
    max_upload: int = 50 * 1024 * 1024
    file_storage: bool = True  # False: the file routes answer 405, as without a bucket
    exit_with_parent: bool = False  # stop when the process that started us goes away
    test_clock: bool = False  # the test runner's clock per contract, moved by fastForward
    parent_pid: int = 0  # that process, read at start (it may die before we listen)
    request_timeout: float = 10.0  # seconds a client may take to send headers, or pause a body
    max_connections: int = 0  # connections served at once (0: from the descriptor limit)
    traces: bool = True  # record each transaction's call trace (solidvm/trace.py, traces.py)
    trace_keep: int = 10_000  # traces kept: those of the most recent transactions


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
