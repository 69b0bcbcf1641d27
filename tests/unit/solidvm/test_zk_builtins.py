"""ecAdd, ecMul, ecPairing (alt_bn128) and poseidon, as STRATO 16.10's SolidVM computes them.

Points are made with py_ecc (the reference the G1 formulas are compared with); the Groth16 case
builds its own verifying key and proof from known secret scalars, so the verification equation
holds by construction (no circuit or trusted setup needed), and breaks when an input changes.
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from typing import Any

import pytest

from app.node.solidvm.bn254 import (
    FIELD,
    ORDER,
    ec_add,
    ec_mul,
    final_exponentiation,
    pairing_check,
)
from app.node.solidvm.errors import CompileError, ExecutionError
from app.node.solidvm.poseidon import PARTIAL_ROUNDS, parameters, poseidon

from .conftest import CallFn, DeployFn, RunFn
from .helpers import c, compile_src

G = (1, 2)
G_2 = (
    1368015179489954701390400359078579693043519447331113978918064868415326638035,
    9918110051302171585080402603319702774565515993150576347155970296011118125764,
)
G_3 = (
    3353031288059533942658390886683067124040920775575537747144343083137631628272,
    19321533766552368860946552437480515441416830039777911637913418824951667761761,
)


@cache
def curve() -> Any:
    """py_ecc's BN254 curve module; importing py_ecc raises the recursion limit, put it back."""
    limit = sys.getrecursionlimit()
    try:
        from py_ecc.optimized_bn128 import optimized_curve
    finally:
        sys.setrecursionlimit(limit)
    return optimized_curve


def g1(k: int) -> tuple[int, int]:
    m = curve()
    x, y = m.normalize(m.multiply(m.G1, k))
    return int(x), int(y)


def g2(k: int) -> tuple[int, int, int, int]:
    """k times the G2 generator in Ethereum's order: x imaginary, x real, y imaginary, y real."""
    m = curve()
    x, y = m.normalize(m.multiply(m.G2, k))
    return int(x.coeffs[1]), int(x.coeffs[0]), int(y.coeffs[1]), int(y.coeffs[0])


def neg(p: tuple[int, int]) -> tuple[int, int]:
    return p[0], (FIELD - p[1]) % FIELD


def strs(xs: Any) -> list[str]:
    return [str(x) for x in xs]


# ---------------------------------------------------------------- ecAdd / ecMul

POINTS = c(
    """
    function add(uint x1, uint y1, uint x2, uint y2) public pure returns (uint, uint) {
        return ecAdd(x1, y1, x2, y2);
    }
    function mul(uint x, uint y, int s) public pure returns (uint rx, uint ry) {
        (rx, ry) = ecMul(x, y, s);
    }
    function triple() public pure returns (uint, uint) {
        (uint x, uint y) = ecMul(1, 2, 2);
        return ecAdd(x, y, 1, 2);
    }
"""
)


def test_ec_mul_doubles_and_ec_add_adds(run: RunFn) -> None:
    assert run(POINTS, "mul", {"x": 1, "y": 2, "s": 2}) == strs(G_2)
    assert run(POINTS, "add", {"x1": 1, "y1": 2, "x2": str(G_2[0]), "y2": str(G_2[1])}) == strs(G_3)
    assert run(POINTS, "triple") == strs(G_3)
    assert run(POINTS, "mul", {"x": 1, "y": 2, "s": 3}) == strs(G_3)


def test_infinity_is_zero_zero(run: RunFn) -> None:
    assert run(POINTS, "add", {"x1": 1, "y1": 2, "x2": 0, "y2": 0}) == strs(G)
    assert run(POINTS, "add", {"x1": 0, "y1": 0, "x2": 0, "y2": 0}) == ["0", "0"]
    minus = neg(G_3)
    assert run(POINTS, "add", {"x1": G_3[0], "y1": G_3[1], "x2": minus[0], "y2": minus[1]}) == [
        "0",
        "0",
    ]
    assert run(POINTS, "mul", {"x": 1, "y": 2, "s": 0}) == ["0", "0"]
    assert run(POINTS, "mul", {"x": 0, "y": 0, "s": 5}) == ["0", "0"]


def test_ec_add_of_a_point_to_itself_is_zero_as_on_the_platform(run: RunFn) -> None:
    # the platform's affine addition gives infinity for equal x coordinates; ecMul doubles
    assert run(POINTS, "add", {"x1": 1, "y1": 2, "x2": 1, "y2": 2}) == ["0", "0"]


def test_scalars_are_taken_modulo_the_group_order(run: RunFn) -> None:
    assert run(POINTS, "mul", {"x": 1, "y": 2, "s": str(ORDER)}) == ["0", "0"]
    assert run(POINTS, "mul", {"x": 1, "y": 2, "s": str(ORDER + 2)}) == strs(G_2)
    assert run(POINTS, "mul", {"x": 1, "y": 2, "s": -1}) == strs(neg(G))


def test_points_off_the_curve_are_not_rejected_the_formulas_run(run: RunFn) -> None:
    # (1, 1) and (2, 2) are not on y^2 = x^3 + 3; the platform computes the chord anyway:
    # slope 1, x3 = 1 - 1 - 2, y3 = 1 * (1 - x3) - 1
    assert run(POINTS, "add", {"x1": 1, "y1": 1, "x2": 2, "y2": 2}) == strs((FIELD - 2, 2))
    # coordinates are reduced modulo the field prime
    assert run(POINTS, "add", {"x1": str(FIELD + 1), "y1": 2, "x2": 0, "y2": 0}) == strs(G)


def test_g1_arithmetic_agrees_with_py_ecc_on_the_curve() -> None:
    for a, b in ((5, 7), (123456789, 987654321), (ORDER - 1, 2), (2**200 + 1, 3)):
        assert ec_add(*g1(a), *g1(b)) == g1(a + b)
        assert ec_mul(*g1(a), b) == g1(a * b)


def test_ec_add_and_ec_mul_need_their_integers() -> None:
    with pytest.raises(CompileError, match=r"ecAdd takes two alt_bn128 points"):
        compile_src(c("function f() public { ecAdd(1, 2, 3); }"))
    with pytest.raises(CompileError, match=r"ecMul takes an alt_bn128 point and a scalar"):
        compile_src(c("function f() public { ecMul(1, 2); }"))
    with pytest.raises(CompileError):
        compile_src(c('function f() public { ecMul(1, 2, "three"); }'))


# ---------------------------------------------------------------- ecPairing

PAIRING = c(
    """
    function check(uint[] input) public view returns (bool) { return ecPairing(input); }
    function spread(uint a, uint b, uint c, uint d, uint e, uint f,
                    uint g, uint h, uint i, uint j, uint k, uint l) public view returns (bool) {
        return ecPairing(a, b, c, d, e, f, g, h, i, j, k, l);
    }
    function viaVariadic(variadic v) public view returns (bool) { return ecPairing(v); }
"""
)


def test_pairing_check_true_and_false(run: RunFn) -> None:
    # e(P, Q) * e(-P, Q) = 1; e(2P, 3Q) * e(-6P, Q) = 1 (bilinearity); e(P, Q)^2 != 1
    ok = [*G, *g2(1), *neg(G), *g2(1)]
    bilinear = [*g1(2), *g2(3), *neg(g1(6)), *g2(1)]
    bad = [*G, *g2(1), *G, *g2(1)]
    assert run(PAIRING, "check", {"input": strs(ok)}) == ["true"]
    assert run(PAIRING, "check", {"input": strs(bilinear)}) == ["true"]
    assert run(PAIRING, "check", {"input": strs(bad)}) == ["false"]


def test_pairing_arguments_as_integers_or_a_variadic(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(PAIRING, "C").address
    ok = [*G, *g2(1), *neg(G), *g2(1)]
    args = dict(zip("abcdefghijkl", strs(ok), strict=True))
    assert call(addr, "spread", args).values == ["true"]
    assert call(addr, "viaVariadic", {"v": [int(x) for x in ok]}).values == ["true"]


def test_pairing_edge_cases(run: RunFn) -> None:
    assert run(PAIRING, "check", {"input": []}) == ["true"]  # the empty product
    assert run(PAIRING, "check", {"input": ["1", "2", "3"]}) == ["false"]  # not six per pair
    # a pair with the G1 point at infinity, or the G2 point all zeros, contributes one
    assert run(PAIRING, "check", {"input": strs([0, 0, *g2(1)])}) == ["true"]
    assert run(PAIRING, "check", {"input": strs([*G, 0, 0, 0, 0])}) == ["true"]
    # a point off its curve makes the check false (no error, as on the platform)
    assert run(PAIRING, "check", {"input": strs([1, 3, *g2(1)])}) == ["false"]
    assert run(PAIRING, "check", {"input": strs([*G, 1, 2, 3, 4])}) == ["false"]


def test_pairing_is_charged_pair_by_pair(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(PAIRING, "C").address
    four = strs([*G, *g2(1)] * 4)
    with pytest.raises(ExecutionError, match="out of gas"):
        call(addr, "check", {"input": four}, max_steps=30_000)


def test_the_node_recursion_limit_survives_py_ecc() -> None:
    # importing py_ecc sets the limit to 100,000; the node keeps its own (a fresh interpreter,
    # since this module has imported py_ecc already)
    code = (
        "import sys, app.node.solidvm.world\n"
        "from app.node.solidvm.bn254 import pairing_check\n"
        "before = sys.getrecursionlimit()\n"
        "pairing_check([1, 2, 3, 4, 5, 6])\n"
        "assert 'py_ecc' in sys.modules\n"
        "print(before, sys.getrecursionlimit())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert out == ["20000", "20000"]


def test_compiling_a_pairing_prepares_py_ecc_outside_any_transaction() -> None:
    code = (
        "import sys\n"
        "from app.node.solidvm import compile_source\n"
        "compile_source('contract C { function f(uint[] a) public returns (bool) "
        "{ return ecPairing(a); } }')\n"
        "from app.node.solidvm import bn254\n"
        "print('py_ecc' in sys.modules, bn254._frobenius_rows.cache_info().currsize)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert out == ["True", "2"]


def test_pairing_check_function_directly() -> None:
    ok = [*G, *g2(1), *neg(G), *g2(1)]
    ticks: list[int] = []
    assert pairing_check(ok, lambda: ticks.append(1)) is True
    assert len(ticks) == 3  # one per Miller loop, one for the final exponentiation


def test_final_exponentiation_equals_py_ecc() -> None:
    import random

    from py_ecc.optimized_bn128.optimized_pairing import final_exponentiate, pairing

    m = curve()
    rng = random.Random(7)
    miller = pairing(m.multiply(m.G2, 5), m.multiply(m.G1, 7), final_exponentiate=False)
    arbitrary = m.FQ12([rng.randrange(1, FIELD) for _ in range(12)])
    for f in (miller, arbitrary):
        assert final_exponentiation(f) == final_exponentiate(f)


# ---------------------------------------------------------------- Groth16

GROTH16 = c(
    """
    // vk: alpha (2), beta, gamma, delta (4 each: x imaginary, x real, y imaginary, y real),
    // then IC_0, IC_1, ... (2 each); proof: A (2), B (4), C (2)
    uint constant Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583;

    function verify(uint[] vk, uint[] proof, uint[] inputs) public view returns (bool) {
        require(vk.length == 16 + 2 * inputs.length, "verifying key and inputs do not match");
        uint x = vk[14];
        uint y = vk[15];
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
        p[6] = vk[0];
        p[7] = vk[1];
        p[12] = x;
        p[13] = y;
        p[18] = proof[6];
        p[19] = proof[7];
        return ecPairing(p);
    }
""",
    "Groth16",
)


def groth16_case() -> tuple[list[int], list[int], list[int]]:
    """A verifying key, proof and public inputs with A*B = alpha*beta + vk_x*gamma + C*delta."""
    alpha, beta, gamma, delta = 5, 7, 11, 13
    ic = [17, 19, 23]
    inputs = [3, 4]
    a, b = 29, 31
    vk_x = (ic[0] + sum(i * k for i, k in zip(inputs, ic[1:], strict=True))) % ORDER
    c_ = (a * b - alpha * beta - vk_x * gamma) * pow(delta, -1, ORDER) % ORDER
    vk = [*g1(alpha), *g2(beta), *g2(gamma), *g2(delta)]
    for k in ic:
        vk += g1(k)
    proof = [*g1(a), *g2(b), *g1(c_)]
    return vk, proof, inputs


def test_groth16_verification(deploy: DeployFn, call: CallFn) -> None:
    vk, proof, inputs = groth16_case()
    addr = deploy(GROTH16, "Groth16").address
    args = {"vk": strs(vk), "proof": strs(proof), "inputs": strs(inputs)}
    assert call(addr, "verify", args).values == ["true"]
    assert call(addr, "verify", {**args, "inputs": ["3", "5"]}).values == ["false"]


# ---------------------------------------------------------------- poseidon

POSEIDON = c(
    """
    function one(uint a) public pure returns (uint) { return poseidon(a); }
    function two(uint a, uint b) public pure returns (uint) { return poseidon(a, b); }
    function many(uint[] xs) public pure returns (uint) { return poseidon(xs); }
    function viaVariadic(variadic v) public pure returns (uint) { return poseidon(v); }
"""
)

# circomlibjs' test vectors
VECTORS = [
    ([1], 18586133768512220936620570745912940619677854269274689475585506675881198879027),
    ([1, 2], 7853200120776062878684798364095072458815029376092732009249414926327459813530),
    (
        [1, 2, 0, 0, 0],
        1018317224307729531995786483840663576608797660851238720571059489595066344487,
    ),
    ([1, 2, 3, 4], 18821383157269793795438455681495246036402687001665670618754263018637548127333),
    (
        [1, 2, 3, 4, 5, 6],
        20400040500897583745843009878988256314335038853985262692600694741116813247201,
    ),
]


@pytest.mark.parametrize(("inputs", "expected"), VECTORS)
def test_poseidon_vectors(inputs: list[int], expected: int) -> None:
    assert poseidon(inputs) == expected


def test_poseidon_builtin_forms(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(POSEIDON, "C").address
    h1, h2 = str(VECTORS[0][1]), str(VECTORS[1][1])
    assert call(addr, "one", {"a": 1}).values == [h1]
    assert call(addr, "two", {"a": 1, "b": 2}).values == [h2]
    assert call(addr, "many", {"xs": [1, 2, 3, 4]}).values == [str(VECTORS[3][1])]
    assert call(addr, "viaVariadic", {"v": [1, 2]}).values == [h2]
    # inputs are field elements: reduced modulo the scalar field
    assert call(addr, "two", {"a": str(ORDER + 1), "b": 2}).values == [h2]


def test_poseidon_takes_one_to_eight_inputs(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(POSEIDON, "C").address
    [eight] = call(addr, "many", {"xs": list(range(8))}).values
    assert int(eight) == poseidon(list(range(8)))
    with pytest.raises(ExecutionError, match=r"type error: invalid args passed to poseidon"):
        call(addr, "many", {"xs": list(range(9))})
    with pytest.raises(ExecutionError, match=r"type error: invalid args passed to poseidon: \[\]"):
        call(addr, "many", {"xs": []})


def test_poseidon_parameters_have_the_published_shape() -> None:
    for t, partial in PARTIAL_ROUNDS.items():
        constants, mds = parameters(t)
        assert len(constants) == (8 + partial) * t
        assert len(mds) == t and all(len(row) == t for row in mds)
