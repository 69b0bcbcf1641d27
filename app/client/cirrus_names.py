"""Where a contract's Cirrus rows are, found from the tables a node lists.

Two families of names exist, and a node may serve either or both:

- the seed's (STRATO 8 and the sandbox by default): a contract table ``<C>``, ``<Org>-<C>`` or
  ``<Org>-<App>-<C>``; event tables ``<table>.<Event>``; ``history@<table>``; and (the sandbox,
  STRATO 16's idea) collection tables ``<table>-<variable>``;
- STRATO 16's views: ``<creator>-<C>`` (the creator is usually ``BlockApps``),
  ``<creator>-<C>-<variable>`` for a mapping or array, ``<creator>-<C>-<Event>``, and the global
  tables ``contract``, ``storage``, ``mapping``, ``event`` (``address, event_name,
  attributes``), ``history@storage`` and ``history@mapping``.

A name such as ``A-B-C`` can be a seed application table, a collection view or an event view.
What tells them apart, best first: the table's columns when the node describes them (an event
view has ``event_index``, a collection view ``collection_name``), the contract's interface (is
``C`` one of its events or one of its variables?), and otherwise the shape of the list: a name
that extends another listed table by ``-<identifier>`` belongs to that table's contract.

Pure Python: no Qt, no HTTP (:class:`NameBook` only awaits the client it is given).
"""

from __future__ import annotations

import re
import time
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .cirrus_schema import TableInfo, parse_openapi
from .errors import RequestError

__all__ = [
    "GLOBAL_TABLES",
    "CirrusNames",
    "NameBook",
    "TableName",
    "names_of",
    "read_names",
    "table_of",
]

Kind = Literal["contract", "event", "history", "collection", "member", "global"]
Family = Literal["seed", "strato16", "global"]

GLOBAL_TABLES = frozenset(
    {"contract", "storage", "mapping", "event", "event_array", "history@storage", "history@mapping"}
)
HISTORY = "history@"
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_EVENT_COLUMNS = {"event_index"}
_COLLECTION_COLUMNS = {"collection_name"}


@dataclass(frozen=True)
class TableName:
    """What a listed name holds. ``base`` is the contract's own table (``Acme-Nest``,
    ``BlockApps-Nest``); ``member`` the event or variable of an event, collection or member
    table (``member``: a ``<base>-<name>`` view whose kind neither columns nor interface tell)."""

    table: str
    kind: Kind
    contract: str = ""
    base: str = ""
    member: str = ""
    family: Family = "seed"


def _contract_of(base: str) -> str:
    """The contract of a contract table: its last ``-`` part (``Acme-CarDemo-Car`` -> ``Car``)."""
    return base.rsplit("-", 1)[-1]


class CirrusNames:
    """A node's table list, read: which tables hold which contract's rows.

    ``tables``: the names the node lists, with their columns when it describes them.
    ``listed``: whether the list is the node's own (else it was guessed from contract names and
    a lookup may still name a table that is not there). ``interfaces``: for a contract name,
    its event names and its variable names (from its xabi), to tell ``<C>-<x>`` views apart.
    """

    def __init__(
        self,
        tables: Mapping[str, TableInfo] | Iterable[str],
        *,
        listed: bool = True,
        interfaces: Mapping[str, tuple[Iterable[str], Iterable[str]]] | None = None,
    ) -> None:
        if isinstance(tables, Mapping):
            infos = dict(tables)
        else:
            infos = {t: TableInfo(t) for t in tables}
        self.infos: dict[str, TableInfo] = infos
        self.listed = listed
        self._events: dict[str, set[str]] = {}
        self._vars: dict[str, set[str]] = {}
        for c, (evs, vs) in (interfaces or {}).items():
            self._events[c] = set(evs)
            self._vars[c] = set(vs)
        # contract tables that have a seed-style event or history table: the seed's
        self._seed_marked = {n.rpartition(".")[0] for n in infos if "." in n} | {
            n[len(HISTORY) :] for n in infos if n.startswith(HISTORY)
        }
        self.names: dict[str, TableName] = {}
        self._classify()

    # ------------------------------------------------------------ reading the list

    def _columns(self, name: str) -> set[str]:
        info = self.infos.get(name)
        return {c.name for c in info.columns} if info is not None else set()

    def _classify(self) -> None:
        plain = [n for n in self.infos if n not in GLOBAL_TABLES and "." not in n and "@" not in n]
        # contract tables first: plain names that neither their columns nor a shorter listed
        # name make a sub-view
        bases: set[str] = set()
        subs: dict[str, tuple[str, str]] = {}
        for n in sorted(plain, key=len):
            cols = self._columns(n)
            parent = self._parent(n, bases)
            sub_columns = bool(cols & (_EVENT_COLUMNS | _COLLECTION_COLUMNS))
            if parent is None and sub_columns and "-" in n:
                base, _, member = n.rpartition("-")
                parent = (base, member)  # its contract's own table is not listed (yet)
            own_columns = "record_id" in cols or ("contract_name" in cols and not sub_columns)
            if parent is not None and not own_columns:
                subs[n] = parent
            else:
                bases.add(n)
        for n in self.infos:
            self.names[n] = self._name(n, bases, subs)

    @staticmethod
    def _parent(name: str, bases: set[str]) -> tuple[str, str] | None:
        """(base, member) when ``name`` is ``<base>-<identifier>`` of a listed base, the
        longest base first."""
        parts = name.split("-")
        for i in range(len(parts) - 1, 0, -1):
            base, member = "-".join(parts[:i]), "-".join(parts[i:])
            if base in bases and _IDENT.fullmatch(member):
                return base, member
        return None

    def _name(self, n: str, bases: set[str], subs: dict[str, tuple[str, str]]) -> TableName:
        if n in GLOBAL_TABLES:
            return TableName(n, "global", family="global")
        if n.startswith(HISTORY):
            base = n[len(HISTORY) :]
            return TableName(n, "history", _contract_of(base), base)
        if "." in n:
            base, _, event = n.rpartition(".")
            return TableName(n, "event", _contract_of(base), base, event)
        if n in subs:
            base, member = subs[n]
            contract = _contract_of(base)
            cols = self._columns(n)
            family = self._family(base)
            kind: Kind
            if cols & _EVENT_COLUMNS:
                kind, family = "event", "strato16"
            elif cols & _COLLECTION_COLUMNS:
                kind = "collection"
            elif member in self._events.get(contract, ()):
                kind, family = "event", "strato16"  # an event wins a clash with a variable
            elif member in self._vars.get(contract, ()):
                kind = "collection"
            else:
                kind = "member"
            return TableName(n, kind, contract, base, member, family)
        return TableName(n, "contract", _contract_of(n), n, family=self._family(n))

    def _family(self, base: str) -> Family:
        cols = self._columns(base)
        if cols:
            return "strato16" if "contract_name" in cols and "record_id" not in cols else "seed"
        if base in self._seed_marked:
            return "seed"
        return "strato16" if "contract" in self.infos and "-" in base else "seed"

    # ------------------------------------------------------------ lookups

    def __contains__(self, table: object) -> bool:
        return table in self.infos

    def kind(self, table: str) -> Kind:
        got = self.names.get(table)
        return got.kind if got is not None else "contract"

    def contract_of(self, table: str) -> str:
        """The contract whose rows a table holds ("" for a global table); an unlisted name is
        read by its shape."""
        got = self.names.get(table)
        if got is not None:
            return got.contract
        if table.startswith(HISTORY):
            return _contract_of(table[len(HISTORY) :])
        return _contract_of(table.rpartition(".")[0] if "." in table else table)

    def contract_tables(self, contract: str) -> list[str]:
        """The contract's own tables, the likeliest first: the seed's (named exactly so, then
        ``<Org>-<C>``, then ``<Org>-<App>-<C>``), then STRATO 16's ``<creator>-<C>``."""
        own = [n for n in self.names.values() if n.kind == "contract" and n.contract == contract]
        own.sort(key=lambda n: (n.family == "strato16", n.table.count("-"), n.table))
        return [n.table for n in own]

    def _members(self, contract: str, member: str, kinds: tuple[Kind, ...]) -> list[str]:
        out = []
        for base in self.contract_tables(contract):
            for t in (f"{base}.{member}", f"{base}-{member}"):
                got = self.names.get(t)
                if got is not None and got.kind in kinds:
                    out.append(t)
        return out

    def event_tables(self, contract: str, event: str) -> list[str]:
        """The tables of the contract's event ``event`` (``<table>.<E>``, ``<creator>-<C>-<E>``).
        None listed: the global ``event`` table may still hold the rows (:attr:`global_events`)."""
        return self._members(contract, event, ("event", "member"))

    def collection_tables(self, contract: str, variable: str) -> list[str]:
        """The tables of a mapping or array variable (``<table>-<variable>``)."""
        return self._members(contract, variable, ("collection", "member"))

    def history_tables(self, contract: str) -> list[str]:
        """``history@<table>`` of each of the contract's tables that keeps one."""
        return [
            f"{HISTORY}{b}" for b in self.contract_tables(contract) if f"{HISTORY}{b}" in self.names
        ]

    def history_of(self, table: str) -> str:
        """The history table of a contract table, "" when the node lists none."""
        h = HISTORY + table
        return h if h in self.names else ""

    def all_event_tables(self) -> list[str]:
        """Every per-event table (views of unknown kind excluded). A node that serves the seed's
        names (STRATO 8; the sandbox by default, beside STRATO 16's) has every event there:
        its STRATO 16 views hold the same rows, plus an empty view of every declared event,
        emitted or not, so they are left out."""
        seed = self.serves_seed
        return sorted(
            n.table
            for n in self.names.values()
            if n.kind == "event" and (n.family == "seed" or not seed)
        )

    @property
    def serves_seed(self) -> bool:
        """Whether the node serves the seed's family: its event or history tables, or contract
        tables with the seed's ``record_id``."""
        return any(
            n.family == "seed"
            and (n.kind in ("event", "history") or "record_id" in self._columns(n.table))
            for n in self.names.values()
        )

    def event_name(self, table: str) -> tuple[str, str]:
        """(contract, event) of an event table, of either family."""
        got = self.names.get(table)
        if got is not None and got.kind in ("event", "member"):
            return got.contract, got.member
        if "." in table:
            base, _, event = table.rpartition(".")
            return _contract_of(base), event
        base, _, event = table.rpartition("-")
        return _contract_of(base), event

    @property
    def global_events(self) -> bool:
        """Whether the node has STRATO 16's global ``event`` table (``address``,
        ``event_name``, ``attributes``): the fallback for an event no view names."""
        return "event" in self.names

    def family(self, table: str) -> Family:
        got = self.names.get(table)
        if got is not None:
            return got.family
        return "seed" if "." in table or table.startswith(HISTORY) else "strato16"

    def group(self, table: str) -> str:
        """The contract a table is listed under in the Tables picker ("" for global tables)."""
        return self.contract_of(table)


# ---------------------------------------------------------------- per node


SCHEMA_TTL = 10.0  # seconds a node's list is reused
MISS_REFRESH = 1.0  # a lookup that misses re-reads the list at most this often


class NameBook:
    """The table list of one node, read when first asked and reused for :data:`SCHEMA_TTL`
    seconds; read again sooner when a caller knows the list may predate what it looks for: a
    block (``after``: tables made in a block appear with it, so a list read before the caller
    learnt of that block may lack them), or a contract with no table in it (``want``: deployed
    since; at most every :data:`MISS_REFRESH` seconds)."""

    def __init__(self, ttl: float = SCHEMA_TTL) -> None:
        self.ttl = ttl
        self._names: CirrusNames | None = None
        self._at = 0.0
        self._blocks: set[str] = set()  # blocks the current list was read after
        self.reads = 0

    def invalidate(self) -> None:
        self._names = None

    async def names(
        self, client: Any, *, fresh: bool = False, want: str = "", after: str = ""
    ) -> CirrusNames:
        """The node's names, re-read when ``fresh``, older than the TTL, read before block
        ``after`` was known (any token of a moment: a block hash, a set of transactions), or
        without a table of contract ``want``."""
        now = time.monotonic()
        got = self._names
        young = not fresh and now - self._at < self.ttl and (not after or after in self._blocks)
        knows = not want or now - self._at < MISS_REFRESH
        if got is not None and young and (knows or got.contract_tables(want)):
            return got
        got = await read_names(client)
        self._names, self._at = got, time.monotonic()
        if len(self._blocks) > 1000:
            self._blocks.clear()
        if after:
            self._blocks.add(after)
        self.reads += 1
        return got

    def cached(self) -> CirrusNames | None:
        return self._names


_BOOKS: weakref.WeakKeyDictionary[Any, NameBook] = weakref.WeakKeyDictionary()


def names_of(client: Any) -> NameBook:
    """The :class:`NameBook` of a client (one per connection, dropped with the client)."""
    book = _BOOKS.get(client)
    if book is None:
        book = _BOOKS[client] = NameBook()
    return book


async def read_names(client: Any) -> CirrusNames:
    """The node's table list: PostgREST's root document when the node serves it; else (a
    STRATO node behind nginx denies the bare ``/cirrus/search/``) the contract names it lists
    under ``/bloc/v2.2/contracts`` as plain tables, and STRATO 16's ``<creator>-<C>`` views
    from its global ``contract`` table, unchecked."""
    tables = parse_openapi(await client.cirrus_schema())
    if tables:
        return CirrusNames(tables)
    guessed: dict[str, TableInfo] = {}
    try:
        listed = await client.contracts()
    except RequestError:
        listed = {}
    for n in listed:
        guessed[str(n)] = TableInfo(str(n), inferred=True)
    try:
        rows, _ = await client.cirrus(
            "contract", [("select", "creator,contract_name"), ("limit", "10000")]
        )
    except RequestError:
        rows = []
    if rows:
        guessed["contract"] = TableInfo("contract", inferred=True)
        guessed["event"] = TableInfo("event", inferred=True)
    views = set()
    for r in rows:
        creator, name = str(r.get("creator") or ""), str(r.get("contract_name") or "")
        if name:
            view = f"{creator}-{name}" if creator else name
            views.add(view)
            guessed[view] = TableInfo(view, inferred=True)
    plain = [str(n) for n in listed if str(n) not in views]
    if views and plain and not await _answers(client, plain[0]):
        # a STRATO 16 node: it serves its views only, not the plain names bloc lists
        for n in plain:
            guessed.pop(n, None)
    return CirrusNames(guessed, listed=False)


async def _answers(client: Any, table: str) -> bool:
    """Whether the node has a table named so (a one-row search answers)."""
    try:
        await client.cirrus(table, [("select", "address"), ("limit", "1")])
    except RequestError as exc:
        return exc.status not in (400, 404)
    return True


async def table_of(client: Any, contract: str) -> str:
    """The likeliest table of a contract on this node (the plain name when none is listed:
    the request then says what is missing)."""
    names = await names_of(client).names(client, want=contract)
    found = names.contract_tables(contract)
    return found[0] if found else contract
