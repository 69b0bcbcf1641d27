"""The Cirrus SQLite backend: schema registry, writes and query rendering on a real database.

Rows are written directly (no indexer, no ledger). Expected behaviour is PostgREST 9 over
PostgreSQL (reference §4): case-sensitive ``like`` with ``*`` wildcards, NULLs last for ascending
and first for descending order, the PostgREST error codes, and no way for a request to reach SQL
other than as a bound value or a registered, quoted identifier.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from app.node.cirrus.backend import (
    MAX_ROWS,
    STANDARD_COLUMNS,
    CirrusBackend,
    Table,
)
from app.node.cirrus.query import Filter, Group, Query, QueryError, parse_query
from app.node.cirrus.values import Column

C1 = "c1" * 32  # a private chain id
C2 = "c2" * 32  # another one


def addr(n: int) -> str:
    return format(n, "040x")


def standard(n: int, chain: str = "", block: int = 1) -> dict[str, Any]:
    a = addr(n)
    return {
        "address": a,
        "chainId": chain,
        "record_id": f"{a}:{chain}" if chain else a,
        "block_hash": format(block, "064x"),
        "block_timestamp": "2024-01-02 03:04:05 UTC",
        "block_number": block,
        "transaction_hash": format(1000 + n, "064x"),
        "transaction_sender": addr(0xA11CE),
    }


def std_columns() -> list[Column]:
    return [Column(n, k) for n, k in STANDARD_COLUMNS]


THING_COLUMNS = [
    Column("label", "text"),
    Column("qty", "int"),
    Column("active", "bool"),
    Column("note", "text"),
    Column("receipt", "text", "Receipt"),
]

# (address number, chain, label, qty, active, note, receipt); insertion order is this order
THINGS: list[tuple[int, str, str, int, bool, str | None, str | None]] = [
    (1, "", "Alpha", 10, True, "x", addr(101)),
    (2, "", "beta", 20, False, None, None),
    (3, "", "Gamma", 10, True, "y", addr(102)),
    (4, C1, "alpha", 30, False, None, addr(103)),
    (5, C2, "Delta", 20, True, "z", None),
    (6, "", "epsilon", -5, False, "x", addr(999)),  # references a missing receipt
]

# (address number, chain, memo, amount)
RECEIPTS: list[tuple[int, str, str, int]] = [
    (101, "", "first", 1),
    (102, "", "second", 2),
    (103, C1, "private", 3),
]


def thing_row(n: int, chain: str, label: str, qty: int, active: bool, note: Any, rc: Any) -> Any:
    return {
        **standard(n, chain, block=n),
        "label": label,
        "qty": qty,
        "active": active,
        "note": note,
        "receipt": rc,
    }


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def backend(db: sqlite3.Connection) -> CirrusBackend:
    b = CirrusBackend(db)
    receipt = b.ensure_table(
        "Receipt", "contract", [*std_columns(), Column("memo", "text"), Column("amount", "int")]
    )
    b.upsert(
        receipt,
        [{**standard(n, chain), "memo": m, "amount": a} for n, chain, m, a in RECEIPTS],
    )
    thing = b.ensure_table("Thing", "contract", [*std_columns(), *THING_COLUMNS])
    b.upsert(thing, [thing_row(*t) for t in THINGS])
    return b


def run(
    b: CirrusBackend,
    table: str,
    *pairs: tuple[str, str],
    visible: set[str] | None = None,
    total: bool = False,
) -> list[dict[str, Any]]:
    rows, n = b.run(table, parse_query(list(pairs)), visible, total)
    if not total:
        assert n is None
    return rows


def labels(b: CirrusBackend, *pairs: tuple[str, str], visible: set[str] | None = None) -> list[str]:
    return [r["label"] for r in run(b, "Thing", ("select", "label"), *pairs, visible=visible)]


def refusal(b: CirrusBackend, table: str, *pairs: tuple[str, str]) -> tuple[int, dict[str, Any]]:
    with pytest.raises(QueryError) as info:
        b.run(table, parse_query(list(pairs)), None, False)
    return info.value.status, info.value.body


def count_rows(db: sqlite3.Connection, table: str) -> int:
    (n,) = db.execute(f'SELECT count(*) FROM "cirrus:{table}"').fetchone()
    return int(n)


# ---------------------------------------------------------------------------- plain reads


def test_all_rows_in_insertion_order_with_typed_values(backend: CirrusBackend) -> None:
    rows = run(backend, "Thing")
    assert [r["label"] for r in rows] == ["Alpha", "beta", "Gamma", "alpha", "Delta", "epsilon"]
    assert rows[0] == {
        "address": addr(1),
        "chainId": "",
        "record_id": addr(1),
        "block_hash": format(1, "064x"),
        "block_timestamp": "2024-01-02 03:04:05 UTC",
        "block_number": "1",
        "transaction_hash": format(1001, "064x"),
        "transaction_sender": addr(0xA11CE),
        "label": "Alpha",
        "qty": 10,
        "active": True,
        "note": "x",
        "receipt": addr(101),
    }
    assert rows[1]["active"] is False
    assert rows[1]["note"] is None
    assert rows[3]["record_id"] == f"{addr(4)}:{C1}"
    assert rows[5]["qty"] == -5


def test_columns_keep_their_declared_order(backend: CirrusBackend) -> None:
    rows = run(backend, "Thing", ("limit", "1"))
    assert list(rows[0]) == [n for n, _ in STANDARD_COLUMNS] + [c.name for c in THING_COLUMNS]


def test_select_columns_in_the_requested_order(backend: CirrusBackend) -> None:
    rows = run(backend, "Thing", ("select", "qty,label"), ("limit", "2"))
    assert rows == [{"qty": 10, "label": "Alpha"}, {"qty": 20, "label": "beta"}]
    assert list(rows[0]) == ["qty", "label"]


def test_block_number_is_a_string_and_filters_as_a_number(backend: CirrusBackend) -> None:
    rows = run(backend, "Thing", ("select", "block_number"), ("block_number", "gt.3"))
    assert rows == [{"block_number": "4"}, {"block_number": "5"}, {"block_number": "6"}]


# ---------------------------------------------------------------------------- operators


def test_eq_on_text_int_bool(backend: CirrusBackend) -> None:
    assert labels(backend, ("label", "eq.beta")) == ["beta"]
    assert labels(backend, ("qty", "eq.10")) == ["Alpha", "Gamma"]
    assert labels(backend, ("active", "eq.true")) == ["Alpha", "Gamma", "Delta"]
    assert labels(backend, ("active", "eq.false")) == ["beta", "alpha", "epsilon"]


def test_eq_is_case_sensitive(backend: CirrusBackend) -> None:
    assert labels(backend, ("label", "eq.alpha")) == ["alpha"]
    assert labels(backend, ("label", "eq.ALPHA")) == []


def test_comparisons_on_int(backend: CirrusBackend) -> None:
    assert labels(backend, ("qty", "lt.10")) == ["epsilon"]
    assert labels(backend, ("qty", "lte.10")) == ["Alpha", "Gamma", "epsilon"]
    assert labels(backend, ("qty", "gt.20")) == ["alpha"]
    assert labels(backend, ("qty", "gte.20")) == ["beta", "alpha", "Delta"]
    assert labels(backend, ("qty", "gt.-6"), ("qty", "lt.0")) == ["epsilon"]


def test_comparisons_are_numeric_not_textual(backend: CirrusBackend) -> None:
    # "9" > "10" as text; 9 < 10 as numbers
    assert labels(backend, ("qty", "gt.9")) == ["Alpha", "beta", "Gamma", "alpha", "Delta"]


def test_comparisons_on_text(backend: CirrusBackend) -> None:
    # one case only: the order of mixed case depends on the collation
    pairs = (("active", "is.false"), ("label", "gte.b"))
    assert labels(backend, *pairs) == ["beta", "epsilon"]
    assert labels(backend, ("active", "is.false"), ("label", "lt.beta")) == ["alpha"]


def test_neq_excludes_nulls_like_sql(backend: CirrusBackend) -> None:
    # PostgreSQL: NULL <> 'x' is NULL, so rows whose note is NULL match neither eq nor neq
    assert labels(backend, ("note", "neq.x")) == ["Gamma", "Delta"]
    assert labels(backend, ("note", "not.eq.x")) == ["Gamma", "Delta"]
    assert labels(backend, ("note", "eq.x")) == ["Alpha", "epsilon"]


def test_in(backend: CirrusBackend) -> None:
    assert labels(backend, ("qty", "in.(20,30)")) == ["beta", "alpha", "Delta"]
    assert labels(backend, ("label", 'in.(beta,"Gamma")')) == ["beta", "Gamma"]
    assert labels(backend, ("label", "in.beta,Gamma")) == ["beta", "Gamma"]


def test_in_with_a_comma_inside_quotes(backend: CirrusBackend, db: sqlite3.Connection) -> None:
    t = backend.tables["Thing"]
    backend.upsert(t, [thing_row(7, "", "a,b", 1, True, None, None)])
    assert labels(backend, ("label", 'in.("a,b",zeta)')) == ["a,b"]
    assert labels(backend, ("label", "in.(a,b)")) == []


def test_not_in_excludes_nulls(backend: CirrusBackend) -> None:
    assert labels(backend, ("note", "not.in.(x)")) == ["Gamma", "Delta"]


def test_empty_in_list_matches_nothing(backend: CirrusBackend) -> None:
    assert labels(backend, ("qty", "in.()")) == []


def test_is_null_and_not_is_null(backend: CirrusBackend) -> None:
    assert labels(backend, ("note", "is.null")) == ["beta", "alpha"]
    assert labels(backend, ("note", "not.is.null")) == ["Alpha", "Gamma", "Delta", "epsilon"]
    assert labels(backend, ("receipt", "is.null")) == ["beta", "Delta"]


def test_is_true_and_is_false(backend: CirrusBackend) -> None:
    assert labels(backend, ("active", "is.true")) == ["Alpha", "Gamma", "Delta"]
    assert labels(backend, ("active", "is.false")) == ["beta", "alpha", "epsilon"]
    assert labels(backend, ("active", "not.is.true")) == ["beta", "alpha", "epsilon"]


def test_empty_eq_selects_the_main_chain(backend: CirrusBackend) -> None:
    assert labels(backend, ("chainId", "eq.")) == ["Alpha", "beta", "Gamma", "epsilon"]
    assert labels(backend, ("chainId", "neq.")) == ["alpha", "Delta"]


# ---------------------------------------------------------------------------- like / ilike


@pytest.fixture
def words(backend: CirrusBackend) -> CirrusBackend:
    t = backend.ensure_table("Word", "contract", [*std_columns(), Column("w", "text")])
    values = [
        "Hello World",
        "hello world",
        "50% off",
        "50 percent off",
        "a_b",
        "axb",
        "what?",
        "[tag]",
        "École",
        "école",
    ]
    backend.upsert(t, [{**standard(i), "w": v} for i, v in enumerate(values, start=1)])
    return backend


def w(b: CirrusBackend, *pairs: tuple[str, str]) -> list[str]:
    return [r["w"] for r in run(b, "Word", ("select", "w"), *pairs)]


def test_like_is_case_sensitive_with_star_wildcard(words: CirrusBackend) -> None:
    assert w(words, ("w", "like.Hello*")) == ["Hello World"]
    assert w(words, ("w", "like.*world")) == ["hello world"]
    assert w(words, ("w", "like.*o W*")) == ["Hello World"]
    assert w(words, ("w", "like.hello world")) == ["hello world"]


def test_like_without_wildcard_is_an_exact_match(words: CirrusBackend) -> None:
    assert w(words, ("w", "like.Hello")) == []


def test_like_percent_is_a_wildcard_as_in_sql(words: CirrusBackend) -> None:
    # PostgREST turns * into % and hands the pattern to LIKE, where % and _ are wildcards
    assert w(words, ("w", "like.50%off")) == ["50% off", "50 percent off"]
    assert w(words, ("w", "like.50%")) == ["50% off", "50 percent off"]


def test_like_underscore_matches_one_character(words: CirrusBackend) -> None:
    assert w(words, ("w", "like.a_b")) == ["a_b", "axb"]
    assert w(words, ("w", "like.a__b")) == []


def test_like_glob_metacharacters_are_literal(words: CirrusBackend) -> None:
    # the SQLite rendering uses GLOB: its own ? and [ ] must not act as wildcards
    assert w(words, ("w", "like.what?")) == ["what?"]
    assert w(words, ("w", "like.wha??")) == []
    assert w(words, ("w", "like.[tag]")) == ["[tag]"]
    assert w(words, ("w", "like.[t]ag]")) == []
    assert w(words, ("w", "like.*]")) == ["[tag]"]


def test_ilike_is_case_insensitive(words: CirrusBackend) -> None:
    assert w(words, ("w", "ilike.HELLO*")) == ["Hello World", "hello world"]
    assert w(words, ("w", "ilike.*WORLD")) == ["Hello World", "hello world"]
    assert w(words, ("w", "ilike.A_B")) == ["a_b", "axb"]


def test_ilike_folds_non_ascii_letters(words: CirrusBackend) -> None:
    # PostgreSQL ILIKE folds É/é; an exact-case pattern must match in any case
    assert w(words, ("w", "ilike.École")) == ["École", "école"]
    assert w(words, ("w", "ilike.école")) == ["École", "école"]


def test_not_like_and_not_ilike(words: CirrusBackend) -> None:
    assert w(words, ("w", "not.like.*o*"), ("w", "not.like.*?*")) == ["a_b", "axb", "[tag]"]
    assert w(words, ("w", "not.ilike.*L*")) == [
        "50% off",
        "50 percent off",
        "a_b",
        "axb",
        "what?",
        "[tag]",
    ]


@pytest.mark.parametrize(
    ("column", "op", "typ"),
    [
        ("qty", "like", "numeric ~~"),
        ("qty", "ilike", "numeric ~~*"),
        ("active", "like", "boolean ~~"),
    ],
)
def test_like_on_a_non_text_column_is_an_operator_error(
    backend: CirrusBackend, column: str, op: str, typ: str
) -> None:
    # PostgreSQL has no LIKE for numeric or boolean columns: PostgREST answers 42883
    with pytest.raises(QueryError) as info:
        labels(backend, (column, f"{op}.1*"))
    assert info.value.status == 400
    assert info.value.body["code"] == "42883"
    assert info.value.body["message"] == f"operator does not exist: {typ} unknown"


# ---------------------------------------------------------------------------- or / and / not


def test_or_group(backend: CirrusBackend) -> None:
    assert labels(backend, ("or", "(label.eq.beta,qty.eq.30)")) == ["beta", "alpha"]


def test_nested_and_inside_or_with_negation(backend: CirrusBackend) -> None:
    pairs = ("or", "(qty.eq.30,and(active.is.true,note.not.eq.x))")
    assert labels(backend, pairs) == ["Gamma", "alpha", "Delta"]


def test_not_or_negates_the_group(backend: CirrusBackend) -> None:
    # NOT (qty = 10 OR qty = 20)
    assert labels(backend, ("not.or", "(qty.eq.10,qty.eq.20)")) == ["alpha", "epsilon"]


def test_not_and_negates_the_group(backend: CirrusBackend) -> None:
    # NOT (active AND qty = 10)
    assert labels(backend, ("not.and", "(active.is.true,qty.eq.10)")) == [
        "beta",
        "alpha",
        "Delta",
        "epsilon",
    ]


def test_negated_group_inside_a_group(backend: CirrusBackend) -> None:
    pairs = ("and", "(active.is.false,not.or(qty.eq.20,qty.eq.30))")
    assert labels(backend, pairs) == ["epsilon"]


def test_and_group_equals_separate_filters(backend: CirrusBackend) -> None:
    a = labels(backend, ("and", "(qty.gte.10,active.is.true)"))
    b = labels(backend, ("qty", "gte.10"), ("active", "is.true"))
    assert a == b == ["Alpha", "Gamma", "Delta"]


def test_group_and_filter_combine_with_and(backend: CirrusBackend) -> None:
    assert labels(backend, ("or", "(qty.eq.10,qty.eq.20)"), ("active", "is.true")) == [
        "Alpha",
        "Gamma",
        "Delta",
    ]


def test_hand_built_deep_tree(backend: CirrusBackend) -> None:
    # label = Alpha OR NOT (NOT (qty = 30)), wrapped in ten alternating or/and groups
    inner: Filter | Group = Filter("qty", "eq", "30")
    for i in range(10):
        inner = Group("and" if i % 2 else "or", [inner], negate=(i in (0, 1)))
    q = Query(where=Group("and", [Group("or", [Filter("label", "eq", "Alpha"), inner])]))
    rows, _ = backend.run("Thing", q, None, False)
    assert [r["label"] for r in rows] == ["Alpha", "alpha"]


# ---------------------------------------------------------------------------- order


def test_order_ties_keep_insertion_order(backend: CirrusBackend) -> None:
    assert labels(backend, ("order", "qty.asc")) == [
        "epsilon",
        "Alpha",
        "Gamma",
        "beta",
        "Delta",
        "alpha",
    ]
    assert labels(backend, ("order", "qty.desc")) == [
        "alpha",
        "beta",
        "Delta",
        "Alpha",
        "Gamma",
        "epsilon",
    ]


def test_order_by_several_columns(backend: CirrusBackend) -> None:
    assert labels(backend, ("order", "active.desc,qty.desc,label.asc")) == [
        "Delta",
        "Alpha",
        "Gamma",
        "alpha",
        "beta",
        "epsilon",
    ]


def test_order_by_text_is_by_code_point_for_same_case(backend: CirrusBackend) -> None:
    assert labels(backend, ("label", "in.(beta,alpha,epsilon)"), ("order", "label.desc")) == [
        "epsilon",
        "beta",
        "alpha",
    ]


def test_nulls_last_ascending_first_descending(backend: CirrusBackend) -> None:
    # PostgreSQL default: NULLS LAST for ASC, NULLS FIRST for DESC
    assert labels(backend, ("order", "note.asc")) == [
        "Alpha",
        "epsilon",
        "Gamma",
        "Delta",
        "beta",
        "alpha",
    ]
    assert labels(backend, ("order", "note.desc")) == [
        "beta",
        "alpha",
        "Delta",
        "Gamma",
        "Alpha",
        "epsilon",
    ]


def test_explicit_nulls_placement(backend: CirrusBackend) -> None:
    assert labels(backend, ("order", "note.asc.nullsfirst")) == [
        "beta",
        "alpha",
        "Alpha",
        "epsilon",
        "Gamma",
        "Delta",
    ]
    assert labels(backend, ("order", "note.desc.nullslast")) == [
        "Delta",
        "Gamma",
        "Alpha",
        "epsilon",
        "beta",
        "alpha",
    ]


def test_order_by_a_column_that_is_not_selected(backend: CirrusBackend) -> None:
    rows = run(backend, "Thing", ("select", "label"), ("order", "qty.desc"), ("limit", "1"))
    assert rows == [{"label": "alpha"}]


# ---------------------------------------------------------------------------- paging


def test_limit_and_offset(backend: CirrusBackend) -> None:
    assert labels(backend, ("limit", "2")) == ["Alpha", "beta"]
    assert labels(backend, ("limit", "2"), ("offset", "1")) == ["beta", "Gamma"]
    assert labels(backend, ("offset", "4")) == ["Delta", "epsilon"]
    assert labels(backend, ("offset", "5"), ("limit", "10")) == ["epsilon"]


def test_offset_at_and_after_the_end(backend: CirrusBackend) -> None:
    assert labels(backend, ("offset", "6")) == []
    assert labels(backend, ("offset", "7")) == []
    assert labels(backend, ("offset", str(10**14))) == []


def test_limit_zero(backend: CirrusBackend) -> None:
    assert labels(backend, ("limit", "0")) == []


def test_huge_limit_is_capped_not_refused(backend: CirrusBackend) -> None:
    assert len(labels(backend, ("limit", str(10**14)))) == 6
    assert MAX_ROWS >= 1000


def test_paging_after_filter_and_order(backend: CirrusBackend) -> None:
    pairs = (("active", "is.false"), ("order", "qty.desc"), ("limit", "2"), ("offset", "1"))
    assert labels(backend, *pairs) == ["beta", "epsilon"]


def test_total_counts_the_filtered_rows_not_the_page(backend: CirrusBackend) -> None:
    rows, total = backend.run("Thing", parse_query([("qty", "gte.10"), ("limit", "1")]), None, True)
    assert [r["label"] for r in rows] == ["Alpha"]
    assert total == 5


def test_total_past_the_end(backend: CirrusBackend) -> None:
    rows, total = backend.run("Thing", parse_query([("offset", "50")]), None, True)
    assert rows == []
    assert total == 6


# ---------------------------------------------------------------------------- count


def test_count(backend: CirrusBackend) -> None:
    assert run(backend, "Thing", ("select", "count")) == [{"count": 6}]


def test_count_with_filters(backend: CirrusBackend) -> None:
    assert run(backend, "Thing", ("select", "count"), ("qty", "eq.10")) == [{"count": 2}]
    assert run(backend, "Thing", ("select", "count"), ("or", "(qty.eq.10,note.is.null)")) == [
        {"count": 4}
    ]
    assert run(backend, "Thing", ("select", "count"), ("label", "eq.nobody")) == [{"count": 0}]


def test_count_ignores_limit_and_offset(backend: CirrusBackend) -> None:
    assert run(backend, "Thing", ("select", "count"), ("limit", "1"), ("offset", "3")) == [
        {"count": 6}
    ]


def test_count_respects_visibility(backend: CirrusBackend) -> None:
    assert run(backend, "Thing", ("select", "count"), visible=set()) == [{"count": 4}]
    assert run(backend, "Thing", ("select", "count"), visible={C1}) == [{"count": 5}]


def test_count_with_order_is_a_group_by_error(backend: CirrusBackend) -> None:
    status, body = refusal(backend, "Thing", ("select", "count"), ("order", "qty.asc"))
    assert status == 400
    assert body == {
        "hint": None,
        "details": None,
        "code": "42803",
        "message": 'column "Thing.qty" must appear in the GROUP BY clause or be used in an '
        "aggregate function",
    }


def test_count_with_another_column_is_a_group_by_error(backend: CirrusBackend) -> None:
    status, body = refusal(backend, "Thing", ("select", "count,label"))
    assert status == 400
    assert body["code"] == "42803"
    assert body["message"].startswith('column "Thing.label" must appear in the GROUP BY')


# ---------------------------------------------------------------------------- errors


def test_unknown_table_is_404_42P01(backend: CirrusBackend) -> None:
    status, body = refusal(backend, "Nothing")
    assert status == 404
    assert body == {
        "hint": None,
        "details": None,
        "code": "42P01",
        "message": 'relation "public.Nothing" does not exist',
    }


def test_table_names_are_case_sensitive(backend: CirrusBackend) -> None:
    status, body = refusal(backend, "thing")
    assert (status, body["code"]) == (404, "42P01")


@pytest.mark.parametrize(
    "pairs",
    [
        [("x", "eq.1")],
        [("select", "label,x")],
        [("order", "x.desc")],
        [("or", "(label.eq.a,x.eq.1)")],
        [("and", "(label.eq.a,or(x.is.null))")],
    ],
)
def test_unknown_column_is_400_42703(backend: CirrusBackend, pairs: list[tuple[str, str]]) -> None:
    status, body = refusal(backend, "Thing", *pairs)
    assert status == 400
    assert body == {
        "hint": None,
        "details": None,
        "code": "42703",
        "message": "column Thing.x does not exist",
    }


def test_column_names_are_case_sensitive(backend: CirrusBackend) -> None:
    status, body = refusal(backend, "Thing", ("Label", "eq.Alpha"))
    assert (status, body["message"]) == (400, "column Thing.Label does not exist")


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        ([("qty", "eq.abc")], 'invalid input syntax for type numeric: "abc"'),
        ([("qty", "gt.1.5x")], 'invalid input syntax for type numeric: "1.5x"'),
        ([("qty", "eq.")], 'invalid input syntax for type numeric: ""'),
        ([("qty", "in.(1,two)")], 'invalid input syntax for type numeric: "two"'),
        ([("or", "(qty.lt.1,qty.gt.x)")], 'invalid input syntax for type numeric: "x"'),
        ([("block_number", "eq.latest")], 'invalid input syntax for type numeric: "latest"'),
        ([("active", "eq.maybe")], 'invalid input syntax for type boolean: "maybe"'),
    ],
)
def test_bad_value_for_the_column_type_is_400_22P02(
    backend: CirrusBackend, pairs: list[tuple[str, str]], message: str
) -> None:
    status, body = refusal(backend, "Thing", *pairs)
    assert status == 400
    assert body == {"hint": None, "details": None, "code": "22P02", "message": message}


def test_int_filter_accepts_surrounding_spaces_and_sign(backend: CirrusBackend) -> None:
    assert labels(backend, ("qty", "eq. -5 ")) == ["epsilon"]
    assert labels(backend, ("qty", "eq.+10")) == ["Alpha", "Gamma"]


@pytest.mark.parametrize("value", ["t", "TRUE", "1", "yes", "on"])
def test_bool_filter_spellings(backend: CirrusBackend, value: str) -> None:
    assert labels(backend, ("active", f"eq.{value}")) == ["Alpha", "Gamma", "Delta"]


# ---------------------------------------------------------------------------- big integers


@pytest.fixture
def big(backend: CirrusBackend) -> CirrusBackend:
    t = backend.ensure_table("Big", "contract", [*std_columns(), Column("v", "int")])
    values = [10**20, 9 * 10**20, 10**21, 5, -(10**20), 2**63 - 1, 2**256 - 1]
    backend.upsert(t, [{**standard(i), "v": v} for i, v in enumerate(values, start=1)])
    return backend


def test_uint256_values_round_trip_as_exact_integers(big: CirrusBackend) -> None:
    assert [r["v"] for r in run(big, "Big", ("select", "v"))] == [
        10**20,
        9 * 10**20,
        10**21,
        5,
        -(10**20),
        2**63 - 1,
        2**256 - 1,
    ]


def test_uint256_eq(big: CirrusBackend) -> None:
    assert run(big, "Big", ("select", "v"), ("v", f"eq.{2**256 - 1}")) == [{"v": 2**256 - 1}]


def test_uint256_values_order_numerically(big: CirrusBackend) -> None:
    # token amounts in wei pass 2**63 quickly (2000 tokens = 2 * 10**21)
    assert [r["v"] for r in run(big, "Big", ("select", "v"), ("order", "v.asc"))] == [
        -(10**20),
        5,
        2**63 - 1,
        10**20,
        9 * 10**20,
        10**21,
        2**256 - 1,
    ]


def test_uint256_values_compare_numerically(big: CirrusBackend) -> None:
    rows = run(big, "Big", ("select", "v"), ("v", f"gt.{10**20 - 1}"))
    assert [r["v"] for r in rows] == [10**20, 9 * 10**20, 10**21, 2**256 - 1]
    rows = run(big, "Big", ("select", "v"), ("v", "lt.0"))
    assert [r["v"] for r in rows] == [-(10**20)]


# ---------------------------------------------------------------------------- visibility


def test_visibility_none_means_every_row(backend: CirrusBackend) -> None:
    assert len(labels(backend, visible=None)) == 6


def test_no_private_chain_visible_shows_only_main_chain_rows(backend: CirrusBackend) -> None:
    assert labels(backend, visible=set()) == ["Alpha", "beta", "Gamma", "epsilon"]


def test_visible_chain_rows_are_added_to_the_main_chain(backend: CirrusBackend) -> None:
    assert labels(backend, visible={C1}) == ["Alpha", "beta", "Gamma", "alpha", "epsilon"]
    assert labels(backend, visible={C2}) == ["Alpha", "beta", "Gamma", "Delta", "epsilon"]
    assert labels(backend, visible={C1, C2}) == labels(backend)


def test_a_filter_cannot_reach_a_hidden_chain(backend: CirrusBackend) -> None:
    assert labels(backend, ("chainId", f"eq.{C1}"), visible={C2}) == []
    assert labels(backend, ("or", f"(chainId.eq.{C1},label.eq.alpha)"), visible=set()) == []


def test_unknown_visible_chain_changes_nothing(backend: CirrusBackend) -> None:
    assert labels(backend, visible={"ff" * 32}) == ["Alpha", "beta", "Gamma", "epsilon"]


def test_total_respects_visibility(backend: CirrusBackend) -> None:
    _, total = backend.run("Thing", Query(), set(), True)
    assert total == 4


# ---------------------------------------------------------------------------- events


@pytest.fixture
def events(backend: CirrusBackend) -> CirrusBackend:
    t = backend.ensure_table(
        "Thing.Moved",
        "event",
        [Column("address", "text"), Column("who", "text"), Column("ok", "text")],
    )
    backend.insert(
        t,
        [
            {"_chain": "", "address": addr(1), "who": "alice", "ok": "True"},
            {"_chain": C1, "address": addr(4), "who": "bob", "ok": "False"},
            {"_chain": "", "address": addr(2), "who": "carol", "ok": "False"},
        ],
    )
    return backend


def test_event_rows_have_id_address_and_arguments(events: CirrusBackend) -> None:
    assert run(events, "Thing.Moved") == [
        {"id": 1, "address": addr(1), "who": "alice", "ok": "True"},
        {"id": 2, "address": addr(4), "who": "bob", "ok": "False"},
        {"id": 3, "address": addr(2), "who": "carol", "ok": "False"},
    ]


def test_event_rows_of_hidden_chains_are_hidden(events: CirrusBackend) -> None:
    assert [r["id"] for r in run(events, "Thing.Moved", visible=set())] == [1, 3]
    assert [r["id"] for r in run(events, "Thing.Moved", visible={C1})] == [1, 2, 3]


def test_event_chain_column_is_not_exposed(events: CirrusBackend) -> None:
    status, body = refusal(events, "Thing.Moved", ("_chain", "eq."))
    assert (status, body["code"]) == (400, "42703")


def test_event_id_filters_as_a_number(events: CirrusBackend) -> None:
    assert run(events, "Thing.Moved", ("select", "who"), ("id", "gte.2")) == [
        {"who": "bob"},
        {"who": "carol"},
    ]
    assert run(events, "Thing.Moved", ("select", "count"), ("ok", "eq.False")) == [{"count": 2}]


# ---------------------------------------------------------------------------- embeds


def test_embed_star_through_a_ref_column(backend: CirrusBackend) -> None:
    rows = run(backend, "Thing", ("select", "label,Receipt(*)"), ("label", "eq.Alpha"))
    assert rows == [
        {
            "label": "Alpha",
            "Receipt": {**standard(101), "block_number": "1", "memo": "first", "amount": 1},
        }
    ]


def test_embed_columns_and_null_references(backend: CirrusBackend) -> None:
    rows = run(backend, "Thing", ("select", "label,Receipt(memo,amount)"), visible=set())
    assert rows == [
        {"label": "Alpha", "Receipt": {"memo": "first", "amount": 1}},
        {"label": "beta", "Receipt": None},
        {"label": "Gamma", "Receipt": {"memo": "second", "amount": 2}},
        {"label": "epsilon", "Receipt": None},  # its receipt address has no row
    ]


def test_embed_with_all_columns_keeps_the_join_column(backend: CirrusBackend) -> None:
    rows = run(backend, "Thing", ("select", "*,Receipt(memo)"), ("limit", "1"))
    assert rows[0]["receipt"] == addr(101)
    assert rows[0]["Receipt"] == {"memo": "first"}
    assert list(rows[0])[-1] == "Receipt"


def test_embed_alone(backend: CirrusBackend) -> None:
    rows = run(backend, "Thing", ("select", "Receipt(memo)"), ("limit", "3"))
    assert rows == [
        {"Receipt": {"memo": "first"}},
        {"Receipt": None},
        {"Receipt": {"memo": "second"}},
    ]


def test_embed_resolves_references_on_the_rows_own_chain(backend: CirrusBackend) -> None:
    rows = run(backend, "Thing", ("select", "label,Receipt(memo,chainId)"), ("qty", "eq.30"))
    assert rows == [{"label": "alpha", "Receipt": {"memo": "private", "chainId": C1}}]


def test_embedded_rows_of_hidden_chains_are_null(backend: CirrusBackend) -> None:
    # a main-chain row pointing at a private-chain receipt by `<address>:<chain>`
    t = backend.tables["Thing"]
    backend.upsert(t, [thing_row(8, "", "pointer", 1, True, None, f"{addr(103)}:{C1}")])
    pairs = (("select", "label,Receipt(memo)"), ("label", "eq.pointer"))
    assert run(backend, "Thing", *pairs, visible=set()) == [{"label": "pointer", "Receipt": None}]
    assert run(backend, "Thing", *pairs, visible={C1}) == [
        {"label": "pointer", "Receipt": {"memo": "private"}}
    ]


def test_embed_follows_a_main_chain_account_reference(backend: CirrusBackend) -> None:
    # Receipt(account(r, "main")) is indexed as `<r>:main`: it names the main-chain row r,
    # whose record_id is the bare address
    t = backend.tables["Thing"]
    backend.upsert(
        t,
        [
            thing_row(10, "", "main-ref", 1, True, None, f"{addr(101)}:main"),
            thing_row(11, C1, "main-ref-from-c1", 1, True, None, f"{addr(102)}:main"),
        ],
    )
    rows = run(backend, "Thing", ("select", "label,Receipt(memo)"), ("qty", "eq.1"))
    assert rows == [
        {"label": "main-ref", "Receipt": {"memo": "first"}},
        {"label": "main-ref-from-c1", "Receipt": {"memo": "second"}},
    ]


def test_embed_with_filter_order_and_paging(backend: CirrusBackend) -> None:
    rows = run(
        backend,
        "Thing",
        ("select", "qty,Receipt(amount)"),
        ("receipt", "not.is.null"),
        ("order", "qty.desc"),
        ("limit", "2"),
    )
    assert rows == [{"qty": 30, "Receipt": {"amount": 3}}, {"qty": 10, "Receipt": {"amount": 1}}]


def test_embed_without_relationship_is_400_PGRST200(backend: CirrusBackend) -> None:
    status, body = refusal(backend, "Receipt", ("select", "*,Thing(*)"))
    assert status == 400
    assert body == {
        "hint": "If a new foreign key between these entities was created in the database, "
        "try reloading the schema cache.",
        "details": None,
        "code": "PGRST200",
        "message": "Could not find a relationship between Receipt and Thing in the schema cache",
    }


def test_embed_of_unknown_table_is_400_PGRST200(backend: CirrusBackend) -> None:
    status, body = refusal(backend, "Thing", ("select", "*,Nothing(*)"))
    assert (status, body["code"]) == (400, "PGRST200")
    assert body["message"] == (
        "Could not find a relationship between Thing and Nothing in the schema cache"
    )


def test_embed_through_a_plain_address_column_is_refused(backend: CirrusBackend) -> None:
    # `note` holds text and `transaction_sender` an address, neither is a contract-typed column
    t = backend.ensure_table("Holder", "contract", [*std_columns(), Column("Receipt", "text")])
    backend.upsert(t, [{**standard(50), "Receipt": addr(101)}])
    status, body = refusal(backend, "Holder", ("select", "*,Receipt(*)"))
    assert (status, body["code"]) == (400, "PGRST200")


@pytest.fixture
def pair(backend: CirrusBackend) -> CirrusBackend:
    t = backend.ensure_table(
        "Pair",
        "contract",
        [*std_columns(), Column("left", "text", "Receipt"), Column("right", "text", "Receipt")],
    )
    backend.upsert(t, [{**standard(60), "left": addr(101), "right": addr(102)}])
    return backend


def test_ambiguous_embed_is_300_PGRST201(pair: CirrusBackend) -> None:
    status, body = refusal(pair, "Pair", ("select", "*,Receipt(*)"))
    assert status == 300
    assert body["code"] == "PGRST201"
    assert body["message"] == (
        "Could not embed because more than one relationship was found for 'Pair' and 'Receipt'"
    )


def test_embed_hint_picks_the_relationship(pair: CirrusBackend) -> None:
    assert run(pair, "Pair", ("select", "Receipt!right(memo)")) == [{"Receipt": {"memo": "second"}}]
    assert run(pair, "Pair", ("select", "left,Receipt!left(memo)")) == [
        {"left": addr(101), "Receipt": {"memo": "first"}}
    ]


def test_embed_hint_naming_no_relationship_is_PGRST200(pair: CirrusBackend) -> None:
    status, body = refusal(pair, "Pair", ("select", "Receipt!middle(memo)"))
    assert (status, body["code"]) == (400, "PGRST200")


def test_embed_unknown_foreign_column_is_42703(backend: CirrusBackend) -> None:
    status, body = refusal(backend, "Thing", ("select", "label,Receipt(nope)"))
    assert (status, body) == (
        400,
        {
            "hint": None,
            "details": None,
            "code": "42703",
            "message": "column Receipt.nope does not exist",
        },
    )


def test_embed_by_prefixed_table_name(backend: CirrusBackend) -> None:
    # a contract-typed variable of type Child joins the table Acme-Shop-Child (pragma naming)
    child = backend.ensure_table(
        "Acme-Shop-Child", "contract", [*std_columns(), Column("v", "int")]
    )
    backend.upsert(child, [{**standard(200), "v": 9}])
    shop = backend.ensure_table(
        "Acme-Shop", "contract", [*std_columns(), Column("child", "text", "Child")]
    )
    backend.upsert(shop, [{**standard(201), "child": addr(200)}])
    rows = run(backend, "Acme-Shop", ("select", "child,Acme-Shop-Child(v)"))
    assert rows == [{"child": addr(200), "Acme-Shop-Child": {"v": 9}}]


# ---------------------------------------------------------------------------- schema changes


def test_ensure_table_adds_new_columns(backend: CirrusBackend, db: sqlite3.Connection) -> None:
    before = backend.tables["Thing"]
    t = backend.ensure_table(
        "Thing",
        "contract",
        [*std_columns(), *THING_COLUMNS, Column("extra", "int"), Column("flag", "bool")],
    )
    # a new Table: a reader holding the old one (the committed schema) never sees it change
    assert t is not before and backend.tables["Thing"] is t
    assert "extra" not in before.columns
    assert list(t.columns)[-2:] == ["extra", "flag"]
    backend.upsert(
        t, [{**thing_row(9, "", "newer", 1, True, None, None), "extra": 7, "flag": True}]
    )
    rows = run(backend, "Thing", ("select", "label,extra,flag"), ("or", "(qty.eq.1,qty.eq.30)"))
    assert rows == [
        {"label": "alpha", "extra": None, "flag": None},
        {"label": "newer", "extra": 7, "flag": True},
    ]
    assert labels(backend, ("extra", "gt.5")) == ["newer"]
    assert count_rows(db, "Thing") == 7


def test_ensure_table_with_known_columns_changes_nothing(
    backend: CirrusBackend, db: sqlite3.Connection
) -> None:
    sql_before = db.execute("SELECT sql FROM sqlite_master WHERE name = 'cirrus:Thing'").fetchone()
    backend.ensure_table("Thing", "contract", [*std_columns(), Column("label", "text")])
    sql_after = db.execute("SELECT sql FROM sqlite_master WHERE name = 'cirrus:Thing'").fetchone()
    assert sql_before == sql_after
    assert list(backend.tables["Thing"].columns) == [n for n, _ in STANDARD_COLUMNS] + [
        c.name for c in THING_COLUMNS
    ]


def test_registry_survives_a_reload(backend: CirrusBackend, db: sqlite3.Connection) -> None:
    backend.ensure_table("Thing", "contract", [*std_columns(), Column("extra", "int")])
    fresh = CirrusBackend(db)
    assert set(fresh.tables) == {"Receipt", "Thing"}
    t = fresh.tables["Thing"]
    assert t.kind == "contract"
    assert t.columns["receipt"] == Column("receipt", "text", "Receipt")
    assert t.columns["qty"] == Column("qty", "int", None)
    assert t.columns["extra"] == Column("extra", "int", None)
    rows, _ = fresh.run("Thing", parse_query([("select", "label,Receipt(memo)")]), set(), False)
    assert rows[0] == {"label": "Alpha", "Receipt": {"memo": "first"}}


def test_event_registry_survives_a_reload(events: CirrusBackend, db: sqlite3.Connection) -> None:
    fresh = CirrusBackend(db)
    assert fresh.tables["Thing.Moved"].kind == "event"
    assert list(fresh.tables["Thing.Moved"].columns) == ["id", "address", "who", "ok"]
    assert [r["id"] for r in fresh.run("Thing.Moved", Query(), set(), False)[0]] == [1, 3]


def test_upsert_replaces_the_row_of_the_same_record(backend: CirrusBackend) -> None:
    t = backend.tables["Thing"]
    backend.upsert(t, [thing_row(2, "", "beta2", 21, True, "n", None)])
    assert run(backend, "Thing", ("select", "label,qty"), ("address", f"eq.{addr(2)}")) == [
        {"label": "beta2", "qty": 21}
    ]
    assert run(backend, "Thing", ("select", "count")) == [{"count": 6}]


def test_upsert_leaves_what_the_record_id_names_and_its_indexes_alone(
    backend: CirrusBackend,
) -> None:
    """An update sets the row's other columns; ``address`` and ``chainId`` (which its
    ``record_id`` names) are not set again, so SQLite does not rewrite their index entries."""
    t = backend.tables["Thing"]
    statements: list[str] = []
    backend.db.set_trace_callback(statements.append)
    try:
        backend.upsert(t, [thing_row(2, "", "beta3", 22, True, "n", None)])
    finally:
        backend.db.set_trace_callback(None)
    (sql,) = [s for s in statements if "ON CONFLICT" in s]
    update = sql.split("DO UPDATE SET", 1)[1]
    assert '"label" = excluded."label"' in update
    assert '"address"' not in update and '"chainId"' not in update
    assert '"record_id"' not in update
    rows = run(backend, "Thing", ("select", "address,label,qty"), ("address", f"eq.{addr(2)}"))
    assert rows == [{"address": addr(2), "label": "beta3", "qty": 22}]


def test_history_keeps_one_row_per_update(backend: CirrusBackend) -> None:
    cols = [*std_columns(), Column("qty", "int")]
    h = backend.ensure_table("history@Thing", "history", cols)
    assert isinstance(h, Table)
    r1 = {**standard(1, block=1), "qty": 1}
    r2 = {**standard(1, block=2), "qty": 2}
    backend.insert_ignore(h, [r1, r2])
    backend.insert_ignore(h, [r1])  # the same update again: ignored
    rows = run(backend, "history@Thing", ("select", "block_number,qty"))
    assert rows == [{"block_number": "1", "qty": 1}, {"block_number": "2", "qty": 2}]


# ---------------------------------------------------------------------------- hostile input


HOSTILE_VALUES = [
    "'",
    '"',
    "''",
    '\'; DROP TABLE "cirrus:Thing"; --',
    '"; DROP TABLE "cirrus:Thing"; --',
    "1; DELETE FROM cirrus_tables",
    "' OR '1'='1",
    "\\",
    "%",
    "*",
    "?",
    "[",
    "]",
    "\x00",
    "\n\r\t",
    "😀 ✓ 日本語 مرحبا",
    "é" * 10,
    "!@#$% ?/<>~`+=_^&*()-",
]


@pytest.fixture
def hostile(backend: CirrusBackend) -> CirrusBackend:
    t = backend.tables["Thing"]
    backend.upsert(
        t,
        [thing_row(300 + i, "", v, 0, True, v, None) for i, v in enumerate(HOSTILE_VALUES)],
    )
    return backend


def assert_intact(b: CirrusBackend, db: sqlite3.Connection, n: int) -> None:
    assert count_rows(db, "Thing") == n
    assert count_rows(db, "Receipt") == 3
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"cirrus:Thing", "cirrus:Receipt", "cirrus_tables"} <= names
    assert len(db.execute("SELECT * FROM cirrus_tables").fetchall()) == len(b.tables)


@pytest.mark.parametrize("value", HOSTILE_VALUES)
def test_hostile_values_match_exactly_with_eq(
    hostile: CirrusBackend, db: sqlite3.Connection, value: str
) -> None:
    rows = run(hostile, "Thing", ("select", "label,note"), ("label", f"eq.{value}"))
    assert rows == [{"label": value, "note": value}]
    assert_intact(hostile, db, 6 + len(HOSTILE_VALUES))


@pytest.mark.parametrize("value", HOSTILE_VALUES)
def test_hostile_values_in_every_operator(
    hostile: CirrusBackend, db: sqlite3.Connection, value: str
) -> None:
    for op in ("neq", "lt", "lte", "gt", "gte", "like", "ilike"):
        run(hostile, "Thing", ("label", f"{op}.{value}"))
        run(hostile, "Thing", ("label", f"not.{op}.{value}"))
    quoted = value.replace("\\", "\\\\").replace('"', '\\"')
    assert labels(hostile, ("label", f'in.("{quoted}")')) == [value]
    assert_intact(hostile, db, 6 + len(HOSTILE_VALUES))


def test_hostile_values_against_numeric_columns_are_22P02(
    hostile: CirrusBackend, db: sqlite3.Connection
) -> None:
    for value in HOSTILE_VALUES:
        status, body = refusal(hostile, "Thing", ("qty", f"eq.{value}"))
        assert (status, body["code"]) == (400, "22P02")
    assert_intact(hostile, db, 6 + len(HOSTILE_VALUES))


@pytest.mark.parametrize(
    "column",
    [
        'label"',
        '"label"',
        'label" OR 1=1 --',
        "label; DROP TABLE x",
        "rowid",
        "sqlite_master",
        "😀",
    ],
)
def test_hostile_column_names_are_unknown_columns(
    hostile: CirrusBackend, db: sqlite3.Connection, column: str
) -> None:
    for pairs in (
        [(column, "eq.1")],
        [(column, "is.null")],
        [("select", f"label,{column}")],
        [("order", f"{column}.asc")],
        [("or", f"({column}.eq.1,label.eq.a)")],
        [("select", f"label,Receipt({column})")],
    ):
        if column == '"label"' and pairs[0][0] == "or":
            # PostgREST 12 reads a quoted name inside or=() as the column itself
            hostile.run("Thing", parse_query(pairs), None, False)
            continue
        with pytest.raises(QueryError) as info:
            hostile.run("Thing", parse_query(pairs), None, False)
        assert info.value.status == 400
        # a double quote opens a quoted item in select and or=(): a parse error there
        expected = ("42703", "PGRST100") if '"' in column else ("42703",)
        assert info.value.body["code"] in expected
    assert_intact(hostile, db, 6 + len(HOSTILE_VALUES))


@pytest.mark.parametrize("column", ["", "*"])
def test_empty_and_star_filter_keys_are_unknown_columns(
    hostile: CirrusBackend, db: sqlite3.Connection, column: str
) -> None:
    status, body = refusal(hostile, "Thing", (column, "eq.1"))
    assert (status, body["message"]) == (400, f"column Thing.{column} does not exist")
    assert_intact(hostile, db, 6 + len(HOSTILE_VALUES))


@pytest.mark.parametrize(
    "table",
    [
        'Thing"',
        'Thing"; DROP TABLE "cirrus:Thing"; --',
        "cirrus_tables",
        "sqlite_master",
        "cirrus:Thing",
        "",
        "../Thing",
    ],
)
def test_hostile_table_names_are_unknown_tables(
    hostile: CirrusBackend, db: sqlite3.Connection, table: str
) -> None:
    status, body = refusal(hostile, table)
    assert (status, body["code"]) == (404, "42P01")
    status, body = refusal(hostile, "Thing", ("select", f"*,{table or 'X'}(*)"))
    assert (status, body["code"]) in ((400, "PGRST200"), (400, "PGRST100"))
    assert_intact(hostile, db, 6 + len(HOSTILE_VALUES))


def test_quoted_identifiers_in_tables_and_events(db: sqlite3.Connection) -> None:
    b = CirrusBackend(db)
    cols = [*std_columns(), Column('we"ird', "text"), Column("order", "int")]
    t = b.ensure_table('Odd"Name', "contract", cols)
    b.upsert(t, [{**standard(1), 'we"ird': "q", "order": 3}])
    assert run(b, 'Odd"Name', ('we"ird', "eq.q")) == [
        {**standard(1), "block_number": "1", 'we"ird': "q", "order": 3}
    ]
    assert run(b, 'Odd"Name', ("select", "order"), ('we"ird', "neq.z")) == [{"order": 3}]
    assert run(b, 'Odd"Name', ("select", "address"), ("order", "order.desc")) == [
        {"address": addr(1)}
    ]
    ev = b.ensure_table(
        'Odd"Name.E"v', "event", [Column("address", "text"), Column("from", "text")]
    )
    b.insert(ev, [{"_chain": "", "address": addr(1), "from": "x'y"}])
    assert run(b, 'Odd"Name.E"v', ("from", "eq.x'y")) == [
        {"id": 1, "address": addr(1), "from": "x'y"}
    ]
    assert CirrusBackend(db).tables.keys() == {'Odd"Name', 'Odd"Name.E"v'}


def test_very_long_values_are_stored_and_matched(
    backend: CirrusBackend, db: sqlite3.Connection
) -> None:
    t = backend.tables["Thing"]
    long_a = "a" * 10_000
    long_b = "ü" * 20_000 + "'; DROP TABLE x; --"
    backend.upsert(
        t,
        [
            thing_row(400, "", long_a, 1, True, None, None),
            thing_row(401, "", long_b, 1, True, None, None),
        ],
    )
    # through the parser, within its value limit
    near = "a" * 9_990
    assert labels(backend, ("label", f"like.{near}*")) == [long_a]
    # straight to the backend, beyond the parser's limit
    for value in (long_a, long_b):
        q = Query(columns=["label"], where=Group("and", [Filter("label", "eq", value)]))
        rows, _ = backend.run("Thing", q, None, False)
        assert rows == [{"label": value}]
    q = Query(where=Group("and", [Filter("label", "in", [long_a, long_b, "x" * 50_000])]))
    assert len(backend.run("Thing", q, None, False)[0]) == 2
    assert count_rows(db, "Thing") == 8


def test_many_in_values(backend: CirrusBackend) -> None:
    values = [str(i) for i in range(100, 5_100)] + ["30", "10"]
    q = Query(columns=["label"], where=Group("and", [Filter("qty", "in", values)]))
    rows, _ = backend.run("Thing", q, None, False)
    assert rows == [{"label": "Alpha"}, {"label": "Gamma"}, {"label": "alpha"}]
