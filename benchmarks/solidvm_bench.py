"""SolidVM throughput, measured in-process (no HTTP): what the sandbox node's engine can sustain.

Scenarios (issue 2):
  a) Token.transfer on a mapping that already holds 10,000 balances
  a') the same transfer with its arithmetic in a library (``using SafeMath for uint;``)
  b) one call that sums a 10,000-element storage array in a loop
  c) deployment of the car asset (resources/contracts/CarAsset.sol)
  d) external calls in a loop: plain, wrapped in try/catch, and caught failures (revert E(...))
  e) a Groth16 proof verification (2 public inputs: 2 ecMul, 2 ecAdd, a 4-pair ecPairing)
  f) the calls of d) made through a Proxy (fallback + delegatecall), beside the direct calls
  g) a Mercata-sized deployment: one transaction creating 43 contracts, 21 of them proxies
     initialized through their fallback (tests/corpus/proxy_deploy)
plus the parse+compile time of a ~10 KB source.

Each figure is the best of several rounds (the least disturbed by the rest of the machine).
Results print as a table and are written to benchmarks/results/solidvm.json.

    python benchmarks/solidvm_bench.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.client.bundler import bundle  # noqa: E402
from app.node.solidvm import TxEnv, World, compile_source  # noqa: E402
from app.node.solidvm.parser import parse  # noqa: E402

CONTRACTS = ROOT / "resources" / "contracts"
PROXY_DEPLOY = ROOT / "tests" / "corpus" / "proxy_deploy" / "Deployment.sol"
RESULTS = ROOT / "benchmarks" / "results"

ALICE = "a1" * 20
BOB = "b2" * 20

SUMMER = """
contract Summer {
    uint[] public values;
    function fill(uint n) public {
        for (uint i = 0; i < n; i++) { values.push(i); }
    }
    function sum() public view returns (uint total) {
        for (uint i = 0; i < values.length; i++) { total += values[i]; }
    }
}
"""

TRIER = """
error Nope(uint i);
contract Target {
    uint public n;
    function work(uint i, bool fail) public returns (uint) {
        n = i;
        if (fail) { revert Nope(i); }
        return i;
    }
}
contract Trier {
    Target t;
    uint public total;
    uint public failures;
    constructor(address a) public { t = Target(a); }
    function plain(uint n) public {
        for (uint i = 0; i < n; i++) { total += t.work(i, false); }
    }
    function tried(uint n, bool fail) public {
        for (uint i = 0; i < n; i++) {
            try t.work(i, fail) returns (uint r) { total += r; } catch { failures++; }
        }
    }
}
"""
CALLS_PER_TX = 1_000

GROTH16 = """
contract Groth16 {
    // vk: alpha (2), beta, gamma, delta (4 each, x and y as (imaginary, real)), IC_0, IC_1, ...;
    // proof: A (2), B (4), C (2)
    uint constant Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583;
    function verify(uint[] vk, uint[] proof, uint[] inputs) public view returns (bool) {
        (uint x, uint y) = (vk[14], vk[15]);
        for (uint i = 0; i < inputs.length; i++) {
            (uint mx, uint my) = ecMul(vk[16 + 2 * i], vk[17 + 2 * i], inputs[i]);
            (x, y) = ecAdd(x, y, mx, my);
        }
        uint[] memory p = new uint[](24);
        p[0] = proof[0];
        p[1] = (Q - proof[1] % Q) % Q;
        for (uint j = 0; j < 4; j++) {
            p[2 + j] = proof[2 + j];
            p[8 + j] = vk[2 + j];
            p[14 + j] = vk[6 + j];
            p[20 + j] = vk[10 + j];
        }
        (p[6], p[7], p[12], p[13], p[18], p[19]) = (vk[0], vk[1], x, y, proof[6], proof[7]);
        return ecPairing(p);
    }
}
"""


PROXIED = """
contract Proxy {
    address logicContract;
    constructor(address logic) { logicContract = logic; }
    fallback(variadic args) external returns (variadic) {
        return logicContract.delegatecall(msg.sig, args);
    }
}
contract Work {
    uint public n;
    function work(uint i) public returns (uint) { n = i; return i; }
}
contract Looper {
    Work direct;
    Work proxied;
    uint public total;
    constructor() {
        Work logic = new Work();
        direct = logic;
        proxied = Work(address(new Proxy(address(logic))));
    }
    function viaDirect(uint n) public {
        for (uint i = 0; i < n; i++) { total += direct.work(i); }
    }
    function viaProxy(uint n) public {
        for (uint i = 0; i < n; i++) { total += proxied.work(i); }
    }
}
"""


SAFE_TOKEN = """
library SafeMath {
    function add(uint a, uint b) internal pure returns (uint) {
        uint c = a + b;
        require(c >= a, "SafeMath: addition overflow");
        return c;
    }
    function sub(uint a, uint b) internal pure returns (uint) {
        require(b <= a, "SafeMath: subtraction overflow");
        return a - b;
    }
}
contract SafeToken {
    using SafeMath for uint;
    mapping(address => uint) public balances;
    event Transfer(address from, address to, uint value);
    constructor(uint _supply) public { balances[msg.sender] = _supply; }
    function transfer(address to, uint amount) public returns (bool) {
        balances[msg.sender] = balances[msg.sender].sub(amount);
        balances[to] = balances[to].add(amount);
        emit Transfer(msg.sender, to, amount);
        return true;
    }
}
"""


def best_rate(rounds: int, n: int, op: Callable[[int], object]) -> float:
    """Operations per second: best of ``rounds`` timed runs of ``n`` operations."""
    best = 0.0
    k = 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            op(k)
            k += 1
        dt = time.perf_counter() - t0
        best = max(best, n / dt)
    return best


def make_world() -> World:
    w = World()
    w.register_identity(
        ALICE, {"commonName": "alice", "organization": "Acme", "organizationalUnit": "Engineering"}
    )
    w.register_identity(
        BOB, {"commonName": "bob", "organization": "Globex", "organizationalUnit": "Logistics"}
    )
    return w


def bench_token(rounds: int, n: int) -> float:
    unit = compile_source((CONTRACTS / "Token.sol").read_text())
    w = make_world()
    env = TxEnv(sender=ALICE)
    token = w.deploy(
        unit.contracts["Token"], {"_name": "Bench", "_symbol": "B", "_supply": 10**30}, env
    ).address
    assert token is not None
    holders = [format(i + 1, "040x") for i in range(10_000)]
    for h in holders:
        w.call(token, "transfer", {"to": h, "amount": 1}, env)

    def op(k: int) -> object:
        return w.call(token, "transfer", {"to": holders[k % 10_000], "amount": "3"}, env)

    return best_rate(rounds, n, op)


def bench_safe_token(rounds: int, n: int) -> float:
    """Like bench_token, with each balance update a library call through ``using ... for``."""
    unit = compile_source(SAFE_TOKEN)
    w = make_world()
    env = TxEnv(sender=ALICE)
    token = w.deploy(unit.contracts["SafeToken"], {"_supply": 10**30}, env).address
    assert token is not None
    holders = [format(i + 1, "040x") for i in range(10_000)]
    for h in holders:
        w.call(token, "transfer", {"to": h, "amount": 1}, env)
    assert w.call(token, "balances", {"key": holders[0]}, env).values == ["1"]

    def op(k: int) -> object:
        return w.call(token, "transfer", {"to": holders[k % 10_000], "amount": "3"}, env)

    return best_rate(rounds, n, op)


def bench_sum(rounds: int, n: int) -> float:
    unit = compile_source(SUMMER)
    w = make_world()
    env = TxEnv(sender=ALICE)
    addr = w.deploy(unit.contracts["Summer"], {}, env).address
    assert addr is not None
    w.call(addr, "fill", {"n": 10_000}, env)
    expected = str(sum(range(10_000)))
    assert w.call(addr, "sum", {}, env).values == [expected]
    return best_rate(rounds, n, lambda k: w.call(addr, "sum", {}, env))


def bench_car_deploy(rounds: int, n: int) -> float:
    unit = compile_source((CONTRACTS / "CarAsset.sol").read_text())
    car = unit.contracts["Car"]
    w = make_world()
    env = TxEnv(sender=ALICE)
    args = {
        "_appChainId": "ab" * 32,
        "_vin": "1HGCM82633A004352",
        "_color": "red",
        "_model": "Accord",
        "_weight": 1400,
    }
    return best_rate(rounds, n, lambda k: w.deploy(car, args, env))


def bench_calls(rounds: int, n: int, method: str, fail: bool) -> float:
    """External calls per second, made ``CALLS_PER_TX`` at a time by one transaction."""
    unit = compile_source(TRIER)
    w = make_world()
    env = TxEnv(sender=ALICE)
    target = w.deploy(unit.contracts["Target"], {}, env).address
    trier = w.deploy(unit.contracts["Trier"], {"a": target}, env).address
    assert trier is not None
    args: dict[str, object] = {"n": CALLS_PER_TX}
    if method == "tried":
        args["fail"] = fail
    w.call(trier, method, args, env)
    caught = w.state(trier)["failures"]
    assert caught == (str(CALLS_PER_TX) if fail else "0"), caught
    return best_rate(rounds, n, lambda k: w.call(trier, method, args, env)) * CALLS_PER_TX


def bench_proxy_calls(rounds: int, n: int) -> tuple[float, float]:
    """External calls per second in one run: straight to a contract, and through a Proxy
    (typed call -> fallback -> delegatecall -> the logic's code on the proxy's storage)."""
    unit = compile_source(PROXIED)
    w = make_world()
    env = TxEnv(sender=ALICE)
    looper = w.deploy(unit.contracts["Looper"], {}, env).address
    assert looper is not None
    args = {"n": CALLS_PER_TX}
    w.call(looper, "viaProxy", args, env)
    total = sum(range(CALLS_PER_TX))
    assert w.state(looper)["total"] == str(total)
    direct = best_rate(rounds, n, lambda k: w.call(looper, "viaDirect", args, env))
    proxied = best_rate(rounds, n, lambda k: w.call(looper, "viaProxy", args, env))
    return direct * CALLS_PER_TX, proxied * CALLS_PER_TX


def bench_proxy_deploy(rounds: int, n: int) -> float:
    """Deployments per second of the 43-contract, Mercata-shaped fixture (one transaction)."""
    cdef = compile_source(bundle(PROXY_DEPLOY).source).contracts["Deployment"]
    w = make_world()
    env = TxEnv(sender=ALICE)
    res = w.deploy(cdef, {}, env)
    assert len(res.created) == 43 and res.address is not None, res.created
    assert w.state(res.address)["quotedValue"] == "6000"
    return best_rate(rounds, n, lambda k: w.deploy(cdef, {}, env))


def groth16_case() -> dict[str, list[str]]:
    """Verifying key, proof and inputs made from known scalars so that the equation holds."""
    from py_ecc.optimized_bn128.optimized_curve import G1, G2, curve_order, multiply, normalize

    def g1(k: int) -> list[int]:
        x, y = normalize(multiply(G1, k))
        return [int(x), int(y)]

    def g2(k: int) -> list[int]:
        x, y = normalize(multiply(G2, k))
        return [int(x.coeffs[1]), int(x.coeffs[0]), int(y.coeffs[1]), int(y.coeffs[0])]

    alpha, beta, gamma, delta, ic, inputs, a, b = 5, 7, 11, 13, [17, 19, 23], [3, 4], 29, 31
    vk_x = ic[0] + inputs[0] * ic[1] + inputs[1] * ic[2]
    c = (a * b - alpha * beta - vk_x * gamma) * pow(delta, -1, curve_order) % curve_order
    vk = g1(alpha) + g2(beta) + g2(gamma) + g2(delta) + g1(ic[0]) + g1(ic[1]) + g1(ic[2])
    proof = g1(a) + g2(b) + g1(c)
    return {"vk": [str(v) for v in vk], "proof": [str(v) for v in proof], "inputs": ["3", "4"]}


def bench_groth16(rounds: int) -> float:
    """Milliseconds per Groth16 verification (one call), best of ``rounds``."""
    unit = compile_source(GROTH16)
    w = make_world()
    env = TxEnv(sender=ALICE)
    addr = w.deploy(unit.contracts["Groth16"], {}, env).address
    assert addr is not None
    args = groth16_case()
    assert w.call(addr, "verify", args, env).values == ["true"]
    return 1000 / best_rate(rounds, 1, lambda k: w.call(addr, "verify", args, env))


def ten_kb_source() -> str:
    """About 10 KB of realistic contract text: the sample contracts, repeated under new names."""
    parts: list[str] = []
    total = 0
    i = 0
    samples = [p.read_text() for p in sorted(CONTRACTS.glob("*.sol"))]
    while total < 10_000:
        text = samples[i % len(samples)]
        for name in ("Car", "ExternalStorage", "Receipt", "Shipment", "Token"):
            text = text.replace(f"contract {name} ", f"contract {name}{i} ")
            text = text.replace(f"new {name}(", f"new {name}{i}(")
            text = text.replace(f" {name} public", f" {name}{i} public")
        parts.append(text)
        total += len(text)
        i += 1
    return "\n".join(parts)


def bench_parse(rounds: int) -> tuple[int, float, float]:
    src = ten_kb_source()
    best_parse = best_compile = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        parse(src)
        t1 = time.perf_counter()
        compile_source(src)
        t2 = time.perf_counter()
        best_parse = min(best_parse, t1 - t0)
        best_compile = min(best_compile, t2 - t1)
    return len(src), best_parse * 1000, best_compile * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    opts = ap.parse_args()
    rounds = 2 if opts.quick else 5
    scale = 1 if opts.quick else 4

    token = bench_token(rounds, 2_500 * scale)
    safe_token = bench_safe_token(rounds, 2_500 * scale)
    summed = bench_sum(rounds, 5 * scale)
    car = bench_car_deploy(rounds, 1_000 * scale)
    plain_calls = bench_calls(rounds, 5 * scale, "plain", False)
    try_ok = bench_calls(rounds, 5 * scale, "tried", False)
    try_caught = bench_calls(rounds, 5 * scale, "tried", True)
    direct_calls, proxy_calls = bench_proxy_calls(rounds, 5 * scale)
    proxy_deploys = bench_proxy_deploy(rounds, 20 * scale)
    size, parse_ms, compile_ms = bench_parse(rounds * 2)
    groth16_ms = bench_groth16(rounds)

    rows = [
        ("token transfer, 10k-holder mapping", f"{token:,.0f} calls/s", ">= 5,000 calls/s"),
        ("same, arithmetic via using SafeMath", f"{safe_token:,.0f} calls/s", "2 library calls"),
        (
            "sum of a 10k-element array (1 call)",
            f"{summed:,.1f} calls/s",
            f"{summed * 10_000:,.0f} loop iterations/s",
        ),
        ("car asset deploy", f"{car:,.0f} deploys/s", ""),
        ("external call in a loop", f"{plain_calls:,.0f} calls/s", ""),
        ("same call inside try/catch", f"{try_ok:,.0f} calls/s", ""),
        ("try/catch, failure caught", f"{try_caught:,.0f} calls/s", "revert E(i) undone"),
        ("direct call (beside the next)", f"{direct_calls:,.0f} calls/s", ""),
        (
            "same call through a Proxy",
            f"{proxy_calls:,.0f} calls/s",
            f"{direct_calls / proxy_calls:.1f}x the direct call's time",
        ),
        (
            "43-contract proxy deployment",
            f"{proxy_deploys:,.1f} deploys/s",
            f"{1000 / proxy_deploys:.1f} ms per transaction",
        ),
        ("Groth16 verification (2 inputs)", f"{groth16_ms:,.0f} ms", "4 pairings (py_ecc)"),
        (f"parse {size / 1000:.1f} KB of source", f"{parse_ms:.1f} ms", "< 50 ms"),
        (f"parse + compile {size / 1000:.1f} KB", f"{parse_ms + compile_ms:.1f} ms", ""),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"SolidVM benchmark (Python {platform.python_version()}, {os.cpu_count()} CPUs)")
    for name, value, note in rows:
        print(f"  {name:<{width}}  {value:>18}  {note}")

    RESULTS.mkdir(parents=True, exist_ok=True)
    out = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "rounds": rounds,
        "token_transfers_per_s": round(token, 1),
        "safemath_token_transfers_per_s": round(safe_token, 1),
        "array_sum_10k_calls_per_s": round(summed, 2),
        "car_deploys_per_s": round(car, 1),
        "external_calls_per_s": round(plain_calls, 1),
        "try_catch_calls_per_s": round(try_ok, 1),
        "try_catch_caught_failures_per_s": round(try_caught, 1),
        "direct_calls_beside_proxy_per_s": round(direct_calls, 1),
        "proxy_calls_per_s": round(proxy_calls, 1),
        "proxy_deployments_43_contracts_per_s": round(proxy_deploys, 2),
        "groth16_verify_ms": round(groth16_ms, 1),
        "parse_10kb_ms": round(parse_ms, 2),
        "parse_compile_10kb_ms": round(parse_ms + compile_ms, 2),
        "source_bytes": size,
    }
    path = RESULTS / "solidvm.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"written to {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
