"""Call traces of transactions (issue 28, part 1), served by the sandbox's trace route.

One node for the module (traces on, the default). Each test sends real transactions over
loopback and reads ``GET /strato-api/eth/v1.2/transaction/trace?hash=`` back.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.client.http import StratoClient
from app.client.models import TxRequest
from app.client.traces import NOT_KEPT, UNKNOWN, TraceUnavailable
from tests.integration.conftest import make_node
from tests.integration.node_fixture import (
    ROOT,
    RunningNode,
    call_tx,
    create_chain,
    deploy,
    submit,
    upload_tx,
    wait_for,
    wait_results,
)

TRACE = "/strato-api/eth/v1.2/transaction/trace"

SRC = """
library Maths {
    function twice(uint x) returns (uint) { return 2 * x; }
}

contract Counter {
    uint public n;
    mapping(string => uint) public byNote;
    event Bumped(uint by, string note);

    function bump(uint by, string note) returns (uint) {
        n += by;
        byNote[note] = by;
        emit Bumped(by, note);
        require(by < 100, "too big");
        return n;
    }
}

contract Shop {
    Counter public counter;
    mapping(address => uint) public paid;
    uint public total;
    event Bought(address who, uint amount);

    constructor() { counter = new Counter(); }

    function buy(uint amount) returns (uint) {
        paid[msg.sender] = amount;
        uint doubled = Maths.twice(amount);
        try counter.bump(doubled, "shop") returns (uint r) {
            total = r;
        } catch {
            total = 999;
        }
        emit Bought(msg.sender, amount);
        return total;
    }

    function fail(uint amount) {
        counter.bump(amount, "direct");
        total = amount;
    }
}

contract Logic {
    uint public stored;
    event Stored(uint v);
    function put(uint v) returns (uint) { stored = v; emit Stored(v); return v + 1; }
}

contract Proxy {
    address logicContract;
    constructor(address l) { logicContract = l; }
    fallback(variadic args) external returns (variadic) {
        return logicContract.delegatecall(msg.sig, args);
    }
}
"""


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, "--trace-keep", "40", name="traces")
    try:
        yield n
    finally:
        n.stop()


@pytest.fixture(scope="module")
def shop(node: RunningNode) -> str:
    return deploy(node.client("alice"), "Shop", SRC)


def trace_of(node: RunningNode, tx_hash: str, user: str = "alice") -> dict[str, Any]:
    r = node.client(user).get(TRACE, params={"hash": tx_hash})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def send(node: RunningNode, *txs: dict[str, Any], user: str = "alice") -> list[dict[str, Any]]:
    """Submit without resolve (a lone failure would answer 422), then wait for the results."""
    c = node.client(user)
    sent = submit(c, *txs, resolve=False)
    res: list[dict[str, Any]] = wait_results(c, [s["hash"] for s in sent])
    return res


def calls(frame: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in frame["items"] if i["type"] == "call"]


def shown(items: list[dict[str, Any]]) -> list[str]:
    """Items in order, as short text: what the assertions compare."""
    out = []
    for i in items:
        if i["type"] == "call":
            out.append(f"call {i['contract']}.{i['function']} {i['status']}")
        elif i["type"] == "event":
            out.append(f"event {i['name']}" + (" reverted" if i.get("reverted") else ""))
        elif i["type"] == "write":
            key = "[" + "][".join(i["key"]) + "]" if "key" in i else ""
            out.append(
                f"write {i['variable']}{key} {i.get('old')}->{i.get('new')}"
                + (" reverted" if i.get("reverted") else "")
            )
        else:
            out.append(i["type"])
    return out


def test_nested_calls_library_and_events_in_order(node: RunningNode, shop: str) -> None:
    res = send(node, call_tx(shop, "buy", {"amount": 7}))
    assert res[0]["status"] == "Success"
    t = trace_of(node, res[0]["hash"])
    assert t["hash"] == res[0]["hash"] and t["truncated"] is False and t["frames"] == 3
    root = t["root"]
    alice = node.address("alice")
    assert (root["kind"], root["contract"], root["function"], root["address"]) == (
        "call",
        "Shop",
        "buy",
        shop,
    )
    assert root["sender"] == alice and root["value"] == "0" and root["status"] == "ok"
    assert root["args"] == [{"name": "amount", "type": "uint256", "value": "7"}]
    assert root["returns"] == [{"type": "uint256", "value": "14"}]
    assert root["steps"] > 0
    assert shown(root["items"]) == [
        f"write paid[{alice}] 0->7",
        "call Shop.twice ok",
        "call Counter.bump ok",
        "write total 0->14",
        "event Bought",
    ]
    lib, bump = calls(root)
    assert lib["kind"] == "library" and lib["codeContract"] == "Maths"
    assert lib["returns"] == [{"type": "uint256", "value": "14"}]
    assert bump["kind"] == "call" and bump["sender"] == shop
    assert bump["args"] == [
        {"name": "by", "type": "uint256", "value": "14"},
        {"name": "note", "type": "string", "value": "shop"},
    ]
    assert shown(bump["items"]) == ["write n 0->14", "write byNote[shop] 0->14", "event Bumped"]
    assert bump["items"][2]["args"][1] == {"name": "note", "type": "string", "value": "shop"}
    assert 0 < bump["steps"] < root["steps"]


def test_a_revert_caught_by_try_keeps_its_frame_marked(node: RunningNode, shop: str) -> None:
    res = send(node, call_tx(shop, "buy", {"amount": 70}))
    assert res[0]["status"] == "Success"
    root = trace_of(node, res[0]["hash"])["root"]
    assert root["status"] == "ok" and root["returns"][0]["value"] == "999"
    assert shown(root["items"])[1:] == [
        "call Shop.twice ok",
        "call Counter.bump failed",
        "write total 14->999",
        "event Bought",
    ]
    bump = calls(root)[1]
    assert bump["error"]["kind"] == "require"
    assert bump["error"]["message"] == "solidity require failed: too big"
    assert bump["error"]["position"]["name"] == "Counter"
    assert bump["error"]["position"]["line"] > 0
    # what the failed frame did is shown, marked as undone
    assert shown(bump["items"]) == [
        "write n 14->154 reverted",
        "write byNote[shop] 14->140 reverted",
        "event Bumped reverted",
    ]


def test_a_failed_transaction_has_its_trace_and_position(node: RunningNode, shop: str) -> None:
    res = send(node, call_tx(shop, "fail", {"amount": 500}))
    assert res[0]["status"] == "Failure"
    root = trace_of(node, res[0]["hash"])["root"]
    assert root["status"] == "failed"
    assert root["error"]["message"] == "solidity require failed: too big"
    pos = res[0]["txResult"]["sourcePosition"]
    assert root["error"]["position"] == pos
    (bump,) = calls(root)
    assert bump["status"] == "failed"
    assert shown(bump["items"])[-1] == "event Bumped reverted"


def test_an_inner_success_under_a_failure_is_reverted(node: RunningNode) -> None:
    src = """
    contract Inner { uint public v; event Set(uint v);
        function set(uint x) { v = x; emit Set(x); } }
    contract Outer { Inner i; constructor() { i = new Inner(); }
        function go() { i.set(5); require(false, "outer says no"); } }
    """
    addr = deploy(node.client("alice"), "Outer", src)
    res = send(node, call_tx(addr, "go"))
    assert res[0]["status"] == "Failure"
    root = trace_of(node, res[0]["hash"])["root"]
    (inner,) = calls(root)
    assert inner["status"] == "reverted"  # it returned, but its caller failed
    assert shown(inner["items"]) == ["write v 0->5 reverted", "event Set reverted"]


def test_a_deployment_traces_its_constructors(node: RunningNode) -> None:
    res = send(node, upload_tx("Shop", SRC))
    root = trace_of(node, res[0]["hash"])["root"]
    assert (root["kind"], root["contract"], root["function"]) == ("create", "Shop", "constructor")
    (made,) = calls(root)
    assert (made["kind"], made["contract"], made["sender"]) == (
        "create",
        "Counter",
        root["address"],
    )
    assert shown(root["items"])[-1].startswith("write counter 0000")


def test_a_delegatecall_through_a_proxy(node: RunningNode) -> None:
    c = node.client("alice")
    logic = deploy(c, "Logic", SRC)
    fwd = deploy(c, "Proxy", SRC, {"l": logic})
    res = send(node, call_tx(fwd, "put", {"v": 41}, name="Proxy"))
    assert res[0]["status"] == "Success", res
    root = trace_of(node, res[0]["hash"])["root"]
    assert (root["contract"], root["address"]) == ("Proxy", fwd)
    (inner,) = calls(root)
    assert (inner["kind"], inner["contract"], inner["function"], inner["address"]) == (
        "delegatecall",
        "Logic",
        "put",
        fwd,
    )
    assert inner["sender"] == node.address("alice")
    assert inner["returns"] == [{"type": "uint256", "value": "42"}]
    assert shown(inner["items"]) == ["write stored 0->41", "event Stored"]


def test_private_chain_traces_only_for_members(node: RunningNode) -> None:
    alice = node.client("alice")
    src = "contract P { uint x; function set(uint v) { x = v; } }"
    chain = create_chain(
        alice, node.address("alice"), "contract Gov { }", "Gov", label="trace-test"
    )
    r = alice.post(
        "/svc/v2.3/transaction",
        params={"chainid": chain, "resolve": "true"},
        json={"txs": [upload_tx("P", src)], "txParams": {}},
    )
    assert r.status_code == 200 and r.json()[0]["status"] == "Success", r.text
    h = r.json()[0]["hash"]
    assert trace_of(node, h, "alice")["root"]["chainId"] == chain
    assert trace_of(node, h, "carol")["root"]["contract"] == "P"  # Acme: a member
    r = node.client("bob").get(TRACE, params={"hash": h})  # Globex: not a member
    assert r.status_code == 404 and "unknown transaction" in r.text


def test_errors_name_what_is_wrong(node: RunningNode) -> None:
    c = node.client("alice")
    r = c.get(TRACE)
    assert r.status_code == 400 and "hash" in r.text
    r = c.get(TRACE, params={"hash": "12"})
    assert r.status_code == 400 and "64 hex digits" in r.text
    r = c.get(TRACE, params={"hash": "ab" * 32})
    assert r.status_code == 404 and "unknown transaction" in r.text
    bob = node.address("bob")
    res = send(node, {"type": "TRANSFER", "payload": {"toAddress": bob, "value": 1}})
    r = c.get(TRACE, params={"hash": res[0]["hash"]})
    assert r.status_code == 404 and "no trace kept" in r.text


def test_writes_to_nested_and_array_storage(node: RunningNode) -> None:
    src = """
    contract Book { struct Entry { uint qty; string tag; }
        mapping(address => mapping(uint => uint)) grid; uint[] list; Entry e;
        function go() { grid[msg.sender][3] = 9; list.push(4); list.push(5); list[0] = 6;
            e.qty = 2; e.tag = "x"; } }
    """
    addr = deploy(node.client("alice"), "Book", src)
    res = send(node, call_tx(addr, "go"))
    root = trace_of(node, res[0]["hash"])["root"]
    me = node.address("alice")
    s = shown(root["items"])
    assert s[0] == f"write grid[{me}][3] 0->9"
    assert s[1:3] == ["write list None->4", "write list None->5"]
    assert root["items"][1]["op"] == "push"
    assert s[3:] == ["write list[0] 4->6", "write e[qty] 0->2", "write e[tag] ->x"]


def test_size_cap_truncates_with_a_marker_and_retention_keeps_the_last(
    node: RunningNode,
) -> None:
    src = """
    contract Loop { mapping(uint => uint) m; event Tick(uint i);
        function go(uint n) { for (uint i = 0; i < n; i++) { m[i] = i + 1; emit Tick(i); } } }
    """
    addr = deploy(node.client("alice"), "Loop", src)
    res = send(node, call_tx(addr, "go", {"n": 4000}))
    assert res[0]["status"] == "Success"
    t = trace_of(node, res[0]["hash"])
    assert t["truncated"] is True and t["omitted"] > 0
    items = t["root"]["items"]
    assert len(items) <= 5_000
    assert items[-1]["type"] == "truncated" and items[-1]["omitted"] == t["omitted"]
    first = res[0]["hash"]

    def gone() -> httpx.Response | None:  # the writer thread stores just after the block
        r = node.client("alice").get(TRACE, params={"hash": first})
        return r if r.status_code == 404 else None

    # --trace-keep 40: forty more transactions push it out, once the writer has stored them in
    # a batch of their own (traces go a writer's batch at a time, and forty that came within
    # its gathering delay share the batch of the first)
    for _ in range(5):
        hashes = [h["hash"] for h in send(node, *[call_tx(addr, "go", {"n": 1})] * 40)]
        try:
            r = wait_for(gone, 2, "the oldest trace to be dropped")
            break
        except AssertionError:
            continue
    else:
        raise AssertionError("the oldest trace was kept past 200 more")
    assert "no trace kept" in r.text and "--trace-keep" in r.text
    assert trace_of(node, hashes[-1])["root"]["function"] == "go"
    assert trace_of(node, hashes[0])["root"]["function"] == "go"


# ------------------------------------------------------------------ client and command line


def env_for(home: Path) -> dict[str, str]:
    """No saved profile, keyring or STRATOSCOPE_* setting of the user's interferes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STRATOSCOPE_")}
    env["XDG_CONFIG_HOME"] = str(home / "config")
    env["XDG_DATA_HOME"] = str(home / "data")
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    env.pop("NO_COLOR", None)
    return env


def app_cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env=env_for(home),
        stdin=subprocess.DEVNULL,
    )


def test_the_client_returns_the_tree_and_says_why_there_is_none(
    node: RunningNode, shop: str
) -> None:
    res = send(node, call_tx(shop, "buy", {"amount": 3}))
    tok = node.token("alice")

    async def provide() -> str:
        return tok

    async def go() -> tuple[dict[str, Any], TraceUnavailable, TraceUnavailable]:
        async with StratoClient(node.url, provide) as client:
            tree = await client.trace("0x" + res[0]["hash"])
            with pytest.raises(TraceUnavailable) as unknown:
                await client.trace("cd" * 32)
            bob = node.address("bob")
            sent = await client.submit([TxRequest.transfer(bob, 1)])
            with pytest.raises(TraceUnavailable) as none:
                await client.trace(sent[0].hash)
            return tree, unknown.value, none.value

    tree, unknown, none = asyncio.run(go())
    assert tree["root"]["function"] == "buy" and tree["hash"] == res[0]["hash"]
    assert unknown.reason == UNKNOWN and unknown.status == 404
    assert none.reason == NOT_KEPT and "no trace kept" in none.message


def test_the_trace_command_prints_the_tree_indented_by_depth(
    node: RunningNode, shop: str, tmp_path: Path
) -> None:
    res = send(node, call_tx(shop, "buy", {"amount": 70}))
    r = app_cli(tmp_path, "trace", res[0]["hash"], "--node", node.url)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "\x1b[" not in r.stdout  # not a terminal: no colours
    assert lines[0].endswith("::buy(amount: 70)") and lines[0].startswith("[")
    assert "Shop(" in lines[0]
    bump = next(i for i, ln in enumerate(lines) if "::bump(" in ln)
    assert lines[bump].startswith("  ├─ [") and 'note: "shop"' in lines[bump]
    assert lines[bump + 1].startswith("  │  ├─ write n: ")
    assert lines[bump + 1].endswith(" (reverted)")
    assert lines[bump + 3].startswith("  │  ├─ emit Bumped(by: 140")
    assert lines[bump + 4].startswith(
        "  │  └─ ← [Fail] solidity require failed: too big at Counter:"
    )
    assert lines[bump + 5].startswith("  ├─ write total: ") and lines[bump + 5].endswith("→ 999")
    assert any(ln.startswith("  ├─ [") and "[library Maths]" in ln for ln in lines)
    assert lines[-1] == "  └─ ← [Return] 999"
    coloured = app_cli(tmp_path, "trace", res[0]["hash"], "--node", node.url, "--color", "always")
    assert "\x1b[31m← [Fail]" in coloured.stdout


def test_the_trace_command_on_unknown_and_bad_hashes(node: RunningNode, tmp_path: Path) -> None:
    r = app_cli(tmp_path, "trace", "ef" * 32, "--node", node.url)
    assert r.returncode == 1 and "unknown transaction" in r.stderr
    r = app_cli(tmp_path, "trace", "xyz", "--node", node.url)
    assert r.returncode == 2 and "64 hex digits" in r.stderr


FAILING_TESTS = """
contract Vault {
    uint public held;
    event Took(uint amount);
    function take(uint amount) {
        held += amount;
        emit Took(amount);
        require(amount < 10, "too much");
    }
}
contract Describe_Vault {
    Vault v;
    function beforeAll() { v = new Vault(); }
    function it_takes_a_little() { v.take(1); }
    function it_takes_too_much() { v.take(50); }
}
"""


def test_test_command_verbose_prints_the_trace_of_each_failing_test(
    node: RunningNode, tmp_path: Path
) -> None:
    src = tmp_path / "vault_test.sol"
    src.write_text(FAILING_TESTS)
    r = app_cli(tmp_path, "test", "-v", "--node", node.url, str(src))
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "1 passed, 1 failed"
    at = lines.index("Trace of Describe_Vault.it_takes_too_much:")
    trace = lines[at + 1 :]
    assert trace[0].startswith("  [") and "Describe_Vault(" in trace[0]
    assert "::it_takes_too_much()" in trace[0]
    assert any("Vault(" in ln and "::take(amount: 50)" in ln for ln in trace)
    assert any("emit Took(amount: 50) (reverted)" in ln for ln in trace)
    assert any("← [Fail] solidity require failed: too much" in ln for ln in trace)
    assert not any("it_takes_a_little" in ln for ln in lines if ln.startswith("Trace of"))
    quiet = app_cli(tmp_path, "test", "--node", node.url, str(src))
    assert "Trace of" not in quiet.stdout


def test_a_mercata_sized_deployment_traces_its_43_creations_and_proxy_calls(
    node: RunningNode,
) -> None:
    """tests/corpus/proxy_deploy: one upload creating 43 contracts, 21 of them proxies that
    are initialized through their fallback (a delegatecall to the logic contract)."""
    fixture = ROOT / "tests" / "corpus" / "proxy_deploy"
    src = {p.name: p.read_text(encoding="utf-8") for p in sorted(fixture.glob("*.sol"))}
    res = send(node, upload_tx("Deployment", src, vm=None))
    assert res[0]["status"] == "Success"
    t = trace_of(node, res[0]["hash"])
    assert t["truncated"] is False

    def walk(f: dict[str, Any]) -> Iterator[dict[str, Any]]:
        yield f
        for c in calls(f):
            yield from walk(c)

    frames = list(walk(t["root"]))
    assert len(frames) == t["frames"]
    creates = [f for f in frames if f["kind"] == "create"]
    assert len(creates) == 43 and creates[0]["contract"] == "Deployment"
    assert sum(1 for f in creates if f["contract"] == "Proxy") == 21
    delegated = [f for f in frames if f["kind"] == "delegatecall"]
    assert delegated and all(f["status"] == "ok" for f in frames)
    proxies = {f["address"] for f in creates if f["contract"] == "Proxy"}
    assert {f["address"] for f in delegated} <= proxies  # the logic's code on the proxy
    init = next(f for f in delegated if f["function"] == "initialize")
    assert init["contract"] != "Proxy" and any(i["type"] == "write" for i in init["items"])


def test_traces_survive_a_clean_restart(node: RunningNode, shop: str) -> None:
    """(Last in the module: it restarts the node.) Traces are in the database: a transaction's
    sent just before SIGTERM is there after the restart (written by the writer thread, or by
    the shutdown when the writer had not got to it)."""
    res = send(node, call_tx(shop, "buy", {"amount": 2}))
    node.restart()
    root = trace_of(node, res[0]["hash"])["root"]
    assert (root["function"], root["args"][0]["value"]) == ("buy", "2")
