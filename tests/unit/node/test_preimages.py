"""The state before a transaction, from the undo journals of it and the ones after it
(``ledger/preimages.py``): dict keys as the first writer found them, lists rebuilt from their
length and overwritten elements (pushes, pops, element writes, whole assignments)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.node.ledger.preimages import NO_NOTE, PreImages, _list_image
from app.node.solidvm import TxEnv, World, compile_source
from app.node.solidvm.runtime import POPPED, PUSHED, REPLACED
from app.node.solidvm.values import ArrayValue

SENDER = "00000000000000000000000000000000000000aa"
SRC = """
contract Bag {
    uint public n;
    uint[] public xs;
    mapping(uint => uint) public m;
    constructor() public { xs.push(1); xs.push(2); xs.push(3); }
    function churn() public {
        xs[0] = 10; xs.pop(); xs.pop(); xs.push(7); xs[1] = 8; xs.push(9); n = n + 1; m[n] = n;
    }
    function swap() public { uint[] memory ys = new uint[](2); ys[0] = 5; xs = ys; xs.push(6); }
    function grow() public { xs.push(xs.length); }
    function wipe() public { delete xs; xs.push(4); xs.push(5); xs[0] = 6; }
}
"""


def plain(v: Any) -> Any:
    return [plain(x) for x in v] if isinstance(v, list) else v


def world_with_bag() -> tuple[World, str]:
    world = World()
    cdef = compile_source(SRC).contracts["Bag"]
    res = world.deploy(cdef, {}, TxEnv(sender=SENDER))
    assert res.address is not None
    return world, res.address


@pytest.mark.parametrize("fn", ["churn", "swap", "grow", "wipe"])
def test_a_list_is_rebuilt_from_its_image(fn: str) -> None:
    world, addr = world_with_bag()
    acct = world.accounts[("", int(addr, 16))]
    before = copy.deepcopy(plain(acct.storage["xs"]))
    orig = acct.storage["xs"]
    res = world.call(addr, fn, {}, TxEnv(sender=SENDER))
    xs = acct.storage["xs"]
    assert isinstance(xs, ArrayValue)
    if xs is not orig:  # a new array assigned: the variable's note holds the old one
        notes = [old for c, k, old in res.journal if c is acct.storage and k == "xs"]
        assert notes[0] is orig
        assert plain(orig) == before  # (untouched)
        return
    entries = [(k, old) for c, k, old in res.journal if c is xs]
    assert entries, "the call wrote the array"
    assert plain(_list_image(xs, entries).undo(list(xs))) == before


def test_a_list_whose_contents_were_replaced() -> None:
    c = [1, 2, 3]
    entries: list[tuple[Any, Any]] = [(PUSHED, None)]
    c.append(4)
    entries.append((REPLACED, list(c)))
    c[:] = [9]
    entries.append((0, 9))
    c[0] = 8
    entries.append((POPPED, 8))
    c.pop()
    entries.append((PUSHED, None))
    c.append(5)
    assert _list_image(c, entries).undo(c) == [1, 2, 3]


def test_notes_chain_back_to_the_transaction_asked_for() -> None:
    world, addr = world_with_bag()
    acct = world.accounts[("", int(addr, 16))]
    images = PreImages()
    states = []
    for i in range(3):
        states.append((plain(list(acct.storage["xs"])), acct.storage["n"]))
        res = world.call(addr, "churn" if i != 1 else "grow", {}, TxEnv(sender=SENDER))
        images.note(f"h{i}", 10 + i, res.journal, [])
    for i, (xs, n) in enumerate(states):
        seq = images.pin(f"h{i}")
        assert seq is not None
        imgs = images.list_images(acct.storage["xs"], seq[0], head=12)
        cur = list(acct.storage["xs"])
        for img in reversed(imgs):
            cur = img.undo(cur)
        assert plain(cur) == xs
        got = images.first(acct.storage, "n", seq[0], head=12)
        assert (n if got is NO_NOTE else got) == n
    # a block not committed yet is not read: its notes belong to the running block
    assert images.first(acct.storage, "n", 3, head=11) is NO_NOTE


def test_old_notes_are_pruned_unless_a_rerun_reads_them() -> None:
    world, addr = world_with_bag()
    images = PreImages(keep_txs=2)
    assert images.pin("h0") is None
    res = world.call(addr, "grow", {}, TxEnv(sender=SENDER))
    images.note("h0", 1, res.journal, [])
    pinned = images.pin("h0")
    assert pinned is not None
    for i in range(1, 4):
        images.note(f"h{i}", 1 + i, world.call(addr, "grow", {}, TxEnv(sender=SENDER)).journal, [])
    assert images.pin("h0") is not None  # kept: pinned
    images.unpin(pinned[0])
    images.unpin(pinned[0])
    images.note("h4", 5, world.call(addr, "grow", {}, TxEnv(sender=SENDER)).journal, [])
    assert images.pin("h0") is None
    assert images.pin("h1") is None
    assert images.pin("h4") is not None
