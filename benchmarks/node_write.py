"""The sandbox's write measurements of node_bench.py, each on a fresh node and data dir.

seq      sequential Token.transfer calls with ?resolve=true from one user over one keep-alive
         connection (the Python client or wrk -t1 -c1, see seq_client.py); afterwards the
         token's state must show exactly as many transfers as were answered
submit   the same with resolve=false on the Python client: the latency of a submission (the
         node answers with the hash before executing); then the client polls the results
         until none is Pending: all must be Success and in the token's state
batched  batches of 100 transfers with resolve=false from several client processes, then
         polling POST /bloc/v2.2/transactions/results until none is Pending: total tx/s
"""

from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchlib import running_node
from node_http import (
    BATCH_PREFIX,
    RESULTS_PATH,
    SEQ_PREFIX,
    SUBMIT_PREFIX,
    SUPPLY,
    TX_PATH,
    WARM_PREFIX,
    Http,
    Settings,
    deploy_token,
    recipient,
    token_state,
    transfer_tx,
    transfers_to,
)
from seq_client import SeqRun, run_python, run_wrk

WARMUP = 100  # untimed transfers before each measurement (the same on the peers)


def warm_up(api: Http, contract: str) -> None:
    for i in range(WARMUP):
        status, body = api.post(
            f"{TX_PATH}?resolve=true",
            {"txs": [transfer_tx(contract, recipient(WARM_PREFIX, i))]},
        )
        if status != 200:
            raise RuntimeError(f"warm-up transfer failed: HTTP {status}: {str(body)[:300]}")


def wait_results(
    api: Http, hashes: list[str], timeout: float = 300.0
) -> tuple[dict[str, int], int]:
    """Poll the results of ``hashes`` until none is Pending; (count by status, polls)."""
    pending = list(hashes)
    statuses: dict[str, int] = {}
    polls = 0
    deadline = time.monotonic() + timeout
    while pending:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{len(pending)} transactions still Pending after {timeout:g} s")
        still: list[str] = []
        for i in range(0, len(pending), 1000):
            chunk = pending[i : i + 1000]
            status, res = api.post(RESULTS_PATH, chunk)
            polls += 1
            if status != 200:
                raise RuntimeError(f"results: HTTP {status}: {str(res)[:300]}")
            for h, r in zip(chunk, res, strict=True):
                if r["status"] == "Pending":
                    still.append(h)
                else:
                    statuses[r["status"]] = statuses.get(r["status"], 0) + 1
        pending = still
        if pending:
            time.sleep(0.01)
    return statuses, polls


def seq_round(client: str, duration: int, data_dir: Path, flags: tuple[str, ...] = ()) -> SeqRun:
    """Sequential resolve=true transfers with ``client`` ("python" or "wrk"); ``flags`` go to
    ``serve``."""
    with running_node(data_dir, flags=flags) as node:
        token = node.token()
        api = Http(node.url, token)
        contract = deploy_token(api)
        warm_up(api, contract)
        if client == "wrk":
            run = run_wrk("strato_transfer.lua", node.url, [token, contract], duration)
        else:
            run = run_python("strato", node.url, [token, contract], duration)
        time.sleep(0.3)  # a request cut off by the end of the run may still complete
        state = token_state(api, contract)
        run.executed = transfers_to(state, SEQ_PREFIX)
        warm = transfers_to(state, WARM_PREFIX)
        sent = sum(int(v) for k, v in state["balances"].items() if k.startswith(SEQ_PREFIX))
        total = sum(int(v) for v in state["balances"].values())
        run.verified = (
            run.bad == 0
            and run.socket_errors == 0
            and warm == WARMUP
            and sent == run.executed
            and total == SUPPLY
            and run.completed <= run.executed <= run.generated
        )
        api.close()
    return run


@dataclass
class SubmitRun:
    """resolve=false submissions on the Python client, then waiting for all of them."""

    rate: float  # submissions answered per second
    completed: int
    p50_ms: float  # per submission
    p99_ms: float
    drain_seconds: float  # from the last answer until none was Pending
    executed_rate: float  # completed / (submitting + draining)
    success: int
    executed: int  # transfers in the token's state
    verified: bool


def submit_round(duration: int, data_dir: Path) -> SubmitRun:
    with running_node(data_dir) as node:
        token = node.token()
        api = Http(node.url, token)
        contract = deploy_token(api)
        warm_up(api, contract)
        run = run_python("strato-submit", node.url, [token, contract], duration)
        t0 = time.perf_counter()
        statuses, _ = wait_results(api, run.hashes)
        drain = time.perf_counter() - t0
        executed = transfers_to(token_state(api, contract), SUBMIT_PREFIX)
        api.close()
    success = statuses.get("Success", 0)
    return SubmitRun(
        rate=run.rate,
        completed=run.completed,
        p50_ms=run.p50_ms,
        p99_ms=run.p99_ms,
        drain_seconds=drain,
        executed_rate=run.completed / (run.completed / run.rate + drain) if run.rate else 0.0,
        success=success,
        executed=executed,
        verified=run.socket_errors == 0
        and success == run.completed == len(run.hashes)
        and executed == run.completed,
    )


# ================================================================ batches


def _batch_worker(
    url: str,
    token: str,
    contract: str,
    first: int,
    batches: int,
    size: int,
    barrier: Any,
    out: Any,
) -> None:
    api = Http(url, token)
    bodies = [
        {
            "txs": [
                transfer_tx(contract, recipient(BATCH_PREFIX, first + b * size + i))
                for i in range(size)
            ]
        }
        for b in range(batches)
    ]
    api.get("/_ping")  # open the connection before the clock starts
    barrier.wait()
    t0 = time.monotonic()
    hashes: list[str] = []
    for body in bodies:
        status, res = api.post(TX_PATH, body)
        if status != 200:
            out.put({"error": f"HTTP {status}: {str(res)[:300]}"})
            return
        hashes += [r["hash"] for r in res]
    t_submitted = time.monotonic()
    try:
        statuses, polls = wait_results(api, hashes)
    except RuntimeError as exc:
        out.put({"error": str(exc)})
        return
    out.put(
        {
            "start": t0,
            "submitted": t_submitted,
            "end": time.monotonic(),
            "statuses": statuses,
            "polls": polls,
        }
    )
    api.close()


@dataclass
class BatchRun:
    rate: float
    txs: int
    seconds: float
    submit_seconds: float
    success: int
    executed: int
    verified: bool
    polls: int


def batch_round(s: Settings, data_dir: Path, flags: tuple[str, ...] = ()) -> BatchRun:
    with running_node(data_dir, flags=flags) as node:
        token = node.token()
        api = Http(node.url, token)
        contract = deploy_token(api)
        ctx = mp.get_context("spawn")
        barrier = ctx.Barrier(s.clients)
        q = ctx.Queue()
        share = [
            s.batches // s.clients + (1 if i < s.batches % s.clients else 0)
            for i in range(s.clients)
        ]
        procs = []
        first = 0
        for n in share:
            p = ctx.Process(
                target=_batch_worker,
                args=(node.url, token, contract, first, n, s.batch_size, barrier, q),
            )
            first += n * s.batch_size
            p.start()
            procs.append(p)
        outs = [q.get(timeout=300) for _ in procs]
        for p in procs:
            p.join(timeout=10)
        errors = [o["error"] for o in outs if "error" in o]
        if errors:
            raise RuntimeError(f"batch client failed: {errors[0]}")
        start = min(o["start"] for o in outs)
        end = max(o["end"] for o in outs)
        submitted = max(o["submitted"] for o in outs)
        txs = s.batches * s.batch_size
        success = sum(o["statuses"].get("Success", 0) for o in outs)
        executed = transfers_to(token_state(api, contract), BATCH_PREFIX)
        api.close()
    return BatchRun(
        rate=txs / (end - start),
        txs=txs,
        seconds=end - start,
        submit_seconds=submitted - start,
        success=success,
        executed=executed,
        verified=success == txs and executed == txs,
        polls=sum(o["polls"] for o in outs),
    )


def row(run: SeqRun | SubmitRun | BatchRun) -> dict[str, Any]:
    """A measurement as a JSON row."""
    return run.row() if isinstance(run, SeqRun) else asdict(run)
