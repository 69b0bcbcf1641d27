"""Repeated keywords in declarations, read as the platform's parser reads them.

A function's keywords may repeat: the first visibility and the first mutability written count,
the others are ignored (mercata's Pool declares `_getOptimalSwapAmount(...) public internal` and
its tests call it from outside). A state variable with two different visibilities is a parse
error there.
"""

from __future__ import annotations

import pytest

from app.node.solidvm.errors import ExecutionError, ParseError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import compile_src

TWO_VISIBILITIES = """
contract C {
    function first() public internal returns (uint) { return 1; }
    function second() internal public returns (uint) { return 2; }
    function viaSecond() public returns (uint) { return second(); }
}
"""


def test_first_visibility_written_wins(run: RunFn) -> None:
    assert run(TWO_VISIBILITIES, "first") == ["1"]
    assert run(TWO_VISIBILITIES, "viaSecond") == ["2"]


def test_internal_then_public_is_not_callable_from_outside(
    deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(TWO_VISIBILITIES, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "second")
    assert "second" in info.value.message


def test_public_internal_function_is_callable_from_another_contract(run: RunFn) -> None:
    src = """
contract Pool {
    function _optimal(uint a) public internal returns (uint) { return a * 2; }
}
contract C {
    function go() public returns (uint) {
        Pool p = new Pool();
        return p._optimal(21);
    }
}
"""
    assert run(src, "go") == ["42"]


def test_first_mutability_written_wins() -> None:
    unit = compile_src(
        "contract C { function f() public view pure returns (uint) { return 1; } }"
    )
    fn = unit.contracts["C"].find_function("f")
    assert fn is not None and fn.mutability == "view"


def test_state_variable_with_two_visibilities_is_a_parse_error() -> None:
    with pytest.raises(ParseError) as info:
        compile_src("contract C {\n    uint public private x;\n}")
    assert info.value.detail == "multiple visibilities declared: KPublic vs KPrivate"
    assert (info.value.line, info.value.column) == (2, 17)


def test_state_variable_repeating_one_visibility_is_fine(run: RunFn) -> None:
    src = "contract C { uint public public x = 7; }"
    assert run(src, "x") == ["7"]
