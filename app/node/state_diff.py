"""The ``stateDiff`` of a transaction result: what one transaction changed in contract storage.

STRATO's transaction result carries a ``stateDiff`` text field (empty on the platform). The
sandbox fills it with JSON, so that an inspector can show old -> new values of state variables
and mapping entries that no Cirrus table keeps (collection tables hold only the latest value).
It is built from the transaction's undo journal, whose first entry per slot holds the value the
slot had before the transaction: the cost is the number of writes, never the size of the state.

Compared: scalar state variables (numbers, booleans, text, addresses, enums, decimals) and the
entries of one-level mappings of such values. Arrays, structs and nested mappings are not.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .cirrus.collections import entry_value, key_value
from .solidvm.defs import StateVar
from .solidvm.proxies import delegated_vars
from .solidvm.runtime import MISSING
from .solidvm.types import ArrayType, MappingType, StructType, Type
from .solidvm.values import default_value, is_default
from .solidvm.world import AccountState

# what the JSON says it compared (the inspector shows it, so that "no change" is never a guess)
COVERS = "scalar state variables and entries of one-level mappings of simple values"
SKIPS = "arrays, structs and nested mappings"
MAX_CHANGES = 500  # a result is stored with its transaction: a loop over a mapping stays small


def simple(t: Type) -> bool:
    return not isinstance(t, MappingType | ArrayType | StructType)


def flat_mapping(t: Type) -> bool:
    return isinstance(t, MappingType) and simple(t.key) and simple(t.value)


def _value(v: Any, t: Type) -> Any:
    return entry_value(default_value(t) if v is MISSING else v, t)


def tx_state_diff(
    journal: list[tuple[Any, Any, Any]],
    accts: Iterable[AccountState],
    created: set[tuple[str, int]],
) -> str:
    """The JSON text of :func:`tx_state_diff_object`."""
    return json.dumps(tx_state_diff_object(journal, accts, created))


def tx_state_diff_object(
    journal: list[tuple[Any, Any, Any]],
    accts: Iterable[AccountState],
    created: set[tuple[str, int]],
) -> dict[str, Any]:
    """JSON object: ``{"covers", "skips", "changes": [{address, chainId, variable, key?, before,
    after}], "omitted"?}``; ``before`` is null for a contract this transaction created; past
    :data:`MAX_CHANGES` changes only their number is given (``omitted``)."""
    changes: list[dict[str, Any]] = []
    # containers of the touched accounts -> (account, variable name or None for the storage)
    where: dict[int, tuple[AccountState, str | None]] = {}
    svars: dict[int, dict[str, StateVar]] = {}  # id(account) -> its variables
    for acct in accts:
        cdef = acct.cdef
        if cdef is None:
            continue
        st = acct.storage
        if (acct.chain, acct.address) in created:
            changes += _created(acct)
            continue
        where[id(st)] = (acct, None)
        own = svars[id(acct)] = _vars(acct)
        for sv in own.values():
            if not sv.constant and flat_mapping(sv.type) and sv.name in st:
                where[id(st[sv.name])] = (acct, sv.name)
    first: dict[tuple[int, Any], tuple[AccountState, str | None, Any, Any]] = {}
    for c, k, old in journal:
        hit = where.get(id(c))
        if hit is None:
            continue
        slot = (id(c), k)
        if slot not in first:
            first[slot] = (hit[0], hit[1], k, old)
    for acct, var, k, old in first.values():
        vs = svars[id(acct)]
        if var is None:  # a whole state variable assigned
            whole = vs.get(k) if isinstance(k, str) else None
            if whole is None or whole.constant or not simple(whole.type):
                continue
            t0 = whole.type
            before, after = _value(old, t0), _value(acct.storage.get(k, MISSING), t0)
            if before != after:
                changes.append(_change(acct, k, None, before, after))
            continue
        t = vs[var].type
        assert isinstance(t, MappingType)
        m = acct.storage.get(var)
        now = m.get(k, MISSING) if isinstance(m, dict) else MISSING
        before, after = _value(old, t.value), _value(now, t.value)
        if before != after:
            changes.append(_change(acct, var, key_value(k, t.key), before, after))
    out: dict[str, Any] = {"covers": COVERS, "skips": SKIPS, "changes": changes[:MAX_CHANGES]}
    if len(changes) > MAX_CHANGES:
        out["omitted"] = len(changes) - MAX_CHANGES
    return out


def _vars(acct: AccountState) -> dict[str, StateVar]:
    """The account's state variables: its contract's, and those of the code that ran on it
    through delegatecall (a proxy's logic contract)."""
    cdef = acct.cdef
    assert cdef is not None
    if not acct.layouts:
        return cdef.svars
    out = dict(cdef.svars)
    for sv in delegated_vars(acct):
        out[sv.name] = sv
    return out


def _created(acct: AccountState) -> list[dict[str, Any]]:
    """A new contract: every compared value its constructor left non-zero."""
    cdef = acct.cdef
    assert cdef is not None
    out = []
    for sv in _vars(acct).values():
        v = acct.storage.get(sv.name, MISSING)
        if sv.constant or v is MISSING:
            continue
        if simple(sv.type):
            if not is_default(v):
                out.append(_change(acct, sv.name, None, None, entry_value(v, sv.type)))
        elif flat_mapping(sv.type) and isinstance(v, dict):
            t = sv.type
            assert isinstance(t, MappingType)
            for k, x in v.items():
                if not is_default(x):
                    out.append(
                        _change(acct, sv.name, key_value(k, t.key), None, entry_value(x, t.value))
                    )
    return out


def _change(acct: AccountState, var: str, key: Any, before: Any, after: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"address": acct.hex, "chainId": acct.chain, "variable": var}
    if key is not None:
        out["key"] = key
    out["before"] = before
    out["after"] = after
    return out
