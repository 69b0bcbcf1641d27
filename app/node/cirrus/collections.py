"""Cirrus collection tables: one row per entry of each mapping and array state variable.

STRATO 16 indexes every contract's mappings and arrays as collection tables named
``<contract table>-<variable>``: the block columns, ``collection_name``, ``collection_type``
(``Mapping`` or ``Array``, after the outermost container), one key column per level (``key``,
``key2`` ...: numbers for integer keys and array indexes, text otherwise, booleans for bool keys)
and ``value`` (jsonb). The platform's view drops entries whose value is null, ``""``, ``0`` or
``false``: here an entry holding its type's zero value has no row.

Rows follow the state entry by entry, at the cost of what changed. After each successful
transaction the undo journal names every container written: a variable's top-level mapping or
array (the journal key is the entry's top-level key), an account's storage dict (a whole
variable replaced), or a container nested below an entry, which :attr:`CollectionIndexer.owners`
maps to its variable and top-level key. At the end of the block only the entries under the
changed top-level keys are rebuilt and compared with their rows, in the block's own commit.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..solidvm.defs import ContractDef
from ..solidvm.proxies import delegated_vars
from ..solidvm.runtime import MISSING, POPPED, PUSHED, REPLACED
from ..solidvm.types import (
    AccountType,
    ArrayType,
    BoolType,
    BytesType,
    DecimalType,
    EnumType,
    IntType,
    MappingType,
    StringType,
    StructType,
    Type,
)
from ..solidvm.values import Address, ArrayValue, MappingValue, StructValue, is_default
from ..solidvm.world import AccountState, World
from .backend import CirrusBackend, Table
from .entries import COLLECTION_COLUMNS, sync_entries
from .indexer import bytes_text, cirrus_timestamp
from .values import Column

log = logging.getLogger("stratoscope.node")

AcctKey = tuple[str, int]  # (chain, address), as World.accounts is keyed
TxRef = tuple[str, str]  # (transaction hash, sender) of the last change
Stamp = tuple[int, TxRef]  # a transaction's sequence number (orders changes) and TxRef
Path = tuple[Any, ...]  # keys from the variable down to an entry (or a level above it)
UINT = IntType(False)


@dataclass(frozen=True)
class CollectionVar:
    """A mapping or array state variable: its key types (one per level) and entry type."""

    name: str
    kind: str  # "Mapping" | "Array" (the outermost container)
    key_types: tuple[Type, ...]
    value_type: Type

    @cached_property
    def nested(self) -> bool:
        """True when containers live below the top level (nested keys or struct entries)."""
        return len(self.key_types) > 1 or self.value_type.complex

    def columns(self) -> list[Column]:
        keys = [Column(key_name(i), key_kind(t)) for i, t in enumerate(self.key_types)]
        value = Column("value", "json")
        cols = [Column(n, k) for n, k in COLLECTION_COLUMNS]
        # the platform's view lists a struct's value after the keys, others before
        return cols + (
            [*keys, value] if isinstance(self.value_type, StructType) else [value, *keys]
        )


def collection_var(name: str, t: Type) -> CollectionVar | None:
    if not isinstance(t, MappingType | ArrayType):
        return None
    kind = "Mapping" if isinstance(t, MappingType) else "Array"
    keys: list[Type] = []
    while True:
        if isinstance(t, MappingType):
            keys.append(t.key)
            t = t.value
        elif isinstance(t, ArrayType):
            keys.append(UINT)
            t = t.elem
        else:
            return CollectionVar(name, kind, tuple(keys), t)


def key_name(level: int) -> str:
    return "key" if level == 0 else f"key{level + 1}"


def key_kind(t: Type) -> str:
    if isinstance(t, IntType):
        return "int"
    if isinstance(t, BoolType):
        return "bool"
    return "text"  # addresses, strings, bytes, enums (the platform's view keeps them as text)


def key_value(k: Any, t: Type) -> Any:
    """A key as its column holds it (addresses as hex: the platform's storage path has no
    chain for account keys)."""
    if isinstance(t, IntType):
        return int(k)
    if isinstance(t, BoolType):
        return bool(k)
    if isinstance(k, Address):
        return k.hex
    if isinstance(k, bytes):
        return bytes_text(k)
    return str(k)


def entry_value(v: Any, t: Type) -> Any:
    """An entry as the platform's jsonb ``value`` holds it: integers and enums as numbers,
    decimals as strings, a struct as an object of its fields."""
    if isinstance(t, StructType):
        return struct_object(v, t)
    if isinstance(t, IntType):
        return int(v)
    if isinstance(t, EnumType):
        return int(v)
    return field_value(v, t)


def struct_object(v: Any, t: StructType) -> dict[str, Any]:
    return {n: field_value(v.get(n), ft) for n, ft in t.fields}


def field_value(v: Any, t: Type) -> Any:
    """A struct member as the platform's view builds it: integers and decimals as strings,
    enums by name, an unset address as ``""``."""
    if v is None:
        return None
    if isinstance(t, StructType):
        return struct_object(v, t)
    if isinstance(t, ArrayType):
        return [field_value(x, t.elem) for x in v]
    if isinstance(t, MappingType):
        return {
            str(key_value(k, t.key)): field_value(x, t.value)
            for k, x in v.items()
            if not is_default(x)
        }
    if isinstance(t, BoolType):
        return bool(v)
    if isinstance(t, EnumType):
        return t.values[v] if isinstance(v, int) and 0 <= v < len(t.values) else str(v)
    if isinstance(t, IntType | DecimalType | StringType):
        return str(v)
    if isinstance(t, BytesType) or isinstance(v, bytes):
        return bytes_text(v)
    if isinstance(v, Address):
        if v.value == 0:
            return ""
        return v.account_text() if isinstance(t, AccountType) else v.hex
    return str(v)


def item_at(c: Any, k: Any) -> Any:
    """Entry ``k`` of a mapping or array (storage arrays keep elements written past the end)."""
    if isinstance(c, dict):
        return c.get(k, MISSING)
    if isinstance(c, list) and type(k) is int:
        if 0 <= k < len(c):
            return c[k]
        beyond = getattr(c, "beyond", None)
        return beyond.get(k, MISSING) if beyond else MISSING
    return MISSING


def items_of(c: Any) -> Iterator[tuple[Any, Any]]:
    if isinstance(c, dict):
        yield from c.items()
    elif isinstance(c, list):
        yield from enumerate(c)
        beyond = getattr(c, "beyond", None)
        if beyond:
            n = len(c)
            yield from sorted((i, x) for i, x in beyond.items() if i >= n)


def leaves(v: Any, depth: int, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(keys, entry) of every entry below ``v``, ``depth`` levels of keys further down."""
    if depth == 0:
        yield path, v
        return
    for k, x in items_of(v):
        yield from leaves(x, depth - 1, (*path, k))


def containers(v: Any) -> Iterator[Any]:
    """Every container within ``v`` (itself included) that a write can name in the journal."""
    if isinstance(v, MappingValue | StructValue):
        yield v
        for x in v.values():
            if isinstance(x, dict | list):
                yield from containers(x)
    elif isinstance(v, ArrayValue):
        yield v
        beyond = v.beyond
        if beyond is not None:
            yield beyond
            for x in beyond.values():
                if isinstance(x, dict | list):
                    yield from containers(x)
        for x in v:
            if isinstance(x, dict | list):
                yield from containers(x)


def containers_at(v: Any, path: tuple[Any, ...], left: int) -> Iterator[tuple[Any, Path]]:
    """(container, key path) of every container below an entry ``path`` with ``left`` more
    levels of keys: a mapping or array of a lower level has the keys above it, a container
    within an entry's value (a struct, its members) the entry's keys."""
    if not isinstance(v, dict | list):
        return
    if left == 0:
        for c in containers(v):
            yield c, path
        return
    yield v, path
    beyond = getattr(v, "beyond", None)
    if beyond is not None:
        yield beyond, path
    for k, x in items_of(v):
        yield from containers_at(x, (*path, k), left - 1)


@dataclass
class Change:
    """What changed in one variable this block: every entry (``whole``), and/or the entries
    under some key paths (a top-level key at least); each with its last change's stamp."""

    whole: Stamp | None = None
    keys: dict[Path, Stamp] = field(default_factory=dict)
    last: Stamp = (0, ("", ""))

    def tx_of(self, path: Path) -> TxRef:
        """The transaction that last changed the entry at ``path`` (or something above it);
        an entry beside the changed ones (its row is left as it is) gets the latest."""
        best = self.whole
        for i in range(1, len(path) + 1):
            s = self.keys.get(path[:i])
            if s is not None and (best is None or s[0] > best[0]):
                best = s
        return (best or self.last)[1]

    def tops(self) -> list[Any]:
        return list(dict.fromkeys(p[0] for p in self.keys))


Marked = dict[tuple[int, str, Any], tuple[AccountState, CollectionVar, Any]]


class CollectionIndexer:
    def __init__(self, backend: CirrusBackend, world: World) -> None:
        self.backend = backend
        self.world = world
        self._vars: dict[int, tuple[ContractDef, dict[str, CollectionVar]]] = {}
        # nested containers of registered variables -> (account, variable, key path)
        self.owners: dict[int, tuple[AcctKey, str, Path]] = {}
        # registered variables: every nested container is in ``owners``, by top-level key
        self.under: dict[tuple[AcctKey, str], dict[Any, list[int]]] = {}
        self.pending: dict[AcctKey, dict[str, Change]] = {}
        self._seq = 0  # orders the transactions' changes
        self._tops: dict[int, tuple[AccountState, dict[int, Any]]] = {}  # see _tops_of
        self._refused: set[str] = set()  # tables not written (name taken, other key types)
        self._tables: dict[str, tuple[CollectionVar, Table]] = {}  # checked and complete
        self._delegated: dict[int, tuple[AccountState, int, dict[str, CollectionVar]]] = {}
        # also told of every flushed change: (account, variable, top-level keys or None for
        # every entry, (block hash, Cirrus timestamp, number)) -- STRATO 16's mapping rows
        self.sinks: list[
            Callable[[AccountState, CollectionVar, list[Any] | None, tuple[str, str, int]], None]
        ] = []

    def vars_of(self, cdef: ContractDef | None) -> list[CollectionVar]:
        return list(self.named_vars(cdef).values())

    def named_vars(self, cdef: ContractDef | None) -> dict[str, CollectionVar]:
        """The collection variables of a contract, by name, in declaration order."""
        if cdef is None:
            return {}
        hit = self._vars.get(id(cdef))
        if hit is not None and hit[0] is cdef:
            return hit[1]
        out = {}
        for sv in cdef.state_vars:
            cv = None if sv.constant else collection_var(sv.name, sv.type)
            if cv is not None:
                out[cv.name] = cv
        self._vars[id(cdef)] = (cdef, out)
        return out

    def var_named(self, acct: AccountState, name: str) -> CollectionVar | None:
        return self.tracked_vars(acct).get(name)

    def tracked_vars(self, acct: AccountState) -> dict[str, CollectionVar]:
        """The collection variables whose changes are followed: the account's own contract's,
        and those of the code that ran on it through delegatecall (a proxy keeps its logic's),
        which only the sinks are told of."""
        own = self.named_vars(acct.cdef)
        layouts = acct.layouts
        if not layouts:
            return own
        key = id(acct)
        hit = self._delegated.get(key)
        if hit is not None and hit[0] is acct and hit[1] == len(layouts):
            return hit[2]
        out = dict(own)
        for sv in delegated_vars(acct):
            cv = collection_var(sv.name, sv.type)
            if cv is not None:
                out.setdefault(cv.name, cv)
        self._delegated[key] = (acct, len(layouts), out)
        return out

    # ------------------------------------------------------------ tracking

    def _change(self, acct: AccountState, name: str) -> Change:
        per = self.pending.setdefault((acct.chain, acct.address), {})
        ch = per.get(name)
        if ch is None:
            ch = per[name] = Change()
        return ch

    def mark_all(self, acct: AccountState, cv: CollectionVar, tx: TxRef) -> None:
        """Every entry of a variable changed (by transaction ``tx``)."""
        self._seq += 1
        self._mark_all(acct, cv, (self._seq, tx))

    def _mark_all(self, acct: AccountState, cv: CollectionVar, stamp: Stamp) -> None:
        ch = self._change(acct, cv.name)
        ch.whole = ch.last = stamp
        ch.keys.clear()
        self.forget(acct, cv)

    def _mark(
        self, acct: AccountState, cv: CollectionVar, prefix: Path, stamp: Stamp, marked: Marked
    ) -> None:
        if not prefix:
            self._mark_all(acct, cv, stamp)
            return
        ch = self._change(acct, cv.name)
        ch.keys[prefix] = ch.last = stamp
        if cv.nested:
            marked[(id(acct), cv.name, prefix[0])] = (acct, cv, prefix[0])

    def note_tx(
        self,
        journal: list[tuple[Any, Any, Any]],
        accts: Iterable[AccountState],
        created: set[AcctKey],
        tx: TxRef,
    ) -> None:
        """Record which entries one successful transaction changed, from its journal."""
        self._seq += 1
        stamp = (self._seq, tx)
        tops: dict[int, tuple[AccountState, CollectionVar | None]] = {}
        named: dict[AcctKey, dict[str, CollectionVar]] = {}
        for acct in accts:
            cvs = self.tracked_vars(acct)
            if not cvs:
                continue
            key = (acct.chain, acct.address)  # (not ``k``: mypyc types a name once)
            if key in created:
                for cv in cvs.values():  # a new contract: all entries, the constructor's too
                    self._mark_all(acct, cv, stamp)
                continue
            named[key] = cvs
            mine = self._tops_of(acct, cvs)
            tops = {**tops, **mine} if tops else mine  # the cached dict itself stays as it is
        if not tops:
            return
        marked: Marked = {}
        list_ops: dict[int, tuple[AccountState, CollectionVar, Path, Any, list[Any]]] = {}
        unresolved: list[tuple[Any, Any]] = []
        owners = self.owners
        for c, k, _old in journal:
            hit = tops.get(id(c))
            if hit is not None:
                acct, var = hit
                if var is None:  # a whole variable assigned
                    self._tops.pop(id(acct), None)
                    whole = named[(acct.chain, acct.address)].get(k)
                    if whole is not None:
                        self._mark_all(acct, whole, stamp)
                elif k is PUSHED or k is POPPED or k is REPLACED:
                    list_ops.setdefault(id(c), (acct, var, (), c, []))[4].append(k)
                else:  # an entry of a variable's top level (a balance ...)
                    ch = self._change(acct, var.name)
                    ch.keys[(k,)] = ch.last = stamp
                    if var.nested:
                        marked[(id(acct), var.name, k)] = (acct, var, k)
                continue
            owner = owners.get(id(c))
            if owner is None:
                # neither the transaction's own records (plain lists: contracts created,
                # events) nor the sets of accounts (the dirty set, the world's table)
                if type(c) is not list and not (
                    isinstance(c, dict) and type(c.get(k)) is AccountState
                ):
                    unresolved.append((c, k))
                continue
            target = self._owner(owner)
            if target is not None:
                self._touch(*target, owner[2], c, k, stamp, marked, list_ops)
        for acct, cv, path, c, ops in list_ops.values():
            self._note_list_ops(acct, cv, path, c, ops, stamp, marked)
        self._register_marked(marked)
        if unresolved:
            self._resolve(unresolved, named, stamp)

    def _tops_of(
        self, acct: AccountState, cvs: dict[str, CollectionVar]
    ) -> dict[int, tuple[AccountState, CollectionVar | None]]:
        """The account's storage dict and its variables' top-level containers, by id; kept
        until a whole variable is assigned (or an array's elements past its end appear)."""
        hit = self._tops.get(id(acct))
        if hit is not None and hit[0] is acct:
            return hit[1]
        st = acct.storage
        tops: dict[int, tuple[AccountState, CollectionVar | None]] = {id(st): (acct, None)}
        for cv in cvs.values():
            c = st.get(cv.name)
            tops[id(c)] = (acct, cv)
            beyond = getattr(c, "beyond", None)
            if beyond is not None:
                tops[id(beyond)] = (acct, cv)
        self._tops[id(acct)] = (acct, tops)
        return tops

    def _owner(self, owner: tuple[AcctKey, str, Path]) -> tuple[AccountState, CollectionVar] | None:
        acct = self.world.accounts.get(owner[0])
        cv = self.var_named(acct, owner[1]) if acct is not None else None
        return None if acct is None or cv is None else (acct, cv)

    def _touch(
        self,
        acct: AccountState,
        cv: CollectionVar,
        path: Path,
        c: Any,
        k: Any,
        stamp: Stamp,
        marked: Marked,
        list_ops: dict[int, tuple[AccountState, CollectionVar, Path, Any, list[Any]]],
    ) -> None:
        """A write ``c[k]`` into the container at key path ``path`` of variable ``cv``."""
        depth = len(cv.key_types)
        if len(path) >= depth:  # within an entry's value (a struct member ...)
            self._mark(acct, cv, path[:depth], stamp, marked)
        elif k is PUSHED or k is POPPED or k is REPLACED:
            list_ops.setdefault(id(c), (acct, cv, path, c, []))[4].append(k)
        else:
            self._mark(acct, cv, (*path, k), stamp, marked)

    def _note_list_ops(
        self,
        acct: AccountState,
        cv: CollectionVar,
        path: Path,
        c: list[Any],
        ops: list[Any],
        stamp: Stamp,
        marked: Marked,
    ) -> None:
        """Pushes and pops of an array: the indexes they touched, found by walking its length
        back from the end of the transaction."""
        n = len(c)
        for op in ops[::-1]:  # (mypyc cannot compile reversed() of a list[Any])
            if op is REPLACED:  # the contents replaced (a length set, a copy): every index
                self._mark(acct, cv, path, stamp, marked)
                return
        for op in ops[::-1]:
            if op is PUSHED:  # the element pushed sits at the length before the push
                n -= 1
                idx = n
            else:  # the element popped sat at the length after the pop
                idx = n
                n += 1
            self._mark(acct, cv, (*path, idx), stamp, marked)

    def _register_marked(self, marked: Marked) -> None:
        """Register the containers now below changed entries of registered variables, so that
        later writes into them resolve."""
        for acct, cv, top in marked.values():
            if cv.nested and ((acct.chain, acct.address), cv.name) in self.under:
                self.register(acct, cv, top)

    def _resolve(
        self,
        unresolved: list[tuple[Any, Any]],
        named: dict[AcctKey, dict[str, CollectionVar]],
        stamp: Stamp,
    ) -> None:
        """Writes into containers not in ``owners``: either memory (values the code built) or
        containers of nested variables never walked since the start or a whole assignment.
        Walk those of the accounts this transaction touched, once, and look again."""
        world = self.world
        skip = {id(world.nonces), id(world.balances)}
        left = [(c, k) for c, k in unresolved if id(c) not in skip]
        marked: Marked = {}
        list_ops: dict[int, tuple[AccountState, CollectionVar, Path, Any, list[Any]]] = {}
        if left:
            # an array's first element past its end brings a new container at the top level
            tops: dict[int, tuple[AccountState, CollectionVar | None]] = {}
            for akey, cvs in named.items():
                acct = world.accounts.get(akey)
                if acct is not None:
                    self._tops.pop(id(acct), None)
                    tops.update(self._tops_of(acct, cvs))
            rest = []
            for c, k in left:
                hit = tops.get(id(c))
                if hit is not None and hit[1] is not None:
                    self._touch(hit[0], hit[1], (), c, k, stamp, marked, list_ops)
                else:
                    rest.append((c, k))
            left = rest
        walked = False
        if left:
            for akey, cvs in named.items():
                acct = world.accounts.get(akey)
                if acct is None:
                    continue
                for cv in cvs.values():
                    if cv.nested and (akey, cv.name) not in self.under:
                        self.register_all(acct, cv)
                        walked = True
        if walked:
            for c, k in left:
                owner = self.owners.get(id(c))
                target = self._owner(owner) if owner is not None else None
                if owner is not None and target is not None:
                    self._touch(*target, owner[2], c, k, stamp, marked, list_ops)
        for acct, cv, path, c, ops in list_ops.values():
            self._note_list_ops(acct, cv, path, c, ops, stamp, marked)
        self._register_marked(marked)

    # ------------------------------------------------------------ container registry

    def forget(self, acct: AccountState, cv: CollectionVar) -> None:
        akey = (acct.chain, acct.address)
        reg = self.under.pop((akey, cv.name), None)
        if reg:
            owners = self.owners
            for ids in reg.values():
                for i in ids:
                    o = owners.get(i)
                    if o is not None and o[0] == akey and o[1] == cv.name:
                        del owners[i]

    def register_all(self, acct: AccountState, cv: CollectionVar) -> None:
        akey = (acct.chain, acct.address)
        self.forget(acct, cv)
        reg: dict[Any, list[int]] = {}
        self.under[(akey, cv.name)] = reg
        for top, v in items_of(acct.storage.get(cv.name)):
            self._register_under(akey, cv, top, v, reg)

    def register(self, acct: AccountState, cv: CollectionVar, top: Any) -> None:
        akey = (acct.chain, acct.address)
        reg = self.under[(akey, cv.name)]
        owners = self.owners
        for i in reg.pop(top, ()):
            o = owners.get(i)
            if o is not None and o[0] == akey and o[1] == cv.name and o[2][0] == top:
                del owners[i]
        v = item_at(acct.storage.get(cv.name), top)
        if v is not MISSING:
            self._register_under(akey, cv, top, v, reg)

    def _register_under(
        self, akey: AcctKey, cv: CollectionVar, top: Any, v: Any, reg: dict[Any, list[int]]
    ) -> None:
        if not isinstance(v, dict | list):
            return
        ids = []
        owners = self.owners
        for c, path in containers_at(v, (top,), len(cv.key_types) - 1):
            ids.append(id(c))
            owners[id(c)] = (akey, cv.name, path)
        if ids:
            reg[top] = ids

    # ------------------------------------------------------------ rows

    def table(self, name: str, cv: CollectionVar) -> Table | None:
        """The collection table, created when missing; None when the name is taken by another
        kind of table or by a collection with other key types (another contract version)."""
        t = self.backend.tables.get(name)
        known = self._tables.get(name)
        if t is not None and known is not None and known[0] is cv and known[1] is t:
            return t
        cols = cv.columns()
        if t is not None:
            wanted = [(c.name, c.kind) for c in cols if c.name.startswith("key")]
            have = [(n, t.columns[n].kind) for n in t.key_columns]
            if t.kind != "collection" or wanted != have:
                if name not in self._refused:
                    self._refused.add(name)
                    log.warning(
                        "Cirrus: collection %s not indexed: a table of that name with other "
                        "columns exists",
                        name,
                    )
                return None
        t = self.backend.ensure_table(name, "collection", cols)
        self._tables[name] = (cv, t)
        return t

    def entries(
        self, acct: AccountState, cv: CollectionVar, tops: Iterable[Any], ch: Change
    ) -> list[tuple[tuple[Any, ...], Any, TxRef]]:
        """(keys, value, transaction) of the entries under top-level keys ``tops``."""
        root = acct.storage.get(cv.name)
        depth = len(cv.key_types)
        kts = cv.key_types
        k0 = kts[0]
        vt = cv.value_type
        out: list[tuple[tuple[Any, ...], Any, TxRef]] = []
        if depth == 1 and isinstance(root, dict) and isinstance(vt, IntType):
            # the common case (balances): integers under one level of keys
            get = root.get
            last = ch.whole or ch.last
            marks = ch.keys
            for top in tops:
                v = get(top, 0)
                if v:
                    stamp = marks.get((top,), last)
                    if ch.whole is not None and stamp[0] < ch.whole[0]:
                        stamp = ch.whole
                    out.append(((key_value(top, k0),), int(v), stamp[1]))
            return out
        for top in tops:
            v = item_at(root, top)
            if v is MISSING:
                continue
            if depth == 1:
                if not is_default(v):
                    out.append(((key_value(top, k0),), entry_value(v, vt), ch.tx_of((top,))))
                continue
            for path, leaf in leaves(v, depth - 1, (top,)):
                if not is_default(leaf):
                    keys = tuple(key_value(k, kt) for k, kt in zip(path, kts, strict=True))
                    out.append((keys, entry_value(leaf, vt), ch.tx_of(path)))
        return out

    def flush(
        self,
        block: tuple[int, str, int],
        table_of: Callable[[AcctKey], str | None],
    ) -> None:
        """Write the rows of every entry changed since the last flush (inside the block's
        commit). ``table_of`` names an indexed contract's Cirrus table (None: not indexed)."""
        pending, self.pending = self.pending, {}
        number, block_hash, ts = block
        stamped = (block_hash, cirrus_timestamp(ts), number)
        for akey, changes in pending.items():
            acct = self.world.accounts.get(akey)
            base = table_of(akey)
            if acct is None or base is None:
                continue
            own = self.named_vars(acct.cdef)
            cvs = self.tracked_vars(acct)
            for name, ch in changes.items():
                cv = cvs.get(name)
                if cv is not None and name not in own:
                    # a proxy's variable of its logic: no seed table, STRATO 16's rows only
                    for sink in self.sinks:
                        sink(acct, cv, None if ch.whole is not None else ch.tops(), stamped)
                    continue
                t = self.table(f"{base}-{name}", cv) if cv is not None else None
                if cv is None or t is None:
                    continue
                self.write(acct, cv, t, ch, stamped)

    def write(
        self,
        acct: AccountState,
        cv: CollectionVar,
        t: Table,
        ch: Change,
        block: tuple[str, str, int],
    ) -> None:
        """``block``: (hash, Cirrus timestamp, number)."""
        owner = (acct.hex, acct.chain)
        what = (cv.name, cv.kind)
        for sink in self.sinks:
            sink(acct, cv, None if ch.whole is not None else ch.tops(), block)
        if ch.whole is not None:
            tops = [k for k, _ in items_of(acct.storage.get(cv.name))]
            found = self.entries(acct, cv, tops, ch)
            sync_entries(self.backend, t, owner, block, what, None, found)
            return
        tops = ch.tops()
        found = self.entries(acct, cv, tops, ch)
        k0 = cv.key_types[0]
        sync_entries(self.backend, t, owner, block, what, [key_value(k, k0) for k in tops], found)
