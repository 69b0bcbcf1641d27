"""The call-trace recorder (app/node/solidvm/trace.py) on the engine's public API."""

from __future__ import annotations

import gc
import sys
from typing import Any

import pytest

from app.node.solidvm import ExecutionError, World
from app.node.solidvm.trace import MAX_TEXT
from tests.unit.solidvm.helpers import ALICE, IDENTITIES, compile_src, make_env

SRC = """
contract Target {
    uint public x;
    event Set(uint v);
    modifier positive(uint v) { require(v > 0, "zero"); _; }
    function set(uint v) positive(v) returns (uint) { x = helper(v); emit Set(x); return x; }
    function helper(uint v) internal returns (uint) { return v + 1; }
    function val() returns (uint) { return x; }
    function echo(string s) returns (string) { return s; }
}

contract Made {
    uint public v;
    constructor(bool fail) { v = 3; require(!fail, "made failed"); }
}

contract Caller {
    Target t;
    uint public count;
    constructor() { t = new Target(); }
    function low(uint v) returns (uint) {
        address(t).call("set", v);
        uint r = address(t).staticcall("val");
        return r;
    }
    function self(uint v) returns (uint) { return this.twice(v); }
    function twice(uint v) returns (uint) { return 2 * v; }
    function make(bool fail) returns (uint) {
        try new Made(fail) returns (Made m) { count = m.v(); } catch { count = 77; }
        return count;
    }
}
"""


def world(items: int = 5_000) -> World:
    w = World()
    for a, cert in IDENTITIES.items():
        w.register_identity(a, cert)
    w.trace_items = items
    return w


def deployed(w: World) -> str:
    unit = compile_src(SRC)
    res = w.deploy(unit.contracts["Caller"], {}, make_env(ALICE))
    return str(res.address)


def tree(w: World) -> dict[str, Any]:
    assert w.last_trace is not None
    out = w.last_trace.finish()
    assert out is not None
    return out


def frames(f: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in f["items"] if i["type"] == "call"]


def test_internal_calls_and_modifiers_are_not_frames_low_level_calls_are() -> None:
    w = world()
    addr = deployed(w)
    w.call(addr, "low", {"v": "4"}, make_env(ALICE))
    root = tree(w)["root"]
    set_, val = frames(root)
    assert (set_["kind"], set_["function"], set_["contract"]) == ("call", "set", "Target")
    assert set_["returns"] == [{"type": "uint256", "value": "5"}]
    assert [i["type"] for i in set_["items"]] == ["write", "event"]  # helper() is no frame
    assert (val["kind"], val["function"]) == ("staticcall", "val")
    assert root["returns"] == [{"type": "uint256", "value": "5"}]


def test_a_call_of_this_runs_in_the_callers_frame() -> None:
    """SolidVM runs ``this.f()`` as the code now running, msg.sender unchanged: no frame."""
    w = world()
    addr = deployed(w)
    w.call(addr, "self", {"v": "4"}, make_env(ALICE))
    root = tree(w)["root"]
    assert frames(root) == [] and root["returns"][0]["value"] == "8"


def test_a_failed_creation_inside_try_is_a_failed_create_frame() -> None:
    w = world()
    addr = deployed(w)
    res = w.call(addr, "make", {"fail": True}, make_env(ALICE))
    assert res.values == ["77"]
    root = tree(w)["root"]
    (made,) = frames(root)
    assert (made["kind"], made["contract"], made["status"]) == ("create", "Made", "failed")
    assert made["error"]["message"] == "solidity require failed: made failed"
    assert made["args"] == [{"name": "fail", "type": "bool", "value": "true"}]
    assert made["items"] == [
        {"type": "write", "variable": "v", "old": "0", "new": "3", "reverted": True}
    ]
    assert root["items"][-1] == {"type": "write", "variable": "count", "old": "0", "new": "77"}
    assert w.state(addr)["count"] == "77"  # the recorder's rollback changed nothing


def test_recording_changes_no_result() -> None:
    outs = []
    for items in (0, 5_000):
        w = world(items)
        addr = deployed(w)
        r1 = w.call(addr, "low", {"v": "4"}, make_env(ALICE))
        r2 = w.call(addr, "make", {"fail": False}, make_env(ALICE))
        outs.append((r1.values, r2.values, [e.args for e in r1.events], w.state(addr)))
    assert outs[0] == outs[1]


def test_off_means_no_recorder() -> None:
    w = world(0)
    addr = deployed(w)
    w.call(addr, "low", {"v": "4"}, make_env(ALICE))
    assert w.last_trace is None


def test_read_only_calls_are_not_recorded() -> None:
    w = world()
    addr = deployed(w)
    w.last_trace = None
    w.call(addr, "twice", {"v": "4"}, make_env(ALICE), read_only=True)
    assert w.last_trace is None


def test_a_failed_root_call_keeps_the_failure() -> None:
    w = world()
    addr = deployed(w)
    target = w.state(addr)["t"]
    with pytest.raises(ExecutionError):
        w.call(target, "set", {"v": "0"}, make_env(ALICE))
    root = tree(w)["root"]
    assert root["status"] == "failed" and root["error"]["kind"] == "require"
    assert root["error"]["position"]["name"] == "Target"


def test_the_item_cap_cuts_with_a_marker() -> None:
    w = world(items=3)
    addr = deployed(w)
    w.call(addr, "low", {"v": "4"}, make_env(ALICE))
    t = tree(w)
    assert t["truncated"] is True and t["omitted"] >= 1
    markers = [i for f in [t["root"], *frames(t["root"])] for i in f["items"]]
    assert any(i["type"] == "truncated" for i in markers)


def test_long_values_are_cut() -> None:
    w = world()
    addr = deployed(w)
    target = w.state(addr)["t"]
    w.call(target, "echo", {"s": "y" * 5000}, make_env(ALICE))
    arg = tree(w)["root"]["args"][0]["value"]
    assert len(arg) < MAX_TEXT + 40 and arg.endswith("(5000 characters)")


def test_a_failure_in_a_multi_file_source_names_its_file_and_line() -> None:
    files = {
        "a_main.sol": "contract Main {\n    Lib l;\n"
        "    constructor() { l = new Lib(); }\n    function go() { l.check(5); }\n}\n",
        "b_lib.sol": "contract Lib {\n    function check(uint v) {\n"
        '        require(v > 10, "small");\n    }\n}\n',
    }
    unit = compile_src(files)
    w = world()
    addr = w.deploy(unit.contracts["Main"], {}, make_env(ALICE)).address
    assert addr is not None
    with pytest.raises(ExecutionError) as exc:
        w.call(addr, "go", {}, make_env(ALICE))
    root = tree(w)["root"]
    (lib,) = frames(root)
    pos = lib["error"]["position"]
    assert (pos["name"], pos["file"], pos["fileLine"], pos["column"]) == ("Lib", "b_lib.sol", 3, 9)
    where = exc.value.where
    assert where is not None and pos["line"] == where[1] == 9  # the joined text's line
    assert root["error"]["position"] == pos  # its callers show the innermost place


BOOK = """
contract Book {
    mapping(address => uint) public owed;
    mapping(address => uint) public paid;
    function owe(address who, uint v) { owed[who] = v; }
    function pay(address who, uint v) { paid[who] = paid[who] + v; owed[who] = owed[who] - v; }
    function forgive() { owed = paid; }
}
"""


def test_storage_mappings_are_named_right_across_transactions_and_contracts() -> None:
    """Where a written mapping sits in storage is remembered from one transaction to the next
    (trace.py's _TOP): still right when a variable holds another mapping since, and for two
    contracts of the same code."""
    w = world()
    unit = compile_src(BOOK)
    one = str(w.deploy(unit.contracts["Book"], {}, make_env(ALICE)).address)
    two = str(w.deploy(unit.contracts["Book"], {}, make_env(ALICE)).address)
    bob = "b0b0000000000000000000000000000000000b0b"

    def writes(addr: str, fn: str, args: dict[str, Any]) -> list[tuple[Any, ...]]:
        w.call(addr, fn, args, make_env(ALICE))
        root = tree(w)["root"]
        assert root["address"] == addr
        return [
            (i["variable"], i.get("key"), i["old"], i["new"])
            for i in root["items"]
            if i["type"] == "write"
        ]

    assert writes(one, "owe", {"who": bob, "v": 5}) == [("owed", [bob], "0", "5")]
    assert writes(two, "owe", {"who": bob, "v": 9}) == [("owed", [bob], "0", "9")]
    assert writes(one, "pay", {"who": bob, "v": 2}) == [
        ("paid", [bob], "0", "2"),
        ("owed", [bob], "5", "3"),
    ]
    replaced = w.accounts[("", int(one, 16))].storage["owed"]
    w.call(one, "forgive", {}, make_env(ALICE))  # owed now holds a copy of paid
    assert writes(one, "owe", {"who": bob, "v": 4}) == [("owed", [bob], "2", "4")]
    gc.collect()
    assert sys.getrefcount(replaced) == 2  # only ours: remembered places keep nothing alive
    assert writes(one, "pay", {"who": bob, "v": 1}) == [
        ("paid", [bob], "2", "3"),
        ("owed", [bob], "4", "3"),
    ]
    assert writes(two, "pay", {"who": bob, "v": 9}) == [
        ("paid", [bob], "0", "9"),
        ("owed", [bob], "9", "0"),
    ]
