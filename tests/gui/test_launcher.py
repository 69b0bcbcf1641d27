"""``python -m app`` as a user starts it: a real process, the embedded sandbox, alice's account.

The app's bench probe (``STRATOSCOPE_BENCH_REPORT``) reports when the window was shown and when
the account panel was filled, then closes the window; the process must then exit cleanly (the
sandbox stopped, no crash at interpreter exit).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import qasync

from app.services import sandbox as sandbox_module
from app.services.controller import AppController
from app.services.sandbox import port_of
from tests.integration.node_fixture import ROOT


def test_app_process_starts_connects_and_exits_cleanly(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "STRATOSCOPE_BENCH_REPORT": str(report)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "--config-dir",
            str(tmp_path / "config"),
            "--sandbox-dir",
            str(tmp_path / "sandbox"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Fatal Python error" not in proc.stderr
    assert "Traceback" not in proc.stderr
    data = json.loads(report.read_text())
    assert data["shown"] is not None and data["ready"] is not None
    assert data["ready"] >= data["shown"]
    settings = json.loads((tmp_path / "config" / "settings.json").read_text())
    assert settings["last_user"]["Sandbox"] == "alice"
    # the sandbox node was stopped with the app: its lock is released
    assert (tmp_path / "sandbox" / "node.json").exists()
    lock = tmp_path / "sandbox" / "node.lock"
    if lock.exists():
        import fcntl

        with lock.open("a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if a node still holds it


# ---------------------------------------------------------------- the sandbox's port


def _listening_socket(port: int = 0) -> socket.socket:
    """Another program's server on ``port`` (0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", port))
    sock.listen(1)
    return sock


def _saved_port(tmp_path: Path) -> object:
    return json.loads((tmp_path / "config" / "settings.json").read_text()).get("sandbox_port")


def test_sandbox_listens_on_the_last_port_when_it_is_free(
    controller: AppController, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    sandbox = controller.sandbox
    first = port_of(loop.run_until_complete(controller.ensure_sandbox()))
    assert first and _saved_port(tmp_path) == first  # remembered for the next start
    loop.run_until_complete(sandbox.stop_async())
    assert sandbox.state == "stopped"
    # started again (a restart, or the next run of the app): the same port, so copied curl
    # commands and URLs keep working
    url = loop.run_until_complete(controller.ensure_sandbox())
    assert port_of(url) == first
    assert httpx.get(f"{url}/health", timeout=10).status_code == 200
    loop.run_until_complete(sandbox.stop_async())

    # the port is taken by another program meanwhile: the node starts on a free one, says so
    # in its log, and that port is remembered instead
    with _listening_socket(first):
        url = loop.run_until_complete(controller.ensure_sandbox())
    second = port_of(url)
    assert second and second != first and sandbox.state == "running"
    assert any(f"port {first} of the last run is taken" in line for line in sandbox.log)
    assert _saved_port(tmp_path) == second
    loop.run_until_complete(sandbox.stop_async())


def test_sandbox_that_cannot_bind_the_port_after_all_starts_on_a_free_one(
    controller: AppController,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    messages: list[tuple[str, ...]] = []
    controller.message.connect(lambda *args: messages.append(args))
    with _listening_socket() as taken:
        port = taken.getsockname()[1]
        loop.run_until_complete(controller.save_settings(sandbox_port=port))
        # the port is taken between the check and the node's start: the check says "free"
        monkeypatch.setattr(sandbox_module, "port_is_free", lambda _port, host="": True)
        url = loop.run_until_complete(controller.ensure_sandbox())
    sandbox = controller.sandbox
    assert port_of(url) not in (None, port) and sandbox.state == "running"
    log = "\n".join(sandbox.log)
    assert f"cannot listen on 127.0.0.1:{port}" in log  # the node's own words
    assert f"port {port} is taken: starting the node on a free port" in log
    assert messages == []  # no "sandbox stopped" error: it never failed
    assert _saved_port(tmp_path) == port_of(url)
    loop.run_until_complete(sandbox.stop_async())


def _node_running(sandbox: Path) -> bool:
    """True while a sandbox node holds the data dir's lock."""
    import fcntl

    lock = sandbox / "node.lock"
    if not lock.exists():
        return False
    with lock.open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(fh, fcntl.LOCK_UN)
        return False


def test_sigterm_closes_the_app_like_quit_and_stops_its_sandbox(tmp_path: Path) -> None:
    """A logout or `kill` sends SIGTERM: the app must end cleanly (it used to ignore it)."""
    sandbox = tmp_path / "sandbox"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "app"),
            *("--config-dir", str(tmp_path / "config"), "--sandbox-dir", str(sandbox)),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not _node_running(sandbox):
            assert proc.poll() is None, proc.stderr.read()[-3000:] if proc.stderr else ""
            assert time.monotonic() < deadline, "the app's sandbox never started"
            time.sleep(0.2)
        time.sleep(1.0)  # the window is up and idle in Qt's loop
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err
    assert not _node_running(sandbox)  # the sandbox went with the app
    assert (tmp_path / "config" / "settings.json").exists()  # state saved as on Ctrl+Q
