"""Rows of STRATO 16's global Cirrus tables, written after every block inside its commit.

Per block, as slipstream writes one action per block: the views of the code collections
registered, the ``contract`` stamps of the contracts created (every constructor that ran, bases
first) and of delegatecalls (a proxy gets the names of the code that ran on it), one ``storage``
upsert per address written, ``mapping`` rows for the collection entries written (through
:meth:`Indexer16.write_entries`, called by the seed's collection indexer, which already knows
which entries changed) with their ``history@mapping`` rows (write16.py), one ``event`` row
per event. ``history@storage`` follows by trigger. A drain of several blocks writes each
``storage`` and ``mapping`` row once, beside one history row per block that changed it.
Values are encoded as the platform encodes them (the README's Cirrus section lists them).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

from ..solidvm.compile import CompiledUnit
from ..solidvm.defs import ContractDef, StateVar
from ..solidvm.proxies import delegated_vars
from ..solidvm.runtime import MISSING
from ..solidvm.types import (
    ArrayType,
    BoolType,
    BytesType,
    DecimalType,
    EnumType,
    IntType,
    MappingType,
    StructType,
    Type,
)
from ..solidvm.values import Address
from ..solidvm.world import AccountState, ExecResult, World
from .collections import CollectionVar, item_at, items_of, leaves
from .encoding import compact_json, encode_int, encode_json, json_string
from .events16 import INSERT_EVENT, INSERT_EVENT_ARRAY, event_rows
from .indexer import bytes_text, cirrus_timestamp
from .mapping16 import ZERO_COUNT, add_counts
from .strato16 import BLOCKAPPS, Strato16, physical
from .write16 import (
    INSERT_MAPPING_HISTORY,
    RETURNING_HISTORY,
    STAMP,
    UPSERT_STORAGE,
    history_rows,
    storage_upserts,
    write_mapping,
    write_mapping_in_order,
)

AcctKey = tuple[str, int]


class Batch16:
    """Rows of several blocks gathered for one statement per table (see Indexer16.batch)."""

    def __init__(self) -> None:
        self.storage: list[tuple[Any, ...]] = []
        self.events: list[tuple[Any, ...]] = []
        self.arrays: list[tuple[Any, ...]] = []
        self.mapping: list[list[tuple[Any, ...]]] = []  # write_mapping's rows, call by call


# ------------------------------------------------------------ value encodings


def _addr(v: Any, zero: str = "") -> str:
    if isinstance(v, Address):
        return zero if v.value == 0 else v.hex
    return str(v)


def storage_text(v: Any, t: Type) -> str:
    """A state variable in ``storage.data``: always a string (apostrophes of strings dropped,
    the zero address as ``""``, enums as their index, a struct as JSON text)."""
    if isinstance(t, BoolType):
        return "true" if v else "false"
    if isinstance(t, StructType):
        return json.dumps(struct_object(v, t), separators=(",", ":"))
    if isinstance(v, Address):
        return _addr(v)
    if isinstance(v, bytes):
        return bytes_text(v)
    if isinstance(v, str):
        return v.replace("'", "")
    return str(v)


def struct_field(v: Any, t: Type) -> Any:
    """A member of a struct: numbers and enums as strings, booleans as booleans, addresses
    as 40 hex digits (zeros included)."""
    if v is None:
        return None
    if isinstance(t, StructType):
        return struct_object(v, t)
    if isinstance(t, ArrayType):
        return [struct_field(x, t.elem) for x in v]
    if isinstance(t, MappingType):
        return {key_text(k): struct_field(x, t.value) for k, x in v.items()}
    if isinstance(t, BoolType):
        return bool(v)
    if isinstance(v, Address):
        return v.hex
    if isinstance(v, bytes):
        return bytes_text(v)
    return str(v)


def struct_object(v: Any, t: StructType) -> dict[str, Any]:
    get = v.get if isinstance(v, dict) else (lambda _n: None)
    return {n: struct_field(get(n), ft) for n, ft in t.fields}


def mapping_value(v: Any, t: Type) -> Any:
    """An entry in ``mapping.value``: integers and enums as numbers, booleans, addresses as
    hex (zero: ``""``), a struct as an object (see :func:`struct_field`)."""
    if isinstance(t, StructType):
        return struct_object(v, t) if v is not None else None
    if isinstance(t, IntType | EnumType):
        return int(v)
    if isinstance(t, BoolType):
        return bool(v)
    if isinstance(t, DecimalType):
        return str(v)
    if isinstance(v, Address):
        return _addr(v)
    if isinstance(v, bytes) or isinstance(t, BytesType):
        return bytes_text(v)
    if isinstance(t, ArrayType | MappingType):
        return struct_field(v, t)
    return str(v)


def zero_value(t: Type) -> Any:
    if isinstance(t, IntType | EnumType):
        return 0
    if isinstance(t, BoolType):
        return False
    if isinstance(t, StructType):
        return None
    return ""


def key_text(k: Any) -> str:
    if isinstance(k, bool):
        return "true" if k else "false"
    if isinstance(k, Address):
        return k.hex
    if isinstance(k, bytes):
        return bytes_text(k)
    return str(k)


def first_key(k: Any, t: Type) -> Any:
    """The first key as the collection view's ``key`` column stores it (by its type)."""
    if isinstance(t, IntType):
        return encode_int(int(k))
    if isinstance(t, BoolType):
        return 1 if k else 0
    return key_text(k)


def indexed_vars(acct: AccountState) -> list[StateVar]:
    """The variables ``storage.data`` holds: the account's own and those of the code that ran
    on it through delegatecall (a proxy's logic), arrays and mappings left out; in the order
    jsonb keeps an object's members (shorter names first, then by bytes)."""
    cdef = acct.cdef
    assert cdef is not None
    out = [sv for sv in cdef.state_vars if not sv.constant]
    out += delegated_vars(acct)
    kept = [sv for sv in out if not isinstance(sv.type, ArrayType | MappingType)]
    return sorted(kept, key=lambda sv: (len(sv.name.encode()), sv.name.encode()))


StoredValues = list[tuple[str, Any, Type]]  # (variable, value, type): see Indexer16._stored
_EXACT = frozenset({int, str, bytes, bool})  # values whose == says their texts are the same


class Stored:
    """The values ``storage.data`` is made of, taken while sealing, and its text once made
    (by the writer, off the sealing lock): an account whose variables kept their values
    hands the next block the same object (:meth:`Indexer16._stored`), so the text is made
    once per change rather than once per block."""

    __slots__ = ("_text", "values")

    def __init__(self, values: StoredValues) -> None:
        self.values = values
        self._text: str | None = None

    def text(self) -> str:
        t = self._text
        if t is None:
            t = self._text = stored_json(self.values)
        return t

    def same(self, values: StoredValues) -> bool:
        """Whether ``values`` make the same text (the same objects, or equal numbers, strings
        or bytes: a struct is taken as its text)."""
        mine = self.values
        if len(mine) != len(values):
            return False
        for (n, v, t), (n2, v2, t2) in zip(mine, values, strict=True):
            if n != n2 or t is not t2:
                return False
            if v is not v2 and not (type(v) is type(v2) and type(v) in _EXACT and v == v2):
                return False
        return True


def stored_json(stored: StoredValues) -> str:
    """``storage.data`` as stored (encoding.encode_json of an object of strings, the members
    already in jsonb's order)."""
    data = {name: v if isinstance(t, StructType) else storage_text(v, t) for name, v, t in stored}
    return "5" + compact_json(data)


def data_json(acct: AccountState, svars: list[StateVar]) -> str:
    """``storage.data`` of ``acct`` as it is now (``svars``: :func:`indexed_vars`)."""
    st = acct.storage
    data = {
        sv.name: storage_text(st[sv.name], sv.type)
        for sv in svars
        if st.get(sv.name, MISSING) is not MISSING
    }
    return "5" + compact_json(data)


BlockRows = tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]


# ------------------------------------------------------------ the writer

_UNBUILT: Any = object()


def no_clock() -> float:
    """The clock of work not measured (a thread CPU clock is a system call)."""
    return 0.0


class Staged:
    """A write taken while sealing, in two steps: ``build`` makes rows from the values taken
    (pure Python that reads nothing live), ``write`` writes them. Calling it does both
    (building first when nobody did): a drain calls it."""

    __slots__ = ("_build", "_built", "_write")

    def __init__(self, build: Callable[[], Any], write: Callable[[Any], None]) -> None:
        self._build = build
        self._write = write
        self._built: Any = _UNBUILT

    def build(self) -> None:
        if self._built is _UNBUILT:
            self._built = self._build()

    def __call__(self) -> None:
        self.build()
        self._write(self._built)


class Indexer16:
    def __init__(self, schema: Strato16, world: World) -> None:
        self.schema = schema
        self.world = world
        self.db = schema.db
        self.creators: dict[AcctKey, str] = {}  # the code collection creator of an account
        self.code_creators: dict[int, tuple[ContractDef, str]] = {}  # by id of the code
        self.created: list[tuple[AcctKey, str, list[ContractDef]]] = []  # this block
        self.layouts: set[tuple[AcctKey, str]] = set()  # delegate code stamped on accounts
        # set while a block is sealed: the writes, taken with the block's values, go there to be
        # run later in block order (behind16.py); None: written at once
        self.capture: list[Callable[[], None]] | None = None
        self.batch: Batch16 | None = None  # set: rows gathered for write_batch
        # the variables storage.data holds (name, type, whether a struct), by id of the account
        # (with its code and layouts), and the values last taken of them (see _stored)
        self._svars: dict[
            int,
            tuple[
                AccountState, ContractDef | None, int, list[tuple[str, Type, bool]], Stored | None
            ],
        ] = {}
        # event plans (see _event_plans) by (chain, address, event), with the account, its code
        # and its number of layouts they were made for
        self._plans: dict[
            tuple[str, str, str],
            tuple[AccountState | None, ContractDef | None, int, list[Type | None]],
        ] = {}
        self.cpu = 0.0  # thread CPU seconds taking blocks' values while capturing (benchmarks)
        self.clock: Callable[[], float] = no_clock  # time.thread_time when they are measured

    def clear(self) -> None:
        """Forget the block's pending work (its transactions were rolled back)."""
        self.created.clear()

    def creator_of(self, key: AcctKey) -> str:
        c = self.creators.get(key)
        if c is None:
            row = self.db.execute(
                f"SELECT creator FROM {physical('contract')} WHERE address = ? AND _chain = ? "
                "ORDER BY rowid LIMIT 1",
                (format(key[1], "040x"), key[0]),
            ).fetchone()
            c = self.creators[key] = row[0] if row else BLOCKAPPS
        return c

    def note(self, res: ExecResult, unit: CompiledUnit | None) -> None:
        """A successful transaction's created contracts, each with the creator of its code
        collection: BlockApps for a transaction's upload, the ``username`` up the call stack
        for the create builtins, the creating contract's for ``new``."""
        world = self.world
        for chain, addr in res.created:
            key = (chain, int(addr, 16))
            acct = world.accounts.get(key)
            if acct is None or acct.cdef is None:
                continue
            creator = res.collections.get((chain, addr))
            fresh = creator is not None or acct.creator is None
            if creator is None:
                creator = (
                    BLOCKAPPS if acct.creator is None else self.creator_of((chain, acct.creator))
                )
            self.creators[key] = creator
            defs = list(acct.cdef.linearization)
            if fresh and unit is not None and acct.creator is None:
                defs += [c for c in unit.contracts.values() if c not in defs]
            self.created.append((key, creator, defs))

    def adopt(self, key: AcctKey, acct: AccountState) -> None:
        """An existing contract indexed as if created now (a data dir from before these
        tables): its collection's creator is BlockApps, or its creating contract's."""
        if acct.cdef is None:
            return
        creator = BLOCKAPPS if acct.creator is None else self.creator_of((key[0], acct.creator))
        self.creators[key] = creator
        self.created.append((key, creator, list(acct.cdef.linearization)))

    def flush(
        self,
        block: tuple[int, str, int],
        touched: list[AcctKey],
        events: list[tuple[str, str, str, str, str, str]],
        senders: dict[str, str],
        numbers: list[int] | None = None,
    ) -> None:
        """The block's rows. ``events``: (tx hash, chain, address, contract, name, args JSON)
        in order; ``senders``: tx hash -> origin; ``numbers``: each event's place in the block
        (1, 2, ... when None; a block indexed contract by contract writes a part of its
        events). While :attr:`capture` is set, what depends on state that later blocks change
        is taken now and the rest is left to :attr:`capture` (written behind the chain)."""
        started = self.clock()
        created, self.created = self.created, []
        states: list[tuple[AcctKey, AccountState, tuple[ContractDef, ...], Stored]] = []
        keys = dict.fromkeys([*(k for k, _, _ in created), *touched]) if created else touched
        accounts = self.world.accounts
        for key in keys:
            acct = accounts.get(key)
            if acct is None or acct.cdef is None:
                continue
            states.append((key, acct, tuple(acct.layouts or ()), self._stored(acct)))
        plans = self._event_plans(events)
        job = Staged(
            partial(self._build_block, block, states, events, senders, numbers, plans),
            partial(self._write_block, block, created, states),
        )
        if self.capture is not None:
            self.capture.append(job)
            self.cpu += self.clock() - started
        else:
            job()

    def _event_plans(
        self, events: list[tuple[str, str, str, str, str, str]]
    ) -> dict[tuple[str, str, str], list[Type | None]]:
        """Per (chain, address, event) of ``events``: the arguments STRATO 16 renders otherwise
        (booleans, enums), by position, from the code at the address (taken while sealing:
        the rows are built from them off the sealing lock)."""
        plans: dict[tuple[str, str, str], list[Type | None]] = {}
        known = self._plans
        accounts = self.world.accounts
        for _tx, chain, address, _contract, name, _args in events:
            k = (chain, address, name)
            if k in plans:
                continue
            acct = accounts.get((chain, int(address, 16)))
            cdef = None if acct is None else acct.cdef
            n = len(acct.layouts) if acct is not None and acct.layouts else 0
            hit = known.get(k)
            if hit is None or hit[0] is not acct or hit[1] is not cdef or hit[2] != n:
                plan: list[Type | None] = [
                    t if isinstance(t, BoolType | EnumType) else None
                    for t in self._event_types(chain, address, name)
                ]
                hit = known[k] = (acct, cdef, n, plan)
            plans[k] = hit[3]
        return plans

    def _build_block(
        self,
        block: tuple[int, str, int],
        states: list[tuple[AcctKey, AccountState, tuple[ContractDef, ...], Stored]],
        events: list[tuple[str, str, str, str, str, str]],
        senders: dict[str, str],
        numbers: list[int] | None,
        plans: dict[tuple[str, str, str], list[Type | None]],
    ) -> BlockRows:
        """The ``storage``, ``event`` and ``event_array`` rows of :meth:`flush`, from the
        values it took alone."""
        number, block_hash, ts = block
        stamp = cirrus_timestamp(ts)
        storage = [
            (acct.hex, block_hash, stamp, number, stored.text(), key[0])
            for key, acct, _layouts, stored in states
        ]
        if not events:
            return storage, [], []
        rows, arrays = event_rows(events, senders, (number, block_hash, stamp), numbers, plans)
        return storage, rows, arrays

    def _write_block(
        self,
        block: tuple[int, str, int],
        created: list[tuple[AcctKey, str, list[ContractDef]]],
        states: list[tuple[AcctKey, AccountState, tuple[ContractDef, ...], Stored]],
        built: BlockRows,
    ) -> None:
        """The SQL of :meth:`flush`, from what it took and the rows built of it."""
        storage, events, arrays = built
        db = self.db
        world = self.world
        stamps = []
        for key, creator, defs in created:
            acct = world.accounts.get(key)
            if acct is None or acct.cdef is None:
                continue
            for d in defs:
                self.schema.register(creator, d)
                self.code_creators[id(d)] = (d, creator)
            addr = format(key[1], "040x")
            stamps += [(addr, creator, c.name, key[0]) for c in reversed(acct.cdef.linearization)]
        for key, acct, layouts, _stored in states:
            if layouts:
                stamps += self._layout_stamps(key, acct, layouts)
        b = self.batch
        if b is not None:
            b.storage += storage
        elif storage:
            db.executemany(UPSERT_STORAGE, storage)
        if stamps:
            db.executemany(STAMP, stamps)
        if b is not None:
            b.events += events
            b.arrays += arrays
            return
        if events:
            db.executemany(INSERT_EVENT, events)
        if arrays:
            db.executemany(INSERT_EVENT_ARRAY, arrays)

    def _stored(self, acct: AccountState) -> Stored:
        """The values ``storage.data`` is made of, as they are now (a struct as its text:
        later blocks may change it in place)."""
        n = len(acct.layouts) if acct.layouts else 0
        hit = self._svars.get(id(acct))
        if hit is None or hit[0] is not acct or hit[1] is not acct.cdef or hit[2] != n:
            plan = [
                (sv.name, sv.type, isinstance(sv.type, StructType)) for sv in indexed_vars(acct)
            ]
            hit = self._svars[id(acct)] = (acct, acct.cdef, n, plan, None)
        st = acct.storage
        out = []
        for name, t, struct in hit[3]:
            v = st.get(name, MISSING)
            if v is MISSING:
                continue
            out.append((name, storage_text(v, t) if struct else v, t))
        before = hit[4]
        if before is not None and before.same(out):
            return before
        taken = Stored(out)
        self._svars[id(acct)] = (*hit[:4], taken)
        return taken

    def _layout_stamps(
        self, key: AcctKey, acct: AccountState, layouts: tuple[ContractDef, ...]
    ) -> list[tuple[str, str, str, str]]:
        """A proxy gets the stamps of the code that ran on it through delegatecall."""
        out: list[tuple[str, str, str, str]] = []
        for cdef in layouts:
            mark = (key, cdef.name)
            if mark in self.layouts:
                continue
            self.layouts.add(mark)
            known = self.code_creators.get(id(cdef))
            if known is not None and known[0] is cdef:
                creator = known[1]
            else:
                row = self.db.execute(
                    f"SELECT creator FROM {physical('contract')} WHERE contract_name = ? "
                    "ORDER BY rowid LIMIT 1",
                    (cdef.name,),
                ).fetchone()
                creator = row[0] if row else BLOCKAPPS
            self.schema.register(creator, cdef)
            out += [(acct.hex, creator, c.name, key[0]) for c in reversed(cdef.linearization)]
        return out

    def _event_types(self, chain: str, address: str, name: str) -> list[Type]:
        """The argument types of event ``name`` as the code at ``address`` declares it (its
        own contract's, else that of the code that ran on it through delegatecall)."""
        acct = self.world.accounts.get((chain, int(address, 16)))
        if acct is None or acct.cdef is None:
            return []
        for cdef in [acct.cdef, *(acct.layouts or ())]:
            ev = cdef.events.get(name)
            if ev is not None:
                return [t for _, t, _ in ev.params]
        return []

    # ------------------------------------------------------------ mapping rows

    def write_entries(
        self,
        acct: AccountState,
        cv: CollectionVar,
        tops: list[Any] | None,
        block: tuple[str, str, int],
    ) -> None:
        """``mapping`` rows of the entries of ``cv`` under the top-level keys ``tops`` (every
        entry when None) that this block wrote; ``block``: (hash, timestamp, number). The
        values are taken now (encoded: nothing that later blocks change in place), the rows
        written now or, while :attr:`capture` is set, behind the chain."""
        started = self.clock()
        root = acct.storage.get(cv.name)
        depth = len(cv.key_types)
        vt = cv.value_type
        taken: list[tuple[Any, Any]] = []  # (top, value) or, nested, (top, [(path, value)])
        for top in [k for k, _ in items_of(root)] if tops is None else tops:
            v = item_at(root, top)
            if depth == 1:
                taken.append((top, zero_value(vt) if v is MISSING else mapping_value(v, vt)))
            else:
                found = [] if v is MISSING else leaves(v, depth - 1, (top,))
                taken.append((top, [(p, mapping_value(x, vt)) for p, x in found]))
        job: Callable[[], None]
        if depth == 1 and tops is not None:  # rows of the values alone: built off the lock
            job = Staged(
                partial(self._entry_rows, acct.hex, acct.chain, cv, taken, block), self._put_rows
            )
        else:
            job = partial(self._write_entries, acct.hex, acct.chain, cv, tops is None, taken, block)
        if self.capture is not None:
            self.capture.append(job)
            self.cpu += self.clock() - started
        else:
            job()

    def _entry_rows(
        self,
        addr: str,
        chain: str,
        cv: CollectionVar,
        taken: list[tuple[Any, Any]],
        block: tuple[str, str, int],
    ) -> list[tuple[Any, ...]]:
        """The ``mapping`` rows of the top-level entries ``taken`` of a one-level collection."""
        block_hash, stamp, number = block
        head = (addr, block_hash, stamp, str(number), cv.name, cv.kind)
        kts = cv.key_types
        return [self._row(head, cv.name, (top,), kts, val, chain) for top, val in taken]

    def _put_rows(self, rows: list[tuple[Any, ...]]) -> None:
        if rows and self.batch is not None:
            self.batch.mapping.append(rows)
        elif rows:
            write_mapping(self.db, self.schema.layout, rows)

    def _write_entries(
        self,
        addr: str,
        chain: str,
        cv: CollectionVar,
        whole: bool,
        taken: list[tuple[Any, Any]],
        block: tuple[str, str, int],
    ) -> None:
        """The SQL of :meth:`write_entries`, from the values it took."""
        block_hash, stamp, number = block
        kts = cv.key_types
        depth = len(kts)
        head = (addr, block_hash, stamp, str(number), cv.name, cv.kind)
        db = self.db
        if self.batch is not None and (whole or depth > 1):
            self.write_batch()  # what follows reads and updates the rows written before
        if whole:
            # a variable replaced: entries it no longer has read as zero
            zeroed = db.execute(
                f"UPDATE {physical('mapping')} SET value = '0', _shown = 0, block_hash = ?, "
                "block_timestamp = ?, block_number = ? WHERE address = ? AND _chain = ? AND "
                "collection_name = ? AND value != '0'" + RETURNING_HISTORY,
                (block_hash, stamp, str(number), addr, chain, cv.name),
            ).fetchall()
            if zeroed:
                db.executemany(INSERT_MAPPING_HISTORY, history_rows(zeroed))
            db.execute(ZERO_COUNT, (cv.name, addr, chain))  # every row hidden now
        rows = []
        gone_shown = 0
        for top, val in taken:
            if depth == 1:
                rows.append(self._row(head, cv.name, (top,), kts, val, chain))
                continue
            mine = [self._row(head, cv.name, p, kts, x, chain) for p, x in val]
            paths = {r[7] for r in mine}
            old = db.execute(
                f"SELECT path, _shown FROM {physical('mapping')} WHERE _k1 = ? AND "
                "collection_name = ? AND address = ? AND _chain = ?",
                (first_key(top, kts[0]), cv.name, addr, chain),
            ).fetchall()
            gone = [(addr, chain, p) for p, _ in old if p not in paths]
            gone_shown += sum(1 for p, was in old if p not in paths and was)
            for g in gone:
                zeroed = db.execute(
                    f"UPDATE {physical('mapping')} SET value = '0', _shown = 0 "
                    "WHERE address = ? AND "
                    "_chain = ? AND path = ?" + RETURNING_HISTORY,
                    g,
                ).fetchall()
                db.executemany(INSERT_MAPPING_HISTORY, history_rows(zeroed))
            rows += mine
        if gone_shown:
            add_counts(db, {(cv.name, addr, chain): -gone_shown})
        self._put_rows(rows)

    # ------------------------------------------------------------ many blocks at once

    def begin_batch(self) -> None:
        """From here on, storage, event and mapping rows are gathered (in block order) and
        written by :meth:`write_batch`: a few statements for many blocks (behind16.py)."""
        self.batch = Batch16()

    def end_batch(self, write: bool = True) -> None:
        try:
            if write:
                self.write_batch()
        finally:
            self.batch = None

    def write_batch(self) -> None:
        b = self.batch
        if b is None:
            return
        self.batch = None
        db = self.db
        try:
            if b.storage:
                db.executemany(UPSERT_STORAGE, storage_upserts(b.storage))
            if b.events:
                db.executemany(INSERT_EVENT, b.events)
            if b.arrays:
                db.executemany(INSERT_EVENT_ARRAY, b.arrays)
            if b.mapping:
                write_mapping_in_order(db, self.schema.layout, b.mapping)
        finally:
            self.batch = Batch16()

    @staticmethod
    def _row(
        head: tuple[Any, ...],
        name: str,
        path: tuple[Any, ...],
        kts: tuple[Type, ...],
        value: Any,
        chain: str,
    ) -> tuple[Any, ...]:
        if len(path) == 1:
            p0 = path[0]
            t0 = p0.hex if type(p0) is Address else key_text(p0)  # (the usual key: at once)
            key = '5{"key":' + json_string(t0) + "}"
            where = f"{name}[{t0}]"
            k0 = kts[0]
            k1 = t0 if not isinstance(k0, IntType | BoolType) else first_key(p0, k0)
            stored = "2" + encode_int(value) if type(value) is int else encode_json(value)
            return (*head, key, where, stored, chain, k1)
        texts = [key_text(k) for k in path]
        key = encode_json({("key" if i == 0 else f"key{i + 1}"): t for i, t in enumerate(texts)})
        where = name + "".join(f"[{t}]" for t in texts)
        return (*head, key, where, encode_json(value), chain, first_key(path[0], kts[0]))
