"""The sandbox node's write path as one Python client sees it (issue 27's goals).

One keep-alive ``http.client`` connection (TCP_NODELAY, as http.client sets it), one request at
a time, each waiting for its answer; the same Token transfers as node_bench.py:

- ``seq``: sequential ``resolve=true`` transfers (tx/s, p50, p99);
- ``async``: sequential ``resolve=false`` submissions (ms each);
- ``batch``: 100 transfers per ``resolve=false`` request, then polling their results until all
  are final (tx/s from the first request to the last result);
- ``health``: ``GET /health`` on the same connection (the floor for any request).

``--root`` runs the node from another source tree (e.g. an ``git archive`` of an older commit)
with this interpreter, so that two versions can be measured in one run, interleaved
(``--root A --root B`` alternates them round by round). Prints one JSON line per round.

    .venv/bin/python benchmarks/write_path_bench.py --rounds 3 --seconds 5
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import LISTENING, ROOT, read_line
from node_http import RESULTS_PATH, TX_PATH, Http, deploy_token, recipient, transfer_tx

NODE = (sys.executable, "-m", "app.node")  # run with cwd= the source tree measured


class Conn:
    """One keep-alive connection sending prepared requests."""

    def __init__(self, url: str, token: str) -> None:
        host, port = url.split("//", 1)[1].rsplit(":", 1)
        self.conn = http.client.HTTPConnection(host, int(port.rstrip("/")), timeout=60)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def send(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        self.conn.request(method, path, body, self.headers)
        resp = self.conn.getresponse()
        return resp.status, resp.read()


def _quantiles(lat: list[float]) -> dict[str, float]:
    qs = statistics.quantiles(lat, n=100) if len(lat) > 1 else [lat[0] if lat else 0.0] * 99
    return {"p50_ms": qs[49] * 1000, "p99_ms": qs[98] * 1000}


def timed(c: Conn, seconds: float, request: Any, ok: bytes) -> dict[str, float]:
    """``request(n)`` -> (method, path, body), sent one at a time for ``seconds``."""
    lat: list[float] = []
    bad = 0
    t0 = time.perf_counter()
    n = 0
    while time.perf_counter() - t0 < seconds:
        n += 1
        method, path, body = request(n)
        t = time.perf_counter()
        status, data = c.send(method, path, body)
        lat.append(time.perf_counter() - t)
        if status != 200 or ok not in data:
            bad += 1
    elapsed = time.perf_counter() - t0
    return {"rate": len(lat) / elapsed, "n": len(lat), "bad": bad, **_quantiles(lat)}


def batched(c: Conn, contract: str, requests: int, size: int, prefix: str) -> dict[str, float]:
    t0 = time.perf_counter()
    pending: list[str] = []
    for i in range(requests):
        txs = [transfer_tx(contract, recipient(prefix, i * size + j)) for j in range(size)]
        status, data = c.send("POST", TX_PATH, json.dumps({"txs": txs}).encode())
        assert status == 200, data[:300]
        pending += [r["hash"] for r in json.loads(data)]
    submitted = time.perf_counter() - t0
    polls = 0
    failed = 0
    while pending:
        status, data = c.send("POST", RESULTS_PATH, json.dumps(pending).encode())
        polls += 1
        still = []
        for h, r in zip(pending, json.loads(data), strict=True):
            if r["status"] == "Pending":
                still.append(h)
            elif r["status"] != "Success":
                failed += 1
        pending = still
        if pending:
            time.sleep(0.005)
    total = time.perf_counter() - t0
    return {
        "rate": requests * size / total,
        "submit_ms_per_request": submitted / requests * 1000,
        "polls": polls,
        "failed": failed,
    }


def one_round(root: Path, seconds: float, batches: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="wpb-") as tmp:
        data_dir = Path(tmp) / "data"
        log = (Path(tmp) / "node.log").open("wb")
        proc = subprocess.Popen(
            [*NODE, "serve", "--port", "0", "--data-dir", str(data_dir)],
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
        )
        try:
            line = read_line(proc, time.monotonic() + 120)
            assert line and line.startswith(LISTENING), line
            url = line[len(LISTENING) :].strip()
            token = subprocess.run(
                [*NODE, "token", "--data-dir", str(data_dir), "--user", "alice"],
                cwd=root,
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
            contract = deploy_token(Http(url, token))
            c = Conn(url, token)
            c.send("GET", "/health")
            out: dict[str, Any] = {"root": str(root)}
            out["health"] = timed(c, seconds / 2, lambda n: ("GET", "/health", None), b"{")

            def tx(resolve: str, prefix: str) -> Any:
                def make(n: int) -> tuple[str, str, bytes]:
                    body = {"txs": [transfer_tx(contract, recipient(prefix, n))]}
                    return "POST", f"{TX_PATH}?resolve={resolve}", json.dumps(body).encode()

                return make

            out["seq"] = timed(c, seconds, tx("true", "b0b0b0b0"), b'"Success"')
            out["async"] = timed(c, seconds, tx("false", "d0d0d0d0"), b'"Pending"')
            time.sleep(1.0)  # let the queue drain
            out["batch"] = batched(c, contract, batches, 100, "c0c0c0c0")
            return out
        finally:
            proc.terminate()
            proc.wait(30)
            log.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", action="append", type=Path, help="source tree(s) of the node")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--batches", type=int, default=50)
    a = ap.parse_args()
    roots = a.root or [ROOT]
    for _ in range(a.rounds):
        for root in roots:
            r = one_round(root, a.seconds, a.batches)
            print(json.dumps(r, default=lambda x: round(x, 3)), flush=True)


if __name__ == "__main__":
    main()
