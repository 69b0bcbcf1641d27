"""What compiled code asks the world for beyond plain calls: SolidVM's low-level calls
(``a.call("f", ...)``, ``delegatecall``, ``staticcall``), contract creation from source
(``create``, ``create2``), salted addresses (``new C{salt: s}``, ``a.derive(...)``) and account
introspection. A mixin of :class:`~app.node.solidvm.world.World`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .binding import spread_last, try_bind
from .constructors import bind_base
from .defs import CompiledFunction, ContractDef
from .errors import ExecutionError, SolidVMError
from .ops import chain_key, copy_in, describe, type_error
from .proxies import fallback_of, named_fallback, record_layout
from .runtime import MISSING, ExecContext, Frame, invoke, jset_dict
from .salted import code_hash, salt_text, salted_address, source_of
from .values import Address, default_value

if TYPE_CHECKING:
    from .world import AccountState

MAX_UNITS = 32
"""Sources compiled by create()/create2() kept in memory (like the platform's code cache)."""

_CALL_NAME = re.compile(r"^\s*([A-Za-z_$][A-Za-z0-9_$]*)?\s*\(.*\)\s*$", re.S)


def function_name(text: str) -> str:
    """``"transfer(address,uint)"`` names ``transfer``; ``"(...)"`` the fallback."""
    m = _CALL_NAME.match(text)
    if m is None:
        return text
    return m.group(1) or "fallback"


def calls_itself(fr: Frame, target: Any) -> bool:
    """Whether ``target`` is the address of the contract whose code runs in ``fr``.

    SolidVM runs such a typed call (``this.f()``, ``C(address(this)).f()``) as an internal one:
    with the code now running (a proxy's logic, in a delegatecall) and ``msg.sender`` unchanged.
    """
    here = fr.acct
    return (
        isinstance(target, Address)
        and target.value == here.address
        and chain_key(fr, target) == here.chain
    )


def unpack(r: list[Any], n: int) -> Any:
    if n == 1:
        return r[0]
    if n == 0:
        return None
    return tuple(r)


class LowLevelCalls:
    """Low-level calls, creation from source, salted addresses and introspection."""

    if TYPE_CHECKING:
        accounts: dict[tuple[str, int], AccountState]
        balances: dict[tuple[str, int], int]
        nonces: dict[tuple[str, int], int]
        identities: dict[int, dict[str, str]]
        compile_hook: Callable[[str, str], Any] | None
        units: dict[bytes, Any]

        def target_account(
            self, fr: Frame, target: Any, name: str
        ) -> tuple[AccountState, bool]: ...
        def can_read(self, here: str, there: str) -> bool: ...
        def create_from(
            self,
            fr: Frame,
            cdef: ContractDef,
            args: list[Any],
            salt: tuple[str, list[Any]] | None = None,
        ) -> AccountState: ...

    # ------------------------------------------------------------ low-level calls

    def low_level_call(self, fr: Frame, target: Any, mode: str, vals: list[Any]) -> Any:
        """``target.call(name, args...)`` and its ``delegatecall``/``staticcall`` forms; mode
        ``typed`` is a typed call bound at run time (``c.f(v)`` spreading a variadic ``v``).

        Returns what the function returns (one value, a tuple, or None); a missing function or a
        failure inside raises, exactly like a normal call (SolidVM has no success flag).
        """
        vals = spread_last(fr, list(vals))
        if not vals or type(vals[0]) is not str:
            got = describe(vals[0]) if vals else "nothing"
            raise type_error(f"{mode} needs the function name (a string) first, got {got}")
        fname = function_name(vals[0])
        args = vals[1:]
        if mode == "typed" and calls_itself(fr, target):
            # a typed call of one's own address (SolidVM's rule, see World.call_from)
            code_acct, ro = fr.acct, fr.ro
        else:
            code_acct, ro = self.target_account(fr, target, fname)
        cdef = code_acct.cdef
        assert cdef is not None
        if mode == "delegatecall":
            fr.ctx.delegated = True
            run_acct = self._delegate_view(fr, cdef)
            sender, value, ro = fr.sender, fr.value, fr.ro
        elif code_acct is fr.acct and mode == "typed":
            run_acct = code_acct
            sender, value = fr.sender, 0
        else:
            run_acct = code_acct
            sender, value = Address(fr.acct.address), 0
        if mode == "staticcall":
            ro = True
        fn, bound = self._pick(cdef, fname, args)
        r = invoke(fr.ctx, fn, run_acct, bound, sender, value, ro)
        return unpack([copy_in(fr, x) for x in r], len(fn.returns))

    def _pick(
        self, cdef: ContractDef, fname: str, args: list[Any]
    ) -> tuple[CompiledFunction, list[Any]]:
        fns = cdef.functions.get(fname)
        if fns:
            public = [f for f in fns if f.external]
            if not public:
                raise ExecutionError(
                    f"unknown function: '{fname}' of {cdef.name} is not public", "unknown function"
                )
            for f in public:
                bound = try_bind(f, args)
                if bound is not None:
                    return f, bound
        fallback = fallback_of(cdef)
        if fallback is not None:
            bound = try_bind(fallback, args)
            if bound is not None:  # msg.sig in the fallback is the name asked for
                return named_fallback(cdef, fallback, fname), bound
        if fns:
            raise ExecutionError(
                f"type error: argument type mismatch in '{fname}': no overload of {cdef.name}."
                f"{fname} takes ({', '.join(describe(a) for a in args[:8])})",
                "type error",
            )
        raise ExecutionError(
            f"unknown function: contract {cdef.name} has no function named '{fname}'",
            "unknown function",
        )

    def _delegate_view(self, fr: Frame, cdef: ContractDef) -> AccountState:
        """The calling contract's account with ``cdef``'s code: what delegatecall runs against.

        State variables the code uses but the caller lacks start at their zero values and stay
        in the caller's storage: the account records ``cdef`` among its layouts, so they are
        part of its state (a proxy keeps its logic contract's variables; see proxies.py).
        """
        acct = fr.acct
        # the account itself, also when the caller is a delegatecall's view of it
        acct = self.accounts.get((acct.chain, acct.address), acct)
        if acct.layouts is None or cdef not in acct.layouts:
            missing = [
                sv for sv in cdef.state_vars if not sv.constant and sv.name not in acct.storage
            ]
            if fr.ro:
                view = type(acct)(acct.address, acct.chain, cdef)
                view.creator, view.origin = acct.creator, acct.origin
                view.storage = dict(acct.storage)
                for sv in missing:
                    view.storage[sv.name] = default_value(sv.type)
                return view
            for sv in missing:
                jset_dict(fr, acct.storage, sv.name, default_value(sv.type))
            if cdef is not acct.cdef:
                record_layout(fr, acct, cdef)
        views = acct.views
        if views is None:
            views = acct.views = {}
        cached = views.get(id(cdef))
        if cached is None or cached.storage is not acct.storage:
            cached = type(acct)(acct.address, acct.chain, cdef)
            cached.storage = acct.storage
            views[id(cdef)] = cached
        view = cached
        view.creator, view.origin = acct.creator, acct.origin
        return view

    # ------------------------------------------------------------ creation

    def create_from_source(self, fr: Frame, vals: list[Any], salted: bool) -> Address:
        """``create(name, src, args...)`` / ``create2(salt, name, src, args...)``."""
        what = "create2" if salted else "create"
        vals = spread_last(fr, list(vals))
        need = 3 if salted else 2
        if len(vals) < need:
            raise type_error(
                f"{what} takes {'a salt, ' if salted else ''}a contract name and its source, "
                f"then the constructor arguments; {len(vals)} arguments given"
            )
        salt = salt_text(vals[0], what) if salted else None
        name, src = vals[need - 2], vals[need - 1]
        if type(name) is not str or type(src) is not str:
            raise type_error(
                f"{what}: the contract name and source must be strings, got "
                f"{describe(name)} and {describe(src)}"
            )
        if not name or not src:
            raise ExecutionError(
                f"invalid arguments: The contract name and src arguments for the {what} function "
                "should not be empty",
                "invalid arguments",
            )
        args = vals[need:]
        unit = self.compile_code(fr, src)
        cdef = unit.contracts.get(name)
        if cdef is None:
            raise ExecutionError(f"missing type: create'/contract: {name}", "missing type")
        if cdef.kind in ("interface", "library", "abstract"):
            raise ExecutionError(
                f"invalid contract: cannot create {cdef.kind} '{name}'", "invalid contract"
            )
        bound = self.bind_constructor(cdef, args)
        acct = self.create_from(fr, cdef, bound, None if salt is None else (salt, args))
        # the platform names the new collection after the first `username` string up the
        # call stack, from the creating frame outwards (else BlockApps)
        reg = fr.ctx.registered
        if reg is None:
            reg = fr.ctx.registered = []
        reg.append((acct, first_username([*fr.ctx.stack, fr.st])))
        return Address(acct.address)

    def bind_constructor(self, cdef: ContractDef, args: list[Any]) -> list[Any]:
        return bind_base(cdef, args)

    def compile_code(self, fr: Frame, src: str) -> Any:
        """Compile a source given to create()/create2(), charging for its size."""
        ctx = fr.ctx
        ctx.charge_memory(len(src))
        ctx.steps += len(src) // 16 + 1
        if ctx.steps > ctx.max_steps:
            raise ctx.out_of_gas()
        key = code_hash(src)
        unit = self.units.get(key)
        if unit is not None:
            return unit
        vm = fr.cdef.vm if fr.cdef is not None else "SolidVM"
        try:
            if self.compile_hook is not None:
                unit = self.compile_hook(src, vm)
            else:
                from .compile import compile_source  # compiling is needed only here

                unit = compile_source(src, vm=vm)
        except SolidVMError as exc:
            raise ExecutionError(f"parse error: create: {exc}", "parse error") from None
        if len(self.units) >= MAX_UNITS:
            self.units.pop(next(iter(self.units)))
        self.units[key] = unit
        return unit

    def _salted_address(
        self,
        ctx: ExecContext,
        chain: str,
        creator: int,
        cdef: ContractDef,
        salt: str,
        args: list[Any],
    ) -> int:
        addr = salted_address(creator, salt, code_hash(source_of(cdef)), cdef.name, args)
        if (chain, addr) in self.accounts or (chain, addr) in self.balances:
            raise ExecutionError(
                f"duplicate salted contract address: The address {addr:040x} already exists. "
                "Try using a different salt or constructor arguments.",
                "duplicate contract",
            )
        key = (chain, creator)
        nonce = self.nonces.get(key, 0)
        ctx.journal.append((self.nonces, key, nonce if key in self.nonces else MISSING))
        self.nonces[key] = nonce + 1
        return addr

    def derive_address(self, fr: Frame, target: Any, vals: list[Any]) -> Address:
        """``a.derive(salt, "C", args...)``: where ``new C{salt: salt}(args...)`` run by the
        contract at ``a`` puts its contract (its code collection, its address)."""
        vals = spread_last(fr, list(vals))
        if len(vals) < 2 or type(vals[1]) is not str:
            raise type_error(
                "derive: first two arguments must be the salt and the contract name (strings)"
            )
        salt = salt_text(vals[0], "derive")
        acct, _ = self.target_account(fr, target, "derive")
        assert acct.cdef is not None
        chash = code_hash(source_of(acct.cdef))
        return Address(salted_address(acct.address, salt, chash, vals[1], vals[2:]))

    # ------------------------------------------------------------ introspection

    def readable_chain(self, fr: Frame, a: Address, verb: str = "read") -> str:
        """The chain ``a`` names as seen from frame ``fr``, refused (``inaccessible chain``)
        unless code running there may see it: its own chain and its ancestors, the main chain
        included, as for calls. Every builtin that looks at another account goes through
        here, so that no contract learns anything of a chain it has no access to, not even
        whether that chain or an account on it exists."""
        chain = chain_key(fr, a)
        here = fr.acct.chain
        if chain != here and not self.can_read(here, chain):
            raise ExecutionError(
                f"inaccessible chain: accounts on chain {chain or 'main'} cannot be {verb} "
                f"from chain {here or 'main'}",
                "inaccessible chain",
            )
        return chain

    def account_at(self, fr: Frame, a: Any) -> AccountState | None:
        """The account at ``a`` (``a.code``, ``.codehash``, ``.nonce``, ``.creator``,
        ``.root``), on a chain the frame may read."""
        if not isinstance(a, Address):
            raise type_error(f"expected an address, got {describe(a)}")
        return self.accounts.get((self.readable_chain(fr, a), a.value))

    def balance_at(self, fr: Frame, a: Any) -> int:
        """``a.balance``, on a chain the frame may read."""
        if not isinstance(a, Address):
            raise type_error(f"balance of {describe(a)}: not an address")
        return self.balances.get((self.readable_chain(fr, a), a.value), 0)

    def root_of(self, fr: Frame, a: Any) -> int:
        """The user at the root of the creation tree of the contract at ``a`` (a user: itself)."""
        acct = self.account_at(fr, a)
        if acct is None:
            return int(a.value)
        seen = 0
        while acct.origin is None and acct.creator is not None and seen < 1000:
            parent = self.accounts.get((acct.chain, acct.creator))
            if parent is None:
                break
            acct, seen = parent, seen + 1
        return acct.origin if acct.origin is not None else 0


def first_username(storages: list[dict[str, Any]]) -> str:
    """The first non-empty ``username`` string from the innermost storage outwards, else
    ``BlockApps`` (the platform's user wallets hold one; STRATO 16 names views after it)."""
    for st in reversed(storages):
        user = st.get("username")
        if isinstance(user, str) and user:
            return user
    return "BlockApps"
