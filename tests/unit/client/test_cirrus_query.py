"""The client's Cirrus query model: rendering to and parsing from PostgREST 9 parameters.

Query language: seed 001 (Query parameters) and reference §4. Canonical wire form (module
docstring of ``app.client.cirrus_query``): raw values in top-level conditions, double-quoted
values with ``\\`` escapes inside groups and ``in`` lists when they contain ``,()"`` or edge
whitespace, ``col.not.op.value`` for negated conditions inside groups.
"""

from __future__ import annotations

import string
from urllib.parse import unquote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.client.cirrus_query import (
    OPERATORS,
    RESERVED_PARAMS,
    CirrusQuery,
    CirrusQueryError,
    Condition,
    Embed,
    Group,
    Order,
    event_table,
    history_of,
    is_valid_name,
)
from app.node.cirrus import query as nq

Params = list[tuple[str, str]]


def where(*items: Condition | Group) -> Group:
    return Group("and", list(items))


def q_where(*items: Condition | Group) -> CirrusQuery:
    return CirrusQuery("Car", where=where(*items))


def parse(*pairs: tuple[str, str]) -> CirrusQuery:
    return CirrusQuery.from_params("Car", list(pairs))


def refused(*pairs: tuple[str, str]) -> CirrusQueryError:
    with pytest.raises(CirrusQueryError) as info:
        CirrusQuery.from_params("Car", list(pairs))
    return info.value


# -- rendering: conditions ---------------------------------------------------------------------

SAMPLE_VALUE: dict[str, str | list[str]] = {
    "eq": "5",
    "neq": "Ford",
    "lt": "10",
    "lte": "10",
    "gt": "2",
    "gte": "2",
    "like": "F*",
    "ilike": "*ord",
    "in": ["a", "b"],
    "is": "null",
}
SAMPLE_WIRE = {op: f"{op}.{v}" for op, v in SAMPLE_VALUE.items() if isinstance(v, str)}
SAMPLE_WIRE["in"] = "in.(a,b)"


@pytest.mark.parametrize("op", OPERATORS)
def test_every_operator_renders_as_its_own_top_level_parameter(op: str) -> None:
    q = q_where(Condition("make", op, SAMPLE_VALUE[op]))
    assert q.to_params() == [("make", SAMPLE_WIRE[op])]
    assert CirrusQuery.from_params("Car", q.to_params()) == q


@pytest.mark.parametrize("op", OPERATORS)
def test_every_operator_negated_at_top_level(op: str) -> None:
    q = q_where(Condition("make", op, SAMPLE_VALUE[op], negate=True))
    assert q.to_params() == [("make", "not." + SAMPLE_WIRE[op])]
    assert CirrusQuery.from_params("Car", q.to_params()) == q


@pytest.mark.parametrize("op", OPERATORS)
@pytest.mark.parametrize("negate", [False, True])
def test_every_operator_inside_a_group(op: str, negate: bool) -> None:
    q = q_where(
        Group("or", [Condition("make", op, SAMPLE_VALUE[op], negate), Condition("x", "eq", "1")])
    )
    neg = "not." if negate else ""
    assert q.to_params() == [("or", f"(make.{neg}{SAMPLE_WIRE[op]},x.eq.1)")]
    assert CirrusQuery.from_params("Car", q.to_params()) == q


def test_conditions_keep_their_order_and_repeat_columns() -> None:
    q = q_where(
        Condition("price", "gt", "1"),
        Group("or", [Condition("a", "eq", "1")]),
        Condition("price", "lt", "9"),
    )
    assert q.to_params() == [("price", "gt.1"), ("or", "(a.eq.1)"), ("price", "lt.9")]


def test_empty_value_selects_the_main_chain() -> None:
    q = q_where(Condition("chainId", "eq", ""))
    assert q.to_params() == [("chainId", "eq.")]
    assert q.to_query_string() == "chainId=eq."
    assert parse(("chainId", "eq.")).where.items == [Condition("chainId", "eq", "")]
    inner = q_where(Group("or", [Condition("chainId", "eq", ""), Condition("chainId", "eq", "c1")]))
    assert inner.to_params() == [("or", "(chainId.eq.,chainId.eq.c1)")]
    assert CirrusQuery.from_params("Car", inner.to_params()) == inner


# -- rendering: groups and negation ------------------------------------------------------------


@pytest.mark.parametrize(
    ("group", "key"),
    [
        (Group("or", [Condition("a", "eq", "1")]), "or"),
        (Group("and", [Condition("a", "eq", "1")]), "and"),
        (Group("or", [Condition("a", "eq", "1")], negate=True), "not.or"),
        (Group("and", [Condition("a", "eq", "1")], negate=True), "not.and"),
    ],
)
def test_top_level_groups(group: Group, key: str) -> None:
    q = q_where(group)
    assert q.to_params() == [(key, "(a.eq.1)")]
    assert CirrusQuery.from_params("Car", q.to_params()) == q


def test_negation_at_each_level() -> None:
    tree = Group(
        "or",
        [
            Condition("a", "eq", "1", negate=True),
            Group(
                "and",
                [
                    Condition("b", "gt", "2"),
                    Group("or", [Condition("c", "is", "true", negate=True)], negate=True),
                ],
                negate=True,
            ),
        ],
        negate=True,
    )
    q = q_where(Condition("d", "like", "x*", negate=True), tree)
    assert q.to_params() == [
        ("d", "not.like.x*"),
        ("not.or", "(a.not.eq.1,not.and(b.gt.2,not.or(c.not.is.true)))"),
    ]
    assert CirrusQuery.from_params("Car", q.to_params()) == q


def test_deep_nesting_renders_inline() -> None:
    inner: Condition | Group = Condition("z", "eq", "0")
    for i in range(6):
        inner = Group("and" if i % 2 else "or", [Condition(f"c{i}", "eq", str(i)), inner])
    assert isinstance(inner, Group)
    q = q_where(inner)
    assert q.to_params() == [
        (
            "and",
            "(c5.eq.5,or(c4.eq.4,and(c3.eq.3,or(c2.eq.2,and(c1.eq.1,or(c0.eq.0,z.eq.0))))))",
        )
    ]
    assert CirrusQuery.from_params("Car", q.to_params()) == q


# -- rendering: quoting of awkward values ------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "wire"),
    [
        ("plain", "plain"),
        ("a,b", '"a,b"'),
        ("f(x)", '"f(x)"'),
        ("(", '"("'),
        (")", '")"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("back\\slash", "back\\slash"),  # a lone backslash needs no quotes
        ("a,\\b", '"a,\\\\b"'),  # ... but is escaped once the value is quoted
        ('\\"', '"\\\\\\""'),
        ("größe 日本 😀", "größe 日本 😀"),
        (" lead", '" lead"'),
        ("trail ", '"trail "'),
        ("{a}", '"{a}"'),  # PostgREST would read an array literal
        ("", ""),
        ("not.eq.1", "not.eq.1"),  # dots are harmless after the operator
        ("*", "*"),
    ],
)
def test_group_values_are_quoted_when_needed(value: str, wire: str) -> None:
    q = q_where(Group("or", [Condition("a", "eq", value)]))
    assert q.to_params() == [("or", f"(a.eq.{wire})")]
    assert CirrusQuery.from_params("Car", q.to_params()) == q


@pytest.mark.parametrize(
    "value", ["a,b", "(x)", 'q"q', "back\\slash", " both ", "{a,b}", "日本", "", "not.eq.1"]
)
def test_top_level_values_are_raw(value: str) -> None:
    q = q_where(Condition("a", "eq", value))
    assert q.to_params() == [("a", "eq." + value)]
    assert CirrusQuery.from_params("Car", q.to_params()) == q


def test_in_members_are_quoted_like_group_values() -> None:
    members = ["plain", "b,c", "(x)", 'q"x', "a\\b", "", " s", "日本"]
    q = q_where(Condition("make", "in", members))
    wire = 'in.(plain,"b,c","(x)","q\\"x",a\\b,""," s",日本)'
    assert q.to_params() == [("make", wire)]
    assert CirrusQuery.from_params("Car", q.to_params()) == q
    g = q_where(Group("and", [Condition("make", "in", members, negate=True)]))
    assert g.to_params() == [("and", f"(make.not.{wire})")]
    assert CirrusQuery.from_params("Car", g.to_params()) == g


def test_is_values_are_never_quoted() -> None:
    q = q_where(Group("or", [Condition("a", "is", "null"), Condition("b", "is", "false")]))
    assert q.to_params() == [("or", "(a.is.null,b.is.false)")]


# -- rendering: select, order, paging, URL -----------------------------------------------------


@pytest.mark.parametrize(
    ("query", "select"),
    [
        (CirrusQuery("Car"), None),
        (CirrusQuery("Car", select=["make", "price"]), "make,price"),
        (CirrusQuery("Car", count=True), "count"),
        (CirrusQuery("Car", embeds=[Embed("Owner", ["*"])]), "*,Owner(*)"),
        (
            CirrusQuery("Car", select=["make"], embeds=[Embed("Owner", ["name", "org"])]),
            "make,Owner(name,org)",
        ),
        (
            CirrusQuery("Car", embeds=[Embed("Owner", ["*"]), Embed("Org-App-Dealer", ["city"])]),
            "*,Owner(*),Org-App-Dealer(city)",
        ),
    ],
)
def test_select_rendering(query: CirrusQuery, select: str | None) -> None:
    params = query.to_params()
    if select is None:
        assert params == []
    else:
        assert params == [("select", select)]
    assert CirrusQuery.from_params("Car", params) == query


def test_parameter_order_is_select_filters_order_limit_offset() -> None:
    q = CirrusQuery(
        "Car",
        select=["make"],
        where=where(Condition("price", "gt", "5")),
        order=[Order("price", desc=True, nulls_first=False), Order("make")],
        limit=10,
        offset=20,
    )
    assert q.to_params() == [
        ("select", "make"),
        ("price", "gt.5"),
        ("order", "price.desc.nullslast,make.asc"),
        ("limit", "10"),
        ("offset", "20"),
    ]
    assert q.to_query_string() == (
        "select=make&price=gt.5&order=price.desc.nullslast,make.asc&limit=10&offset=20"
    )


@pytest.mark.parametrize(
    ("order", "wire"),
    [
        (Order("a"), "a.asc"),
        (Order("a", desc=True), "a.desc"),
        (Order("a", nulls_first=True), "a.asc.nullsfirst"),
        (Order("a", desc=True, nulls_first=False), "a.desc.nullslast"),
    ],
)
def test_order_terms(order: Order, wire: str) -> None:
    q = CirrusQuery("Car", order=[order])
    assert q.to_params() == [("order", wire)]
    assert CirrusQuery.from_params("Car", q.to_params()) == q


def test_zero_offset_and_limit_are_kept() -> None:
    q = CirrusQuery("Car", limit=0, offset=0)
    assert q.to_params() == [("limit", "0"), ("offset", "0")]
    assert CirrusQuery.from_params("Car", q.to_params()) == q


def test_query_string_encoding() -> None:
    q = q_where(
        Condition("a", "eq", "x y+z&w=v#?%"),
        Group("or", [Condition("b", "eq", 'p,"q"'), Condition("c", "eq", "日")]),
    )
    qs = q.to_query_string()
    assert qs == ("a=eq.x%20y%2Bz%26w%3Dv%23%3F%25&or=(b.eq.%22p,%5C%22q%5C%22%22,c.eq.%E6%97%A5)")
    assert "+" not in qs
    assert CirrusQuery.from_query_string("Car", qs) == q
    assert CirrusQuery.from_url("https://node.example/cirrus/search/Car?" + qs) == q


@pytest.mark.parametrize(
    ("table", "path", "kind"),
    [
        ("Car", "/cirrus/search/Car", "contract"),
        ("BlockApps-Fleet-Car", "/cirrus/search/BlockApps-Fleet-Car", "contract"),
        (history_of("Car"), "/cirrus/search/history@Car", "history"),
        (history_of("Org-Car"), "/cirrus/search/history@Org-Car", "history"),
        (event_table("Car", "Sold"), "/cirrus/search/Car.Sold", "event"),
        (event_table("Org-App-Car", "Sold"), "/cirrus/search/Org-App-Car.Sold", "event"),
        ("Acme Inc.-Car", "/cirrus/search/Acme%20Inc.-Car", "contract"),
        ("Acme Inc.-Car.Sold", "/cirrus/search/Acme%20Inc.-Car.Sold", "event"),
        ("Wagen größe", "/cirrus/search/Wagen%20gr%C3%B6%C3%9Fe", "contract"),
    ],
)
def test_table_kind_and_path(table: str, path: str, kind: str) -> None:
    q = CirrusQuery(table)
    assert q.kind == kind
    assert q.path() == path
    assert CirrusQuery.from_url(path) == q
    assert q.url("http://h:8080/") == "http://h:8080" + path


def test_helpers_are_also_on_the_class() -> None:
    assert CirrusQuery.history_of("Car") == "history@Car"
    assert CirrusQuery.event_table("Car", "Sold") == "Car.Sold"


def test_url_with_parameters() -> None:
    q = CirrusQuery("history@Car", where=where(Condition("address", "eq", "ab12")), limit=1)
    assert q.url("http://h") == "http://h/cirrus/search/history@Car?address=eq.ab12&limit=1"
    assert CirrusQuery.from_url(q.url("http://h")) == q


@pytest.mark.parametrize(
    "condition",
    [
        Condition("a", "in", "x"),
        Condition("a", "eq", ["x"]),
        Condition("a", "eq", None),
    ],
)
def test_values_of_the_wrong_type_cannot_be_rendered(condition: Condition) -> None:
    with pytest.raises(CirrusQueryError, match="condition on 'a'"):
        q_where(condition).to_params()


# -- parsing -----------------------------------------------------------------------------------


def test_parse_postgrest_documentation_examples() -> None:
    q = CirrusQuery.from_url(
        "/cirrus/search/people?select=name,age&grade=gte.90&student=is.true"
        "&or=(age.eq.14,not.and(age.gte.11,age.lte.17))&order=age.desc,height.asc.nullslast"
        "&limit=15&offset=30"
    )
    assert q == CirrusQuery(
        "people",
        select=["name", "age"],
        where=where(
            Condition("grade", "gte", "90"),
            Condition("student", "is", "true"),
            Group(
                "or",
                [
                    Condition("age", "eq", "14"),
                    Group(
                        "and",
                        [Condition("age", "gte", "11"), Condition("age", "lte", "17")],
                        negate=True,
                    ),
                ],
            ),
        ),
        order=[Order("age", desc=True), Order("height", nulls_first=False)],
        limit=15,
        offset=30,
    )


def test_parse_lenient_forms() -> None:
    q = parse(
        ("select", " make , Owner( name , org ) "),
        ("or", " ( a.eq.1 , not.and ( b.eq. x ,c.in.( p , q ) ) ) "),
        ("d", 'in.( 1 , "2" )'),
        ("e", "is.NULL"),
        ("order", "a,b.nullsfirst"),
        ("limit", " 5 "),
    )
    assert q == CirrusQuery(
        "Car",
        select=["make"],
        embeds=[Embed("Owner", ["name", "org"])],
        where=where(
            Group(
                "or",
                [
                    Condition("a", "eq", "1"),
                    Group(
                        "and",
                        [Condition("b", "eq", "x"), Condition("c", "in", ["p", "q"])],
                        negate=True,
                    ),
                ],
            ),
            Condition("d", "in", ["1", "2"]),
            Condition("e", "is", "null"),
        ),
        order=[Order("a"), Order("b", nulls_first=True)],
        limit=5,
    )


def test_parse_count_forms() -> None:
    assert parse(("select", "count")) == CirrusQuery("Car", count=True)
    assert parse(("select", "count()")) == CirrusQuery("Car", count=True)
    assert parse(("select", "*")) == CirrusQuery("Car")


def test_join_through_a_named_column() -> None:
    # two columns refer to Receipt: the embed names the one to join through (reference § 4)
    q = CirrusQuery("Pair", select=["left"], embeds=[Embed("Receipt", ["memo"], via="right")])
    assert q.to_params() == [("select", "left,Receipt!right(memo)")]
    assert CirrusQuery.from_params("Pair", q.to_params()) == q
    assert parse(("select", "*, Receipt ! left (*)")).embeds == [Embed("Receipt", ["*"], "left")]
    assert "invalid column name" in " ".join(
        CirrusQuery("Pair", embeds=[Embed("Receipt", via="a.b")]).validate()
    )


def test_select_of_embeds_only_widens_to_all_columns() -> None:
    q = parse(("select", "Owner(*)"))
    assert q == CirrusQuery("Car", embeds=[Embed("Owner", ["*"])])
    assert q.to_params() == [("select", "*,Owner(*)")]


def test_backslash_escapes_any_character_in_quotes() -> None:
    # PostgREST's pQuotedValue: `\x` is `x` for any x
    q = parse(("or", '(a.eq."p\\q\\\\r\\"s")'))
    assert q.where.items == [Group("or", [Condition("a", "eq", 'pq\\r"s')])]


def test_unnecessary_quotes_are_accepted_and_dropped() -> None:
    q = parse(("or", '(a.eq."plain")'), ("b", 'in.("x","y")'))
    assert q.to_params() == [("or", "(a.eq.plain)"), ("b", "in.(x,y)")]


def test_columns_that_look_like_keywords_inside_groups() -> None:
    g = Group(
        "or",
        [
            Condition("not", "eq", "1"),
            Condition("not", "eq", "2", negate=True),
            Condition("and", "is", "null"),
            Condition("or", "in", ["x"]),
            Condition("order", "lt", "3"),
            Condition("first name", "eq", "Ann"),
        ],
    )
    q = q_where(g)
    assert q.to_params() == [
        (
            "or",
            "(not.eq.1,not.not.eq.2,and.is.null,or.in.(x),order.lt.3,first name.eq.Ann)",
        )
    ]
    assert q.validate() == []
    assert CirrusQuery.from_params("Car", q.to_params()) == q


def test_from_url_forms() -> None:
    base = CirrusQuery("history@Car", where=where(Condition("a", "eq", "x y")))
    assert CirrusQuery.from_url("/cirrus/search/history%40Car?a=eq.x+y") == base
    assert CirrusQuery.from_url("/strato/v2.3/cirrus/search/history@Car?a=eq.x%20y") == base
    assert CirrusQuery.from_url("http://h/cirrus/search/Car") == CirrusQuery("Car")


@pytest.mark.parametrize(
    "params",
    [
        [("select", "make,price,Owner(*)"), ("chainId", "eq."), ("order", "price.desc")],
        [("select", "count"), ("or", '(a.eq."x,y",not.and(b.not.in.("(",""),c.is.null))')],
        [("a", "not.in.(1,2)"), ("not.or", "(b.lt.0,b.gt.9)"), ("limit", "5"), ("offset", "0")],
        [("select", "*,Owner(name)"), ("and", "(a.like.*x*,or(b.ilike.Y*))")],
        [("chainId", "in.(c1,c2)"), ("order", "block_number.asc.nullsfirst,a.desc")],
    ],
)
def test_canonical_parameter_lists_survive_parse_and_render(params: Params) -> None:
    assert CirrusQuery.from_params("Car", params).to_params() == params


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pairs", "message", "position"),
    [
        ([("a", "foo.1")], "unknown operator 'foo'", 0),
        ([("a", "not.foo.1")], "unknown operator 'foo'", 4),
        ([("a", "eq")], "expected '.' and a value after the operator 'eq'", 2),
        ([("a", "")], "unknown operator ''", 0),
        ([("a", "in.a,b")], "'in' needs a parenthesised list", 3),
        ([("a", "in.(a,b")], "missing ')' to close the 'in' list", 7),
        ([("a", "in.(a)x")], "unexpected text after the 'in' list", 6),
        ([("a", 'in.("a)')], "missing closing '\"'", 4),
        ([("a", 'in.("a"x)')], "expected ',' or ')' after the quoted value", 7),
        ([("a", "in.(a(b))")], "list member containing '(' must be double-quoted", 5),
        ([("a", "is.maybe")], "'is' takes null, true or false, not 'maybe'", 3),
        ([("or", "a.eq.1")], "expected '(' to open the or group", 0),
        ([("or", "()")], "the or group needs at least one condition", 1),
        ([("or", "(a.eq.1")], "missing ')' to close the or group", 7),
        ([("or", "(a.eq.1))")], "unexpected text after the closing ')'", 8),
        ([("or", "(a.eq.1,)")], "expected a column name", 8),
        ([("or", "(a)")], "expected '.' and an operator after 'a'", 2),
        ([("or", "(,a.eq.1)")], "expected a column name", 1),
        ([("or", "(a.eq.1,b)")], "expected '.' and an operator after 'b'", 9),
        ([("or", "(a.eq.f(x))")], "a value containing '(' must be double-quoted", 7),
        ([("or", "(a.b.eq.1)")], "unknown operator 'b'", 3),
        ([("not.and", "(a.eq.1,or(b.zz.1))")], "unknown operator 'zz'", 13),
        ([("or", '(a.eq."x)')], "missing closing '\"'", 6),
        ([("or", "(a b!.eq.1)")], "invalid column name 'a b!'", 1),
        ([("a.b", "eq.1")], "invalid column name 'a.b'", None),
        ([("", "eq.1")], "empty column name", None),
        ([("columns", "a,b")], "'columns' parameter is not supported", None),
        ([("limit", "-1")], "limit must be a non-negative integer", 0),
        ([("offset", "1.5")], "offset must be a non-negative integer", 0),
        ([("limit", "2"), ("offset", "-3")], "offset -3 with limit 2 selects no rows", 0),
        ([("limit", "1"), ("limit", "2")], "limit is given more than once", None),
        ([("order", "a.sideways")], "unexpected 'sideways'", 2),
        ([("order", "a.nullsfirst.desc")], "unexpected 'desc'", 13),
        ([("order", "")], "expected a column name, got ''", 0),
        ([("select", "")], "expected a column name", 0),
        ([("select", "a,,b")], "expected a column name", 2),
        ([("select", "Owner(")], "missing ')'", 6),
        ([("select", "a)")], "')' without a matching '('", 1),
        ([("select", "Owner()")], "expected a column name or * in the embed", 6),
        ([("select", "o:Owner(*)")], "aliases are not supported", 0),
        ([("select", "Owner!(*)")], "expected Table or Table!column", 0),
        ([("select", "Owner!a b!c(*)")], "expected Table or Table!column", 0),
        ([("select", "Owner(a,Dealer(*))")], "nested embeds are not supported", 8),
        ([("select", "a::text")], "casts and JSON paths are not supported", 0),
        ([("select", "a,*")], "'*' cannot be combined with named columns", 2),
    ],
)
def test_malformed_input_is_refused_readably(
    pairs: Params, message: str | None, position: int | None
) -> None:
    exc = refused(*pairs)
    text = str(exc)
    assert exc.param == pairs[-1][0]
    assert text.startswith(f"{exc.param}: ")
    if message is not None:
        assert message in exc.message
    assert exc.position == position or message is None
    if exc.position is not None:
        assert f"at position {exc.position} of {pairs[-1][1]!r}" in text


def test_error_text_shows_what_is_near_the_position() -> None:
    exc = refused(("or", "(a.eq.1,b.zz.2)"))
    assert str(exc) == (
        "or: unknown operator 'zz' (expected one of eq, neq, lt, lte, gt, gte, like, ilike, in,"
        " is) (at position 10 of '(a.eq.1,b.zz.2)', near 'zz.2)')"
    )
    assert isinstance(exc, ValueError)


def test_hostile_nesting_is_refused_without_recursion_error() -> None:
    exc = refused(("or", "(" + "or(" * 500 + "a.eq.1" + ")" * 501))
    assert "nested too deeply" in exc.message


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://h/bloc/v2.2/contracts", "not a Cirrus search URL"),
        ("/cirrus/search/", "expected one table name"),
        ("/cirrus/search/Car/extra", "expected one table name"),
    ],
)
def test_from_url_refuses_other_urls(url: str, message: str) -> None:
    with pytest.raises(CirrusQueryError, match=message):
        CirrusQuery.from_url(url)


# -- validation --------------------------------------------------------------------------------


def test_a_complete_query_is_valid() -> None:
    q = CirrusQuery(
        "Org-Car",
        select=["make"],
        embeds=[Embed("Owner", ["*"])],
        where=where(Condition("price", "gt", "5"), Group("or", [Condition("a", "is", "null")])),
        order=[Order("price")],
        limit=5,
        offset=0,
    )
    assert q.validate() == []
    assert q.is_valid
    assert CirrusQuery("Car", count=True, where=where(Condition("a", "eq", "1"))).is_valid


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        (q_where(Condition("a", "between", "1")), "unknown operator 'between'"),
        (q_where(Group("or", [Condition("a", "regex", "x")])), "unknown operator 'regex'"),
        (q_where(Condition("", "eq", "1")), "empty column name"),
        (q_where(Condition("a.b", "eq", "1")), "invalid column name"),
        (q_where(Condition("a", "in", "x")), "'in' needs a list of values"),
        (q_where(Condition("a", "eq", ["x"])), "takes one value, not a list"),
        (q_where(Condition("a", "eq", None)), "missing value"),
        (q_where(Condition("a", "is", "maybe")), "'is' takes null, true or false"),
        (q_where(Condition("a", "eq", "\udc80")), "not valid text"),
        (q_where(Condition("order", "eq", "1")), "reserved parameter"),
        (q_where(Group("or", [])), "empty or group"),
        (CirrusQuery("Car", limit=-1), "limit must not be negative"),
        (CirrusQuery("Car", offset=-5), "offset must not be negative"),
        (CirrusQuery("Car", count=True, order=[Order("a")]), "count cannot be combined with order"),
        (CirrusQuery("Car", count=True, select=["a"]), "count cannot be combined with columns"),
        (
            CirrusQuery("Car", count=True, embeds=[Embed("Owner", ["*"])]),
            "count cannot be combined with columns or embeds",
        ),
        (CirrusQuery("Car", select=["count"]), "would be read as count"),
        (CirrusQuery("Car", select=["a b!"]), "select: invalid column name"),
        (CirrusQuery("Car", embeds=[Embed("Owner", [])]), "no columns"),
        (CirrusQuery("Car", embeds=[Embed("o:Owner", ["*"])]), "invalid table name"),
        (CirrusQuery("Car", order=[Order("")]), "order: invalid column name"),
        (CirrusQuery(""), "table name is empty"),
        (CirrusQuery("history@"), "needs a contract name"),
        (CirrusQuery("a/b"), "contains '/'"),
        (CirrusQuery("Car", where=Group("or", [])), "plain (not negated) AND group"),
        (CirrusQuery("Car", where=Group("and", [], negate=True)), "plain (not negated) AND"),
    ],
)
def test_validation_problems(query: CirrusQuery, problem: str) -> None:
    problems = query.validate()
    assert any(problem in p for p in problems), problems
    assert not query.is_valid


def test_nesting_deeper_than_the_node_accepts_is_a_problem() -> None:
    inner: Condition | Group = Condition("a", "eq", "1")
    for _ in range(17):
        inner = Group("or", [inner])
    assert isinstance(inner, Group)
    assert any("nested more than 16" in p for p in q_where(inner).validate())
    assert q_where(Group("or", [Group("or", [Condition("a", "eq", "1")])])).is_valid


@pytest.mark.parametrize("name", ["a", "chainId", "record_id", "größe", "a-b", "$x", "first name"])
def test_valid_names(name: str) -> None:
    assert is_valid_name(name)


@pytest.mark.parametrize("name", ["", "a.b", "a,b", "a(b", " a", "a ", "a->b", 'a"', "*", "a:b"])
def test_invalid_names(name: str) -> None:
    assert not is_valid_name(name)


# -- the node's own parser accepts what we render ----------------------------------------------


def node_item(item: Condition | Group) -> nq.Filter | nq.Group:
    if isinstance(item, Condition):
        value = list(item.value) if isinstance(item.value, list) else item.value
        if value == [""]:
            value = []  # PostgREST 12 reads in.("") as in.(): no value at all (issue 17)
        return nq.Filter(item.column, item.op, value, item.negate)
    return nq.Group(item.op, [node_item(i) for i in item.items], item.negate)


def node_tree(q: CirrusQuery) -> nq.Query:
    """The tree ``app.node.cirrus.query.parse_query`` should build for a valid query."""
    return nq.Query(
        columns=list(q.select) if q.select or q.count else None,
        count=q.count,
        embeds=[nq.Embed(e.table, list(e.columns)) for e in q.embeds],
        where=nq.Group("and", [node_item(i) for i in q.where.items]),
        order=[nq.Order(o.column, o.desc, o.nulls_first) for o in q.order],
        limit=q.limit,
        offset=q.offset or 0,
    )


REPRESENTATIVE = [
    CirrusQuery("Car"),
    CirrusQuery("Car", count=True, where=where(Condition("chainId", "eq", ""))),
    CirrusQuery(
        "BlockApps-Fleet-Car",
        select=["make", "price"],
        embeds=[Embed("Owner", ["*"])],
        where=where(
            Condition("chainId", "in", ["", "c1", "a,b", 'q"x', " s"]),
            Condition("make", "like", "F*(x),y", negate=True),
            Group(
                "or",
                [
                    Condition("price", "gt", "5", negate=True),
                    Group(
                        "and",
                        [
                            Condition("note", "ilike", 'say "hi", (ok)\\'),
                            Condition("sold", "is", "null", negate=True),
                            Condition("tags", "in", ["x", "y)"], negate=True),
                        ],
                        negate=True,
                    ),
                ],
                negate=True,
            ),
        ),
        order=[Order("price", desc=True, nulls_first=False), Order("make")],
        limit=10,
        offset=5,
    ),
    CirrusQuery(
        "history@Car",
        where=where(Group("and", [Condition("a", "eq", " pad "), Condition("b", "eq", "")])),
    ),
    CirrusQuery("Car.Sold", embeds=[Embed("Dealer", ["city", "name"])], limit=0),
]


@pytest.mark.parametrize("query", REPRESENTATIVE)
def test_node_parser_accepts_rendered_parameters(query: CirrusQuery) -> None:
    assert query.validate() == []
    assert nq.parse_query(query.to_params()) == node_tree(query)


# -- properties --------------------------------------------------------------------------------

AWKWARD = [
    "",
    " ",
    ",",
    "(",
    ")",
    '"',
    "\\",
    '\\"',
    '"\\',
    "a,b",
    "(x)",
    'say "hi"',
    "back\\slash",
    "größe",
    "日本語",
    "😀",
    "{a,b}",
    "{",
    "}x",
    "not.eq.1",
    "or(a.eq.1)",
    " lead",
    "trail ",
    "a\tb\n",
    "%20",
    "+",
    "&=#?",
    "null",
    "*",
]
names = st.one_of(
    st.builds(
        str.__add__,
        st.sampled_from(string.ascii_letters + "_"),
        st.text(string.ascii_letters + string.digits + "_", max_size=6),
    ),
    st.sampled_from(
        [
            *("chainId", "record_id", "größe", "名前", "a-b", "$x", "first name"),
            *("not", "and", "or", "in", "is", "eq", "count", "order", "limit"),
        ]
    ),
)
top_names = names.filter(lambda n: n not in RESERVED_PARAMS)
texts = st.one_of(st.sampled_from(AWKWARD), st.text(st.characters(codec="utf-8"), max_size=8))


@st.composite
def conditions(draw: st.DrawFn, top: bool = False) -> Condition:
    op = draw(st.sampled_from(OPERATORS))
    value: str | list[str]
    if op == "in":
        value = draw(st.lists(texts, min_size=1, max_size=4))
    elif op == "is":
        value = draw(st.sampled_from(["null", "true", "false"]))
    else:
        value = draw(texts)
    return Condition(draw(top_names if top else names), op, value, draw(st.booleans()))


def groups(depth: int) -> st.SearchStrategy[Group]:
    """Groups nested up to ``depth`` levels (a group of plain conditions is depth 1)."""
    item: st.SearchStrategy[Condition | Group] = (
        conditions() if depth <= 1 else st.one_of(conditions(), conditions(), groups(depth - 1))
    )
    return st.builds(
        Group,
        st.sampled_from(["and", "or"]),
        st.lists(item, min_size=1, max_size=3),
        st.booleans(),
    )


tables = st.one_of(
    st.sampled_from(["Car", "Org-App-Car", "history@Car", "Car.Sold", "Acme Inc.-Car", "名前"]),
    st.text(st.characters(codec="utf-8", exclude_characters="/"), min_size=1, max_size=10),
).filter(lambda t: t != "history@")
orders = st.builds(Order, names, st.booleans(), st.sampled_from([None, True, False]))
embeds = st.builds(
    Embed,
    names,
    st.one_of(
        st.just(["*"]), st.lists(names.filter(lambda n: n != "count"), min_size=1, max_size=3)
    ),
)
paging = st.one_of(st.none(), st.integers(min_value=0, max_value=10**12))


@st.composite
def queries(draw: st.DrawFn) -> CirrusQuery:
    count = draw(st.booleans())
    items = draw(st.lists(st.one_of(conditions(top=True), groups(4)), max_size=4))
    return CirrusQuery(
        table=draw(tables),
        select=[] if count else draw(st.lists(names.filter(lambda n: n != "count"), max_size=3)),
        embeds=[] if count else draw(st.lists(embeds, max_size=2)),
        count=count,
        where=Group("and", items),
        order=[] if count else draw(st.lists(orders, max_size=3)),
        limit=draw(paging),
        offset=draw(paging),
    )


FAST = settings(
    max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@FAST
@given(queries())
def test_round_trip_of_generated_queries(q: CirrusQuery) -> None:
    assert q.validate() == []
    params = q.to_params()
    back = CirrusQuery.from_params(q.table, params)
    assert back == q
    assert back.to_params() == params
    url = "https://node.example:8080" + q.path() + "?" + q.to_query_string()
    assert CirrusQuery.from_url(url) == q


@FAST
@given(groups(4))
def test_round_trip_of_deep_groups(g: Group) -> None:
    q = q_where(g)
    assert CirrusQuery.from_params("Car", q.to_params()) == q


@settings(max_examples=100, deadline=None, database=None)
@given(queries())
def test_node_parser_agrees_on_generated_queries(q: CirrusQuery) -> None:
    assert nq.parse_query(q.to_params()) == node_tree(q)


@settings(max_examples=150, deadline=None, database=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "or", "select", "order", "limit"]), texts)))
def test_arbitrary_input_parses_or_raises_cirrus_query_error(params: Params) -> None:
    try:
        q = CirrusQuery.from_params("Car", params)
    except CirrusQueryError as exc:
        assert str(exc)
    else:
        # whatever parses renders to a canonical form that is stable under another round
        canonical = q.to_params()
        assert CirrusQuery.from_params("Car", canonical).to_params() == canonical


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        # PostgREST 12 spellings the node accepts (issue 17, "Fidelity"): the client reads them too.
        ([("a", 'in.(ab"c,d)')], 'a=in.("ab\\"c",d)'),
        ([("or", '(a.eq.x"y)')], 'or=(a.eq."x\\"y")'),
        ([("a", "in.()")], "a=in.()"),
        ([("or", "( a.eq.1 , b.eq.2 )")], "or=(a.eq.1,b.eq.2)"),
        ([("a", 'in.( "D\\a\\vid" , x )')], "a=in.(David,x)"),
        ([("offset", "-5")], ""),
        ([("offset", "-2"), ("limit", "5")], "limit=3"),
        ([("limit", "5"), ("offset", "-2")], "limit=3"),
    ],
)
def test_postgrest_12_spellings_are_read_as_the_node_reads_them(
    params: list[tuple[str, str]], expected: str
) -> None:
    q = CirrusQuery.from_params("T", params)
    assert q.validate() == []
    assert unquote(q.to_query_string()) == expected
