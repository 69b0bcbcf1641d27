"""The desktop client's model of a Cirrus (PostgREST 12) search query.

A :class:`CirrusQuery` is a plain tree of dataclasses that the query builder edits and that
renders to, and parses from, the query parameters of ``GET /cirrus/search/<table>``:

* ``select=a,b,count,Foreign(x,y)`` -- columns (empty list: all columns, rendered as ``*`` only
  when embeds need it), ``count`` and embeds of foreign tables (``Foreign(*)`` for every column);
* ``col=[not.]op.value`` -- one parameter per condition of the top-level AND;
* ``or=(...)``, ``and=(...)``, ``not.or=(...)``, ``not.and=(...)`` -- top-level groups; inside
  them conditions are ``col.[not.]op.value`` and groups nest as ``[not.]or(...)``;
* ``order=col.asc|desc[.nullsfirst|.nullslast],...``, ``limit=N``, ``offset=N``.

Values are written raw in top-level conditions (PostgREST reads everything after ``op.``).
Inside groups and in ``in.(...)`` lists a value is double-quoted, with ``\\`` and ``"`` escaped by
a backslash, when it contains ``,``, ``(``, ``)`` or ``"``, has leading or trailing whitespace,
or (in groups) starts with ``{``; an empty ``in`` member is written ``""``. This canonical form
is what :meth:`CirrusQuery.to_params` produces, and :meth:`CirrusQuery.from_params` turns it
back into an equal tree.

Pure Python on purpose: no Qt, no HTTP client, no dependency on the node package.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

__all__ = [
    "HISTORY_PREFIX",
    "STANDARD_COLUMNS",
    "IS_VALUES",
    "MAX_DEPTH",
    "OPERATORS",
    "RESERVED_PARAMS",
    "CirrusQuery",
    "CirrusQueryError",
    "Condition",
    "Embed",
    "Group",
    "GroupOp",
    "Order",
    "QueryKind",
    "event_table",
    "history_of",
    "is_valid_name",
]

OPERATORS: tuple[str, ...] = ("eq", "neq", "lt", "lte", "gt", "gte", "like", "ilike", "in", "is")
IS_VALUES: tuple[str, ...] = ("null", "true", "false")
#: Parameter names PostgREST reads itself; a top-level condition on such a column cannot be sent.
RESERVED_PARAMS = frozenset(
    {"select", "order", "limit", "offset", "or", "and", "columns", "on_conflict"}
)
HISTORY_PREFIX = "history@"
#: Columns every contract (and history) row carries before its state variables (seed 001).
STANDARD_COLUMNS: tuple[str, ...] = (
    "address",
    "chainId",
    "record_id",
    "block_hash",
    "block_timestamp",
    "block_number",
    "transaction_hash",
    "transaction_sender",
)
#: Deepest group nesting the sandbox node accepts (PostgREST itself has no limit).
MAX_DEPTH = 16
SEARCH_PREFIX = "/cirrus/search/"

GroupOp = Literal["and", "or"]
QueryKind = Literal["contract", "history", "event"]

# PostgREST field names: letters, digits, `_`, `$`, and dashes or spaces between them.
_NAME_RE = re.compile(r"[\w$](?:[\w$ -]*[\w$])?")
_EVENT_RE = re.compile(r".+\.[A-Za-z_$][A-Za-z0-9_$]*")
# printable in URLs without confusing any query-string parser
_URL_SAFE = "(),*!:@$"


def is_valid_name(name: str) -> bool:
    """True for a column or table name that PostgREST's field-name syntax accepts unquoted."""
    return bool(_NAME_RE.fullmatch(name)) and "->" not in name


def history_of(name: str) -> str:
    """The history table of a contract table: ``history@<name>``."""
    return HISTORY_PREFIX + name


def event_table(contract: str, event: str) -> str:
    """The table of one event of a contract: ``<contract>.<event>``."""
    return f"{contract}.{event}"


class CirrusQueryError(ValueError):
    """Malformed query input (or a tree that cannot be rendered).

    ``position`` is the 0-based offset in the offending parameter value (``param``), or None when
    the problem is not tied to one character.
    """

    def __init__(
        self,
        message: str,
        position: int | None = None,
        *,
        param: str | None = None,
        text: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.param = param
        self.text = text

    def __str__(self) -> str:
        where = f"{self.param}: " if self.param is not None else ""
        if self.position is None or self.text is None:
            return where + self.message
        near = self.text[self.position : self.position + 12]
        near_desc = repr(near) if near else "end of input"
        return (
            f"{where}{self.message} (at position {self.position} of {self.text!r}, "
            f"near {near_desc})"
        )


@dataclass
class Condition:
    """``column op value``; ``value`` is a list for ``in`` and null/true/false for ``is``."""

    column: str
    op: str
    value: str | list[str] | None
    negate: bool = False


@dataclass
class Group:
    """An AND or OR of conditions and groups, optionally negated as a whole."""

    op: GroupOp
    items: list[Condition | Group] = field(default_factory=list)
    negate: bool = False


@dataclass
class Embed:
    """A foreign table joined through a contract-typed column; ``["*"]`` for all its columns.

    ``via`` names the column to join through (``Receipt!right(*)``) when the table has more than
    one column referring to ``table``; PostgREST refuses the ambiguous form with 300."""

    table: str
    columns: list[str] = field(default_factory=lambda: ["*"])
    via: str = ""

    def render(self) -> str:
        hint = f"!{self.via}" if self.via else ""
        return f"{self.table}{hint}({','.join(self.columns)})"


@dataclass
class Order:
    column: str
    desc: bool = False
    nulls_first: bool | None = None  # None: the database's default


def _new_where() -> Group:
    return Group("and", [])


@dataclass
class CirrusQuery:
    """One search of a Cirrus table (contract, ``history@`` or ``Contract.Event`` table)."""

    table: str
    select: list[str] = field(default_factory=list)  # empty: every column
    embeds: list[Embed] = field(default_factory=list)
    count: bool = False
    where: Group = field(default_factory=_new_where)  # top-level AND
    order: list[Order] = field(default_factory=list)
    limit: int | None = None
    offset: int | None = None

    history_of = staticmethod(history_of)
    event_table = staticmethod(event_table)

    # -- table --------------------------------------------------------------------------------

    @property
    def kind(self) -> QueryKind:
        if self.table.startswith(HISTORY_PREFIX):
            return "history"
        if _EVENT_RE.fullmatch(self.table):
            return "event"
        return "contract"

    def path(self) -> str:
        """``/cirrus/search/<table>`` with the table name percent-encoded."""
        return SEARCH_PREFIX + quote(self.table, safe="@")

    def url(self, base: str = "") -> str:
        """``base`` + path + query string (no ``?`` when there are no parameters)."""
        qs = self.to_query_string()
        return base.rstrip("/") + self.path() + ("?" + qs if qs else "")

    # -- rendering ----------------------------------------------------------------------------

    def to_params(self) -> list[tuple[str, str]]:
        """The query parameters in canonical form: select, filters in tree order, order, limit,
        offset. Raises :class:`CirrusQueryError` for values of the wrong type (e.g. ``in``
        without a list); other problems reported by :meth:`validate` are rendered as they are."""
        params: list[tuple[str, str]] = []
        select = self._render_select()
        if select is not None:
            params.append(("select", select))
        for item in self.where.items:
            if isinstance(item, Condition):
                params.append((item.column, _render_condition_value(item, in_group=False)))
            else:
                key = ("not." if item.negate else "") + item.op
                params.append((key, _render_group_body(item)))
        if self.order:
            params.append(("order", ",".join(_render_order(o) for o in self.order)))
        if self.limit is not None:
            params.append(("limit", str(self.limit)))
        if self.offset is not None:
            params.append(("offset", str(self.offset)))
        return params

    def to_query_string(self) -> str:
        """The parameters percent-encoded in order (spaces as ``%20``, never ``+``)."""
        return urlencode(self.to_params(), quote_via=quote, safe=_URL_SAFE)

    def _render_select(self) -> str | None:
        parts: list[str] = list(self.select)
        if not parts and self.embeds:
            parts.append("*")  # `select=Foreign(*)` alone would drop the table's own columns
        if self.count:
            parts.append("count")
        parts.extend(e.render() for e in self.embeds)
        return ",".join(parts) if parts else None

    # -- parsing ------------------------------------------------------------------------------

    @classmethod
    def from_params(cls, table: str, params: Iterable[tuple[str, str]]) -> CirrusQuery:
        """Parse query parameters (decoded key/value pairs, in order).

        Lenient where PostgREST is (whitespace around list members, group items and select
        items; ``order=col`` without a direction; ``is.NULL``; unnecessary quotes;
        ``select=count()``). A select of embeds only (``select=Owner(*)``) cannot be expressed
        by the model and widens to every column plus the embeds.
        """
        from .cirrus_parse import parse_params  # the parser builds this module's classes

        return parse_params(cls(table), params)

    @classmethod
    def from_query_string(cls, table: str, query: str) -> CirrusQuery:
        """Parse a percent-encoded query string (without the leading ``?``)."""
        return cls.from_params(table, parse_qsl(query.lstrip("?"), keep_blank_values=True))

    @classmethod
    def from_url(cls, url: str) -> CirrusQuery:
        """Parse a full URL or a path such as ``/cirrus/search/Car?price=gt.5``."""
        parts = urlsplit(url)
        at = parts.path.find(SEARCH_PREFIX)
        if at < 0:
            raise CirrusQueryError(
                f"not a Cirrus search URL (the path has no {SEARCH_PREFIX!r})", None, text=url
            )
        raw_table = parts.path[at + len(SEARCH_PREFIX) :]
        if not raw_table or "/" in raw_table:
            raise CirrusQueryError(
                f"expected one table name after {SEARCH_PREFIX!r}, got {raw_table!r}", None
            )
        return cls.from_query_string(unquote(raw_table), parts.query)

    # -- validation ---------------------------------------------------------------------------

    def validate(self) -> list[str]:
        """Readable problems that make the query invalid for PostgREST 9 (empty: valid).

        A query without problems renders to parameters that :meth:`from_params` turns back into
        an equal query.
        """
        problems: list[str] = []
        if not self.table:
            problems.append("the table name is empty")
        elif self.table == HISTORY_PREFIX:
            problems.append("the history table needs a contract name after 'history@'")
        elif "/" in self.table:
            problems.append(f"table name {self.table!r} contains '/'")
        for col in self.select:
            if col == "count":
                problems.append("select: a column named 'count' would be read as count")
            elif not is_valid_name(col):
                problems.append(f"select: invalid column name {col!r}")
        for e in self.embeds:
            if not is_valid_name(e.table):
                problems.append(f"embed: invalid table name {e.table!r}")
            if e.via and not is_valid_name(e.via):
                problems.append(f"embed {e.table!r}: invalid column name {e.via!r} after '!'")
            if not e.columns:
                problems.append(f"embed {e.table!r}: no columns (use ['*'] for all)")
            problems.extend(
                f"embed {e.table!r}: invalid column name {c!r}"
                for c in e.columns
                if c != "*" and not is_valid_name(c)
            )
        if self.count:
            if self.select or self.embeds:
                problems.append(
                    "count cannot be combined with columns or embeds (PostgREST 9 refuses it)"
                )
            if self.order:
                problems.append("count cannot be combined with order (PostgREST 9 refuses it)")
        if self.where.op != "and" or self.where.negate:
            problems.append("the top level of where must be a plain (not negated) AND group")
        for item in self.where.items:
            if isinstance(item, Condition):
                if item.column in RESERVED_PARAMS:
                    problems.append(
                        f"condition on {item.column!r}: the column name is a reserved parameter;"
                        " put the condition inside an and/or group"
                    )
                _validate_condition(item, problems)
            else:
                _validate_group(item, 1, problems)
        for o in self.order:
            if not is_valid_name(o.column):
                problems.append(f"order: invalid column name {o.column!r}")
        if self.limit is not None and self.limit < 0:
            problems.append(f"limit must not be negative (got {self.limit})")
        if self.offset is not None and self.offset < 0:
            problems.append(f"offset must not be negative (got {self.offset})")
        return problems

    @property
    def is_valid(self) -> bool:
        return not self.validate()


# -- rendering helpers ------------------------------------------------------------------------


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _needs_quotes(value: str) -> bool:
    return any(c in value for c in ',()"') or value != value.strip()


def _render_list(values: list[str]) -> str:
    return "(" + ",".join(_quote(v) if v == "" or _needs_quotes(v) else v for v in values) + ")"


def _render_condition_value(c: Condition, in_group: bool) -> str:
    prefix = "not." if c.negate else ""
    if c.op == "in":
        if not isinstance(c.value, list):
            raise CirrusQueryError(f"condition on {c.column!r}: 'in' needs a list of values")
        body = _render_list(c.value)
    else:
        if not isinstance(c.value, str):
            raise CirrusQueryError(f"condition on {c.column!r}: {c.op!r} needs a single text value")
        body = c.value
        if in_group and c.op != "is" and (_needs_quotes(body) or body.startswith("{")):
            body = _quote(body)
    return f"{prefix}{c.op}.{body}"


def _render_item(item: Condition | Group) -> str:
    if isinstance(item, Condition):
        return f"{item.column}.{_render_condition_value(item, in_group=True)}"
    return ("not." if item.negate else "") + item.op + _render_group_body(item)


def _render_group_body(group: Group) -> str:
    return "(" + ",".join(_render_item(i) for i in group.items) + ")"


def _render_order(o: Order) -> str:
    text = o.column + (".desc" if o.desc else ".asc")
    if o.nulls_first is not None:
        text += ".nullsfirst" if o.nulls_first else ".nullslast"
    return text


# -- validation helpers -----------------------------------------------------------------------


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _validate_condition(c: Condition, problems: list[str]) -> None:
    what = f"condition on {c.column!r}"
    if not c.column:
        problems.append("condition with an empty column name")
    elif not is_valid_name(c.column):
        problems.append(f"{what}: invalid column name")
    if c.op not in OPERATORS:
        problems.append(
            f"{what}: unknown operator {c.op!r} (expected one of {', '.join(OPERATORS)})"
        )
        return
    if c.op == "in":
        if not isinstance(c.value, list):
            problems.append(f"{what}: 'in' needs a list of values")
        elif not all(isinstance(v, str) and _encodable(v) for v in c.value):
            problems.append(f"{what}: 'in' values must be text")
    elif c.value is None:
        problems.append(f"{what}: missing value")
    elif not isinstance(c.value, str):
        problems.append(f"{what}: {c.op!r} takes one value, not a list")
    elif c.op == "is" and c.value not in IS_VALUES:
        problems.append(f"{what}: 'is' takes null, true or false (got {c.value!r})")
    elif not _encodable(c.value):
        problems.append(f"{what}: the value is not valid text")


def _validate_group(g: Group, depth: int, problems: list[str]) -> None:
    if g.op not in ("and", "or"):
        problems.append(f"unknown group operator {g.op!r} (expected and or or)")
    if depth > MAX_DEPTH:
        problems.append(f"groups nested more than {MAX_DEPTH} levels deep")
        return
    if not g.items:
        problems.append(f"empty {g.op} group")
    for item in g.items:
        if isinstance(item, Condition):
            _validate_condition(item, problems)
        else:
            _validate_group(item, depth + 1, problems)
