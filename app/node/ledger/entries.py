"""Which entries of contracts' mappings changed since the last snapshot.

A snapshot used to write each changed contract's whole storage as one JSON text: a token with
200,000 holders rewrote 9 MB every few seconds, inside the seal of the block that triggered it.
Now every top-level mapping variable keeps one row per entry (``storage_entries``) and a
snapshot writes only the entries the transactions since the last one changed.

The transactions' undo journals say what changed: ``(container, key, old value)`` per write. A
write into a top-level mapping names its key; a write deeper down (a struct field of
``holders[a]``, ``allowance[a][b]``) names a nested container, which :class:`EntryTracker`
maps back to the top-level key whose value holds it (every container below a tracked mapping is
registered, the object kept so that its id cannot be reused). A write it cannot place marks
more than needed, never less: losing an entry would lose state on restart.

The unit is a top-level key: a changed key's whole value is written again. For a mapping of
mappings (``balances[id][holder]``) that is the whole inner mapping of that ``id``.

Entries keep their mapping's order (the order of ``dict``, which the state routes show): rows
are read back by rowid; an updated entry keeps its row, a key inserted anew (``old`` missing)
is deleted and inserted again, at the end, as the ``dict`` put it.
"""

from __future__ import annotations

from typing import Any

from ..solidvm.runtime import MISSING, POPPED, PUSHED, REPLACED
from ..solidvm.types import ArrayType, MappingType, StructType, Type
from ..solidvm.world import AccountState

AcctKey = tuple[str, int]
Changed = dict[Any, bool]
"""Changed top-level keys of one variable, in the order they must be written; ``True`` when
the key was inserted anew (it moves to the end)."""

_LIST_OPS = (PUSHED, POPPED, REPLACED)


def split_vars(acct: AccountState) -> dict[str, MappingType]:
    """The variables of ``acct`` kept one row per entry: its own top-level mappings."""
    cdef = acct.cdef
    if cdef is None:
        return {}
    return {
        sv.name: sv.type
        for sv in cdef.state_vars
        if not sv.constant and isinstance(sv.type, MappingType)
    }


def _has_array(t: Type, seen: set[int] | None = None) -> bool:
    """Whether values of ``t`` can hold arrays (whose ``beyond`` dict appears lazily)."""
    seen = set() if seen is None else seen
    if id(t) in seen:
        return False
    seen.add(id(t))
    if isinstance(t, ArrayType):
        return True
    if isinstance(t, MappingType):
        return _has_array(t.value, seen)
    if isinstance(t, StructType):
        return any(_has_array(ft, seen) for _, ft in t.fields)
    return False


class EntryTracker:
    """Changed entries per contract and variable, from the journals of successful
    transactions (the producer's thread only)."""

    def __init__(self) -> None:
        self.indexed: set[AcctKey] = set()
        self._stores: dict[int, tuple[dict[str, Any], AcctKey]] = {}
        self._tops: dict[int, tuple[Any, AcctKey, str]] = {}
        self._nested: dict[int, tuple[Any, AcctKey, str, Any]] = {}
        self._array_vars: dict[AcctKey, set[str]] = {}
        self._types: dict[tuple[AcctKey, str], MappingType] = {}
        self.changed: dict[AcctKey, dict[str, Changed]] = {}
        self.whole: dict[AcctKey, set[str]] = {}

    # ------------------------------------------------------------ registration

    def _index(self, k: AcctKey, acct: AccountState) -> None:
        self.indexed.add(k)
        self._stores[id(acct.storage)] = (acct.storage, k)
        arrays = set()
        for var, mt in split_vars(acct).items():
            self._index_var(k, acct, var, mt)
            if _has_array(mt.value):
                arrays.add(var)
        if arrays:
            self._array_vars[k] = arrays

    def _index_var(self, k: AcctKey, acct: AccountState, var: str, mt: MappingType) -> None:
        m = acct.storage.get(var)
        if not isinstance(m, dict):
            return
        self._tops[id(m)] = (m, k, var)
        self._types[(k, var)] = mt
        if mt.value.complex:
            for top, v in m.items():
                self._walk(v, mt.value, k, var, top)

    def _walk(self, v: Any, t: Type | None, k: AcctKey, var: str, top: Any) -> None:
        """Register every container in ``v`` (the value of ``top``, of type ``t``) as belonging
        to ``top``. The type says where containers can be: the entries of a mapping of simple
        values are not visited (``t`` None: every value is)."""
        stack: list[tuple[Any, Type | None]] = [(v, t)]
        nested = self._nested
        while stack:
            c, ct = stack.pop()
            if isinstance(c, dict):
                nested[id(c)] = (c, k, var, top)
                if isinstance(ct, StructType):
                    for name, ft in ct.fields:
                        x = c.get(name)
                        if ft.complex and isinstance(x, dict | list):
                            stack.append((x, ft))
                    continue
                vt = ct.value if isinstance(ct, MappingType) else None
                if vt is None or vt.complex:
                    stack.extend((x, vt) for x in c.values() if isinstance(x, dict | list))
            elif isinstance(c, list):
                nested[id(c)] = (c, k, var, top)
                et = ct.elem if isinstance(ct, ArrayType) else None
                if et is None or et.complex:
                    stack.extend((x, et) for x in c if isinstance(x, dict | list))
                beyond = getattr(c, "beyond", None)
                if beyond is not None:  # elements stored past the end (SolidVM)
                    nested[id(beyond)] = (beyond, k, var, top)
                    if et is None or et.complex:
                        stack.extend((x, et) for x in beyond.values() if isinstance(x, dict | list))

    def _unwalk(self, v: Any) -> None:
        """Forget the containers of a value no longer stored."""
        stack = [v]
        nested = self._nested
        while stack:
            c = stack.pop()
            if not isinstance(c, dict | list):
                continue
            hit = nested.get(id(c))
            if hit is not None and hit[0] is c:
                del nested[id(c)]
            stack.extend(c.values() if isinstance(c, dict) else c)
            beyond = getattr(c, "beyond", None)
            if beyond is not None:
                stack.append(beyond)

    def _unwalk_values(self, m: dict[Any, Any]) -> None:
        for v in m.values():
            if isinstance(v, dict | list):
                self._unwalk(v)

    def mark_whole(self, k: AcctKey, var: str) -> None:
        self.whole.setdefault(k, set()).add(var)

    # ------------------------------------------------------------ one transaction

    def note_tx(
        self,
        journal: list[tuple[Any, Any, Any]],
        accts: list[AccountState],
        created: set[AcctKey],
    ) -> None:
        """Record the entries one successful transaction changed."""
        for acct in accts:
            k = (acct.chain, acct.address)
            if k in created:
                for var in split_vars(acct):
                    self.mark_whole(k, var)
            if k in created or k not in self.indexed:
                self._index(k, acct)
        if not journal:
            return
        tops, nested, stores = self._tops, self._nested, self._stores
        rewalk: set[tuple[AcctKey, str, Any]] = set()
        replaced: list[tuple[AcctKey, str]] = []  # whole variables assigned
        unplaced = False
        for c, key, old in journal:
            i = id(c)
            t = tops.get(i)
            if t is not None and t[0] is c:
                _, k, var = t
                if key in _LIST_OPS:
                    self.mark_whole(k, var)
                    continue
                ch = self.changed.setdefault(k, {}).setdefault(var, {})
                if old is MISSING:
                    ch.pop(key, None)
                    ch[key] = True
                elif key not in ch:
                    ch[key] = False
                if isinstance(old, dict | list):
                    self._unwalk(old)
                rewalk.add((k, var, key))
                continue
            n = nested.get(i)
            if n is not None and n[0] is c:
                _, k, var, top = n
                ch = self.changed.setdefault(k, {}).setdefault(var, {})
                if top not in ch:
                    ch[top] = False
                rewalk.add((k, var, top))
                continue
            s = stores.get(i)
            if s is not None and s[0] is c:
                replaced.append((s[1], str(key)))
                if isinstance(old, dict):  # the mapping it replaced is no longer stored
                    hit = tops.get(id(old))
                    if hit is not None and hit[0] is old:
                        del tops[id(old)]
                    if old:
                        self._unwalk_values(old)
                continue
            if type(c) is dict and type(key) is int and type(c.get(key)) is not AccountState:
                unplaced = True  # perhaps an array's ``beyond`` made by this transaction
        by_key = {(a.chain, a.address): a for a in accts}
        for k, var in replaced:  # a whole variable assigned
            owner = by_key.get(k)
            mt = split_vars(owner).get(var) if owner is not None else None
            if owner is None or mt is None:
                continue
            self.mark_whole(k, var)
            self._index_var(k, owner, var, mt)
        for k, var, top in rewalk:
            owner = by_key.get(k)
            if owner is None:
                continue
            m = owner.storage.get(var)
            mt = self._types.get((k, var))
            if isinstance(m, dict) and mt is not None and mt.value.complex:
                v = m.get(top, MISSING)
                if isinstance(v, dict | list):
                    self._walk(v, mt.value, k, var, top)
        if unplaced:
            for acct in accts:
                k = (acct.chain, acct.address)
                for var in self._array_vars.get(k, ()):
                    self.mark_whole(k, var)
                    self._index_var(k, acct, var, split_vars(acct)[var])

    def forget(self) -> None:
        """The changes are written (a snapshot committed)."""
        self.changed.clear()
        self.whole.clear()
