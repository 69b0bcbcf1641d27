"""What the filter builder knows about Cirrus tables: names, kinds, column types, join targets.

PostgREST serves an OpenAPI (Swagger 2.0) description of every table at its root
(``GET /cirrus/search/``): ``definitions.<table>.properties.<column>`` with ``type`` and
``format`` (the PostgreSQL type), and a description that names the foreign key of a
contract-typed column (``<fk table='Owner' column='record_id'/>``). A node that does not expose
it still answers searches: the types of a table's columns are then guessed from rows
(:func:`infer_columns`).

Pure Python: no Qt, no HTTP.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .cirrus_query import HISTORY_PREFIX, QueryKind, is_valid_name

__all__ = [
    "ColumnInfo",
    "ColumnType",
    "TableInfo",
    "infer_columns",
    "operators_for",
    "parse_openapi",
    "table_kind",
]

ColumnType = Literal["text", "number", "boolean", "json", "unknown"]

_FK_RE = re.compile(r"<fk table='([^']+)' column='([^']+)'/>")
_EVENT_RE = re.compile(r".+\.[A-Za-z_$][A-Za-z0-9_$]*")
_NUMERIC_FORMATS = {
    "numeric",
    "decimal",
    "integer",
    "bigint",
    "smallint",
    "real",
    "double precision",
}

# Operators offered for each column type, the usual choice first (as Supabase Studio does:
# text defaults to ilike). ``in`` and ``is`` apply to all; comparisons of text are lexical.
_OPS: dict[ColumnType, tuple[str, ...]] = {
    "text": ("ilike", "like", "eq", "neq", "in", "is", "lt", "lte", "gt", "gte"),
    "number": ("eq", "neq", "gt", "gte", "lt", "lte", "in", "is"),
    "boolean": ("is", "eq", "neq"),
    "json": ("is",),
    "unknown": ("eq", "neq", "ilike", "like", "in", "is", "lt", "lte", "gt", "gte"),
}


def operators_for(kind: ColumnType) -> tuple[str, ...]:
    """The filter operators that make sense on a column of this type."""
    return _OPS[kind]


def table_kind(name: str) -> QueryKind:
    """``history`` for ``history@X``, ``event`` for ``X.Event``, else ``contract``."""
    if name.startswith(HISTORY_PREFIX):
        return "history"
    if _EVENT_RE.fullmatch(name):
        return "event"
    return "contract"


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    type: ColumnType = "unknown"
    format: str = ""  # the database's own type name, when the node says
    ref: str | None = None  # the table a contract-typed column points to (join target)


@dataclass
class TableInfo:
    name: str
    columns: list[ColumnInfo] = field(default_factory=list)
    inferred: bool = False  # column types were guessed from rows, not read from the node

    @property
    def kind(self) -> QueryKind:
        return table_kind(self.name)

    def column(self, name: str) -> ColumnInfo | None:
        return next((c for c in self.columns if c.name == name), None)

    @property
    def joins(self) -> list[ColumnInfo]:
        """Columns that can be embedded (``Foreign(*)``): contract-typed ones."""
        return [c for c in self.columns if c.ref]


def _column_type(typ: str, fmt: str) -> ColumnType:
    fmt = fmt.lower()
    if typ == "boolean" or fmt == "boolean":
        return "boolean"
    if typ in ("number", "integer") or fmt in _NUMERIC_FORMATS:
        return "number"
    if fmt in ("json", "jsonb") or typ in ("object", "array"):
        return "json"
    if typ == "string" or fmt in ("text", "character varying", "character"):
        return "text"
    return "unknown"


def parse_openapi(doc: Any) -> dict[str, TableInfo]:
    """Tables of a PostgREST root document; anything that is not one gives no tables."""
    if not isinstance(doc, Mapping):
        return {}
    defs = doc.get("definitions")
    if not isinstance(defs, Mapping):
        return {}
    out: dict[str, TableInfo] = {}
    for name, d in defs.items():
        if not isinstance(name, str) or not name or not isinstance(d, Mapping):
            continue
        props = d.get("properties")
        columns: list[ColumnInfo] = []
        if isinstance(props, Mapping):
            for col, p in props.items():
                if not isinstance(col, str) or not isinstance(p, Mapping):
                    continue
                typ = str(p.get("type") or "")
                fmt = str(p.get("format") or "")
                m = _FK_RE.search(str(p.get("description") or ""))
                columns.append(
                    ColumnInfo(col, _column_type(typ, fmt), fmt, m.group(1) if m else None)
                )
        out[name] = TableInfo(name, columns)
    return out


def _value_type(v: Any) -> ColumnType:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, (dict, list)):
        return "json"
    if isinstance(v, str):
        return "text"
    return "unknown"


def infer_columns(rows: Iterable[Mapping[str, Any]]) -> list[ColumnInfo]:
    """Columns and their likely types from sample rows (nulls tell nothing; mixed -> unknown).

    Embedded rows (a dict under a table name) are skipped: they are joins, not columns."""
    seen: dict[str, ColumnType | None] = {}
    for r in rows:
        for k, v in r.items():
            if not is_valid_name(k) or isinstance(v, dict):
                continue
            t = None if v is None else _value_type(v)
            prev = seen.get(k)
            if k not in seen or prev is None:
                seen[k] = t
            elif t is not None and t != prev:
                seen[k] = "unknown"
    return [ColumnInfo(k, t or "unknown") for k, t in seen.items()]
