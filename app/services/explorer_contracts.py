"""Reads for the Explorer's Contracts and Events views: contract names and their instances,
an instance's state (collections a page at a time), methods and transactions, and the node's
event tables merged into one newest-first feed.

The event feed pages each ``<Contract>.<Event>`` table on its own (``order=id.desc``, the next
page keyed by ``id=lt.<last>``: new rows cannot shift it) and merges the table heads by block
number, then block time: only one page per table is ever held, however long the tables are.
"""

from __future__ import annotations

import asyncio
import heapq
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject

from app.client.abi_types import AbiType, ContractSpec
from app.client.cirrus_names import CirrusNames, names_of
from app.client.cirrus_query import history_of
from app.client.cirrus_schema import TableInfo
from app.client.errors import AuthError, RequestError
from app.client.models import Transaction, TxResult

from .session import Session

STATE_PAGE = 50  # entries of a mapping or array read at a time
EVENT_PAGE = 50  # rows read from one event table at a time
EVENT_READERS = 4  # event tables read at once
MAX_CHAINS = 100  # private chains whose contracts the Contracts view lists
CREATION_CHUNK = 50  # transaction results asked at once when looking for a creation
CREATION_MAX = 500  # transactions of the creation block looked at, at most


@dataclass(frozen=True)
class Instance:
    """One deployed contract: where it lives and when it was made (as far as the node says)."""

    name: str
    address: str
    chain_id: str = ""
    created_ms: int = 0  # the platform's createdAt (milliseconds)
    created_block: int | None = None  # the sandbox tells it; a STRATO node does not


@dataclass
class StateVar:
    """A state variable of an instance; a collection's value is read on demand, by pages."""

    name: str
    type_text: str
    collection: bool = False
    value: Any = None
    length: int | None = None  # entries of a collection, when the node counts them
    error: str = ""


@dataclass(frozen=True)
class EventRow:
    table: str
    contract: str
    event: str
    address: str
    block_number: int | None
    timestamp: str
    tx_hash: str
    sender: str
    args: dict[str, Any]
    row_id: int

    @property
    def sort_key(self) -> tuple[int, str, int]:
        return (self.block_number if self.block_number is not None else -1, self.timestamp, 0)


# columns of an event row that are not the event's arguments (seed 001, STRATO 10 and 12)
EVENT_META = {
    "id",
    "address",
    "chainId",
    "block_hash",
    "block_timestamp",
    "block_number",
    "transaction_hash",
    "transaction_sender",
    "event_index",
    "creator",  # STRATO 16's event views
    "contract_name",
}


def split_event_table(table: str) -> tuple[str, str]:
    """(contract, event) of an event table of either family: the seed's ``<table>.<Event>``
    (``Acme-Nest.Summed``) and STRATO 16's ``<creator>-<Contract>-<Event>``; the contract is
    named without its org, application or creator prefix (``Nest``)."""
    if "." in table:
        base, _, event = table.rpartition(".")
    else:
        base, _, event = table.rpartition("-")
    return base.rsplit("-", 1)[-1], event


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v)
    return None


def _arg_name(column: str) -> str:
    """The declared name of an argument column: the sandbox stores an argument named like a
    row column (``id``, ``address`` ...) as ``<name>_``, STRATO 16 as ``arg_<name>``."""
    base = column[:-1]
    if column.endswith("_") and base in EVENT_META | {"_chain"}:
        return base
    plain = column.removeprefix("arg_")
    return plain if column.startswith("arg_") and plain in EVENT_META else column


def event_row(table: str, r: dict[str, Any]) -> EventRow:
    """A Cirrus event row with its arguments (every column that is not the row's own)."""
    contract, event = split_event_table(table)
    return EventRow(
        table=table,
        contract=contract,
        event=event,
        address=str(r.get("address") or ""),
        block_number=_int(r.get("block_number")),
        timestamp=str(r.get("block_timestamp") or ""),
        tx_hash=str(r.get("transaction_hash") or ""),
        sender=str(r.get("transaction_sender") or ""),
        args={
            _arg_name(k): v for k, v in r.items() if k not in EVENT_META and not isinstance(v, dict)
        },
        row_id=_int(r.get("id")) or 0,
    )


def type_text(d: Any, types: dict[str, Any]) -> str:
    """A state variable's declared type in words, from its xabi entry."""
    try:
        return AbiType.from_xabi(d, types).describe()
    except Exception:  # an xabi entry this client does not model: its tag still says something
        return str(d.get("typedef") or d.get("tag") or "?") if isinstance(d, dict) else "?"


PageReader = Callable[[str, int | None, int], Awaitable[list[dict[str, Any]]]]


@dataclass
class _Cursor:
    table: str
    rows: deque[EventRow] = field(default_factory=deque)
    last_id: int | None = None
    done: bool = False
    started: bool = False  # read at least once
    order: int = 0  # the table's place by name (ties in the merge)


class EventFeed:
    """Event rows of several tables, newest first, merged lazily (a k-way merge of pages).

    ``read(table, before_id, limit)`` gives one page of a table, newest first. Ties (the same
    block) go to the table named first in sort order: Cirrus tells no order between tables
    within one block unless it has STRATO 12's ``event_index``."""

    def __init__(self, tables: Iterable[str], read: PageReader, page: int = EVENT_PAGE) -> None:
        self._cursors = [_Cursor(t, order=i) for i, t in enumerate(sorted(tables))]
        self._read = read
        self._page = page
        self._limit = asyncio.Semaphore(EVENT_READERS)
        # the tables with rows in hand, by their newest row (a heap: with a thousand tables a
        # scan of every head per row took 30 ms a page, on the GUI's loop); those whose rows
        # ran out are read again before the next row is picked
        self._heads: list[_Head] = []
        self._empty: list[_Cursor] = list(self._cursors)
        self.pages_read = 0
        self.rows_read = 0

    @property
    def exhausted(self) -> bool:
        return not self._heads and not self._empty

    async def _fill(self, c: _Cursor, limit: int) -> None:
        async with self._limit:
            raw = await self._read(c.table, c.last_id, limit)
        self.pages_read += 1
        self.rows_read += len(raw)
        c.started = True
        rows = [event_row(c.table, r) for r in raw if isinstance(r, dict)]
        c.rows.extend(rows)
        if rows:
            c.last_id = rows[-1].row_id
        if len(raw) < limit or not rows or c.last_id is None or c.last_id <= 0:
            c.done = True

    async def next(self, n: int) -> list[EventRow]:
        """The next ``n`` rows of the feed (fewer at its end).

        A table not read yet is asked only for its share of the ``n`` rows (at least 2): with
        hundreds of tables most give nothing to the first page, and reading a whole page of
        each would move ``tables x page`` rows for ``n``. A table whose rows run out is then
        read a page at a time."""
        out: list[EventRow] = []
        first = min(self._page, max(2, -(-2 * n // max(len(self._cursors), 1))))
        while len(out) < n:
            if self._empty:
                empty, self._empty = self._empty, []
                try:
                    await asyncio.gather(
                        *(self._fill(c, self._page if c.started else first) for c in empty)
                    )
                except BaseException:
                    self._empty = [c for c in empty if not c.rows and not c.done]
                    for c in empty:
                        if c.rows:
                            heapq.heappush(self._heads, _Head(c))
                    raise
                for c in empty:
                    if c.rows:
                        heapq.heappush(self._heads, _Head(c))
            if not self._heads:
                break
            best = heapq.heappop(self._heads).cursor
            out.append(best.rows.popleft())
            if best.rows:
                heapq.heappush(self._heads, _Head(best))
            elif not best.done:
                self._empty.append(best)
        return out


class _Head:
    """A table in the merge's heap, ordered by its newest row (newest first; ties to the table
    named first)."""

    __slots__ = ("cursor", "key")

    def __init__(self, cursor: _Cursor) -> None:
        self.cursor = cursor
        self.key = cursor.rows[0].sort_key

    def __lt__(self, other: _Head) -> bool:
        if self.key != other.key:
            return self.key > other.key
        return self.cursor.order < other.cursor.order


def _hex(a: Any) -> str:
    return str(a or "").lower().removeprefix("0x")


def candidate_tables(name: str, tables: Iterable[str] | CirrusNames) -> list[str]:
    """The contract tables that may hold ``name``'s rows, the likeliest first: the table named
    exactly so, then those with an org, application or creator prefix (``<Org>-<Contract>``,
    ``<Org>-<App>-<Contract>``, seed 001; STRATO 16's ``<creator>-<Contract>``)."""
    names = tables if isinstance(tables, CirrusNames) else CirrusNames(tables)
    return names.contract_tables(name)


def created_here(r: TxResult, inst: Instance) -> bool:
    """Whether a transaction's result says it created ``inst`` (its address among
    ``contractsCreated`` or the upload's address; on the instance's chain when it tells one)."""
    address = _hex(inst.address)
    made = {_hex(a) for a in r.contracts_created}
    if r.address:
        made.add(_hex(r.address))
    if address not in made:
        return False
    contents = r.contents if isinstance(r.contents, dict) else {}
    chain = r.chain_id or contents.get("chainId")
    return not chain or _hex(chain) == _hex(inst.chain_id)


@dataclass(frozen=True)
class InstanceTables:
    """An instance's Cirrus tables; "" for one the node does not have. ``known``: the node
    described its tables (else the names are the plain contract name's, unchecked)."""

    table: str
    history: str
    known: bool = True
    # those of them with a ``chainId`` column (the seed's; STRATO 16's views have none, so an
    # instance on a private chain is told apart by its address only)
    chained: frozenset[str] = frozenset({"*"})

    def by_chain(self, table: str) -> bool:
        return "*" in self.chained or table in self.chained


class ExplorerContractsService(QObject):
    """The node reads of the Contracts and Events views, errors in words (one for the app:
    ``AppController.explorer_contracts``)."""

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        # the node's table list last read (names_of(client) keeps it per node)
        self._names: CirrusNames | None = None

    def _client(self) -> Any:
        if self.session.client is None:
            raise AuthError("not connected to a node")
        return self.session.client

    # ------------------------------------------------------------ contracts

    async def instances(self) -> dict[str, list[Instance]]:
        """Every contract name the node lists, with its instances, newest first: those of the
        main chain and of the private chains the user can see (``/contracts?chainid=``, up
        to ``MAX_CHAINS`` of them)."""
        client = self._client()
        try:
            chains = [
                str(c.get("id") or c.get("chainId") or "")
                for c in await client.chains(limit=MAX_CHAINS)
            ]
        except RequestError:  # a node without chains: the main chain's contracts only
            chains = []
        sem = asyncio.Semaphore(4)

        async def listed(chain: str) -> dict[str, Any]:
            async with sem:
                return dict(await client.contracts(chain or None))

        answers = await asyncio.gather(*(listed(c) for c in ["", *filter(None, chains)]))
        out: dict[str, list[Instance]] = {}
        seen: set[tuple[str, str]] = set()
        for chain, data in zip(["", *filter(None, chains)], answers, strict=True):
            for name, entries in data.items():
                items = out.setdefault(str(name), [])
                for e in entries if isinstance(entries, list) else []:
                    if not isinstance(e, dict) or not e.get("address"):
                        continue
                    key = (str(e["address"]), str(e.get("chainId") or chain))
                    if key in seen:
                        continue
                    seen.add(key)
                    items.append(
                        Instance(
                            str(name),
                            key[0],
                            key[1],
                            _int(e.get("createdAt")) or 0,
                            _int(e.get("createdBlock")),
                        )
                    )
        for items in out.values():
            items.sort(key=lambda i: i.created_ms, reverse=True)
        return dict(sorted(out.items(), key=lambda kv: kv[0].lower()))

    async def contract_spec(self, inst: Instance) -> tuple[ContractSpec, dict[str, Any]]:
        """The instance's functions and events, and its raw xabi (for the state variables)."""
        details = await self._client().details(inst.name, inst.address, inst.chain_id or None)
        x = details.get("xabi")
        if not isinstance(x, dict):
            raise RequestError(f"the node has no interface for {inst.name} at {inst.address}")
        return ContractSpec.from_xabi(inst.name, x), x

    async def state_overview(self, inst: Instance, xabi: dict[str, Any]) -> list[StateVar]:
        """Every state variable: plain values read, collections only counted (their entries
        are read a page at a time when asked)."""
        client = self._client()
        types = xabi.get("types") if isinstance(xabi.get("types"), dict) else {}
        vs = xabi.get("vars") if isinstance(xabi.get("vars"), dict) else {}
        assert isinstance(types, dict) and isinstance(vs, dict)
        chain = inst.chain_id or None
        out = [
            StateVar(
                n,
                type_text(d, types),
                isinstance(d, dict) and d.get("tag") in ("Mapping", "Array"),
            )
            for n, d in sorted(vs.items(), key=lambda kv: _at(kv[1]))
            if not (isinstance(d, dict) and d.get("constant"))
        ]
        plain = [v for v in out if not v.collection]
        if plain and len(plain) == len(out):  # nothing large: one read of the whole state
            state = await client.state(inst.name, inst.address, chain)
            for v in plain:
                v.value = state.get(v.name)
            return out
        sem = asyncio.Semaphore(4)

        async def read(v: StateVar) -> None:
            async with sem:
                try:
                    if v.collection:
                        v.length = await client.state_length(inst.name, inst.address, v.name, chain)
                    else:
                        v.value = await client.state_variable(
                            inst.name, inst.address, v.name, chain
                        )
                except RequestError as exc:
                    if not v.collection:  # a node that cannot count a mapping: read by pages
                        v.error = exc.message

        await asyncio.gather(*(read(v) for v in out))
        return out

    async def state_page(
        self, inst: Instance, variable: str, offset: int, count: int = STATE_PAGE
    ) -> list[tuple[str, Any]]:
        """Entries ``offset`` .. ``offset + count`` of a mapping or array: (key, value)."""
        value = await self._client().state_variable(
            inst.name,
            inst.address,
            variable,
            inst.chain_id or None,
            offset=offset,
            count=count,
        )
        if isinstance(value, dict):
            items = list(value.items())
            # a node that ignores offset/count sent everything: page it here
            if len(items) > count:
                items = items[offset : offset + count]
            return [(str(k), v) for k, v in items]
        if isinstance(value, list):
            if len(value) > count:
                value = value[offset : offset + count]
            return [(f"[{offset + i}]", v) for i, v in enumerate(value)]
        return []

    async def creation(self, inst: Instance) -> Transaction | None:
        """The transaction that created the instance. A CONTRACT transaction has no ``to``, so
        the address filter misses it: the creation block's transactions (those without ``to``
        first) are matched against their results' ``contractsCreated``. A node that does not
        tell the creation block (a STRATO node's ``/contracts`` gives only ``createdAt``), or
        whose results do not say, gives None."""
        if inst.created_block is None:
            return None
        client = self._client()
        try:
            block = await client.block(inst.created_block)
        except RequestError:
            return None
        if block is None:
            return None
        txs: list[Transaction] = [t for t in block.transactions if not t.to]
        txs = (txs + [t for t in block.transactions if t.to])[:CREATION_MAX]
        for i in range(0, len(txs), CREATION_CHUNK):
            chunk = txs[i : i + CREATION_CHUNK]
            try:
                results = await client.results([t.hash for t in chunk])
            except RequestError:
                return None
            for t, r in zip(chunk, results, strict=False):
                if created_here(r, inst):
                    return t
        return None

    # ------------------------------------------------------------ Cirrus tables

    async def cirrus_names(self, fresh: bool = False, want: str = "") -> CirrusNames:
        """The node's Cirrus tables, read (the list reused for a few seconds unless ``fresh``
        or a contract ``want`` has no table in it yet)."""
        client = self._client()
        names = await names_of(client).names(client, fresh=fresh, want=want)
        self._names = names
        return names

    async def cirrus_tables(self, fresh: bool = False) -> dict[str, TableInfo]:
        """The tables the node describes ({} when it describes none)."""
        names = await self.cirrus_names(fresh)
        return names.infos if names.listed else {}

    async def instance_tables(self, inst: Instance) -> InstanceTables:
        """The instance's Cirrus table and ``history@`` table: of the contract's tables of
        either family, the likeliest (:meth:`CirrusNames.contract_tables`); when several
        could be, the first holding the instance's row."""
        names = await self.cirrus_names(want=inst.name)
        if not names.listed and not names.contract_tables(inst.name):
            # the node does not describe its tables: the plain names, unchecked
            return InstanceTables(inst.name, history_of(inst.name), known=False)
        found = names.contract_tables(inst.name)
        table = found[0] if found else ""
        if len(found) > 1:
            for t in found[:8]:
                if await self._holds(t, inst):
                    table = t
                    break
        history = names.history_of(table) if table else ""
        if table and not history and names.family(table) == "strato16":
            # STRATO 16 keeps every contract's history, in one global table (by address)
            history = "history@storage" if "history@storage" in names else ""
        chained = frozenset(t for t in (table, history) if t and _has_chain(names, t))
        return InstanceTables(table, history, known=names.listed, chained=chained)

    async def _holds(self, table: str, inst: Instance) -> bool:
        params = [("address", f"eq.{inst.address}"), ("select", "address"), ("limit", "1")]
        if inst.chain_id and _has_chain(await self.cirrus_names(fresh=False), table):
            params.append(("chainId", f"eq.{inst.chain_id}"))
        try:
            rows, _ = await self._client().cirrus(table, params)
        except RequestError:
            return False
        return bool(rows)

    # ------------------------------------------------------------ events

    async def event_tables(self, fresh: bool = True, contract: str = "") -> list[str]:
        """The node's event tables of either family (``<table>.<Event>``,
        ``<creator>-<C>-<Event>``), from its list (the one read a few seconds ago unless
        ``fresh``); only ``contract``'s when given."""
        names = await self.cirrus_names(fresh, want=contract)
        tables = names.all_event_tables()
        if contract:
            tables = [t for t in tables if names.event_name(t)[0] == contract]
        return tables

    def feed(
        self,
        tables: Iterable[str],
        address: str = "",
        page: int = EVENT_PAGE,
    ) -> EventFeed:
        """A merged feed of ``tables`` (only the rows of ``address`` when given)."""

        async def read(table: str, before: int | None, limit: int) -> list[dict[str, Any]]:
            params = [("order", "id.desc"), ("limit", str(limit))]
            if before is not None:
                params.append(("id", f"lt.{before}"))
            if address:
                params.append(("address", f"eq.{address}"))
            try:
                rows, _ = await self._client().cirrus(table, params)
            except RequestError as exc:
                raise RequestError(
                    f"cannot read the events of {table}: {exc.message}",
                    status=exc.status,
                    method=exc.method,
                    url=exc.url,
                ) from None
            return [r for r in rows if isinstance(r, dict)]

        return EventFeed(tables, read, page)


def _has_chain(names: CirrusNames, table: str) -> bool:
    """Whether a table has the seed's ``chainId`` column (by its columns when the node lists
    them, else by its family)."""
    info = names.infos.get(table)
    if info is not None and info.columns:
        return any(c.name == "chainId" for c in info.columns)
    return names.family(table) == "seed"


def _at(d: Any) -> int:
    at = d.get("atBytes") if isinstance(d, dict) else None
    return at if isinstance(at, int) else 0
