"""Re-running a transaction in the debugger: ``POST /vm-debug/sessions {"transaction": hash}``
on a real node. The run sees the state just before the transaction (later blocks' writes and
the earlier transactions of its own block accounted for), writes nothing, and the chain goes
on while it is paused."""

from __future__ import annotations

from typing import Any

import httpx

from tests.integration.node_fixture import (
    RunningNode,
    body,
    call_tx,
    deploy,
    submit,
    transfer_tx,
    upload_tx,
    wait_for,
    wait_results,
)

COUNTER = """contract Counter {
    uint public count;
    uint[] public log;
    mapping(uint => uint) public seen;
    constructor(uint start) public { count = start; }
    function bump(uint by) public returns (uint) {
        uint old = count;
        count = count + by;
        log.push(count);
        seen[by] = count;
        return old * 1000 + log.length;
    }
}
"""
BP_LINE = 7  # uint old = count;


def rerun(client: httpx.Client, tx: str, **extra: Any) -> httpx.Response:
    return client.post("/vm-debug/sessions", json={"transaction": tx, **extra})


def settled(client: httpx.Client, sid: str) -> dict[str, Any]:
    def probe() -> dict[str, Any] | None:
        s = client.get(f"/vm-debug/sessions/{sid}").json()
        return s if s["state"] in ("paused", "finished") else None

    return wait_for(probe, 10, "a paused or finished debug run")


def evaluate(client: httpx.Client, sid: str, expr: str) -> str:
    r = client.post(f"/vm-debug/sessions/{sid}/evaluate", json={"expression": expr})
    assert r.status_code == 200, r.text
    return str(r.json()["result"])


def state(client: httpx.Client, addr: str) -> dict[str, Any]:
    return dict(client.get(f"/bloc/v2.2/contracts/Counter/{addr}/state").json())


def test_rerun_sees_the_state_before_the_transaction(node: RunningNode) -> None:
    alice = node.client("alice")
    addr = deploy(alice, "Counter", COUNTER, {"start": 5})
    # one block: an earlier transaction A, then H
    first, target = submit(
        alice, call_tx(addr, "bump", {"by": 1}), call_tx(addr, "bump", {"by": 2})
    )
    assert first["status"] == target["status"] == "Success"
    assert first["txResult"]["blockHash"] == target["txResult"]["blockHash"]
    assert target["data"]["contents"] == ["6002"]  # count was 6, log had 1 entry before H
    h = target["hash"]
    # later blocks change every variable H reads
    for by in (10, 20):
        assert submit(alice, call_tx(addr, "bump", {"by": by}))[0]["status"] == "Success"
    assert state(alice, addr)["count"] == "38"
    d = alice.get("/vm-debug/transaction", params={"hash": h})
    assert d.status_code == 200, d.text
    info = d.json()
    assert (info["kind"], info["contract"], info["function"]) == ("FUNCTION", "Counter", "bump")
    assert (info["file"], info["source"], info["address"]) == ("Counter.sol", COUNTER, addr)

    r = rerun(alice, h, breakpoints=[{"file": "Counter.sol", "line": BP_LINE}])
    assert r.status_code == 200, r.text
    sid = r.json()["id"]
    try:
        s = settled(alice, sid)
        assert s["state"] == "paused" and s["reason"] == "breakpoint", s
        assert s["files"] == ["Counter.sol"]
        assert evaluate(alice, sid, "count") == "6"
        assert evaluate(alice, sid, "log.length") == "1"
        assert evaluate(alice, sid, "seen[1]") == "6"
        assert evaluate(alice, sid, "seen[10]") == "0"
        assert evaluate(alice, sid, "by") == "2"
        assert node.address("alice")[-40:].lower() in evaluate(alice, sid, "msg.sender").lower()
        # the chain goes on while the re-run is paused
        assert submit(alice, call_tx(addr, "bump", {"by": 100}))[0]["status"] == "Success"
        # still the state before H (a read after the pause, after a new block)
        assert evaluate(alice, sid, "count") == "6"
        assert alice.put(f"/vm-debug/sessions/{sid}/resume").status_code == 200
        done = settled(alice, sid)
        assert done["state"] == "finished", done
        assert done["result"]["status"] == "success"
        assert done["result"]["values"] == target["data"]["contents"]
    finally:
        alice.delete(f"/vm-debug/sessions/{sid}")
    # the re-run wrote nothing
    assert state(alice, addr)["count"] == "138"


def test_rerun_of_a_contract_creation(node: RunningNode) -> None:
    alice = node.client("alice")
    (up,) = submit(alice, upload_tx("Counter", COUNTER, {"start": 41}))
    assert up["status"] == "Success"
    addr = up["data"]["contents"]["address"]
    info = alice.get("/vm-debug/transaction", params={"hash": up["hash"]}).json()
    assert (info["kind"], info["function"], info["address"]) == ("CONTRACT", "", addr)
    r = rerun(alice, up["hash"], stopOnEntry=True, name="/work/project/Counter.sol")
    assert r.status_code == 200, r.text
    sid = r.json()["id"]
    try:
        s = settled(alice, sid)
        assert s["state"] == "paused", s
        assert s["files"] == ["/work/project/Counter.sol"]
        assert evaluate(alice, sid, "count") == "0"  # before the constructor ran
        assert alice.post(f"/vm-debug/sessions/{sid}/control", json={"action": "continue"})
        done = settled(alice, sid)
        assert done["state"] == "finished", done
        assert done["result"]["status"] == "success", done
        assert done["result"]["address"] == addr  # the same address: the sender's old nonce
        assert done["result"]["message"] == f"Counter deployed at {addr}"
    finally:
        alice.delete(f"/vm-debug/sessions/{sid}")


def test_rerun_refusals(node: RunningNode) -> None:
    alice, bob = node.client("alice"), node.client("bob")
    r = rerun(alice, "xyz")
    assert r.status_code == 400 and r.json()["field"] == "transaction", r.text
    unknown = rerun(alice, "ab" * 32)
    assert unknown.status_code == 404, unknown.text
    assert unknown.json()["field"] == "transaction"
    (tr,) = submit(alice, transfer_tx(node.address("bob"), 1))
    r = rerun(alice, tr["hash"])
    assert r.status_code == 409 and "transfer" in r.json()["error"], r.text
    # a private chain's transaction: its members re-run it, others are told it is unknown
    r = alice.post(
        "/bloc/v2.2/chain",
        json={
            "label": "rerun-secrets",
            "src": "contract Gov { constructor() public { } }",
            "contract": "Gov",
            "args": {},
            "members": [{"orgName": "Acme", "access": True}],
            "balances": [{"address": node.address("alice"), "balance": 1}],
            "metadata": {"VM": "SolidVM"},
        },
    )
    assert r.status_code == 200, r.text
    chain = r.json()
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"resolve": "true", "chainid": chain},
        json=body(upload_tx("Counter", COUNTER, {"start": 1})),
    )
    (up,) = r.json()
    assert up["status"] == "Success", up
    hidden = rerun(bob, up["hash"])
    assert hidden.status_code == 404, hidden.text
    assert hidden.json() == {**unknown.json(), "error": f"unknown transaction {up['hash']}"}
    seen = bob.get("/vm-debug/transaction", params={"hash": up["hash"]})
    assert seen.status_code == 404, seen.text
    assert alice.get("/vm-debug/transaction", params={"hash": up["hash"]}).status_code == 200
    mine = rerun(alice, up["hash"])
    assert mine.status_code == 200, mine.text
    done = settled(alice, mine.json()["id"])
    assert done["result"]["address"] == up["data"]["contents"]["address"], done
    alice.delete(f"/vm-debug/sessions/{mine.json()['id']}")


def test_rerun_after_a_restart_is_refused_clearly(node: RunningNode) -> None:
    """The node keeps what transactions overwrote in memory only: after a restart, a
    transaction from before it cannot be re-run (410, saying why)."""
    alice = node.client("alice")
    addr = deploy(alice, "Counter", COUNTER, {"start": 1})
    (res,) = submit(alice, call_tx(addr, "bump", {"by": 1}))
    node.restart()
    alice = node.client("alice")
    r = rerun(alice, res["hash"])
    assert r.status_code == 410, r.text
    assert "no longer reconstructible" in r.json()["error"]
    r = alice.get("/vm-debug/transaction", params={"hash": res["hash"]})
    assert r.status_code == 410, r.text
    (res2,) = submit(alice, call_tx(addr, "bump", {"by": 1}))
    r = rerun(alice, res2["hash"])
    assert r.status_code == 200, r.text
    done = settled(alice, r.json()["id"])
    assert done["result"]["values"] == res2["data"]["contents"] == ["2002"]


GUARD = """contract Guard {
    uint public limit = 10;
    function raise(uint to) public { limit = to; }
    function spend(uint n) public returns (uint) {
        uint left = limit;
        require(n <= left, "over the limit");
        return left - n;
    }
}
"""


def test_rerun_of_a_failed_transaction_pauses_where_it_failed(node: RunningNode) -> None:
    """A transaction that failed (the limit was 10 then) fails again in its re-run, although a
    later block raised the limit: the run pauses at the require, ``left`` as it was."""
    alice = node.client("alice")
    addr = deploy(alice, "Guard", GUARD)
    hashes = submit(alice, call_tx(addr, "spend", {"n": 50}), resolve=False)
    (failed,) = wait_results(alice, [h if isinstance(h, str) else h["hash"] for h in hashes])
    assert failed["status"] == "Failure", failed
    assert submit(alice, call_tx(addr, "raise", {"to": 100}))[0]["status"] == "Success"
    r = rerun(alice, failed["hash"])
    assert r.status_code == 200, r.text
    sid = r.json()["id"]
    try:
        s = settled(alice, sid)
        assert s["state"] == "paused", s
        assert "over the limit" in s["description"], s
        assert evaluate(alice, sid, "left") == "10"
        assert alice.post(f"/vm-debug/sessions/{sid}/control", json={"action": "continue"})
        done = settled(alice, sid)
        assert (
            done["result"]["status"] == "failed" and "over the limit" in done["result"]["message"]
        )
    finally:
        alice.delete(f"/vm-debug/sessions/{sid}")
