"""Compile time grows with the source, not with its square (issue 26, item 4).

An operator chain of 8,000 terms took 34 s (the static checks asked every level of the chain
for its operands' types again), and a contract of thousands of functions spent most of its
compile merging overloads and checking overrides pairwise. The bounds are generous: each case
compiles in a fraction of them on an idle machine. Each case counts the process's CPU time, not
the wall clock: on a loaded machine (2 cores, load 10) 40,000 functions took 16 s of
wall clock for 1.9 s of CPU, while a quadratic compile costs CPU time whatever the load.
"""

from __future__ import annotations

import time

import pytest

from app.node.solidvm import CompileError, TxEnv, World, compile_source

from .helpers import ALICE, IDENTITIES


def chain_source(terms: int, operand: str = "1", op: str = "+") -> str:
    expr = op.join([operand] * terms)
    return (
        "contract Chain {\n"
        "    uint public x = 1;\n"
        f"    function f(uint a) public returns (uint) {{ return {expr}; }}\n"
        "}\n"
    )


def timed_compile(src: str) -> tuple[float, object]:
    """The compile's CPU time (the other processes of a loaded machine do not count)."""
    t0 = time.process_time()
    unit = compile_source(src)
    return time.process_time() - t0, unit


def run_f(unit: object, arg: int) -> object:
    world = World()
    world.identities.update({int(a, 16): c for a, c in IDENTITIES.items()})
    env = TxEnv(sender=ALICE, block_number=1, timestamp=1)
    cdef = unit.contracts["Chain"]  # type: ignore[attr-defined]
    address = world.deploy(cdef, {}, env).created[0][1]
    return world.call(address, "f", {"a": arg}, env).values


@pytest.mark.parametrize(("operand", "op"), [("1", "+"), ("a", "+"), ("x", "*"), ("a", "-")])
def test_an_operator_chain_of_8000_terms_compiles_quickly(operand: str, op: str) -> None:
    seconds, unit = timed_compile(chain_source(8000, operand, op))
    assert seconds < 3.0, f"{seconds:.2f} s of CPU for 8,000 terms"
    if (operand, op) == ("1", "+"):
        assert run_f(unit, 0) == ["8000"]
    if (operand, op) == ("a", "+"):
        assert run_f(unit, 3) == ["24000"]


def test_the_signedness_check_still_sees_every_level_of_a_long_chain() -> None:
    src = (
        "contract Chain {\n"
        "    function f(uint a, int b) public returns (uint) { return "
        + "a + " * 3000
        + "b; }\n}\n"
    )
    with pytest.raises(CompileError, match="Mismatched signedness"):
        compile_source(src)


def test_thousands_of_functions_overriding_thousands_compile_in_linear_time() -> None:
    n = 5000
    a = "".join(
        f"    function f{i}(uint a) public virtual returns (uint) {{ return a + {i}; }}\n"
        for i in range(n)
    )
    b = "".join(
        f"    function f{i}(uint a) public override returns (uint) {{ return a * {i}; }}\n"
        for i in range(n)
    )
    src = f"contract A {{\n{a}}}\ncontract B is A {{\n{b}}}\n"
    seconds, unit = timed_compile(src)
    assert seconds < 12.0, f"{seconds:.2f} s of CPU for {2 * n} functions"
    b_def = unit.contracts["B"]  # type: ignore[attr-defined]
    assert b_def.functions["f7"][0].cname == "B"  # the override won
    assert b_def.super_table[("B", "f7", 1)].cname == "A"  # super.f7 is A's


def test_an_override_without_the_keyword_is_still_refused_among_thousands() -> None:
    n = 2000
    a = "".join(f"    function f{i}() public virtual {{ }}\n" for i in range(n))
    b = "".join(f"    function f{i}() public override {{ }}\n" for i in range(n - 1))
    b += f"    function f{n - 1}() public {{ }}\n"
    with pytest.raises(CompileError, match=f"Function f{n - 1} is not marked as override"):
        compile_source(f"contract A {{\n{a}}}\ncontract B is A {{\n{b}}}\n")


def test_one_contract_of_20000_functions_compiles_in_linear_time() -> None:
    # every function used to be compared with every signature merged before it: 2e8 comparisons
    # here, far beyond the bound (a linear compile takes under 1 s of CPU)
    src = "contract Many {\n" + "".join(
        f"    function f{i}() public {{ }}\n" for i in range(20_000)
    )
    seconds, unit = timed_compile(src + "}\n")
    assert seconds < 6.0, f"{seconds:.2f} s of CPU for 20,000 functions"
    many = unit.contracts["Many"]  # type: ignore[attr-defined]
    assert len(many.functions) == 20_000 and many.functions["f19999"][0].name == "f19999"
