"""Poseidon over the BN254 scalar field, as SolidVM's ``poseidon(...)`` computes it.

The platform's variant is circomlib's (the one circom circuits and snarkjs use): x^5 S-box,
8 full rounds, state width t = inputs + 1 with a leading zero, first element of the state out;
1 to 8 inputs. Partial rounds per width: 56, 57, 56, 60, 60, 63, 64, 63 (t = 2..9).

The round constants and MDS matrices are not shipped as tables: they are derived here with the
Poseidon paper's Grain LFSR procedure (the one circomlib's constants came from), seeded with
(prime field, x^alpha S-box, 254-bit field, t, R_F, R_P); the first candidate Cauchy matrix is the
MDS matrix. The circomlib test vectors in tests/unit/solidvm/test_zk_builtins.py check the result.
Each width's parameters are computed once, on first use (~20 ms for t = 3).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

# the BN254 scalar field (the order of the alt_bn128 groups)
FIELD = 21888242871839275222246405745257275088548364400416034343698204186575808495617
FULL_ROUNDS = 8
PARTIAL_ROUNDS = {2: 56, 3: 57, 4: 56, 5: 60, 6: 60, 7: 63, 8: 64, 9: 63}
MAX_INPUTS = 8
_FIELD_BITS = 254


def _grain_bits(t: int, full: int, partial: int) -> Iterator[int]:
    """The parameter generator's output bits: an 80-bit Grain LFSR, self-shrinking."""
    seed = f"{1:02b}{0:04b}{_FIELD_BITS:012b}{t:012b}{full:010b}{partial:010b}" + "1" * 30
    state = [int(c) for c in seed]

    def clock() -> int:
        bit = state[62] ^ state[51] ^ state[38] ^ state[23] ^ state[13] ^ state[0]
        state.pop(0)
        state.append(bit)
        return bit

    for _ in range(160):
        clock()
    while True:
        # of each pair of bits, the second is output when the first is 1
        while clock() == 0:
            clock()
        yield clock()


def _field_element(bits: Iterator[int]) -> int:
    n = 0
    for _ in range(_FIELD_BITS):
        n = (n << 1) | next(bits)
    return n


@cache
def parameters(t: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Round constants (``t`` per round, all rounds) and the t x t MDS matrix of width ``t``."""
    partial = PARTIAL_ROUNDS[t]
    bits = _grain_bits(t, FULL_ROUNDS, partial)
    constants: list[int] = []
    while len(constants) < (FULL_ROUNDS + partial) * t:
        c = _field_element(bits)
        if c < FIELD:  # rejection sampling: out-of-range draws are skipped
            constants.append(c)
    while True:
        draws = [_field_element(bits) % FIELD for _ in range(2 * t)]
        if len(set(draws)) < 2 * t:
            continue
        xs, ys = draws[:t], draws[t:]
        if any((x + y) % FIELD == 0 for x in xs for y in ys):
            continue
        mds = tuple(tuple(pow(x + y, -1, FIELD) for y in ys) for x in xs)
        return tuple(constants), mds


def poseidon(inputs: list[int]) -> int:
    """The hash of 1 to 8 field elements (each reduced modulo the field first)."""
    if not 1 <= len(inputs) <= MAX_INPUTS:
        raise ValueError(f"poseidon takes 1 to {MAX_INPUTS} inputs, not {len(inputs)}")
    t = len(inputs) + 1
    constants, mds = parameters(t)
    p = FIELD
    state = [0] + [x % p for x in inputs]
    half = FULL_ROUNDS // 2
    partial_end = half + PARTIAL_ROUNDS[t]
    k = 0
    for r in range(FULL_ROUNDS + PARTIAL_ROUNDS[t]):
        state = [(s + constants[k + i]) % p for i, s in enumerate(state)]
        k += t
        if r < half or r >= partial_end:
            state = [pow(s, 5, p) for s in state]
        else:
            state[0] = pow(state[0], 5, p)
        state = [sum(m * s for m, s in zip(row, state, strict=True)) % p for row in mds]
    return state[0]
