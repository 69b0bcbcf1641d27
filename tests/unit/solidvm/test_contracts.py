"""Contracts and functions: constructors, state variables, getters, returns, tuples, modifiers."""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import ExecutionError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import ALICE, BOB, c, values

# ---------------------------------------------------------------- constructors

NEW_STYLE = """
contract Box {
    uint public value;
    string public label;
    address public creator;
    constructor(uint _value, string _label) public {
        value = _value;
        label = _label;
        creator = msg.sender;
    }
}
"""

OLD_STYLE = """
contract Box {
    uint public value;
    string public label;
    address public creator;
    function Box(uint _value, string _label) public {
        value = _value;
        label = _label;
        creator = msg.sender;
    }
}
"""


@pytest.mark.parametrize("src", [NEW_STYLE, OLD_STYLE], ids=["constructor", "function-Name"])
def test_constructor_styles_set_state(src: str, deploy: DeployFn, world: Any) -> None:
    res = deploy(src, "Box", {"_value": 17, "_label": "crate"}, sender=BOB)
    assert len(res.address) == 40
    assert res.address == res.address.lower()
    state = world.state(res.address)
    assert state["value"] == "17"
    assert state["label"] == "crate"
    assert state["creator"] == BOB


@pytest.mark.parametrize("src", [NEW_STYLE, OLD_STYLE], ids=["constructor", "function-Name"])
def test_constructor_runs_only_once(src: str, deploy: DeployFn, call: CallFn) -> None:
    res = deploy(src, "Box", {"_value": 3, "_label": "x"})
    assert values(call(res.address, "value")) == ["3"]
    with pytest.raises(ExecutionError):
        call(res.address, "Box", {"_value": 9, "_label": "y"})
    assert values(call(res.address, "value")) == ["3"]


def test_two_deploys_get_distinct_addresses(deploy: DeployFn, world: Any) -> None:
    a = deploy(NEW_STYLE, "Box", {"_value": 1, "_label": "a"})
    b = deploy(NEW_STYLE, "Box", {"_value": 2, "_label": "b"})
    assert a.address != b.address
    assert world.state(a.address)["value"] == "1"
    assert world.state(b.address)["value"] == "2"


# ---------------------------------------------------------------- state variables and getters

STATE_INIT = c(
    """
    uint public x = 7;
    uint public y = x * 6;
    int public neg = -12;
    string public s = "hi" + " there";
    bool public flag = true;
    address public zero = address(0);
    uint[] public list = [1, 2, 3];
    uint private hidden = 99;
    function getHidden() public view returns (uint) { return hidden; }
"""
)


@pytest.mark.parametrize(
    ("getter", "expected"),
    [
        ("x", "7"),
        ("y", "42"),
        ("neg", "-12"),
        ("s", "hi there"),
        ("flag", "true"),
        ("zero", "0" * 40),
        ("getHidden", "99"),
    ],
)
def test_state_initializers_and_public_getters(
    getter: str, expected: str, deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(STATE_INIT, "C")
    assert values(call(res.address, getter)) == [expected]


def test_state_initializers_visible_in_world_state(deploy: DeployFn, world: Any) -> None:
    res = deploy(STATE_INIT, "C")
    state = world.state(res.address)
    assert state["x"] == "7"
    assert state["y"] == "42"
    assert state["neg"] == "-12"
    assert state["s"] == "hi there"
    assert state["flag"] == "true"
    assert state["list"] == ["1", "2", "3"]
    assert state["hidden"] == "99"


GETTER_TARGET = """
contract Store {
    mapping(address => uint) public balances;
    mapping(string => mapping(uint => string)) public names;
    uint[] public items;
    struct Pair { uint a; string b; }
    Pair public pair;
    constructor() public {
        balances[msg.sender] = 500;
        names["k"][3] = "three";
        items.push(10);
        items.push(20);
        items.push(30);
        pair = Pair(4, "four");
    }
}
contract Reader {
    Store store;
    constructor(address s) public { store = Store(s); }
    function balanceOf(address who) public view returns (uint) { return store.balances(who); }
    function name(string k, uint i) public view returns (string) { return store.names(k, i); }
    function item(uint i) public view returns (uint) { return store.items(i); }
}
"""


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("balanceOf", {"who": ALICE}, "500"),
        ("balanceOf", {"who": BOB}, "0"),
        ("name", {"k": "k", "i": 3}, "three"),
        ("name", {"k": "k", "i": 4}, ""),
        ("item", {"i": 0}, "10"),
        ("item", {"i": 2}, "30"),
    ],
)
def test_external_getters_with_keys_and_indices(
    method: str, args: dict[str, Any], expected: str, deploy: DeployFn, call: CallFn
) -> None:
    store = deploy(GETTER_TARGET, "Store")
    reader = deploy(GETTER_TARGET, "Reader", {"s": store.address})
    assert values(call(reader.address, method, args)) == [expected]


def test_array_getter_past_the_end_reads_the_default(deploy: DeployFn, call: CallFn) -> None:
    # SolidVM reads storage arrays at any index: past the end it finds the default
    store = deploy(GETTER_TARGET, "Store")
    reader = deploy(GETTER_TARGET, "Reader", {"s": store.address})
    assert values(call(reader.address, "item", {"i": 3})) == ["0"]


def test_struct_state_variable_in_world_state(deploy: DeployFn, world: Any) -> None:
    store = deploy(GETTER_TARGET, "Store")
    state = world.state(store.address)
    assert state["pair"] == {"a": "4", "b": "four"}
    assert state["items"] == ["10", "20", "30"]
    assert state["balances"] == {ALICE: "500"}


# ---------------------------------------------------------------- functions

FUNCS = c(
    """
    uint public counter;
    function pureAdd(uint a, uint b) public pure returns (uint) { return a + b; }
    function viewCounter() public view returns (uint) { return counter; }
    function pay() public payable returns (uint) { counter += 1; return counter; }
    function ext(uint a) external returns (uint) { counter = a; return a * 2; }
    function helper(uint a) internal pure returns (uint) { return a * 10; }
    function priv(uint a) private pure returns (uint) { return a + 1; }
    function useHelpers(uint a) public pure returns (uint) { return helper(priv(a)); }
    function noReturn() public { counter = 100; }
"""
)


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("pureAdd", {"a": 2, "b": 40}, ["42"]),
        ("viewCounter", {}, ["0"]),
        ("pay", {}, ["1"]),
        ("ext", {"a": 21}, ["42"]),
        ("useHelpers", {"a": 4}, ["50"]),
        ("noReturn", {}, []),
    ],
)
def test_function_kinds(
    method: str, args: dict[str, Any], expected: list[str], deploy: DeployFn, call: CallFn
) -> None:
    res = deploy(FUNCS, "C")
    assert values(call(res.address, method, args)) == expected


def test_state_persists_between_calls(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(FUNCS, "C")
    call(res.address, "pay")
    call(res.address, "pay")
    assert values(call(res.address, "pay")) == ["3"]
    assert world.state(res.address)["counter"] == "3"
    call(res.address, "noReturn")
    assert values(call(res.address, "viewCounter")) == ["100"]


def test_unknown_function(deploy: DeployFn, call: CallFn) -> None:
    res = deploy(FUNCS, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "doesNotExist")
    assert info.value.message.startswith("unknown function")
    assert "doesNotExist" in info.value.message


RETURNS = c(
    """
    function multi() public pure returns (uint, string, bool) { return (1, "two", true); }
    function named() public pure returns (uint a, string b) { a = 5; b = "five"; }
    function namedEarly() public pure returns (uint a, uint b) { a = 1; b = 2; return (a + 10, b); }
    function three() internal pure returns (uint, bool, string) { return (7, false, "seven"); }
    function tupleDecl() public pure returns (uint, string) {
        (uint x, , string memory s) = three();
        return (x, s);
    }
    function tupleAssign() public pure returns (uint, bool) {
        uint x;
        bool b;
        (x, b, ) = three();
        return (x, b);
    }
    function swapLocals() public pure returns (uint, uint) {
        uint a = 1;
        uint b = 2;
        (a, b) = (b, a);
        return (a, b);
    }
    uint public p = 10;
    uint public q = 20;
    function swapState() public returns (uint, uint) {
        (p, q) = (q, p);
        return (p, q);
    }
"""
)


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("multi", ["1", "two", "true"]),
        ("named", ["5", "five"]),
        ("namedEarly", ["11", "2"]),
        ("tupleDecl", ["7", "seven"]),
        ("tupleAssign", ["7", "false"]),
        ("swapLocals", ["2", "1"]),
        ("swapState", ["20", "10"]),
    ],
)
def test_returns_and_tuples(method: str, expected: list[str], run: RunFn) -> None:
    assert run(RETURNS, method) == expected


def test_state_swap_is_persisted(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(RETURNS, "C")
    call(res.address, "swapState")
    state = world.state(res.address)
    assert (state["p"], state["q"]) == ("20", "10")


def test_named_call_arguments_inside_contract(run: RunFn) -> None:
    src = c(
        """
    function sub(uint a, uint b) internal pure returns (uint) { return a - b; }
    function f() public pure returns (uint) { return sub({b: 3, a: 10}); }
"""
    )
    assert run(src, "f") == ["7"]


# ---------------------------------------------------------------- modifiers

MODIFIERS = c(
    """
    address public owner;
    uint public value;
    string public log;
    constructor() public { owner = msg.sender; }
    modifier onlyOwner() {
        require(msg.sender == owner, "only owner");
        _;
    }
    modifier atLeast(uint n, string what) {
        require(value >= n, what);
        _;
    }
    modifier tagged(string t) {
        log = log + "<" + t;
        _;
        log = log + t + ">";
    }
    function set(uint v) public onlyOwner { value = v; }
    function big() public atLeast(10, "value too small") returns (uint) { return value * 2; }
    function wrapped() public tagged("a") tagged("b") { log = log + "|"; }
"""
)


def test_modifier_allows_owner(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(MODIFIERS, "C")
    call(res.address, "set", {"v": 12})
    assert world.state(res.address)["value"] == "12"


def test_modifier_rejects_non_owner(deploy: DeployFn, call: CallFn, world: Any) -> None:
    res = deploy(MODIFIERS, "C")
    with pytest.raises(ExecutionError) as info:
        call(res.address, "set", {"v": 12}, sender=BOB)
    assert info.value.message == "solidity require failed: only owner"
    assert "value" not in world.state(res.address) or world.state(res.address)["value"] == "0"


@pytest.mark.parametrize(("value", "ok"), [(9, False), (10, True), (11, True)])
def test_modifier_with_arguments(value: int, ok: bool, deploy: DeployFn, call: CallFn) -> None:
    res = deploy(MODIFIERS, "C")
    call(res.address, "set", {"v": value})
    if ok:
        assert values(call(res.address, "big")) == [str(value * 2)]
    else:
        with pytest.raises(ExecutionError) as info:
            call(res.address, "big")
        assert info.value.message == "solidity require failed: value too small"


def test_modifier_code_runs_around_body_in_order(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    res = deploy(MODIFIERS, "C")
    call(res.address, "wrapped")
    assert world.state(res.address)["log"] == "<a<b|b>a>"
