"""``python -m app debug-adapter`` driven by a scripted DAP client over stdio (no editor)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dap_client import DapClient

LIB = """contract Counter {
    uint public n;
    function bump(uint by) public returns (uint) {
        n += by;
        return n;
    }
}
"""

MAIN = """import "./lib.sol";
contract Main {
    Counter c;
    uint[] public items;
    constructor() {
        c = new Counter();
    }
    function run(uint k) public returns (uint) {
        uint acc = 0;
        for (uint i = 0; i < k; i++) {
            acc += i;
            items.push(i);
        }
        uint r = c.bump(acc);
        return r;
    }
}
contract Describe_Main {
    function it_fails() public {
        uint x = 2;
        require(x == 3, "x is not three");
    }
}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "lib.sol").write_text(LIB)
    (tmp_path / "main.sol").write_text(MAIN)
    return tmp_path


@pytest.fixture
def dap() -> Iterator[DapClient]:
    c = DapClient()
    yield c
    c.close()


def launch(dap: DapClient, **args: object) -> None:
    r = dap.request("initialize", adapterID="strato", linesStartAt1=True)
    assert r["success"] and r["body"]["supportsConditionalBreakpoints"]
    r = dap.request("launch", **args)
    assert r["success"], r
    dap.event("initialized")


def top(dap: DapClient) -> dict[str, object]:
    r = dap.request("stackTrace", threadId=1)
    assert r["success"], r
    frame: dict[str, object] = r["body"]["stackFrames"][0]
    return frame


def test_breakpoints_conditions_steps_and_variables(dap: DapClient, project: Path) -> None:
    main, lib = str(project / "main.sol"), str(project / "lib.sol")
    launch(dap, program=main, contract="Main", function="run", args={"k": 4})
    r = dap.request(
        "setBreakpoints",
        source={"path": main},
        breakpoints=[{"line": 11, "condition": "i == 2"}, {"line": 99}],
    )
    assert [b["verified"] for b in r["body"]["breakpoints"]] == [True, False]
    dap.request("setBreakpoints", source={"path": lib}, breakpoints=[{"line": 4}])
    assert dap.request("configurationDone")["success"]
    stopped = dap.event("stopped")
    assert stopped["body"]["reason"] == "breakpoint" and stopped["body"]["threadId"] == 1
    assert dap.request("threads")["body"]["threads"] == [{"id": 1, "name": "SolidVM"}]
    f = top(dap)
    assert (f["line"], f["name"]) == (11, "Main.run")
    assert dap.request("evaluate", expression="i", frameId=f["id"])["body"]["result"] == "2"
    bad = dap.request("evaluate", expression="nope + 1", frameId=f["id"])
    assert not bad["success"] and "undeclared identifier" in bad["message"]
    scopes = dap.request("scopes", frameId=f["id"])["body"]["scopes"]
    state = dap.request("variables", variablesReference=scopes[1]["variablesReference"])
    items = {v["name"]: v for v in state["body"]["variables"]}["items"]
    assert items["value"] == "uint256[] (length 2)" and items["variablesReference"] > 0
    kids = dap.request("variables", variablesReference=items["variablesReference"])
    assert [v["value"] for v in kids["body"]["variables"]] == ["0", "1"]
    dap.request("next", threadId=1)
    dap.event("stopped")
    assert top(dap)["line"] == 12
    dap.request("continue", threadId=1)
    dap.event("stopped")
    f = top(dap)
    assert (f["line"], f["source"]["path"]) == (4, lib)  # type: ignore[index]
    frames = dap.request("stackTrace", threadId=1)["body"]
    assert [x["name"] for x in frames["stackFrames"]] == ["Counter.bump", "Main.run"]
    dap.request("stepOut", threadId=1)
    dap.event("stopped")
    assert top(dap)["line"] == 15  # back in the caller, after the call's statement
    dap.request("stepOut", threadId=1)  # out of the outermost frame: the run finishes
    out = dap.event("output")
    assert "returned ['6']" in out["body"]["output"]
    assert dap.event("exited")["body"]["exitCode"] == 0
    dap.event("terminated")
    assert dap.request("disconnect")["success"]
    assert dap.proc.wait(5) == 0


def test_test_launch_stop_on_entry_and_pause_on_failure(dap: DapClient, project: Path) -> None:
    launch(dap, program=str(project / "main.sol"), test="Describe_Main.it_fails", stopOnEntry=True)
    dap.request("configurationDone")
    assert dap.event("stopped")["body"]["reason"] == "entry"
    assert top(dap)["line"] == 20
    dap.request("continue", threadId=1)
    stopped = dap.event("stopped")
    assert stopped["body"]["reason"] == "exception"
    assert "x is not three" in stopped["body"]["text"]
    f = top(dap)
    assert f["line"] == 21
    assert dap.request("evaluate", expression="x", frameId=f["id"])["body"]["result"] == "2"
    dap.request("continue", threadId=1)
    assert dap.event("exited")["body"]["exitCode"] == 1


def test_pause_and_launch_errors(dap: DapClient, project: Path, tmp_path: Path) -> None:
    r = dap.request("initialize", adapterID="strato")
    r = dap.request("launch", program=str(tmp_path / "missing.sol"), contract="X")
    assert not r["success"] and "missing.sol" in r["message"]
    spin = tmp_path / "spin.sol"
    spin.write_text("contract S { function go() public { uint i; while (true) { i++; } } }\n")
    r = dap.request("launch", program=str(spin), contract="S", function="nope")
    assert not r["success"] and r["message"].startswith("function:")
    r = dap.request("launch", program=str(spin), contract="S", function="go")
    assert r["success"]
    dap.request("configurationDone")
    dap.request("pause", threadId=1)
    assert dap.event("stopped")["body"]["reason"] == "pause"
    assert top(dap)["name"] == "S.go"
    assert dap.request("disconnect")["success"]
    assert dap.proc.wait(5) == 0


def test_exception_filter_turns_pause_on_failure_off(dap: DapClient, project: Path) -> None:
    r = dap.request("initialize", adapterID="strato")
    assert [f["filter"] for f in r["body"]["exceptionBreakpointFilters"]] == ["failures"]
    dap.request("launch", program=str(project / "main.sol"), test="Describe_Main.it_fails")
    dap.event("initialized")
    assert dap.request("setExceptionBreakpoints", filters=[])["success"]
    dap.request("configurationDone")
    out = dap.event("output")
    assert "x is not three" in out["body"]["output"]
    assert dap.event("exited")["body"]["exitCode"] == 1
    assert not [m for m in dap.seen if m.get("event") == "stopped"]
