"""The EVM peers' Token: its compiled artifact and the little ABI encoding the benchmark needs.

benchmarks/evm/Token.sol is compiled ahead of time and checked in as benchmarks/evm/Token.json
(bytecode, method selectors, the compiler and the source's sha256), so that a benchmark run
needs no compiler. After editing Token.sol, regenerate it with solc-js from npm (installed into
benchmarks/.peer/ when missing):

    python benchmarks/evm_token.py

The target EVM is ``paris`` (no PUSH0/MCOPY), which both Ganache 7.9.2 and anvil execute.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module benchlib

from benchlib import BENCH, ROOT

EVM = BENCH / "evm"
TOKEN_SOL = EVM / "Token.sol"
TOKEN_JSON = EVM / "Token.json"
PEER = BENCH / ".peer"
SOLC_VERSION = "0.8.30"
EVM_VERSION = "paris"

# ================================================================ ABI encoding (pure)


def word(n: int) -> str:
    """One 32-byte ABI word of an unsigned integer, as 64 hex digits."""
    if n < 0 or n >= 1 << 256:
        raise ValueError(f"{n} does not fit in uint256")
    return f"{n:064x}"


def address_word(address: str) -> str:
    """One ABI word of a 20-byte address given as hex, with or without 0x."""
    h = address.removeprefix("0x").lower()
    if len(h) != 40:
        raise ValueError(f"not a 20-byte address: {address!r}")
    int(h, 16)  # only hex digits
    return h.rjust(64, "0")


def string_tail(s: str) -> str:
    """The dynamic part of an ABI string: its length, then its bytes padded to 32."""
    raw = s.encode()
    padded = raw.hex().ljust((len(raw) + 31) // 32 * 64, "0")
    return word(len(raw)) + padded


def constructor_args(name: str, symbol: str, supply: int) -> str:
    """ABI encoding of ``(string, string, uint256)``, without 0x."""
    first = string_tail(name)
    head = word(3 * 32) + word(3 * 32 + len(first) // 2) + word(supply)
    return head + first + string_tail(symbol)


def transfer_data(selector: str, to: str, amount: int) -> str:
    """Calldata of ``transfer(address,uint256)``, with 0x."""
    return "0x" + selector.removeprefix("0x") + address_word(to) + word(amount)


def call_data(selector: str, *addresses: str) -> str:
    """Calldata of a function of address arguments (``balanceOf(address)``), with 0x."""
    return "0x" + selector.removeprefix("0x") + "".join(address_word(a) for a in addresses)


def to_int(hex_word: str) -> int:
    """An eth_call answer (one word) as an integer; ``0x`` is 0."""
    h = hex_word.removeprefix("0x")
    return int(h, 16) if h else 0


# ================================================================ the artifact


def source_sha256() -> str:
    return hashlib.sha256(TOKEN_SOL.read_bytes()).hexdigest()


def load_artifact() -> dict[str, Any]:
    """Token.json, checked against the source it was compiled from."""
    art: dict[str, Any] = json.loads(TOKEN_JSON.read_text())
    if art["source_sha256"] != source_sha256():
        raise RuntimeError(
            f"{TOKEN_JSON.relative_to(ROOT)} is stale (Token.sol changed): "
            "run python benchmarks/evm_token.py"
        )
    return art


def compile_token() -> dict[str, Any]:
    """Compile Token.sol with solc-js (npm ``solc``), installing it into .peer/ when missing."""
    solc_dir = PEER / "node_modules" / "solc"
    if not solc_dir.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("npm not found: cannot install solc-js")
        subprocess.run([npm, "install", "--prefix", str(PEER), f"solc@{SOLC_VERSION}"], check=True)
    standard = {
        "language": "Solidity",
        "sources": {"Token.sol": {"content": TOKEN_SOL.read_text()}},
        "settings": {
            "optimizer": {"enabled": True, "runs": 200},
            "evmVersion": EVM_VERSION,
            "outputSelection": {"*": {"Token": ["evm.bytecode.object", "evm.methodIdentifiers"]}},
        },
    }
    script = (
        "const solc=require(process.argv[1]);let s='';process.stdin.on('data',d=>s+=d);"
        "process.stdin.on('end',()=>process.stdout.write(JSON.stringify("
        "{version:solc.version(),out:JSON.parse(solc.compile(s))})));"
    )
    res = subprocess.run(
        ["node", "-e", script, str(solc_dir)],
        input=json.dumps(standard),
        capture_output=True,
        text=True,
        check=True,
    )
    answer = json.loads(res.stdout)
    errors = [e for e in answer["out"].get("errors", []) if e["severity"] == "error"]
    if errors:
        raise SystemExit("solc: " + errors[0]["formattedMessage"])
    token = answer["out"]["contracts"]["Token.sol"]["Token"]["evm"]
    return {
        "compiler": f"solc-js {answer['version']}",
        "evm_version": EVM_VERSION,
        "optimizer_runs": 200,
        "source_sha256": source_sha256(),
        "method_identifiers": token["methodIdentifiers"],
        "bytecode": token["bytecode"]["object"],
    }


def main() -> None:
    art = compile_token()
    TOKEN_JSON.write_text(json.dumps(art, indent=2) + "\n")
    print(f"{TOKEN_JSON.relative_to(ROOT)}: {len(art['bytecode']) // 2} bytes, {art['compiler']}")


if __name__ == "__main__":
    main()
