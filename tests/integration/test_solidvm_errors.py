"""Today's SolidVM over HTTP on a real node: custom errors in txResult.message, try/catch in a
transaction, `record` contracts and variables in Cirrus, and the xabi of custom errors.

One node for the module (the ``node`` fixture of conftest.py, gas off).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import (
    RunningNode,
    call_tx,
    deploy,
    result_of,
    submit,
    upload_tx,
)

SEARCH = "/cirrus/search"
ZERO40 = "0" * 40

ERRORS_SRC = """
error Refused(string why, uint code);

contract Vault {
    uint public stored;
    event Stored(uint v);

    function store(uint v) public {
        stored = v;
        emit Stored(v);
        if (v > 100) {
            revert Refused({code: v, why: "too much"});
        }
    }
    function thrown(int v) public { throw Refused("thrown", 1); }
}

contract Keeper {
    Vault public vault;
    uint public tries;
    uint public code;
    string public reason;

    constructor(address v) public { vault = Vault(v); }

    function keep(uint v) public {
        tries += 1;
        try vault.store(v) { reason = "stored"; }
        catch Panic(uint c) { code = c; reason = "refused"; }
    }
    function keepBlock(uint v) public {
        try { vault.store(v); } catch Refused(why, c) { code = c; reason = why; }
    }
}
"""

RECORD_SRC = """
contract record Ledger {
    mapping(address => uint) public record balances;
    uint public record total;
    string public record label;
    address[] public record holders;
    event Credited(address who, uint amount);

    constructor(string _label) public { label = _label; }

    function credit(address who, uint amount) public {
        balances[who] += amount;
        total += amount;
        holders.push(who);
        emit Credited(who, amount);
    }
}

contract Plain {
    mapping(address => uint) public balances;
    uint public total;
    string public label;
    address[] public holders;
    event Credited(address who, uint amount);

    constructor(string _label) public { label = _label; }

    function credit(address who, uint amount) public {
        balances[who] += amount;
        total += amount;
        holders.push(who);
        emit Credited(who, amount);
    }
}
"""

REVERT = "custom user error: Reverting based on  Error Method:"


@pytest.fixture(scope="module")
def alice(node: RunningNode) -> httpx.Client:
    return node.new_client("alice")


@pytest.fixture(scope="module")
def vault(alice: httpx.Client) -> str:
    return deploy(alice, "Vault", ERRORS_SRC)


def state(client: httpx.Client, name: str, address: str) -> dict[str, Any]:
    r = client.get(f"/bloc/v2.2/contracts/{name}/{address}/state")
    assert r.status_code == 200, r.text
    body = r.json()
    assert isinstance(body, dict)
    return body


def test_custom_error_message_in_the_transaction_result(alice: httpx.Client, vault: str) -> None:
    refused, thrown = submit(
        alice,
        call_tx(vault, "store", {"v": 500}, name="Vault"),
        call_tx(vault, "thrown", {"v": -3}, name="Vault"),
    )
    assert (refused["status"], thrown["status"]) == ("Failure", "Failure")
    message = refused["txResult"]["message"]
    assert message == f'{REVERT} Refused [BString "too much",BInteger 500]'
    assert refused["txResult"]["status"]["details"] == message
    assert thrown["txResult"]["message"] == (
        'custom user error: Custom user error thrown Refused [BString "thrown",BInteger 1]'
    )
    assert state(alice, "Vault", vault)["stored"] == "0"
    # a single failing call with resolve=true: 422 with the same text
    body = submit(alice, call_tx(vault, "store", {"v": 101}, name="Vault"), expect=422)
    assert (
        body == f'Error running the transaction: {REVERT} Refused [BString "too much",BInteger 101]'
    )


def test_a_caught_failure_commits_the_rest(alice: httpx.Client, vault: str) -> None:
    keeper = deploy(alice, "Keeper", ERRORS_SRC, {"v": vault})
    (res,) = submit(alice, call_tx(keeper, "keep", {"v": 7}, name="Keeper"))
    assert res["status"] == "Success"
    (res,) = submit(alice, call_tx(keeper, "keep", {"v": 700}, name="Keeper"))
    assert res["status"] == "Success", res
    kept = state(alice, "Keeper", keeper)
    assert (kept["tries"], kept["code"], kept["reason"]) == ("2", "34", "refused")
    assert state(alice, "Vault", vault)["stored"] == "7"  # the refused store was undone
    (res,) = submit(alice, call_tx(keeper, "keepBlock", {"v": 900}, name="Keeper"))
    assert res["status"] == "Success", res
    kept = state(alice, "Keeper", keeper)
    assert (kept["code"], kept["reason"]) == ("900", "too much")
    # only the successful store left an event behind
    rows = alice.get(f"{SEARCH}/Vault.Stored", params={"address": f"eq.{vault}"}).json()
    assert [r["v"] for r in rows] == ["7"]


def position_of(src: str, text: str) -> tuple[int, int]:
    """Line and column (from 1) where ``text`` starts in ``src``."""
    before = src[: src.index(text)]
    return before.count("\n") + 1, len(before) - before.rfind("\n")


def test_a_failure_reports_the_statement_that_failed(alice: httpx.Client, vault: str) -> None:
    keeper = deploy(alice, "Keeper", ERRORS_SRC, {"v": vault})
    refused, thrown, kept = submit(
        alice,
        call_tx(vault, "store", {"v": 500}, name="Vault"),
        call_tx(vault, "thrown", {"v": -3}, name="Vault"),
        call_tx(keeper, "keep", {"v": 3}, name="Keeper"),
    )
    line, column = position_of(ERRORS_SRC, "revert Refused(")
    where = refused["txResult"]["sourcePosition"]
    assert where == {"name": "Vault", "line": line, "column": column}
    line, column = position_of(ERRORS_SRC, 'throw Refused("thrown"')
    assert thrown["txResult"]["sourcePosition"] == {"name": "Vault", "line": line, "column": column}
    assert kept["status"] == "Success"
    assert "sourcePosition" not in kept["txResult"]
    # kept with the result: read back by hash, as the test runner does
    assert result_of(alice, refused["hash"])["txResult"]["sourcePosition"] == where


def test_try_catch_syntax_errors_are_bad_requests(alice: httpx.Client) -> None:
    src = "contract Bad {\n  function f() public {\n    try this.f() { } catch Oops { }\n  }\n}\n"
    text = str(submit(alice, upload_tx("Bad", src), expect=400))
    assert "line 3, column 28" in text
    assert "catch statement must have a valid identifier such as 'Error' or 'Panic'" in text


def test_custom_errors_in_the_xabi(alice: httpx.Client) -> None:
    r = alice.post("/bloc/v2.2/contracts/xabi", json={"src": ERRORS_SRC})
    assert r.status_code == 200, r.text
    types = r.json()["src"]["Vault"]["types"]
    assert types["Refused"]["fields"][1] == [
        "code",
        {"tag": "Int", "signed": False, "bytes": 32, "atBytes": 1},
    ]


def test_record_contracts_are_indexed_like_any_other(
    node: RunningNode, alice: httpx.Client
) -> None:
    bob = node.address("bob")
    rows: dict[str, dict[str, Any]] = {}
    for name in ("Ledger", "Plain"):
        address = deploy(alice, name, RECORD_SRC, {"_label": name.lower()})
        (res,) = submit(alice, call_tx(address, "credit", {"who": bob, "amount": 5}, name=name))
        assert res["status"] == "Success", res
        (row,) = alice.get(f"{SEARCH}/{name}", params={"address": f"eq.{address}"}).json()
        rows[name] = row
        (event,) = alice.get(
            f"{SEARCH}/{name}.Credited", params={"address": f"eq.{address}"}
        ).json()
        assert (event["who"], event["amount"]) == (bob, "5")
    ledger, plain = rows["Ledger"], rows["Plain"]
    assert (ledger["total"], ledger["label"], ledger["balances"]) == (5, "ledger", ZERO40)
    assert "holders" not in ledger  # arrays get no column, record or not
    skip = {"address", "record_id", "label", "block_hash", "block_timestamp", "block_number"}
    skip |= {"transaction_hash", "transaction_sender"}
    assert sorted(ledger) == sorted(plain)
    assert {k: v for k, v in ledger.items() if k not in skip} == {
        k: v for k, v in plain.items() if k not in skip
    }
