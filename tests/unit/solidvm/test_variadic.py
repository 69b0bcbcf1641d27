"""``variadic``: parameters that take the remaining arguments, values passed on, indexed,
returned, emitted, built with ``variadic(...)``; ``msg.data``/``msg.sig``; JSON arguments inferred
like the platform; results rendered as JSON arrays; the limits that stay in force."""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm.errors import CompileError, ExecutionError, ParseError

from .conftest import CallFn, DeployFn, RunFn
from .helpers import ALICE, compile_src, events

BINDING = """
contract C {
    uint public x = 1;
    uint public y = 2;
    string public z = "hi";
    uint public zz = 3;
    uint public fifth;
    function myVariadic(variadic args) internal { x = 2; }
    function myVariadic2(variadic args) internal { y = 3; fifth = uint(args[4]); }
    function myVariadic3(string f, uint i, variadic args) internal { z = f; zz = i; }
    constructor() {
        myVariadic();
        myVariadic2(1, 2, 3, 4, 5);
        myVariadic3("bye", 10, 55, 66, 77);
    }
    function echo(variadic args) public returns (variadic) { return args; }
    function first(variadic args) public returns (uint) { return args[0]; }
    function rest(uint a, variadic more) public returns (variadic) { return more; }
    function forward(uint a, variadic more) public returns (variadic) { return rest(a, more); }
    function spreadAll(variadic more) public returns (variadic) { return rest(more); }
    function nested(variadic more) public returns (variadic) { return echo(variadic(1, more)); }
    function built() public returns (variadic) { return variadic(1, "two", true); }
    function none() public returns (variadic) { }
    function plain() public returns (variadic) { return "just text"; }
    function pair() public returns (bool, variadic) { return (true, variadic(7, 8)); }
    function outOfRange(variadic args) public returns (uint) { return args[3]; }
    function typed(variadic args) public returns (uint) { uint n = args[0]; return n + 1; }
    function sig(uint a, string b) public returns (string) { return msg.sig; }
    function data(uint a, string b) public returns (variadic) { return msg.data; }
}
"""


@pytest.fixture
def binding(deploy: DeployFn) -> str:
    return str(deploy(BINDING, "C").address)


def test_trailing_arguments_bind_into_the_variadic_parameter(binding: str, world: Any) -> None:
    assert world.state(binding) == {
        "x": "2",
        "y": "3",
        "z": "bye",
        "zz": "10",
        "fifth": "5",
    }


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("echo", {"args": [1, "x", True]}, [["1", "x", "true"]]),
        ("echo", {"args": 7}, [["7"]]),  # a single JSON value is one element
        ("echo", {"args": []}, [[]]),
        ("first", {"args": [41, 2]}, ["41"]),
        ("rest", {"a": 1, "more": [2, 3]}, [["2", "3"]]),
        ("forward", {"a": 1, "more": [2, 3]}, [["2", "3"]]),  # passed on as it is
        ("spreadAll", {"more": [1, 2, 3]}, [["2", "3"]]),  # spread over (a, more...)
        ("nested", {"more": [5, 6]}, [["1", "5", "6"]]),
        ("built", {}, [["1", "two", "true"]]),
        ("none", {}, [[]]),
        ("plain", {}, [["just text"]]),
        ("pair", {}, ["true", ["7", "8"]]),
        ("typed", {"args": ["41"]}, ["42"]),
        ("sig", {"a": 1, "b": "x"}, ["sig"]),
        ("data", {"a": 1, "b": "x"}, [["1", "x"]]),
    ],
)
def test_variadic_values(
    binding: str, call: CallFn, method: str, args: dict[str, Any], expected: list[Any]
) -> None:
    assert call(binding, method, args).values == expected


def test_json_values_are_typed_like_the_platform(binding: str, call: CallFn) -> None:
    res = call(
        binding,
        "echo",
        {"args": ["0xabc", "deadbeef", "12", '"cafe"', "hello", [1, 2], "[3]", 2.0]},
    )
    assert res.values == [
        [
            "0000000000000000000000000000000000000abc",
            "00000000000000000000000000000000deadbeef",
            "12",
            "cafe",
            "hello",
            ["1", "2"],
            ["3"],
            "2",
        ]
    ]


def test_bad_json_for_a_variadic_parameter(binding: str, call: CallFn) -> None:
    with pytest.raises(ExecutionError) as info:
        call(binding, "echo", {"args": [{"a": 1}]})
    assert "args[0]" in info.value.message and "objects are not supported" in info.value.message
    with pytest.raises(ExecutionError) as info:
        call(binding, "echo", {"args": [1.5]})
    assert "decimal numbers" in info.value.message


def test_index_out_of_range(binding: str, call: CallFn) -> None:
    with pytest.raises(ExecutionError) as info:
        call(binding, "outOfRange", {"args": [1, 2]})
    assert info.value.message == "index out of bounds: index out of range: 3"


def test_xabi_tags_variadic(binding: str) -> None:
    xabi = compile_src(BINDING).contracts["C"].xabi
    rest = xabi["funcs"]["rest"]
    assert rest["args"]["more"] == {"tag": "Variadic", "index": 1}
    assert rest["vals"]["#0"] == {"tag": "Variadic", "index": 0}
    assert rest["selector"] == "rest(uint256,variadic)"


def test_variadic_struct_member_collects_the_trailing_values(run: RunFn) -> None:
    src = """
struct Op { uint counter; variadic data; }
contract C {
    function f() public returns (uint, variadic) {
        Op memory op = Op(3, "set", 1, 2);
        return (op.counter, op.data);
    }
    function g() public returns (variadic) { Op memory op = Op(1); return op.data; }
}
"""
    assert run(src, "f") == ["3", ["set", "1", "2"]]
    assert run(src, "g") == [[]]


def test_variadic_event_argument(deploy: DeployFn, call: CallFn) -> None:
    src = """
contract C {
    event Said(address who, variadic what);
    function say(variadic what) public { emit Said(msg.sender, what); }
}
"""
    c = deploy(src, "C")
    res = call(c.address, "say", {"what": [1, "x", True]})
    assert events(res) == [("Said", [ALICE, '[1, "x", true]'])]


def test_constructor_takes_a_variadic(deploy: DeployFn, world: Any) -> None:
    src = """
contract C {
    uint public n;
    string public s;
    constructor(uint a, variadic more) { n = a + uint(more[1]); s = more[0]; }
}
contract F {
    C public c;
    constructor() { c = new C(1, "made", 41); }
}
"""
    c = deploy(src, "C", {"a": 2, "more": ["api", 3]})
    assert world.state(c.address) == {"n": "5", "s": "api"}
    f = deploy(src, "F")
    child = world.state(f.address)["c"]
    assert world.state(child) == {"n": "42", "s": "made"}


def test_a_call_with_too_few_values_for_the_fixed_parameters_fails(run: RunFn) -> None:
    src = """
contract C {
    function two(uint a, uint b, variadic more) internal returns (uint) { return a + b; }
    function f(variadic v) public returns (uint) { return two(v); }
}
"""
    assert run(src, "f", {"v": [1, 2, 3]}) == ["3"]
    with pytest.raises(ExecutionError) as info:
        run(src, "f", {"v": [1]})
    assert info.value.message.startswith("type error: argument type mismatch in 'two'")


def test_variadic_of_wrong_types_fails_when_bound(run: RunFn) -> None:
    src = """
contract C {
    function need(uint a, variadic more) internal returns (uint) { return a; }
    function f(variadic v) public returns (uint) { return need(v); }
}
"""
    with pytest.raises(ExecutionError) as info:
        run(src, "f", {"v": ["word", 1]})
    assert "argument type mismatch in 'need'" in info.value.message


@pytest.mark.parametrize(
    ("src", "error", "line", "column", "text"),
    [
        (
            "contract C {\n  function f(variadic a, uint b) public {}\n}",
            ParseError,
            2,
            14,
            "variadic parameter must be the last parameter",
        ),
        (
            "contract C {\n  function f(uint a, variadic b, variadic c) public {}\n}",
            ParseError,
            2,
            34,
            "only one variadic parameter is allowed",
        ),
        (
            "contract C {\n  variadic v;\n}",
            CompileError,
            2,
            3,
            "state variable 'v' cannot hold variadic values",
        ),
        (
            "struct S { variadic d; }\ncontract C {\n  mapping(uint => S) m;\n}",
            CompileError,
            3,
            3,
            "state variable 'm' cannot hold variadic values",
        ),
        (
            "contract C {\n  function f(variadic a) public returns (uint) {\n"
            "    return a.length;\n  }\n}",
            CompileError,
            3,
            12,
            "a variadic value has no member 'length'",
        ),
        (
            "contract C {\n  function f(variadic a) public {\n    a[0] = 1;\n  }\n}",
            CompileError,
            3,
            5,
            "cannot assign to an element of variadic",
        ),
        (
            "contract C {\n  uint x = msg.data[0];\n}",
            CompileError,
            2,
            12,
            "'msg.data' is only available inside a function or modifier",
        ),
    ],
)
def test_variadic_errors(src: str, error: type, line: int, column: int, text: str) -> None:
    with pytest.raises(error) as info:
        compile_src(src)
    err = info.value
    assert isinstance(err, ParseError)
    assert (err.line, err.column) == (line, column)
    assert text in err.message


def test_msg_sig_and_data_inside_a_modifier(run: RunFn) -> None:
    src = """
contract C {
    string public seen;
    uint public firstArg;
    modifier note() { seen = msg.sig; firstArg = msg.data[0]; _; }
    function act(uint a, string b) public note returns (string, uint) { return (seen, firstArg); }
}
"""
    assert run(src, "act", {"a": 9, "b": "x"}) == ["act", "9"]


def test_spreading_a_huge_variadic_is_refused(run: RunFn) -> None:
    src = """
contract C {
    function count(variadic v) internal returns (uint) { return 1; }
    function f(variadic v) public returns (uint) { return count(1, v); }
}
"""
    with pytest.raises(ExecutionError) as info:
        run(src, "f", {"v": list(range(20_000))})
    assert "at most 10000 arguments" in info.value.message


def test_building_variadics_is_charged_to_memory(deploy: DeployFn, call: CallFn) -> None:
    src = """
contract C {
    function f(uint n) public returns (uint) {
        variadic v = variadic(1, 2, 3, 4, 5, 6, 7, 8);
        for (uint i = 0; i < n; i++) { v = variadic(1, 2, 3, 4, 5, 6, 7, 8, v); }
        return 1;
    }
}
"""
    c = deploy(src, "C")
    assert call(c.address, "f", {"n": 3}).values == ["1"]
    with pytest.raises(ExecutionError) as info:
        call(c.address, "f", {"n": 10_000_000}, max_steps=100_000)
    assert info.value.kind in ("out of gas", "memory limit")


def test_free_and_library_functions_take_variadics(run: RunFn) -> None:
    src = """
function tagged(string tag, variadic xs) returns (variadic) { return variadic(tag, xs[0]); }
library L {
    function plus(uint a, variadic xs) internal returns (uint) { return a + uint(xs[0]); }
}
contract C {
    function f() public returns (variadic) { return tagged("t", 5, 6); }
    function g() public returns (uint) { return L.plus(1, 2, 3); }
}
"""
    assert run(src, "f") == [["t", "5"]]
    assert run(src, "g") == ["3"]
