"""The table-name resolver, on table lists given as data: the seed's family, STRATO 16's, both
at once, with and without the node's column descriptions."""

from __future__ import annotations

import asyncio
from typing import Any

from app.client.cirrus_names import CirrusNames, NameBook, read_names
from app.client.cirrus_schema import ColumnInfo, TableInfo
from app.client.errors import RequestError

SEED = [
    "Certificate",
    "Acme-Nest",
    "Acme-Nest.Summed",
    "history@Acme-Nest",
    "Acme-Nest-values",
    "Acme-CarDemo-Car",
    "Acme-CarDemo-Car.Sold",
    "Coin",
    "Coin.Moved",
    "Coin-balances",
]
STRATO16 = [
    "contract",
    "storage",
    "mapping",
    "event",
    "event_array",
    "history@storage",
    "history@mapping",
    "BlockApps-Nest",
    "BlockApps-Nest-Summed",
    "BlockApps-Nest-values",
    "BlockApps-Token",
    "BlockApps-Token-_balances",
    "BlockApps-Token-Transfer",
    "BlockApps-Pool-Swap",  # its index view not listed (yet)
]


def cols(*names: str) -> list[ColumnInfo]:
    return [ColumnInfo(n) for n in names]


def described() -> dict[str, TableInfo]:
    """STRATO 16's list with the columns PostgREST describes."""
    base = ("address", "block_hash", "block_timestamp", "block_number")
    event = (*base, "id", "transaction_sender", "event_index", "creator", "contract_name")
    coll = (*base, "collection_name", "collection_type", "value", "key")
    t = {n: TableInfo(n) for n in STRATO16}
    t["BlockApps-Nest"] = TableInfo("BlockApps-Nest", cols(*base, "creator", "contract_name"))
    t["BlockApps-Nest-Summed"] = TableInfo("BlockApps-Nest-Summed", cols(*event, "total"))
    t["BlockApps-Nest-values"] = TableInfo("BlockApps-Nest-values", cols(*coll))
    t["BlockApps-Token"] = TableInfo("BlockApps-Token", cols(*base, "creator", "contract_name"))
    t["BlockApps-Token-_balances"] = TableInfo("BlockApps-Token-_balances", cols(*coll))
    t["BlockApps-Token-Transfer"] = TableInfo("BlockApps-Token-Transfer", cols(*event, "to"))
    t["BlockApps-Pool-Swap"] = TableInfo("BlockApps-Pool-Swap", cols(*event, "amountIn"))
    return t


def test_seed_names_resolve_by_contract_whatever_the_prefix() -> None:
    n = CirrusNames(SEED)
    assert n.contract_tables("Nest") == ["Acme-Nest"]
    assert n.event_tables("Nest", "Summed") == ["Acme-Nest.Summed"]
    assert n.history_tables("Nest") == ["history@Acme-Nest"]
    assert n.collection_tables("Nest", "values") == ["Acme-Nest-values"]
    assert n.contract_tables("Car") == ["Acme-CarDemo-Car"]
    assert n.event_tables("Car", "Sold") == ["Acme-CarDemo-Car.Sold"]
    assert n.contract_tables("Coin") == ["Coin"] and n.history_tables("Coin") == []
    assert n.event_tables("Coin", "Moved") == ["Coin.Moved"]
    assert n.collection_tables("Coin", "balances") == ["Coin-balances"]
    # a collection table is not a contract of its own
    assert n.contract_tables("values") == [] and n.contract_tables("balances") == []
    assert n.event_tables("Nest", "Other") == [] and not n.global_events
    assert n.all_event_tables() == ["Acme-CarDemo-Car.Sold", "Acme-Nest.Summed", "Coin.Moved"]
    assert n.family("Acme-Nest.Summed") == "seed"


def test_strato16_views_from_names_alone_use_the_interface() -> None:
    n = CirrusNames(STRATO16, interfaces={"Nest": (["Summed"], ["values", "total"])})
    assert n.contract_tables("Nest") == ["BlockApps-Nest"]
    assert n.event_tables("Nest", "Summed") == ["BlockApps-Nest-Summed"]
    assert n.collection_tables("Nest", "values") == ["BlockApps-Nest-values"]
    # the interface tells the event view from the collection view
    assert n.collection_tables("Nest", "Summed") == []
    assert n.event_tables("Nest", "values") == []
    assert n.kind("BlockApps-Nest-Summed") == "event"
    assert n.family("BlockApps-Nest-Summed") == "strato16"
    # no interface for Token: either kind may be asked for, the name decides
    assert n.event_tables("Token", "Transfer") == ["BlockApps-Token-Transfer"]
    assert n.collection_tables("Token", "_balances") == ["BlockApps-Token-_balances"]
    assert n.kind("BlockApps-Token-_balances") == "member"
    # global tables belong to no contract; history is global (no per-contract view)
    assert n.kind("event") == "global" and n.contract_of("event") == ""
    assert n.history_tables("Nest") == []
    assert n.global_events
    assert "Summed" not in n.contract_tables("Summed")


def test_strato16_views_from_their_columns() -> None:
    n = CirrusNames(described())
    assert n.kind("BlockApps-Nest-Summed") == "event"
    assert n.kind("BlockApps-Nest-values") == "collection"
    assert n.kind("BlockApps-Nest") == "contract"
    assert n.family("BlockApps-Nest") == "strato16"
    assert n.event_tables("Nest", "Summed") == ["BlockApps-Nest-Summed"]
    assert n.collection_tables("Nest", "Summed") == []
    # an event view whose index view is not listed still names its contract
    assert n.kind("BlockApps-Pool-Swap") == "event"
    assert n.event_name("BlockApps-Pool-Swap") == ("Pool", "Swap")
    assert n.contract_tables("Pool") == [] and n.contract_tables("Swap") == []
    assert n.all_event_tables() == [
        "BlockApps-Nest-Summed",
        "BlockApps-Pool-Swap",
        "BlockApps-Token-Transfer",
    ]
    assert n.group("BlockApps-Token-_balances") == "Token"
    assert n.group("BlockApps-Nest-Summed") == "Nest"


def test_both_families_at_once_plain_name_first() -> None:
    n = CirrusNames(SEED + STRATO16, interfaces={"Nest": (["Summed"], ["values"])})
    assert n.contract_tables("Nest") == ["Acme-Nest", "BlockApps-Nest"]
    assert n.event_tables("Nest", "Summed") == ["Acme-Nest.Summed", "BlockApps-Nest-Summed"]
    assert n.contract_tables("Coin") == ["Coin"]
    assert n.event_name("Acme-Nest.Summed") == ("Nest", "Summed")
    assert n.event_name("BlockApps-Nest-Summed") == ("Nest", "Summed")
    groups = {t: n.group(t) for t in SEED + STRATO16}
    assert {t for t, g in groups.items() if g == "Nest"} == {
        "Acme-Nest",
        "Acme-Nest.Summed",
        "history@Acme-Nest",
        "Acme-Nest-values",
        "BlockApps-Nest",
        "BlockApps-Nest-Summed",
        "BlockApps-Nest-values",
    }


class FakeClient:
    """The reads :func:`read_names` makes, answered from data; ``plain``: the node serves the
    plain names bloc lists as tables (not a STRATO 16 node)."""

    def __init__(
        self,
        schema: dict[str, Any],
        contracts: dict[str, Any],
        rows: list[Any],
        plain: bool = True,
    ):
        self.schema, self.listed, self.rows, self.plain = schema, contracts, rows, plain
        self.asked = 0

    async def cirrus_schema(self) -> dict[str, Any]:
        self.asked += 1
        return self.schema

    async def contracts(self) -> dict[str, Any]:
        return self.listed

    async def cirrus(self, table: str, params: Any = None) -> tuple[list[Any], None]:
        if self.plain and table in self.listed:
            return [], None
        if table != "contract" or not self.rows:
            raise RequestError("not found", status=404)
        return self.rows, None


def test_a_node_that_describes_nothing_gets_creator_views_from_the_contract_table() -> None:
    client = FakeClient(
        {},
        {"Nest": [], "Token": []},
        [
            {"creator": "BlockApps", "contract_name": "Nest"},
            {"creator": "BlockApps", "contract_name": "Token"},
        ],
    )
    n = asyncio.run(read_names(client))
    assert not n.listed
    assert n.contract_tables("Nest") == ["Nest", "BlockApps-Nest"]
    assert n.global_events
    seed = asyncio.run(read_names(FakeClient({}, {"Nest": []}, [])))
    assert seed.contract_tables("Nest") == ["Nest"] and not seed.global_events


def test_a_strato16_node_that_describes_nothing_gets_its_views_not_the_plain_names() -> None:
    rows = [{"creator": "BlockApps", "contract_name": "Nest"}]
    n = asyncio.run(read_names(FakeClient({}, {"Nest": [], "Old": []}, rows, plain=False)))
    assert n.contract_tables("Nest") == ["BlockApps-Nest"]
    assert "Nest" not in n and "Old" not in n


def test_the_book_rereads_when_a_new_contract_is_asked_for() -> None:
    doc: dict[str, Any] = {"definitions": {"Acme-Nest": {"properties": {}}}}
    client = FakeClient(doc, {}, [])
    book = NameBook()
    book_names = asyncio.run(book.names(client))
    assert book_names.contract_tables("Nest") == ["Acme-Nest"] and client.asked == 1
    asyncio.run(book.names(client, want="Nest"))
    assert client.asked == 1  # known: reused
    doc["definitions"]["Acme-Later"] = {"properties": {}}
    book._at -= 2  # older than the miss threshold
    later = asyncio.run(book.names(client, want="Later"))
    assert later.contract_tables("Later") == ["Acme-Later"] and client.asked == 2


def test_the_book_rereads_a_list_older_than_a_block_asked_after() -> None:
    doc: dict[str, Any] = {"definitions": {"Acme-Nest": {"properties": {}}}}
    client = FakeClient(doc, {}, [])
    book = NameBook()

    async def walk() -> None:
        await book.names(client)
        doc["definitions"]["Acme-Nest.Summed"] = {"properties": {}}  # emitted in block b1
        stale = await book.names(client, want="Nest")
        assert stale.event_tables("Nest", "Summed") == [] and client.asked == 1
        got = await book.names(client, want="Nest", after="b1")
        assert got.event_tables("Nest", "Summed") == ["Acme-Nest.Summed"]
        await book.names(client, after="b1")  # read after b1 already
        assert client.asked == 2

    asyncio.run(walk())


def test_a_node_serving_both_families_reads_each_event_once() -> None:
    t = described()
    seed_cols = cols("record_id", "address", "chainId", "block_hash", "transaction_hash")
    t["Acme-Nest"] = TableInfo("Acme-Nest", seed_cols)
    t["Acme-Nest.Summed"] = TableInfo("Acme-Nest.Summed", cols("id", "address", "total"))
    n = CirrusNames(t)
    assert n.family("Acme-Nest") == "seed" and n.family("BlockApps-Nest") == "strato16"
    assert n.contract_tables("Nest") == ["Acme-Nest", "BlockApps-Nest"]
    assert n.event_tables("Nest", "Summed") == ["Acme-Nest.Summed", "BlockApps-Nest-Summed"]
    # the feed: a node serving the seed's names has every event in them (its STRATO 16 views
    # hold the same rows, and an empty view of every declared event)
    assert n.serves_seed and not CirrusNames(described()).serves_seed
    assert n.all_event_tables() == ["Acme-Nest.Summed"]


def test_without_columns_a_seed_table_is_known_by_its_event_or_history_tables() -> None:
    n = CirrusNames(SEED + STRATO16)
    assert n.family("Acme-Nest") == "seed" and n.family("Acme-Nest-values") == "seed"
    assert n.family("BlockApps-Nest") == "strato16"
    assert n.family("BlockApps-Nest-values") == "strato16"
