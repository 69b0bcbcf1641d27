"""The node's `check` command and the launcher tour, run as real processes' entry points."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.__main__ import main as app_main
from app.node.__main__ import main as node_main
from app.node.tour import run_tour

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = ROOT / "resources" / "contracts"


def test_check_lists_contracts_and_typed_functions(capsys: pytest.CaptureFixture[str]) -> None:
    assert node_main(["check", str(CONTRACTS / "Token.sol")]) == 0
    out = capsys.readouterr().out
    assert "Token.sol: ok (1 contract)" in out
    assert "function transfer(address to, uint256 amount) public returns (bool)" in out
    assert "mapping(address => uint256) public balances" in out


def test_check_json_prints_the_xabi(capsys: pytest.CaptureFixture[str]) -> None:
    assert node_main(["check", "--json", str(CONTRACTS / "Shipment.sol")]) == 0
    xabi = json.loads(capsys.readouterr().out)
    assert set(xabi) == {"Receipt", "Shipment"}
    assert "deliver" in xabi["Shipment"]["funcs"]
    assert xabi["Shipment"]["types"]["Status"]["names"][0] == "Created"


def test_check_reports_parse_errors_with_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.sol"
    bad.write_text("contract A {\n  uint x\n}\n")
    assert node_main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:3:1: expected ';'")


def test_check_reports_unreadable_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert node_main(["check", str(tmp_path / "missing.sol")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_check_reports_compile_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "undeclared.sol"
    src.write_text("contract A {\n  function f() public { emit Nope(); }\n}\n")
    assert node_main(["check", str(src)]) == 1
    assert "event 'Nope' is not declared" in capsys.readouterr().err


def test_tour_tells_the_story() -> None:
    lines: list[str] = []
    assert run_tour(lines.append) == 0
    text = "\n".join(lines)
    assert "returned 200; color is now blue" in text
    assert "returned 403" in text
    assert "event OrganizationAdded(Globex)" in text
    assert "event OrganizationRemoved(Acme)" in text
    assert "rejected: solidity require failed: insufficient balance" in text
    assert "alice 750, bob 250" in text


def test_launcher_tour_option_runs_the_tour(capsys: pytest.CaptureFixture[str]) -> None:
    assert app_main(["--tour"]) == 0
    out = capsys.readouterr().out
    assert "alice 750, bob 250" in out


def test_console_script_module_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "app.node", "check", str(CONTRACTS / "CarAsset.sol")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "contract Car" in proc.stdout
