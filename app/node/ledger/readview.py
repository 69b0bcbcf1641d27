"""The committed state, as the routes read it while the producer's worker executes a block.

The worker writes the world in place; a :class:`CommittedView` reads it as of the last
committed block, using the records of :mod:`..solidvm.history`: never a write of the running
block, never one a revert or a time limit rolls back later. Each container is copied in one
C-level call before its records are looked at (live value first, record second: a write
between the two has its record made before it happens), so no read can tear or meet a dict
changing size.
"""

from __future__ import annotations

from typing import Any

from ..solidvm.abi import encode_value
from ..solidvm.errors import ExecutionError
from ..solidvm.history import LENGTH, NO_RECORD, History
from ..solidvm.proxies import delegated_vars
from ..solidvm.runtime import MISSING
from ..solidvm.values import ArrayValue, MappingValue, StructValue, default_value
from ..solidvm.world import AccountState, World


class Table:
    """One of the ledger's dicts (accounts, balances, nonces, contract metadata) as committed."""

    __slots__ = ("live", "view")

    def __init__(self, view: CommittedView, live: dict[Any, Any]) -> None:
        self.view = view
        self.live = live

    def get(self, key: Any, default: Any = None) -> Any:
        return self.view.get(self.live, key, default)

    def __contains__(self, key: Any) -> bool:
        return self.view.get(self.live, key, MISSING) is not MISSING

    def items(self) -> list[tuple[Any, Any]]:
        return list(self.view.items(self.live).items())


class CommittedView:
    """Reads pinned at committed block ``pinned`` (``history`` None: nothing is executing
    beside the reader, the live state is the committed one)."""

    def __init__(self, world: World, meta: dict[Any, Any], history: History | None, pinned: int):
        self.history = history
        self.pinned = pinned
        self.accounts = Table(self, world.accounts)
        self.balances = Table(self, world.balances)
        self.nonces = Table(self, world.nonces)
        self.meta = Table(self, meta)
        # which chain is whose parent: set when a chain is made, never changed
        self.chain_parents = world.chain_parents

    def get(self, c: Any, k: Any, default: Any = None) -> Any:
        v = c.get(k, MISSING)  # the live value first (see the module's docstring)
        h = self.history
        if h is not None:
            old = h.before(c, k, self.pinned)
            if old is not NO_RECORD:
                v = old
        return default if v is MISSING else v

    def items(self, c: dict[Any, Any]) -> dict[Any, Any]:
        snap = dict(c)  # one C call: atomic for the writer thread
        h = self.history
        if h is not None:
            for k, old in h.keys_of(c, self.pinned):
                if old is MISSING:
                    snap.pop(k, None)
                else:
                    snap[k] = old
        return snap

    def elements(self, c: list[Any]) -> list[Any]:
        snap = list(c)
        h = self.history
        if h is not None:
            recs = h.keys_of(c, self.pinned)
            for k, old in recs:
                if k is LENGTH:
                    snap = list(old)
            for k, old in recs:
                if type(k) is int and 0 <= k < len(snap):
                    snap[k] = old
        return snap

    def copy(self, v: Any) -> Any:
        """A deep copy of a storage value as committed (the writer never touches it)."""
        cls = type(v)
        if cls is MappingValue:
            return MappingValue(v.mtype, {k: self.copy(x) for k, x in self.items(v).items()})
        if cls is StructValue:
            return StructValue(v.stype, {k: self.copy(x) for k, x in self.items(v).items()})
        if cls is ArrayValue:
            out = ArrayValue(v.atype, [self.copy(x) for x in self.elements(v)])
            beyond = v.beyond
            if beyond:
                out.beyond = {i: self.copy(x) for i, x in self.items(beyond).items()} or None
            return out
        return v

    def account(self, address: int, chain: str) -> AccountState | None:
        acct: AccountState | None = self.accounts.get((chain, address))
        return acct

    def storage(self, acct: AccountState) -> dict[str, Any]:
        """A contract's storage as committed (a deep copy)."""
        return {k: self.copy(v) for k, v in self.items(acct.storage).items()}

    def state(self, address: str, chain: str, only: str | None = None) -> dict[str, Any]:
        """Every state variable of a contract (or just ``only``), encoded as the API returns
        it: one variable's page or length need not copy and encode all the others."""
        acct = self.account(int(address, 16), chain)
        if acct is None or acct.cdef is None:
            raise ExecutionError(f"no contract at address {address}", "unknown contract")
        st = self.items(acct.storage)
        svs = [sv for sv in acct.cdef.state_vars if not sv.constant]
        if acct.layouts:  # a proxy keeps its logic contract's variables
            svs += delegated_vars(acct, self.elements(acct.layouts))
        return {
            sv.name: encode_value(self.copy(st.get(sv.name, default_value(sv.type))), sv.type)
            for sv in svs
            if only is None or sv.name == only
        }

    def entry(self, acct: AccountState, var: str, key: Any, default: Any) -> Any:
        """One entry of a mapping state variable (a deep copy)."""
        m = self.get(acct.storage, var, None)
        if m is None:
            return default
        return self.copy(self.get(m, key, default))
