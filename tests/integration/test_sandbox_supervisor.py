"""The embedded-sandbox supervisor starts, watches, restarts and stops a real node."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from pytestqt.qtbot import QtBot

from app.services.sandbox import SandboxSupervisor
from tests.integration.node_fixture import ROOT


def test_start_crash_restart_stop(tmp_path: Path, qtbot: QtBot) -> None:
    sup = SandboxSupervisor(tmp_path / "sandbox")
    states: list[str] = []
    sup.state_changed.connect(states.append)
    try:
        with qtbot.waitSignal(sup.ready, timeout=30_000) as ready:
            sup.start()
        url = ready.args[0]
        assert url.startswith("http://127.0.0.1:") and sup.state == "running"
        assert httpx.get(f"{url}/health", timeout=10).json()["healthInfo"]["isHealthy"]
        assert any(line.startswith("Sandbox node listening on") for line in sup.log)

        assert sup._proc is not None
        pid = sup._proc.processId()
        with qtbot.waitSignal(
            sup.state_changed, timeout=15_000, check_params_cb=lambda s: s == "crashed"
        ):
            os.kill(pid, signal.SIGKILL)
        assert "exited" in sup.log[-1]

        with qtbot.waitSignal(sup.ready, timeout=30_000) as again:
            sup.start()
        assert httpx.get(f"{again.args[0]}/health", timeout=10).status_code == 200
        sup.stop()
        assert sup.state == "stopped"
        assert states == ["starting", "running", "crashed", "starting", "running", "stopped"]
    finally:
        sup.stop()


def test_stop_before_start_is_harmless(tmp_path: Path) -> None:
    sup = SandboxSupervisor(tmp_path / "sandbox")
    sup.stop()
    assert sup.state == "stopped"


def test_node_started_with_exit_with_parent_stops_when_the_app_is_killed(tmp_path: Path) -> None:
    """The app starts its sandbox with --exit-with-parent: a killed app leaves no node behind."""
    data = tmp_path / "data"
    launcher = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-m', 'app.node', 'serve', '--port', '0',\n"
        f"    '--data-dir', {str(data)!r}, '--exit-with-parent'], stdout=subprocess.PIPE)\n"
        "print(p.pid, flush=True)\n"
        "print(p.stdout.readline().decode().strip(), flush=True)\n"
        "time.sleep(120)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", launcher], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    pid = 0
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        assert parent.stdout.readline().startswith("Sandbox node listening on ")
        parent.kill()
        parent.wait(10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.1)
        assert not _alive(pid), "the node outlived the process that started it"
        # it stopped cleanly: the data dir is free for the next start
        state = json.loads((data / "node.json").read_text())
        assert "pid" not in state
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if parent.stdout is not None:
            parent.stdout.close()
        if pid and _alive(pid):  # a failed run must not leave a node behind
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status  # a zombie has exited; only reaping is left
