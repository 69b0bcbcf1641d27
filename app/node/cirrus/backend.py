"""Cirrus tables in SQLite: schema registry, writes from the indexer, and query tree -> SQL.

Every identifier that reaches SQL is a column or table known to the registry and is quoted; every
value is a bound parameter. Only this module knows SQLite; a PostgreSQL backend would implement
the same three parts (``ensure_table``, the write methods, ``run``).
"""

from __future__ import annotations

import json
import operator
import re
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from . import embedding, grouping
from . import fields as fx
from .deferred import SeedWrites
from .encoding import encode_int, encode_int_text, json_get, parse_json_path
from .query import Field, Filter, Group, Query, QueryError, split_alias
from .relations import Relationship, RelationSource, choose, seed_relationships
from .values import (
    DECIMAL_COLLATION,
    Column,
    Ref,
    _casefold,
    _from_sql,
    _to_sql,
    compare_decimals,
    convert,
    glob_pattern,
)

PREFIX = "cirrus:"
# PostgREST's `max-rows` as STRATO 16 configures it (the seed shows no cap; no default limit)
# what a contract row's ``record_id`` determines (see record_id in indexer.py): never updated
_KEYED = frozenset(("record_id", "address", "chainId"))
MAX_ROWS = 1_000_000
INDEXED = ("address", "record_id")
SMALL_TABLE = 20_000
REVERSE_MIN = 10_000  # offsets from which the total of an unfiltered table is always counted
MAX_WALKED_CHAINS = 64  # more visible private chains: keep the chain clause without checking

STANDARD_COLUMNS: list[tuple[str, str]] = [
    ("address", "text"),
    ("chainId", "text"),
    ("record_id", "text"),
    ("block_hash", "text"),
    ("block_timestamp", "text"),
    ("block_number", "int"),
    ("transaction_hash", "text"),
    ("transaction_sender", "text"),
]
STANDARD_NAMES = {n for n, _ in STANDARD_COLUMNS}
EXTENSION_KEY = "\x1f16:"  # names of the extension's tables that no registry table shadows
KEY_COLUMN = re.compile(r"key[0-9]*\Z")  # key, key2, key3 ... of collection tables


@dataclass
class Table:
    name: str
    kind: str  # "contract" | "history" | "event" | "collection"
    columns: dict[str, Column] = field(default_factory=dict)
    _keys: tuple[int, list[str]] | None = field(default=None, repr=False, compare=False)

    @property
    def key_columns(self) -> list[str]:
        """A collection table's key columns (``key``, ``key2`` ...), in order."""
        n = len(self.columns)
        if self._keys is None or self._keys[0] != n:
            self._keys = (n, [c for c in self.columns if KEY_COLUMN.match(c)])
        return self._keys[1]

    @property
    def sql_name(self) -> str:
        return quote(PREFIX + self.name)

    @property
    def qualifier(self) -> str:
        """What names the table's columns in a statement that reads ``FROM sql_name``."""
        return self.sql_name

    def aliased(self, alias: str) -> str:
        """The table in a FROM clause under the name ``alias``."""
        return f"{self.sql_name} AS {alias}"

    @property
    def chain_column(self) -> str:
        return "_chain" if self.kind == "event" else "chainId"

    def counted(self, by_address: bool = False) -> str:
        """What counts the table's rows without reading them, "" when nothing does (see
        CirrusBackend._count); ``by_address``: with an ``address`` column to filter on."""
        return ""

    def range_hint(self, q: Query, limit: int, db: sqlite3.Connection) -> str:
        """A condition on ``rowid`` that reads the query's rows from one range of the table,
        in order, when that beats its indexes ("": none; see strato16.Table16)."""
        return ""

    def order_hint(self, q: Query) -> str:
        """A condition, true of every row, that lets an index give the query's order ("":
        none; see strato16.Table16)."""
        return ""

    @property
    def keyed(self) -> bool:
        """A collection's rows: their key columns are never NULL."""
        return self.kind == "collection"


@dataclass
class Plan:
    """How one query's rows are read: ``sql`` with ``args`` (None when there are none), the
    result's columns (``hidden`` ones only feed embeds), and what counting them needs."""

    table: Table
    q: Query
    cols: list[Ref]
    hidden: list[Ref]
    where_sql: str
    params: list[Any]
    limit: int
    offset: int
    total: int | None  # rows matching the filter, when already counted
    sql: str | None = None
    unfiltered: bool = False  # no condition but the chain clause (see CirrusBackend._count)
    args: list[Any] = field(default_factory=list)


def by_value_index(db: sqlite3.Connection, t: Table) -> None:
    """The index that reads a collection's entries of one contract largest value first
    (a token's holders: ``address=eq.X&order=value.desc,key.asc&limit=100`` reads 100 index
    entries, not the million rows of the table and a sort). Values are stored in an
    order-preserving text form (encoding.py), so the index's text order is their order."""
    if "value" in t.columns and "key" in t.columns:
        idx = quote(f"{PREFIX}{t.name}:by_value")
        db.execute(
            f'CREATE INDEX IF NOT EXISTS {idx} ON {t.sql_name} ("address", "value" DESC, "key")'
        )


def quote(ident: str) -> str:
    return '"' + ident.replace('"', '""') + '"'


def undefined_table(name: str) -> QueryError:
    return QueryError(
        404,
        {
            "hint": None,
            "details": None,
            "code": "42P01",
            "message": f'relation "public.{name}" does not exist',
        },
    )


def undefined_column(table: str, column: str) -> QueryError:
    return QueryError(
        400,
        {
            "hint": None,
            "details": None,
            "code": "42703",
            "message": f"column {table}.{column} does not exist",
        },
    )


class Extension(Protocol):
    """Tables served beside the registry's own (STRATO 16's names: strato16.py)."""

    only: bool  # serve these names only (the registry's tables stay for internal readers)

    def lookup(self, name: str) -> Table | None: ...

    def listed(self) -> dict[str, Table]: ...

    def reload(self) -> None: ...

    def publish(self) -> None: ...


def _functions(conn: sqlite3.Connection) -> None:
    conn.create_function("casefold", 1, _casefold, deterministic=True)
    conn.create_function("cirrus_json", 3, json_get, deterministic=True)
    conn.create_function("cirrus_int", 1, encode_int_text, deterministic=True)
    conn.create_collation(DECIMAL_COLLATION, compare_decimals)
    fx.register(conn)


def _owners(rows: list[tuple[Any, ...]], chain: int, address: int) -> list[tuple[str, str]]:
    """(chain, address) of each row, from the columns at those places (the contracts a
    failed write of rows is retried for)."""
    return [
        (str(r[chain]) if chain >= 0 else "", str(r[address]) if address >= 0 else "") for r in rows
    ]


class CirrusBackend:
    """Owns the ``cirrus:*`` tables of the node database."""

    def __init__(self, db: sqlite3.Connection, path: Path | None = None) -> None:
        self.db = db
        self.path = path
        self.tables: dict[str, Table] = {}  # the writer's schema
        # the schema as of the last commit, for readers (None: they read ``tables``); the
        # writer never changes a Table in place once published (see ensure_table)
        self.published: dict[str, Table] | None = None
        # other names of tables, served as the tables themselves but not listed (the seed's
        # `<Org>-<App>-<asset name>` beside the asset contract's own table: apps.py)
        self.aliases: dict[str, str] = {}
        # where embeds find their relationships (relations.py): the seed family's first
        self.relation_sources: list[RelationSource] = [seed_relationships]
        self.max_rows = MAX_ROWS  # PostgREST's `max-rows`
        self.extension: Extension | None = None
        self._local = threading.local()
        # row writes: now, or behind the chain with STRATO 16's (deferred.py)
        self.writes = SeedWrites(db)
        self.reload()

    def reader(self) -> sqlite3.Connection:
        """This thread's read-only connection (WAL lets readers run beside the writer)."""
        if self.path is None:
            return self.db
        conn: sqlite3.Connection | None = getattr(self._local, "db", None)
        if conn is None:
            conn = self._local.db = self.connect_reader()
        return conn

    def connect_reader(self) -> sqlite3.Connection:
        """A new read-only connection to the database file (``path`` must be set)."""
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        conn.execute("PRAGMA query_only=ON")
        _functions(conn)
        return conn

    def reload(self) -> None:
        """(Re)read the schema registry, e.g. after a rolled-back write."""
        db = self.db
        _functions(db)
        self.tables = {}
        self.plans: dict[Any, Any] = {}  # statements of collection tables (entries.py)
        self._writes: dict[
            tuple[str, str, tuple[str, ...], int], tuple[str, list[int], operator.itemgetter[Any]]
        ] = {}
        db.execute(
            "CREATE TABLE IF NOT EXISTS cirrus_tables (name TEXT PRIMARY KEY, kind TEXT NOT NULL, "
            "columns TEXT NOT NULL)"
        )
        for name, kind, cols in db.execute("SELECT name, kind, columns FROM cirrus_tables"):
            t = Table(name, kind)
            if kind == "event":
                t.columns["id"] = Column("id", "serial")
            for c in json.loads(cols):
                t.columns[c[0]] = Column(c[0], c[1], c[2])
            self.tables[name] = t
            if kind == "collection":
                by_value_index(db, t)  # a store from before it: made once, at start
        if self.extension is not None:
            self.extension.reload()

    # ------------------------------------------------------------ schema

    def ensure_table(self, name: str, kind: str, columns: list[Column]) -> Table:
        """Create the table or add the columns it lacks (a newer contract version)."""
        t = self.tables.get(name)
        db = self.db
        if t is None:
            t = Table(name, kind)
            defs: list[str] = []
            if kind == "event":
                defs.append('"id" INTEGER PRIMARY KEY AUTOINCREMENT')
                defs.append("\"_chain\" TEXT NOT NULL DEFAULT ''")
                t.columns["id"] = Column("id", "serial")
            for c in columns:
                pk = c.name == "record_id" and kind == "contract"
                defs.append(quote(c.name) + (" PRIMARY KEY" if pk else ""))
                t.columns[c.name] = c
            if kind == "history":
                defs.append('UNIQUE ("address", "chainId", "block_hash", "transaction_hash")')
            if kind == "collection":
                # one row per entry; the constraint's index also serves lookups by address, and
                # the chains present are those of the contract table (see hides_rows)
                unique = ", ".join(quote(n) for n in ["address", "chainId", *t.key_columns])
                defs.append(f"UNIQUE ({unique})")
            db.execute(f"CREATE TABLE {t.sql_name} ({', '.join(defs)})")
            if kind == "collection":
                by_value_index(db, t)
            if kind not in ("event", "collection"):
                for col in ("address", "chainId"):
                    idx = quote(f"{PREFIX}{name}:{col}")
                    db.execute(f"CREATE INDEX {idx} ON {t.sql_name} ({quote(col)})")
            self.tables[name] = t
            self._save(t)
            return t
        if all(c.name in t.columns for c in columns):
            return t
        # a new Table: readers keep the committed one until ``publish``
        t = Table(t.name, t.kind, dict(t.columns))
        for c in columns:
            if c.name not in t.columns:
                db.execute(f"ALTER TABLE {t.sql_name} ADD COLUMN {quote(c.name)}")
                t.columns[c.name] = c
        self.tables[name] = t
        self._save(t)
        return t

    def ensure_indexes(self, t: Table, columns: list[str]) -> None:
        """An index on each of ``columns`` of ``t`` (a table made before has them made now, once:
        the first write after a start)."""
        for col in columns:
            if col in t.columns:
                idx = quote(f"{PREFIX}{t.name}:{col}")
                self.db.execute(f"CREATE INDEX IF NOT EXISTS {idx} ON {t.sql_name} ({quote(col)})")

    def publish(self) -> None:
        """The writer's schema is committed: readers see it from now on."""
        self.published = dict(self.tables)
        if self.extension is not None:
            self.extension.publish()

    @property
    def schema(self) -> dict[str, Table]:
        """The tables as readers see them."""
        return self.tables if self.published is None else self.published

    def _save(self, t: Table) -> None:
        cols = [
            [c.name, c.kind, c.ref]
            for c in t.columns.values()
            if not (t.kind == "event" and c.name == "id")
        ]
        self.db.execute(
            "INSERT OR REPLACE INTO cirrus_tables (name, kind, columns) VALUES (?, ?, ?)",
            (t.name, t.kind, json.dumps(cols)),
        )

    # ------------------------------------------------------------ writes

    def upsert(self, t: Table, rows: list[dict[str, Any]]) -> None:
        """Insert rows or update them in place (by ``record_id``): an updated row keeps its
        rowid, and ``address`` and ``chainId``, which ``record_id`` names, are left out of the
        update, so their index entries are not rewritten (SQLite rewrites an index whose
        column is set, to the same value too: two of a one-transfer block's ~24 pages)."""
        self._write(t, rows, "INSERT", ' ON CONFLICT ("record_id") DO UPDATE SET ')

    def insert_ignore(self, t: Table, rows: list[dict[str, Any]]) -> None:
        """Rows written now, never behind the chain (history rows: see deferred.py)."""
        self._write(t, rows, "INSERT OR IGNORE", now=True)

    def insert(self, t: Table, rows: list[dict[str, Any]]) -> None:
        self._write(t, rows, "INSERT")

    def _write(
        self, t: Table, rows: list[dict[str, Any]], verb: str, update: str = "", now: bool = False
    ) -> None:
        """Write rows that all have the same columns in the same order (the statement and
        the integer columns' positions are kept per table and column list); ``now``: not
        behind the chain whatever :attr:`writes` does."""
        if not rows:
            return
        names = tuple(rows[0])
        key = (t.name, verb, names, len(t.columns))
        plan = self._writes.get(key)
        if plan is None:
            sql = (
                f"{verb} INTO {t.sql_name} ({', '.join(quote(n) for n in names)}) "
                f"VALUES ({', '.join('?' for _ in names)})"
            )
            if update:
                sql += update + ", ".join(
                    f"{quote(n)} = excluded.{quote(n)}" for n in names if n not in _KEYED
                )
            ints = [i for i, n in enumerate(names) if n in t.columns and t.columns[n].kind == "int"]
            plan = self._writes[key] = (sql, ints, operator.itemgetter(*names, *names[:1]))
        sql, ints, get = plan
        out = []
        for r in rows:
            vals = [_to_sql(v) for v in get(r)]
            vals.pop()  # itemgetter of one more name always gives a tuple
            for i in ints:
                v = vals[i]
                if v is not None:
                    vals[i] = encode_int(v)
            # (a tuple: rows held for a drain behind the chain are left alone by the
            # collector, where lists, and the row dicts, made every pass walk them)
            out.append(tuple(vals))
        if now:
            self.db.executemany(sql, out)
        else:
            c = "_chain" if t.kind == "event" else "chainId"
            chain = names.index(c) if c in names else -1
            address = names.index("address") if "address" in names else -1
            self.writes.executemany(t.name, sql, out, lambda: _owners(out, chain, address))

    # ------------------------------------------------------------ queries

    def is_cheap(self, name: str, q: Query) -> bool:
        """True for queries answered from an index or a small table (fine on the event loop)."""
        t = self.lookup(name)
        if t is None:
            return True
        if q.embeds or any(f.aggregate for f in q.fields):
            return False  # they read other tables, or every matching row
        if (
            t.kind == "contract"  # one row per address: other tables hold many (events, entries)
            and any(
                isinstance(f, Filter) and f.op == "eq" and not f.negate and f.column in INDEXED
                for f in q.where.items
            )
            and not q.order
        ):
            return True
        if t.sql_name.startswith("("):
            return False  # a view (strato16.py): its size is not known without reading it
        try:
            (last,) = self.reader().execute(f"SELECT max(rowid) FROM {t.sql_name}").fetchone()
        except sqlite3.Error:
            return False
        return (last or 0) < SMALL_TABLE

    def listed(self) -> dict[str, Table]:
        """The tables the schema document lists, by name (the extension's after the
        registry's, which win a name both have)."""
        ext = self.extension
        if ext is None:
            return self.schema
        if ext.only:
            return ext.listed()
        return {**ext.listed(), **self.schema}

    def lookup(self, name: str) -> Table | None:
        """The table of that name, or the one it is an alias of (a real table comes first),
        or the extension's."""
        schema = self.schema
        t = schema.get(name)
        if t is None and name in self.aliases:
            t = schema.get(self.aliases[name])
        if t is None and self.extension is not None:
            t = self.extension.lookup(name)
        return t

    def served(self, name: str) -> str:
        """The name a client's request for table ``name`` is looked up by (see strato16.py)."""
        ext = self.extension
        return name if ext is None or not ext.only else EXTENSION_KEY + name

    def table(self, name: str) -> Table:
        t = self.lookup(name)
        if t is None:
            raise undefined_table(name.removeprefix(EXTENSION_KEY))
        return t

    def run(
        self,
        name: str,
        q: Query,
        visible: set[str] | None,
        want_total: bool,
        db: sqlite3.Connection | None = None,
    ) -> tuple[list[dict[str, Any]], int | None]:
        """Rows of table ``name`` for query ``q``; ``visible`` limits private chains.

        Everything runs in one read transaction, so the count, the check for hidden rows and
        the rows all see the same data."""
        db = db or self.db
        t = self.table(name)
        own = not db.in_transaction
        if own:
            db.execute("BEGIN")
        try:
            return self._run(t, q, visible, want_total, db)
        finally:
            if own:
                db.execute("COMMIT")

    def _run(
        self,
        t: Table,
        q: Query,
        visible: set[str] | None,
        want_total: bool,
        db: sqlite3.Connection,
    ) -> tuple[list[dict[str, Any]], int | None]:
        plan = self.plan(t, q, visible, db)
        if isinstance(plan, list):
            return plan, None  # select=count
        fetched = db.execute(plan.sql, plan.args).fetchall() if plan.sql else []
        rows = self.rows_of(plan, fetched, visible, db)
        return rows, self.total_of(plan, db) if want_total else None

    def plan(
        self, t: Table, q: Query, visible: set[str] | None, db: sqlite3.Connection
    ) -> Plan | list[dict[str, Any]]:
        """The SQL that reads the query's rows (``sql`` None: there are none), or the one row
        of ``select=count``. Raises QueryError for what PostgREST rejects."""
        name = t.name
        params: list[Any] = []
        where = [self.render_group(t, q.where, params)] if q.where.items else []
        hint = t.range_hint(q, self.max_rows if q.limit is None else q.limit, db)
        if hint:  # read the range in order: these filters only probe each row
            for col in ("address", "collection_name"):
                where = [w.replace(f"({quote(col)} = ?)", f"(+{quote(col)} = ?)") for w in where]
            where.append(hint)
        ordered = t.order_hint(q)
        if ordered:
            where.append(ordered)
        # An indexed lookup keeps the chain clause (it costs nothing there); other queries drop
        # it when the table holds no rows the user may not see, so that they can use indexes.
        lookup = any(
            isinstance(f, Filter) and f.op == "eq" and not f.negate and f.column in INDEXED
            for f in q.where.items
        )
        if visible is not None and (lookup or self.hides_rows(t, visible, db)):
            # unary + keeps SQLite off the chainId index for this clause
            chain_col = "+" + quote(t.chain_column)
            if visible:
                marks = ", ".join("?" for _ in visible)
                where.append(f"({chain_col} = '' OR {chain_col} IN ({marks}))")
                params.extend(sorted(visible))
            else:
                where.append(f"{chain_col} = ''")
        inner = embedding.inner_clauses(self, t, q, visible, params, t.qualifier, 0)
        where.extend(inner)
        where_sql = f" WHERE {' AND '.join(where)}" if where else ""
        unfiltered = not q.where.items and not inner
        aggregates = [f for f in q.fields if f.aggregate]
        if aggregates and not (
            q.count
            and aggregates == [Field("", aggregate="count")]
            and not q.columns
            and not q.embeds
        ):
            if q.embeds:
                return grouping.aggregate_embedded(self, t, q, visible, db)
            return grouping.aggregate_rows(self, t, q, where_sql, params, db)
        if q.count:
            if q.order or q.columns:
                col = q.order[0].column if q.order else (q.columns or ["record_id"])[0]
                raise QueryError(
                    400,
                    {
                        "hint": None,
                        "details": None,
                        "code": "42803",
                        "message": f'column "{name}.{col}" must appear in the GROUP BY clause '
                        "or be used in an aggregate function",
                    },
                )
            by_address = (
                not inner
                and not hint
                and q.where.op == "and"
                and not q.where.negate
                and len(q.where.items) == 1
                and isinstance(f := q.where.items[0], Filter)
                and (f.column, f.op, f.negate) == ("address", "eq", False)
            )
            n = self._count(t, where_sql, params, db, unfiltered, by_address)
            return [{"count": n}]
        visible_cols = self.select_refs(t, q)
        # embeds find their rows by the key values of their relationships (embedding.py)
        hidden = embedding.hidden_keys(self, t, q) if q.embeds else []
        visible_cols = visible_cols + hidden
        order_sql = self.render_order(t, q)
        limit = self.max_rows if q.limit is None else min(q.limit, self.max_rows)
        offset = q.offset
        total = None
        if unfiltered and offset and self._cheap_count(t):
            total = self._count(t, where_sql, params, db, unfiltered)
        elif not q.where.items and offset:
            # Down an unfiltered table the total costs no scan (count(*) walks an index), so a
            # page in the second half is read from the end. max(rowid) bounds the total: when
            # it puts the page in the second half, counting pays; far down, counting is cheap
            # next to walking the offset (rowids grow with updates and leave gaps).
            (last,) = db.execute(f"SELECT max(rowid) FROM {t.sql_name}").fetchone()
            if (last or 0) < 2 * offset + limit or (not where_sql and offset >= REVERSE_MIN):
                total = self._count(t, where_sql, params, db)
        select = f"SELECT {', '.join(c.sql for c in visible_cols) or '1'} FROM {t.sql_name}"
        plan = Plan(t, q, visible_cols, hidden, where_sql, params, limit, offset, total)
        plan.unfiltered = unfiltered
        if total is not None and offset >= total:
            pass  # no rows
        elif total is not None and total - offset - limit < offset:
            # the same window counted from the end: the order reversed, a small offset; the
            # outer query puts the rows back in the query's order
            end = min(offset + limit, total)
            plan.sql = (
                f"{select} WHERE rowid IN (SELECT rowid FROM {t.sql_name}{where_sql}"
                f"{self.render_order(t, q, reverse=True)} LIMIT ? OFFSET ?){order_sql}"
            )
            plan.args = [*params, end - offset, total - end]
        elif q.order and offset:
            # sort only the sort keys and rowids, then read the page's rows (a sort that keeps
            # whole rows up to a deep offset is many times slower)
            plan.sql = (
                f"{select} WHERE rowid IN (SELECT rowid FROM {t.sql_name}{where_sql}"
                f"{order_sql} LIMIT ? OFFSET ?){order_sql}"
            )
            plan.args = [*params, limit, offset]
        else:
            plan.sql = f"{select}{where_sql}{order_sql} LIMIT ? OFFSET ?"
            plan.args = [*params, limit, offset]
        return plan

    def rows_of(
        self,
        plan: Plan,
        fetched: list[Any],
        visible: set[str] | None,
        db: sqlite3.Connection,
    ) -> list[dict[str, Any]]:
        """Fetched SQL rows as result rows (one chunk or all of them): values decoded, embeds
        added, the columns read only for the embeds dropped."""
        rows = [
            {c.name: _from_sql(v, c.col) for c, v in zip(plan.cols, r, strict=True)}
            for r in fetched
        ]
        fx.cast_rows(plan.cols, rows)
        if plan.q.embeds:
            embedding.embed(self, plan.table, plan.q, rows, visible, db, 1)
            for row in rows:
                for extra in plan.hidden:
                    row.pop(extra.name, None)
            embedding.in_select_order(plan.cols, plan.q, rows)
        return rows

    def select_refs(self, t: Table, q: Query) -> list[Ref]:
        """What a query's ``select`` reads of ``t`` (every column for ``*`` or no select)."""
        if q.columns is None:
            return [Ref(c.name, quote(c.name), c) for c in t.columns.values()]
        if any(f.aggregate for f in q.fields):
            raise grouping.unsupported("aggregates inside an embedded resource")
        # a Query built in code may name its columns only
        fields = q.fields or [Field(e, a) for a, e in map(split_alias, q.columns)]
        return [self.selected(t, f) for f in fields]

    def relationship(self, t: Table, name: str, via: str | None) -> Relationship:
        """The relationship an embed of ``name`` (with ``!via``) follows from ``t``."""
        schema = self.schema
        candidates: list[Relationship] = []
        for source in self.relation_sources:
            candidates.extend(source(schema, t, name))
        return choose(candidates, t.name, name, via)

    def count_rows(self, plan: Plan, db: sqlite3.Connection) -> int:
        """How many rows the plan yields (without reading them)."""
        if plan.sql is None:
            return 0
        if plan.total is not None:
            return max(0, min(plan.limit, plan.total - plan.offset))
        t = plan.table
        (n,) = db.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {t.sql_name}{plan.where_sql} LIMIT ? OFFSET ?)",
            [*plan.params, plan.limit, plan.offset],
        ).fetchone()
        return int(n)

    def total_of(self, plan: Plan, db: sqlite3.Connection) -> int:
        """The number of rows matching the plan's filter (``Prefer: count=exact``)."""
        if plan.total is None:
            plan.total = self._count(plan.table, plan.where_sql, plan.params, db, plan.unfiltered)
        return plan.total

    def ref(self, t: Table, name: str) -> Ref:
        """A column of ``t``, or a JSON path into a jsonb column (``value->a->>b``: ``->``
        gives jsonb, ``->>`` text, as in PostgreSQL)."""
        col = t.columns.get(name)
        if col is not None:
            return Ref(name, quote(name), col)
        try:
            path = parse_json_path(name)
        except ValueError as exc:
            raise QueryError(
                400,
                {
                    "code": "PGRST100",
                    "details": f"unexpected {name!r} expecting {exc}",
                    "hint": None,
                    "message": f'"failed to parse json path ({name})" (line 1, column 1)',
                },
            ) from None
        if path is None:
            raise undefined_column(t.name, name)
        column, keys, as_text = path
        base = t.columns.get(column)
        if base is None:
            raise undefined_column(t.name, column)
        if base.kind != "json":
            typ = {"int": "numeric", "decimal": "numeric", "bool": "boolean"}.get(base.kind, "text")
            raise QueryError(
                400,
                {
                    "hint": "No operator matches the given name and argument types. You might "
                    "need to add explicit type casts.",
                    "details": None,
                    "code": "42883",
                    "message": f"operator does not exist: {typ} {'->>' if as_text else '->'} "
                    "unknown",
                },
            )
        # the keys are names or indexes (parse_json_path): safe inside a string literal
        sql = f"cirrus_json({quote(column)}, '{'.'.join(keys)}', {int(as_text)})"
        return Ref(keys[-1], sql, Column(keys[-1], "text" if as_text else "json"))

    def selected(self, t: Table, item: Field) -> Ref:
        """A ``select`` item: a column or JSON path, renamed by ``alias:`` and cast by
        ``::type`` when given."""
        r = self.ref(t, item.expr)
        cast = fx.cast_type(item.cast) if item.cast else None
        if item.alias is None and cast is None:
            return r
        return Ref(item.alias or r.name, r.sql, r.col, cast)

    def render_order(self, t: Table, q: Query, reverse: bool = False, tiebreak: bool = True) -> str:
        """``ORDER BY`` of the query, a total order (rowid breaks ties); ``reverse``: the exact
        opposite order (each term's direction and nulls placement flipped)."""
        parts = []
        for o in q.order:
            r = self.ref(t, o.column)
            nulls_first = o.desc if o.nulls_first is None else o.nulls_first
            desc = o.desc != reverse
            collate = f" COLLATE {DECIMAL_COLLATION}" if r.col.kind == "decimal" else ""
            nulls = f" NULLS {'FIRST' if nulls_first != reverse else 'LAST'}"
            if t.keyed and KEY_COLUMN.match(o.column):
                nulls = ""  # a key is never NULL: no NULLS clause that keeps an index unused
            parts.append(f"{r.sql}{collate} {'DESC' if desc else 'ASC'}{nulls}")
        if tiebreak:
            parts.append("rowid DESC" if reverse else "rowid ASC")  # insertion order breaks ties
        return " ORDER BY " + ", ".join(parts) if parts else ""

    def hides_rows(self, t: Table, visible: set[str], db: sqlite3.Connection) -> bool:
        """True when the table may hold rows of private chains outside ``visible`` (the main
        chain ``''`` is always visible); then queries need the chain clause. Walks the distinct
        chain values in the chainId index, one seek each, up to the first one not visible."""
        if t.kind == "collection":
            # its rows belong to contracts of the contract table it is named after
            base = self.schema.get(t.name.rpartition("-")[0])
            return base is None or base.kind != "contract" or self.hides_rows(base, visible, db)
        if t.kind in ("event", "strato16") or len(visible) > MAX_WALKED_CHAINS:
            return True  # no chain index to walk (event tables), or too many chains to walk
        col = quote(t.chain_column)
        if db.execute(f"SELECT 1 FROM {t.sql_name} WHERE {col} IS NULL LIMIT 1").fetchone():
            return True
        shown = visible | {""}
        (value,) = db.execute(f"SELECT min({col}) FROM {t.sql_name}").fetchone()
        while value is not None:
            if value not in shown:
                return True
            (value,) = db.execute(
                f"SELECT min({col}) FROM {t.sql_name} WHERE {col} > ?", (value,)
            ).fetchone()
        return False

    @staticmethod
    def _cheap_count(t: Table) -> bool:
        """True when the table counts its rows without reading them (a collection view keeps
        counts: strato16.Table16.count_source)."""
        return bool(t.counted())

    def _count(
        self,
        t: Table,
        where_sql: str,
        params: list[Any],
        db: sqlite3.Connection,
        unfiltered: bool = False,
        by_address: bool = False,
    ) -> int:
        """Rows matching ``where_sql``; ``unfiltered``: it holds no condition but the chain
        clause, which a table's kept counts can answer; ``by_address``: its one condition
        besides is ``address=eq.``, which they answer too (a token's holders, counted)."""
        if (unfiltered or by_address) and self._cheap_count(t):
            source = t.counted(by_address)
            (n,) = db.execute(
                f"SELECT coalesce(sum(n), 0) FROM {source} AS counted{where_sql}", params
            ).fetchone()
            return int(n)
        (n,) = db.execute(f"SELECT count(*) FROM {t.sql_name}{where_sql}", params).fetchone()
        return int(n)

    def render_group(self, t: Table, g: Group, params: list[Any]) -> str:
        joiner = " AND " if g.op == "and" else " OR "
        inner = joiner.join(
            self.render_group(t, item, params)
            if isinstance(item, Group)
            else self.render_filter(t, item, params)
            for item in g.items
        )
        sql = f"({inner})"
        return f"NOT {sql}" if g.negate else sql

    def render_filter(self, t: Table, f: Filter, params: list[Any]) -> str:
        r = self.ref(t, f.column)
        col = r.col
        c = r.sql
        if col.kind == "decimal":
            c += f" COLLATE {DECIMAL_COLLATION}"
        op = f.op
        if op == "is" and col.kind == "json" and f.value not in ("null", "unknown"):
            raise QueryError(
                400,
                {
                    "hint": None,
                    "details": None,
                    "code": "42804",
                    "message": f"argument of IS {f.value.upper()} must be type boolean, "
                    "not type jsonb",
                },
            )
        if op == "is":
            sql = {
                "null": f"{c} IS NULL",
                "unknown": f"{c} IS NULL",
                "true": f"{c} = 1",
                "false": f"{c} = 0",
            }[f.value]
        elif op == "in":
            values = [convert(v, col) for v in f.value]
            if not values:
                sql = "0 = 1"
            else:
                sql = f"{c} IN ({', '.join('?' for _ in values)})"
                params.extend(values)
        elif op in ("like", "ilike"):
            if col.kind != "text":
                typ = {"bool": "boolean", "json": "jsonb"}.get(col.kind, "numeric")
                raise QueryError(
                    400,
                    {
                        "hint": "No operator matches the given name and argument types.",
                        "details": None,
                        "code": "42883",
                        "message": f"operator does not exist: {typ} "
                        f"{'~~' if op == 'like' else '~~*'} unknown",
                    },
                )
            if op == "like":
                sql = f"{c} GLOB ?"
                params.append(glob_pattern(f.value))
            elif f.value.isascii():
                # ASCII pattern: SQLite's own (ASCII) lower() is exact and fast
                sql = f"lower({c}) GLOB ?"
                params.append(glob_pattern(f.value.lower()))
            else:
                sql = f"casefold({c}) GLOB ?"
                params.append(glob_pattern(f.value.casefold()))
        else:
            sym = {"eq": "=", "neq": "<>", "lt": "<", "lte": "<=", "gt": ">", "gte": ">="}[op]
            sql = f"{c} {sym} ?"
            params.append(convert(f.value, col))
        return f"NOT ({sql})" if f.negate else f"({sql})"
