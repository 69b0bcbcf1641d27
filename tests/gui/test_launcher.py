"""``python -m app`` as a user starts it: a real process, the embedded sandbox, alice's account.

The app's bench probe (``STRATOSCOPE_BENCH_REPORT``) reports when the window was shown and when
the account panel was filled, then closes the window; the process must then exit cleanly (the
sandbox stopped, no crash at interpreter exit).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
