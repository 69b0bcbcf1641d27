"""A folder of relative imports, bundled by the client, uploaded to and run by a real node; the
node's errors about the bundle map back to the file and line that caused them."""

from __future__ import annotations

from pathlib import Path

from app.client.bundler import bundle
from app.client.errors import server_message
from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit

FILES = {
    "abstract/access/Ownable.sol": (
        "pragma solidvm 12.0;\n"
        "abstract contract Ownable {\n"
        "    address public owner;\n"
        "    constructor() { owner = msg.sender; }\n"
        '    modifier onlyOwner() { require(msg.sender == owner, "not owner"); _; }\n'
        "}\n"
    ),
    "libraries/Percent.sol": (
        "pragma solidvm 12.0;\n"
        "library Percent {\n"
        "    function of(uint n, uint p) internal returns (uint) { return n * p / 100; }\n"
        "}\n"
    ),
    "concrete/Savings.sol": (
        "pragma solidvm 12.0;\n"
        'import "../abstract/access/Ownable.sol";\n'
        'import {Percent} from "../libraries/Percent.sol";\n'
        "\n"
        "contract Savings is Ownable {\n"
        "    uint public balance;\n"
        "    function deposit(uint n) public onlyOwner returns (uint) {\n"
        "        balance += n + Percent.of(n, 5);\n"
        "        return balance;\n"
        "    }\n"
        "}\n"
    ),
}


def make_project(base: Path) -> Path:
    for rel, text in FILES.items():
        p = base / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return base / "concrete/Savings.sol"


def test_bundle_uploads_and_runs(node: RunningNode, tmp_path: Path) -> None:
    alice = node.client("alice")
    b = bundle(make_project(tmp_path))
    address = deploy(alice, "Savings", b.source)
    res = submit(alice, call_tx(address, "deposit", {"n": 200}))
    assert res[0]["status"] == "Success", res
    assert res[0]["data"]["contents"] == ["210"]
    state = alice.get(f"/bloc/v2.2/contracts/Savings/{address}/state").json()
    assert state["owner"] == node.address("alice")


def test_node_errors_about_the_bundle_name_the_file(node: RunningNode, tmp_path: Path) -> None:
    alice = node.client("alice")
    root = make_project(tmp_path)
    percent = tmp_path / "libraries/Percent.sol"
    percent.write_text(FILES["libraries/Percent.sol"].replace("n * p / 100", "n * q / 100"))
    b = bundle(root)
    col = FILES["libraries/Percent.sol"].split("\n")[2].index("p / 100") + 1
    r = alice.post("/bloc/v2.2/contracts/xabi", json={"src": b.source})
    assert r.status_code == 400
    assert b.map_message(server_message(r.text)).startswith(f"{percent}:3:{col}: ")
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={
            "txs": [
                {
                    "type": "CONTRACT",
                    "payload": {
                        "contract": "Savings",
                        "src": b.source,
                        "metadata": {"VM": "SolidVM"},
                    },
                }
            ]
        },
    )
    assert r.status_code == 400
    assert b.map_message(server_message(r.text)).startswith(f"{percent}:3:{col}: ")
