"""Parsing the query parameters of a Cirrus search into a :class:`CirrusQuery` (the grammar
is described in :mod:`.cirrus_query`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .cirrus_query import (
    IS_VALUES,
    OPERATORS,
    RESERVED_PARAMS,
    CirrusQuery,
    CirrusQueryError,
    Condition,
    Embed,
    Group,
    GroupOp,
    Order,
    is_valid_name,
)

_DIGITS_RE = re.compile(r"[0-9]+")
_PARSE_DEPTH_LIMIT = 64  # guard against hostile input; far beyond anything the node accepts


def parse_params(q: CirrusQuery, params: Iterable[tuple[str, str]]) -> CirrusQuery:
    """Fill the empty query ``q`` from query parameters (see :meth:`CirrusQuery.from_params`)."""
    seen: set[str] = set()
    for key, value in params:
        if key in ("select", "order", "limit", "offset"):
            if key in seen:
                raise CirrusQueryError(f"{key} is given more than once", None, param=key)
            seen.add(key)
        if key == "select":
            _parse_select(value, q)
        elif key == "order":
            q.order = _parse_order(value)
        elif key == "limit":
            q.limit = _parse_count(key, value)
        elif key == "offset":
            q.offset = _parse_offset(value)
        elif key in ("or", "and", "not.or", "not.and"):
            p = _Parser(value, key)
            group = p.group_body(_group_op(key.removeprefix("not.")), key.startswith("not."))
            p.skip_ws()
            p.expect_end("after the closing ')'")
            q.where.items.append(group)
        elif key in RESERVED_PARAMS:
            raise CirrusQueryError(
                f"the {key!r} parameter is not supported in a search", None, param=key
            )
        else:
            q.where.items.append(_parse_top_condition(key, value))
    if q.offset is not None and q.offset < 0:
        _clip_negative_offset(q)
    return q


def _group_op(text: str) -> GroupOp:
    return "and" if text == "and" else "or"


def _parse_count(key: str, value: str) -> int:
    text = value.strip()
    if not _DIGITS_RE.fullmatch(text):
        raise CirrusQueryError(f"{key} must be a non-negative integer", 0, param=key, text=value)
    return int(text)


def _parse_offset(value: str) -> int:
    """``offset=-n`` is read as PostgREST 12 reads it (see :func:`_clip_negative_offset`)."""
    text = value.strip()
    if text.startswith("-") and _DIGITS_RE.fullmatch(text[1:]):
        return -int(text[1:])
    return _parse_count("offset", value)


def _clip_negative_offset(q: CirrusQuery) -> None:
    """PostgREST 12 takes ``offset=-n`` as the rows from -n on, clipped at the first row: alone it
    changes nothing; with ``limit=m`` the first m-n rows remain; m <= n selects no range at all,
    which the node refuses, so the query is refused here with the same reason."""
    n = -(q.offset or 0)
    q.offset = None
    if q.limit is None:
        return
    if q.limit <= n:
        raise CirrusQueryError(
            f"offset -{n} with limit {q.limit} selects no rows (the node refuses the range)",
            0,
            param="offset",
            text=f"-{n}",
        )
    q.limit -= n


def _split_commas(text: str, param: str) -> list[tuple[int, str]]:
    """Split on commas outside parentheses; each part with its start offset."""
    parts: list[tuple[int, str]] = []
    depth = 0
    start = 0
    for i, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                raise CirrusQueryError("')' without a matching '('", i, param=param, text=text)
        elif c == "," and depth == 0:
            parts.append((start, text[start:i]))
            start = i + 1
    if depth:
        raise CirrusQueryError("missing ')'", len(text), param=param, text=text)
    parts.append((start, text[start:]))
    return parts


def _stripped(start: int, part: str) -> tuple[int, str]:
    lead = len(part) - len(part.lstrip())
    return start + lead, part.strip()


def _parse_select(value: str, q: CirrusQuery) -> None:
    def err(message: str, pos: int) -> CirrusQueryError:
        return CirrusQueryError(message, pos, param="select", text=value)

    star = False
    for start, raw in _split_commas(value, "select"):
        pos, item = _stripped(start, raw)
        if not item:
            raise err("expected a column name", pos)
        if item == "*":
            star = True
        elif item in ("count", "count()"):
            q.count = True
        elif "(" in item:
            name = item[: item.index("(")].strip()
            if not item.endswith(")"):
                raise err("expected ')' to close the embed", pos + len(item))
            if not name:
                raise err("expected a table name before '('", pos)
            name, _, via = name.partition("!")
            name, via = name.strip(), via.strip()
            if not is_valid_name(name) or (via and not is_valid_name(via)) or (_ and not via):
                raise err(
                    f"invalid embed {item[: item.index('(')].strip()!r} (expected Table or "
                    "Table!column; aliases are not supported)",
                    pos,
                )
            inner_at = pos + item.index("(") + 1
            inner = item[item.index("(") + 1 : -1]
            columns: list[str] = []
            for istart, iraw in _split_commas(inner, "select"):
                ipos, col = _stripped(inner_at + istart, iraw)
                if "(" in col:
                    raise err("nested embeds are not supported", ipos)
                if col != "*" and not is_valid_name(col):
                    raise err(f"expected a column name or * in the embed, got {col!r}", ipos)
                columns.append(col)
            q.embeds.append(Embed(name, columns, via))
        elif is_valid_name(item):
            q.select.append(item)
        else:
            raise err(
                f"invalid column name {item!r} (aliases, casts and JSON paths are not supported)",
                pos,
            )
    if star and q.select:
        raise err("'*' cannot be combined with named columns", value.find("*"))


def _parse_order(value: str) -> list[Order]:
    out: list[Order] = []
    for start, raw in _split_commas(value, "order"):
        pos, term = _stripped(start, raw)
        column, *mods = term.split(".")
        if not is_valid_name(column):
            raise CirrusQueryError(
                f"expected a column name, got {column!r}", pos, param="order", text=value
            )
        o = Order(column)
        at = pos + len(column) + 1
        if mods and mods[0] in ("asc", "desc"):
            o.desc = mods.pop(0) == "desc"
            at += len("desc" if o.desc else "asc") + 1
        if mods and mods[0] in ("nullsfirst", "nullslast"):
            o.nulls_first = mods.pop(0) == "nullsfirst"
            at += len("nullsfirst") + 1
        if mods:
            raise CirrusQueryError(
                f"unexpected {mods[0]!r} (expected asc or desc, then nullsfirst or nullslast)",
                at,
                param="order",
                text=value,
            )
        out.append(o)
    return out


def _parse_top_condition(key: str, value: str) -> Condition:
    if not key:
        raise CirrusQueryError("a condition with an empty column name", None, param=key)
    if not is_valid_name(key):
        raise CirrusQueryError(
            f"invalid column name {key!r} (filters on embedded tables are not supported)",
            None,
            param=key,
        )
    p = _Parser(value, key)
    return p.condition_rest(key, in_group=False)


class _Parser:
    """A cursor over one parameter value (group bodies, operators, ``in`` lists)."""

    def __init__(self, text: str, param: str) -> None:
        self.text = text
        self.param = param
        self.pos = 0

    def error(self, message: str, pos: int | None = None) -> CirrusQueryError:
        return CirrusQueryError(
            message, self.pos if pos is None else pos, param=self.param, text=self.text
        )

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def expect(self, char: str, what: str) -> None:
        if self.peek() != char:
            raise self.error(f"expected {char!r} {what}")
        self.pos += 1

    def expect_end(self, what: str) -> None:
        if self.pos < len(self.text):
            raise self.error(f"unexpected text {what}")

    def token(self) -> str:
        """Characters up to the next ``.``, ``,``, ``(``, ``)`` or the end."""
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ".,()":
            self.pos += 1
        return self.text[start : self.pos]

    # groups

    def group_body(self, op: GroupOp, negate: bool, depth: int = 1) -> Group:
        if depth > _PARSE_DEPTH_LIMIT:
            raise self.error("groups are nested too deeply")
        self.skip_ws()
        self.expect("(", f"to open the {op} group")
        group = Group(op, [], negate)
        self.skip_ws()
        if self.peek() == ")":
            raise self.error(f"the {op} group needs at least one condition")
        while True:
            self.skip_ws()
            group.items.append(self.item(depth))
            self.skip_ws()
            c = self.peek()
            if c == ",":
                self.pos += 1
            elif c == ")":
                self.pos += 1
                return group
            elif not c:
                raise self.error(f"missing ')' to close the {op} group")
            else:
                raise self.error("expected ',' or ')' after a condition")

    def item(self, depth: int) -> Condition | Group:
        rest = self.text[self.pos :]
        for negate in (False, True):
            head = rest.removeprefix("not.") if negate else rest
            for op in ("and", "or"):
                if head.startswith(op) and head[len(op) :].lstrip().startswith("("):
                    self.pos += len(rest) - len(head) + len(op)
                    return self.group_body(_group_op(op), negate, depth + 1)
        start = self.pos
        column = self.token().strip()
        if not column:
            raise self.error("expected a column name or a nested and(...)/or(...)", start)
        if self.peek() != ".":
            raise self.error(f"expected '.' and an operator after {column!r}")
        if not is_valid_name(column):
            raise self.error(f"invalid column name {column!r}", start)
        self.pos += 1
        return self.condition_rest(column, in_group=True)

    # conditions

    def condition_rest(self, column: str, in_group: bool) -> Condition:
        """``[not.]op.value`` at the cursor."""
        negate = False
        op_at = self.pos
        op = self.token()
        if op == "not" and self.peek() == ".":
            negate = True
            self.pos += 1
            op_at = self.pos
            op = self.token()
        if op not in OPERATORS:
            raise self.error(
                f"unknown operator {op!r} (expected one of {', '.join(OPERATORS)})", op_at
            )
        if self.peek() != ".":
            raise self.error(f"expected '.' and a value after the operator {op!r}")
        self.pos += 1
        value: str | list[str]
        if op == "in":
            self.skip_ws()
            if self.peek() != "(":
                raise self.error("'in' needs a parenthesised list, e.g. in.(a,b)")
            value = self.list_value()
            self.skip_ws()
            if not in_group:
                self.expect_end("after the 'in' list")
        elif op == "is":
            at = self.pos
            raw = self.rest_value(in_group).strip()
            value = raw.lower()
            if value not in IS_VALUES:
                raise self.error(f"'is' takes null, true or false, not {raw!r}", at)
        elif in_group:
            value = self.group_value()
        else:
            value = self.text[self.pos :]
            self.pos = len(self.text)
        return Condition(column, op, value, negate)

    def rest_value(self, in_group: bool) -> str:
        if not in_group:
            value = self.text[self.pos :]
            self.pos = len(self.text)
            return value
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ",)":
            self.pos += 1
        return self.text[start : self.pos]

    def group_value(self) -> str:
        self.skip_ws()
        if self.peek() == '"':
            return self.quoted()
        return self.unquoted("value")

    def unquoted(self, what: str) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ",)":
            if self.text[self.pos] == "(":
                raise self.error(f"a {what} containing '(' must be double-quoted")
            self.pos += 1
        return self.text[start : self.pos].strip()

    def quoted(self) -> str:
        start = self.pos
        self.pos += 1
        out: list[str] = []
        while True:
            if self.pos >= len(self.text):
                raise self.error("missing closing '\"'", start)
            c = self.text[self.pos]
            if c == "\\":
                if self.pos + 1 >= len(self.text):
                    raise self.error("missing closing '\"'", start)
                out.append(self.text[self.pos + 1])
                self.pos += 2
            elif c == '"':
                self.pos += 1
                break
            else:
                out.append(c)
                self.pos += 1
        self.skip_ws()
        if self.peek() not in (",", ")"):
            raise self.error("expected ',' or ')' after the quoted value")
        return "".join(out)

    def list_value(self) -> list[str]:
        self.pos += 1  # "("
        values: list[str] = []
        self.skip_ws()
        if self.peek() == ")":
            self.pos += 1
            return values
        while True:
            self.skip_ws()
            values.append(self.quoted() if self.peek() == '"' else self.unquoted("list member"))
            c = self.peek()
            if c == ",":
                self.pos += 1
            elif c == ")":
                self.pos += 1
                return values
            else:
                raise self.error("missing ')' to close the 'in' list")
