"""Fallback dispatch and the platform's ``Proxy`` pattern.

SolidVM resolves a call by the function's name: code typed as the logic contract calling a proxy
(``Pool(proxy).initialize(x)``) lands in the proxy's ``fallback`` (``msg.sig`` = the name), whose
``delegatecall`` runs the logic's code on the proxy's storage; what it returns comes back to the
typed caller as the value its declaration expects. The proxy's storage keeps the logic's
variables: they are part of its state.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.solidvm import TxEnv
from app.node.solidvm.errors import ExecutionError

from .conftest import CallFn, DeployFn
from .helpers import ALICE, BOB, compile_src, events

# The platform's Proxy and Ownable, in their shape (written for these tests).
BASE = """
abstract contract Ownable {
    address private _owner;
    constructor(address initialOwner) { _owner = initialOwner; }
    modifier onlyOwner() { require(msg.sender == _owner, "not the owner"); _; }
    function owner() public view returns (address) { return _owner; }
    function transferOwnership(address n) public onlyOwner { _owner = n; }
}
contract Proxy is Ownable {
    address logicContract;
    constructor(address _logic, address _owner) Ownable(_owner) { logicContract = _logic; }
    function setLogicContract(address _logic) onlyOwner { logicContract = _logic; }
    fallback(variadic args) external returns (variadic) {
        return logicContract.delegatecall(msg.sig, args);
    }
}
"""

POOL = (
    BASE
    + """
contract Pool is Ownable {
    uint public x;
    string public label;
    address public lastSender;
    address public self;
    bool public initialized;
    constructor(address o) Ownable(o) {}
    function initialize(uint _x, string _label) external {
        require(!initialized, "already initialized");
        initialized = true;
        x = _x;
        label = _label;
        lastSender = msg.sender;
        self = address(this);
    }
    function getX() external view returns (uint) { return x; }
    function pair() external view returns (uint, string) { return (x, label); }
    function me() external view returns (Pool) { return Pool(address(this)); }
    function isBig() external view returns (bool) { return x > 100; }
    function setX(uint v) external onlyOwner { x = v; }
    function fail() external { x = 999; require(false, "pool says no"); }
    function deposit() external payable returns (uint) { x = x + msg.value; return msg.value; }
    function put(uint v) external returns (string) { x = v; return "uint"; }
    function put(string v) external returns (string) { label = v; return "string"; }
}
contract Caller {
    Pool public pool;
    Pool public logic;
    uint public got;
    string public gotLabel;
    bool public big;
    address public gotMe;
    constructor() {
        logic = new Pool(address(this));
        pool = Pool(address(new Proxy(address(logic), address(this))));
    }
    function init(uint v, string l) external { pool.initialize(v, l); }
    function read() external {
        got = pool.getX();
        (uint a, string b) = pool.pair();
        require(a == got, "pair");
        gotLabel = b;
        big = pool.isBig();
        gotMe = address(pool.me());
    }
    function sum() external returns (uint) { return pool.getX() + 1; }
    function setX(uint v) external { pool.setX(v); }
    function failing() external { got = 5; pool.fail(); }
    function putBoth() external returns (string, string) {
        return (pool.put(7), pool.put("seven"));
    }
    function lowLevel(uint v) external returns (variadic) {
        return address(pool).call("setX", v);
    }
    function missing() external { Missing(address(pool)).nothing(1); }
    function upgrade(address l) external { Proxy(address(pool)).setLogicContract(l); }
}
contract Missing { function nothing(uint a) external {} }
"""
)


@pytest.fixture
def caller(deploy: DeployFn) -> str:
    return str(deploy(POOL, "Caller").address)


def parts(world: Any, caller: str) -> tuple[str, str]:
    st = world.state(caller)
    return str(st["pool"]), str(st["logic"])


def test_a_typed_call_of_a_function_the_proxy_lacks_reaches_its_fallback(
    caller: str, call: CallFn, world: Any
) -> None:
    call(caller, "init", {"v": 42, "l": "first"})
    proxy, logic = parts(world, caller)
    st = world.state(proxy)
    # the logic's variables live in the proxy's storage, and are part of its state
    assert st["x"] == "42"
    assert st["label"] == "first"
    assert st["initialized"] == "true"
    assert st["logicContract"] == logic  # the proxy's own variables are still there
    assert world.state(logic)["x"] == "0"  # the logic contract's own storage is untouched


def test_msg_sender_and_this_follow_the_delegatecall_rules(
    caller: str, call: CallFn, world: Any
) -> None:
    call(caller, "init", {"v": 1, "l": "a"})
    proxy, _ = parts(world, caller)
    st = world.state(proxy)
    assert st["lastSender"] == caller  # the proxy's caller, kept through the delegatecall
    assert st["self"] == proxy  # `this` is the proxy


def test_typed_return_values_come_back_through_the_fallback(
    caller: str, call: CallFn, world: Any
) -> None:
    call(caller, "init", {"v": 150, "l": "big one"})
    call(caller, "read")
    proxy, _ = parts(world, caller)
    st = world.state(caller)
    assert (st["got"], st["gotLabel"], st["big"], st["gotMe"]) == ("150", "big one", "true", proxy)
    assert call(caller, "sum").values == ["151"]  # a uint, usable in arithmetic


def test_state_persists_across_transactions_and_survives_an_upgrade(
    caller: str, call: CallFn, deploy: DeployFn, world: Any
) -> None:
    call(caller, "init", {"v": 3, "l": "kept"})
    call(caller, "setX", {"v": 4})  # onlyOwner: the proxy's owner (the caller) passes
    proxy, _ = parts(world, caller)
    v2_src = POOL.replace("contract Caller", "contract Unused").replace(
        "function getX() external view returns (uint) { return x; }",
        "function getX() external view returns (uint) { return x * 10; }\n"
        "    uint public extra;\n"
        "    function setExtra(uint e) external { extra = e + x; }",
    )
    v2 = deploy(v2_src, "Pool", {"o": ALICE}).address
    call(caller, "upgrade", {"l": v2})
    assert world.state(proxy)["logicContract"] == v2
    assert call(proxy, "getX").values == ["40"]  # the new code on the old storage
    call(proxy, "setExtra", {"e": 1})
    st = world.state(proxy)
    assert (st["x"], st["label"], st["extra"]) == ("4", "kept", "5")


def test_only_the_proxys_owner_may_upgrade(caller: str, call: CallFn, world: Any) -> None:
    proxy, logic = parts(world, caller)
    with pytest.raises(ExecutionError) as info:
        call(proxy, "setLogicContract", {"_logic": logic}, sender=BOB)
    assert "not the owner" in info.value.message


def test_a_failure_inside_the_logic_undoes_everything(
    caller: str, call: CallFn, world: Any
) -> None:
    call(caller, "init", {"v": 8, "l": "x"})
    proxy, _ = parts(world, caller)
    before = (world.state(caller), world.state(proxy))
    with pytest.raises(ExecutionError) as info:
        call(caller, "failing")
    assert info.value.message == "solidity require failed: pool says no"
    assert (world.state(caller), world.state(proxy)) == before


def test_a_failed_first_delegatecall_leaves_no_variables_behind(
    caller: str, call: CallFn, world: Any
) -> None:
    proxy, _ = parts(world, caller)
    with pytest.raises(ExecutionError) as info:
        call(caller, "failing")
    assert info.value.message == "solidity require failed: pool says no"
    assert set(world.state(proxy)) == {"_owner", "logicContract"}
    assert world.get_account(proxy).layouts == []  # the record of the logic's layout is undone


def test_overloads_are_chosen_by_the_values_behind_a_proxy(
    caller: str, call: CallFn, world: Any
) -> None:
    assert call(caller, "putBoth").values == ["uint", "string"]
    proxy, _ = parts(world, caller)
    st = world.state(proxy)
    assert (st["x"], st["label"]) == ("7", "seven")


def test_a_low_level_call_reaches_the_fallback_too(
    caller: str, call: CallFn, world: Any
) -> None:
    call(caller, "lowLevel", {"v": 12})
    proxy, _ = parts(world, caller)
    assert world.state(proxy)["x"] == "12"


def test_a_function_the_logic_lacks_too_is_an_unknown_function(
    caller: str, call: CallFn, world: Any
) -> None:
    with pytest.raises(ExecutionError) as info:
        call(caller, "missing")
    assert info.value.kind == "unknown function"
    assert info.value.message == "unknown function: contract Pool has no function named 'nothing'"


def test_a_contract_without_fallback_still_refuses_unknown_functions(
    deploy: DeployFn, call: CallFn
) -> None:
    src = """
contract Plain { uint public v; }
contract Other { function f(uint a) external {} }
contract C {
    function go() external { Plain p = new Plain(); Other(address(p)).f(1); }
}
"""
    c = deploy(src, "C").address
    with pytest.raises(ExecutionError) as info:
        call(c, "go")
    assert info.value.message == (
        "unknown function: contract Plain has no public function 'f' taking 1 arguments"
    )


FALLBACK = """
contract F {
    string public sig;
    uint public first;
    string public second;
    uint public dataWasEmpty;
    event Seen(string sig, variadic data, variadic args);
    fallback(variadic args) external returns (variadic) {
        sig = msg.sig;
        first = args[0];
        second = args[1];
        emit Seen(msg.sig, msg.data, args);
        return args[0] * 2;
    }
}
interface IThing { function doThing(uint a, string b) external returns (uint); }
contract C {
    uint public r;
    function go(address f) external { r = IThing(f).doThing(21, "two"); }
}
"""


def test_inside_the_fallback_msg_sig_is_the_name_and_args_hold_the_arguments(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    f = deploy(FALLBACK, "F").address
    c = deploy(FALLBACK, "C").address
    res = call(c, "go", {"f": f})
    st = world.state(f)
    assert (st["sig"], st["first"], st["second"]) == ("doThing", "21", "two")
    # msg.data: SolidVM reads the arguments of the contract's function of the called name,
    # which a fallback's contract lacks: empty
    assert events(res) == [("Seen", ["doThing", "[]", '[21, "two"]'])]
    assert world.state(c)["r"] == "42"  # the fallback's result, as the interface's uint


def test_a_fallback_whose_parameters_do_not_fit_is_a_type_error(
    deploy: DeployFn, call: CallFn
) -> None:
    src = """
contract F { uint public n; fallback() external { n = 1; } }
interface I { function f(uint a) external; function g() external; }
contract C {
    function one(address f) external { I(f).f(1); }
    function none(address f) external { I(f).g(); }
}
"""
    f = deploy(src, "F").address
    c = deploy(src, "C").address
    call(c, "none", {"f": f})  # no arguments: the fallback takes them
    with pytest.raises(ExecutionError) as info:
        call(c, "one", {"f": f})
    assert info.value.kind == "type error"
    assert "argument type mismatch in 'f'" in info.value.message


def test_a_fallback_returning_what_the_caller_cannot_take_is_a_type_error(
    deploy: DeployFn, call: CallFn
) -> None:
    src = """
contract F { fallback(variadic args) external returns (variadic) { return "text"; } }
interface I { function f() external returns (uint); }
contract C { uint public r; function go(address f) external { r = I(f).f(); } }
"""
    f = deploy(src, "F").address
    c = deploy(src, "C").address
    with pytest.raises(ExecutionError) as info:
        call(c, "go", {"f": f})
    assert info.value.kind == "type error"
    assert "'f' through the fallback of F returned a string" in info.value.message


# ------------------------------------------------------------ calls through the API


def test_the_api_calls_a_proxy_with_its_logic_contracts_functions(
    caller: str, call: CallFn, world: Any
) -> None:
    proxy, _ = parts(world, caller)
    assert call(proxy, "initialize", {"_x": 5, "_label": "api"}).values == []
    assert call(proxy, "getX").values == ["5"]
    assert call(proxy, "pair").values == ["5", "api"]
    assert call(proxy, "label").values == ["api"]  # the logic's getters too
    assert call(proxy, "owner").values == [caller]  # the proxy's own function
    with pytest.raises(ExecutionError) as info:
        call(proxy, "nothing")
    assert info.value.kind == "unknown function"
    assert "which has no method named 'nothing'" in info.value.message


def test_a_value_sent_through_a_proxy_reaches_the_proxy(
    caller: str, world: Any
) -> None:
    proxy, _ = parts(world, caller)
    world.balances[("", int(ALICE, 16))] = 1000
    res = world.call(proxy, "deposit", {}, TxEnv(sender=ALICE), value=30)
    assert res.values == ["30"]  # msg.value inside the logic's code
    assert world.balances[("", int(proxy, 16))] == 30
    assert world.state(proxy)["x"] == "30"


def test_a_contract_not_named_as_a_proxy_is_not_typed_by_its_logic(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    src = POOL.replace("contract Proxy is", "contract Relay is").replace(
        "new Proxy(", "new Relay("
    ).replace("Proxy(address(pool))", "Relay(address(pool))")
    c = deploy(src, "Caller").address
    relay = str(world.state(c)["pool"])
    with pytest.raises(ExecutionError) as info:
        call(relay, "getX")
    assert "has no method named 'getX'" in info.value.message


def test_a_read_only_call_through_a_proxy_reads_and_refuses_writes(
    caller: str, call: CallFn, world: Any
) -> None:
    call(caller, "init", {"v": 9, "l": "ro"})
    proxy, _ = parts(world, caller)
    before = world.state(proxy)
    env = TxEnv(sender=caller)
    assert world.call(proxy, "getX", {}, env, read_only=True).values == ["9"]
    with pytest.raises(ExecutionError) as info:
        world.call(proxy, "setX", {"v": 1}, env, read_only=True)
    assert info.value.kind == "invalid write"
    assert world.state(proxy) == before


def test_a_read_only_first_call_through_a_proxy_adds_no_variables(
    caller: str, world: Any
) -> None:
    proxy, _ = parts(world, caller)
    res = world.call(proxy, "getX", {}, TxEnv(sender=caller), read_only=True)
    assert res.values == ["0"]
    assert set(world.state(proxy)) == {"_owner", "logicContract"}


# ------------------------------------------------------------ calls to one's own address


def test_a_call_to_ones_own_address_keeps_msg_sender(deploy: DeployFn, call: CallFn) -> None:
    src = """
contract C {
    address public seen;
    function who() public returns (address) { seen = msg.sender; return msg.sender; }
    function viaThis() external returns (address) { return this.who(); }
    function viaCast() external returns (address) { return C(address(this)).who(); }
    function viaLowLevel() external returns (variadic) { return address(this).call("who"); }
    function whoV(variadic v) public returns (address) { return msg.sender; }
    function viaVariadic() external returns (address) { return this.whoV(1, 2); }
}
"""
    c = deploy(src, "C").address
    assert call(c, "viaThis").values == [ALICE]  # SolidVM: a self-call is not a new sender
    assert call(c, "viaCast").values == [ALICE]
    assert call(c, "viaVariadic").values == [ALICE]  # also when bound at run time
    assert call(c, "viaLowLevel").values == [[c]]  # a low-level call is


def test_a_proxy_calling_its_own_address_runs_the_logic_with_the_same_sender(
    deploy: DeployFn, call: CallFn, world: Any
) -> None:
    src = (
        BASE
        + """
contract Logic {
    address public inner;
    uint public depth;
    function outer() external returns (address) { return Logic(address(this)).mid(); }
    function mid() external returns (address) { depth = depth + 1; inner = msg.sender; return msg.sender; }
}
contract User {
    Logic public p;
    constructor() { p = Logic(address(new Proxy(address(new Logic()), msg.sender))); }
    function go() external returns (address) { return p.outer(); }
}
"""
    )
    u = deploy(src, "User").address
    assert call(u, "go").values == [u]
    p = str(world.state(u)["p"])
    assert world.state(p)["inner"] == u
    assert world.state(p)["depth"] == "1"
