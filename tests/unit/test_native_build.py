"""The node's modules compiled by mypyc (tools/build_native.py, app/node/native.py).

A build is made for real into a temporary directory; a process using it must record the very
traces, and seal blocks into the very results, rows and snapshot, that the Python modules do;
a build that does not match the sources (edited since, another interpreter, switched off) must
not be used.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.node import native

ROOT = Path(__file__).resolve().parents[2]

# Traces of calls of every kind the recorder tells apart (nested and low-level calls, a
# creation that fails inside `try`, events, mapping, array and struct writes, a failure with
# its position), printed as JSON: the same in both forms or the compiled one is wrong.
CORPUS = r'''
import json, sys
from app.node.solidvm import ExecutionError, World
from app.node import native
import app.node.solidvm.trace as trace_module
from tests.unit.solidvm.helpers import ALICE, BOB, IDENTITIES, compile_src, make_env

SRC = """
contract Target {
    uint public x;
    event Set(uint v);
    modifier positive(uint v) { require(v > 0, "zero"); _; }
    function set(uint v) positive(v) returns (uint) { x = v + 1; emit Set(x); return x; }
    function val() returns (uint) { return x; }
}
contract Made {
    uint public v;
    constructor(bool fail) { v = 3; require(!fail, "made failed"); }
}
contract Caller {
    struct P { uint a; string s; }
    Target t;
    uint public count;
    mapping(address => uint) public bal;
    mapping(uint => mapping(string => P)) public deep;
    uint[] public list;
    event Moved(address indexed to, uint amount);
    constructor() { t = new Target(); }
    function low(uint v) returns (uint) {
        address(t).call("set", v);
        return address(t).staticcall("val");
    }
    function make(bool fail) returns (uint) {
        try new Made(fail) returns (Made m) { count = m.v(); } catch { count = 77; }
        return count;
    }
    function moves(address to, uint n) returns (uint) {
        bal[to] += n; bal[msg.sender] = 5; list.push(n); list[0] = n + 1;
        deep[n]["k"] = P(n, "s"); deep[n]["k"].a = 9; emit Moved(to, n);
        return list.length;
    }
    function fails() { count = 1; t.set(0); }
}
"""

w = World()
for a, cert in IDENTITIES.items():
    w.register_identity(a, cert)
w.trace_items = 5_000
unit = compile_src(SRC)
addr = str(w.deploy(unit.contracts["Caller"], {}, make_env(ALICE)).address)
out = [w.last_trace.finish()]
for fn, args in [
    ("low", {"v": "4"}), ("make", {"fail": "true"}), ("make", {"fail": "false"}),
    ("moves", {"to": BOB, "n": "3"}), ("moves", {"to": BOB, "n": "4"}), ("fails", {}),
]:
    try:
        w.call(addr, fn, args, make_env(ALICE))
    except ExecutionError:
        pass
    out.append(w.last_trace.finish())
print(json.dumps({"file": trace_module.__file__, "in_use": native.in_use(), "traces": out}))
'''


# Blocks of Token transfers sealed by a ledger of its own (the state diff, its packing, the
# pre-images, the entries and Cirrus collections, JSON checks all at work), printed without
# what differs from run to run (hashes, signatures, times).
LEDGER_CORPUS = r"""
import json, re, sys, tempfile
from pathlib import Path
from app.node import native
import app.node.state_diff as diff_module
from tests.unit.ledger_parts import address, opened

def sub(ledger, kind, payload):
    return ledger.keys.new_sub("alice", address(ledger, "alice"), kind, payload, "", None)

def norm(text):
    text = re.sub(r'"(time|r|s|v|timestamp|block_timestamp)": [^,}]+', "", text)
    text = re.sub(r"[0-9a-f]{64}", "H", text)
    text = re.sub(r"(?<![0-9a-f])(?!c0c0)[0-9a-f]{40}(?![0-9a-f])", "A", text)  # users' keys
    return re.sub(r"\d{4}-\d\d-\d\d[ T][0-9:.]+( UTC)?", "T", text)

out = []
with tempfile.TemporaryDirectory() as d, opened(Path(d)) as ledger:
    src = Path("resources/contracts/Token.sol").read_text()
    deploy = sub(ledger, "CONTRACT", {"contract": "Token", "src": src,
        "args": {"_name": "T", "_symbol": "T", "_supply": 1000}, "metadata": {"VM": "SolidVM"}})
    res = ledger.sealer.seal([deploy])
    token = res[0]["data"]["contents"]["address"]
    out.append(norm(json.dumps(res, sort_keys=True, default=str)))
    for b in range(3):
        calls = [sub(ledger, "FUNCTION", {"contractAddress": token, "method": "transfer",
                     "args": {"to": f"c0c0c0c0{b * 10 + i:032x}", "amount": i + b}})
                 for i in range(4)]
        calls.append(sub(ledger, "FUNCTION", {"contractAddress": token, "method": "transfer",
                          "args": {"to": "c0" * 20, "amount": 10**9}}))  # fails
        out.append(norm(json.dumps(ledger.sealer.seal(calls), sort_keys=True, default=str)))
        ledger.sealer.block_published()
    ledger.snapshots.snapshot()
    tables = [r[0] for r in ledger.store.db.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'cirrus:Token%'")]
    queries = [f'SELECT * FROM "{t}"' for t in sorted(tables)] + [
        "SELECT * FROM storage_entries", "SELECT * FROM contracts WHERE name = 'Token'"]
    for q in queries:  # (not the genesis certificates: new keys each run)
        rows = ledger.store.db.execute(q).fetchall()
        out.append(q)
        out.extend(sorted(norm(json.dumps(list(r), default=str)) for r in rows))
text = "\n".join(out)
print(json.dumps({"file": diff_module.__file__, "in_use": native.packages_in_use(),
                  "text": text}))
"""


def run_python(*args: str, env: dict[str, str] | None = None) -> str:
    """stdout of ``python ARGS`` run from the checkout, which must succeed."""
    proc = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def run_corpus(setting: str, corpus: str = CORPUS) -> dict[str, object]:
    found: dict[str, object] = json.loads(
        run_python("-c", corpus, env={**os.environ, native.ENV: setting})
    )
    return found


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A build of the current sources by tools/build_native.py, in a directory of its own."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler here: the node runs the recorder as Python")
    out = tmp_path_factory.mktemp("native") / "build"
    said = run_python("tools/build_native.py", "--out", str(out))
    assert (out / native.STAMP_FILE).is_file(), said[-2000:]
    return out


def test_a_build_records_the_same_traces_as_the_python_modules(build_dir: Path) -> None:
    compiled = run_corpus(str(build_dir))
    pure = run_corpus("off")
    assert compiled["in_use"] is True
    assert str(compiled["file"]).startswith(str(build_dir))
    assert str(compiled["file"]).endswith(".so")
    assert pure["in_use"] is False
    assert str(pure["file"]).endswith("trace.py")
    traces = pure["traces"]
    assert isinstance(traces, list) and len(traces) == 7 and all(traces)
    assert compiled["traces"] == traces
    # the corpus reached what it is for: a failed creation caught, writes into nested
    # containers, a failure with its position
    text = json.dumps(traces)
    assert "made failed" in text and "zero" in text
    assert any(t["root"]["status"] == "failed" for t in traces)


def test_a_build_seals_the_same_blocks_as_the_python_modules(build_dir: Path) -> None:
    compiled = run_corpus(str(build_dir), LEDGER_CORPUS)
    pure = run_corpus("off", LEDGER_CORPUS)
    assert compiled["in_use"] == sorted(native.COMPILED)  # every package's modules
    assert str(compiled["file"]).startswith(str(build_dir))
    assert pure["in_use"] == [] and str(pure["file"]).endswith("state_diff.py")
    text = str(pure["text"])
    # what the corpus is for: successes, the failing transfers, balances in the rows
    assert text.count('"Success"') == 13 and text.count('"Failure"') == 3
    assert "cirrus:Token" in text and "storage_entries" in text
    assert compiled["text"] == text


def test_a_stale_build_is_not_used(build_dir: Path, tmp_path: Path) -> None:
    stale = tmp_path / "stale"
    shutil.copytree(build_dir, stale)
    stamp = json.loads((stale / native.STAMP_FILE).read_text())
    stamp["sources"]["app.node.solidvm.trace"] = "0" * 64  # as if trace.py was edited since
    (stale / native.STAMP_FILE).write_text(json.dumps(stamp))
    found = run_corpus(str(stale))
    assert found["in_use"] is False
    assert str(found["file"]).endswith("trace.py")


def test_use_compiled_checks_the_stamp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native, "_in_use", set(native._in_use))  # (this process's stays)
    monkeypatch.setenv(native.ENV, str(tmp_path))
    pkg = "app.node.ledger"
    built = str(tmp_path / "app" / "node" / "ledger")
    path: list[str] = ["pkg"]
    assert native.use_compiled(pkg, path) is False  # no stamp
    (tmp_path / native.STAMP_FILE).write_text("{not json")
    assert native.use_compiled(pkg, path) is False
    good = native.stamp()
    (tmp_path / native.STAMP_FILE).write_text(json.dumps({**good, "cache_tag": "cpython-39"}))
    assert native.use_compiled(pkg, path) is False  # another interpreter's build
    assert path == ["pkg"]
    (tmp_path / native.STAMP_FILE).write_text(json.dumps(good))
    assert native.use_compiled("app.node.routes", path) is False  # nothing of it compiled
    assert native.use_compiled(pkg, path) is True
    assert path == [built, "pkg"] and native.in_use(pkg)
    assert native.use_compiled(pkg, path) is True  # (not added twice)
    assert path == [built, "pkg"]
    monkeypatch.setenv(native.ENV, "off")
    assert native.use_compiled(pkg, ["pkg"]) is False


def test_stale_modules_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One module edited after the build makes every compiled module run as Python: the
    node names it at start (server.serve logs it)."""
    monkeypatch.setenv(native.ENV, str(tmp_path))
    assert native.stale_modules() == []  # no build
    good = native.stamp()
    (tmp_path / native.STAMP_FILE).write_text(json.dumps(good))
    assert native.stale_modules() == []
    sources = dict(good["sources"])  # type: ignore[call-overload]
    sources["app.node.jsonenc"] = "0" * 64  # as if jsonenc.py was edited since
    (tmp_path / native.STAMP_FILE).write_text(json.dumps({**good, "sources": sources}))
    assert native.stale_modules() == ["app.node.jsonenc"]
    (tmp_path / native.STAMP_FILE).write_text(json.dumps({**good, "cache_tag": "cpython-39"}))
    assert native.stale_modules() == []  # another interpreter's build: not ours to judge
    monkeypatch.setenv(native.ENV, "off")
    assert native.stale_modules() == []
