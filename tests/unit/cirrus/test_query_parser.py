"""The Cirrus query parser: PostgREST 9 query strings -> query tree (seed 001, reference §4).

Pure syntax: no schema, no SQL. Every malformed input is a QueryError with status 400 and a
PostgREST-shaped body (``code`` PGRST100, ``message`` ``"failed to parse <what> (<text>)" (line 1,
column N)``, ``details`` ``unexpected ... expecting ...``, ``hint`` null).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.node.cirrus.query import (
    MAX_DEPTH,
    MAX_VALUE,
    OPERATORS,
    Embed,
    Filter,
    Group,
    Order,
    Query,
    QueryError,
    parse_query,
)

POSITION = re.compile(r"\(line 1, column (\d+)\)$")


def parse(*pairs: tuple[str, str]) -> Query:
    return parse_query(list(pairs))


def where(*pairs: tuple[str, str]) -> list[Filter | Group]:
    return parse(*pairs).where.items


def refused(*pairs: tuple[str, str]) -> dict[str, Any]:
    """The body of the 400 the pairs are refused with, after checking its PostgREST shape."""
    with pytest.raises(QueryError) as info:
        parse_query(list(pairs))
    exc = info.value
    assert exc.status == 400
    body = exc.body
    assert set(body) == {"code", "details", "hint", "message"}
    assert body["code"] == "PGRST100"
    assert body["hint"] is None
    assert body["message"].startswith('"failed to parse ')
    assert POSITION.search(body["message"]), body["message"]
    assert body["details"].startswith("unexpected ")
    assert " expecting " in body["details"]
    assert str(exc) == body["message"]
    return body


def column_of(body: dict[str, Any]) -> int:
    m = POSITION.search(body["message"])
    assert m is not None
    return int(m.group(1))


def nested(levels: int) -> str:
    """``(or(and(or(...(a.eq.1)...))))`` with ``levels`` groups inside the outer parentheses."""
    s = "a.eq.1"
    for i in range(levels):
        s = ("and(" if i % 2 else "or(") + s + ")"
    return "(" + s + ")"


# ---------------------------------------------------------------------------- defaults


def test_no_parameters_select_everything() -> None:
    q = parse()
    assert q == Query()
    assert q.columns is None
    assert q.count is False
    assert q.embeds == []
    assert q.where == Group("and", [], False)
    assert q.order == []
    assert q.limit is None
    assert q.offset == 0


# ---------------------------------------------------------------------------- operators


@pytest.mark.parametrize(
    ("value", "op", "arg"),
    [
        ("eq.alice", "eq", "alice"),
        ("neq.alice", "neq", "alice"),
        ("lt.10", "lt", "10"),
        ("lte.10", "lte", "10"),
        ("gt.10", "gt", "10"),
        ("gte.10", "gte", "10"),
        ("like.*Ali*", "like", "*Ali*"),
        ("ilike.*ali*", "ilike", "*ali*"),
    ],
)
def test_every_comparison_operator(value: str, op: str, arg: str) -> None:
    assert where(("name", value)) == [Filter("name", op, arg, False)]


def test_operator_list_is_postgrest_subset_of_the_seed() -> None:
    assert OPERATORS == ("eq", "neq", "lt", "lte", "gt", "gte", "like", "ilike", "in", "is")


@pytest.mark.parametrize("op", ["eq", "neq", "lt", "lte", "gt", "gte", "like", "ilike"])
def test_not_prefix_negates_every_operator(op: str) -> None:
    assert where(("x", f"not.{op}.5")) == [Filter("x", op, "5", True)]


def test_value_keeps_its_dots() -> None:
    assert where(("version", "eq.1.5.6")) == [Filter("version", "eq", "1.5.6", False)]


def test_empty_value_selects_the_main_chain() -> None:
    # seed: `chainId=eq.` selects the main chain (empty string)
    assert where(("chainId", "eq.")) == [Filter("chainId", "eq", "", False)]


def test_single_filter_value_is_taken_verbatim() -> None:
    # PostgREST pSingleVal: a top-level filter value is the rest of the string, quotes included
    assert where(("s", 'eq."x"')) == [Filter("s", "eq", '"x"', False)]
    assert where(("s", "eq.a,b(c)")) == [Filter("s", "eq", "a,b(c)", False)]


def test_special_characters_reach_the_tree_unchanged() -> None:
    # the official client's test value, which must match with eq (reference §9)
    special = "!@#$% ?/<>~`+=_^&*()-"
    assert where(("s", f"eq.{special}")) == [Filter("s", "eq", special, False)]


def test_several_filters_and_together_in_order() -> None:
    q = parse(("a", "eq.1"), ("b", "gt.2"), ("a", "lt.9"))
    assert q.where == Group(
        "and",
        [Filter("a", "eq", "1"), Filter("b", "gt", "2"), Filter("a", "lt", "9")],
        False,
    )


# ---------------------------------------------------------------------------- in


def test_in_with_parentheses() -> None:
    assert where(("n", "in.(1,2,3)")) == [Filter("n", "in", ["1", "2", "3"], False)]


def test_in_with_quoted_values_keeps_commas_inside_quotes() -> None:
    assert where(("s", 'in.(a,"b,c")')) == [Filter("s", "in", ["a", "b,c"], False)]


def test_in_quoted_value_with_parentheses_and_escaped_quote() -> None:
    assert where(("s", r'in.("x(y)","say \"hi\"",z)')) == [
        Filter("s", "in", ["x(y)", 'say "hi"', "z"], False)
    ]


def test_in_quoted_value_keeps_its_spaces() -> None:
    assert where(("s", 'in.(" padded ")')) == [Filter("s", "in", [" padded "], False)]


def test_in_lenient_form_without_parentheses() -> None:
    # blockapps-rest sends chainId=in.a,b (reference §4): accepted by the sandbox
    assert where(("chainId", "in.a,b")) == [Filter("chainId", "in", ["a", "b"], False)]


def test_in_lenient_single_value() -> None:
    assert where(("chainId", "in.abc")) == [Filter("chainId", "in", ["abc"], False)]


def test_in_empty_list() -> None:
    assert where(("n", "in.()")) == [Filter("n", "in", [], False)]


def test_not_in() -> None:
    assert where(("n", "not.in.(1,2)")) == [Filter("n", "in", ["1", "2"], True)]


def test_in_unterminated_quote_is_refused() -> None:
    body = refused(("s", 'in.("x'))
    assert "closing '\"'" in body["details"]


def test_in_opening_parenthesis_inside_an_item_is_part_of_it() -> None:
    # PostgREST 12 pListElement: an unquoted item runs up to the next ',' or ')'
    assert where(("s", "in.((a,b)")) == [Filter("s", "in", ["(a", "b"], False)]


def test_in_unclosed_list_is_refused() -> None:
    body = refused(("s", "in.(a,b"))
    assert body["message"] == '"failed to parse filter (in.(a,b)" (line 1, column 8)'
    assert "')'" in body["details"]


def test_in_text_after_the_list_is_refused() -> None:
    # PostgREST ignores what follows the list (its parser stops there); the sandbox refuses it
    body = refused(("s", "in.(a,b))"))
    assert body["message"] == '"failed to parse filter (in.(a,b)))" (line 1, column 9)'


# ---------------------------------------------------------------------------- is


@pytest.mark.parametrize(
    ("value", "arg"),
    [("is.null", "null"), ("is.true", "true"), ("is.false", "false"), ("is.NULL", "null")],
)
def test_is(value: str, arg: str) -> None:
    assert where(("x", value)) == [Filter("x", "is", arg, False)]


def test_not_is_null() -> None:
    assert where(("x", "not.is.null")) == [Filter("x", "is", "null", True)]


def test_is_with_other_value_is_refused_at_the_value() -> None:
    body = refused(("x", "is.maybe"))
    assert body["message"] == '"failed to parse filter (is.maybe)" (line 1, column 4)'
    assert body["details"] == "unexpected 'maybe' expecting null, true or false"


# ---------------------------------------------------------------------------- or / and


def test_or_group() -> None:
    assert where(("or", "(a.eq.1,b.gt.2)")) == [
        Group("or", [Filter("a", "eq", "1"), Filter("b", "gt", "2")], False)
    ]


def test_and_group() -> None:
    assert where(("and", "(a.gte.1,a.lte.5)")) == [
        Group("and", [Filter("a", "gte", "1"), Filter("a", "lte", "5")], False)
    ]


def test_nested_and_with_negated_filter_inside_or() -> None:
    # PostgREST 9 spells a negated condition inside a group `<column>.not.<op>.<value>`
    assert where(("or", "(a.eq.1,and(b.gt.2,c.not.eq.3))")) == [
        Group(
            "or",
            [
                Filter("a", "eq", "1"),
                Group("and", [Filter("b", "gt", "2"), Filter("c", "eq", "3", True)], False),
            ],
            False,
        )
    ]


def test_not_before_the_column_inside_a_group_is_refused() -> None:
    # PostgREST 9 pLogicTree: `not.` inside a group may only precede and(...)/or(...); before a
    # column it reads `not` as the column and `c` as the operator, and fails.
    body = refused(("or", "(a.eq.1,and(b.gt.2,not.c.eq.3))"))
    assert "c.eq.3" in body["details"]


def test_column_dot_not_inside_a_group() -> None:
    # PostgREST spells a negated condition inside a group `c.not.eq.3`
    assert where(("or", "(c.not.eq.3,d.not.is.null)")) == [
        Group("or", [Filter("c", "eq", "3", True), Filter("d", "is", "null", True)], False)
    ]


def test_not_or_key_negates_the_whole_group() -> None:
    assert where(("not.or", "(a.eq.1,b.eq.2)")) == [
        Group("or", [Filter("a", "eq", "1"), Filter("b", "eq", "2")], True)
    ]


def test_not_and_key_negates_the_whole_group() -> None:
    assert where(("not.and", "(a.eq.1,b.eq.2)")) == [
        Group("and", [Filter("a", "eq", "1"), Filter("b", "eq", "2")], True)
    ]


def test_negated_nested_groups() -> None:
    assert where(("and", "(not.or(a.eq.1,b.eq.2),not.and(c.eq.3))")) == [
        Group(
            "and",
            [
                Group("or", [Filter("a", "eq", "1"), Filter("b", "eq", "2")], True),
                Group("and", [Filter("c", "eq", "3")], True),
            ],
            False,
        )
    ]


def test_in_list_inside_a_group() -> None:
    assert where(("or", "(n.in.(1,2),s.eq.x)")) == [
        Group("or", [Filter("n", "in", ["1", "2"]), Filter("s", "eq", "x")], False)
    ]


def test_quoted_value_inside_a_group_is_unquoted() -> None:
    # PostgREST pLogicSingleVal: `"x,y"` is one value, x,y, so a comma can be matched in or=()
    assert where(("or", '(s.eq."x,y",n.eq.2)')) == [
        Group("or", [Filter("s", "eq", "x,y"), Filter("n", "eq", "2")], False)
    ]


def test_groups_and_filters_combine_in_order() -> None:
    q = parse(("or", "(a.eq.1,b.eq.2)"), ("and", "(c.eq.3)"), ("d", "eq.4"))
    assert q.where == Group(
        "and",
        [
            Group("or", [Filter("a", "eq", "1"), Filter("b", "eq", "2")], False),
            Group("and", [Filter("c", "eq", "3")], False),
            Filter("d", "eq", "4"),
        ],
        False,
    )


def test_nesting_up_to_the_limit_parses() -> None:
    q = parse(("or", nested(MAX_DEPTH)))
    depth = 0
    node: Filter | Group = q.where.items[0]
    while isinstance(node, Group):
        depth += 1
        node = node.items[0]
    assert depth == MAX_DEPTH + 1  # the outer group plus MAX_DEPTH nested ones
    assert node == Filter("a", "eq", "1")


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, MAX_DEPTH + 2, 40, 500])
def test_nesting_beyond_the_limit_is_refused(levels: int) -> None:
    body = refused(("or", nested(levels)))
    assert body["message"].startswith('"failed to parse logic tree (')


def test_deep_bare_parentheses_are_refused() -> None:
    refused(("or", "(" * 50 + "a.eq.1" + ")" * 50))


def test_too_many_conditions_are_refused() -> None:
    refused(("or", "(" + ",".join(["a.eq.1"] * 300) + ")"))


def test_many_conditions_below_the_limit_parse() -> None:
    items = where(("or", "(" + ",".join(f"a.eq.{i}" for i in range(200)) + ")"))
    assert items == [Group("or", [Filter("a", "eq", str(i)) for i in range(200)], False)]


@pytest.mark.parametrize(
    "value",
    ["a.eq.1", "(a.eq.1", "()", "(a)", "(.eq.1)", "(a.eq.1,)", "(a.eq.1))"],
)
def test_malformed_groups_are_refused(value: str) -> None:
    refused(("or", value))


def test_group_without_parentheses_points_at_column_1() -> None:
    body = refused(("or", "a.eq.1"))
    assert body["message"] == '"failed to parse logic tree (a.eq.1)" (line 1, column 1)'
    assert body["details"] == "unexpected 'a.eq.1' expecting '('"


def test_unclosed_group_reports_the_missing_parenthesis() -> None:
    # The value does start with '('; what is missing is the ')' at the end of the input.
    body = refused(("or", "(a.eq.1"))
    assert body["message"] == '"failed to parse logic tree ((a.eq.1)" (line 1, column 8)'
    assert "')'" in body["details"]


def test_group_error_quotes_the_whole_parameter_value() -> None:
    # PostgREST: "failed to parse logic tree (<the value as sent>)", even when the bad part is
    # an inner condition, so the user sees what they sent.
    body = refused(("or", "(a.zz.1)"))
    assert body["message"].startswith('"failed to parse logic tree ((a.zz.1))" (line 1, column ')


def test_unknown_operator_inside_a_group_is_refused() -> None:
    body = refused(("or", "(a.zz.1)"))
    assert "zz.1" in body["details"]


# ---------------------------------------------------------------------------- select


def test_select_columns() -> None:
    q = parse(("select", "address,label,count_x"))
    assert q.columns == ["address", "label", "count_x"]
    assert q.count is False
    assert q.embeds == []


def test_select_star() -> None:
    q = parse(("select", "*"))
    assert q.columns is None
    assert q.embeds == []


def test_select_star_with_columns_means_every_column() -> None:
    assert parse(("select", "*,label")).columns is None


def test_select_count() -> None:
    q = parse(("select", "count"))
    assert q.count is True
    assert q.columns == []


def test_select_count_parentheses_spelling_of_postgrest_12() -> None:
    # reference §4: PostgREST 12 (platform >= 12.0) spells it count(); the parser means to take it
    q = parse(("select", "count()"))
    assert q.count is True
    assert q.columns == []
    assert q.embeds == []


def test_select_count_with_a_filter() -> None:
    q = parse(("select", "count"), ("organization", "eq.Acme"))
    assert q.count is True
    assert q.where.items == [Filter("organization", "eq", "Acme")]


def test_select_count_with_order_is_syntax_valid() -> None:
    # the 42803 refusal is the backend's (it needs to know the table); the syntax is fine
    q = parse(("select", "count"), ("order", "label.asc"))
    assert q.count is True
    assert q.order == [Order("label", False, None)]


def test_select_embed_star() -> None:
    q = parse(("select", "*,Receipt(*)"))
    assert q.columns is None
    assert q.embeds == [Embed("Receipt", ["*"])]


def test_select_embed_columns() -> None:
    q = parse(("select", "label,Receipt(memo,amount)"))
    assert q.columns == ["label"]
    assert q.embeds == [Embed("Receipt", ["memo", "amount"])]


def test_select_embed_only() -> None:
    q = parse(("select", "Receipt(*)"))
    assert q.columns == []
    assert q.embeds == [Embed("Receipt", ["*"])]


def test_select_several_embeds() -> None:
    q = parse(("select", "a,R(b,c),S(*)"))
    assert q.columns == ["a"]
    assert q.embeds == [Embed("R", ["b", "c"]), Embed("S", ["*"])]


def test_select_embed_of_prefixed_table_name() -> None:
    q = parse(("select", "child,Acme-Shop-Child(v)"))
    assert q.columns == ["child"]
    assert q.embeds == [Embed("Acme-Shop-Child", ["v"])]


def test_select_embed_alias_is_dropped_and_hint_names_the_relationship() -> None:
    q = parse(("select", "r:Receipt!receipt(*)"))
    assert q.embeds == [Embed("Receipt", ["*"], via="receipt")]
    assert parse(("select", "Receipt(*)")).embeds == [Embed("Receipt", ["*"], via=None)]


def test_select_cast_suffix_is_dropped() -> None:
    assert parse(("select", "amount::text")).columns == ["amount"]


def test_select_spaces_around_items_are_ignored() -> None:
    assert parse(("select", " a , b ")).columns == ["a", "b"]


@pytest.mark.parametrize(
    ("value", "column"),
    [
        ("a,,b", 1),
        ("", 1),
        ("R(", 3),
        ("R()", 3),
        ("(a)", 1),
        ("R(a,)", 3),
        ("R(a))", 5),
    ],
)
def test_malformed_select_is_refused(value: str, column: int) -> None:
    body = refused(("select", value))
    assert body["message"] == f'"failed to parse select ({value})" (line 1, column {column})'


# ---------------------------------------------------------------------------- order


def test_order_single_column_defaults_to_ascending() -> None:
    assert parse(("order", "label")).order == [Order("label", False, None)]


def test_order_several_columns_with_directions_and_nulls() -> None:
    q = parse(("order", "a.desc.nullsfirst,b,c.asc.nullslast,d.desc,e.nullsfirst"))
    assert q.order == [
        Order("a", True, True),
        Order("b", False, None),
        Order("c", False, False),
        Order("d", True, None),
        Order("e", False, True),
    ]


def test_order_asc_explicitly() -> None:
    assert parse(("order", "x.asc")).order == [Order("x", False, None)]


def test_order_bad_direction_points_at_it() -> None:
    body = refused(("order", "a.sideways"))
    assert body["message"] == '"failed to parse order (a.sideways)" (line 1, column 3)'
    assert body["details"] == "unexpected 'sideways' expecting asc, desc, nullsfirst or nullslast"


def test_order_without_column_is_refused() -> None:
    body = refused(("order", ".asc"))
    assert column_of(body) == 1


def test_last_order_parameter_wins() -> None:
    assert parse(("order", "a"), ("order", "b.desc")).order == [Order("b", True, None)]


# ---------------------------------------------------------------------------- limit / offset


def test_limit_and_offset() -> None:
    q = parse(("limit", "10"), ("offset", "20"))
    assert q.limit == 10
    assert q.offset == 20


def test_limit_zero_and_surrounding_spaces() -> None:
    assert parse(("limit", "0")).limit == 0
    assert parse(("limit", " 5 ")).limit == 5


@pytest.mark.parametrize("value", ["-1", "x", "1.5", "", "1e3", "9" * 16, "¹", "٣", "+1"])
def test_bad_limit_is_refused(value: str) -> None:
    body = refused(("limit", value))
    assert body["message"] == f'"failed to parse limit ({value})" (line 1, column 1)'
    assert body["details"].endswith("expecting a non-negative integer")


@pytest.mark.parametrize("value", ["x", "1.5", "", "1e3", "9" * 16, "¹", "-٣", "--1"])
def test_bad_offset_is_refused(value: str) -> None:
    body = refused(("offset", value))
    assert body["message"] == f'"failed to parse offset ({value})" (line 1, column 1)'
    assert body["details"].endswith("expecting an integer")


def test_largest_accepted_limit() -> None:
    assert parse(("limit", "9" * 15)).limit == 10**15 - 1


# ---------------------------------------------------------------------------- other keys


def test_columns_parameter_is_ignored() -> None:
    assert parse(("columns", "a,b")) == Query()


# ---------------------------------------------------------------------------- malformed filters


def test_filter_without_dot_is_refused() -> None:
    body = refused(("a", "eq"))
    assert body["message"] == '"failed to parse filter (eq)" (line 1, column 1)'


def test_unknown_operator_is_refused() -> None:
    body = refused(("a", "foo.1"))
    assert body["message"] == '"failed to parse filter (foo.1)" (line 1, column 1)'
    assert body["details"].startswith("unexpected 'foo.1' expecting an operator: eq, neq")


def test_unknown_operator_after_not_points_after_the_prefix() -> None:
    body = refused(("a", "not.foo.1"))
    assert body["message"] == '"failed to parse filter (not.foo.1)" (line 1, column 5)'


def test_operators_are_case_sensitive() -> None:
    refused(("a", "EQ.1"))
    refused(("a", "IS.NULL"))


def test_unsupported_postgrest_operators_are_refused() -> None:
    for op in ("cs", "cd", "ov", "fts", "match"):
        refused(("a", f"{op}.x"))


# ---------------------------------------------------------------------------- long values


def test_value_at_the_length_limit_parses_exactly() -> None:
    value = "x" * (MAX_VALUE - 3)
    assert where(("s", "eq." + value)) == [Filter("s", "eq", value, False)]


def test_unicode_value_at_the_length_limit_parses_exactly() -> None:
    value = "é" * (MAX_VALUE - 3)
    assert where(("s", "eq." + value)) == [Filter("s", "eq", value, False)]


def test_value_beyond_the_length_limit_is_refused_with_a_short_message() -> None:
    body = refused(("s", "eq." + "x" * MAX_VALUE))
    assert len(body["message"]) < 200
    assert len(body["details"]) < 200


def test_long_select_and_order_are_refused_too() -> None:
    refused(("select", "a" * (MAX_VALUE + 1)))
    refused(("order", "a" * (MAX_VALUE + 1)))


def test_long_value_in_a_group_within_the_limit() -> None:
    value = "y" * 5000
    assert where(("or", f"(s.eq.{value},s.eq.z)")) == [
        Group("or", [Filter("s", "eq", value), Filter("s", "eq", "z")], False)
    ]


# ---------------------------------------------------------------------------- PostgREST 12 syntax
# Issue 17: what PostgREST 12's parser (QueryParams.hs) accepts and the sandbox once refused.


def test_whitespace_around_group_items_commas_and_parentheses() -> None:
    assert where(("or", " ( a.eq.1 ,\tb.gt.2 , and ( c.eq.3 , not.or (d.eq.4) ) ) ")) == [
        Group(
            "or",
            [
                Filter("a", "eq", "1 "),  # an unquoted value runs up to the comma, spaces kept
                Filter("b", "gt", "2 "),
                Group(
                    "and",
                    [Filter("c", "eq", "3 "), Group("or", [Filter("d", "eq", "4")], True)],
                    False,
                ),
            ],
            False,
        )
    ]


def test_whitespace_before_a_nested_group_parenthesis() -> None:
    # once read as a condition on a column named "and (b"
    assert where(("or", "(a.eq.1, and (b.eq.2,c.eq.3))")) == [
        Group(
            "or",
            [
                Filter("a", "eq", "1"),
                Group("and", [Filter("b", "eq", "2"), Filter("c", "eq", "3")]),
            ],
            False,
        )
    ]


def test_spaces_around_a_column_name_in_a_group_are_dropped() -> None:
    assert where(("and", "( a .eq.1)")) == [Group("and", [Filter("a", "eq", "1")], False)]


def test_quoted_value_in_a_group_keeps_its_spaces() -> None:
    assert where(("or", '( s.eq." x ", s.eq.y)')) == [
        Group("or", [Filter("s", "eq", " x "), Filter("s", "eq", "y")], False)
    ]
    # a space after the closing quote makes it an unquoted value, quotes included (PostgREST)
    assert where(("or", '(s.eq."x" ,s.eq.y)')) == [
        Group("or", [Filter("s", "eq", '"x" '), Filter("s", "eq", "y")], False)
    ]


def test_whitespace_inside_in_lists() -> None:
    # after '(' and around ')' it is dropped; after a comma it belongs to the next item
    assert where(("n", "in. ( 1,2 ) ")) == [Filter("n", "in", ["1", "2 "], False)]
    assert where(("n", "in.(1, 2)")) == [Filter("n", "in", ["1", " 2"], False)]
    assert where(("or", "(n.in.( 1,2 ) , n.eq.5)")) == [
        Group("or", [Filter("n", "in", ["1", "2 "]), Filter("n", "eq", "5")], False)
    ]


def test_empty_in_list_matches_nothing_in_every_spelling() -> None:
    for value in ("in.()", "in.( )", 'in.("")'):
        assert where(("n", value)) == [Filter("n", "in", [], False)], value
    assert where(("or", "(n.in.(),n.eq.1)")) == [
        Group("or", [Filter("n", "in", []), Filter("n", "eq", "1")], False)
    ]
    # an empty item beside others is the empty string
    assert where(("s", "in.(a,)")) == [Filter("s", "in", ["a", ""], False)]


def test_bare_quote_inside_an_unquoted_in_item() -> None:
    assert where(("s", 'in.(a"b,c)')) == [Filter("s", "in", ['a"b', "c"], False)]
    assert where(("s", 'in.(ab")')) == [Filter("s", "in", ['ab"'], False)]
    # a quoted item must end at a comma or ')': else it is an unquoted item, quotes and all
    assert where(("s", 'in.("a"b,c)')) == [Filter("s", "in", ['"a"b', "c"], False)]
    assert where(("or", '(s.in.(x"y),s.eq.a"b)')) == [
        Group("or", [Filter("s", "in", ['x"y']), Filter("s", "eq", 'a"b')], False)
    ]


def test_backslash_escapes_in_quoted_values() -> None:
    assert where(("s", r'in.("D\a\vid")')) == [Filter("s", "in", ["David"], False)]
    assert where(("or", r'(s.eq."D\a\vid",s.eq."a\\b\"c")')) == [
        Group("or", [Filter("s", "eq", "David"), Filter("s", "eq", 'a\\b"c')], False)
    ]
    # the lenient in.a,b form unescapes its quoted items the same way
    assert where(("s", r'in."D\a\vid",x')) == [Filter("s", "in", ["David", "x"], False)]
    # a single filter's value stays verbatim (pSingleVal)
    assert where(("s", r'eq."D\a\vid"')) == [Filter("s", "eq", r'"D\a\vid"', False)]


def test_braces_keep_commas_inside_a_group_value() -> None:
    assert where(("or", "(tags.eq.{a,b},n.eq.1)")) == [
        Group("or", [Filter("tags", "eq", "{a,b}"), Filter("n", "eq", "1")], False)
    ]


def test_quoted_column_name_inside_a_group() -> None:
    assert where(("or", '("my col".eq.1)')) == [Group("or", [Filter("my col", "eq", "1")], False)]


def test_in_inside_a_group_needs_its_parentheses() -> None:
    # PostgREST: "or(id.in.1,2,id.eq.3)" fails expecting "("
    body = refused(("or", "(id.in.1,2,id.eq.3)"))
    assert "'('" in body["details"]


def test_negative_offset_alone_is_ignored() -> None:
    q = parse(("offset", "-4"))
    assert (q.offset, q.limit) == (0, None)
    q = parse(("offset", " -4 "), ("limit", "10"))
    assert (q.offset, q.limit) == (0, 6)


def test_negative_offset_with_a_limit_clips_the_window_at_the_first_row() -> None:
    # rows -2 .. 2 of a limit of 5 from -2: rows 0 .. 2
    q = parse(("limit", "5"), ("offset", "-2"))
    assert (q.offset, q.limit) == (0, 3)
    q = parse(("offset", "-2"), ("limit", "5"))  # in either order
    assert (q.offset, q.limit) == (0, 3)


@pytest.mark.parametrize(("limit", "offset"), [("2", "-2"), ("1", "-5"), ("0", "-1")])
def test_negative_offset_leaving_no_row_is_an_empty_range(limit: str, offset: str) -> None:
    with pytest.raises(QueryError) as info:
        parse(("limit", limit), ("offset", offset))
    assert info.value.status == 416
    assert info.value.body == {
        "code": "PGRST103",
        "details": "Limit should be greater than or equal to zero.",
        "hint": None,
        "message": "Requested range not satisfiable",
    }


def test_spaces_after_an_is_value() -> None:
    assert where(("x", "is.null ")) == [Filter("x", "is", "null", False)]
    assert where(("or", "(x.is.true ,y.is.null )")) == [
        Group("or", [Filter("x", "is", "true"), Filter("y", "is", "null")], False)
    ]
    refused(("x", "is. null"))
