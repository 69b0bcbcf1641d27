"""A real ledger on a temporary data dir, for the tests of its parts (tests/unit/test_ledger_*):
real objects wired by the composition root, a real SQLite store, no mocks."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.node.config import NodeConfig
from app.node.ledger import Ledger, Sub
from app.node.store import Store
from app.node.vault import Vault, load_node_secret


@contextmanager
def opened(data_dir: Path, **config: Any) -> Iterator[Ledger]:
    """A ledger opened on ``data_dir`` (the genesis when fresh); closed on leaving."""
    store = Store(data_dir)
    ledger = Ledger(
        NodeConfig(data_dir=data_dir, **config), store, Vault(load_node_secret(data_dir))
    )
    try:
        ledger.open()
        yield ledger
    finally:
        store.close()


def address(ledger: Ledger, name: str) -> str:
    key = ledger.key_of(name)
    assert key is not None
    return key["address"]


def transfer(ledger: Ledger, frm: str, to: str, value: int) -> Sub:
    """A signed transfer of ``value`` from user ``frm`` to user ``to`` (not recorded)."""
    return ledger.keys.new_sub(
        frm,
        address(ledger, frm),
        "TRANSFER",
        {"toAddress": address(ledger, to), "value": value},
        "",
        None,
    )


def balance(ledger: Ledger, name: str) -> int:
    value: int = ledger.state.world.balances.get(("", int(address(ledger, name), 16)), 0)
    return value


COUNTER = """
contract Counter {
    uint public n;
    event Bumped(uint n);
    constructor(uint start) { n = start; }
    function bump() public { n = n + 1; emit Bumped(n); }
}
"""
