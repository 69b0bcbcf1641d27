"""Base constructors as the platform's SolidVM runs them (``runTheConstructors``).

A constructor first gives every state variable with an initializer its value (by name), then
runs its direct bases (the last written first; those whose constructor needs arguments it does
not pass are skipped), then its own body. mercata's Voucher tests do ``new Voucher()`` although
Voucher is an ERC20 whose constructor takes (name, symbol): ERC20's constructor is not run.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ExecutionError

from .conftest import DeployFn, RunFn
from .helpers import ALICE, compile_src, make_env

SKIPPED_BASE = """
contract Root {
    uint public rootRan;
    constructor() { rootRan = 1; }
}
contract Token is Root {
    string public name;
    uint public decimals = 18;
    uint public tokenRan;
    constructor(string _name) { name = _name; tokenRan = 1; }
}
contract Voucher is Token {
    uint public voucherRan;
    constructor() { voucherRan = 1; }
}
contract Plain is Token {}
contract BothBases is Token, Root {}
contract Passing is Token {
    constructor() Token("passed") {}
}
contract Maker {
    function make() public returns (string, uint, uint, uint) {
        Voucher v = new Voucher();
        return (v.name(), v.decimals(), v.tokenRan(), v.voucherRan());
    }
}
"""


@pytest.mark.parametrize(
    ("contract", "expected"),
    [
        # Token needs a name nobody passes: its body and its own base (Root) do not run; its
        # state variable initializer does (the created contract initializes all of them)
        ("Voucher", {"name": "", "decimals": "18", "tokenRan": "0", "rootRan": "0"}),
        ("Plain", {"name": "", "decimals": "18", "tokenRan": "0", "rootRan": "0"}),
        # Root is also a direct base here, and takes no arguments: it runs
        ("BothBases", {"tokenRan": "0", "rootRan": "1"}),
        ("Passing", {"name": "passed", "tokenRan": "1", "rootRan": "1"}),
    ],
)
def test_base_constructor_needing_arguments_not_passed_is_skipped(
    contract: str, expected: dict[str, str], deploy: DeployFn, world: Any
) -> None:
    res = deploy(SKIPPED_BASE, contract)
    state = world.state(res.address)
    for key, value in expected.items():
        assert state[key] == value, key


def test_new_of_a_contract_with_a_skipped_base(run: RunFn) -> None:
    assert run(SKIPPED_BASE, "make", contract="Maker") == ["", "18", "0", "1"]


def test_arguments_in_the_inheritance_list_are_dropped(deploy: DeployFn, world: Any) -> None:
    src = """
contract Named {
    string public name;
    constructor(string _name) { name = _name; }
}
contract C is Named("header") {}
contract D is Named("header") {
    constructor() Named("ctor") {}
}
"""
    assert world.state(deploy(src, "C").address)["name"] == ""
    assert world.state(deploy(src, "D").address)["name"] == "ctor"


def test_state_variables_are_initialized_in_name_order(deploy: DeployFn, world: Any) -> None:
    src = """
contract C {
    uint public z = 5;
    uint public a = z * 2;
    uint public zz = z * 3;
}
"""
    state = world.state(deploy(src, "C").address)
    assert (state["a"], state["z"], state["zz"]) == ("0", "5", "15")


def test_bases_run_last_written_first(deploy: DeployFn, world: Any) -> None:
    src = """
contract A { string public log; constructor() { log = log + "A"; } }
contract B { string public log2; constructor() { log2 = log2 + "B"; } }
contract Order is A, B {
    string public seen;
    constructor() { seen = log + log2; }
}
contract Probe is A {
    constructor() { log = log + "P"; }
}
contract Both is Probe, B {
    constructor() { log = log + "!"; }
}
"""
    assert world.state(deploy(src, "Order").address)["seen"] == "AB"
    assert world.state(deploy(src, "Both").address)["log"] == "AP!"


def test_inherited_initializer_runs_again_in_each_base(deploy: DeployFn, world: Any) -> None:
    """Each constructor in the chain initializes the variables it knows, before its bases and
    its body run: a base's body sees them reset, a derived body has the last word."""
    src = """
contract Base {
    uint public x = 1;
    uint public seenByBase;
    constructor() { seenByBase = x; x = 2; }
}
contract Child is Base {
    constructor() { x = x + 10; }
}
"""
    state = world.state(deploy(src, "Child").address)
    assert (state["x"], state["seenByBase"]) == ("12", "1")


def test_constructor_modifier_naming_an_indirect_base_fails(deploy: DeployFn) -> None:
    src = """
contract A { uint public a; constructor(uint v) { a = v; } }
contract B is A { constructor() A(1) {} }
contract C is B { constructor() A(2) {} }
"""
    with pytest.raises(ExecutionError) as info:
        deploy(src, "C")
    assert info.value.message == 'missing field: modifier not found: "A"'


def test_a_diamond_of_many_levels_is_bounded_by_the_step_budget(world: Any) -> None:
    """Each level doubles the constructor runs (2**14 here): the steps pay for them."""
    levels = 14
    lines = ["contract L0 { uint public n; constructor() { n = n + 1; } }"]
    for i in range(1, levels + 1):
        lines.append(f"contract L{i}a is L{i - 1} {{}}")
        lines.append(f"contract L{i} is L{i - 1}, L{i}a {{}}")
    unit = compile_src("\n".join(lines))
    with pytest.raises(ExecutionError) as info:
        world.deploy(unit.contracts[f"L{levels}"], {}, make_env(ALICE), max_steps=10_000)
    assert info.value.kind == "out of gas"


def test_evm_contracts_keep_solidity_order_and_header_arguments(
    deploy: DeployFn, world: Any
) -> None:
    src = """
pragma solidity ^0.8.0;
contract A { string public log; constructor() { log = string(abi.encodePacked(log, "A")); } }
contract B is A { constructor() { log = string(abi.encodePacked(log, "B")); } }
contract C is A { constructor() { log = string(abi.encodePacked(log, "C")); } }
contract D is B, C { constructor() { log = string(abi.encodePacked(log, "D")); } }
contract Named { uint public level; constructor(uint l) { level = l; } }
contract InHeader is Named(7) {}
"""
    assert world.state(deploy(src, "D", vm="EVM").address)["log"] == "ABCD"
    assert world.state(deploy(src, "InHeader", vm="EVM").address)["level"] == "7"


def test_bases_in_any_order_compile_as_on_the_platform(run: RunFn) -> None:
    """`is Token, Root` with Token a Root has no C3 linearization; the platform has none and
    accepts it, finding members in the contract, then in each base as written."""
    src = """
contract Root { function f() public virtual returns (uint) { return 1; } }
contract Token is Root { function f() public virtual override returns (uint) { return 2; } }
contract C is Token, Root {}
"""
    assert run(src, "f") == ["2"]
