"""A throwaway world over the node's committed state, for a debug run.

Accounts, balances and nonces are read from a pinned :class:`CommittedView` the first time the
run asks for them and copied (storage deeply), so the run writes only into its own copies: the
chain never sees it, and the producer never waits for it. A rollback that removes a copied entry
makes the next read load the committed value again, which is what it was.

Accounts whose code is the source being debugged get its debug-compiled contract, so a call to a
contract already on the chain stops at breakpoints in its source too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..solidvm.runtime import MISSING
from ..solidvm.world import AccountState, World

if TYPE_CHECKING:
    from ..ledger import Ledger
    from ..ledger.readview import CommittedView
    from ..solidvm.defs import ContractDef


T = TypeVar("T")


class LazyTable(dict[Any, Any]):
    """A dict that loads a missing key once from ``load`` (MISSING: there is none)."""

    def __init__(self, load: Callable[[Any], Any]) -> None:
        super().__init__()
        self._load = load
        self._absent: set[Any] = set()

    def get(self, key: Any, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        v = self._load(key)
        if v is MISSING:
            return default
        dict.__setitem__(self, key, v)
        return v

    def __contains__(self, key: object) -> bool:
        return self.get(key, MISSING) is not MISSING

    def __getitem__(self, key: Any) -> Any:
        v = self.get(key, MISSING)
        if v is MISSING:
            raise KeyError(key)
        return v


class ViewSource:
    """The committed state for a debug run: a view pinned while the run runs, none while it is
    paused (a pinned view keeps the node from pruning its history of writes, so a session
    paused for minutes would make the node hold every write of those minutes). A read while
    unpinned (an evaluation) pins a view just for itself. Accounts first read after a pause
    are therefore read as of the block committed last, not the one the run started on."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.view: CommittedView | None = None
        self._pin: contextlib.AbstractContextManager[CommittedView] | None = None

    def pin(self) -> None:
        if self._pin is None:
            self._pin = self.ledger.pinned_view()
            self.view = self._pin.__enter__()

    def unpin(self) -> None:
        pin, self._pin, self.view = self._pin, None, None
        if pin is not None:
            pin.__exit__(None, None, None)

    def read(self, fn: Callable[[CommittedView], T]) -> T:
        if self.view is not None:
            return fn(self.view)
        with self.ledger.pinned_view() as v:
            return fn(v)


def overlay_world(
    live: World,
    source: ViewSource,
    swap: Callable[[ContractDef], ContractDef | None] | None = None,
) -> World:
    """A world reading the committed state through ``source`` and writing nowhere."""
    w = World()
    w.identities = dict(live.identities)
    w.chain_parents = dict(live.chain_parents)
    w.compile_hook = live.compile_hook
    w.test_clock = live.test_clock
    w.test_clocks = dict(live.test_clocks)

    def account(key: Any) -> Any:
        return source.read(lambda view: _copy_account(view, key, swap))

    def table(name: str) -> Callable[[Any], Any]:
        def load(key: Any) -> Any:
            return source.read(lambda view: getattr(view, name).get(key, MISSING))

        return load

    w.accounts = LazyTable(account)
    w.balances = LazyTable(table("balances"))
    w.nonces = LazyTable(table("nonces"))
    return w


def _copy_account(
    view: CommittedView, key: Any, swap: Callable[[ContractDef], ContractDef | None] | None
) -> Any:
    chain, addr = key
    a = view.account(addr, chain)
    if a is None:
        return MISSING
    cdef = a.cdef
    if cdef is not None and swap is not None:
        cdef = swap(cdef) or cdef
    b = AccountState(a.address, a.chain, cdef)
    b.storage = view.storage(a)
    b.creator = a.creator
    b.origin = a.origin
    if a.layouts:
        b.layouts = list(view.elements(a.layouts))
    return b


def same_code_swap(
    contracts: dict[str, ContractDef],
) -> Callable[[ContractDef], ContractDef | None]:
    """The debug-compiled contract of the same name whose code reads the same (as the
    platform prints a contract's code back), for an account's contract; None for others."""
    from ..solidvm.codeview import code_of

    seen: dict[int, ContractDef | None] = {}

    def swap(cdef: ContractDef) -> ContractDef | None:
        k = id(cdef)
        if k not in seen:
            mine = contracts.get(cdef.name)
            same = mine is not None and code_of(mine, mine.name) == code_of(cdef, cdef.name)
            seen[k] = mine if same else None
        return seen[k]

    return swap
