"""Libraries: ``using L for T`` / ``using L for *``, ``L.f(...)`` calls, library members and limits.

Library code runs in the calling contract's account (the platform never deploys libraries), so
storage passed to it by reference is the caller's and persists; value types are copied.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import CompileError, ExecutionError, ParseError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import compile_src, events

SAFE_MATH = """
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
    function mul(uint a, uint b) internal pure returns (uint) {
        return a * b;
    }
}
"""

TOKEN = (
    SAFE_MATH
    + """
contract Token {
    using SafeMath for uint;
    mapping(address => uint) public balances;
    uint public moves;
    constructor(uint supply) public { balances[msg.sender] = supply; }
    function transfer(address to, uint amount) public returns (bool) {
        balances[msg.sender] = balances[msg.sender].sub(amount);
        balances[to] = balances[to].add(amount);
        moves = moves.add(1);
        return true;
    }
    function chain(uint x) public pure returns (uint) { return x.add(2).mul(3).sub(1); }
}
"""
)

COUNTERS = """
library Counters {
    struct Counter { uint value; }
    function increment(Counter storage c) internal { c.value += 1; }
    function add(Counter storage c, uint n) internal { c.value = c.value + n; }
    function current(Counter storage c) internal view returns (uint) { return c.value; }
}
library Arrays {
    function pushTwice(uint[] storage a, uint v) internal { a.push(v); a.push(v); }
    function total(uint[] storage a) internal view returns (uint s) {
        for (uint i = 0; i < a.length; i++) { s += a[i]; }
    }
}
library Values {
    function bump(uint v) internal pure returns (uint) { v = v + 100; return v; }
}
contract Store {
    using Counters for Counters.Counter;
    using Arrays for uint[];
    using Values for uint;
    Counters.Counter public counter;
    mapping(string => Counters.Counter) byName;
    uint[] public items;
    function tick() public returns (uint) { counter.increment(); return counter.current(); }
    function tickBy(uint n) public { counter.add(n); }
    function tickName(string name) public returns (uint) {
        byName[name].increment();
        return byName[name].current();
    }
    function peekName(string name) public view returns (uint) { return byName[name].current(); }
    function fill(uint v) public returns (uint) { items.pushTwice(v); return items.total(); }
    function copied(uint x) public pure returns (uint before, uint bumped) {
        bumped = x.bump();
        before = x;
    }
}
"""


def test_using_for_uint_transfers_through_the_library(deploy: DeployFn, call: CallFn) -> None:
    token = deploy(TOKEN, "Token", {"supply": 1000}).address
    res = call(token, "transfer", {"to": "b2" * 20, "amount": 300})
    assert res.values == ["true"]
    assert call(token, "balances", {"key": "b2" * 20}).values == ["300"]
    assert call(token, "balances", {"key": "a1" * 20}).values == ["700"]
    assert call(token, "moves").values == ["1"]


def test_chained_calls_use_each_result_as_the_next_receiver(deploy: DeployFn, call: CallFn) -> None:
    token = deploy(TOKEN, "Token", {"supply": 1}).address
    assert call(token, "chain", {"x": 5}).values == ["20"]  # (5+2)*3-1


def test_require_in_a_library_fails_the_whole_transaction(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    token = deploy(TOKEN, "Token", {"supply": 10}).address
    with pytest.raises(ExecutionError) as info:
        call(token, "transfer", {"to": "b2" * 20, "amount": 11})
    assert info.value.message == "solidity require failed: SafeMath: subtraction overflow"
    assert world.state(token)["moves"] == "0"
    assert call(token, "balances", {"key": "a1" * 20}).values == ["10"]


def test_storage_struct_receiver_is_changed_in_place_and_persists(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    store = deploy(COUNTERS, "Store").address
    assert call(store, "tick").values == ["1"]
    assert call(store, "tick").values == ["2"]
    call(store, "tickBy", {"n": 5})
    assert world.state(store)["counter"] == {"value": "7"}


def test_mapping_entry_receiver_is_created_and_kept(deploy: DeployFn, call: CallFn) -> None:
    store = deploy(COUNTERS, "Store").address
    assert call(store, "tickName", {"name": "a"}).values == ["1"]
    assert call(store, "tickName", {"name": "a"}).values == ["2"]
    assert call(store, "tickName", {"name": "b"}).values == ["1"]
    assert call(store, "peekName", {"name": "a"}).values == ["2"]
    assert call(store, "peekName", {"name": "never"}).values == ["0"]


def test_storage_array_receiver_persists(deploy: DeployFn, call: CallFn, world: Any) -> None:
    store = deploy(COUNTERS, "Store").address
    assert call(store, "fill", {"v": 4}).values == ["8"]
    assert call(store, "fill", {"v": 1}).values == ["10"]
    assert world.state(store)["items"] == ["4", "4", "1", "1"]


def test_value_type_receiver_is_passed_by_value(run: RunFn) -> None:
    assert run(COUNTERS, "copied", {"x": 1}, contract="Store") == ["1", "101"]


LIB_MEMBERS = """
uint constant FILE_MAX = 3;
library Shapes {
    uint constant SIDES = 4;
    struct Box { uint w; uint h; }
    enum Kind { Square, Oblong }
    event Measured(uint area);
    function area(Box memory b) internal pure returns (uint) { return b.w * b.h; }
    function kind(Box memory b) public pure returns (Kind) {
        return b.w == b.h ? Kind.Square : Kind.Oblong;
    }
    function measure(Box memory b) public returns (uint a) {
        a = area(b);
        emit Measured(a);
    }
    function where() public view returns (address) { return address(this); }
    function sides() internal pure returns (uint) { return SIDES; }
    function sides(uint n) internal pure returns (uint) { return n * SIDES; }
}
contract Plan {
    using Shapes for *;
    uint public last;
    function qualified() public returns (uint) {
        Shapes.Box memory b = Shapes.Box(2, 3);
        return Shapes.area(b) + Shapes.SIDES + uint(Shapes.kind(b)) + Shapes.sides(2);
    }
    function plainNames() public returns (uint) {
        Box memory b = Box(5, 5);
        return b.area() + SIDES + uint(Kind.Oblong) + sides();
    }
    function enumValue() public pure returns (Shapes.Kind) { return Shapes.Kind.Oblong; }
    function measured() public returns (uint) { last = Shapes.Box(4, 5).measure(); return last; }
    function here() public view returns (address, address) {
        return (Shapes.where(), address(this));
    }
    function fromEvent() public { emit Measured(9); emit Shapes.Measured(10); }
}
"""


def test_library_constants_structs_enums_qualified(run: RunFn) -> None:
    # area 6 + SIDES 4 + Oblong 1 + sides(2) 8
    assert run(LIB_MEMBERS, "qualified", contract="Plan") == ["19"]
    assert run(LIB_MEMBERS, "enumValue", contract="Plan") == ["1"]


def test_using_lends_the_library_s_names(run: RunFn) -> None:
    # 25 + 4 + 1 + 4: the platform merges a used library's types, constants and functions
    assert run(LIB_MEMBERS, "plainNames", contract="Plan") == ["34"]


def test_public_library_function_runs_in_the_caller(deploy: DeployFn, call: CallFn) -> None:
    plan = deploy(LIB_MEMBERS, "Plan").address
    res = call(plan, "measured")
    assert res.values == ["20"]
    assert [(e.name, e.address) for e in res.events] == [("Measured", plan)]
    assert events(res) == [("Measured", ["20"])]
    here, me = call(plan, "here").values
    assert here == me == plan


def test_library_events_can_be_emitted_by_the_contract(deploy: DeployFn, call: CallFn) -> None:
    plan = deploy(LIB_MEMBERS, "Plan").address
    assert events(call(plan, "fromEvent")) == [("Measured", ["9"]), ("Measured", ["10"])]


NO_CAPTURE = """
library L {
    function helper() internal pure returns (uint) { return 1; }
    function run() internal pure returns (uint) { return helper() * 10; }
}
function freeHelper() pure returns (uint) { return 2; }
function freeRun() pure returns (uint) { return freeHelper() * 10; }
contract C {
    function helper() public pure returns (uint) { return 7; }
    function freeHelper() public pure returns (uint) { return 8; }
    function viaLib() public pure returns (uint) { return L.run(); }
    function viaFree() public pure returns (uint) { return freeRun(); }
}
"""


def test_library_internal_calls_are_not_captured_by_the_caller(run: RunFn) -> None:
    assert run(NO_CAPTURE, "viaLib") == ["10"]
    assert run(NO_CAPTURE, "viaFree") == ["20"]


NESTED = """
library Digits {
    function digit(uint x) internal pure returns (uint) { return x % 10; }
}
library Sum {
    using Digits for uint;
    function digitSum(uint x) internal pure returns (uint s) {
        while (x > 0) { s += x.digit(); x /= 10; }
    }
}
library Who {
    function isZero(address a) internal pure returns (bool) { return a == address(0); }
}
contract C {
    using Sum for uint;
    using Who for address;
    function f(uint x) public pure returns (uint) { return x.digitSum(); }
    function g(address a) public view returns (bool, bool) {
        return (a.isZero(), msg.sender.isZero());
    }
}
"""


def test_library_using_another_library_and_address_receivers(run: RunFn) -> None:
    assert run(NESTED, "f", {"x": 1234}) == ["10"]
    assert run(NESTED, "g", {"a": "0" * 40}) == ["true", "false"]


INHERIT = (
    SAFE_MATH
    + """
contract Base {
    using SafeMath for uint;
    uint public total;
    function addTo(uint x) public returns (uint) { total = total.add(x); return total; }
}
contract Derived is Base {
    function twice(uint x) public returns (uint) { addTo(x); return addTo(x); }
}
"""
)


def test_inherited_functions_keep_their_contract_s_using(run: RunFn) -> None:
    assert run(INHERIT, "twice", {"x": 4}, contract="Derived") == ["8"]


def test_using_is_not_inherited_by_derived_code() -> None:
    src = INHERIT.replace(
        "function twice(uint x) public returns (uint) { addTo(x); return addTo(x); }",
        "function twice(uint x) public returns (uint) { return x.add(x); }",
    )
    with pytest.raises(CompileError, match="type uint256 has no function 'add'"):
        compile_src(src)


def test_xabi_using_section_and_library_kind() -> None:
    unit = compile_src(COUNTERS + NESTED.replace("contract C", "contract D"))
    store = unit.contracts["Store"].xabi
    assert store["using"] == {
        "Counters.Counter": [{"using": "Counters", "for": "Counters.Counter"}],
        "uint[]": [{"using": "Arrays", "for": "uint[]"}],
        "uint": [{"using": "Values", "for": "uint"}],
    }
    assert unit.contracts["Sum"].xabi["using"] == {"uint": [{"using": "Digits", "for": "uint"}]}
    assert unit.contracts["Counters"].xabi["kind"] == "LibraryKind"
    star = compile_src(LIB_MEMBERS).contracts["Plan"].xabi["using"]
    assert star == {"*": [{"using": "Shapes", "for": "*"}]}
    assert compile_src(SAFE_MATH + "contract E {}").contracts["E"].xabi["using"] == {}
    two = compile_src(
        SAFE_MATH + LIB + "contract F {\n    using SafeMath for uint;\n    using L for uint;\n}\n"
    )
    assert two.contracts["F"].xabi["using"] == {
        "uint": [{"using": "L", "for": "uint"}, {"using": "SafeMath", "for": "uint"}]
    }


def test_a_library_cannot_be_deployed(world: Any) -> None:
    from .helpers import make_env

    unit = compile_src(SAFE_MATH)
    with pytest.raises(ExecutionError, match="cannot deploy library 'SafeMath'"):
        world.deploy(unit.contracts["SafeMath"], {}, make_env("a1" * 20))


LIMITS = """
library Deep {
    function down(uint n) internal pure returns (uint) { return n == 0 ? 0 : down(n - 1) + 1; }
    function spin(uint n) internal pure returns (uint s) {
        for (uint i = 0; i < n; i++) { s += i; }
    }
}
contract C {
    using Deep for uint;
    uint public marker;
    function deep(uint n) public returns (uint) { marker = 1; return n.down(); }
    function busy(uint n) public returns (uint) { marker = 2; return n.spin(); }
}
"""


def test_limits_hold_inside_library_code(deploy: DeployFn, call: CallFn, world: Any) -> None:
    c = deploy(LIMITS, "C").address
    assert call(c, "deep", {"n": 20}).values == ["20"]
    with pytest.raises(ExecutionError) as deep:
        call(c, "deep", {"n": 500})
    assert deep.value.kind == "stack too deep"
    with pytest.raises(ExecutionError) as busy:
        call(c, "busy", {"n": 10**9}, max_steps=5_000)
    assert busy.value.kind == "out of gas"
    assert world.state(c)["marker"] == "1"  # the failed calls left nothing behind


# ------------------------------------------------------------ compile errors, with positions

LIB = "library L {\n    function f(uint a) internal pure returns (uint) { return a; }\n}\n"

ERRORS = [
    pytest.param(
        "contract C {\n    using Nope for uint;\n}\n",
        2,
        5,
        "library 'Nope' is not declared",
        id="unknown-library",
    ),
    pytest.param(
        "contract D {}\ncontract C {\n    using D for uint;\n}\n",
        3,
        5,
        "'D' is a contract, not a library",
        id="not-a-library",
    ),
    pytest.param(
        LIB + "contract C {\n    using L for Nope;\n}\n",
        5,
        17,
        "unknown type 'Nope'",
        id="unknown-target-type",
    ),
    pytest.param(
        LIB + "contract C {\n    using L for uint;\n"
        "    function g(uint x) public returns (uint) {\n        return x.nope();\n    }\n}\n",
        7,
        16,
        "type uint256 has no function 'nope' (none in the libraries attached to it: L)",
        id="function-not-found-for-type",
    ),
    pytest.param(
        LIB + "contract C {\n    using L for uint;\n"
        "    function g(string s) public returns (uint) {\n        return s.f();\n    }\n}\n",
        7,
        16,
        "function 'L.f' is attached to uint, not to string",
        id="wrong-receiver-type",
    ),
    pytest.param(
        LIB + "contract C {\n    using L for *;\n"
        "    function g(bool b) public returns (uint) {\n        return b.f();\n    }\n}\n",
        7,
        16,
        "function 'L.f' takes a uint256 as its receiver, not a bool",
        id="receiver-does-not-fit-first-parameter",
    ),
    pytest.param(
        LIB + "contract C {\n    using L for uint;\n"
        "    function g(uint x) public returns (uint) {\n        return x.f(1, 2);\n    }\n}\n",
        7,
        16,
        "function 'L.f' takes 0 arguments after its receiver, 2 given",
        id="wrong-argument-count",
    ),
    pytest.param(
        "library L {\n    function f() private pure returns (uint) { return 1; }\n}\n"
        "contract C {\n    function g() public returns (uint) {\n        return L.f();\n    }\n}\n",
        6,
        16,
        "function 'L.f' is private to library L",
        id="private-library-function",
    ),
    pytest.param(
        LIB + "contract C {\n    function g() public returns (uint) {\n        return L.g(1);\n"
        "    }\n}\n",
        6,
        16,
        "contract L has no function 'g'",
        id="unknown-library-function",
    ),
    pytest.param(
        "library L {\n    uint counter;\n}\ncontract C {}\n",
        2,
        5,
        "library 'L' cannot have state variables (only constants): 'counter'",
        id="library-state-variable",
    ),
    pytest.param(
        "library L {\n    constructor() public {}\n}\n",
        2,
        5,
        "library 'L' cannot have a constructor",
        id="library-constructor",
    ),
]


@pytest.mark.parametrize(("src", "line", "column", "message"), ERRORS)
def test_compile_errors(src: str, line: int, column: int, message: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_src(src)
    assert (info.value.line, info.value.column) == (line, column)
    assert message in info.value.message
    assert info.value.message.startswith(f"line {line}, column {column}: ")


def test_file_level_using_is_rejected_like_the_platform() -> None:
    with pytest.raises(ParseError) as info:
        compile_src(LIB + "using L for uint;\ncontract C {}\n")
    assert (info.value.line, info.value.column) == (4, 1)
    assert "'using ... for' must be declared inside a contract or library" in info.value.message


def test_using_a_list_of_functions_is_rejected() -> None:
    with pytest.raises(ParseError, match=r"line 2, column 11: 'using \{\.\.\.\} for'"):
        compile_src("contract C {\n    using {f} for uint;\n}\n")
