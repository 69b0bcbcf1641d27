"""PostgREST query strings -> a backend-independent query tree (PostgREST 12 syntax).

Only syntax is handled here (no SQL, no schema): ``select`` with aliases, casts, JSON paths,
aggregates and embeds (``alias:table!hint!inner(...)``), column filters with ``not.`` negation,
nested ``or``/``and`` groups, ``order``, ``limit`` and ``offset``, each also addressed to an
embedded resource (``balances.key=eq.U``, ``balances.order=key.desc``). Errors are
:class:`QueryError` carrying the PostgREST-shaped JSON body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

OPERATORS = ("eq", "neq", "lt", "lte", "gt", "gte", "like", "ilike", "in", "is")
RESERVED = {"select", "order", "limit", "offset", "or", "and", "not.or", "not.and", "columns"}
MAX_DEPTH = 16
MAX_ITEMS = 256
MAX_VALUE = 10_000
TRIVALUES = ("null", "true", "false", "unknown")
GROUP_HEAD = re.compile(r"(not\.)?(and|or)[ \t]*(?=\()")
WS = " \t"
_STOPS: dict[str, re.Pattern[str]] = {}  # Scanner.run's patterns, by their stop characters


class QueryError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body.get("message", ""))
        self.status = status
        self.body = body


def parse_error(what: str, text: str, col: int, expecting: str) -> QueryError:
    near = text[col - 1 : col + 9] if col - 1 < len(text) else "end of input"
    return QueryError(
        400,
        {
            "code": "PGRST100",
            "details": f"unexpected {near!r} expecting {expecting}",
            "hint": None,
            "message": f'"failed to parse {what} ({text})" (line 1, column {col})',
        },
    )


@dataclass
class Filter:
    column: str
    op: str
    value: Any  # str, list[str] for `in`, "null"/"true"/"false" for `is`
    negate: bool = False


@dataclass
class Group:
    op: str  # "and" | "or"
    items: list[Filter | Group] = field(default_factory=list)
    negate: bool = False


AGGREGATES = ("count", "sum", "avg", "min", "max")
_AGGREGATE = re.compile(r"(?:(.*)\.)?(count|sum|avg|min|max)\(\)(?:::([A-Za-z_][A-Za-z0-9_ ]*))?\Z")
_ALIAS = re.compile(r"([^:()!]+):(?!:)")


@dataclass
class Field:
    """One ``select`` item other than an embed: a column or JSON path (``expr``; empty for a bare
    ``count()``), its ``alias``, a ``cast`` of the value (``col::text``), an ``aggregate`` of it
    (``col.sum()``) and a cast of the aggregate's result (``col.sum()::text``)."""

    expr: str
    alias: str | None = None
    cast: str | None = None
    aggregate: str | None = None
    result_cast: str | None = None


@dataclass
class Embed:
    table: str
    columns: list[str]
    via: str | None = None  # `Foreign!column(...)`: which relationship to use
    alias: str | None = field(default=None, compare=False)
    inner: bool = field(default=False, compare=False)  # `!inner`: parents without a match go
    sub: Query | None = field(default=None, compare=False, repr=False)  # its own select/filters

    @property
    def key(self) -> str:
        """The member of the parent rows that holds it (and that filters address)."""
        return self.alias or self.table


@dataclass
class Order:
    column: str
    desc: bool = False
    nulls_first: bool | None = None


@dataclass
class Query:
    columns: list[str] | None = None  # None: every column
    count: bool = False
    embeds: list[Embed] = field(default_factory=list)
    where: Group = field(default_factory=lambda: Group("and"))
    order: list[Order] = field(default_factory=list)
    limit: int | None = None
    offset: int = 0
    # every non-embed select item in order, with aliases, casts and aggregates (``columns``
    # keeps the names only, as the seed's dialect reads them; trees compare in those terms)
    fields: list[Field] = field(default_factory=list, compare=False)
    # the select's items in order ("field", i) / ("embed", i): PostgREST keeps that order
    layout: list[tuple[str, int]] = field(default_factory=list, compare=False)


def parse_query(params: list[tuple[str, str]]) -> Query:
    """Build a :class:`Query` from the query-string pairs, in order."""
    q = Query()
    nested: list[tuple[str, str]] = []
    for key, value in params:
        if len(value) > MAX_VALUE:
            raise parse_error("filter", value[:40] + "...", 1, "a shorter value")
        if key == "select":
            parse_select(value, q)
        elif "." in key and key not in RESERVED and not key.startswith("not."):
            nested.append((key, value))  # addressed to an embedded resource
        elif key == "order":
            q.order = parse_order(value)
        elif key == "limit":
            q.limit = parse_nonneg(key, value)
        elif key == "offset":
            q.offset = parse_int(key, value, "an integer")
        elif key in ("or", "and", "not.or", "not.and"):
            negate = key.startswith("not.")
            op = key.removeprefix("not.")
            q.where.items.append(parse_group(op, value, negate))
        elif key == "columns":
            continue
        else:
            q.where.items.append(parse_filter(key, value))
    for key, value in nested:
        apply_nested(q, key, value)
    if q.offset < 0:
        clip_negative_offset(q)
    return q


def not_embedded(name: str) -> QueryError:
    return QueryError(
        400,
        {
            "code": "PGRST108",
            "details": None,
            "hint": f"Verify that '{name}' is included in the 'select' query parameter.",
            "message": f"'{name}' is not an embedded resource in this request",
        },
    )


def apply_nested(q: Query, key: str, value: str) -> None:
    """``a.b.col=op.v``, ``a.order=...``, ``a.limit=n``, ``a.or=(...)``: the parameter of the
    embedded resource at path ``a.b`` (embed names may hold dots themselves, as the seed's
    ``Contract.Event`` tables do: the longest one that matches is taken)."""
    target = q
    rest = key
    while True:
        best: Embed | None = None
        for e in target.embeds:
            k = e.key
            if rest.startswith(k + ".") and (best is None or len(k) > len(best.key)):
                best = e
        if best is None or best.sub is None:
            if target is q:
                raise not_embedded(rest.partition(".")[0])
            break
        target = best.sub
        rest = rest[len(best.key) + 1 :]
        if "." not in rest or rest in RESERVED:
            break
    if "." in rest and rest not in RESERVED and not rest.startswith("not."):
        raise not_embedded(rest.partition(".")[0])
    sub = parse_query([(rest, value)])
    target.where.items.extend(sub.where.items)
    if rest == "order":
        target.order = sub.order
    elif rest == "limit":
        target.limit = sub.limit
    elif rest == "offset":
        target.offset = max(sub.offset, 0)


def parse_nonneg(key: str, value: str) -> int:
    return parse_int(key, value, "a non-negative integer", signed=False)


def parse_int(key: str, value: str, expecting: str, signed: bool = True) -> int:
    """ASCII digits only (``str.isdigit`` takes superscripts, which ``int`` refuses)."""
    v = value.strip()
    if not re.fullmatch(r"-?[0-9]{1,15}" if signed else r"[0-9]{1,15}", v):
        raise parse_error(key, value, 1, expecting)
    return int(v)


def clip_negative_offset(q: Query) -> None:
    """PostgREST 12 reads ``offset=-n`` as the rows from -n on, clipped at the first row: alone
    it changes nothing; with ``limit=m`` the first m-n rows remain, and none at all (m <= n) is
    refused as an empty range (RangeQuery.hs, ApiRequest.getRanges)."""
    if q.limit is not None:
        end = q.offset + q.limit
        if end <= 0:
            raise QueryError(
                416,
                {
                    "code": "PGRST103",
                    "details": "Limit should be greater than or equal to zero.",
                    "hint": None,
                    "message": "Requested range not satisfiable",
                },
            )
        q.limit = end
    q.offset = 0


def parse_select(value: str, q: Query) -> None:
    items = split_top(value, "select")
    cols: list[str] = []
    star = False
    for raw in items:
        item = raw.strip()
        if not item:
            raise parse_error("select", value, 1, "a column name")
        alias, body = split_alias(item)
        agg = _AGGREGATE.match(body)
        if item == "count":
            q.count = True  # the seed's (PostgREST 9) spelling
        elif agg and (agg.group(1) is None or "(" not in agg.group(1)):
            expr = (agg.group(1) or "").strip()
            if agg.group(2) == "count" and not expr:
                q.count = True
            elif not expr:
                raise parse_error("select", value, 1, "a column before ." + agg.group(2) + "()")
            path, _, cast = expr.partition("::")
            q.layout.append(("field", len(q.fields)))
            q.fields.append(Field(path, alias, cast or None, agg.group(2), agg.group(3)))
        elif "(" in item:
            q.layout.append(("embed", len(q.embeds)))
            q.embeds.append(parse_embed(item, value))
        elif item == "*":
            star = True
        else:
            alias, expr = split_alias(item)
            path, _, cast = expr.partition("::")
            if not path or (cast and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_ ]*", cast)):
                raise parse_error("select", value, 1, "a column name")
            q.layout.append(("field", len(q.fields)))
            q.fields.append(Field(path, alias, cast or None))
            cols.append(item.split("::")[0])
    if star or (not cols and not q.count and not q.embeds and not q.fields):
        q.columns = None
        q.layout = []
    else:
        q.columns = cols


def split_alias(item: str) -> tuple[str | None, str]:
    """``alias:rest`` as (alias, rest); a ``::`` cast is not an alias."""
    m = _ALIAS.match(item)
    if m is None:
        return None, item
    return m.group(1).strip(), item[m.end() :].strip()


def parse_embed(item: str, value: str) -> Embed:
    """``[alias:]table[!hint...](items)``: ``!inner`` drops the parents without a match,
    ``!left`` is the default, any other hint names the relationship (a column)."""
    name, _, rest = item.partition("(")
    if not rest.endswith(")") or not name:
        raise parse_error("select", value, len(name) + 1, "'(' columns ')'")
    inner_text = rest[:-1]
    inner = [c.strip() for c in split_top(inner_text, "select")]
    if not inner or any(not c for c in inner):
        raise parse_error("select", value, len(name) + 2, "a column name or *")
    alias, name = split_alias(name)
    table, *hints = name.split("!")
    via = None
    is_inner = False
    for h in hints:
        if h == "inner":
            is_inner = True
        elif h:
            via = h  # `!left` (the default join) unless a relationship follows a column `left`
    sub = Query()
    parse_select(inner_text, sub)
    return Embed(table.strip(), inner, via, alias, is_inner, sub)


def parse_order(value: str) -> list[Order]:
    out = []
    for item in split_top(value, "order"):
        parts = item.strip().split(".")
        if not parts[0]:
            raise parse_error("order", value, 1, "a column name")
        o = Order(parts[0])
        for p in parts[1:]:
            if p == "desc":
                o.desc = True
            elif p == "asc":
                o.desc = False
            elif p == "nullsfirst":
                o.nulls_first = True
            elif p == "nullslast":
                o.nulls_first = False
            else:
                raise parse_error(
                    "order", value, value.find(p) + 1, "asc, desc, nullsfirst or nullslast"
                )
        out.append(o)
    return out


def parse_filter(column: str, value: str) -> Filter:
    """``column=[not.]op.value``: the value is the rest of the parameter, taken verbatim (quotes
    included), except for ``in`` lists and ``is`` values."""
    negate = value.startswith("not.")
    rest = value[4:] if negate else value
    op, dot, arg = rest.partition(".")
    if op not in OPERATORS or not dot:
        raise parse_error(
            "filter", value, 1 if not negate else 5, "an operator: " + ", ".join(OPERATORS)
        )
    if op == "in":
        s = Scanner("filter", value, len(value) - len(arg))
        s.skip_ws()
        if not s.at("("):
            # lenient: `in.a,b` as the official JS client sends it
            return Filter(column, op, [unquote(v) for v in split_top(arg, "filter")], negate)
        items = s.in_list()
        s.end()
        return Filter(column, op, items, negate)
    if op == "is":
        tri = arg.rstrip(WS).lower()
        if tri not in TRIVALUES:
            raise parse_error("filter", value, len(value) - len(arg) + 1, "null, true or false")
        return Filter(column, op, tri, negate)
    return Filter(column, op, arg, negate)


def unquote(v: str) -> str:
    """A lenient ``in`` item: ``"..."`` with backslash escapes, else the item stripped."""
    v = v.strip()
    if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
        return re.sub(r"\\(.)", r"\1", v[1:-1], flags=re.S)
    return v


class Scanner:
    """A cursor over one parameter value, reading PostgREST 12's grammar of logic trees and
    ``in`` lists (QueryParams.hs: pLogicTree, pListVal, pQuotedValue). Whitespace (spaces and
    tabs) may surround parentheses and commas; an unquoted value runs up to the next ``,`` or
    ``)``, its own spaces included; a quoted one counts only when a ``,`` or ``)`` follows it,
    and a backslash takes the next character as it is."""

    def __init__(self, what: str, text: str, pos: int = 0) -> None:
        self.what = what
        self.text = text
        self.pos = pos

    def fail(self, expecting: str, at: int | None = None) -> QueryError:
        return parse_error(self.what, self.text, (self.pos if at is None else at) + 1, expecting)

    def at(self, chars: str) -> bool:
        return self.pos < len(self.text) and self.text[self.pos] in chars

    def skip_ws(self) -> None:
        while self.at(WS):
            self.pos += 1

    def expect(self, char: str) -> None:
        self.skip_ws()
        if not self.at(char):
            raise self.fail(repr(char))
        self.pos += 1
        self.skip_ws()

    def end(self) -> None:
        self.skip_ws()
        if self.pos < len(self.text):
            raise self.fail("end of input")

    def run(self, stop: str) -> str:
        """Characters up to (not including) the first of ``stop`` or the end."""
        start = self.pos
        pattern = _STOPS.get(stop)
        if pattern is None:
            pattern = _STOPS[stop] = re.compile("[" + re.escape(stop) + "]")
        m = pattern.search(self.text, start)
        self.pos = m.start() if m else len(self.text)
        return self.text[start : self.pos]

    def quoted(self) -> str | None:
        """A ``"..."`` value followed by ``,``, ``)`` or the end; None (nothing read) else."""
        text, n = self.text, len(self.text)
        i = self.pos + 1
        out: list[str] = []
        while i < n and text[i] != '"':
            if text[i] == "\\" and i + 1 < n:
                i += 1
            out.append(text[i])
            i += 1
        if i >= n or (i + 1 < n and text[i + 1] not in ",)"):
            return None
        self.pos = i + 1
        return "".join(out)

    def value(self) -> str:
        """A value inside a logic tree (pLogicSingleVal)."""
        if self.at('"'):
            v = self.quoted()
            if v is not None:
                return v
        if self.at("{"):
            close = self.text.find("}", self.pos)
            inner = self.text[self.pos + 1 : close]
            if close > 0 and "{" not in inner:
                self.pos = close + 1
                return "{" + inner + "}"
        return self.run(",)")

    def in_list(self) -> list[str]:
        """``( item, ... )``: a bare ``in.()`` (one empty item, also ``in.("")``) matches no
        value, as PostgREST renders it ``= ANY('{}')``."""
        self.expect("(")
        items: list[str] = []
        while True:
            item = self.quoted() if self.at('"') else None
            items.append(self.run(",)") if item is None else item)
            if not self.at(","):
                break
            self.pos += 1
        last = items[-1]
        if self.pos >= len(self.text) and last.startswith('"') and '"' not in last[1:]:
            raise self.fail("a closing '\"'")
        self.expect(")")
        return [] if items == [""] else items

    def tree(self, op: str, negate: bool, depth: int) -> Group:
        """``( item, ... )`` after ``[not.]and``/``[not.]or``; an item is a condition
        ``column.[not.]op.value`` or a nested ``[not.]and(...)``/``[not.]or(...)``."""
        if depth > MAX_DEPTH:
            raise self.fail(f"at most {MAX_DEPTH} levels of nesting")
        self.expect("(")
        group = Group(op, [], negate)
        while True:
            if len(group.items) >= MAX_ITEMS:
                raise self.fail(f"at most {MAX_ITEMS} conditions")
            group.items.append(self.item(depth))
            self.skip_ws()
            if not self.at(","):
                break
            self.pos += 1
            self.skip_ws()
        self.expect(")")
        return group

    def item(self, depth: int) -> Filter | Group:
        head = GROUP_HEAD.match(self.text, self.pos)
        if head:
            self.pos = head.end()
            return self.tree(head.group(2), bool(head.group(1)), depth + 1)
        start = self.pos
        column = self.column()
        if not self.at("."):
            raise self.fail("column.operator.value, and(...) or or(...)", start)
        return self.condition(column, start)

    def column(self) -> str:
        if self.at('"'):
            start = self.pos
            v = self.quoted_name()
            if v is not None:
                return v
            self.pos = start
        return self.run(".,()").strip(WS)

    def quoted_name(self) -> str | None:
        text, n = self.text, len(self.text)
        i = self.pos + 1
        out: list[str] = []
        while i < n and text[i] != '"':
            if text[i] == "\\" and i + 1 < n:
                i += 1
            out.append(text[i])
            i += 1
        if i >= n:
            return None
        self.pos = i + 1
        return "".join(out)

    def condition(self, column: str, start: int) -> Filter:
        if not column:
            raise self.fail("a column name", start)
        self.pos += 1  # the dot
        negate = self.text.startswith("not.", self.pos)
        if negate:
            self.pos += 4
        at = self.pos
        op = self.run(".,()")
        if op not in OPERATORS or not self.at("."):
            raise self.fail("an operator: " + ", ".join(OPERATORS), at)
        self.pos += 1
        if op == "in":
            return Filter(column, op, self.in_list(), negate)
        if op == "is":
            at = self.pos
            v = self.run(",)").rstrip(WS).lower()
            if v not in TRIVALUES:
                raise self.fail("null, true or false", at)
            return Filter(column, op, v, negate)
        return Filter(column, op, self.value(), negate)


def parse_group(op: str, value: str, negate: bool) -> Group:
    """``(a.eq.1,b.gt.2,and(c.eq.3,d.eq.4))``; errors quote the whole parameter value."""
    s = Scanner("logic tree", value)
    s.skip_ws()
    if not s.at("("):
        raise s.fail("'('")
    group = s.tree(op, negate, 0)
    s.end()
    return group


def split_top(text: str, what: str) -> list[str]:
    """Split on commas that are outside parentheses and double quotes."""
    out: list[str] = []
    depth = 0
    quoted = False
    cur: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if quoted:
            cur.append(c)
            if c == "\\" and i + 1 < n:
                cur.append(text[i + 1])
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
            cur.append(c)
        elif c == "(":
            depth += 1
            if depth > MAX_DEPTH + 2:
                raise parse_error(what, text[:60], i + 1, "fewer nested parentheses")
            cur.append(c)
        elif c == ")":
            depth -= 1
            if depth < 0:
                raise parse_error(what, text, i + 1, "a matching '('")
            cur.append(c)
        elif c == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    if quoted:
        raise parse_error(what, text, n + 1, "a closing '\"'")
    if depth:
        raise parse_error(what, text, n + 1, "')'")
    out.append("".join(cur))
    return out
