"""``python -m app.node compile PATH``, run as a real process on a folder of relative imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.node.solidvm import compile_source

ROOT = Path(__file__).resolve().parents[2]

FILES = {
    "abstract/Ownable.sol": (
        "pragma solidvm 12.0;\n"
        "abstract contract Ownable {\n"
        "    address public owner;\n"
        "    constructor() { owner = msg.sender; }\n"
        "}\n"
    ),
    "concrete/Vault.sol": (
        "pragma solidvm 12.0;\n"
        'import "../abstract/Ownable.sol";\n'
        'import {Fees} from "./lib/Fees.sol";\n'
        "contract Vault is Ownable {\n"
        "    uint public held;\n"
        "    function put(uint n) public returns (uint) { held += Fees.net(n); return held; }\n"
        "}\n"
    ),
    "concrete/lib/Fees.sol": (
        "library Fees {\n"
        "    function net(uint n) internal returns (uint) { return n - n / 100; }\n"
        "}\n"
    ),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for rel, text in FILES.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def node_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.node", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )


def test_compile_lists_the_contracts_of_every_file(project: Path) -> None:
    proc = node_cli(project, "compile", "concrete/Vault.sol")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0] == "concrete/Vault.sol: ok (3 contracts from 3 files)"
    assert "  abstract Ownable  (abstract/Ownable.sol:2:1)" in lines
    assert "  library Fees  (concrete/lib/Fees.sol:1:1)" in lines
    assert "  contract Vault  (concrete/Vault.sol:4:1)" in lines
    assert "    function put(uint256 n) public returns (uint256)" in lines


def test_compile_error_in_an_imported_file_is_reported_there(project: Path) -> None:
    fees = project / "concrete/lib/Fees.sol"
    fees.write_text(
        FILES["concrete/lib/Fees.sol"].replace("return n - n / 100;", "return n - fee;")
    )
    proc = node_cli(project, "compile", "concrete/Vault.sol")
    assert proc.returncode == 1
    assert proc.stdout == ""
    col = FILES["concrete/lib/Fees.sol"].split("\n")[1].index("n - n") + 5
    assert proc.stderr.startswith(f"concrete/lib/Fees.sol:2:{col}: ")
    assert "fee" in proc.stderr


def test_missing_import_is_reported_at_the_import(project: Path) -> None:
    (project / "abstract/Ownable.sol").unlink()
    proc = node_cli(project / "concrete", "compile", "Vault.sol")
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        "Vault.sol:2:8: missing import file '../abstract/Ownable.sol': "
        "../abstract/Ownable.sol does not exist"
    )


def test_unusable_arguments_exit_2(project: Path) -> None:
    proc = node_cli(project, "compile", "concrete/Nope.sol")
    assert proc.returncode == 2
    assert "cannot read concrete/Nope.sol: no such file" in proc.stderr
    proc = node_cli(project, "compile", "concrete")
    assert proc.returncode == 2
    assert "is a folder" in proc.stderr
    (project / "latin1.sol").write_bytes(b"contract Caf\xe9 { }\n")
    proc = node_cli(project, "compile", "latin1.sol")
    assert proc.returncode == 2
    assert "latin1.sol: cannot read: not UTF-8 text" in proc.stderr
    proc = node_cli(project, "compile")
    assert proc.returncode == 2


def test_json_prints_the_xabi_of_the_bundle(project: Path) -> None:
    proc = node_cli(project, "compile", "--json", "concrete/Vault.sol")
    assert proc.returncode == 0, proc.stderr
    xabi = json.loads(proc.stdout)
    assert set(xabi) == {"Ownable", "Fees", "Vault"}
    assert "put" in xabi["Vault"]["funcs"]


def test_bundle_prints_the_text_the_node_gets(project: Path) -> None:
    proc = node_cli(project, "compile", "--bundle", "concrete/Vault.sol")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.index("abstract contract Ownable") < proc.stdout.index("contract Vault")
    assert "import" not in proc.stdout
    assert compile_source(proc.stdout).names == ["Vault"]


def test_ignored_aliases_are_warnings(project: Path) -> None:
    vault = project / "concrete/Vault.sol"
    vault.write_text(FILES["concrete/Vault.sol"].replace("{Fees}", "{Fees as F}"))
    proc = node_cli(project, "compile", "concrete/Vault.sol")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("concrete/Vault.sol:3:17: warning: alias 'F' is ignored")
