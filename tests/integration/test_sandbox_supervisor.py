"""The embedded-sandbox supervisor starts, watches, restarts and stops a real node."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx
from pytestqt.qtbot import QtBot

from app.services.sandbox import SandboxSupervisor


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
