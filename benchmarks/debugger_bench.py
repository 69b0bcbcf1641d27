"""The step debugger's response times: a step, and the first stop at a breakpoint.

1. Debug adapter (``python -m app debug-adapter`` over stdio, driven as VS Code drives it):
   - first stop: from sending ``launch`` (the program is bundled and compiled in debug mode then)
     through ``initialized``, ``setBreakpoints``, ``configurationDone`` to the ``stopped`` event
     of a breakpoint in an imported file; the adapter process is already up (an editor starts it
     before launching);
   - a step: ``next`` until the ``stopped`` event and the ``stackTrace`` answer (what an editor
     needs before it can show the new line), over a loop of ``--steps`` steps.
   Targets: first stop < 300 ms, a step < 50 ms (median and p95 reported).
2. The node's routes (``POST /vm-debug/sessions`` with a breakpoint until the session is paused;
   a step: ``POST .../control`` ``next`` until ``GET .../frames`` shows the next line), on a
   node started here, the debugged run on an overlay of its committed state.
3. For scale: a call of a debug-compiled contract outside any session (the hooks only test the
   thread's tracer) against the ordinary compile of the same code; the node's transactions always
   run the ordinary compile, so this cost is never paid on the chain.

    python benchmarks/debugger_bench.py [--steps N] [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling module benchlib
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchlib import machine, mark, rounded, running_node, utc_now, write_results

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
    uint public total;
    constructor() {
        c = new Counter();
    }
    function run(uint k) public returns (uint) {
        uint acc = 0;
        for (uint i = 0; i < k; i++) {
            acc += i;
            total += 1;
        }
        return c.bump(acc);
    }
}
"""
BP_LINE = 4  # lib.sol: n += by;
LOOP_LINE = 11  # main.sol: acc += i;


def ms(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    return {
        "median_ms": statistics.median(xs) * 1000,
        "p95_ms": xs[min(len(xs) - 1, int(len(xs) * 0.95))] * 1000,
        "max_ms": xs[-1] * 1000,
    }


def dap_round(folder: Path, steps: int) -> tuple[float, list[float]]:
    dap = DapClient()
    try:
        dap.request("initialize", adapterID="strato")
        main, lib = str(folder / "main.sol"), str(folder / "lib.sol")
        t0 = time.perf_counter()
        dap.request("launch", program=main, contract="Main", function="run", args={"k": steps + 5})
        dap.event("initialized")
        dap.request("setBreakpoints", source={"path": lib}, breakpoints=[{"line": BP_LINE}])
        dap.request("setBreakpoints", source={"path": main}, breakpoints=[{"line": LOOP_LINE}])
        dap.request("configurationDone")
        dap.event("stopped")
        first = time.perf_counter() - t0
        dap.request("setBreakpoints", source={"path": main}, breakpoints=[])
        times = []
        for _ in range(steps):
            t = time.perf_counter()
            dap.request("next", threadId=1)
            dap.event("stopped")
            dap.request("stackTrace", threadId=1)
            times.append(time.perf_counter() - t)
        return first, times
    finally:
        dap.close()


def rest_round(url: str, token: str, steps: int) -> tuple[float, list[float]]:
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as c:
        t0 = time.perf_counter()
        body = {
            "source": LIB + MAIN.replace('import "./lib.sol";', ""),
            "name": "main.sol",
            "contract": "Main",
            "function": "run",
            "args": {"k": steps + 5},
            "breakpoints": [{"file": "main.sol", "line": LIB.count("\n") + LOOP_LINE}],
        }
        r = c.post("/vm-debug/sessions", json=body)
        r.raise_for_status()
        sid = r.json()["id"]
        while c.get(f"/vm-debug/sessions/{sid}").json()["state"] != "paused":
            time.sleep(0.002)
        first = time.perf_counter() - t0
        times = []
        for _ in range(steps):
            t = time.perf_counter()
            c.post(f"/vm-debug/sessions/{sid}/control", json={"action": "next"})
            while c.get(f"/vm-debug/sessions/{sid}").json()["state"] != "paused":
                time.sleep(0.001)
            c.get(f"/vm-debug/sessions/{sid}/frames").raise_for_status()
            times.append(time.perf_counter() - t)
        c.delete(f"/vm-debug/sessions/{sid}")
        return first, times


def hook_cost(calls: int, rounds: int = 7) -> dict[str, float]:
    """Best of ``rounds`` interleaved rounds of ``calls`` calls, per variant."""
    from app.node.debug.compiler import compile_debug
    from app.node.solidvm import World, compile_source
    from app.node.solidvm.world import TxEnv

    src = LIB + MAIN.replace('import "./lib.sol";', "")
    env = TxEnv(sender="a1" * 20)
    worlds = {}
    for name, contracts in (
        ("ordinary", compile_source(src).contracts),
        ("debug_compiled_no_session", compile_debug(src).contracts),
    ):
        w = World()
        addr = w.deploy(contracts["Main"], {}, env).address
        assert addr is not None
        worlds[name] = (w, addr)
    best = {name: float("inf") for name in worlds}
    for _ in range(rounds):
        for name, (w, addr) in worlds.items():
            t = time.perf_counter()
            for _ in range(calls):
                w.call(addr, "run", {"k": 20}, env)
            best[name] = min(best[name], (time.perf_counter() - t) / calls * 1e6)
    return {f"{name}_us_per_call": v for name, v in best.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    opts = ap.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "lib.sol").write_text(LIB)
        (folder / "main.sol").write_text(MAIN)
        dap_first: list[float] = []
        dap_steps: list[float] = []
        rest_first: list[float] = []
        rest_steps: list[float] = []
        with running_node(folder / "node") as node:
            token = node.token("alice")
            for _ in range(opts.rounds):  # interleaved: both paths see the same load
                f, s = dap_round(folder, opts.steps)
                dap_first.append(f)
                dap_steps += s
                f, s = rest_round(node.url, token, opts.steps)
                rest_first.append(f)
                rest_steps += s
    cost = hook_cost(200)
    result: dict[str, Any] = {
        "when": utc_now(),
        "machine": machine(loadavg_before=load_before, loadavg_after=os.getloadavg()),
        "steps_per_round": opts.steps,
        "rounds": opts.rounds,
        "dap_first_stop": ms(dap_first),
        "dap_step": ms(dap_steps),
        "rest_first_stop": ms(rest_first),
        "rest_step": ms(rest_steps),
        "hook_cost": cost,
    }
    ok_first = (
        result["dap_first_stop"]["max_ms"] < 300 and result["rest_first_stop"]["max_ms"] < 300
    )
    ok_step = result["dap_step"]["p95_ms"] < 50 and result["rest_step"]["p95_ms"] < 50
    print(f"load average before/after: {load_before} / {os.getloadavg()}")
    for key in ("dap_first_stop", "rest_first_stop", "dap_step", "rest_step"):
        v = result[key]
        print(
            f"{key:16} median {v['median_ms']:7.1f} ms  p95 {v['p95_ms']:7.1f}  "
            f"max {v['max_ms']:7.1f}"
        )
    print(f"first stop < 300 ms: {mark(ok_first)}; a step < 50 ms (p95): {mark(ok_step)}")
    print("a call outside a session: " + ", ".join(f"{k} {v:.0f}" for k, v in cost.items()))
    path = write_results("debugger", rounded(result))
    print(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
