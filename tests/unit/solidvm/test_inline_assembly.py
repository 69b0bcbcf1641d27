"""SolidVM's one inline assembly, ``assembly { dst := mload(add(src, 32)) }``: the platform parses
exactly this block (anything else in ``assembly { }`` is a parse error), runs it as a copy of
variable ``src`` into variable ``dst``, and its compiler's constant-function detector rejects it
in a pure or view function."""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm import CompileError, ExecutionError, ParseError, compile_source

from .conftest import CallFn, DeployFn

COPY = """contract C {
    bytes32 public stored;
    uint public n;
    constructor() {
        string source = "alright.";
        bytes32 result;
        assembly {
              result := mload(add(source, 32))
        }
        stored = result;
    }
    function copy(uint y) public { assembly { n := mload (add (y, 32)) } }
    function broken() public { assembly { n := mload(add(nowhere, 32)) } }
}"""


def test_the_block_copies_one_variable_into_another(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    res = deploy(COPY, "C")
    assert world.state(res.address)["stored"] == "alright."
    call(res.address, "copy", {"y": 7})
    assert world.state(res.address)["n"] == "7"


def test_a_name_neither_local_nor_state_fails_when_the_block_runs(
    deploy: DeployFn, call: CallFn
) -> None:
    # the platform resolves the two names only when the statement runs
    res = deploy(COPY, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "broken")
    assert info.value.message == "unknown variable: assembly: nowhere"


@pytest.mark.parametrize(
    ("block", "at", "message"),
    [
        ("assembly { x := mload(add(y, 0x20)) }", "0x20", "expected '32' but found '0x20'"),
        ("assembly { x : = mload(add(y, 32)) }", ":", "expected ':=' in the assembly block"),
        ("assembly { x := mload(y) }", "y)", "expected 'add' but found 'y'"),
        ("assembly { x := sload(add(y, 32)) }", "sload", "expected 'mload' but found 'sload'"),
        ("assembly { x := mload(add(y, 32)); }", ";", "expected '}' but found ';'"),
    ],
)
def test_any_other_assembly_is_a_parse_error(block: str, at: str, message: str) -> None:
    line = "  function f() public { "
    src = f"contract C {{\n  uint x; uint y;\n{line}{block} }}\n}}"
    with pytest.raises(ParseError) as info:
        compile_source(src)
    assert not isinstance(info.value, CompileError)
    assert (info.value.line, info.value.column) == (3, len(line) + block.index(at) + 1)
    assert info.value.detail.startswith(message)


@pytest.mark.parametrize("mutability", ["pure", "view", "constant"])
def test_rejected_in_pure_and_view_functions(mutability: str) -> None:
    src = f"""contract C {{
  uint x = 5;
  function f(uint y) {mutability} returns (uint) {{
    assembly {{
      x := mload (add (x, 32))
    }}
  }}
}}"""
    with pytest.raises(CompileError) as info:
        compile_source(src)
    shown = "Pure" if mutability == "pure" else "View"  # `constant` is SolidVM's `view`
    assert (info.value.line, info.value.column) == (4, 5)
    assert info.value.detail == f"Just {shown} function using assembly code."


def test_accepted_in_other_functions_constructors_and_modifiers() -> None:
    src = """contract C {
  uint x = 5;
  modifier m(uint y) { assembly { x := mload(add(y, 32)) } _; }
  constructor(uint y) { assembly { x := mload(add(y, 32)) } }
  function f(uint y) public m(y) { assembly { x := mload(add(y, 32)) } }
  function g(uint y) public payable { assembly { x := mload(add(y, 32)) } }
}"""
    assert "C" in compile_source(src).contracts


def test_assembly_names_variables_but_opens_no_other_statement() -> None:
    src = "contract C { uint assembly; function f() public { uint assembly = 2; } }"
    assert "C" in compile_source(src).contracts
    with pytest.raises(ParseError) as info:
        compile_source("contract C { uint assembly; function f() public { assembly = 2; } }")
    assert info.value.detail == "expected '{' after 'assembly' but found '='"
