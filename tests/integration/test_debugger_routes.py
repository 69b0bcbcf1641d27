"""The sandbox's debugger routes on a real node: sessions, the platform's REST API, isolation.

A debug run executes on a copy of the committed state on its own thread: while it is paused the
node keeps taking transactions and answering reads, and nothing the run writes reaches the chain.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from tests.dap_client import DapClient
from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit, wait_for

STORE = """
contract Store {
    uint public value;
    function set(uint v) public { value = v; }
}
"""

PROBE = """contract Probe {
    uint public seen;
    string label = "probe";
    function poke(address store, uint v) public returns (uint) {
        Store s = Store(store);
        uint before = s.value();
        s.set(v);
        seen = s.value();
        return before;
    }
    function boom(uint k) public returns (uint) {
        uint doubled = k * 2;
        require(k == 0, "k must be zero");
        return doubled;
    }
}
contract Store {
    uint public value;
    function set(uint v) public { value = v; }
}
"""


def start(client: httpx.Client, **body: Any) -> dict[str, Any]:
    body.setdefault("source", PROBE)
    body.setdefault("name", "Probe.sol")
    r = client.post("/vm-debug/sessions", json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


def paused(client: httpx.Client, sid: str) -> dict[str, Any]:
    def probe() -> dict[str, Any] | None:
        s = client.get(f"/vm-debug/sessions/{sid}").json()
        return s if s["state"] in ("paused", "finished") else None

    return wait_for(probe, 10, "a paused or finished debug run")


def stop(client: httpx.Client, sid: str) -> None:
    client.delete(f"/vm-debug/sessions/{sid}")


def test_paused_run_keeps_the_chain_going_and_writes_nothing(node: RunningNode) -> None:
    alice = node.client("alice")
    store = deploy(alice, "Store", STORE)
    submit(alice, call_tx(store, "set", {"v": 7}))
    bp = {"file": "Probe.sol", "line": 8}  # seen = s.value(); after the call wrote 99
    s = start(
        alice, contract="Probe", function="poke", args={"store": store, "v": 99}, breakpoints=[bp]
    )
    sid = s["id"]
    try:
        assert paused(alice, sid)["reason"] == "breakpoint"
        # the run sees its own write ...
        r = alice.post(f"/vm-debug/sessions/{sid}/evaluate", json={"expression": "s.value()"})
        assert r.json()["result"] == "99"
        assert (
            alice.post(f"/vm-debug/sessions/{sid}/evaluate", json={"expression": "before"}).json()[
                "result"
            ]
            == "7"
        )
        # ... the chain does not, and keeps taking transactions and reads meanwhile
        t0 = time.monotonic()
        res = submit(alice, call_tx(store, "set", {"v": 8}))
        assert res[0]["status"] == "Success"
        assert time.monotonic() - t0 < 10
        state = alice.get(f"/bloc/v2.2/contracts/Store/{store}/state").json()
        assert state["value"] == "8"
        r = alice.put(f"/vm-debug/sessions/{sid}/resume")
        assert r.status_code == 200
        done = paused(alice, sid)
        assert done["state"] == "finished"
        assert done["result"]["values"] == ["7"]
    finally:
        stop(alice, sid)
    state = alice.get(f"/bloc/v2.2/contracts/Store/{store}/state").json()
    assert state["value"] == "8"


def test_platform_routes_shapes(node: RunningNode) -> None:
    alice = node.client("alice")
    bp = {"file": "Probe.sol", "line": 13}
    s = start(alice, contract="Probe", function="boom", args={"k": 3}, breakpoints=[bp])
    sid = s["id"]
    base = "/vm-debug"  # the caller's latest session, where the platform's clients look
    try:
        paused(alice, sid)
        st = alice.get(f"{base}/status").json()
        assert st["tag"] == "Paused"
        c = st["contents"]
        assert c["debugStateBreakpoint"] == {"name": "Probe.sol", "line": 13, "column": 9}
        assert c["debugStateCallStack"][0] == c["debugStateBreakpoint"]
        assert c["debugStateVariables"]["Local Variables"]["k"] == {"Right": "3"}
        assert c["debugStateVariables"]["State Variables"]["label"] == {"Right": "probe"}
        assert alice.get(f"{base}/stack-trace").json() == [c["debugStateBreakpoint"]]
        assert alice.get(f"{base}/variables").json() == c["debugStateVariables"]
        r = alice.post(f"{base}/eval", json=["k + 1", "k +"])
        ok, bad = r.json()
        assert ok == {"Right": "4"} and "Left" in bad
        # watches: added, evaluated in the paused frame, removed
        assert alice.put(f"{base}/watches", json=["k * 10"]).json()["tag"] == "Paused"
        assert alice.get(f"{base}/watches").json() == {"k * 10": {"Right": "30"}}
        alice.request("DELETE", f"{base}/watches", json=[])
        assert alice.get(f"{base}/watches").json() == {}
        # breakpoints: the platform's set (union, removal, per file)
        ubp = {"tag": "UnconditionalBP", "contents": {"name": "Probe.sol", "line": 14, "column": 1}}
        cbp = {
            "tag": "ConditionalBP",
            "contents": [{"name": "Probe.sol", "line": 15, "column": 1}, "k > 1"],
        }
        fbp = {"tag": "FunctionBP", "contents": "boom"}
        assert alice.put(f"{base}/breakpoints", json=[ubp, cbp, fbp]).status_code == 200
        got = alice.get(f"{base}/breakpoints").json()
        assert [b["tag"] for b in got] == ["UnconditionalBP", "ConditionalBP", "FunctionBP"]
        alice.delete(f"{base}/breakpoints/Probe.sol")
        assert alice.get(f"{base}/breakpoints").json() == [fbp]
        r = alice.put(f"{base}/breakpoints", json=[{"tag": "Nope"}])
        assert r.status_code == 400 and "tag" in r.json()["error"]
        # stepping over the require (line 13) makes it fail: paused on failure, at its line,
        # before the frame unwinds
        assert alice.post(f"{base}/step-over").status_code == 200
        s2 = paused(alice, sid)
        assert s2["reason"] == "exception" and "k must be zero" in s2["description"]
        assert alice.get(f"{base}/stack-trace").json()[0]["line"] == 13
        assert alice.post(f"{base}/eval", json=["doubled"]).json() == [{"Right": "6"}]
        assert alice.post(f"{base}/step-out").status_code == 200
        done = paused(alice, sid)
        assert done["state"] == "finished" and done["result"]["status"] == "failed"
        assert alice.get(f"{base}/status").json() == {"tag": "Running"}
        assert alice.get(f"{base}/stack-trace").json() == []
    finally:
        stop(alice, sid)


def test_rich_routes_frames_scopes_variables(node: RunningNode) -> None:
    alice = node.client("alice")
    store = deploy(alice, "Store", STORE)
    s = start(
        alice, contract="Probe", function="poke", args={"store": store, "v": 5}, stopOnEntry=True
    )
    sid = s["id"]
    try:
        paused(alice, sid)
        assert (
            alice.post(f"/vm-debug/sessions/{sid}/control", json={"action": "next"}).status_code
            == 200
        )
        paused(alice, sid)
        assert (
            alice.post(f"/vm-debug/sessions/{sid}/control", json={"action": "next"}).status_code
            == 200
        )
        paused(alice, sid)
        assert (
            alice.post(f"/vm-debug/sessions/{sid}/control", json={"action": "stepIn"}).status_code
            == 200
        )
        paused(alice, sid)
        frames = alice.get(f"/vm-debug/sessions/{sid}/frames").json()
        assert [f["name"] for f in frames] == ["Store.set", "Probe.poke"]
        assert frames[0]["address"] == store.lower().removeprefix("0x")
        scopes = alice.get(f"/vm-debug/sessions/{sid}/scopes", params={"frame": 2}).json()
        assert [x["name"] for x in scopes] == ["Locals", "Contract state", "msg / block / tx"]
        local = alice.get(
            f"/vm-debug/sessions/{sid}/variables/{scopes[0]['variablesReference']}"
        ).json()
        assert {v["name"]: v["value"] for v in local}["before"] == "0"
        r = alice.post(f"/vm-debug/sessions/{sid}/control", json={"action": "fly"})
        assert r.status_code == 400 and r.json()["field"] == "action"
        r = alice.post(
            f"/vm-debug/sessions/{sid}/control", json={"action": "pauseOnFailure", "value": 1}
        )
        assert r.status_code == 400 and r.json()["field"] == "value"
        r = alice.post(
            f"/vm-debug/sessions/{sid}/control", json={"action": "pauseOnFailure", "value": False}
        )
        assert r.status_code == 200
        evs = alice.get(f"/vm-debug/sessions/{sid}/events").json()
        assert [e["event"] for e in evs if e["event"] == "stopped"] == ["stopped"] * 4
    finally:
        stop(alice, sid)


def test_call_on_a_deployed_contract(node: RunningNode) -> None:
    """``address``: a call on a contract already on the chain, stepping in its own source
    (fetched from the node when no ``source`` is given), its state as committed."""
    alice = node.client("alice")
    store = deploy(alice, "Store", STORE)
    submit(alice, call_tx(store, "set", {"v": 41}))
    r = alice.post(
        "/vm-debug/sessions",
        json={"address": "0x" + store, "function": "set", "args": {"v": 42}, "stopOnEntry": True},
    )
    assert r.status_code == 200, r.text
    sid = r.json()["id"]
    try:
        assert r.json()["files"] == ["Store.sol"]
        paused(alice, sid)
        frames = alice.get(f"/vm-debug/sessions/{sid}/frames").json()
        assert [(f["name"], f["file"], f["address"]) for f in frames] == [
            ("Store.set", "Store.sol", store)
        ]
        ev = alice.post(f"/vm-debug/sessions/{sid}/evaluate", json={"expression": "value + v"})
        assert ev.json()["result"] == "83"
        alice.post(f"/vm-debug/sessions/{sid}/control", json={"action": "continue"})
        assert paused(alice, sid)["result"]["status"] == "success"
    finally:
        stop(alice, sid)
    assert alice.get(f"/bloc/v2.2/contracts/Store/{store}/state").json()["value"] == "41"
    for body, field in [
        ({"address": "12", "function": "set"}, "address"),
        ({"address": "ab" * 20, "function": "set"}, "address"),
        ({"address": store}, "function"),
    ]:
        r = alice.post("/vm-debug/sessions", json=body)
        assert r.status_code == 400, r.text
        assert r.json()["field"] == field


def test_sessions_are_per_user_bounded_and_checked(node: RunningNode) -> None:
    alice, bob = node.client("alice"), node.client("bob")
    a = start(alice, contract="Probe", function="boom", args={"k": 0}, stopOnEntry=True)
    try:
        assert bob.get(f"/vm-debug/sessions/{a['id']}").status_code == 404
        assert bob.get("/vm-debug/status").status_code == 404
        b = start(alice, contract="Probe", function="boom", args={"k": 0}, stopOnEntry=True)
        r = alice.post("/vm-debug/sessions", json={"source": PROBE, "contract": "Probe"})
        assert r.status_code == 429
        stop(alice, b["id"])
        assert [x["id"] for x in alice.get("/vm-debug/sessions").json()] == [a["id"]]
    finally:
        stop(alice, a["id"])
    for body, field in [
        ({"contract": "Probe"}, "source"),
        ({"source": PROBE}, "contract"),
        ({"source": PROBE, "contract": "Nope"}, "contract"),
        ({"source": PROBE, "contract": "Probe", "args": 3}, "args"),
        ({"source": "contract X { function f() public { y = 1; } }", "contract": "X"}, "source"),
    ]:
        r = alice.post("/vm-debug/sessions", json=body)
        assert r.status_code == 400, r.text
        assert r.json()["field"] == field
    assert node.client(None).get("/vm-debug/status").status_code == 401


def test_debug_adapter_on_a_node(node: RunningNode, tmp_path: Path) -> None:
    """``node`` in the launch: the adapter drives this node's routes, signed in by token."""
    alice = node.client("alice")
    store = deploy(alice, "Store", STORE)
    program = tmp_path / "Probe.sol"
    program.write_text(PROBE)
    dap = DapClient(env={"STRATOSCOPE_TOKEN": node.token("alice")})
    try:
        dap.request("initialize", adapterID="strato")
        r = dap.request(
            "launch",
            program=str(program),
            contract="Probe",
            function="poke",
            args={"store": store, "v": 3},
            node=node.url,
        )
        assert r["success"], r
        dap.event("initialized")
        dap.request("setBreakpoints", source={"path": str(program)}, breakpoints=[{"line": 7}])
        dap.request("configurationDone")
        assert dap.event("stopped")["body"]["reason"] == "breakpoint"
        frames = dap.request("stackTrace", threadId=1)["body"]["stackFrames"]
        assert (frames[0]["name"], frames[0]["line"]) == ("Probe.poke", 7)
        dap.request("stepIn", threadId=1)
        dap.event("stopped")
        frames = dap.request("stackTrace", threadId=1)["body"]["stackFrames"]
        assert [f["name"] for f in frames] == ["Store.set", "Probe.poke"]
        r = dap.request("evaluate", expression="v * 2", frameId=frames[0]["id"])
        assert r["body"]["result"] == "6"
        scopes = dap.request("scopes", frameId=frames[1]["id"])["body"]["scopes"]
        local = dap.request("variables", variablesReference=scopes[0]["variablesReference"])
        assert {v["name"]: v["value"] for v in local["body"]["variables"]}["before"] == "0"
        dap.request("continue", threadId=1)
        assert dap.event("exited")["body"]["exitCode"] == 0
        dap.event("terminated")
        assert dap.request("disconnect")["success"]
        assert dap.proc.wait(60) == 0  # a bound (room for a loaded machine)
    finally:
        dap.close()
    assert alice.get(f"/bloc/v2.2/contracts/Store/{store}/state").json()["value"] == "0"
