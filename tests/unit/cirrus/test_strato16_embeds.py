"""STRATO 16's embeds on a real database, without a node (reference strato16-cirrus.md §6):
views embed each other through ``address`` (arrays towards ``mapping``/``event`` views, objects
back towards ``storage`` ones) and contract-typed columns through ``<col>_fkey`` (objects), on
the row's own chain."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from app.node.cirrus.backend import CirrusBackend
from app.node.cirrus.encoding import encode_int, encode_json
from app.node.cirrus.query import QueryError, parse_query
from app.node.cirrus.strato16 import Strato16
from app.node.cirrus.write16 import STAMP, UPSERT_STORAGE, write_mapping
from app.node.solidvm import compile_source

SRC = """
contract Token {
    string public symbol;
    mapping(address => uint) public balances;
}
contract Holder {
    Token public token;
    address public plain;
    mapping(uint => Token) public tokens;
}
"""
PRIVATE = "c" * 64
TS = "2025-01-15 10:20:30 UTC"


def addr(n: int) -> str:
    return format(n, "040x")


@pytest.fixture
def schema() -> Strato16:
    db = sqlite3.connect(":memory:", isolation_level=None)
    s = Strato16(CirrusBackend(db))
    for cdef in compile_source(SRC).contracts.values():
        s.register("BlockApps", cdef)
    db.executemany(
        STAMP,
        [
            (addr(1), "BlockApps", "Token", ""),
            (addr(2), "BlockApps", "Holder", ""),
            (addr(1), "BlockApps", "Token", PRIVATE),  # the same address on a private chain
        ],
    )
    holder = {"token": addr(1), "plain": addr(1)}
    db.executemany(
        UPSERT_STORAGE,
        [
            (addr(1), "h1", TS, 7, encode_json({"symbol": "A"}), ""),
            (addr(2), "h1", TS, 7, encode_json(holder), ""),
            (addr(1), "h1", TS, 7, encode_json({"symbol": "SECRET"}), PRIVATE),
        ],
    )

    def entry(a: str, var: str, key: Any, value: Any, chain: str = "") -> tuple[Any, ...]:
        return (
            a,
            "h1",
            TS,
            "7",
            var,
            "Mapping",
            encode_json({"key": str(key)}),
            f"{var}[{key}]",
            encode_json(value),
            chain,
            encode_int(key) if isinstance(key, int) else key,
        )

    write_mapping(
        db,
        s.layout,
        [
            entry(addr(1), "balances", addr(5), 3),
            entry(addr(1), "balances", addr(6), 4, PRIVATE),
            entry(addr(2), "tokens", 1, addr(1)),
        ],
    )
    s.publish()
    return s


def rows(s: Strato16, name: str, query: str, visible: frozenset[str] = frozenset()) -> Any:
    params = [(k, v) for k, _, v in (p.partition("=") for p in query.split("&") if p)]
    out, _ = s.backend.run(name, parse_query(params), set(visible), False)
    return out


def test_index_view_embeds_its_collection_as_an_array(schema: Strato16) -> None:
    got = rows(schema, "BlockApps-Token", "select=symbol,b:BlockApps-Token-balances(key,value)")
    assert got == [{"symbol": "A", "b": [{"key": addr(5), "value": 3}]}]
    # a member of the private chain sees each chain's row with its own chain's entries
    got = rows(
        schema,
        "BlockApps-Token",
        "select=symbol,b:BlockApps-Token-balances(key)&order=symbol.asc",
        frozenset({PRIVATE}),
    )
    assert got == [
        {"symbol": "A", "b": [{"key": addr(5)}]},
        {"symbol": "SECRET", "b": [{"key": addr(6)}]},
    ]


def test_collection_embeds_its_index_view_as_an_object(schema: Strato16) -> None:
    got = rows(schema, "BlockApps-Token-balances", "select=key,t:BlockApps-Token(symbol)")
    assert got == [{"key": addr(5), "t": {"symbol": "A"}}]


def test_fkey_embeds_the_contract_as_an_object(schema: Strato16) -> None:
    got = rows(
        schema,
        "BlockApps-Holder",
        "select=t:token_fkey(symbol,b:BlockApps-Token-balances!inner(value)),"
        "ts:BlockApps-Holder-tokens(key,v:value_fkey(symbol))",
    )
    assert got == [
        {"t": {"symbol": "A", "b": [{"value": 3}]}, "ts": [{"key": 1, "v": {"symbol": "A"}}]}
    ]
    # a plain address has no fkey
    with pytest.raises(QueryError) as exc:
        rows(schema, "BlockApps-Holder", "select=plain_fkey(symbol)")
    assert exc.value.body["code"] == "PGRST200"


def test_event_storage_contract(schema: Strato16) -> None:
    got = rows(
        schema,
        "storage",
        "select=address,contract!inner(contract_name)&contract.contract_name=eq.Holder",
    )
    assert got == [{"address": addr(2), "contract": [{"contract_name": "Holder"}]}]
    got = rows(
        schema, "contract", "select=contract_name,storage(block_number)&address=eq." + addr(2)
    )
    assert got == [{"contract_name": "Holder", "storage": {"block_number": 7}}]
