"""A throwaway world over the node's committed state, for a debug run.

Accounts, balances and nonces are read from a pinned :class:`CommittedView` the first time the
run asks for them and copied (storage deeply), so the run writes only into its own copies: the
chain never sees it, and the producer never waits for it. A rollback that removes a copied entry
makes the next read load the committed value again, which is what it was.

Accounts whose code is the source being debugged get its debug-compiled contract, so a call to a
contract already on the chain stops at breakpoints in its source too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..solidvm.runtime import MISSING
from ..solidvm.world import AccountState, World

if TYPE_CHECKING:
    from ..ledger.readview import CommittedView
    from ..solidvm.defs import ContractDef


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


def overlay_world(
    live: World,
    view: CommittedView,
    swap: Callable[[ContractDef], ContractDef | None] | None = None,
) -> World:
    """A world reading ``view`` (pinned by the caller for the run's life) and writing nowhere."""
    w = World()
    w.identities = dict(live.identities)
    w.chain_parents = dict(live.chain_parents)
    w.compile_hook = live.compile_hook
    w.test_clock = live.test_clock
    w.test_clocks = dict(live.test_clocks)

    def account(key: Any) -> Any:
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

    def table(live_table: Any) -> Callable[[Any], Any]:
        def load(key: Any) -> Any:
            return live_table.get(key, MISSING)

        return load

    w.accounts = LazyTable(account)
    w.balances = LazyTable(table(view.balances))
    w.nonces = LazyTable(table(view.nonces))
    return w


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
