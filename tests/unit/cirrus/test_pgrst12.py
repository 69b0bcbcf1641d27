"""PostgREST 12 as STRATO 16 runs it (reference strato16-cirrus.md §6, §9, §10), on the seed's
tables: aggregates with the automatic GROUP BY, casts, JSON paths, embeds with aliases,
``!inner``, to-one and to-many embeds, filters/order/limit on embedded resources, ``max-rows``.

Rows are written directly into a real SQLite backend: a ``Token`` contract table, its
collection table ``Token-balances`` (``key`` a holder, ``value`` a JSON amount) and ``Token-info``
(struct values), its event table ``Token.Transfer``, and a ``Pool`` whose contract-typed
``tokenA`` column references a ``Token``.
"""

from __future__ import annotations

import decimal
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from app.node.cirrus.backend import MAX_ROWS, STANDARD_COLUMNS, CirrusBackend
from app.node.cirrus.encoding import encode_json
from app.node.cirrus.entries import COLLECTION_COLUMNS
from app.node.cirrus.query import Embed, Field, QueryError, parse_query
from app.node.cirrus.relations import Relationship, follows
from app.node.cirrus.values import Column

C1 = "c1" * 32


def addr(n: int) -> str:
    return format(n, "040x")


def standard(n: int, chain: str = "") -> dict[str, Any]:
    a = addr(n)
    return {
        "address": a,
        "chainId": chain,
        "record_id": f"{a}:{chain}" if chain else a,
        "block_hash": format(n, "064x"),
        "block_timestamp": f"2025-01-1{n % 10} 10:00:00 UTC",
        "block_number": n,
        "transaction_hash": format(1000 + n, "064x"),
        "transaction_sender": addr(0xA11CE),
    }


def entry(owner: int, key: str, value: Any, chain: str = "", name: str = "balances") -> Any:
    return {
        "address": addr(owner),
        "chainId": chain,
        "block_hash": format(owner, "064x"),
        "block_timestamp": "2025-01-15 10:00:00 UTC",
        "block_number": owner,
        "transaction_hash": format(2000 + owner, "064x"),
        "transaction_sender": addr(0xA11CE),
        "collection_name": name,
        "collection_type": "Mapping",
        "key": key,
        "value": encode_json(value),
    }


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def b(db: sqlite3.Connection) -> CirrusBackend:
    back = CirrusBackend(db)
    std = [Column(n, k) for n, k in STANDARD_COLUMNS]
    token = back.ensure_table(
        "Token",
        "contract",
        [
            *std,
            Column("_symbol", "text"),
            Column("_totalSupply", "int"),
            Column("price", "decimal"),
            Column("meta", "json"),
            Column("status", "text"),
        ],
    )
    back.upsert(
        token,
        [
            {
                **standard(1),
                "_symbol": "AAA",
                "_totalSupply": 10**30,
                "price": "1.50",
                "meta": encode_json({"user": "u1", "attrs": {"color": "red"}, "n": 3}),
                "status": "1",
            },
            {
                **standard(2),
                "_symbol": "BBB",
                "_totalSupply": 20,
                "price": "2.25",
                "meta": encode_json({"user": "u2", "attrs": {"color": "blue"}, "n": 5}),
                "status": "1",
            },
            {
                **standard(3),
                "_symbol": "CCC",
                "_totalSupply": 30,
                "price": "0.5",
                "meta": encode_json({"user": "u1", "attrs": {"color": "red"}, "n": 7}),
                "status": "2",
            },
            {
                **standard(4, C1),
                "_symbol": "PRV",
                "_totalSupply": 40,
                "price": "9",
                "meta": encode_json({"user": "u9"}),
                "status": "2",
            },
        ],
    )
    cols = [Column(n, k) for n, k in COLLECTION_COLUMNS]
    bal = back.ensure_table(
        "Token-balances", "collection", [*cols, Column("value", "json"), Column("key", "text")]
    )
    back.insert(
        bal,
        [
            entry(1, "alice", 100),
            entry(1, "bob", 5),
            entry(2, "alice", 7),
            entry(3, "carol", 1),
            entry(4, "alice", 99, C1),
        ],
    )
    info = back.ensure_table(
        "Token-info", "collection", [*cols, Column("key", "text"), Column("value", "json")]
    )
    back.insert(
        info,
        [
            entry(1, "w1", {"requestedAt": "3", "bridgeStatus": "1", "amount": "10"}, name="info"),
            entry(1, "w2", {"requestedAt": "9", "bridgeStatus": "2", "amount": "20"}, name="info"),
            entry(2, "w3", {"requestedAt": "5", "bridgeStatus": "3", "amount": "30"}, name="info"),
        ],
    )
    ev = back.ensure_table(
        "Token.Transfer",
        "event",
        [Column("address", "text"), Column("to", "text"), Column("amount", "int")],
    )
    back.insert(
        ev,
        [
            {"_chain": "", "address": addr(1), "to": "alice", "amount": 3},
            {"_chain": "", "address": addr(1), "to": "bob", "amount": 4},
            {"_chain": "", "address": addr(2), "to": "alice", "amount": 5},
            {"_chain": C1, "address": addr(4), "to": "alice", "amount": 6},
        ],
    )
    pool = back.ensure_table(
        "Pool", "contract", [*std, Column("tokenA", "text", "Token"), Column("fee", "int")]
    )
    back.upsert(
        pool,
        [
            {**standard(10), "tokenA": addr(1), "fee": 3},
            {**standard(11), "tokenA": addr(2), "fee": 5},
            {**standard(12), "tokenA": None, "fee": 5},
        ],
    )
    return back


def run(back: CirrusBackend, table: str, *pairs: tuple[str, str], visible: Any = None) -> Any:
    rows, _ = back.run(table, parse_query(list(pairs)), visible, False)
    return rows


def refusal(back: CirrusBackend, table: str, *pairs: tuple[str, str]) -> tuple[int, Any]:
    with pytest.raises(QueryError) as info:
        back.run(table, parse_query(list(pairs)), None, False)
    return info.value.status, info.value.body


# ---------------------------------------------------------------------------- parsing


def test_select_items_parse_alias_cast_path_and_aggregate() -> None:
    q = parse_query(
        [("select", "a:x::text,value->>k,total:amount.sum(),event_name.count(),n.avg()::text")]
    )
    assert q.fields == [
        Field("x", "a", "text"),
        Field("value->>k"),
        Field("amount", "total", None, "sum"),
        Field("event_name", None, None, "count"),
        Field("n", None, None, "avg", "text"),
    ]
    assert q.columns == ["a:x", "value->>k"]


def test_embed_alias_inner_and_its_own_select() -> None:
    q = parse_query([("select", "b:Token-balances!inner(user:key,v:value::text)")])
    (e,) = q.embeds
    assert e == Embed("Token-balances", ["user:key", "v:value::text"])
    assert (e.alias, e.inner, e.key) == ("b", True, "b")
    assert e.sub is not None and e.sub.fields[1] == Field("value", "v", "text")


def test_filters_order_and_limit_go_to_the_embedded_resource() -> None:
    q = parse_query(
        [
            ("select", "a,t:T(x,u:U(y))"),
            ("t.x", "eq.1"),
            ("t.u.y", "gt.2"),
            ("t.order", "x.desc"),
            ("t.limit", "3"),
            ("t.or", "(x.eq.1,x.eq.2)"),
        ]
    )
    assert q.where.items == []
    sub = q.embeds[0].sub
    assert sub is not None
    assert [getattr(f, "column", None) for f in sub.where.items] == ["x", None]
    assert sub.order[0].column == "x" and sub.order[0].desc
    assert sub.limit == 3
    inner = sub.embeds[0].sub
    assert inner is not None and inner.where.items[0].column == "y"  # type: ignore[union-attr]


def test_filter_on_a_resource_not_embedded_is_PGRST108() -> None:
    with pytest.raises(QueryError) as info:
        parse_query([("select", "a"), ("balances.key", "eq.U")])
    assert info.value.status == 400
    assert info.value.body == {
        "code": "PGRST108",
        "details": None,
        "hint": "Verify that 'balances' is included in the 'select' query parameter.",
        "message": "'balances' is not an embedded resource in this request",
    }


# ---------------------------------------------------------------------------- aggregates


def test_count_parentheses_answers_one_row(b: CirrusBackend) -> None:
    assert run(b, "Token", ("select", "count()")) == [{"count": 4}]
    assert run(b, "Token", ("select", "count()"), visible=set()) == [{"count": 3}]
    assert run(b, "Token", ("select", "n:count()")) == [{"n": 4}]


def test_count_with_other_columns_groups_by_them(b: CirrusBackend) -> None:
    rows = run(b, "Token", ("select", "status,count()"), ("order", "status.asc"))
    assert rows == [{"status": "1", "count": 2}, {"status": "2", "count": 2}]
    rows = run(b, "Token", ("select", "count(),status"), ("order", "status.desc"))
    assert rows == [{"count": 2, "status": "2"}, {"count": 2, "status": "1"}]


def test_column_count_grouped_as_the_events_feed_asks(b: CirrusBackend) -> None:
    rows = run(b, "Token.Transfer", ("select", "to,to.count()"), ("order", "to"))
    assert rows == [{"to": "alice", "count": 3}, {"to": "bob", "count": 1}]


def test_sum_avg_min_max_with_aliases(b: CirrusBackend) -> None:
    rows = run(
        b,
        "Token",
        ("select", "total:_totalSupply.sum(),mean:price.avg(),lo:price.min(),hi:price.max()"),
        ("status", "eq.2"),
    )
    assert rows == [
        {
            "total": 70,
            "mean": decimal.Decimal("4.7500000000000000"),
            "lo": decimal.Decimal("0.5"),
            "hi": decimal.Decimal("9"),
        }
    ]
    # PostgreSQL's numeric scale: at least 16 significant digits, exact sums of huge values
    assert run(b, "Token", ("select", "_totalSupply.sum()")) == [{"sum": 10**30 + 90}]
    assert run(b, "Token", ("select", "price.sum()")) == [{"sum": decimal.Decimal("13.25")}]
    assert run(b, "Token.Transfer", ("select", "amount.avg()"), ("to", "eq.bob")) == [
        {"avg": decimal.Decimal("4.0000000000000000")}
    ]


def test_aggregate_result_cast_and_input_cast(b: CirrusBackend) -> None:
    assert run(b, "Token", ("select", "_totalSupply.sum()::text"), ("status", "eq.2")) == [
        {"sum": "70"}
    ]
    rows = run(b, "Token-info", ("select", "s:value->>amount::numeric.sum()"))
    assert rows == [{"s": 60}]


def test_aggregates_over_no_rows(b: CirrusBackend) -> None:
    assert run(b, "Token", ("select", "count(),_totalSupply.sum()"), ("status", "eq.9")) == [
        {"count": 0, "sum": None}
    ]
    assert run(b, "Token", ("select", "status,count()"), ("status", "eq.9")) == []


def test_aggregate_errors(b: CirrusBackend) -> None:
    status, body = refusal(b, "Token", ("select", "_symbol.sum()"))
    assert (status, body["code"], body["message"]) == (
        400,
        "42883",
        "function sum(text) does not exist",
    )
    status, body = refusal(b, "Token", ("select", "meta.max()"))
    assert (status, body["message"]) == (400, "function max(jsonb) does not exist")
    status, body = refusal(b, "Token", ("select", "status,count()"), ("order", "price.asc"))
    assert (status, body["code"]) == (400, "42803")
    assert body["message"].startswith('column "Token.price" must appear in the GROUP BY')
    status, body = refusal(b, "Token", ("select", "nope.sum()"))
    assert (status, body["code"]) == (400, "42703")


def test_aggregates_beside_embeds_group_by_the_embed_too(b: CirrusBackend) -> None:
    # the events feed's shape: event_name,event_name.count(),storage!inner(contract!inner(...))
    rows = run(
        b,
        "Token.Transfer",
        ("select", "to,to.count(),amount.sum(),t:Token!inner(_symbol)"),
        ("t._symbol", "neq.PRV"),
        ("order", "to.asc"),
    )
    assert rows == [
        {"to": "alice", "count": 1, "sum": 3, "t": {"_symbol": "AAA"}},
        {"to": "alice", "count": 1, "sum": 5, "t": {"_symbol": "BBB"}},
        {"to": "bob", "count": 1, "sum": 4, "t": {"_symbol": "AAA"}},
    ]
    rows = run(b, "Token.Transfer", ("select", "count(),t:Token!inner(status)"))
    assert rows == [{"count": 3, "t": {"status": "1"}}, {"count": 1, "t": {"status": "2"}}]


def test_seed_spelling_of_count_is_unchanged(b: CirrusBackend) -> None:
    assert run(b, "Token", ("select", "count")) == [{"count": 4}]
    status, body = refusal(b, "Token", ("select", "count,status"))
    assert (status, body["code"]) == (400, "42803")


# ---------------------------------------------------------------------------- casts


def test_casts_in_select(b: CirrusBackend) -> None:
    rows = run(
        b,
        "Token",
        ("select", "_totalSupply::text,p:price::text,meta::text,status::int,block_number::int"),
        ("address", f"eq.{addr(1)}"),
    )
    assert rows == [
        {
            "_totalSupply": str(10**30),
            "p": "1.50",
            "meta": '{"n": 3, "user": "u1", "attrs": {"color": "red"}}',
            "status": 1,
            "block_number": 1,
        }
    ]


def test_value_text_of_a_json_value_is_its_json_text(b: CirrusBackend) -> None:
    rows = run(b, "Token-balances", ("select", "key,value::text"), ("key", "eq.bob"))
    assert rows == [{"key": "bob", "value": "5"}]
    rows = run(b, "Token-info", ("select", "value::text"), ("key", "eq.w1"))
    assert rows == [{"value": '{"amount": "10", "requestedAt": "3", "bridgeStatus": "1"}'}]


def test_cast_on_a_json_path_with_alias(b: CirrusBackend) -> None:
    rows = run(b, "Token-info", ("select", "amt:value->>amount::numeric"), ("key", "eq.w2"))
    assert rows == [{"amt": 20}]


def test_cast_errors(b: CirrusBackend) -> None:
    status, body = refusal(b, "Token", ("select", "_symbol::numeric"))
    assert (status, body["code"], body["message"]) == (
        400,
        "22P02",
        'invalid input syntax for type numeric: "AAA"',
    )
    status, body = refusal(b, "Token", ("select", "_symbol::widget"))
    assert (status, body["code"], body["message"]) == (
        400,
        "42704",
        'type "widget" does not exist',
    )
    status, body = refusal(b, "Token", ("select", "meta::numeric"))
    assert (status, body["code"]) == (400, "22023")


# ---------------------------------------------------------------------------- JSON paths


def test_json_paths_in_select_filter_and_order(b: CirrusBackend) -> None:
    rows = run(
        b,
        "Token",
        ("select", "meta->>user,c:meta->attrs->>color,meta->n"),
        ("meta->>user", "eq.u1"),
        ("order", "meta->n.desc"),
    )
    assert rows == [{"user": "u1", "c": "red", "n": 7}, {"user": "u1", "c": "red", "n": 3}]


def test_struct_value_paths_as_the_bridge_queries_them(b: CirrusBackend) -> None:
    rows = run(
        b,
        "Token-info",
        ("select", "withdrawalId:key,value->>bridgeStatus"),
        ("or", "(value->>bridgeStatus.eq.1,value->>bridgeStatus.eq.2)"),
        ("order", "value->>requestedAt.desc"),
    )
    assert rows == [
        {"withdrawalId": "w2", "bridgeStatus": "2"},
        {"withdrawalId": "w1", "bridgeStatus": "1"},
    ]


# ---------------------------------------------------------------------------- embeds


def test_to_many_embed_of_a_collection_with_alias_and_cast(b: CirrusBackend) -> None:
    rows = run(
        b,
        "Token",
        ("select", "_symbol,balances:Token-balances(user:key,balance:value::text)"),
        visible=set(),
    )
    assert rows == [
        {
            "_symbol": "AAA",
            "balances": [{"user": "alice", "balance": "100"}, {"user": "bob", "balance": "5"}],
        },
        {"_symbol": "BBB", "balances": [{"user": "alice", "balance": "7"}]},
        {"_symbol": "CCC", "balances": [{"user": "carol", "balance": "1"}]},
    ]


def test_embedded_filter_narrows_the_embed_and_keeps_parents(b: CirrusBackend) -> None:
    rows = run(
        b,
        "Token",
        ("select", "_symbol,balances:Token-balances(key,value)"),
        ("balances.key", "eq.alice"),
        visible=set(),
    )
    assert rows == [
        {"_symbol": "AAA", "balances": [{"key": "alice", "value": 100}]},
        {"_symbol": "BBB", "balances": [{"key": "alice", "value": 7}]},
        {"_symbol": "CCC", "balances": []},
    ]


def test_inner_embed_drops_parents_without_a_match(b: CirrusBackend) -> None:
    pairs = (
        ("select", "_symbol,balances:Token-balances!inner(key,value)"),
        ("balances.key", "eq.alice"),
        ("balances.value", "gt.10"),
    )
    assert run(b, *("Token",), *pairs, visible=set()) == [
        {"_symbol": "AAA", "balances": [{"key": "alice", "value": 100}]}
    ]
    # the parents' count and limit see the same rows
    rows, total = b.run("Token", parse_query([*pairs, ("limit", "5")]), set(), True)
    assert (len(rows), total) == (1, 1)


def test_embedded_order_and_limit_per_parent(b: CirrusBackend) -> None:
    rows = run(
        b,
        "Token",
        ("select", "_symbol,b:Token-balances(key)"),
        ("b.order", "key.desc"),
        ("b.limit", "1"),
        ("_symbol", "eq.AAA"),
    )
    assert rows == [{"_symbol": "AAA", "b": [{"key": "bob"}]}]


def test_to_one_embed_from_a_collection_and_from_an_event(b: CirrusBackend) -> None:
    rows = run(
        b,
        "Token-balances",
        ("select", "key,token:Token(_symbol)"),
        ("key", "eq.alice"),
        visible=set(),
    )
    assert rows == [
        {"key": "alice", "token": {"_symbol": "AAA"}},
        {"key": "alice", "token": {"_symbol": "BBB"}},
    ]
    rows = run(b, "Token.Transfer", ("select", "to,t:Token(_symbol)"), ("t._symbol", "eq.AAA"))
    assert rows == [
        {"to": "alice", "t": {"_symbol": "AAA"}},
        {"to": "bob", "t": {"_symbol": "AAA"}},
        {"to": "alice", "t": None},  # BBB: filtered out of the embed, the event stays
        {"to": "alice", "t": None},
    ]


def test_filters_two_levels_deep(b: CirrusBackend) -> None:
    rows = run(
        b,
        "Pool",
        ("select", "fee,tokenA:Token(_symbol,balances:Token-balances(key,value::text))"),
        ("tokenA.balances.key", "eq.bob"),
    )
    assert rows == [
        {"fee": 3, "tokenA": {"_symbol": "AAA", "balances": [{"key": "bob", "value": "5"}]}},
        {"fee": 5, "tokenA": {"_symbol": "BBB", "balances": []}},
        {"fee": 5, "tokenA": None},
    ]
    rows = run(
        b,
        "Pool",
        ("select", "fee,tokenA:Token!inner(_symbol,balances:Token-balances!inner(key))"),
        ("tokenA.balances.key", "eq.bob"),
    )
    assert rows == [{"fee": 3, "tokenA": {"_symbol": "AAA", "balances": [{"key": "bob"}]}}]


def test_embed_errors(b: CirrusBackend) -> None:
    status, body = refusal(b, "Token", ("select", "x:Nothing(*)"))
    assert (status, body["code"]) == (400, "PGRST200")
    assert body["message"] == (
        "Could not find a relationship between Token and Nothing in the schema cache"
    )
    status, body = refusal(b, "Token", ("select", "b:Token-balances(nope)"))
    assert (status, body["code"], body["message"]) == (
        400,
        "42703",
        "column Token-balances.nope does not exist",
    )
    status, body = refusal(b, "Token", ("select", "b:Token-balances(key)"), ("b.nope", "eq.1"))
    assert (status, body["code"]) == (400, "42703")


def test_a_relationship_source_plugs_in_computed_relationships(b: CirrusBackend) -> None:
    # what a STRATO 16 family registers: `<col>_fkey` names no table, it follows a column
    def fkeys(schema: Any, t: Any, name: str) -> list[Relationship]:
        if t.name == "Pool" and name == "tokenA_fkey":
            return [follows("Pool", "Token", name, True, [("tokenA", "address")], "tokenA")]
        return []

    b.relation_sources.append(fkeys)
    rows = run(b, "Pool", ("select", "fee,tokenA:tokenA_fkey(_symbol)"), ("fee", "eq.3"))
    assert rows == [{"fee": 3, "tokenA": {"_symbol": "AAA"}}]
    rows = run(
        b,
        "Pool",
        ("select", "fee,t:tokenA_fkey!inner(_symbol,b:Token-balances(key))"),
        ("t.b.key", "eq.alice"),
        ("t._symbol", "eq.BBB"),
    )
    assert rows == [{"fee": 5, "t": {"_symbol": "BBB", "b": [{"key": "alice"}]}}]


# ---------------------------------------------------------------------------- max-rows


def test_max_rows_is_strato16s_and_there_is_no_default_limit(b: CirrusBackend) -> None:
    assert MAX_ROWS == 1_000_000
    b.max_rows = 2
    assert len(run(b, "Token")) == 2
    assert len(run(b, "Token", ("limit", "3"))) == 2


def test_embeds_and_aggregates_run_off_the_event_loop(b: CirrusBackend) -> None:
    # a small parent table can embed a huge collection, and aggregates read every row
    assert b.is_cheap("Token", parse_query([("select", "_symbol")]))
    assert not b.is_cheap("Token", parse_query([("select", "_symbol,b:Token-balances(*)")]))
    assert not b.is_cheap("Token", parse_query([("select", "status,count()")]))


def test_members_keep_the_order_of_the_select(b: CirrusBackend) -> None:
    rows = run(
        b,
        "Pool",
        ("select", "t:Token(b:Token-balances(key),_symbol),fee"),
        ("fee", "eq.3"),
    )
    assert rows == [{"t": {"b": [{"key": "alice"}, {"key": "bob"}], "_symbol": "AAA"}, "fee": 3}]
    assert list(rows[0]) == ["t", "fee"]
    assert list(rows[0]["t"]) == ["b", "_symbol"]


def test_grouping_by_a_json_path(b: CirrusBackend) -> None:
    rows = run(
        b,
        "Token-info",
        ("select", "s:value->>bridgeStatus,count(),amt:value->>amount::numeric.sum()"),
        ("order", "value->>bridgeStatus.desc"),
    )
    assert rows == [
        {"s": "3", "count": 1, "amt": 30},
        {"s": "2", "count": 1, "amt": 20},
        {"s": "1", "count": 1, "amt": 10},
    ]
