"""`account payable`, as today's contracts declare accounts that receive value."""

from __future__ import annotations

import pytest

from app.node.solidvm.errors import ExecutionError

from .conftest import CallFn, DeployFn
from .helpers import c

PAYER = c(
    """
    account a;
    account payable aPay;
    uint public bal;
    constructor() public {
        a = account(this);
        aPay = payable(a);
    }
    function payTo(account payable to, uint amount) public returns (uint) {
        to.transfer(amount);
        return to.balance;
    }
    function sendTo(account payable to, uint amount) public returns (bool) {
        return to.send(amount);
    }
    function nothing() public { bool ok = aPay.transfer(0); }
"""
)


def test_account_payable_variables_and_parameters(
    deploy: DeployFn, call: CallFn, world: object
) -> None:
    addr = deploy(PAYER, "C").address
    state = world.state(addr)  # type: ignore[attr-defined]
    assert state["aPay"] == state["a"] == addr
    world.balances[("", int(addr, 16))] = 100  # type: ignore[attr-defined]
    to = "12" * 20
    assert call(addr, "payTo", {"to": to, "amount": 30}).values == ["30"]
    assert call(addr, "sendTo", {"to": to, "amount": 500}).values == ["false"]
    assert call(addr, "sendTo", {"to": to, "amount": 70}).values == ["true"]


def test_using_the_missing_result_of_transfer_says_so(deploy: DeployFn, call: CallFn) -> None:
    addr = deploy(PAYER, "C").address
    with pytest.raises(ExecutionError, match="got no value"):
        call(addr, "nothing")
