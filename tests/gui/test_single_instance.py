"""Issue 29 item 11: a second start of the app with the same sandbox brings the running window
forward and exits (a real second ``python -m app`` process), instead of a dead window whose
sandbox node cannot start. Another sandbox directory is another instance; a socket file left by
a crashed instance does not stop the next start."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import qasync
from PySide6.QtCore import QDir, Qt
from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from app.ui.shell.single_instance import SingleInstance, bring_forward, instance_name
from tests.gui.conftest import drive


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        XDG_DATA_HOME=str(tmp_path / "xdg-data"),
        PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring",
    )
    return env


def test_a_second_start_brings_the_running_window_forward_and_exits(
    qtbot: QtBot, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    sandbox = tmp_path / "sandbox"
    running = SingleInstance(instance_name(sandbox))
    assert running.claim()
    window = QMainWindow()
    qtbot.addWidget(window)
    window.setWindowTitle("the running Stratoscope")
    window.show()
    window.setWindowState(Qt.WindowState.WindowMinimized)
    asked: list[bool] = []
    running.raise_requested.connect(lambda: asked.append(True))
    running.raise_requested.connect(lambda: bring_forward(window))

    command = [sys.executable, "-m", "app", "--config-dir", str(tmp_path / "cfg2")]
    command += ["--sandbox-dir", str(sandbox)]
    with subprocess.Popen(
        command, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as second:
        try:
            drive(loop, lambda: second.poll() is not None, 60)  # it exits on its own
        finally:
            if second.poll() is None:
                second.kill()
        out = second.stdout.read() if second.stdout else ""
    assert second.returncode == 0, out
    assert "already running" in out
    drive(loop, lambda: bool(asked))
    assert not window.windowState() & Qt.WindowState.WindowMinimized and window.isVisible()
    assert not sandbox.exists()  # the second start never started a sandbox node of its own
    assert not (tmp_path / "cfg2" / "settings.json").exists()
    running.close()


def test_other_sandbox_dirs_are_other_instances_and_a_stale_socket_is_replaced(
    qtbot: QtBot, tmp_path: Path
) -> None:
    a, b = instance_name(tmp_path / "a"), instance_name(tmp_path / "b")
    assert a != b and a == instance_name(tmp_path / "a" / ".." / "a")
    first = SingleInstance(a)
    assert first.claim()
    assert SingleInstance(b).claim()  # another sandbox: runs beside it
    assert not SingleInstance(a).claim()  # the same one: the first is asked instead
    first.close()
    # a crashed instance leaves its socket file behind, with nobody answering on it
    name = instance_name(tmp_path / "c")
    stale = Path(QDir.tempPath()) / name
    stale.write_bytes(b"")
    try:
        after_crash = SingleInstance(name)
        assert after_crash.claim() and after_crash.server is not None
        assert after_crash.server.isListening()
        assert not SingleInstance(name).claim()  # and it is the running one now
        after_crash.close()
    finally:
        stale.unlink(missing_ok=True)


def test_two_real_starts_one_window_one_sandbox(tmp_path: Path) -> None:
    """The whole app twice with one sandbox directory: the second exits at once, the first
    keeps running with its node (it used to show "another sandbox node is already using …")."""
    from tests.gui.test_launcher import _node_running
    from tests.integration.node_fixture import ROOT

    sandbox = tmp_path / "sandbox"
    args = [sys.executable, "-m", "app", "--sandbox-dir", str(sandbox)]
    with subprocess.Popen(
        [*args, "--config-dir", str(tmp_path / "cfg1")],
        cwd=ROOT,
        env=_env(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as first:
        try:
            deadline = time.monotonic() + 60
            while not _node_running(sandbox):
                assert first.poll() is None, first.stderr.read()[-3000:] if first.stderr else ""
                assert time.monotonic() < deadline, "the first app's sandbox never started"
                time.sleep(0.2)
            second = subprocess.run(
                [*args, "--config-dir", str(tmp_path / "cfg2")],
                cwd=ROOT,
                env=_env(tmp_path),
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert second.returncode == 0, second.stderr[-3000:]
            assert "already running" in second.stdout
            assert "already using" not in second.stderr
            assert first.poll() is None and _node_running(sandbox)
        finally:
            first.terminate()
            try:
                first.wait(timeout=60)
            except subprocess.TimeoutExpired:
                first.kill()
                first.wait()
