"""PostgREST 9 query strings -> a backend-independent query tree.

Only syntax is handled here (no SQL, no schema): ``select`` with embeds, column filters with
``not.`` negation, nested ``or``/``and`` groups, ``order``, ``limit`` and ``offset``. Errors are
:class:`QueryError` carrying the PostgREST-shaped JSON body.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OPERATORS = ("eq", "neq", "lt", "lte", "gt", "gte", "like", "ilike", "in", "is")
RESERVED = {"select", "order", "limit", "offset", "or", "and", "not.or", "not.and", "columns"}
MAX_DEPTH = 16
MAX_ITEMS = 256
MAX_VALUE = 10_000


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


@dataclass
class Embed:
    table: str
    columns: list[str]
    via: str | None = None  # `Foreign!column(...)`: which relationship to use


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


def parse_query(params: list[tuple[str, str]]) -> Query:
    """Build a :class:`Query` from the query-string pairs, in order."""
    q = Query()
    for key, value in params:
        if len(value) > MAX_VALUE:
            raise parse_error("filter", value[:40] + "...", 1, "a shorter value")
        if key == "select":
            parse_select(value, q)
        elif key == "order":
            q.order = parse_order(value)
        elif key == "limit":
            q.limit = parse_nonneg(key, value)
        elif key == "offset":
            q.offset = parse_nonneg(key, value)
        elif key in ("or", "and", "not.or", "not.and"):
            negate = key.startswith("not.")
            op = key.removeprefix("not.")
            q.where.items.append(parse_group(op, value, negate, whole=value))
        elif key == "columns":
            continue
        else:
            q.where.items.append(parse_filter(key, value))
    return q


def parse_nonneg(key: str, value: str) -> int:
    v = value.strip()
    if not (v.isascii() and v.isdigit()) or len(v) > 15:
        raise parse_error(key, value, 1, "a non-negative integer")
    return int(v)


def parse_select(value: str, q: Query) -> None:
    items = split_top(value, "select")
    cols: list[str] = []
    star = False
    for raw in items:
        item = raw.strip()
        if not item:
            raise parse_error("select", value, 1, "a column name")
        if item in ("count", "count()"):
            q.count = True
        elif "(" in item:
            name, _, rest = item.partition("(")
            if not rest.endswith(")") or not name:
                raise parse_error("select", value, len(name) + 1, "'(' columns ')'")
            inner = [c.strip() for c in split_top(rest[:-1], "select")]
            if not inner or any(not c for c in inner):
                raise parse_error("select", value, len(name) + 2, "a column name or *")
            name = name.split(":")[-1]
            name, _, via = name.partition("!")
            q.embeds.append(Embed(name, inner, via or None))
        elif item == "*":
            star = True
        else:
            cols.append(item.split("::")[0])
    if star or (not cols and not q.count and not q.embeds):
        q.columns = None
    else:
        q.columns = cols


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


def parse_filter(column: str, value: str, in_group: bool = False) -> Filter:
    """``column=[not.]op.value``; inside or/and groups values may be double-quoted."""
    negate = False
    rest = value
    if rest.startswith("not."):
        negate = True
        rest = rest[4:]
    op, dot, arg = rest.partition(".")
    if op not in OPERATORS or not dot:
        raise parse_error(
            "filter", value, 1 if not negate else 5, "an operator: " + ", ".join(OPERATORS)
        )
    operand = parse_operand(op, arg, value)
    if in_group and isinstance(operand, str) and op not in ("in", "is"):
        operand = unquote(operand)
    return Filter(column, op, operand, negate)


def parse_operand(op: str, arg: str, whole: str) -> Any:
    if op == "in":
        if not (arg.startswith("(") and arg.endswith(")")):
            # lenient: `in.a,b` as the official JS client sends it
            return [unquote(v) for v in split_top(arg, "filter")] if arg else []
        return [unquote(v) for v in split_top(arg[1:-1], "filter")] if arg[1:-1] else []
    if op == "is":
        if arg.lower() not in ("null", "true", "false", "unknown"):
            raise parse_error("filter", whole, len(whole) - len(arg) + 1, "null, true or false")
        return arg.lower()
    return arg


def unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
        return v[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return v


def parse_group(op: str, value: str, negate: bool, depth: int = 0, whole: str = "") -> Group:
    """``(a.eq.1,b.gt.2,and(c.eq.3,d.eq.4))``; errors quote the whole parameter value."""
    whole = whole or value
    base = max(whole.find(value), 0)
    if depth > MAX_DEPTH:
        raise parse_error("logic tree", whole, base + 1, f"at most {MAX_DEPTH} levels of nesting")
    v = value.strip()
    if not v.startswith("("):
        raise parse_error("logic tree", whole, base + 1, "'('")
    if not v.endswith(")"):
        raise parse_error("logic tree", whole, base + len(value) + 1, "')'")
    try:
        return _parse_group_items(op, v, negate, depth, whole)
    except QueryError as exc:
        if "logic tree" in str(exc.body.get("message", "")):
            raise
        raise parse_error(
            "logic tree", whole, base + 2, str(exc.body.get("details", "a condition"))
        ) from None


def _parse_group_items(op: str, v: str, negate: bool, depth: int, whole: str) -> Group:
    group = Group(op, [], negate)
    items = split_top(v[1:-1], "logic tree")
    if len(items) > MAX_ITEMS:
        raise parse_error("logic tree", whole[:40], 1, f"at most {MAX_ITEMS} conditions")
    for raw in items:
        item = raw.strip()
        neg = False
        head = item
        if head.startswith("not."):
            neg = True
            head = head[4:]
        if head.startswith(("and(", "or(")):
            sub_op, _, rest = head.partition("(")
            group.items.append(parse_group(sub_op, "(" + rest, neg, depth + 1, whole))
            continue
        col, dot, rest = item.partition(".")
        at = max(whole.find(item), 0) + 1
        if not dot or not col:
            raise parse_error("logic tree", whole, at, "column.operator.value")
        try:
            group.items.append(parse_filter(col, rest, in_group=True))
        except QueryError as exc:
            raise parse_error(
                "logic tree", whole, at + len(col) + 1, str(exc.body.get("details", ""))
            ) from None
    if not group.items:
        raise parse_error("logic tree", whole, 2, "a condition")
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
