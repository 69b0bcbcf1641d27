"""A real node applies the platform's compile-time checks to uploads: a multi-file upload whose
braced import names a file it lacks, code the typechecker rejects; and code it accepted once keeps
loading after a restart even when a check would now reject it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from app.client.errors import server_message
from app.node.store import DB_FILE
from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit, upload_tx

LIB = "pragma solidvm 12.0;\ncontract Counter {\n    uint public n;\n}\n"
MAIN = (
    "pragma solidvm 12.0;\n"
    'import {Counter} from "./lib/Counter.sol";\n'
    "contract Tally is Counter {\n"
    "    function bump() public returns (uint) { n += 1; return n; }\n"
    "}\n"
)


def upload_files(contract: str, files: dict[str, str]) -> dict[str, Any]:
    """An upload whose source is a ``{file: text}`` collection."""
    tx = upload_tx(contract, "")
    tx["payload"]["src"] = files
    return tx


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, name="checks")
    try:
        yield n
    finally:
        n.stop()


def test_multi_file_upload_with_its_imports(node: RunningNode) -> None:
    alice = node.client("alice")
    src = {"lib/Counter.sol": LIB, "Tally.sol": MAIN}
    res = submit(alice, upload_files("Tally", src))
    assert res[0]["status"] == "Success", res
    address = res[0]["data"]["contents"]["address"]
    res = submit(alice, call_tx(address, "bump"))
    assert res[0]["data"]["contents"] == ["1"]


def test_braced_import_of_a_file_the_upload_lacks(node: RunningNode) -> None:
    alice = node.client("alice")
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [upload_files("Tally", {"Tally.sol": MAIN})]},
    )
    assert r.status_code == 400
    assert server_message(r.text) == "line 2, column 9: Could not find file lib/Counter.sol"


def test_upload_the_typechecker_rejects(node: RunningNode) -> None:
    alice = node.client("alice")
    src = (
        "contract Pure {\n"
        "    uint x = 1;\n"
        "    function f() public pure returns (uint) { return x; }\n"
        "}\n"
    )
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true"},
        json={"txs": [upload_tx("Pure", src)]},
    )
    assert r.status_code == 400
    assert server_message(r.text) == ("line 3, column 54: Pure function reading state variable x")


def test_stored_code_loads_as_it_was_accepted(node: RunningNode) -> None:
    # Code stored by a sandbox that did not check yet (here: written into the data dir while the
    # node is down) must keep loading and running after a restart (the module's node: its other
    # tests store no contract Old)
    alice = node.client("alice")
    good = (
        "contract Old {\n    uint x = 7;\n    function f() public returns (uint) { return x; }\n}\n"
    )
    address = deploy(alice, "Old", good)
    node.stop()
    db = sqlite3.connect(node.data_dir / DB_FILE)
    with db:
        db.execute(
            "UPDATE codes SET source = "
            "replace(source, 'public returns', 'public pure returns') "
            "WHERE source LIKE 'contract Old %'"
        )
        assert db.total_changes == 1
    db.close()
    node.restart()
    alice = node.client("alice")
    res = submit(alice, call_tx(address, "f"))
    assert res[0]["status"] == "Success", res
    assert res[0]["data"]["contents"] == ["7"]
