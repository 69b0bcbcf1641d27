"""Fallback dispatch and the storage a proxy keeps for the code it delegates to.

SolidVM resolves a call by the function's NAME: when the called contract has no function (nor
public getter) of that name, its ``fallback`` runs instead, with ``msg.sig`` = the name asked
for and every argument of the call gathered into the fallback's parameters. The platform's
``Proxy`` (``fallback(variadic args) external returns (variadic) { return
logicContract.delegatecall(msg.sig, args); }``) relies on it: code typed as the logic contract
(``Pool(proxy).initialize(x)``) lands in the proxy's fallback, whose delegatecall runs the
logic's code on the proxy's storage. What the fallback returns goes back to the typed caller as
the value the caller's declaration expects.

SolidVM keeps storage by variable name, so the logic's variables simply live in the proxy's
account. The sandbox keeps typed storage: an account records the contracts whose code ran on it
through ``delegatecall`` (its *layouts*), and their variables the account's own contract lacks
are part of its state (API, snapshots) as they are on the platform.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from .binding import try_bind
from .defs import CompiledFunction, ContractDef, StateVar
from .errors import ExecutionError
from .ops import Coercer, describe, is_ancestor_chain
from .runtime import PUSHED, Frame
from .values import Address, VariadicValue

if TYPE_CHECKING:
    from .world import AccountState

_PROXY_FNS = frozenset({"setLogicContract", "transferOwnership", "renounceOwnership"})
PROXY_NAMES: dict[str, frozenset[str]] = {"Proxy": _PROXY_FNS}
"""The platform API's proxies: contracts of these names type a call of any function but their
own listed ones with the function of the contract their ``logicContract`` points to."""
PROXY_NAMES["UserRegistry"] = _PROXY_FNS | {"createUser", "createUserFor", "deriveUserAddress"}
PROXY_NAMES["UserRegistry"] |= {"canCreateUser", "initializeUser"}
PROXY_NAMES["User"] = _PROXY_FNS | {"addUserAddress", "revokeUserAddress", "createContract"}
PROXY_NAMES["User"] |= {"revokeAllUserAddresses", "createSaltedContract", "callContract"}


def fallback_of(cdef: ContractDef) -> CompiledFunction | None:
    """The contract's callable ``fallback`` (None: it has none)."""
    for f in cdef.functions.get("fallback", ()):
        if f.external:
            return f
    return None


def named_fallback(cdef: ContractDef, fallback: CompiledFunction, name: str) -> CompiledFunction:
    """``fallback`` running for a call of ``name``: the same code, ``msg.sig`` = ``name``.

    One copy per name and contract, kept: a proxy is called under the same few names.
    """
    cache = cdef.named_fallbacks
    fn = cache.get(name)
    if fn is None:
        fn = copy.copy(fallback)
        fn.name = name
        cache[name] = fn
    return fn


def is_renamed_fallback(fn: CompiledFunction | None) -> bool:
    """A fallback running for a call of another name: ``msg.data`` is then empty, as SolidVM
    reads it from the contract's function of the called name, which does not exist."""
    return (
        fn is not None
        and fn.name != "fallback"
        and fn.decl is not None
        and (fn.decl.kind == "fallback")
    )


def bind_fallback(
    cdef: ContractDef, fallback: CompiledFunction, name: str, vals: list[Any]
) -> tuple[CompiledFunction, list[Any]]:
    """The fallback for a call of ``name`` with ``vals``, and the arguments it runs with (a
    variadic last parameter gathers the call's arguments)."""
    bound = try_bind(fallback, vals)
    if bound is None:
        got = ", ".join(describe(v) for v in vals[:8])
        wants = ", ".join(t.name for _, t in fallback.params)
        raise ExecutionError(
            f"type error: argument type mismatch in '{name}': the fallback of {cdef.name} "
            f"takes ({wants}), the call passed ({got})",
            "type error",
        )
    return named_fallback(cdef, fallback, name), bound


def shape_result(
    r: list[Any], want: tuple[Coercer | None, ...], name: str, cdef: ContractDef
) -> Any:
    """What a fallback returned (``r``), as the typed caller expects it: ``want`` holds one
    coercer per value the called function declares (no value: None; several: a tuple)."""
    v: Any = r[0] if len(r) == 1 else (tuple(r) if r else None)
    n = len(want)
    if n == 0:
        return None
    if n == 1:
        if type(v) is VariadicValue and len(v) == 1:
            v = v[0]
        co = want[0]
        return _coerce(co, v, name, cdef)
    if isinstance(v, tuple) and len(v) == n:
        return tuple(_coerce(co, x, name, cdef) for co, x in zip(want, v, strict=True))
    raise ExecutionError(
        f"type error: '{name}' through the fallback of {cdef.name} returned {describe(v)}, "
        f"where {n} values are expected",
        "type error",
    )


def _coerce(co: Coercer | None, v: Any, name: str, cdef: ContractDef) -> Any:
    if co is None:
        return v
    try:
        return co(v)
    except ExecutionError as exc:
        raise ExecutionError(
            f"type error: '{name}' through the fallback of {cdef.name} returned "
            f"{describe(v)}: {exc.message.removeprefix('type error: ')}",
            "type error",
        ) from None


# ------------------------------------------------------------ storage layouts of delegates


def record_layout(fr: Frame, acct: AccountState, cdef: ContractDef) -> None:
    """Note (journaled) that ``cdef``'s code keeps its variables in ``acct``'s storage."""
    layouts = acct.layouts
    if layouts is None:
        layouts = acct.layouts = []
    fr.ctx.journal.append((layouts, PUSHED, None))
    layouts.append(cdef)


def delegated_vars(acct: AccountState, layouts: list[ContractDef] | None = None) -> list[StateVar]:
    """Variables of the contracts that ran on ``acct`` through delegatecall which its own
    contract does not declare, in the order they arrived (the first declaration of a name
    wins). ``layouts`` may give the list as a reader sees it (see ledger.readview)."""
    if layouts is None:
        layouts = acct.layouts
    if not layouts or acct.cdef is None:
        return []
    own = acct.cdef.svars
    seen: set[str] = set()
    out: list[StateVar] = []
    for c in layouts:
        for sv in c.state_vars:
            n = sv.name
            if sv.constant or n in own or n in seen:
                continue
            seen.add(n)
            out.append(sv)
    return out


def logic_chain(acct: AccountState, v: Address, parents: dict[str, str]) -> str | None:
    """The chain of the contract a proxy's ``logicContract`` (``v``) points to: the proxy's own
    unless the address names one ("main": the main chain). None when the proxy's chain may not
    read that one (only its own and its ancestors): such a logic contract counts as none, so
    that a proxy shows nothing of a private chain its creator cannot see."""
    here = acct.chain
    if v.chain is None:
        return here
    chain = "" if v.chain == "main" else v.chain
    if chain != here and not is_ancestor_chain(parents, here, chain):
        return None
    return chain


def logic_contract(
    accounts: dict[tuple[str, int], AccountState], acct: AccountState, parents: dict[str, str]
) -> ContractDef | None:
    """The contract the platform API types a proxy's calls with: the one at the address its
    ``logicContract`` variable holds (None when that is no contract)."""
    v = acct.storage.get("logicContract")
    if not isinstance(v, Address) or v.value == 0:
        return None
    chain = logic_chain(acct, v, parents)
    logic = accounts.get((chain, v.value)) if chain is not None else None
    return logic.cdef if logic is not None else None


def proxied_method(
    accounts: dict[tuple[str, int], AccountState],
    acct: AccountState,
    method: str,
    parents: dict[str, str],
) -> ContractDef | None:
    """The platform API's rule for proxies (contracts named Proxy, UserRegistry, User): a call
    of ``method``, unless it is one of the proxy's own listed functions, is typed by the logic
    contract's function of that name. None: the account's own contract types the call."""
    cdef = acct.cdef
    if cdef is None:
        return None
    own = PROXY_NAMES.get(cdef.name)
    if own is None or method in own:
        return None
    return logic_contract(accounts, acct, parents)


__all__ = [
    "PROXY_NAMES",
    "bind_fallback",
    "delegated_vars",
    "fallback_of",
    "is_renamed_fallback",
    "logic_chain",
    "logic_contract",
    "named_fallback",
    "proxied_method",
    "record_layout",
    "shape_result",
]
