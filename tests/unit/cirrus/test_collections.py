"""The collection indexer in process: a real World runs real contracts, a real SQLite backend
holds the rows, and the indexer is fed each transaction's journal as the ledger feeds it.

What is checked here and not over HTTP: the cost follows what changed (a transfer on a 10,000
entry mapping reads and writes two entries), the registry of nested containers stays exact
(entries removed leave it), and the jsonb value encoding sorts as PostgreSQL sorts jsonb.
"""

from __future__ import annotations

import decimal
import json
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from app.node.cirrus.backend import CirrusBackend
from app.node.cirrus.collections import CollectionIndexer
from app.node.cirrus.encoding import decode_json, encode_json, json_get, parse_json_path
from app.node.solidvm import TxEnv, World, compile_source
from app.node.solidvm.world import ExecResult

SENDER = "00000000000000000000000000000000000000aa"

SRC = """
contract Ledger {
    enum Tier { Basic, Pro }
    struct Pos { uint size; Tier tier; decimal price; bytes32 tag; account who; }
    mapping(address => uint) public balances;
    mapping(address => mapping(address => uint)) public allowance;
    mapping(uint => Pos) public positions;
    mapping(string => uint[]) public series;

    function fill(uint n) public {
        for (uint i = 1; i <= n; i++) {
            balances[address(i)] = i;
            allowance[address(i)][address(i + 1)] = i;
        }
    }
    function transfer(address from, address to, uint v) public {
        balances[from] -= v;
        balances[to] += v;
    }
    function approve(address owner, address spender, uint v) public {
        allowance[owner][spender] = v;
    }
    function open(uint id, uint size) public {
        positions[id] = Pos(size, Tier.Pro, 1.50, "gold", account(msg.sender, "main"));
    }
    function close(uint id) public { delete positions[id]; }
    function note(string name, uint v) public { series[name].push(v); }
    function forget(string name) public { delete series[name]; }
    function scratch() public returns (uint) {
        Pos memory p = Pos(1, Tier.Basic, 0.5, "x", account(msg.sender));
        p.size = 2;
        return p.size;
    }
}
"""


class Node:
    """The parts of the ledger the indexer talks to, wired as the ledger wires them."""

    def __init__(self) -> None:
        self.world = World()
        self.db = sqlite3.connect(":memory:", isolation_level=None)
        self.backend = CirrusBackend(self.db)
        self.cx = CollectionIndexer(self.backend, self.world)
        self.block = 0
        cdef = compile_source(SRC).contracts["Ledger"]
        res = self.world.deploy(cdef, {}, TxEnv(sender=SENDER))
        assert res.address is not None
        self.address = res.address
        self.run([res])

    def call(self, method: str, **args: Any) -> ExecResult:
        return self.world.call(self.address, method, args, TxEnv(sender=SENDER))

    def run(self, results: list[ExecResult]) -> None:
        """One block: note each transaction, then write the rows in one commit."""
        for i, res in enumerate(results):
            accts = [self.world.accounts[(c, int(a, 16))] for c, a in res.touched]
            created = {(c, int(a, 16)) for c, a in res.created}
            self.cx.note_tx(res.journal, accts, created, (f"tx{self.block}.{i}", SENDER))
        self.block += 1
        self.db.execute("BEGIN")
        self.cx.flush((self.block, f"{self.block:064x}", 1_700_000_000), lambda _k: "Ledger")
        self.db.execute("COMMIT")

    def rows(self, var: str) -> list[tuple[Any, ...]]:
        t = self.backend.tables[f"Ledger-{var}"]
        cols = ", ".join(f'"{c}"' for c in [*t.key_columns, "value"])
        return sorted(self.db.execute(f"SELECT {cols} FROM {t.sql_name}").fetchall(), key=repr)


@pytest.fixture
def node() -> Iterator[Node]:
    n = Node()
    try:
        yield n
    finally:
        n.db.close()


def addr(n: int) -> str:
    return format(n, "040x")


def test_a_transfer_on_a_large_mapping_costs_two_entries(node: Node) -> None:
    node.run([node.call("fill", n=10_000)])
    assert len(node.rows("balances")) == 10_000
    statements: list[str] = []
    node.db.set_trace_callback(statements.append)
    changes_before = node.db.total_changes
    node.run([node.call("transfer", **{"from": addr(5), "to": addr(7), "v": 5})])
    node.db.set_trace_callback(None)
    assert node.db.total_changes - changes_before == 2  # balances[5] deleted, [7] updated
    mine = [s for s in statements if "Ledger-balances" in s]
    # one level of keys: the two entries are written (upsert, delete) without reading any row
    assert len(mine) == 2
    assert not [s for s in mine if s.lstrip().startswith("SELECT")]
    rows = {k: decode_json(v) for k, v in node.rows("balances")}
    assert addr(5) not in rows
    assert rows[addr(7)] == 12


def test_nested_writes_after_the_first_walk_touch_one_entry(node: Node) -> None:
    node.run([node.call("fill", n=1_000)])
    node.run([node.call("approve", owner=addr(3), spender=addr(9), v=1)])  # walks allowance once
    registered = dict(node.cx.under)
    owners = len(node.cx.owners)
    res = node.call("approve", owner=addr(4), spender=addr(8), v=2)
    acct = node.world.get_account(node.address)
    assert acct is not None
    node.cx.note_tx(res.journal, [acct], set(), ("t", SENDER))
    (change,) = node.cx.pending[("", int(node.address, 16))].values()
    assert change.whole is None
    assert list(change.keys) == [(addr_value(4), addr_value(8))]
    assert node.cx.under.keys() == registered.keys()
    assert len(node.cx.owners) == owners
    statements: list[str] = []
    node.db.set_trace_callback(statements.append)
    node.run([])
    node.db.set_trace_callback(None)
    reads = [s for s in statements if s.lstrip().startswith("SELECT")]
    assert len(reads) == 1
    assert '"key" IN (' in reads[0]  # the entries of one holder are read, not the mapping
    assert (addr(4), addr(8), "2>00012") in node.rows("allowance")


def addr_value(n: int) -> Any:
    from app.node.solidvm.values import Address

    return Address(n)


def test_registry_forgets_removed_entries(node: Node) -> None:
    node.run([node.call("note", name="a", v=1), node.call("note", name="b", v=2)])
    node.run([node.call("note", name="a", v=3)])  # registers the nested arrays
    owners = len(node.cx.owners)
    assert owners >= 2
    node.run([node.call("forget", name="a")])
    assert len(node.cx.owners) == owners - 1
    assert node.rows("series") == [("b", "=", "2>00012")]
    node.run([node.call("note", name="a", v=4)])
    assert node.rows("series")[0] == ("a", "=", "2>00014")


def test_memory_values_are_not_storage(node: Node) -> None:
    node.run([node.call("scratch")])
    assert node.cx.pending == {}
    assert "Ledger-positions" not in node.backend.tables or node.rows("positions") == []


def test_struct_entries_as_the_platform_shows_them(node: Node) -> None:
    node.run([node.call("open", id=1, size=10)])
    ((key, value),) = node.rows("positions")
    assert key == ">00011"  # the integer key 1, stored order-preserving
    assert decode_json(value) == {
        "tag": "gold",
        "who": f"{SENDER}:main",
        "size": "10",
        "tier": "Pro",
        "price": "1.50",
    }
    assert list(decode_json(value)) == ["tag", "who", "size", "tier", "price"]  # jsonb order
    node.run([node.call("close", id=1)])
    assert node.rows("positions") == []


def test_json_encoding_sorts_as_jsonb() -> None:
    values: list[Any] = [
        None,
        "",
        "a",
        "b",
        -(10**30),
        -12,
        -2,
        -1,
        0,
        1,
        2,
        9,
        10,
        10**30,
        False,
        True,
        [1],
        {"a": 1},
    ]
    encoded = [encode_json(v) for v in values]
    assert encoded == sorted(encoded)
    assert [decode_json(e) for e in encoded] == values
    # numbers from filters that are not integers sit between the integers around them
    for x, lo, hi in (("1.5", 1, 2), ("-1.5", -2, -1), ("0.5", 0, 1), ("-0.5", -1, 0)):
        e = encode_json(json.loads(x, parse_float=decimal.Decimal))
        assert encode_json(lo) < e < encode_json(hi)
    assert encode_json(decimal.Decimal("3.0")) == encode_json(3)
    # objects are stored with their members in jsonb's order, whatever order they came in
    assert encode_json({"bb": 1, "a": [{"zz": 1, "y": 2}]}) == encode_json(
        {"a": [{"y": 2, "zz": 1}], "bb": 1}
    )


def test_json_paths() -> None:
    assert parse_json_path("value") is None
    assert parse_json_path("value->a->0->>b") == ("value", ["a", "0", "b"], True)
    assert parse_json_path("value->a") == ("value", ["a"], False)
    for bad in ("value->>a->b", "value->", "->a", "value->'a'", "value->a.b", "value-a"):
        if bad == "value-a":
            assert parse_json_path(bad) is None
            continue
        with pytest.raises(ValueError):
            parse_json_path(bad)
    stored = encode_json({"a": [{"b": "x"}, {"b": 2}], "t": True, "o": {"k": 1}})
    assert json_get(stored, "a.0.b", 1) == "x"
    assert json_get(stored, "a.1.b", 1) == "2"
    assert json_get(stored, "a.-1.b", 1) == "2"
    assert json_get(stored, "a.1.b", 0) == encode_json(2)
    assert json_get(stored, "t", 1) == "true"
    assert json_get(stored, "o", 1) == '{"k": 1}'
    assert json_get(stored, "missing", 1) is None
    assert json_get(stored, "a.9", 0) is None
    assert json_get(encode_json(5), "a", 1) is None  # not an object: NULL
    assert json_get(None, "a", 1) is None


def test_a_solidvm_hash_shows_as_hex_even_when_its_bytes_read_as_text() -> None:
    """The platform keeps keccak256(a, b) as hex text; raw bytes that read as text stay text."""
    from app.node.cirrus.indexer import bytes_text
    from app.node.solidvm.values import Digest

    printable = b"A" * 32
    assert bytes_text(printable) == "A" * 32
    assert bytes_text(Digest(printable)) == "41" * 32
