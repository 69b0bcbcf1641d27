"""The committed view of the world (ledger/readview.py over solidvm/history.py).

A world with a history attached runs transactions of a block "in progress"; a view pinned at
the previous block must read exactly the state before them (scalars, new and deleted mapping
keys, arrays that were popped, pushed and overwritten, structs, new contracts, balances and
nonces), whatever is later rolled back; a view pinned at the new block reads the live state.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.node.ledger.readview import CommittedView
from app.node.solidvm import SolidVMError, TxEnv, World, compile_source
from app.node.solidvm.history import History

ALICE = "a1" * 20

BOX = """
pragma solidvm 11.4;
contract Child { uint public v; constructor(uint _v) { v = _v; } }
contract Box {
    uint public n;
    string public label;
    mapping(uint => uint) public m;
    uint[] public arr;
    struct P { uint a; string s; }
    P public p;
    mapping(uint => uint[]) public lists;

    function seed() public {
        n = 1; label = "one"; m[1] = 1; m[2] = 2; arr.push(1); arr.push(2);
        p.a = 1; p.s = "x"; lists[1].push(10);
    }
    function mutate() public {
        n = 9; label = "nine"; m[1] = 9; delete m[2]; m[3] = 3;
        arr.pop(); arr.push(7); arr.push(8); arr[0] = 5;
        p.a = 9; p.s = "y"; lists[1].push(11); lists[2].push(20);
        new Child(4);
    }
    function again() public { n = 10; m[1] = 10; arr.push(9); }
    function fail() public {
        n = 100; m[1] = 100; m[4] = 4; arr.push(100); p.s = "z";
        require(false, "no");
    }
}
"""


def env(block: int) -> TxEnv:
    return TxEnv(sender=ALICE, block_number=block, timestamp=1_700_000_000)


@pytest.fixture
def box() -> tuple[World, str]:
    world = World()
    world.register_identity(ALICE, {"commonName": "alice", "organization": "Acme"})
    unit = compile_source(BOX, vm="SolidVM")
    res = world.deploy(unit.contracts["Box"], {}, env(1))
    assert res.address is not None
    world.call(res.address, "seed", {}, env(1))
    return world, res.address


def view(world: World, pinned: int) -> CommittedView:
    return CommittedView(world, {}, world.history, pinned)


def children(world: World, v: CommittedView) -> list[Any]:
    return [k for k, a in v.accounts.items() if a.cdef is not None and a.cdef.name == "Child"]


def test_a_view_reads_the_state_before_the_running_block(box: tuple[World, str]) -> None:
    world, address = box
    before = world.state(address)
    accounts_before = len(world.accounts)
    world.history = History()
    world.history.block = 2
    world.call(address, "mutate", {}, env(2))
    with pytest.raises(SolidVMError):
        world.call(address, "fail", {}, env(2))
    live = world.state(address)
    assert live != before
    assert live["arr"] == ["5", "7", "8"]
    assert view(world, 1).state(address, "") == before
    assert children(world, view(world, 1)) == []
    assert len(children(world, view(world, 2))) == 1
    assert len(world.accounts) == accounts_before + 1
    assert view(world, 2).state(address, "") == live

    # block 3 writes again: each pin keeps its own block's state
    world.history.block = 3
    world.call(address, "again", {}, env(3))
    assert view(world, 1).state(address, "") == before
    assert view(world, 2).state(address, "") == live
    assert view(world, 3).state(address, "") == world.state(address)
    acct = view(world, 1).account(int(address, 16), "")
    assert acct is not None
    assert view(world, 1).entry(acct, "m", 2, 0) == 2
    assert view(world, 2).entry(acct, "m", 2, 0) == 0
    assert view(world, 2).entry(acct, "m", 3, 0) == 3


def test_balances_and_nonces_written_by_the_vm(box: tuple[World, str]) -> None:
    world, address = box
    key = ("", int(ALICE, 16))
    nonce = world.nonces.get(key, 0)
    world.history = History()
    world.history.block = 2
    world.call(address, "mutate", {}, env(2))  # `new Child` takes the contract's nonce
    contract_key = ("", int(address, 16))
    assert world.nonces.get(contract_key, 0) == 1
    v = view(world, 1)
    assert v.nonces.get(contract_key, 0) == 0
    assert contract_key not in v.nonces
    assert v.nonces.get(key, 0) == nonce
    assert view(world, 2).nonces.get(contract_key, 0) == 1


def test_without_history_a_view_reads_the_live_state(box: tuple[World, str]) -> None:
    world, address = box
    world.call(address, "mutate", {}, env(2))
    assert CommittedView(world, {}, None, 0).state(address, "") == world.state(address)
