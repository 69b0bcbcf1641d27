"""Helpers shared by the HTTP benchmarks (node_bench.py, cirrus_bench.py).

The sandbox node as a child process, wrk (installed from Debian when missing) and the report.
The scripts import it as a sibling module.
"""

from __future__ import annotations

import json
import os
import platform
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
RESULTS = BENCH / "results"

NODE_CMD = (sys.executable, "-m", "app.node")
LISTENING = "Sandbox node listening on "


# ================================================================ the node process


def read_line(proc: subprocess.Popen[bytes], deadline: float) -> str | None:
    """The next stdout line of ``proc``, or None when it exits or the deadline passes."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    buf = b""
    while b"\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            return None
        buf += chunk
    return buf.split(b"\n", 1)[0].decode(errors="replace")


def _drain(fd: int) -> None:
    """Keep reading the node's stdout so that it can never block on a full pipe."""
    while True:
        try:
            if not os.read(fd, 65536):
                return
        except OSError:
            return


@dataclass
class Node:
    """``python -m app.node serve`` on a data dir, started and stopped by a benchmark."""

    proc: subprocess.Popen[bytes]
    url: str
    startup_s: float  # from spawning to its listening line
    data_dir: Path
    log: Path  # its stderr
    drainer: threading.Thread | None = field(default=None, repr=False)

    @classmethod
    def start(cls, data_dir: Path, timeout: float = 60.0, flags: tuple[str, ...] = ()) -> Node:
        """Spawn the node on ``data_dir`` (any free port, ``flags`` added to ``serve``) and
        wait for its listening line."""
        log = data_dir.parent / f"{data_dir.name}.log"
        with log.open("ab") as err:
            t0 = time.perf_counter()
            proc = subprocess.Popen(
                [*NODE_CMD, "serve", "--port", "0", "--data-dir", str(data_dir), *flags],
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
            )
            line = read_line(proc, time.monotonic() + timeout)
            startup = time.perf_counter() - t0
        if line is None or not line.startswith(LISTENING):
            proc.kill()
            proc.wait()
            tail = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"the node did not start (stdout: {line!r}); its log:\n{tail}")
        assert proc.stdout is not None
        drainer = threading.Thread(target=_drain, args=(proc.stdout.fileno(),), daemon=True)
        drainer.start()
        return cls(proc, line[len(LISTENING) :].strip(), startup, data_dir, log, drainer)

    def token(self, user: str = "alice") -> str:
        """A bearer token for ``user`` from ``python -m app.node token``."""
        out = subprocess.run(
            [*NODE_CMD, "token", "--data-dir", str(self.data_dir), "--user", user],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )
        return out.stdout.strip()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 20 s."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.drainer is not None:
            self.drainer.join(timeout=5)  # it ends at EOF, now that the node is gone
            if self.drainer.is_alive():
                return  # something else still holds the pipe: leave the fd to the reader
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@contextmanager
def running_node(
    data_dir: Path, timeout: float = 60.0, flags: tuple[str, ...] = ()
) -> Iterator[Node]:
    """A started node, stopped on leaving the block."""
    node = Node.start(data_dir, timeout, flags)
    try:
        yield node
    finally:
        node.stop()


# ================================================================ wrk


def wrk_version() -> str:
    """``wrk -v``'s first line, without the copyright."""
    out = subprocess.run(["wrk", "-v"], capture_output=True, text=True, check=False)
    first = (out.stdout or out.stderr).splitlines()
    return first[0].split(" Copyright")[0] if first else "wrk"


def install_wrk() -> str | None:
    """Install wrk from Debian; returns why it failed, None when it worked."""
    if shutil.which("apt-get") is None:
        return "no apt-get on this machine"
    prefix: list[str] = []
    if os.geteuid() != 0:
        if shutil.which("sudo") is None:
            return "not root and no sudo"
        prefix = ["sudo", "-n"]
    print("wrk is missing: installing it with apt-get ...", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = [*prefix, "apt-get", "install", "-y", "-q", "wrk"]
    res = subprocess.run(install, capture_output=True, text=True, env=env, check=False)
    if res.returncode != 0:
        subprocess.run(
            [*prefix, "apt-get", "update", "-q"], capture_output=True, env=env, check=False
        )
        res = subprocess.run(install, capture_output=True, text=True, env=env, check=False)
    if res.returncode != 0 or shutil.which("wrk") is None:
        lines = (res.stderr or res.stdout).strip().splitlines()
        return lines[-1] if lines else f"apt-get exited with {res.returncode}"
    return None


def choose_tool(wanted: str, fallback: str, using: str | None = None) -> tuple[str, str]:
    """The load generator for ``--client wanted`` (auto, wrk or python), as (name, note).

    ``("wrk", version)``, installing wrk when missing, else ``("python", fallback + why)``;
    ``using`` is how the notice names the fallback (default ``fallback``).
    """
    if wanted == "python":
        return "python", f"{fallback} (--client python)"
    if shutil.which("wrk") is None:
        why = install_wrk()
        if why is not None:
            if wanted == "wrk":
                raise SystemExit(f"wrk is not available and could not be installed: {why}")
            print(f"wrk could not be installed ({why}): using {using or fallback}", flush=True)
            return "python", f"{fallback} (wrk unavailable: {why})"
    return "wrk", wrk_version()


def wrk_bench(cmd: list[str], timeout: float) -> dict[str, int]:
    """Run wrk; the ``key=value`` fields of the ``BENCH`` line its Lua script prints."""
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=timeout).stdout
    m = re.search(r"^BENCH (.*)$", out, re.M)
    if m is None:
        raise RuntimeError(f"wrk printed no BENCH line:\n{out}")
    return {k: int(v) for k, v in (kv.split("=") for kv in m.group(1).split())}


# ================================================================ report


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, else what ``platform`` says."""
    cpu = platform.processor() or platform.machine()
    with suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return cpu


def machine(arch: bool = False, **extra: Any) -> dict[str, Any]:
    """Platform (and with ``arch`` its architecture), CPU, Python, then ``extra``."""
    info: dict[str, Any] = {"platform": platform.platform()}
    if arch:
        info["machine"] = platform.machine()
    info |= {"cpu": cpu_model(), "cpus": os.cpu_count(), "python": platform.python_version()}
    return info | extra


def mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def rounded(x: Any) -> Any:
    """``x`` with every float rounded to 3 decimals (for the JSON file)."""
    if isinstance(x, float):
        return round(x, 3)
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    if isinstance(x, list):
        return [rounded(v) for v in x]
    return x


def utc_now() -> str:
    """The time of the run, as the result files give it."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())


def write_results(name: str, data: dict[str, Any]) -> Path:
    """``data`` as benchmarks/results/<name>.json; returns the path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path
