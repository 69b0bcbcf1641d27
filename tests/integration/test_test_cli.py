"""``python -m app test`` as a user runs it: a subprocess against a real sandbox node (one per
module), and once on its own temporary sandbox (started and removed by the command)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.node.server import read_state
from tests.integration.conftest import make_node
from tests.integration.node_fixture import ROOT, RunningNode

CORPUS = ROOT / "tests" / "corpus" / "describe"


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--test-clock")
    try:
        yield n
    finally:
        n.stop()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty config/temp home: no saved profile of the user's interferes."""
    return tmp_path_factory.mktemp("home")


def env_for(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STRATOSCOPE_")}
    env.pop("PYTHONWARNINGS", None)
    env["XDG_CONFIG_HOME"] = str(home / "config")
    env["XDG_DATA_HOME"] = str(home / "data")
    env["TMPDIR"] = str(home / "tmp")
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"  # no real keyring is read
    (home / "tmp").mkdir(exist_ok=True)
    return env


def cli(
    home: Path, *args: str, timeout: float = 180, extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", "test", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**env_for(home), **(extra or {})},
        stdin=subprocess.DEVNULL,
        check=False,
    )


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_failures_print_message_and_location(node: RunningNode, home: Path) -> None:
    proc = cli(home, "--node", node.url, rel(CORPUS / "reverts"))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "2 passed, 9 failed"
    assert all(line.startswith(("PASS ", "FAIL ")) for line in lines[:-1])
    assert len(lines) == 12
    src = rel(CORPUS / "reverts" / "reverts.sol")
    assert lines[0] == "PASS Describe_Reverts.it_passes"
    # the line of the statement that failed, as the node reports it
    assert lines[1] == (
        f"FAIL Describe_Reverts.it_fails_a_require  {src}:11  "
        "solidity require failed: balance too low"
    )
    assert lines[2] == (
        f"FAIL Describe_Reverts.it_reverts_with_a_message  {src}:15  revert: nothing to see here"
    )
    # nothing failed on the node: the test's declaration
    assert lines[3] == f"FAIL Describe_Reverts.it_returns_false  {src}:18  returned false"
    assert "Traceback" not in proc.stderr


def test_a_failure_in_an_imported_file_prints_that_file(node: RunningNode, home: Path) -> None:
    proc = cli(home, "--node", node.url, "--only", "imported_library", rel(CORPUS / "positions"))
    assert proc.returncode == 1, proc.stderr
    guard = rel(CORPUS / "lib" / "Guard.sol")
    assert proc.stdout.splitlines() == [
        f"FAIL Describe_Positions.it_fails_in_an_imported_library  {guard}:8  "
        "solidity require failed: below the floor",
        "0 passed, 1 failed",
    ]


def test_all_passing_exits_zero_and_writes_junit(
    node: RunningNode, home: Path, tmp_path: Path
) -> None:
    report = tmp_path / "junit.xml"
    proc = cli(
        home,
        "--node",
        node.url,
        "--user",
        "bob",
        "--junit",
        str(report),
        rel(CORPUS / "hooks"),
        rel(CORPUS / "state" / "shared.sol"),
        rel(CORPUS / "imports"),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "PASS Describe_Hooks.it_runs_first"
    assert lines[-1] == "9 passed, 0 failed"
    root = ET.parse(report).getroot()
    assert root.get("tests") == "9" and root.get("failures") == "0"
    names = [s.get("name") for s in root.findall("testsuite")]
    assert names[:2] == ["Describe_Hooks", "Describe_SharedState"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junit.xml"]


def test_property_failure_shows_the_shrunk_vector(node: RunningNode, home: Path) -> None:
    proc = cli(home, "--node", node.url, "--only", "small_numbers", rel(CORPUS / "properties"))
    assert proc.returncode == 1, proc.stderr
    src = rel(CORPUS / "properties" / "properties.sol")
    assert proc.stdout.splitlines() == [
        f"FAIL Describe_Properties.property_small_numbers  {src}:9  returned false; arguments (50)",
        "0 passed, 1 failed",
    ]


def test_compile_error_in_an_imported_file_exits_2(node: RunningNode, home: Path) -> None:
    proc = cli(home, "--node", node.url, rel(CORPUS / "compile_error"))
    assert proc.returncode == 2
    broken = rel(CORPUS / "lib" / "Broken.sol")
    assert f"{broken}:5:16: undeclared identifier 'notDeclaredAnywhere'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout.splitlines()[-1] == "0 passed, 0 failed"


def test_could_not_run(node: RunningNode, home: Path) -> None:
    unreachable = cli(home, "--node", "http://127.0.0.1:9", rel(CORPUS / "hooks"))
    assert unreachable.returncode == 2
    assert "cannot reach the node at http://127.0.0.1:9" in unreachable.stderr
    nothing = cli(home, "--node", node.url, rel(CORPUS / "lib"))
    assert nothing.returncode == 2
    assert "no tests found" in nothing.stderr
    missing = cli(home, "--node", node.url, "no/such/dir")
    assert missing.returncode == 2 and "no such file or folder: no/such/dir" in missing.stderr
    regex = cli(home, "--node", node.url, "--only", "(", rel(CORPUS / "hooks"))
    assert regex.returncode == 2 and "--only is not a regular expression" in regex.stderr
    wrong = cli(home, "--node", node.url, "--user", "nobody", rel(CORPUS / "hooks"))
    assert wrong.returncode == 2 and f"cannot sign in to {node.url}" in wrong.stderr
    for proc in (unreachable, nothing, missing, regex, wrong):
        assert "Traceback" not in proc.stderr


def sender_test(folder: Path, user: str, address: str) -> Path:
    f = folder / f"sender_{user}.sol"
    f.write_text(
        f"contract Describe_Sender {{\n"
        f"    function it_is_sent_by_{user}() public returns (bool) {{\n"
        f"        return tx.origin == address(0x{address});\n"
        f"    }}\n}}\n",
        encoding="utf-8",
    )
    return f


def test_signs_in_with_a_saved_profile_or_a_token(
    node: RunningNode, tmp_path_factory: pytest.TempPathFactory
) -> None:
    home = tmp_path_factory.mktemp("profiled")
    folder = tmp_path_factory.mktemp("sender")
    profiles = home / "config" / "stratoscope" / "profiles.json"
    profiles.parent.mkdir(parents=True)
    profile = {"name": "local", "node_url": node.url + "/", "flow": "password", "username": "carol"}
    profiles.write_text(json.dumps({"version": 1, "profiles": [profile]}), encoding="utf-8")
    carol = sender_test(folder, "carol", node.address("carol"))
    proc = cli(home, "--node", node.url, str(carol))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [
        "PASS Describe_Sender.it_is_sent_by_carol",
        "1 passed, 0 failed",
    ]
    # CI: a token from the environment, whoever the profile names
    bob = sender_test(folder, "bob", node.address("bob"))
    proc = cli(home, "--node", node.url, str(bob), extra={"STRATOSCOPE_TOKEN": node.token("bob")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "1 passed, 0 failed"


def test_without_node_on_a_temporary_sandbox(home: Path) -> None:
    proc = cli(home, rel(CORPUS / "clock"), rel(CORPUS / "imports"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [
        # the platform's test clock: 0 for each Describe_ contract, moved by fastForward
        "PASS Describe_Clock.it_reads_the_move_of_before_each",
        "PASS Describe_Clock.it_keeps_the_earlier_moves",
        "PASS Describe_NextClock.it_starts_again_at_zero",
        "PASS Describe_BracedImport.it_deploys_the_imported_contract",
        "PASS Describe_ImportedCounter.it_increments",
        "PASS Describe_ImportedCounter.it_adds",
        "6 passed, 0 failed",
    ]
    assert list((home / "tmp").iterdir()) == []  # its data dir is gone


def _node_processes(marker: str) -> list[int]:
    """Processes whose command line mentions ``marker`` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmd and "app.node" in cmd:
                found.append(int(entry.name))
    return found


def _head(data_dir: Path) -> int | None:
    """The head block number of the node on ``data_dir`` (None while it does not answer)."""
    url = read_state(data_dir).get("url")
    if not url:
        return None
    try:
        r = httpx.get(f"{url}/health", timeout=10)
    except httpx.HTTPError:
        return None
    return int(r.json()["lastBlock"]["number"]) if r.status_code == 200 else None


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_ctrl_c_stops_the_temporary_sandbox(tmp_path: Path) -> None:
    home = tmp_path
    # a suite started in the background by a shell without job control inherits SIGINT
    # ignored, and so would the child (exec keeps SIG_IGN): give it the default, as a terminal's
    # foreground job has
    inherited = signal.getsignal(signal.SIGINT)
    if inherited == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app", "test", "--runs", "1000000", rel(CORPUS / "properties")],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env_for(home),
            stdin=subprocess.DEVNULL,
        )
    finally:
        signal.signal(signal.SIGINT, inherited)
    try:
        deadline = time.monotonic() + 60
        # wait until the node runs (its data dir exists and its process is there)
        while time.monotonic() < deadline:
            dirs = list((home / "tmp").glob("stratoscope-test-*"))
            if dirs and _node_processes(str(dirs[0])):
                break
            time.sleep(0.1)
        else:
            pytest.fail("the temporary sandbox did not start")
        marker = str(dirs[0])
        # the run is under way: the node's head moves (a fixed second was not always enough on
        # a loaded machine)
        first = None
        while time.monotonic() < deadline:
            head = _head(dirs[0] / "node")
            if first is None:
                first = head
            elif head is not None and head > first:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the run did not start")
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert _node_processes(marker) == []
    assert list((home / "tmp").iterdir()) == []
