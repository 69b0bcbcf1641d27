"""STRATO 16's Cirrus names on a real database, without a node: the value encodings of the
global tables and the typed views read through the query engine (rows written directly)."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from app.node.cirrus.backend import EXTENSION_KEY, CirrusBackend
from app.node.cirrus.encoding import (
    compact_json,
    encode_int,
    encode_int_text,
    encode_json,
    json_string,
    string_object,
)
from app.node.cirrus.events16 import attribute_text
from app.node.cirrus.indexer16 import mapping_value, storage_text
from app.node.cirrus.query import QueryError, parse_query
from app.node.cirrus.strato16 import Strato16
from app.node.cirrus.write16 import STAMP, UPSERT_STORAGE, write_mapping
from app.node.solidvm import compile_source
from app.node.solidvm.types import AddressType, BoolType, EnumType, IntType, StringType
from app.node.solidvm.values import Address

SRC = """
contract Base { address public owner; }
contract Token is Base {
    enum State { Off, On }
    struct Lot { uint amount; bool open; address who; State state; }
    string public name;
    uint public supply;
    bool public paused;
    State public state;
    uint public creator;
    mapping(address => uint) public balances;
    mapping(uint => Lot) public lots;
    event Sent(address to, uint amount, bool ok);
}
"""


def addr(n: int) -> str:
    return format(n, "040x")


@pytest.fixture
def schema() -> Strato16:
    db = sqlite3.connect(":memory:", isolation_level=None)
    backend = CirrusBackend(db)
    s = Strato16(backend)
    unit = compile_source(SRC)
    for cdef in unit.contracts.values():
        s.register("BlockApps", cdef)
    db.executemany(
        STAMP,
        [
            (addr(1), "BlockApps", "Base", ""),
            (addr(1), "BlockApps", "Token", ""),
            (addr(2), "BlockApps", "Base", ""),
            (addr(3), "BlockApps", "Token", "c" * 64),
        ],
    )
    data = {"name": "Gold", "supply": "5", "paused": "true", "state": "1", "owner": addr(9)}
    db.executemany(
        UPSERT_STORAGE,
        [
            (addr(1), "h1", "2025-01-15 10:20:30 UTC", 7, encode_json(data), ""),
            (addr(2), "h1", "2025-01-15 10:20:30 UTC", 7, encode_json({}), ""),
            (addr(3), "h1", "2025-01-15 10:20:30 UTC", 7, encode_json(data), "c" * 64),
        ],
    )
    head = (addr(1), "h1", "2025-01-15 10:20:30 UTC", "7", "balances", "Mapping")
    write_mapping(
        db,
        s.layout,
        [
            (
                *head,
                encode_json({"key": addr(5)}),
                f"balances[{addr(5)}]",
                encode_json(3),
                "",
                addr(5),
            ),
            (
                *head,
                encode_json({"key": addr(6)}),
                f"balances[{addr(6)}]",
                encode_json(0),
                "",
                addr(6),
            ),
        ],
    )
    s.publish()
    return s


def rows(s: Strato16, name: str, query: str = "", visible: frozenset[str] = frozenset()) -> Any:
    """The rows a user sees who is a member of the private chains ``visible``."""
    params = [(k, v) for k, _, v in (p.partition("=") for p in query.split("&") if p)]
    out, _ = s.backend.run(name, parse_query(params), set(visible), False)
    return out


def test_encodings() -> None:
    assert storage_text(Address(0), AddressType()) == ""
    assert storage_text(Address(5), AddressType()) == addr(5)
    assert storage_text("it's", StringType()) == "its"
    assert storage_text(True, BoolType()) == "true"
    assert storage_text(12, IntType(False)) == "12"
    state = EnumType("State", ["Off", "On"])
    assert storage_text(1, state) == "1"
    assert mapping_value(1, state) == 1
    assert mapping_value(Address(0), AddressType()) == ""
    assert attribute_text("True", BoolType()) == "true"
    assert attribute_text("State.On", state) == "1"
    assert encode_int_text("12") == ">000212"
    assert encode_int_text("-3") == encode_int(-3)
    assert encode_int_text("x") == "=" and encode_int_text(None) == "="


def test_index_view(schema: Strato16) -> None:
    (row,) = rows(schema, "BlockApps-Token", "address=eq." + addr(1))
    assert row == {
        "address": addr(1),
        "block_hash": "h1",
        "block_timestamp": "2025-01-15 10:20:30 UTC",
        "block_number": 7,
        "creator": "BlockApps",
        "contract_name": "Token",
        "owner": addr(9),
        "name": "Gold",
        "supply": 5,
        "paused": True,
        "state": "1",
        "arg_creator": 0,
    }
    # a base view lists the descendants' instances once, with the most derived name
    got = rows(schema, "BlockApps-Base", "select=address,contract_name&order=address.asc")
    assert got == [
        {"address": addr(1), "contract_name": "Token"},
        {"address": addr(2), "contract_name": "Base"},
    ]
    assert rows(schema, "BlockApps-Token", "supply=gt.4&select=count") == [{"count": 1}]


def test_private_rows_follow_membership(schema: Strato16) -> None:
    assert [r["address"] for r in rows(schema, "BlockApps-Token", "")] == [addr(1)]
    got = rows(schema, "BlockApps-Token", "order=address.asc", frozenset({"c" * 64}))
    assert [r["address"] for r in got] == [addr(1), addr(3)]
    assert len(rows(schema, "storage")) == 2


def test_collection_view_hides_zero_values(schema: Strato16) -> None:
    got = rows(schema, "BlockApps-Token-balances", "select=key,value")
    assert got == [{"key": addr(5), "value": 3}]
    assert len(rows(schema, "mapping")) == 2


def test_event_view_columns(schema: Strato16) -> None:
    cols = list(schema.tables["BlockApps-Token-Sent"].columns)
    assert cols[:9] == [
        "id",
        "address",
        "block_hash",
        "block_timestamp",
        "block_number",
        "transaction_sender",
        "event_index",
        "creator",
        "contract_name",
    ]
    assert cols[9:] == ["to", "amount", "ok"]


def test_only_strato16_names_when_asked(schema: Strato16) -> None:
    backend = schema.backend
    assert backend.served("Token") == "Token"
    schema.only = True
    name = backend.served("BlockApps-Token")
    assert name == EXTENSION_KEY + "BlockApps-Token"
    assert backend.lookup(name) is schema.tables["BlockApps-Token"]
    with pytest.raises(QueryError) as exc:
        backend.table(backend.served("Nothing"))
    assert exc.value.body["message"] == 'relation "public.Nothing" does not exist'


def test_history_rows_are_appended_and_closed_when_read(schema: Strato16) -> None:
    """A change appends a history row and updates none: valid_to is the next version's
    valid_from, derived when read (per address, path and chain)."""
    db = schema.db
    head = (addr(1), "h2", "2025-01-16 08:00:00 UTC", "8", "balances", "Mapping")
    key = encode_json({"key": addr(5)})
    path = f"balances[{addr(5)}]"
    write_mapping(db, schema.layout, [(*head, key, path, encode_json(4), "", addr(5))])
    write_mapping(db, schema.layout, [(*head, key, path, encode_json(4), "", addr(5))])  # unchanged
    stored = db.execute(
        'SELECT valid_to FROM "cirrus16:history@mapping" WHERE path = ?', (path,)
    ).fetchall()
    assert stored == [("infinity",), ("infinity",)]  # nothing closed in place
    hist = rows(schema, "history@mapping", f"path=eq.{path}&order=valid_from.asc")
    assert [(h["value"], h["valid_from"], h["valid_to"]) for h in hist] == [
        (3, "2025-01-15T10:20:30", "2025-01-16T08:00:00"),
        (4, "2025-01-16T08:00:00", "infinity"),
    ]
    # the other entry's only version stays open
    other = rows(schema, "history@mapping", f"path=eq.balances[{addr(6)}]")
    assert [h["valid_to"] for h in other] == ["infinity"]
    (cur,) = rows(schema, "history@storage", f"address=eq.{addr(1)}&valid_to=eq.infinity")
    assert cur["data"]["name"] == "Gold"
    indexes = db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'cirrus16:history@%'"
    ).fetchall()
    assert indexes == []


def test_a_database_with_the_closing_triggers_gets_the_appending_ones() -> None:
    """A data dir from before: its index over all history rows and its triggers that closed
    the previous version in place are dropped on start."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    Strato16(CirrusBackend(db))
    db.executescript(
        'CREATE INDEX "cirrus16:history@mapping:open" ON "cirrus16:history@mapping" '
        "(address, path, valid_to); "
        'CREATE TRIGGER "cirrus16:mapping:history:update" AFTER UPDATE ON "cirrus16:mapping" '
        'BEGIN UPDATE "cirrus16:history@mapping" SET valid_to = NEW.block_timestamp; END;'
    )
    Strato16(CirrusBackend(db))
    names = {n for (n,) in db.execute("SELECT name FROM sqlite_master")}
    assert "cirrus16:history@mapping:open" not in names
    assert "cirrus16:storage:version:update" in names
    assert not any(":history:" in n or "mapping:version" in n for n in names)


def test_string_objects_encode_as_the_json_encoder_does() -> None:
    """Event attributes and mapping keys are encoded without the encoder (string_object,
    json_string): byte for byte what compact_json writes."""
    tricky = ["", "plain", 'it\'s "q"', "back\\slash", "ü ☃ \U0001f600", "\x00\n\t\x1f", "\ud800"]
    members = [(f"k{i}{t}", t) for i, t in enumerate(tricky)]
    assert string_object(members) == compact_json(dict(members))
    assert string_object([]) == compact_json({}) == "{}"
    for t in tricky:
        assert json_string(t) == compact_json(t)
