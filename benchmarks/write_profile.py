"""Where a sequential resolve=true transfer's time goes inside the sandbox node (py-spy).

Starts a node on a fresh data dir, deploys the Token, warms up, then sends sequential
Token.transfer calls with ?resolve=true from the Python keep-alive client of node_bench.py
(seq_client.py) and meanwhile samples the node with two py-spy recorders at once (both
--nonblocking, so the node is never paused): one with --idle (every thread, running or
waiting) and one without (threads running only). Per thread group (the event loop = the
main thread that runs uvicorn; the block producer; the others: executor threads, watchdog,
...) it prints, in milliseconds per transfer:

  own time   samples where the thread runs, by the innermost Python function
  waiting    the idle recorder's samples less the running ones, by the innermost two frames
             (what waits, and on what)

py-spy is not one of the app's dependencies: it is in the ``bench`` extra of pyproject.toml and
installed into the running venv with pip when missing. Needs ptrace rights on the node (root,
or kernel.yama.ptrace_scope=0).

    python benchmarks/write_profile.py [--seconds S] [--rate HZ] [--top N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module benchlib

from benchlib import ROOT, machine, running_node, utc_now, write_results
from node_http import Http, deploy_token
from node_write import WARMUP, warm_up
from seq_client import run_python

GROUPS = ("event loop", "producer", "others")
_THREAD = re.compile(r"^thread \((?:0x)?[0-9A-Fa-f]+\): (?P<name>.*)$")
_LINE = re.compile(r":\d+\)$")


# ================================================================ py-spy's raw output (pure)


@dataclass(frozen=True)
class Stack:
    """One line of ``py-spy record --format raw --threads``: a thread, its frames, a count."""

    thread: str
    frames: tuple[str, ...]  # outermost first
    count: int


def parse_raw(lines: Iterable[str]) -> list[Stack]:
    """The stacks of py-spy's raw (collapsed) format, recorded with --threads."""
    out: list[Stack] = []
    for raw in lines:
        head, sep, count = raw.rstrip("\n").rpartition(" ")
        if not sep or not count.isdigit():
            continue
        frames = head.split(";")
        m = _THREAD.match(frames[0])
        thread = m.group("name") if m else "?"
        out.append(Stack(thread, tuple(frames[1:] if m else frames), int(count)))
    return out


def group_of(thread: str) -> str:
    """The thread group of a thread name: the event loop runs in the main thread."""
    if thread == "MainThread":
        return "event loop"
    if "producer" in thread:
        return "producer"
    return "others"


def function(frame: str) -> str:
    """A frame without its line number: ``f (file.py:12)`` -> ``f (file.py)``."""
    return _LINE.sub(")", frame)


def by_group(stacks: list[Stack]) -> Counter[str]:
    """Samples per thread group (a Counter: a group without samples reads 0)."""
    return Counter({g: sum(s.count for s in stacks if group_of(s.thread) == g) for g in GROUPS})


def own_time(stacks: list[Stack], group: str) -> Counter[str]:
    """Samples by the innermost function, within one thread group."""
    c: Counter[str] = Counter()
    for s in stacks:
        if group_of(s.thread) == group and s.frames:
            c[function(s.frames[-1])] += s.count
    return c


def waiting_sites(stacks: list[Stack], group: str) -> Counter[str]:
    """Samples by the innermost two frames (the wait and its caller), within one group."""
    c: Counter[str] = Counter()
    for s in stacks:
        if group_of(s.thread) == group and s.frames:
            c[" <- ".join(reversed(s.frames[-2:]))] += s.count
    return c


def minus(total: Counter[str], part: Counter[str]) -> Counter[str]:
    """``total - part`` by key, dropping what is not positive (the idle share of a site)."""
    return Counter({k: v - part.get(k, 0) for k, v in total.items() if v > part.get(k, 0)})


# ================================================================ recording


def py_spy() -> str:
    """The py-spy of this venv, installed with pip when missing."""
    exe = Path(sys.executable).parent / "py-spy"
    if exe.exists():
        return str(exe)
    found = shutil.which("py-spy")
    if found:
        return found
    print("py-spy is missing: installing it into this venv with pip ...", flush=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "py-spy"], check=True)
    return str(exe)


def record(pid: int, seconds: float, rate: int, out: Path, idle: bool) -> subprocess.Popen[bytes]:
    cmd = [py_spy(), "record", "--pid", str(pid), "--duration", str(int(seconds))]
    cmd += ["--rate", str(rate), "--format", "raw", "--threads", "--nonblocking", "-o", str(out)]
    if idle:
        cmd.append("--idle")
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def profile(seconds: int, rate: int, tmp: Path) -> tuple[list[Stack], list[Stack], float]:
    """(all samples, running samples, transfers per second while sampling)."""
    with running_node(tmp / "data") as node:
        token = node.token()
        api = Http(node.url, token)
        contract = deploy_token(api)
        warm_up(api, contract)
        api.close()
        rates: list[float] = []  # the client (its own process) runs while py-spy samples
        client = threading.Thread(
            target=lambda: rates.append(
                run_python("strato", node.url, [token, contract], seconds + 2.0).rate
            )
        )
        client.start()
        time.sleep(1.0)  # the client is running at full speed
        recorders = [
            record(node.proc.pid, seconds, rate, tmp / "all.txt", idle=True),
            record(node.proc.pid, seconds, rate, tmp / "running.txt", idle=False),
        ]
        for r in recorders:
            _, err = r.communicate(timeout=seconds + 60)
            if r.returncode != 0:
                raise SystemExit(f"py-spy failed: {err.decode(errors='replace')[-500:]}")
        client.join(timeout=seconds + 60)
        if not rates:
            raise SystemExit("the Python client did not finish")
        tx_per_s = rates[0]
    with (tmp / "all.txt").open() as f_all, (tmp / "running.txt").open() as f_run:
        return parse_raw(f_all), parse_raw(f_run), tx_per_s


# ================================================================ report


def report(
    all_: list[Stack], running: list[Stack], tx_per_s: float, seconds: int, rate: int, top: int
) -> dict[str, object]:
    """Print the breakdown; return it for the JSON file."""
    ms_per_sample = 1000.0 / rate / (tx_per_s * seconds)  # one sample in ms per transfer
    total, active = by_group(all_), by_group(running)
    print(
        f"\nWhere a sequential resolve=true transfer's time goes: {tx_per_s:,.0f} tx/s "
        f"({1000 / tx_per_s:.2f} ms per transfer), py-spy at {rate} Hz for {seconds} s"
    )
    out: dict[str, object] = {"tx_per_s": tx_per_s, "ms_per_transfer": 1000 / tx_per_s}
    for g in GROUPS:
        threads = sorted({s.thread for s in all_ if group_of(s.thread) == g})
        own = own_time(running, g)
        wait = minus(waiting_sites(all_, g), waiting_sites(running, g))
        run_ms = active[g] * ms_per_sample
        wait_ms = max(0, total[g] - active[g]) * ms_per_sample
        print(
            f"\n{g} ({', '.join(threads) or '-'}): running {run_ms:.3f} ms, waiting "
            f"{wait_ms:.3f} ms per transfer"
        )
        print("  own time (ms per transfer):")
        for name, n in own.most_common(top):
            print(f"    {n * ms_per_sample:7.3f}  {name}")
        print("  waiting (ms per transfer):")
        for name, n in wait.most_common(top):
            print(f"    {n * ms_per_sample:7.3f}  {name}")
        out[g] = {
            "threads": threads,
            "running_ms": run_ms,
            "waiting_ms": wait_ms,
            "own": {k: v * ms_per_sample for k, v in own.most_common(top)},
            "waiting": {k: v * ms_per_sample for k, v in wait.most_common(top)},
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=int, default=10, help="sampling time")
    ap.add_argument("--rate", type=int, default=250, help="samples per second")
    ap.add_argument("--top", type=int, default=8, help="functions shown per group and kind")
    opts = ap.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="write-profile-") as tmp:
        all_, running, tx_per_s = profile(opts.seconds, opts.rate, Path(tmp))
    out = report(all_, running, tx_per_s, opts.seconds, opts.rate, opts.top)
    data = {
        "date": utc_now(),
        "machine": machine(),
        "load_1min": {"before": load_before, "after": os.getloadavg()[0]},
        "seconds": opts.seconds,
        "rate_hz": opts.rate,
        "warmup_transfers": WARMUP,
        "profile": out,
    }
    path = write_results("write_profile", json.loads(json.dumps(data)))
    print(f"\nwritten to {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
