"""The step debugger's engine: debug compile, stepping, breakpoints, failures, inspection.

Runs debug sessions in-process on a fresh world (no node): each test drives one session the way
the REST routes and the debug adapter do, through the session's control and inspection calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.client.bundler import bundle
from app.node.debug import inspection as I
from app.node.debug.compiler import ACTIVE, compile_debug
from app.node.debug.engine import DebugSession, NotPaused
from app.node.debug.launch import LaunchError, fresh_world, make_session, parse_launch
from app.node.debug.sources import SourceMap
from app.node.solidvm import World, compile_source
from app.node.solidvm.world import TxEnv

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
    enum Color { Red, Green }
    struct Item { uint id; string name; }
    uint public total;
    int public delta = -5;
    bool public flag = true;
    string public label = "hi";
    address public owner;
    bytes public raw;
    Color public color = Color.Green;
    Item public item;
    uint[] public list;
    mapping(address => uint) public balances;
    Counter c;
    modifier counted() {
        total += 1;
        _;
    }
    constructor() {
        owner = msg.sender;
        c = new Counter();
        item = Item(7, "seven");
        list.push(1);
        list.push(2);
        balances[msg.sender] = 10;
        raw = hex"beef";
    }
    function run(uint k) public counted returns (uint) {
        uint acc = 0;
        for (uint i = 0; i < k; i++) {
            acc += i;
        }
        uint r = c.bump(acc);
        return r;
    }
    function fail(uint k) public returns (uint) {
        uint local = k + 1;
        require(k < 3, "k too big");
        return local;
    }
    function caught() public returns (uint) {
        try c.bump(1) returns (uint v) {
            return v;
        } catch {
            return 0;
        }
    }
}
"""

TESTS = """contract Describe_Main {
    uint x;
    function beforeEach() public {
        x = 4;
    }
    function it_adds() public returns (bool) {
        uint y = x + 1;
        return y == 5;
    }
    function it_fails() public {
        require(x == 5, "x is not five");
    }
}
"""


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> SourceMap:
    d = tmp_path_factory.mktemp("dbg")
    (d / "lib.sol").write_text(LIB)
    (d / "main.sol").write_text(MAIN)
    b = bundle(d / "main.sol")
    return SourceMap.bundled(b.source, b.files)


def lib(sm: SourceMap) -> str:
    return next(n for n in sm.names if n.endswith("lib.sol"))


def main(sm: SourceMap) -> str:
    return next(n for n in sm.names if n.endswith("main.sol"))


def start(sm: SourceMap, **body: Any) -> DebugSession:
    world, env = fresh_world()
    s = make_session(parse_launch(body, sm), world, env)
    s.start()
    return s


@pytest.fixture
def sessions() -> Iterator[list[DebugSession]]:
    made: list[DebugSession] = []
    yield made
    for s in made:
        s.stop()
        s.join(5)


def top(s: DebugSession) -> dict[str, Any]:
    assert s.wait_stopped(5) == "paused", s.result
    return s.on_thread(lambda: I.stack_trace(s))[0]


def where(s: DebugSession) -> tuple[str, int]:
    t = top(s)
    return Path(t["file"]).name, t["line"]


def values(s: DebugSession, frame: int, scope: int) -> dict[str, dict[str, Any]]:
    def read() -> dict[str, dict[str, Any]]:
        ref = I.scopes(s, frame)[scope]["variablesReference"]
        return {v["name"]: v for v in I.variables(s, ref)}

    return s.on_thread(read)


def test_normal_compile_has_no_hooks() -> None:
    """The ordinary compile is untouched: a debug tracer on the thread sees nothing of it."""
    seen: list[int] = []

    class Spy:
        def on_stmt(self, fr: Any, info: Any) -> None:
            seen.append(info.line)

        def on_fail(self, fr: Any, info: Any, exc: BaseException) -> None:
            pass

        def enter(self, fr: Any, label: str, kind: str) -> None:
            pass

        def leave(self, fr: Any) -> None:
            pass

        def guard(self, catcher: Any) -> None:
            pass

    w = World()
    env = TxEnv(sender="a1" * 20)
    ACTIVE.tracer = Spy()
    try:
        plain = compile_source(LIB)
        addr = w.deploy(plain.contracts["Counter"], {}, env).address
        assert addr is not None
        w.call(addr, "bump", {"by": 2}, env)
        assert seen == []
        debug = compile_debug(LIB)
        addr = w.deploy(debug.contracts["Counter"], {}, env).address
        assert addr is not None
        w.call(addr, "bump", {"by": 2}, env)
        assert seen == [4, 5]
    finally:
        ACTIVE.tracer = None


def test_stop_on_entry_then_step_in_over_out_through_modifier_and_call(
    sources: SourceMap, sessions: list[DebugSession]
) -> None:
    s = start(sources, contract="Main", function="run", args={"k": 2}, stopOnEntry=True)
    sessions.append(s)
    assert where(s) == ("main.sol", 17)  # the modifier's first statement
    assert s.reason == "entry"
    s.step_over()
    assert where(s) == ("main.sol", 18)  # `_;`
    s.step_in()
    assert where(s) == ("main.sol", 30)  # into the function body
    frames = s.on_thread(lambda: I.stack_trace(s))
    assert [f["name"] for f in frames] == ["Main.run", "Main.counted (modifier)"]
    s.step_over()
    assert where(s) == ("main.sol", 31)  # the for statement
    s.step_over()
    assert where(s) == ("main.sol", 32)  # its body: acc += i (i = 0)
    s.step_over()
    assert where(s) == ("main.sol", 32)  # next iteration
    s.step_over()
    assert where(s) == ("main.sol", 34)  # uint r = c.bump(acc);
    s.step_in()
    assert where(s) == ("lib.sol", 4)  # into the other contract
    t = top(s)
    assert t["contract"] == "Counter" and t["name"] == "Counter.bump"
    s.step_out()
    assert where(s) == ("main.sol", 35)  # back in the caller, after the call's statement
    assert s.on_thread(lambda: I.evaluate(s, 1, "r"))["result"] == "1"
    s.step_out()  # out of the body: the modifier has nothing after `_;`, the run ends
    assert s.wait_stopped(5) == "finished"
    assert s.result is not None and s.result["values"] == ["1"]


def test_breakpoint_in_imported_file_and_conditional(
    sources: SourceMap, sessions: list[DebugSession]
) -> None:
    bps = [
        {"file": main(sources), "line": 32, "condition": "i == 2"},
        {"file": lib(sources), "line": 4},
    ]
    s = start(sources, contract="Main", function="run", args={"k": 4}, breakpoints=bps)
    sessions.append(s)
    assert where(s) == ("main.sol", 32)
    assert s.reason == "breakpoint"
    assert s.on_thread(lambda: I.evaluate(s, 1, "i"))["result"] == "2"
    s.resume()
    assert where(s) == ("lib.sol", 4)
    assert s.on_thread(lambda: I.evaluate(s, 1, "by"))["result"] == "6"
    # the caller's frame is still inspectable
    assert s.on_thread(lambda: I.evaluate(s, 2, "acc"))["result"] == "6"
    s.resume()
    assert s.wait_stopped(5) == "finished"


def test_breakpoint_by_base_name_and_unknown_lines(
    sources: SourceMap, sessions: list[DebugSession]
) -> None:
    s = start(sources, contract="Main", function="run", args={"k": 1}, stopOnEntry=True)
    sessions.append(s)
    top(s)
    (bp,) = s.set_breakpoints("lib.sol", [(4, None)])
    assert bp.verified
    (bad,) = s.set_breakpoints("nowhere.sol", [(4, None)])
    assert not bad.verified
    s.resume()
    assert where(s) == ("lib.sol", 4)


def test_pause_on_failure_before_unwinding(
    sources: SourceMap, sessions: list[DebugSession]
) -> None:
    s = start(sources, contract="Main", function="fail", args={"k": 5})
    sessions.append(s)
    assert where(s) == ("main.sol", 39)
    assert s.reason == "exception"
    assert "k too big" in s.description
    # the frame is still there: its locals and the state before the rollback
    assert s.on_thread(lambda: I.evaluate(s, 1, "local"))["result"] == "6"
    s.resume()
    assert s.wait_stopped(5) == "finished"
    assert s.result is not None and s.result["status"] == "failed"
    assert s.result["sourcePosition"]["line"] == 39


def test_no_pause_on_failure_when_off(sources: SourceMap, sessions: list[DebugSession]) -> None:
    s = start(sources, contract="Main", function="fail", args={"k": 5}, pauseOnFailure=False)
    sessions.append(s)
    assert s.wait_stopped(5) == "finished"


def test_evaluate_is_read_only_and_reports_errors(
    sources: SourceMap, sessions: list[DebugSession]
) -> None:
    bps = [{"file": main(sources), "line": 34}]
    s = start(sources, contract="Main", function="run", args={"k": 3}, breakpoints=bps)
    sessions.append(s)
    assert where(s) == ("main.sol", 34)

    def ev(text: str) -> dict[str, Any]:
        return s.on_thread(lambda: I.evaluate(s, 1, text))

    assert ev("acc * 10 + total")["result"] == "31"
    assert ev("item.name")["result"] == '"seven"'
    assert ev("balances[msg.sender]")["result"] == "10"
    assert ev("c.n()")["result"] == "0"  # a call into another contract
    assert "invalid write" in ev("total = 9")["error"]
    assert ev("total")["result"] == "1"
    assert "undeclared identifier" in ev("nope")["error"]
    assert "error" in ev("acc +")
    lst = ev("list")
    kids = s.on_thread(lambda: I.variables(s, lst["variablesReference"]))
    assert [k["value"] for k in kids] == ["1", "2"]


def test_variables_of_every_type(sources: SourceMap, sessions: list[DebugSession]) -> None:
    bps = [{"file": main(sources), "line": 34}]
    s = start(sources, contract="Main", function="run", args={"k": 2}, breakpoints=bps)
    sessions.append(s)
    top(s)
    local = values(s, 1, 0)
    assert {n: (v["value"], v["type"]) for n, v in local.items()} == {
        "k": ("2", "uint256"),
        "acc": ("1", "uint256"),
    }
    st = values(s, 1, 1)
    shown = {n: (v["value"], v["type"]) for n, v in st.items()}
    assert shown["total"] == ("1", "uint256")
    assert shown["delta"] == ("-5", "int256")
    assert shown["flag"] == ("true", "bool")
    assert shown["label"] == ('"hi"', "string")
    assert shown["owner"][1] == "address" and shown["owner"][0].startswith("0xa11ce")
    assert shown["raw"] == ("0xbeef", "bytes")
    assert shown["color"] == ("Color.Green", "Color")
    assert shown["item"][1] == "Item"
    assert shown["list"] == ("uint256[] (length 2)", "uint256[]")
    assert shown["balances"][1] == "mapping(address => uint256)"

    def kids(name: str) -> dict[str, str]:
        ref = st[name]["variablesReference"]
        assert ref > 0
        return {v["name"]: v["value"] for v in s.on_thread(lambda: I.variables(s, ref))}

    assert kids("item") == {"id": "7", "name": '"seven"'}
    assert kids("list") == {"[0]": "1", "[1]": "2"}
    (key,) = kids("balances")
    assert key.startswith("[0xa11ce")
    env = values(s, 1, 2)
    assert env["msg.sender"]["value"].startswith("0xa11ce")
    assert env["this"]["type"] == "Main"


def test_describe_test_with_hooks(sessions: list[DebugSession]) -> None:
    sm = SourceMap.single("t.sol", TESTS)
    s = start(sm, test="Describe_Main.it_adds", stopOnEntry=True)
    sessions.append(s)
    assert where(s) == ("t.sol", 7)  # the test's first statement, after beforeEach
    assert s.on_thread(lambda: I.evaluate(s, 1, "x"))["result"] == "4"
    s.resume()
    assert s.wait_stopped(5) == "finished"
    assert s.result is not None and s.result["status"] == "passed"
    s2 = start(sm, test="Describe_Main.it_fails")
    sessions.append(s2)
    assert where(s2) == ("t.sol", 11)
    s2.resume()
    assert s2.wait_stopped(5) == "finished"
    assert s2.result is not None and s2.result["status"] == "failed"


def test_pause_and_stop_a_running_loop(sessions: list[DebugSession]) -> None:
    src = "contract L { function spin() public { uint i = 0; while (true) { i += 1; } } }"
    sm = SourceMap.single("l.sol", src)
    s = start(sm, contract="L", function="spin")
    sessions.append(s)
    s.pause()
    assert s.wait_stopped(5) == "paused" and s.reason == "pause"
    s.stop()
    assert s.wait_stopped(5) == "finished"
    assert s.result is not None and s.result["status"] == "stopped"
    with pytest.raises(NotPaused):
        s.resume()


def test_launch_errors_name_the_field(sources: SourceMap) -> None:
    for body, field in [
        ({}, "contract"),
        ({"contract": "Main", "args": [1]}, "args"),
        ({"test": "nope"}, "test"),
        ({"contract": "Main", "stopOnEntry": "yes"}, "stopOnEntry"),
        ({"contract": "Main", "breakpoints": [{"file": "x", "line": 0}]}, "breakpoints[0].line"),
    ]:
        with pytest.raises(LaunchError) as err:
            parse_launch(body, sources)
        assert err.value.field == field
    with pytest.raises(LaunchError) as err:
        parse_launch({"contract": "Main"})
    assert err.value.field == "source"
    world, env = fresh_world()
    with pytest.raises(LaunchError) as err:
        make_session(parse_launch({"contract": "Nope"}, sources), world, env)
    assert err.value.field == "contract"
    bad = SourceMap.single("b.sol", "contract B { function f() public { x = 1; } }")
    with pytest.raises(LaunchError) as err:
        make_session(parse_launch({"contract": "B"}, bad), world, env)
    assert err.value.field == "source" and "b.sol:1:" in str(err.value)


def test_idle_sessions_are_stopped_and_forgotten(sessions: list[DebugSession]) -> None:
    from app.node.debug.routes import DebugSessions, Entry

    sm = SourceMap.single("t.sol", TESTS)
    s = start(sm, test="Describe_Main.it_adds", stopOnEntry=True)
    sessions.append(s)
    assert s.wait_stopped(5) == "paused"
    book = DebugSessions(None, idle=60.0)  # type: ignore[arg-type]  # reaping needs no ledger
    book.entries["1"] = Entry("1", "alice", s)
    book.reap()
    assert list(book.entries) == ["1"]  # used just now
    s.last_used -= 61
    book.reap()
    assert book.entries == {}
    assert s.wait_stopped(5) == "finished"
    assert s.result is not None and s.result["status"] == "stopped"


def test_log_lines_and_the_result_are_output_events(sessions: list[DebugSession]) -> None:
    src = 'contract G { function hi(uint n) public returns (uint) { log("hello", n); return n; } }'
    s = start(SourceMap.single("g.sol", src), contract="G", function="hi", args={"n": 3})
    sessions.append(s)
    assert s.wait_stopped(5) == "finished"
    outs = [e.body["output"] for e in s.events if e.kind == "output"]
    assert outs[:2] == ["hello\n", "3\n"]  # what log(...) printed, a line per value
    assert outs[-1] == "G.hi returned ['3']\n"
    assert s.events[-1].kind == "terminated"


def test_a_printing_run_keeps_only_the_newest_events(
    sessions: list[DebugSession], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session's event list grew for its whole life (review): the newest MAX_EVENTS are
    kept, numbered by their place overall (a smaller bound here: one run's log lines are
    themselves bounded)."""
    from app.node.debug import engine

    monkeypatch.setattr(engine, "MAX_EVENTS", 100)
    MAX_EVENTS = 100
    src = (
        "contract L { function f() public returns (uint) {"
        " for (uint i = 0; i < 150; i++) { log(i); } return 7; } }"
    )
    s = start(SourceMap.single("l.sol", src), contract="L", function="f", args={})
    sessions.append(s)
    assert s.wait_stopped(10) == "finished"
    assert len(s.events) == MAX_EVENTS
    last = s.last_seq()
    assert last > MAX_EVENTS  # older ones were let go
    assert [e.seq for e in s.events] == list(range(last - MAX_EVENTS + 1, last + 1))
    assert s.events_after(last - 2) == s.events[-2:]
    assert s.events_after(0)[0].seq == last - MAX_EVENTS + 1  # a reader far behind
    assert s.wait_events(last, 0.01) == []


CATCHING = """contract Thrower {
    function boom(uint k) public returns (uint) {
        require(k < 3, "boom");
        return k;
    }
    function panic(uint k) public returns (uint) {
        uint[] memory a = new uint[](1);
        return a[k];
    }
}
contract Catcher {
    Thrower t;
    uint public seen;
    constructor() {
        t = new Thrower();
    }
    function run(uint k) public returns (uint) {
        try t.boom(k) returns (uint v) {
            seen = v;
        } catch Error(string memory reason) {
            seen = 100;
        }
        try {
            t.panic(k);
        } catch {
            seen += 1;
        }
        try t.panic(k) returns (uint v) {
            seen = v;
        } catch Error(string memory reason) {
            seen = 200;
        }
        return seen;
    }
}
"""


def test_pause_on_failure_skips_failures_a_try_catches(
    sessions: list[DebugSession],
) -> None:
    """Pause on failure stops where a failure no `try` up the stack catches fires (an index
    out of range that a `catch Error` clause does not take), not at the two caught before."""
    body = {"source": CATCHING, "contract": "Catcher", "function": "run", "args": {"k": 5}}
    world, env = fresh_world()
    s = make_session(parse_launch(body), world, env)
    s.start()
    sessions.append(s)
    t = top(s)
    assert s.reason == "exception"
    assert t["name"] == "Thrower.panic" and t["line"] == 8
    # the caller's frame: both caught failures already ran their clauses
    assert s.on_thread(lambda: I.evaluate(s, 2, "seen"))["result"] == "101"
    s.resume()
    assert s.wait_stopped(5) == "finished"
    assert s.result is not None and s.result["status"] == "failed"
