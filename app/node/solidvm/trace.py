"""Call traces: the tree of calls one transaction made, recorded at call boundaries only.

A :class:`TraceRecorder` hangs on the transaction's :class:`~.runtime.ExecContext` (``ctx.trace``,
None when traces are off: ``invoke`` and ``construct`` test it once per call). It opens a
:class:`TraceFrame` for every call that crosses a contract boundary (an external call, a
delegatecall, a library function, a contract creation) and not for internal calls, whose work is
the enclosing frame's. Nothing is recorded per statement: a frame's events and state writes are
read back from the transaction's undo journal when the frame ends (before a failed frame's
entries are rolled back), so they keep the order they happened in, between the frame's calls.

The frame model (kind, contract, function, typed arguments and results, sender, value, status,
failure and its position, steps, items) is what the node keeps, as plain tuples
(:meth:`TraceRecorder.compact`, trace_show.py), and serves as JSON (:meth:`TraceRecorder.finish`);
a step debugger can show the same frames.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .errors import SolidVMError, where_of
from .runtime import MISSING, POPPED, PUSHED, REPLACED
from .trace_show import (
    _SCALARS,
    MAX_LIST,
    MAX_TEXT,
    TRACE_VERSION,
    Compact,
    _key_shown,
    _Shown,
    _type_of,
    compact,
    event_item,
    tree_of,
    write_item,
)
from .types import AddressType, ArrayType, IntType, MappingType, StructType, Type
from .values import Address

if TYPE_CHECKING:
    from .defs import CompiledFunction, ContractDef
    from .runtime import ExecContext

__all__ = ["DEFAULT_MAX_ITEMS", "MAX_LIST", "MAX_TEXT", "TRACE_VERSION", "TraceRecorder"]

DEFAULT_MAX_ITEMS = 5_000  # frames + events + state writes kept per transaction
_SEARCH_BUDGET = 20_000  # container entries looked through to name a nested storage write


class TraceFrame:
    """One recorded call, its values kept raw until :meth:`TraceRecorder.finish` shows them.
    ``j0``/``j1`` and ``e0``/``e1``: its span of the journal and of the events list (after a
    failed frame's rollback the span is empty again)."""

    __slots__ = (
        "acct",
        "args",
        "children",
        "e0",
        "e1",
        "error",
        "fn",
        "items",
        "j0",
        "j1",
        "kind",
        "params",
        "result",
        "s0",
        "sender",
        "status",
        "steps",
        "value",
    )

    def __init__(
        self, kind: str, fn: CompiledFunction | None, acct: Any, sender: Any, value: int
    ) -> None:
        self.kind = kind
        self.fn = fn
        self.acct = acct
        self.sender = sender
        self.value = value
        self.args: list[Any] = []
        self.params: list[tuple[str, Type]] = []
        self.result: list[Any] | None = None
        self.children: list[TraceFrame] = []
        # TraceFrame, or an item in its compact form (trace_show.py): an event, a write, the
        # marker of a cut; made when the frame ends
        self.items: list[Any] = []
        self.status = "running"
        self.error: dict[str, Any] | None = None
        self.j0 = self.j1 = self.e0 = self.e1 = self.s0 = self.steps = 0


class TraceRecorder:
    """Records one transaction's call tree (see the module's docstring)."""

    __slots__ = (
        "count",
        "ctx",
        "frames",
        "lib",
        "max_items",
        "names",
        "omitted",
        "places",
        "roots",
        "stack",
    )

    def __init__(self, ctx: ExecContext, max_items: int = DEFAULT_MAX_ITEMS) -> None:
        self.ctx = ctx
        self.max_items = max_items
        self.count = 0
        self.frames = 0  # frames recorded
        self.omitted = 0
        self.stack: list[TraceFrame] = []
        self.roots: list[TraceFrame] = []
        self.lib: dict[tuple[int, int], bool] = {}  # (cdef, fn) -> fn is a library's
        # (container, storage) -> (the container, kept so that its id stays its own; where it
        # sits in that storage, or None)
        self.names: dict[tuple[int, int], tuple[Any, _Place | None]] = {}
        # a failure's position as its innermost frame placed it (the exception kept, so that
        # its id stays its own)
        self.places: dict[int, tuple[BaseException, dict[str, Any]]] = {}

    # ------------------------------------------------------------ hooks (runtime, constructors)

    def enter(
        self, fn: CompiledFunction, acct: Any, args: list[Any], sender: Any, value: int, ro: bool
    ) -> TraceFrame | None:
        """A call begins; None when it is internal (not a frame of its own) or past the cap."""
        stack = self.stack
        if stack:
            up = stack[-1]
            if acct is not up.acct:
                world = self.ctx.world
                real = world.accounts.get((acct.chain, acct.address))
                kind = "delegatecall" if real is not acct else "staticcall" if ro else "call"
            elif self._library(acct.cdef, fn):
                kind = "library"
            elif sender != up.sender:
                kind = "call"
            else:
                return None
        else:
            kind = "call"
        return self._open(kind, fn, acct, args, sender, value, fn.params)

    def enter_create(
        self, cdef: ContractDef, acct: Any, args: list[Any], sender: Any, value: int
    ) -> TraceFrame | None:
        ctor = cdef.constructor
        return self._open(
            "create", ctor, acct, args, sender, value, ctor.params if ctor is not None else []
        )

    def fail(self, node: TraceFrame, exc: BaseException) -> None:
        """The frame failed: collect what it did before its writes are rolled back."""
        node.status = "failed"
        if isinstance(exc, SolidVMError):
            kind, message = exc.kind, exc.message
        else:
            kind, message = "type error", f"type error: {exc}"
        err: dict[str, Any] = {"kind": kind, "message": message}
        where = where_of(exc)
        if where is not None:
            known = self.places.get(id(exc))
            if known is None or known[0] is not exc:
                # the innermost recorded frame sees it first: its code's unit has the lines
                pos: dict[str, Any] = {"name": where[0], "line": where[1], "column": where[2]}
                unit = getattr(node.acct.cdef, "unit", None)
                hit = unit.locate(where[1]) if unit is not None else None
                if hit is not None:
                    pos["file"], pos["fileLine"] = hit
                self.places[id(exc)] = known = (exc, pos)
            err["position"] = known[1]
        node.error = err
        self._collect(node)

    def leave(self, node: TraceFrame, result: list[Any]) -> None:
        """The frame returned ``result``."""
        node.status = "ok"
        node.result = [v if type(v) in _SCALARS else _Shown.of(v) for v in result]
        self._collect(node)
        ctx = self.ctx
        node.j1 = len(ctx.journal)
        node.e1 = len(ctx.events)
        self.stack.pop()

    def detach(self) -> None:
        """The transaction is over: its context forgets this recorder. The two refer to each
        other, so without this each traced transaction left a reference cycle (the context, its
        journal, the frames) that only the cyclic collector's passes freed, at a cost that
        grew with the heap."""
        if self.ctx.trace is self:
            self.ctx.trace = None

    def close(self, node: TraceFrame) -> None:
        """After a failed frame's rollback: its spans are empty again, from where the rollback
        left the journal (before ``j0`` when ``invoke`` journaled the dirty set first)."""
        ctx = self.ctx
        j = ctx.journal
        j0 = min(node.j0, len(j))
        # and before the bookkeeping that began it (a new account, the dirty set, a value
        # moved): a caller's `try` rolls that back too, and the caller's next writes come there
        world = ctx.world
        book = (world.accounts, world.balances, world.nonces, ctx.created, ctx.dirty)
        while j0 > 0 and any(j[j0 - 1][0] is b for b in book):
            j0 -= 1
        node.j0 = node.j1 = j0  # what is left past it is bookkeeping its caller undoes
        node.e0 = node.e1 = min(node.e0, len(ctx.events))
        if self.stack and self.stack[-1] is node:
            self.stack.pop()

    # ------------------------------------------------------------ output

    def finish(self) -> dict[str, Any] | None:
        """The JSON tree of the transaction (None when no call ran), failures propagated:
        a frame that succeeded inside one that failed is marked ``reverted``."""
        c = self.compact()
        return tree_of(c) if c is not None else None

    def compact(self) -> Compact | None:
        """The transaction's frames as plain tuples (trace_show.py), None when no call ran:
        what the trace writer stores."""
        if not self.roots:
            return None
        return compact(self.roots[0], self.frames, self.omitted)

    # ------------------------------------------------------------ internals

    def _open(
        self,
        kind: str,
        fn: CompiledFunction | None,
        acct: Any,
        args: list[Any],
        sender: Any,
        value: int,
        params: list[tuple[str, Type]],
    ) -> TraceFrame | None:
        if self.count >= self.max_items:
            self.omitted += 1
            return None
        self.count += 1
        self.frames += 1
        ctx = self.ctx
        node = TraceFrame(kind, fn, acct, sender, value)
        node.j0 = len(ctx.journal)
        node.e0 = len(ctx.events)
        node.s0 = ctx.steps
        node.params = params
        # arguments as they were on entry: value types as they are, containers shown now
        node.args = [v if type(v) in _SCALARS else _Shown.of(v) for v in args]
        stack = self.stack
        if stack:
            stack[-1].children.append(node)
        else:
            self.roots.append(node)
        stack.append(node)
        return node

    def _library(self, cdef: ContractDef | None, fn: CompiledFunction) -> bool:
        key = (id(cdef), id(fn))
        hit = self.lib.get(key)
        if hit is None:
            names = {c.name for c in cdef.linearization} if cdef is not None else set()
            hit = self.lib[key] = fn.cname not in names and bool(fn.cname)
        return hit

    def _collect(self, node: TraceFrame) -> None:
        """``node.items``: its children, events and storage writes in journal order."""
        ctx = self.ctx
        node.steps = ctx.steps - node.s0
        j = ctx.journal
        end = len(j)
        events = ctx.events
        children = node.children
        nch = len(children)
        if not nch and self._leaf(node, j, end, events):
            return
        world = ctx.world
        skip = (id(ctx.dirty), id(ctx.created), id(world.accounts), id(world.balances))
        nonces = world.nonces
        ci = 0
        ev = node.e0
        i = node.j0
        items = node.items
        writes: list[int] = []  # indexes in ``items`` of entries to turn into writes
        while True:
            while ci < nch and (children[ci].j0 <= i or i >= end):
                ch = children[ci]
                items.append(ch)
                ci += 1
                if ch.j1 > i:
                    i = ch.j1 if ch.j1 < end else end
                ev = max(ev, ch.e1)
            if i >= end:
                break
            e = j[i]
            c = e[0]
            if c is events:
                if e[1] is PUSHED and ev < len(events):
                    items.append(event_item(*events[ev]))
                    ev += 1
            elif id(c) not in skip and c is not nonces:
                writes.append(len(items))
                items.append((i, e))
            i += 1
        if writes:
            self._writes(node, writes, end)
        count = self.count + len(items) - nch
        if count > self.max_items:
            self._cut(node, count)
        else:
            self.count = count

    def _leaf(self, node: TraceFrame, j: list[Any], end: int, events: list[Any]) -> bool:
        """:meth:`_collect` of a frame that called no other (most frames: a token transfer's
        only one), its events and writes read off its span of the journal in one pass; False
        (nothing done) when the span has an array's push, pop or replace, which
        :meth:`_writes` follows element by element."""
        ctx = self.ctx
        world = ctx.world
        acct = node.acct
        st = acct.storage
        cdef = acct.cdef
        svars = cdef.svars if cdef is not None else {}
        b0, b1, b2, b3, b4 = ctx.dirty, ctx.created, world.accounts, world.balances, world.nonces
        names = self.names
        items = node.items
        ev = node.e0
        nev = len(events)
        # the writes: (container, key, old value, item's index, variable, keys shown, type),
        # made items below, once the values after them are known
        ws: list[tuple[Any, ...]] = []
        for e in j[node.j0 : end]:
            c, k, old = e
            if c is events:
                if k is PUSHED and ev < nev:
                    items.append(event_item(*events[ev]))
                    ev += 1
                continue
            if k is PUSHED or k is POPPED or k is REPLACED:
                if not (c is st or c is b0 or c is b1 or c is b2 or c is b3 or c is b4):
                    del items[:]
                    return False
                continue
            if c is st:
                sv = svars.get(k)
                ws.append((c, k, old, len(items), str(k), (), sv.type if sv is not None else None))
            elif c is b0 or c is b1 or c is b2 or c is b3 or c is b4:
                continue
            else:
                key = (id(c), id(st))
                top = _TOP.get(key)
                path: Sequence[str]
                if top is not None and st.get(top) is c:
                    sv = svars.get(top)
                    var, path, ct = top, (), sv.type if sv is not None else _type_of(c)
                else:
                    known = names.get(key)
                    if known is None:
                        hit = _find(st, c, cdef)
                        names[key] = (c, hit)
                        if hit is not None and not hit[1]:
                            if len(_TOP) >= _MAX_TOP:
                                _TOP.clear()
                            _TOP[key] = hit[0]
                    else:
                        hit = known[1]
                    if hit is None:
                        continue  # memory
                    var, path, ct = hit
                vt: Type | None
                if type(ct) is MappingType:
                    vt = ct.value
                    if type(k) is Address and type(ct.key) is AddressType:  # (the commonest)
                        ks = format(k.value, "040x")
                    else:
                        ks = _key_shown(k, ct)
                else:
                    vt, ks = _member_type(ct, k), _key_shown(k, ct)
                keys = (*path, ks) if path else (ks,)
                ws.append((c, k, old, len(items), var, keys, vt))
            items.append(None)
        if ws:
            # a slot's value after a write: the next write's old value, else its value now
            n = len(ws)
            nxt = _next_writes(ws) if n > 8 else None
            dropped = False
            for a in range(n):
                c, k, old, at, var, keys, vt = ws[a]
                if nxt is not None:
                    new = nxt.get(a, _NOW)
                else:
                    new = _NOW
                    for b in range(a + 1, n):
                        w = ws[b]
                        if w[0] is not c:
                            continue
                        wk = w[1]  # the same slot: keys equal as the dict compares them
                        if wk is k:
                            same = True
                        elif type(wk) is Address and type(k) is Address:
                            same = wk.value == k.value  # (as Address.__eq__, without a call)
                        else:
                            same = wk == k
                        if same:
                            new = w[2]
                            break
                if new is _NOW:
                    try:
                        new = c[k]
                    except (KeyError, IndexError, TypeError):
                        new = MISSING
                if old is MISSING and isinstance(new, _CONTAINERS):
                    dropped = True  # a nested mapping or array made by a write into it
                    continue
                if type(old) is int and type(new) is int and type(vt) is IntType:
                    items[at] = ("w", var, keys, "", str(old), str(new))  # (a balance)
                    continue
                if type(old) is not int and not (type(old) in _SCALARS or old is MISSING):
                    old = _Shown.of(old)
                if type(new) is not int and not (type(new) in _SCALARS or new is MISSING):
                    new = _Shown.of(new)
                items[at] = write_item(var, keys, vt, "", old, new)
            if dropped:
                items[:] = [it for it in items if it is not None]
        count = self.count + len(items)
        if count > self.max_items:
            self._cut(node, count)
        else:
            self.count = count
        return True

    def _cut(self, node: TraceFrame, count: int) -> None:
        """Past the cap: keep the frame's calls and its first events and writes, then a marker."""
        room = max(0, self.max_items - self.count)
        kept: list[Any] = []
        dropped = 0
        for it in node.items:
            if isinstance(it, TraceFrame):
                kept.append(it)
            elif room > 0:
                kept.append(it)
                room -= 1
            else:
                dropped += 1
        kept.append(("t", dropped))
        node.items = kept
        self.omitted += dropped
        self.count = self.max_items

    def _writes(self, node: TraceFrame, writes: list[int], end: int) -> None:
        """Turn the frame's raw journal entries into writes of its account's storage (memory
        entries dropped), each with the slot's value after it."""
        j = self.ctx.journal
        items = node.items
        # the value of a slot after an entry: the next entry's old value, else the current one
        later: dict[tuple[int, Any], Any] = {}
        first = items[writes[0]][0]
        after: dict[int, Any] = {}
        mine = {items[w][0] for w in writes}
        touched = {id(items[w][1][0]) for w in writes}
        lens: dict[int, int] = {}  # a list's length after the entry being looked at
        for idx in range(end - 1, first - 1, -1):
            c, k, old = j[idx]
            if id(c) not in touched:
                continue
            if k is PUSHED or k is POPPED or k is REPLACED:
                if not isinstance(c, list):
                    continue
                n = lens.get(id(c), len(c))
                if k is PUSHED:  # the pushed element: as a later write found it, or now
                    n -= 1
                    if idx in mine:
                        nv = later.get((id(c), n), _NOW)
                        after[idx] = c[n] if nv is _NOW and 0 <= n < len(c) else nv
                elif k is POPPED:
                    n += 1
                else:
                    n = len(old)
                lens[id(c)] = n
                continue
            try:
                slot = (id(c), k)
                if idx in mine:
                    after[idx] = later.get(slot, _NOW)
                later[slot] = old
            except TypeError:  # an unhashable key
                continue
        acct = node.acct
        st = acct.storage
        cdef = acct.cdef
        names = self.names
        out: list[Any] = []
        wset = set(writes)
        for n, it in enumerate(items):
            if n not in wset:
                out.append(it)
                continue
            idx, (c, k, old) = it
            w = self._write(c, k, old, after.get(idx, MISSING), st, cdef, names)
            if w is not None:
                out.append(w)
        node.items = out

    def _write(
        self,
        c: Any,
        k: Any,
        old: Any,
        new: Any,
        st: dict[str, Any],
        cdef: ContractDef | None,
        names: dict[tuple[int, int], tuple[Any, _Place | None]],
    ) -> tuple[Any, ...] | None:
        """A journal entry as a write of storage ``st`` (:func:`write_item`); None for
        memory."""
        keys: tuple[str, ...]
        if c is st:
            sv = cdef.svars.get(k) if cdef is not None else None
            var, keys, vt = str(k), (), sv.type if sv is not None else None
        else:
            key = (id(c), id(st))
            known = names.get(key)
            if known is None:
                hit = _find(st, c, cdef)
                names[key] = (c, hit)
            else:
                hit = known[1]
            if hit is None:
                return None
            var, path, ct = hit
            vt = _member_type(ct, k)
            if k is PUSHED or k is POPPED or k is REPLACED:
                keys = tuple(path)
            else:
                keys = (*path, _key_shown(k, ct))
        if k is PUSHED:
            return write_item(var, keys, vt, "push", MISSING, _raw(new))
        if k is POPPED:
            return write_item(var, keys, vt, "pop", _raw(old), MISSING)
        if k is REPLACED:
            return write_item(var, keys, vt, "replace", MISSING, MISSING)
        if new is _NOW:
            try:
                new = c[k]
            except (KeyError, IndexError, TypeError):
                new = MISSING
        if old is MISSING and isinstance(new, dict | list):
            return None  # a nested mapping or array made by a write into it: shown there
        return write_item(var, keys, vt, "", _raw(old), _raw(new))


_NOW: Any = object()  # "the slot's current value" (no later entry changed it)
# the variable a container at the top of a contract's storage is, across transactions (the
# recorder's own ``names`` start empty in each): (id of the container, id of the storage) ->
# variable. Nothing is kept alive by it: a hit counts only if that variable of the storage
# being written is that very container now (ids of freed objects are reused), and the type is
# the contract's own, looked up each time
_TOP: dict[tuple[int, int], str] = {}
_MAX_TOP = 4_096
_CONTAINERS = (dict, list)
_Place = tuple[str, list[Any], "Type | None"]  # variable, keys, type of a storage container


def _raw(v: Any) -> Any:
    return v if type(v) in _SCALARS or v is MISSING else _Shown.of(v)


def _next_writes(ws: list[tuple[Any, ...]]) -> dict[int, Any]:
    """Write ``a``'s value after it, where a later write of ``ws`` to the same slot has it
    as its old value (one pass from the end)."""
    out: dict[int, Any] = {}
    later: dict[tuple[int, Any], Any] = {}
    for a in range(len(ws) - 1, -1, -1):
        c, k, old = ws[a][:3]
        try:
            slot = (id(c), k)
            hit = later.get(slot, _NOW)
            later[slot] = old
        except TypeError:  # an unhashable key
            continue
        if hit is not _NOW:
            out[a] = hit
    return out


def _member_type(ct: Type | None, k: Any) -> Type | None:
    """The type of what container type ``ct`` holds under key ``k``."""
    if isinstance(ct, MappingType):
        return ct.value
    if isinstance(ct, ArrayType):
        return ct.elem
    if isinstance(ct, StructType):
        return ct.field_types.get(k) if isinstance(k, str) else None
    return None


def _find(st: dict[str, Any], c: Any, cdef: ContractDef | None) -> _Place | None:
    """Where container ``c`` sits in storage ``st`` (variable, keys, its type), two levels
    deep at most and within a budget; None for a container that is not in storage."""
    budget = _SEARCH_BUDGET
    for name, v in st.items():
        if v is c:
            sv = cdef.svars.get(name) if cdef is not None else None
            return name, [], sv.type if sv is not None else _type_of(c)
    for name, v in st.items():
        if not isinstance(v, dict | list):
            continue
        vt = _type_of(v)
        entries = v.items() if isinstance(v, dict) else enumerate(v)
        for kk, vv in entries:
            budget -= 1
            if budget < 0:
                return None
            if vv is c:
                return name, [_key_shown(kk, vt)], _type_of(c) or _member_type(vt, kk)
            if isinstance(vv, dict | list) and len(vv) < 64:
                vvt = _type_of(vv)
                inner = vv.items() if isinstance(vv, dict) else enumerate(vv)
                for k2, v2 in inner:
                    budget -= 1
                    if v2 is c:
                        return (
                            name,
                            [_key_shown(kk, vt), _key_shown(k2, vvt)],
                            _type_of(c) or _member_type(vvt, k2),
                        )
    return None
