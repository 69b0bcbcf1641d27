"""A contract's state as the state route answers it: one variable's page, its length, or
everything, encoded from a :class:`CommittedView` without copying what the answer leaves out.

A page of a mapping walks the mapping's entries in stored order and stops after the page
(entries holding the default are left out, as :func:`encode_value` leaves them out, so
``offset`` counts the others). Entries before the page whose values are ints, bools or strings
are passed a chunk of 1,024 at a time by counting defaults in C; other entries, and the page,
are walked in Python. The walk reads the live mapping, each chunk in one C-level call (atomic
for the producer's thread), and then asks the history whether a block after the pinned one
wrote the mapping: if none did (before or after), what it read is the committed mapping; else
(or if the mapping changed size under it) it walks the committed copy
:meth:`CommittedView.items` makes (one C-level copy of the dict and the keys written since).

Every function takes a :class:`Budget`: on the event loop, a small one, so that a large read
stops early (:class:`OverBudget`) and the route runs it again on a worker thread.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any, TypeVar

from .ledger.readview import CommittedView
from .solidvm.abi import encode_value, key_text
from .solidvm.errors import ExecutionError
from .solidvm.proxies import delegated_vars
from .solidvm.types import (
    AddressType,
    ArrayType,
    DecimalType,
    EnumType,
    IntType,
    MappingType,
    StringType,
    Type,
)
from .solidvm.values import (
    Address,
    ArrayValue,
    MappingValue,
    StructValue,
    default_value,
    is_default,
)
from .solidvm.world import AccountState

CHUNK = 1024  # entries read from a live mapping per C-level call
_CONTAINERS = (MappingValue, StructValue, ArrayValue)
T = TypeVar("T")


class OverBudget(Exception):
    """The read would touch more entries than its budget allows (run it on a thread)."""


class Budget:
    """How many entries (of any container, at any depth) a read may still touch."""

    __slots__ = ("left",)

    def __init__(self, entries: int | None) -> None:
        self.left = entries

    def spend(self, n: int) -> None:
        if self.left is not None:
            self.left -= n
            if self.left < 0:
                raise OverBudget

    def spend_on(self, v: Any) -> None:
        """Spend what reading ``v`` (any depth) costs; an unbounded budget does not look."""
        if self.left is not None:
            self.spend(size_upto(v, self.left))


def size_upto(v: Any, limit: int) -> int:
    """The entries of ``v`` at every depth (live; a cost estimate), counting past ``limit``
    no further than needed to know it is past."""
    if type(v) not in _CONTAINERS:
        return 1
    total = 1
    for x in list(v.values() if isinstance(v, dict) else v):  # a C-level copy, as readers do
        total += size_upto(x, limit - total) if type(x) in _CONTAINERS else 1
        if total > limit:
            break
    return total


class _Changed(Exception):
    """The live mapping changed size under an iterator of a walk."""


def _chunks(it: Iterator[T], offer_every: int = 1) -> Iterator[list[T]]:
    """``it`` a chunk at a time, each chunk one C-level call: atomic for the writer thread.
    On a worker thread, the GIL is offered to the event loop every ``offer_every`` chunks (else
    the loop waits for the interpreter's 5 ms switch interval each time it wakes)."""
    worker = threading.current_thread() is not threading.main_thread()
    n = 0
    while True:
        try:
            chunk = list(islice(it, CHUNK))
        except RuntimeError:  # "dictionary changed size during iteration"
            raise _Changed from None
        if not chunk:
            return
        yield chunk
        n += 1
        if worker and n % offer_every == 0:
            time.sleep(0)


def committed_walk(view: CommittedView, m: MappingValue, walk: Callable[[dict[Any, Any]], T]) -> T:
    """``walk(d)``, where ``d`` is ``m`` as committed: ``m`` itself if no block after the
    pinned one wrote it, before the walk and after it (the walk must read ``d`` through
    :func:`_chunks` and take its values' containers through ``view``), else a copy."""
    h = view.history
    if h is None:  # nothing executes beside the reader: the live mapping is committed
        return walk(m)
    if not h.keys_of(m, view.pinned):
        try:
            out = walk(m)
            # live first, record second: a write the walk may have seen has its record by now
            if not h.keys_of(m, view.pinned):
                return out
        except _Changed:
            pass
    # a committed copy (one C-level copy of the dict, then the few keys blocks wrote since)
    return walk(view.items(m))


def _is_default(view: CommittedView, x: Any, budget: Budget) -> tuple[bool, Any]:
    """Whether committed value ``x`` is its type's default, and ``x`` as committed."""
    if type(x) in _CONTAINERS:
        budget.spend_on(x)
        x = view.copy(x)
    return is_default(x), x


_SCALARS = frozenset((int, bool, str))


def _shown_in(values: list[Any]) -> int | None:
    """How many of ``values`` are not the default, counted in C when every one is an int, bool
    or str (whose defaults, as is_default says, are 0, False and ""); None for others."""
    types = set(map(type, values))
    if not types <= _SCALARS:
        return None
    if str not in types:  # (comparing each int with "" costs as much as the rest)
        return len(values) - values.count(0)  # (False == 0)
    return len(values) - values.count(0) - values.count("")


class Listed:
    """A mapping's entries as two lists (a copy nothing writes): an iterator starts at any
    position at once (a dict's walks every entry before it, making a tuple of each)."""

    __slots__ = ("keys", "values")

    def __init__(self, d: dict[Any, Any]) -> None:
        self.keys, self.values = list(d), list(d.values())


def _values_from(d: dict[Any, Any] | Listed, pos: int) -> Iterator[Any]:
    if isinstance(d, Listed):
        it = iter(d.values)
        it.__setstate__(pos)  # type: ignore[attr-defined]
        return it
    it = iter(d.values())
    if pos:
        next(islice(it, pos, pos), None)  # advanced in C (a changed size raises later)
    return it


def _items_from(d: dict[Any, Any] | Listed, pos: int) -> Iterator[tuple[Any, Any]]:
    if isinstance(d, Listed):
        keys = iter(d.keys)
        keys.__setstate__(pos)  # type: ignore[attr-defined]
        return zip(keys, _values_from(d, pos), strict=False)
    it = iter(d.items())
    if pos:
        next(islice(it, pos, pos), None)  # advanced in C (a changed size raises later)
    return it


def _scalar_prefix(
    d: dict[Any, Any] | Listed, budget: Budget, limit: int, start: int = 0
) -> tuple[int, int]:
    """(entries, shown entries among them) of the whole chunks of ``d`` from position
    ``start`` whose values are all scalars and together show at most ``limit`` entries:
    counted in C. The entries are counted from position 0 (``start`` is among them)."""
    pos, passed = start, 0
    it = _values_from(d, start)
    for values in _chunks(it, 16):  # counted in C: about 0.1 ms a chunk
        shown = _shown_in(values)
        if shown is None or passed + shown > limit:
            break
        budget.spend(len(values))
        pos += len(values)
        passed += shown
    return pos, passed


def _shown(
    view: CommittedView,
    d: dict[Any, Any] | Listed,
    budget: Budget,
    skip: int = 0,
    pos: int = 0,
) -> Iterator[tuple[Any, Any]]:
    """The (key, committed value) pairs of ``d`` from position ``pos`` the state shows (those
    not holding the default), after the first ``skip`` of them."""
    if skip:
        pos, passed = _scalar_prefix(d, budget, skip, pos)
        skip -= passed
    it = _items_from(d, pos)
    limit = budget.left if budget.left is not None else sys.maxsize
    n = 0
    try:
        for chunk in _chunks(it):
            n += len(chunk)
            if n > limit:
                raise OverBudget
            for k, x in chunk:
                cls = type(x)
                if cls is int or cls is str or cls is bool:  # as is_default decides
                    if not x:
                        continue
                    committed = x
                else:
                    default, committed = _is_default(view, x, budget)
                    if default:
                        continue
                if skip:
                    skip -= 1
                    continue
                yield k, committed
    finally:
        if budget.left is not None:
            budget.left -= n


def _count_shown(view: CommittedView, d: dict[Any, Any], budget: Budget) -> int:
    pos, passed = _scalar_prefix(d, budget, sys.maxsize)
    return passed + sum(1 for _ in _shown(view, d, budget, 0, pos))


def _value_encoder(t: Type) -> Callable[[Any], Any]:
    """``encode_value(_, t)``, shorter for the usual value types of large mappings."""
    if isinstance(t, IntType | EnumType | DecimalType):
        return str  # what encode_value does for them
    if isinstance(t, StringType):
        return _same
    return lambda v: encode_value(v, t)


def _key_encoder(t: Type) -> Callable[[Any], str]:
    """``key_text(_, t)``, shorter for the usual key types of large mappings."""
    if isinstance(t, IntType):
        return lambda k: str(k) if type(k) is int else key_text(k, t)
    if isinstance(t, AddressType):
        return lambda k: format(k.value, "040x") if type(k) is Address else key_text(k, t)
    return lambda k: key_text(k, t)


def _same(v: Any) -> Any:
    return v


class Positions:
    """A large mapping as committed at one block: its top level copied (nothing writes the
    copy; two lists, which an iterator enters at any position), how many entries the state
    route shows, and the position in the copy of every ``STRIDE``-th shown entry, so that a
    page at any offset walks at most ``STRIDE`` entries before its own. Made once per mapping
    and block (by the first deep page or length read pinned there); any reader pinned at that
    block may use it: the state it describes never changes."""

    __slots__ = ("d", "m", "pinned", "shown", "starts")

    def __init__(
        self, m: MappingValue, pinned: int, d: Listed, starts: list[int], shown: int
    ) -> None:
        self.m, self.pinned, self.d, self.starts, self.shown = m, pinned, d, starts, shown


STRIDE = 1024  # shown entries between two kept positions (a page walks fewer on the loop)
KEPT = 8  # mappings whose positions are kept (each for the latest block read)
_kept: OrderedDict[int, Positions] = OrderedDict()
_kept_lock = threading.Lock()
_making = threading.Lock()  # one made at a time: concurrent readers of one block wait for it


def kept_positions(view: CommittedView, m: MappingValue) -> Positions | None:
    """The :class:`Positions` of ``m`` at the view's block if they were made."""
    with _kept_lock:
        at = _kept.get(id(m))
        if at is not None and at.m is m and at.pinned == view.pinned:
            _kept.move_to_end(id(m))
            return at
    return None


def positions(view: CommittedView, m: MappingValue, budget: Budget) -> Positions:
    """The :class:`Positions` of ``m`` as committed at the view's block (kept, or made: that
    reads every entry, so it spends ``len(m)`` of the budget first)."""

    at = kept_positions(view, m)
    if at is not None:
        return at
    budget.spend(len(m))
    with _making:
        at = kept_positions(view, m)
        if at is not None:
            return at
        d = Listed(view.items(m))
        starts, shown = _positions_in(view, d.values)
        at = Positions(m, view.pinned, d, starts, shown)
        with _kept_lock:
            _kept[id(m)] = at
            _kept.move_to_end(id(m))
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
    return at


def _positions_in(view: CommittedView, entries: list[Any]) -> tuple[list[int], int]:
    """(position of every ``STRIDE``-th shown one of the values ``entries``, how many show).
    Chunks of scalars are counted in C, and a mark that falls in a chunk without defaults is
    found by arithmetic; other chunks are walked."""
    starts: list[int] = []
    shown = pos = 0
    unbounded = Budget(None)
    for values in _chunks(iter(entries), 16):
        n = _shown_in(values)
        mark = len(starts) * STRIDE  # the shown entry whose position is wanted next
        if n is not None and (shown + n <= mark or n == len(values)):
            while mark < shown + n:  # (no defaults in the chunk: the k-th entry shows k-th)
                starts.append(pos + mark - shown)
                mark += STRIDE
            shown += n
            pos += len(values)
            continue
        for i, x in enumerate(values):
            if type(x) in _SCALARS:
                if not x:
                    continue
            elif _is_default(view, x, unbounded)[0]:
                continue
            if shown == len(starts) * STRIDE:
                starts.append(pos + i)
            shown += 1
        pos += len(values)
    return starts, shown


def mapping_entries(
    view: CommittedView,
    m: MappingValue,
    mtype: MappingType,
    offset: int,
    count: int | None,
    budget: Budget,
) -> dict[str, Any]:
    """Entries ``offset`` .. ``offset + count`` (all from ``offset`` if None) of mapping ``m``
    as :func:`encode_value` shows the whole mapping, and in its order."""
    key, value = _key_encoder(mtype.key), _value_encoder(mtype.value)
    at = kept_positions(view, m) if view.history is not None else None
    if at is None and offset >= STRIDE and view.history is not None:
        at = positions(view, m, budget)
    if at is not None:  # (a first page too: no copy of a mapping the running block writes)
        if offset >= at.shown:
            return {}
        pos = at.starts[offset // STRIDE]
        page = islice(_shown(view, at.d, budget, offset % STRIDE, pos), count)
        return {key(k): value(x) for k, x in page}

    def walk(d: dict[Any, Any]) -> dict[str, Any]:
        page = islice(_shown(view, d, budget, offset), count)
        return {key(k): value(x) for k, x in page}

    return committed_walk(view, m, walk)


def mapping_length(view: CommittedView, m: MappingValue, budget: Budget) -> int:
    """How many entries of ``m`` the state route shows (those not holding the default)."""
    if view.history is not None and len(m) >= STRIDE:
        return positions(view, m, budget).shown
    return committed_walk(view, m, lambda d: _count_shown(view, d, budget))


def encode_var(view: CommittedView, raw: Any, t: Type, budget: Budget) -> Any:
    """A state variable's whole value as the API returns it."""
    if type(raw) is MappingValue and isinstance(t, MappingType):
        return mapping_entries(view, raw, t, 0, None, budget)
    budget.spend_on(raw)
    return encode_value(view.copy(raw), t)


def variable(view: CommittedView, acct: AccountState, name: str) -> tuple[Any, Type] | None:
    """State variable ``name`` of ``acct`` (its own or one its logic contract keeps there) as
    committed, with its type; None if it has no such (non-constant) variable."""
    for sv in variables(view, acct):
        if sv.name == name:
            raw = view.get(acct.storage, name, None)
            return (default_value(sv.type) if raw is None else raw), sv.type
    return None


def variables(view: CommittedView, acct: AccountState) -> list[Any]:
    """The contract's non-constant state variables, its logic contract's after its own."""
    assert acct.cdef is not None
    svs = [sv for sv in acct.cdef.state_vars if not sv.constant]
    if acct.layouts:  # a proxy keeps its logic contract's variables
        svs += delegated_vars(acct, view.elements(acct.layouts))
    return svs


def whole_state(view: CommittedView, acct: AccountState, budget: Budget) -> dict[str, Any]:
    """Every state variable of the contract, encoded as the API returns the state."""
    if acct.cdef is None:
        raise ExecutionError("no contract at this address", "unknown contract")
    st = view.items(acct.storage)
    out: dict[str, Any] = {}
    for sv in variables(view, acct):
        raw = st.get(sv.name, None)
        if raw is None:
            raw = default_value(sv.type)
        out[sv.name] = encode_var(view, raw, sv.type, budget)
    return out


def variable_answer(
    view: CommittedView,
    acct: AccountState,
    name: str,
    length: bool,
    offset: int,
    count: int | None,
    budget: Budget,
) -> dict[str, Any] | None:
    """``{name: value}``: the variable's length, its page (a mapping's keys or an array's
    elements from ``offset``, at most ``count``), or its value. None: no such variable."""
    found = variable(view, acct, name)
    if found is None:
        return None
    raw, t = found
    paged = offset > 0 or count is not None
    if type(raw) is MappingValue and isinstance(t, MappingType):
        if length:
            return {name: mapping_length(view, raw, budget)}
        return {name: mapping_entries(view, raw, t, offset, count, budget)}
    if type(raw) is ArrayValue and isinstance(t, ArrayType) and (length or paged):
        elems = view.elements(raw)  # one C-level copy of the references
        if length:
            return {name: len(elems)}
        end = None if count is None else offset + count
        page = elems[offset:end]
        budget.spend(len(page))
        return {name: [encode_var(view, e, t.elem, budget) for e in page]}
    value = encode_var(view, raw, t, budget)
    if isinstance(value, list | dict):  # a struct: its fields count and page
        if length:
            return {name: len(value)}
        end = None if count is None else offset + count
        value = (
            dict(list(value.items())[offset:end]) if isinstance(value, dict) else value[offset:end]
        )
    return {name: value}
