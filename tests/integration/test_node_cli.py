"""The node's command line around a real node: new users, identities, remote binding rules."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.integration.node_fixture import ROOT, RunningNode, deploy, run_cli, wait_for

COUNTER = "contract Counter { uint public n; function add() public { n += 1; } }"


def serve(data_dir: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """Run ``serve`` expecting it to refuse to start (so it exits by itself)."""
    return subprocess.run(
        [sys.executable, "-m", "app.node", "serve", "--data-dir", str(data_dir), *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_non_loopback_needs_allow_remote(tmp_path: Path) -> None:
    proc = serve(tmp_path / "d", "--host", "0.0.0.0", "--port", "0")
    assert proc.returncode == 1
    assert "--allow-remote" in proc.stderr
    assert "listening" not in proc.stdout


def test_allow_remote_refused_while_demo_passwords_remain(tmp_path: Path) -> None:
    data = tmp_path / "d"
    run_cli(data, "users", "list")  # creates the database (no demo users yet)
    node = RunningNode(data).start()  # first start creates the demo users
    node.stop()
    proc = serve(data, "--host", "0.0.0.0", "--port", "0", "--allow-remote")
    assert proc.returncode == 1
    assert "default password" in proc.stderr
    for name in ("admin", "alice", "bob", "carol", "dave"):
        assert name in proc.stderr
    for name in ("admin", "alice", "bob", "carol", "dave"):
        run_cli(data, "users", "passwd", name, "--password", f"{name}-changed-{time.time_ns()}")
    remote = RunningNode(data, "--host", "0.0.0.0", "--allow-remote").start()
    try:
        assert remote.url.startswith("http://")
        assert remote.client().get("/health").status_code == 200
    finally:
        remote.stop()


def test_users_added_later_get_a_key_and_an_identity(node: RunningNode) -> None:
    node.add_user("erin", "Hooli", unit="Platform", password="pw-erin")
    erin = node.client("erin")
    assert erin.get("/svc/v2.3/key").status_code == 400
    created = erin.post("/svc/v2.3/key")
    assert created.status_code == 200, created.text
    address = created.json()["address"]

    def registered() -> bool | None:
        rows = erin.get("/cirrus/search/Certificate", params={"userAddress": f"eq.{address}"})
        return True if rows.status_code == 200 and rows.json() else None

    wait_for(registered, 15, "erin's certificate")
    store = deploy(erin, "Counter", COUNTER)
    r = erin.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={
            "txs": [
                {
                    "type": "FUNCTION",
                    "payload": {"contractAddress": store, "method": "add", "args": {}},
                }
            ]
        },
    )
    assert r.status_code == 200, r.text
    listed = run_cli(node.data_dir, "users", "list").stdout
    assert "erin" in listed and "Hooli" in listed and address in listed


def test_users_without_identity_cannot_transact(node: RunningNode) -> None:
    node.add_user("frank", "Hooli", password="pw-frank", identity=False)
    frank = node.client("frank")
    assert frank.post("/svc/v2.3/key").status_code == 200
    r = frank.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={
            "txs": [
                {
                    "type": "CONTRACT",
                    "payload": {
                        "contract": "Counter",
                        "src": COUNTER,
                        "args": {},
                        "metadata": {"VM": "SolidVM"},
                    },
                }
            ]
        },
    )
    assert r.status_code == 422
    assert "registered cert" in r.json()


def test_token_prints_a_token_the_node_accepts(node: RunningNode) -> None:
    """The ``token`` command itself (RunningNode issues its tokens in-process)."""
    proc = run_cli(node.data_dir, "token", "--user", "bob")
    token = proc.stdout.strip()
    r = node.new_client(token=token).get("/svc/v2.3/key")
    assert r.status_code == 200, r.text
    assert r.json()["address"] == node.address("bob")


def test_token_for_an_unknown_user_exits_2(node: RunningNode) -> None:
    proc = run_cli(node.data_dir, "token", "--user", "nobody", check=False)
    assert proc.returncode == 2
    assert "unknown user" in proc.stderr
