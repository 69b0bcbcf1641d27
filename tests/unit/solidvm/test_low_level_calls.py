"""SolidVM's low-level calls: ``a.call("f", args...)``, ``delegatecall``, ``staticcall``.

The function is named by a string; the call returns what the function returns (no success
flag): a missing function or a failure inside raises like any call and undoes everything.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm import TxEnv
from app.node.solidvm.errors import CompileError, ExecutionError

from .conftest import CallFn, DeployFn
from .helpers import ALICE, compile_src

TARGET = """
contract T {
    uint public v;
    string public val = "hello";
    address public lastSender;
    function set(uint x) public returns (uint) { v = x; lastSender = msg.sender; return x * 2; }
    function two(uint a, string b) public returns (uint, string) { return (a + 1, b); }
    function nothing() public { v = 99; }
    function boom() public { v = 7; require(false, "nope"); }
    function hidden() internal returns (uint) { return 1; }
    function tail(uint a, variadic more) public returns (variadic) { return more; }
    function pick(uint a) public returns (string) { return "uint"; }
    function pick(string a) public returns (string) { return "string"; }
}
contract C {
    T public t;
    uint public mark;
    constructor() { t = new T(); }
    function go(uint x) public returns (variadic) { return address(t).call("set", x); }
    function goSig(uint x) public returns (variadic) {
        return address(t).call("set(uint256)", x);
    }
    function tuple() public returns (uint, string) {
        (uint a, string b) = address(t).call("two", 4, "s");
        return (a, b);
    }
    function getter() public returns (string) {
        string memory s = address(t).call("val");
        return s;
    }
    function empty() public returns (variadic) { return address(t).call("nothing"); }
    function fail() public { mark = 1; address(t).call("boom"); }
    function missing() public { address(t).call("nothere", 1); }
    function hid() public { address(t).call("hidden"); }
    function wrongTypes() public { address(t).call("set", "text"); }
    function stat() public returns (variadic) { return address(t).staticcall("set", 3); }
    function statRead() public returns (variadic) { return address(t).staticcall("v"); }
    function spread(variadic a) public returns (variadic) { return address(t).call("tail", a); }
    function byName(string f, variadic a) public returns (variadic) {
        return address(t).call(f, a);
    }
    function overloaded(variadic a) public returns (variadic) {
        return address(t).call("pick", a);
    }
    function self() public returns (variadic) { return this.call("mark"); }
    function noContract() public { address(0x1234).call("f"); }
    function recurse(uint n) public returns (variadic) {
        return this.call("recurse", n + 1);
    }
}
"""


@pytest.fixture
def c(deploy: DeployFn) -> str:
    return str(deploy(TARGET, "C").address)


def target_of(world: Any, c: str) -> str:
    return str(world.state(c)["t"])


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("go", {"x": 5}, [["10"]]),
        ("goSig", {"x": 6}, [["12"]]),  # "name(types)" names the function
        ("tuple", {}, ["5", "s"]),
        ("getter", {}, ["hello"]),  # a public variable's getter
        ("empty", {}, [[]]),
        ("statRead", {}, [["0"]]),
        ("spread", {"a": [1, 2, 3]}, [["2", "3"]]),
        ("byName", {"f": "two", "a": [1, "x"]}, [["2", "x"]]),
        ("overloaded", {"a": [1]}, [["uint"]]),  # overloads chosen by the values' types
        ("overloaded", {"a": ["w"]}, [["string"]]),
        ("self", {}, [["0"]]),
    ],
)
def test_call_returns_what_the_function_returns(
    c: str, call: CallFn, method: str, args: dict[str, Any], expected: list[Any]
) -> None:
    assert call(c, method, args).values == expected


def test_the_callee_sees_the_calling_contract_as_sender(c: str, call: CallFn, world: Any) -> None:
    call(c, "go", {"x": 5})
    assert world.state(target_of(world, c))["lastSender"] == c


@pytest.mark.parametrize(
    ("method", "kind", "text"),
    [
        ("fail", "require", "solidity require failed: nope"),
        ("missing", "unknown function", "contract T has no function named 'nothere'"),
        ("hid", "unknown function", "'hidden' of T is not public"),
        ("wrongTypes", "type error", "argument type mismatch in 'set'"),
        ("stat", "invalid write", "invalid write: state cannot change here"),
        ("noContract", "unknown contract", "no contract at address"),
    ],
)
def test_failures_raise_and_undo_everything(
    c: str, call: CallFn, world: Any, method: str, kind: str, text: str
) -> None:
    before = (world.state(c), world.state(target_of(world, c)))
    with pytest.raises(ExecutionError) as info:
        call(c, method)
    assert info.value.kind == kind
    assert text in info.value.message
    assert (world.state(c), world.state(target_of(world, c))) == before


def test_endless_recursion_through_call_hits_the_depth_limit(c: str, call: CallFn) -> None:
    with pytest.raises(ExecutionError) as info:
        call(c, "recurse", {"n": 0})
    assert info.value.kind == "stack too deep"


PROXY = """
contract Logic {
    uint public v;
    address public lastSender;
    string public note;
    function set(uint x) public returns (uint) {
        v = x;
        lastSender = msg.sender;
        note = "logic ran";
        return x * 2;
    }
    function whoami() public returns (address) { return address(this); }
}
contract Proxy {
    address public logic;
    uint public v;
    address public lastSender;
    constructor(address l) { logic = l; }
    fallback(variadic args) external returns (variadic) {
        return logic.delegatecall(msg.sig, args);
    }
}
contract User {
    function viaProxy(address p, uint x) public returns (variadic) {
        return address(p).call("set", x);
    }
    function whoIsProxy(address p) public returns (variadic) {
        return address(p).call("whoami");
    }
}
"""


def test_delegatecall_runs_the_code_on_the_callers_storage(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    logic = deploy(PROXY, "Logic").address
    proxy = deploy(PROXY, "Proxy", {"l": logic}).address
    user = deploy(PROXY, "User").address
    res = call(user, "viaProxy", {"p": proxy, "x": 9})
    assert res.values == [["18"]]
    state = world.state(proxy)
    assert state["v"] == "9"
    assert state["lastSender"] == user  # msg.sender is kept across a delegatecall
    assert world.state(logic)["v"] == "0"  # the logic contract's own storage is untouched
    assert call(user, "whoIsProxy", {"p": proxy}).values == [[proxy]]


def test_an_account_reached_by_several_delegatecalls_is_touched_once(
    deploy: DeployFn, call: CallFn
) -> None:
    """Each delegatecall runs on a fresh view of the caller's account; the result still names
    the account once (the node indexes, diffs and saves what it names)."""
    src = (
        PROXY
        + """
contract Twice {
    function both(address p) public {
        address(p).call("set", 1);
        address(p).call("set", 2);
        address(p).call("set", 3);
    }
}
"""
    )
    logic = deploy(src, "Logic").address
    proxy = deploy(src, "Proxy", {"l": logic}).address
    twice = deploy(src, "Twice").address
    res = call(twice, "both", {"p": proxy})
    assert [a for _, a in res.touched] == [twice, proxy]


def test_a_low_level_call_of_an_unknown_name_reaches_the_fallback(
    deploy: DeployFn, call: CallFn
) -> None:
    src = """
contract F {
    string public last;
    fallback(variadic args) external returns (variadic) { last = msg.sig; return args; }
}
contract C {
    function f(address a) public returns (variadic) { return address(a).call("anything", 1, 2); }
}
"""
    f = deploy(src, "F").address
    c = deploy(src, "C").address
    assert call(c, "f", {"a": f}).values == [["1", "2"]]
    assert call(f, "last").values == ["anything"]


@pytest.mark.parametrize(
    ("body", "line", "column", "text"),
    [
        ("address(this).call();", 3, 25, "'call' needs the function name first"),
        ("address(this).call(5);", 3, 44, "'call' expects a string here, not uint256"),
        ('d.call("q");', 3, 25, "'call' needs an address: write address(x).call(...)"),
        ('address(this).derive("s");', 3, 25, "'derive' needs the salt and the contract name"),
    ],
)
def test_low_level_call_compile_errors(body: str, line: int, column: int, text: str) -> None:
    src = (
        "contract D { function q() public {} }\n"
        "contract C { D d;\n"
        f"  function g() public {{ {body} }}\n}}"
    )
    with pytest.raises(CompileError) as info:
        compile_src(src)
    assert (info.value.line, info.value.column) == (line, column)
    assert text in info.value.message


CHAINS = """
contract Store {
    uint public v = 5;
    function set(uint x) public { v = x; }
}
contract Reader {
    function read(address a) public returns (variadic) {
        return account(a, "main").call("v");
    }
    function write(address a) public returns (variadic) {
        return account(a, "main").call("set", 1);
    }
    function readChild(address a, uint chain) public returns (variadic) {
        return account(a, chain).call("v");
    }
}
"""


def test_calls_across_chains_follow_the_chain_rules(world: Any) -> None:
    unit = compile_src(CHAINS)
    child = "ab" * 32
    world.add_chain(child, "")
    env = TxEnv(sender=ALICE)
    store = world.deploy(unit.contracts["Store"], {}, env).address
    reader = world.deploy(unit.contracts["Reader"], {}, env, chain_id=child).address
    assert world.call(reader, "read", {"a": store}, env, chain_id=child).values == [["5"]]
    with pytest.raises(ExecutionError) as info:
        world.call(reader, "write", {"a": store}, env, chain_id=child)
    assert info.value.kind == "invalid write"
    main_reader = world.deploy(unit.contracts["Reader"], {}, env).address
    child_store = world.deploy(unit.contracts["Store"], {}, env, chain_id=child).address
    with pytest.raises(ExecutionError) as info:
        world.call(main_reader, "readChild", {"a": child_store, "chain": int(child, 16)}, env)
    assert info.value.kind == "inaccessible chain"


def test_typed_calls_of_variadic_functions_bind_at_run_time(deploy: DeployFn, call: CallFn) -> None:
    src = """
contract T {
    function tail(uint a, variadic more) public returns (variadic) { return more; }
}
contract C {
    T t;
    constructor() { t = new T(); }
    function f() public returns (variadic) { return t.tail(1, 2, 3); }
    function g(variadic v) public returns (variadic) { return t.tail(v); }
}
"""
    c = deploy(src, "C").address
    assert call(c, "f").values == [["2", "3"]]
    assert call(c, "g", {"v": [9, 8]}).values == [["8"]]
