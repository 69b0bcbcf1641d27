"""STRATO 16's Cirrus names beside the seed's: the global tables and the typed views.

STRATO 16 (slipstream) keeps every contract's data in global tables (``storage``, ``contract``,
``mapping``, ``event``, ``event_array``, ``history@storage``, ``history@mapping``) and serves
typed views over them, ``<creator>-<Contract>`` (index view), ``<creator>-<Contract>-<var>``
(collection view), ``<creator>-<Contract>-<Event>`` and ``<creator>-<Contract>-<Event>-<arg>``
(see ``docs/solidvm.md`` and the README's Cirrus section for the encodings).

Here the global tables are SQLite tables (``cirrus16:<name>``) and a view is a parenthesised
``SELECT`` the query engine uses as its table (:class:`Table16`): its ``rowid`` column is the
source row's, so ordering, paging and counting work as on the seed's tables. Every table carries
a ``_chain`` column (not listed) by which private-chain rows are filtered per user, as the seed's
tables are. The registry of views is kept in ``cirrus16_views`` (what each view selects) and
``cirrus16_lineage`` (which contract names a base view lists: its own and its descendants').
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..solidvm.defs import ContractDef
from ..solidvm.types import (
    ArrayType,
    BoolType,
    ContractType,
    DecimalType,
    IntType,
    MappingType,
    Type,
    VariadicType,
)
from . import mapping16
from .backend import EXTENSION_KEY, CirrusBackend, Table, quote
from .mapping16 import HIDDEN_VALUES, MappingLayout, bounds
from .query import Filter, Query
from .relations import Relationship, follows, qualified
from .values import Column

BLOCKAPPS = "BlockApps"
PHYSICAL = "cirrus16:"
INDEX_BASE = ["address", "block_hash", "block_timestamp", "block_number", "creator"]
INDEX_BASE.append("contract_name")
EVENT_BASE = ["id", "address", "block_hash", "block_timestamp", "block_number"]
EVENT_BASE += ["transaction_sender", "event_index", "creator", "contract_name"]

# name -> (columns as (name, kind), DDL after the columns)
GLOBALS: dict[str, list[tuple[str, str]]] = {
    "storage": [
        ("address", "text"),
        ("block_hash", "text"),
        ("block_timestamp", "text"),
        ("block_number", "serial"),
        ("data", "json"),
    ],
    "contract": [("address", "text"), ("creator", "text"), ("contract_name", "text")],
    "mapping": [
        ("address", "text"),
        ("block_hash", "text"),
        ("block_timestamp", "text"),
        ("block_number", "text"),
        ("collection_name", "text"),
        ("collection_type", "text"),
        ("key", "json"),
        ("path", "text"),
        ("value", "json"),
    ],
    "event": [
        ("id", "serial"),
        ("address", "text"),
        ("block_hash", "text"),
        ("block_timestamp", "text"),
        ("block_number", "text"),
        ("transaction_sender", "text"),
        ("event_index", "serial"),
        ("event_name", "text"),
        ("attributes", "json"),
    ],
    "event_array": [
        ("address", "text"),
        ("block_hash", "text"),
        ("block_timestamp", "text"),
        ("block_number", "text"),
        ("transaction_sender", "text"),
        ("event_name", "text"),
        ("event_index", "serial"),
        ("collection_name", "text"),
        ("collection_type", "text"),
        ("key", "json"),
        ("value", "json"),
    ],
}
GLOBALS["history@storage"] = [
    *[(n, "text") for n, _ in GLOBALS["storage"][:4]],
    ("data", "json"),
    ("valid_from", "text"),
    ("valid_to", "text"),
]
GLOBALS["history@mapping"] = [
    *[(n, "text") for n, _ in GLOBALS["mapping"]],
    ("valid_from", "text"),
    ("valid_to", "text"),
]
GLOBALS["history@mapping"][6] = ("key", "json")
GLOBALS["history@mapping"][8] = ("value", "json")


def physical(name: str) -> str:
    return quote(PHYSICAL + name)


def lit(text: str) -> str:
    """An SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


# valid_from/valid_to as PostgreSQL's `timestamp` prints: "2025-01-15T10:20:30"
_VALID = "replace(substr(NEW.block_timestamp, 1, 19), ' ', 'T')"

# A history row's valid_to is the valid_from of the next version of the same row (see
# HISTORY_SOURCES): nothing is updated when a value changes and the history tables need no index,
# so a change costs one appended row. Data dirs from before keep working: what they stored in
# valid_to is not read, and their indexes and closing triggers are dropped on start.
DROPPED = [
    "history@storage:open",
    "history@mapping:open",
    "storage:history:update",
    "storage:history:insert",
    "mapping:history:update",
    "mapping:history:insert",
    "mapping:version:update",
    "mapping:version:insert",
]

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {physical("storage")} (address TEXT NOT NULL, block_hash TEXT,
  block_timestamp TEXT, block_number INTEGER, data TEXT, _chain TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (address, _chain));
CREATE TABLE IF NOT EXISTS {physical("contract")} (address TEXT NOT NULL, creator TEXT NOT NULL,
  contract_name TEXT NOT NULL, _chain TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (address, creator, contract_name, _chain));
CREATE INDEX IF NOT EXISTS {quote(PHYSICAL + "contract:name")}
  ON {physical("contract")} (creator, contract_name);
CREATE TABLE IF NOT EXISTS {physical("mapping")} (address TEXT NOT NULL, block_hash TEXT,
  block_timestamp TEXT, block_number TEXT, collection_name TEXT, collection_type TEXT,
  key TEXT, path TEXT NOT NULL, value TEXT, _chain TEXT NOT NULL DEFAULT '', _k1,
  _shown INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (address, path, _chain));
CREATE TABLE IF NOT EXISTS {physical("event")} (id INTEGER PRIMARY KEY,
  address TEXT, block_hash TEXT, block_timestamp TEXT, block_number TEXT,
  transaction_sender TEXT, event_index INTEGER, event_name TEXT, attributes TEXT,
  _chain TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS {quote(PHYSICAL + "event:name")}
  ON {physical("event")} (event_name, address);
CREATE TABLE IF NOT EXISTS {physical("event_array")} (address TEXT, block_hash TEXT,
  block_timestamp TEXT, block_number TEXT, transaction_sender TEXT, event_name TEXT,
  event_index INTEGER, collection_name TEXT, collection_type TEXT, key TEXT, value TEXT,
  _chain TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS {quote(PHYSICAL + "event_array:name")}
  ON {physical("event_array")} (event_name, collection_name);
CREATE TABLE IF NOT EXISTS {physical("history@storage")} (address TEXT, block_hash TEXT,
  block_timestamp TEXT, block_number TEXT, data TEXT, valid_from TEXT, valid_to TEXT,
  _chain TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS {physical("history@mapping")} (address TEXT, block_hash TEXT,
  block_timestamp TEXT, block_number TEXT, collection_name TEXT, collection_type TEXT,
  key TEXT, path TEXT, value TEXT, valid_from TEXT, valid_to TEXT,
  _chain TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS cirrus16_views (name TEXT PRIMARY KEY, columns TEXT NOT NULL,
  source TEXT NOT NULL, counted TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS cirrus16_lineage (creator TEXT NOT NULL, contract TEXT NOT NULL,
  base TEXT NOT NULL, PRIMARY KEY (creator, base, contract));
"""

# the history tables hold a row per version of a storage or mapping row, as the platform's
# triggers fill them (valid_to is derived when read, see HISTORY_SOURCES); history@storage by
# trigger, history@mapping by the indexer (indexer16.write_mapping: much cheaper per row)
HISTORIES = {"storage": "address, _chain", "mapping": "address, path, _chain"}
TRIGGERS = [
    ("storage", "address, _chain", "address, block_hash, block_timestamp, block_number, data")
]


def trigger_sql() -> str:
    out = []
    for table, _row, cols in TRIGGERS:
        news = ", ".join(f"NEW.{c.strip()}" for c in cols.split(","))
        hist = physical(f"history@{table}")
        for when in ("INSERT", "UPDATE"):
            name = quote(f"{PHYSICAL}{table}:version:{when.lower()}")
            # a block that wrote only an address's collections leaves its data as it was: the
            # platform adds a history row holding the same data, the sandbox none (cheaper)
            cond = (
                " WHEN NEW.data IS NOT OLD.data" if (table, when) == ("storage", "UPDATE") else ""
            )
            out.append(
                f"CREATE TRIGGER IF NOT EXISTS {name} AFTER {when} ON {physical(table)}{cond} "
                f"BEGIN INSERT INTO {hist} ({cols}, valid_from, valid_to, _chain) "
                f"VALUES ({news}, {_VALID}, 'infinity', NEW._chain); END;"
            )
    return "\n".join(out)


def history_source(table: str) -> str:
    """What ``history@<table>`` is read from: its rows, each valid until the next version of
    the same row (by address, path for mapping, and chain) begins, else ``infinity``."""
    row = HISTORIES[table]
    cols = ", ".join(f"h.{c}" for c, _ in GLOBALS[f"history@{table}"] if c != "valid_to")
    return (
        f"(SELECT h.rowid AS rowid, h._chain AS _chain, {cols}, coalesce(lead(h.valid_from) "
        f"OVER (PARTITION BY {', '.join('h.' + c.strip() for c in row.split(','))} "
        f"ORDER BY h.rowid), 'infinity') AS valid_to FROM {physical(f'history@{table}')} h)"
    )


HISTORY_SOURCES = {f"history@{t}": history_source(t) for t in HISTORIES}


@dataclass
class Table16(Table):
    """A STRATO 16 table or view: ``source`` is what the engine reads it from."""

    source: str = ""
    # a collection view: what counts its rows without reading them (mapping16.py), as a
    # parenthesised SELECT of `_chain` and `n` (rows) that the chain clause can filter
    count_source: str = ""
    # contract-typed columns -> the index view their `<col>_fkey` embeds (STRATO 16's computed
    # relationships); the value of a collection view of contracts is `value`
    fkeys: dict[str, str] = field(default_factory=dict)

    @property
    def sql_name(self) -> str:
        """A view is a parenthesised SELECT, named (by ``qualifier``) for correlated clauses."""
        return f"{self.source} AS {self.qualifier}" if self.is_view else self.source

    @property
    def is_view(self) -> bool:
        return self.source.startswith("(")

    @property
    def qualifier(self) -> str:
        return quote(PHYSICAL + "view:" + self.name) if self.is_view else self.source

    def aliased(self, alias: str) -> str:
        return f"{self.source} AS {alias}"

    @property
    def base(self) -> str:
        """The global table its rows come from (a global table's own name)."""
        if self.source.startswith("(SELECT "):  # a view: "(SELECT <alias>.rowid ..."
            return VIEW_SOURCES.get(self.source[len("(SELECT ")], self.name)
        return self.name

    @property
    def chain_column(self) -> str:
        return "_chain"

    def counted(self, by_address: bool = False) -> str:
        if by_address:  # the kept counts are by contract: their address, for the filter
            return self.count_source.replace(
                "SELECT k._chain AS _chain,", "SELECT k._chain AS _chain, k.address AS address,", 1
            )
        return self.count_source

    @property
    def keyed(self) -> bool:
        return bool(self.count_source)  # a collection view

    def order_hint(self, q: Query) -> str:
        """A collection view ordered by ``value`` (then its key) of one contract (an
        ``address=eq.`` filter): the collection's name as a condition, so that ``mapping``'s
        by-value index (mapping16.BY_VALUE) gives the rows in order, ``limit`` of them read,
        no sort. Without the address filter the index would walk the whole collection in
        address order and sort it (10 times slower than the range's scan): no hint then."""
        if not self.count_source or not q.order or q.order[0].column != "value":
            return ""
        by_address = any(
            isinstance(f, Filter) and f.column == "address" and f.op == "eq" and not f.negate
            for f in q.where.items
        )
        if q.where.op != "and" or not by_address:
            return ""
        m = _COUNTED_NAME.search(self.count_source)
        return f'"collection_name" = {m[0].partition(" = ")[2]}' if m else ""

    def range_hint(self, q: Query, limit: int, db: sqlite3.Connection) -> str:
        """``mapping`` filtered on ``collection_name``: that name's range of rowids
        (mapping16.py), unless an ``address`` filter picks few of its rows, which the address
        index then finds faster. Reading the range in order stops at the page's end; the
        address index reads every row of the address and sorts them (a token holding most of a
        collection: 37 ms for 20 rows at 150,000 holders)."""
        if self.name != "mapping" or q.order or q.count or q.embeds:
            return ""
        eq = {
            f.column: f.value
            for f in q.where.items
            if isinstance(f, Filter) and f.op == "eq" and not f.negate
        }
        name = eq.get("collection_name")
        if q.where.op != "and" or not isinstance(name, str):
            return ""
        row = db.execute("SELECT id FROM cirrus16_collections WHERE name = ?", (name,)).fetchone()
        if row is None:
            return ""
        address = eq.get("address")
        if isinstance(address, str):
            (mine, total) = db.execute(
                f"SELECT coalesce(sum(n * (address = ?)), 0), coalesce(sum(n), 0) FROM "
                f"{mapping16.COUNTS} WHERE collection_name = ?",
                (address, name),
            ).fetchone()
            # the range reads about limit * total / mine rows, the index mine (and sorts them)
            if mine * mine <= limit * total:
                return ""
        lo, hi = bounds(int(row[0]))
        return f"rowid BETWEEN {lo} AND {hi}"


# ------------------------------------------------------------ view definitions


def sql_kind(t: Type, event: bool = False) -> str:
    """The column kind of a declared type in a view (numeric, boolean, jsonb or text)."""
    if isinstance(t, IntType | DecimalType):
        return "decimal" if isinstance(t, DecimalType) else "int"
    if isinstance(t, BoolType):
        return "bool"
    if isinstance(t, VariadicType) or (event and isinstance(t, ArrayType)):
        return "json"
    return "text"


def extract(column: str, key: str, kind: str) -> str:
    """A typed value read from a stored JSON object of strings (``storage.data``,
    ``event.attributes``), with the view's default when it is missing."""
    raw = f"json_extract(substr({column}, 2), {lit('$.' + json.dumps(key))})"
    if kind == "int":
        return f"cirrus_int({raw})"
    if kind == "decimal":
        return f"coalesce({raw}, '0')"
    if kind == "bool":
        return f"coalesce({raw} = 'true', 0)"
    if kind == "json":
        return f"'1' || coalesce({raw}, '')"
    return f"coalesce({raw}, '')"


def owned(alias: str, creator: str, contract: str, probe: bool = False) -> str:
    """The rows of addresses stamped with ``contract`` or a descendant, under ``creator``
    (one row per source row: the platform's join repeats a row per matching stamp). The stamps
    are read once per query into a set that each row probes; ``probe``: only that (SQLite
    may not read the rows through an index on the address instead)."""
    plus = "+" if probe else ""
    return (
        f"({plus}{alias}.address, {plus}{alias}._chain) IN (SELECT c.address, c._chain FROM "
        f"{physical('contract')} c WHERE c.creator = {lit(creator)} AND c.contract_name IN "
        f"(SELECT contract FROM cirrus16_lineage WHERE creator = {lit(creator)} "
        f"AND base = {lit(contract)}))"
    )


def stamped_name(alias: str, creator: str, contract: str) -> str:
    """The row's ``contract_name``: the latest matching stamp (the most derived contract)."""
    return (
        f"(SELECT c.contract_name FROM {physical('contract')} c WHERE c.address = "
        f"{alias}.address AND c._chain = {alias}._chain AND c.creator = {lit(creator)} AND "
        f"c.contract_name IN (SELECT contract FROM cirrus16_lineage WHERE creator = "
        f"{lit(creator)} AND base = {lit(contract)}) ORDER BY c.rowid DESC LIMIT 1)"
    )


def renamed(name: str, taken: list[str]) -> str:
    return f"arg_{name}" if name in taken else name


# name, columns (name, kind[, index view a contract-typed column's `_fkey` embeds]), source,
# count source (collection views: see Table16.count_source; else "")
View = tuple[str, list[tuple[str, ...]], str, str]


# global table -> the global table its rows' address refers to (the platform's foreign keys)
REFERS_TO = {"mapping": "storage", "event": "storage", "contract": "storage"}
# the alias each kind of view gives its global table (see _view)
VIEW_SOURCES = {"s": "storage", "m": "mapping", "e": "event", "a": "event_array"}


def fkey_target16(t: Table16, column: str) -> tuple[str, ...]:
    return (t.fkeys[column],) if column in t.fkeys else ()


def fkey_target(creator: str, t: Type) -> tuple[str, ...]:
    """The extra member of a contract-typed column: the view its ``_fkey`` embeds."""
    return (f"{creator}-{t.name}",) if isinstance(t, ContractType) else ()


def index_view(creator: str, cdef: ContractDef) -> View:
    cols: list[tuple[str, ...]] = [
        ("address", "text"),
        ("block_hash", "text"),
        ("block_timestamp", "text"),
        ("block_number", "serial"),
        ("creator", "text"),
        ("contract_name", "text"),
    ]
    exprs = [
        "s.address",
        "s.block_hash",
        "s.block_timestamp",
        "s.block_number",
        lit(creator),
        stamped_name("s", creator, cdef.name),
    ]
    for sv in cdef.state_vars:
        if sv.constant or isinstance(sv.type, ArrayType | MappingType):
            continue
        kind = sql_kind(sv.type)
        cols.append((renamed(sv.name, INDEX_BASE), kind, *fkey_target(creator, sv.type)))
        exprs.append(extract("s.data", sv.name, kind))
    return _view(f"{creator}-{cdef.name}", cols, exprs, "s", "storage", [], creator, cdef.name)


def _view(
    name: str,
    cols: list[tuple[str, ...]],
    exprs: list[str],
    alias: str,
    source: str,
    where: list[str],
    creator: str,
    contract: str,
    rowid: str = "rowid",
) -> View:
    picked = ", ".join(f"{e} AS {quote(c[0])}" for c, e in zip(cols, exprs, strict=True))
    cond = " AND ".join([*where, owned(alias, creator, contract)])
    sql = (
        f"(SELECT {alias}.{rowid} AS rowid, {alias}._chain AS _chain, {picked} "
        f"FROM {physical(source)} {alias} WHERE {cond})"
    )
    return name, cols, sql, ""


def collection_source(picked: str, cid: int, own: str) -> str:
    """A collection view's rows: the range of rowids of its collection name (mapping16.py),
    those shown (``_shown``: the value is not one a view hides, cheaper to test than the value),
    of its contracts (``own``: :func:`owned` of alias ``m``, probing: its unary ``+`` keeps
    SQLite reading the range, in the order of its rowids, rather than the address index)."""
    lo, hi = bounds(cid)
    return (
        f"(SELECT m.rowid AS rowid, m._chain AS _chain, {picked} FROM {physical('mapping')} m "
        f"WHERE m.rowid BETWEEN {lo} AND {hi} AND m._shown AND {own})"
    )


_COUNTED_NAME = re.compile(r"k\.collection_name = '(?:[^']|'')*'")


def count_source(var: str, own: str) -> str:
    """What counts a collection view's rows: its contracts' counts (``own``: :func:`owned`
    of alias ``k``)."""
    return (
        f"(SELECT k._chain AS _chain, k.n AS n FROM {mapping16.COUNTS} k WHERE "
        f"k.collection_name = {lit(var)} AND {own})"
    )


# a collection view as written before mapping16's layout (rewritten at start, see Strato16)
_OLD_COLLECTION = re.compile(
    r"\(SELECT m\.rowid AS rowid, m\._chain AS _chain, (?P<picked>.*?) FROM "
    + re.escape(physical("mapping"))
    + r" m WHERE m\.collection_name = '(?P<var>(?:[^']|'')*)' AND m\.value NOT IN "
    + re.escape(HIDDEN_VALUES)
    + r" AND (?P<own>\(m\.address, m\._chain\) IN .*)\)\Z",
    re.S,
)


def rewritten(source: str, cid_of: Callable[[str], int]) -> tuple[str, str] | None:
    """A collection view's source and count source in mapping16's layout, when ``source``
    is one written before it (else None)."""
    m = _OLD_COLLECTION.match(source)
    if m is None:
        return None
    var = m["var"].replace("''", "'")
    own = m["own"]
    own_k = own.replace("(m.address, m._chain)", "(k.address, k._chain)", 1)
    own_m = own.replace("(m.address, m._chain)", "(+m.address, +m._chain)", 1)
    return collection_source(m["picked"], cid_of(var), own_m), count_source(var, own_k)


def collection_views(creator: str, cdef: ContractDef, cid_of: Callable[[str], int]) -> list[View]:
    out = []
    for sv in cdef.state_vars:
        t = sv.type
        if sv.constant or not isinstance(t, ArrayType | MappingType):
            continue
        keys: list[Type] = []
        while isinstance(t, ArrayType | MappingType):
            if isinstance(t, MappingType):
                keys.append(t.key)
                t = t.value
            else:
                keys.append(IntType(False))
                t = t.elem
        cols: list[tuple[str, ...]] = [
            ("address", "text"),
            ("block_hash", "text"),
            ("block_timestamp", "text"),
            ("block_number", "text"),
            ("collection_name", "text"),
            ("collection_type", "text"),
            ("value", "json", *fkey_target(creator, t)),
        ]
        exprs = [f"m.{c[0]}" for c in cols]
        for i, kt in enumerate(keys):
            kname = "key" if i == 0 else f"key{i + 1}"
            kind = sql_kind(kt)
            cols.append((kname, "decimal" if kind == "decimal" else kind))
            exprs.append("m._k1" if i == 0 else extract("m.key", kname, kind))
        picked = ", ".join(f"{e} AS {quote(c[0])}" for c, e in zip(cols, exprs, strict=True))
        source = collection_source(
            picked, cid_of(sv.name), owned("m", creator, cdef.name, probe=True)
        )
        counted = count_source(sv.name, owned("k", creator, cdef.name))
        out.append((f"{creator}-{cdef.name}-{sv.name}", cols, source, counted))
    return out


def event_views(creator: str, cdef: ContractDef) -> list[View]:
    out = []
    for ev in cdef.events.values():
        # the event table's columns up to event_index, then the contract's
        cols: list[tuple[str, ...]] = [*GLOBALS["event"][:7], ("creator", "text")]
        cols.append(("contract_name", "text"))
        exprs = [f"e.{c[0]}" for c in cols[:7]]
        exprs += [lit(creator), stamped_name("e", creator, cdef.name)]
        arrays = []
        for i, (pname, pt, _) in enumerate(ev.params):
            arg = pname or f"val_{i + 1}"
            kind = sql_kind(pt, event=True)
            cols.append((renamed(arg, EVENT_BASE), kind, *fkey_target(creator, pt)))
            exprs.append(extract("e.attributes", arg, kind))
            if isinstance(pt, ArrayType):
                arrays.append(arg)
        name = f"{creator}-{cdef.name}-{ev.name}"
        where = [f"e.event_name = {lit(ev.name)}"]
        out.append(_view(name, cols, exprs, "e", "event", where, creator, cdef.name, "id"))
        for arg in arrays:
            acols: list[tuple[str, ...]] = list(GLOBALS["event_array"])
            aexprs = [f"a.{c[0]}" for c in acols]
            awhere = [f"a.event_name = {lit(ev.name)}", f"a.collection_name = {lit(arg)}"]
            out.append(
                _view(
                    f"{name}-{arg}", acols, aexprs, "a", "event_array", awhere, creator, cdef.name
                )
            )
    return out


def fkey(t: Table16, column: str, target: str) -> Relationship:
    """``<column>_fkey``: the target's row whose address the column holds (a JSON string in a
    collection view's ``value``), on the same chain, as an object."""

    def keys(q: str) -> list[str]:
        v = qualified(q, column)
        if t.columns[column].kind == "json":  # stored JSON: a string is "1" + its text
            v = f"CASE WHEN substr({v}, 1, 1) = '1' THEN substr({v}, 2) END"
        return [v, qualified(q, "_chain")]

    return Relationship(t.name, target, f"{column}_fkey", True, keys, ("address", "_chain"), column)


# ------------------------------------------------------------ the registry


class Strato16:
    """The STRATO 16 tables and views, as the backend's extension (see backend.Extension)."""

    def __init__(self, backend: CirrusBackend, only: bool = False) -> None:
        self.backend = backend
        self.only = only
        self.db = backend.db
        drops = "".join(
            f"DROP {'INDEX' if n.startswith('history@') else 'TRIGGER'} IF EXISTS "
            f"{quote(PHYSICAL + n)};\n"
            for n in DROPPED
        )
        had_counts = self.db.execute(
            "SELECT 1 FROM sqlite_schema WHERE name = 'cirrus16:mapping_count'"
        ).fetchone()
        self.db.executescript(drops + SCHEMA + trigger_sql())
        self.layout = MappingLayout(self.db)
        self._migrate(had_counts is not None)
        self.tables: dict[str, Table16] = {}
        self.published: dict[str, Table16] | None = None
        self._changed = True  # tables differ from the published ones
        self._registered: dict[tuple[str, str], ContractDef] = {}  # (creator, name) -> def
        self.reload()
        backend.extension = self
        backend.relation_sources.append(lambda _schema, t, name: self.relationships(t, name))

    def _migrate(self, had_counts: bool) -> None:
        """A data dir from before mapping16's layout: its rows renumbered, its collection
        views' SQL rewritten (the same rows, read from their range), in one transaction."""
        db = self.db
        cols = [r[1] for r in db.execute("PRAGMA table_info(cirrus16_views)")]
        own = not db.in_transaction
        if own:
            db.execute("BEGIN")
        try:
            if "counted" not in cols:
                db.execute("ALTER TABLE cirrus16_views ADD COLUMN counted TEXT NOT NULL DEFAULT ''")
            mapping16.migrate(db, had_counts)  # creates mapping16.SCHEMA
            for name, source in db.execute(
                "SELECT name, source FROM cirrus16_views WHERE counted = ''"
            ).fetchall():
                new = rewritten(source, self.layout.collection_id)
                if new is not None:
                    db.execute(
                        "UPDATE cirrus16_views SET source = ?, counted = ? WHERE name = ?",
                        (*new, name),
                    )
        except BaseException:
            if own:
                db.execute("ROLLBACK")
            self.layout.reset()
            raise
        if own:
            db.execute("COMMIT")

    def reload(self) -> None:
        tables: dict[str, Table16] = {}
        for name, cols in GLOBALS.items():
            tables[name] = self._table(name, cols, HISTORY_SOURCES.get(name, physical(name)))
        try:
            rows = self.db.execute(
                "SELECT name, columns, source, counted FROM cirrus16_views"
            ).fetchall()
        except sqlite3.OperationalError:
            rows = []
        for name, cols, source, counted in rows:
            tables[name] = self._table(name, [tuple(c) for c in json.loads(cols)], source, counted)
        self.tables = tables
        self._registered.clear()
        self.layout.reset()  # after a rollback: nothing cached that it undid
        self._changed = True

    @staticmethod
    def _table(name: str, cols: list[Any], source: str, counted: str = "") -> Table16:
        t = Table16(name, "strato16", source=source, count_source=counted)
        for c, kind, *fkey in cols:
            t.columns[c] = Column(c, kind)
            if fkey:
                t.fkeys[c] = fkey[0]
        return t

    def publish(self, force: bool = False) -> None:
        """Readers see the views registered so far (``force``: even if a publish raced with
        a registration on another thread, see behind16.py)."""
        if force or self._changed or self.published is None:
            self.published = dict(self.tables)
            self._changed = False

    def listed(self) -> dict[str, Table]:
        return dict(self.tables if self.published is None else self.published)

    def lookup(self, name: str) -> Table | None:
        schema = self.tables if self.published is None else self.published
        return schema.get(name.removeprefix(EXTENSION_KEY))

    def register(self, creator: str, cdef: ContractDef) -> None:
        """The views of contract ``cdef`` in a code collection registered by ``creator`` (and
        its name among the names its bases' views list). A later registration of the same
        name replaces the views, as the platform's DROP VIEW + CREATE VIEW does."""
        key = (creator, cdef.name)
        if self._registered.get(key) is cdef:
            return
        self._registered[key] = cdef
        self.db.executemany(
            "INSERT OR IGNORE INTO cirrus16_lineage (creator, contract, base) VALUES (?, ?, ?)",
            [(creator, cdef.name, b.name) for b in cdef.linearization],
        )
        views = [index_view(creator, cdef)]
        views += collection_views(creator, cdef, self.layout.collection_id)
        views += event_views(creator, cdef)  # after the collections: an event wins a name
        for name, cols, source, counted in views:
            old = self.tables.get(name)
            if (
                old is not None
                and old.source == source
                and old.count_source == counted
                and [(c.name, c.kind, *fkey_target16(old, c.name)) for c in old.columns.values()]
                == cols
            ):
                continue
            if name in GLOBALS:
                continue
            self.db.execute(
                "INSERT OR REPLACE INTO cirrus16_views (name, columns, source, counted) "
                "VALUES (?, ?, ?, ?)",
                (name, json.dumps(cols), source, counted),
            )
            self.tables[name] = self._table(name, cols, source, counted)
            self._changed = True

    def clear_rows(self) -> None:
        """Empty the global tables (their views stay registered): before rebuilding them from
        state, after a run that did not write them (``serve --cirrus-names seed``)."""
        for name in GLOBALS:
            self.db.execute(f"DELETE FROM {physical(name)}")
        self.db.execute(f"DELETE FROM {mapping16.COUNTS}")

    def relationships(self, t: Table, name: str) -> list[Relationship]:
        """The relationships from ``t`` (a STRATO 16 table or view) to what ``name`` embeds
        (reference §6). ``event``, ``mapping`` and ``contract`` rows refer to the ``storage``
        row of their address, and views keep their global table's key: so a view over
        ``storage`` (``storage`` itself, index views) embeds any view over ``mapping`` or
        ``event`` as an array and the reverse as an object, ``storage`` embeds ``contract`` as
        an array. ``<col>_fkey`` follows a contract-typed column to its contract's index view,
        as an object. Rows match on address and chain."""
        if not isinstance(t, Table16):
            return []
        if name.endswith("_fkey"):
            column = name.removesuffix("_fkey")
            target = self.lookup(t.fkeys.get(column, ""))
            if target is None:
                return []
            return [fkey(t, column, EXTENSION_KEY + target.name)]
        dst = self.lookup(name)
        if not isinstance(dst, Table16):
            return []
        if REFERS_TO.get(t.base) == dst.base:
            to_one = True
        elif REFERS_TO.get(dst.base) == t.base:
            to_one = False
        else:
            return []
        keys = [("address", "address"), ("_chain", "_chain")]
        return [follows(t.name, EXTENSION_KEY + dst.name, dst.name, to_one, keys, "address")]
