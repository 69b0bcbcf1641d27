"""The world state SolidVM runs against, and the node-facing API: deploy, call, read state.

Accounts are keyed by ``(chain_id, address)`` with ``""`` for the main chain. Every entry point
runs one transaction in a fresh :class:`ExecContext`; on any failure the context's journal is
rolled back before the error propagates, so a failed transaction leaves no trace.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .abi import decode_args, encode_value, event_text
from .constructors import construct
from .defs import CompiledFunction, ContractDef
from .errors import ArgumentError, ExecutionError, SolidVMError, located
from .history import History, Journal
from .lowlevel import LowLevelCalls, unpack
from .ops import Coercer, copy_in, is_ancestor_chain, keccak256, make_coercer, type_error
from .proxies import (
    PROXY_NAMES,
    bind_fallback,
    delegated_vars,
    fallback_of,
    proxied_method,
    shape_result,
)
from .runtime import (
    DEFAULT_MAX_MEMORY,
    DEFAULT_MAX_STEPS,
    MAX_CALL_DEPTH,
    MISSING,
    PUSHED,
    ExecContext,
    Frame,
    invoke,
)
from .trace import TraceRecorder
from .types import Type
from .values import Address, default_value

# Deeply nested contract code recurses in Python; leave room above the call-depth limit.
if sys.getrecursionlimit() < 20000:
    sys.setrecursionlimit(20000)


class AccountState:
    """A contract account: its code (a compiled contract) and storage."""

    __slots__ = (
        "address",
        "cdef",
        "chain",
        "creator",
        "hex",
        "layouts",
        "origin",
        "storage",
        "views",
    )

    def __init__(self, address: int, chain: str, cdef: ContractDef | None) -> None:
        self.address = address
        self.hex = format(address, "040x")  # the address as results show it (made once)
        self.chain = chain
        self.cdef = cdef
        self.storage: dict[str, Any] = {}
        self.creator: int | None = None  # the creating contract; None when a user uploaded it
        self.origin: int | None = None  # the user at the root of its creation tree, if known
        # contracts whose code ran on this storage through delegatecall, in order (journaled):
        # their variables are part of this account's state (see proxies.py)
        self.layouts: list[ContractDef] | None = None
        # this account as other contracts' code sees it in a delegatecall, by id of that code
        self.views: dict[int, AccountState] | None = None

    def __repr__(self) -> str:
        name = self.cdef.name if self.cdef else "EOA"
        return f"<{name} {self.hex}{':' + self.chain if self.chain else ''}>"


@dataclass(frozen=True)
class TxEnv:
    """Who sends a transaction and in which block it runs."""

    sender: str
    block_number: int = 1
    timestamp: int = 0
    origin: str | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    max_memory: int = DEFAULT_MAX_MEMORY
    gas_limit: int | None = None  # the block's gas limit (block.gaslimit); None: max_steps
    difficulty: int = 0  # the block's difficulty (block.difficulty)


@dataclass
class EventLog:
    contract: str
    name: str
    address: str
    chain_id: str
    args: list[tuple[str, str]]

    @property
    def values(self) -> dict[str, str]:
        return dict(self.args)


@dataclass
class ExecResult:
    address: str | None = None
    chain_id: str = ""
    values: list[Any] = field(default_factory=list)
    raw: list[Any] = field(default_factory=list)
    events: list[EventLog] = field(default_factory=list)
    created: list[tuple[str, str]] = field(default_factory=list)
    touched: list[tuple[str, str]] = field(default_factory=list)
    steps: int = 0
    logs: list[str] = field(default_factory=list)  # lines printed by log(...)
    # the undo journal of the transaction, (container, key, old value) per write: tells the
    # Cirrus collection indexer which mapping and array entries changed
    journal: list[tuple[Any, Any, Any]] = field(default_factory=list)
    # (chain, address) -> creator of the code collection, for contracts the create/create2
    # builtins made (see ExecContext.registered)
    collections: dict[tuple[str, str], str] = field(default_factory=dict)


def _addr_int(a: str | int) -> int:
    if isinstance(a, int):
        return a
    h = a[2:] if a[:2] in ("0x", "0X") else a
    if len(h) != 40:
        raise ArgumentError(f"invalid address {a!r}: expected 40 hex digits", "invalid address")
    try:
        return int(h, 16)
    except ValueError:
        raise ArgumentError(f"invalid address {a!r}", "invalid address") from None


def _rlp_bytes(b: bytes) -> bytes:
    if len(b) == 1 and b[0] < 0x80:
        return b
    assert len(b) < 56
    return bytes([0x80 + len(b)]) + b


def contract_address(sender: int, nonce: int) -> int:
    """Ethereum's rule: last 20 bytes of keccak256(rlp([sender, nonce]))."""
    n = nonce.to_bytes((nonce.bit_length() + 7) // 8, "big") if nonce else b""
    payload = _rlp_bytes(sender.to_bytes(20, "big")) + _rlp_bytes(n)
    data = bytes([0xC0 + len(payload)]) + payload
    return int.from_bytes(keccak256(data)[12:], "big")


class World(LowLevelCalls):
    """All accounts on all chains, identities, balances and nonces."""

    def __init__(self) -> None:
        self.accounts: dict[tuple[str, int], AccountState] = {}
        self.balances: dict[tuple[str, int], int] = {}
        self.nonces: dict[tuple[str, int], int] = {}
        self.identities: dict[int, dict[str, str]] = {}
        self.chain_parents: dict[str, str] = {}  # chain id -> parent ("" = main)
        self.compile_hook: Callable[[str, str], Any] | None = None  # (source, vm) -> unit
        self.units: dict[bytes, Any] = {}  # sources compiled by create()/create2()
        # With ``test_clock`` (a node started with --test-clock) contracts read the clock of the
        # platform's test runner instead of the blocks': each contract a transaction is sent to
        # (or creates) has its own, from 0 at its creation, moved only by fastForward, which
        # keeps what a failed transaction moved it by (see docs/solidvm.md, "Test clock").
        self.test_clock = False
        self.test_clocks: dict[tuple[str, int], int] = {}  # (chain, address) -> seconds
        self.current: ExecContext | None = None  # the last transaction's (a watchdog reads it)
        # Call traces (trace.py): with ``trace_items`` > 0 every deploy and call that may write
        # records its call tree, at most that many frames, events and writes; the recorder of
        # the last one is ``last_trace`` (the node takes it after each transaction).
        self.trace_items = 0
        self.last_trace: TraceRecorder | None = None
        # set by a node whose readers run beside the executing thread (see history.py)
        self.history: History | None = None

    # ------------------------------------------------------------ set-up

    def register_identity(self, address: str | int, cert: dict[str, str]) -> None:
        a = _addr_int(address)
        full = {
            "commonName": "",
            "organization": "",
            "organizationalUnit": "",
            "group": "",
            "country": "",
            "publicKey": "",
            "certString": "",
            "parent": "",
            "expirationDate": "",
        }
        full.update(cert)
        if not full["group"]:
            full["group"] = full["organizationalUnit"]
        full["userAddress"] = format(a, "040x")
        self.identities[a] = full

    def add_chain(self, chain_id: str, parent: str = "") -> None:
        self.chain_parents[chain_id] = parent

    def can_read(self, here: str, there: str) -> bool:
        """A contract may read (not write) contracts on its ancestor chains."""
        return is_ancestor_chain(self.chain_parents, here, there)

    def get_account(self, address: str | int, chain_id: str = "") -> AccountState | None:
        return self.accounts.get((chain_id, _addr_int(address)))

    def balance_of(self, chain: str, a: Address) -> int:
        return self.balances.get((chain, a.value), 0)

    # ------------------------------------------------------------ entry points

    def deploy(
        self,
        cdef: ContractDef,
        args: Any,
        env: TxEnv,
        *,
        chain_id: str = "",
        address: str | int | None = None,
        value: int = 0,
        max_steps: int | None = None,
    ) -> ExecResult:
        """Create a contract of type ``cdef`` with JSON constructor ``args``."""
        if cdef.kind in ("interface", "library", "abstract"):
            raise ExecutionError(
                f"cannot deploy {cdef.kind} '{cdef.name}': only contracts can be created",
                "invalid contract",
            )
        ctor = cdef.constructor
        params = ctor.params if ctor else []
        vals = decode_args(params, args, cdef.vm, f"constructor of {cdef.name}")
        sender = _addr_int(env.sender)
        ctx = self._context(env, max_steps)
        if self.trace_items:
            ctx.trace = self.last_trace = TraceRecorder(ctx, self.trace_items)
        key_addr = _addr_int(address) if address is not None else None

        def run() -> AccountState:
            addr = key_addr if key_addr is not None else self._next_address(ctx, chain_id, sender)
            if (chain_id, addr) in self.accounts:
                raise ExecutionError(
                    f"a contract already exists at {addr:040x}", "duplicate address"
                )
            return self._construct(ctx, cdef, chain_id, addr, vals, Address(sender), value)

        acct = self._run(ctx, run)
        if self.test_clock:
            self.test_clocks[(chain_id, acct.address)] = ctx.timestamp
        return self._result(ctx, acct.hex, chain_id, [], None)

    def call(
        self,
        address: str | int,
        method: str,
        args: Any,
        env: TxEnv,
        *,
        chain_id: str = "",
        value: int = 0,
        read_only: bool = False,
        max_steps: int | None = None,
    ) -> ExecResult:
        """Call ``method`` of the contract at ``address`` with JSON ``args``."""
        acct = self.accounts.get((chain_id, _addr_int(address)))
        if acct is None or acct.cdef is None:
            raise ExecutionError(
                f"no contract at address {_addr_int(address):040x}"
                + (f" on chain {chain_id}" if chain_id else ""),
                "unknown contract",
            )
        cdef = acct.cdef
        if cdef.name in PROXY_NAMES:  # a proxy takes its logic contract's functions
            typed = self.api_function(acct, method, args)
            via_fallback = method not in cdef.functions
        else:
            typed = self.pick_function(cdef, method, args)
            via_fallback = False
        vals = decode_args(typed.params, args, cdef.vm, f"function {method}")
        fn = typed
        if via_fallback:
            fallback = fallback_of(cdef)
            assert fallback is not None  # api_function found the function elsewhere
            fn, vals = bind_fallback(cdef, fallback, method, vals)
        if value and not (typed.payable or fn.payable):
            raise ExecutionError(
                f"function '{method}' is not payable but a value was sent", "not payable"
            )
        ctx = self._context(env, max_steps)
        if self.trace_items and not read_only:
            ctx.trace = self.last_trace = TraceRecorder(ctx, self.trace_items)
        sender = Address(_addr_int(env.sender))
        if not (value or via_fallback or self.test_clock):  # the common case, without closures
            raw = self._run(ctx, invoke, ctx, fn, acct, vals, sender, 0, read_only)
            if read_only:
                ctx.rollback()
            return self._result(ctx, acct.hex, chain_id, raw, typed)

        def run() -> list[Any]:
            if value:
                self._move_value(ctx, chain_id, sender.value, acct.address, value)
            return invoke(ctx, fn, acct, vals, sender, value, read_only)

        def answered() -> list[Any]:  # a proxy's fallback answers as the logic's function
            return self._answer_as(ctx, run(), typed, method, cdef)

        body = answered if via_fallback else run
        if not self.test_clock:
            raw = self._run(ctx, body)
        else:
            key = (chain_id, acct.address)
            ctx.timestamp = self.test_clocks.get(key, 0)
            try:
                raw = self._run(ctx, body)
            finally:
                if not read_only:  # as the platform's runner: kept even when the call fails
                    self.test_clocks[key] = ctx.timestamp
        if read_only:
            ctx.rollback()
        return self._result(ctx, acct.hex, chain_id, raw, typed)

    @staticmethod
    def _answer_as(
        ctx: ExecContext, r: list[Any], typed: CompiledFunction, method: str, cdef: ContractDef
    ) -> list[Any]:
        """What a proxy's fallback returned (``r``), as the logic's function ``typed``
        declares its results."""
        want = tuple(make_coercer(t, cdef.vm) for _, t in typed.returns)
        v = shape_result(r, want, method, cdef)
        ctx.implicit = False
        return [] if not want else [v] if len(want) == 1 else list(v)

    def api_function(self, acct: AccountState, method: str, args: Any) -> CompiledFunction:
        """The function whose parameters type an API call of ``method`` (JSON ``args``) on
        ``acct`` and whose results type its answer (see :meth:`api_contract`)."""
        return self.pick_function(self.api_contract(acct, method), method, args)

    def api_contract(self, acct: AccountState, method: str) -> ContractDef:
        """The contract whose function ``method`` types an API call on ``acct``.

        A proxy (see proxies.PROXY_NAMES) takes calls of its logic contract's functions, as the
        platform's API does: a function the proxy lacks is typed by the logic's and runs the
        proxy's fallback; a name the logic lacks is refused, as there.
        """
        cdef = acct.cdef
        assert cdef is not None
        logic = proxied_method(self.accounts, acct, method, self.chain_parents)
        if logic is None:
            return cdef
        if method not in logic.functions:
            raise ExecutionError(
                f"unknown function: contract {cdef.name} is a proxy of {logic.name}, which "
                f"has no method named '{method}'",
                "unknown function",
            )
        if method in cdef.functions or fallback_of(cdef) is None:
            return cdef
        return logic

    def pick_function(self, cdef: ContractDef, method: str, args: Any) -> CompiledFunction:
        fns = cdef.functions.get(method)
        if not fns:
            raise ExecutionError(
                f"unknown function: contract {cdef.name} has no method named '{method}'",
                "unknown function",
            )
        fns = [f for f in fns if f.external]
        if not fns:
            raise ExecutionError(
                f"unknown function: '{method}' of {cdef.name} is not public", "unknown function"
            )
        if len(fns) == 1:
            return fns[0]
        # Overloads: those whose parameter names are the JSON names, then those whose names all
        # appear (extras ignored), most parameters first; the first whose types accept the
        # values wins (as the compiler picks for f({a: 1, b: 2})).
        if isinstance(args, dict):
            keys = set(args)
            exact = [f for f in fns if {p for p, _ in f.params} == keys]
            within = [f for f in fns if f not in exact and all(p in keys for p, _ in f.params)]
            within.sort(key=lambda f: -len(f.params))
            ranked = exact + within
        elif isinstance(args, list):
            ranked = [f for f in fns if len(f.params) == len(args)]
        else:
            ranked = [f for f in fns if not f.params]
        for f in ranked:
            try:
                decode_args(f.params, args, cdef.vm, f"function {method}")
            except ArgumentError:
                continue
            return f
        return ranked[0] if ranked else fns[0]

    def _context(self, env: TxEnv, max_steps: int | None = None) -> ExecContext:
        origin = Address(_addr_int(env.origin or env.sender))
        steps = env.max_steps if max_steps is None else max_steps
        if self.test_clock:  # the test runner's default block header: all zeros but the clock
            ctx = ExecContext(self, origin, 0, 0, steps, env.max_memory, 0, 0)
        else:
            ctx = ExecContext(
                self,
                origin,
                env.block_number,
                env.timestamp,
                steps,
                env.max_memory,
                env.gas_limit,
                env.difficulty,
            )
        if self.history is not None:
            ctx.journal = Journal(self.history, ctx.events, ctx.created, ctx.dirty)
        self.current = ctx
        return ctx

    def _run(self, ctx: ExecContext, body: Callable[..., Any], *args: Any) -> Any:
        """``body(*args)``, its failures rolled back and reported as execution errors."""
        try:
            return body(*args)
        except SolidVMError:
            ctx.rollback()
            raise
        except RecursionError as exc:
            ctx.rollback()
            raise located(
                ExecutionError(
                    "stack too deep: the contract nests calls or expressions too deeply",
                    "stack too deep",
                ),
                exc,
            ) from None
        except MemoryError as exc:
            ctx.rollback()
            raise located(ExecutionError("memory limit exceeded", "memory limit"), exc) from None
        except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
            ctx.rollback()
            raise located(ExecutionError(f"type error: {exc}", "type error"), exc) from exc

    def _result(
        self,
        ctx: ExecContext,
        address: str,
        chain_id: str,
        raw: list[Any],
        fn: CompiledFunction | None,
    ) -> ExecResult:
        res = ExecResult(
            address=address,
            chain_id=chain_id,
            raw=raw,
            steps=ctx.steps,
            logs=ctx.logs,
            journal=ctx.journal,
        )
        # (loops rather than comprehensions: each of those costs a call in Python 3.11, and this
        # runs once per transaction)
        if fn is not None:
            rets = fn.returns
            if ctx.implicit and not all(n for n, _ in rets):
                # no `return <values>` ran: SolidVM answers the named return values only
                raw = [v for v, (n, _) in zip(raw, rets, strict=True) if n]
                rets = [(n, t) for n, t in rets if n]
                res.raw = raw
            values = res.values
            for v, (_, t) in zip(raw, rets, strict=True):
                values.append(encode_value(v, t))
        for acct, ev, vals in ctx.events:
            assert acct.cdef is not None
            args: list[tuple[str, str]] = []
            for (n, t, _), v in zip(ev.params, vals, strict=True):
                args.append((n, event_text(v, t)))
            res.events.append(EventLog(acct.cdef.name, ev.name, acct.hex, acct.chain, args))
        created = res.created
        for a in ctx.created:
            created.append((a.chain, a.hex))
        if ctx.registered:
            made = {id(a) for a in ctx.created}
            res.collections = {(a.chain, a.hex): u for a, u in ctx.registered if id(a) in made}
        touched = res.touched
        for a in ctx.dirty.values():
            touched.append((a.chain, a.hex))
        if ctx.delegated:  # delegatecalls write through views of an account: one entry each
            res.touched = list(dict.fromkeys(touched))
        return res

    # ------------------------------------------------------------ state

    def state(self, address: str | int, chain_id: str = "") -> dict[str, Any]:
        """Every state variable of a contract, encoded as the API returns it."""
        acct = self.accounts.get((chain_id, _addr_int(address)))
        if acct is None or acct.cdef is None:
            raise ExecutionError(f"no contract at address {address}", "unknown contract")
        st = acct.storage
        out = {
            sv.name: encode_value(st[sv.name], sv.type)
            for sv in acct.cdef.state_vars
            if not sv.constant
        }
        for sv in delegated_vars(acct):  # a proxy keeps its logic contract's variables
            out[sv.name] = encode_value(st[sv.name], sv.type)
        return out

    def get(self, address: str | int, name: str, chain_id: str = "") -> Any:
        """One state variable, as a runtime value (no encoding)."""
        acct = self.accounts.get((chain_id, _addr_int(address)))
        if acct is None or acct.cdef is None or name not in acct.storage:
            raise ExecutionError(f"no state variable '{name}' at {address}", "missing field")
        return acct.storage[name]

    def var_type(self, address: str | int, name: str, chain_id: str = "") -> Type | None:
        acct = self.accounts.get((chain_id, _addr_int(address)))
        if acct is None or acct.cdef is None:
            return None
        sv = acct.cdef.svars.get(name)
        if sv is None:
            sv = next((d for d in delegated_vars(acct) if d.name == name), None)
        return sv.type if sv else None

    # ------------------------------------------------------------ used by compiled code

    def _next_address(self, ctx: ExecContext, chain: str, creator: int) -> int:
        key = (chain, creator)
        nonce = self.nonces.get(key, 0)
        ctx.journal.append((self.nonces, key, nonce if key in self.nonces else MISSING))
        self.nonces[key] = nonce + 1
        addr = contract_address(creator, nonce)
        while (chain, addr) in self.accounts:  # astronomically unlikely; keep addresses unique
            nonce += 1
            addr = contract_address(creator, nonce)
        return addr

    def _construct(
        self,
        ctx: ExecContext,
        cdef: ContractDef,
        chain: str,
        addr: int,
        args: list[Any],
        sender: Address,
        value: int,
    ) -> AccountState:
        acct = AccountState(addr, chain, cdef)
        acct.origin = sender.value
        acct.storage = {
            sv.name: default_value(sv.type) for sv in cdef.state_vars if not sv.constant
        }
        key = (chain, addr)
        j = ctx.journal
        j.append((self.accounts, key, MISSING))
        self.accounts[key] = acct
        j.append((ctx.created, PUSHED, None))
        ctx.created.append(acct)
        j.append((ctx.dirty, id(acct), MISSING))
        ctx.dirty[id(acct)] = acct
        if value:
            self._move_value(ctx, chain, sender.value, addr, value)
        construct(ctx, cdef, acct, args, sender, value)
        return acct

    def create_from(
        self,
        fr: Frame,
        cdef: ContractDef,
        args: list[Any],
        salt: tuple[str, list[Any]] | None = None,
    ) -> AccountState:
        """``new C(args)`` executed by the contract of frame ``fr``.

        With ``salt`` = (salt, the arguments as written), the address is the salted one
        (``new C{salt: s}(...)``, ``create2``) instead of the next nonce's.
        """
        if fr.ro:
            raise ExecutionError(
                "invalid write: cannot create contracts from a read-only call", "invalid write"
            )
        ctx = fr.ctx
        if ctx.depth >= MAX_CALL_DEPTH:
            raise ExecutionError(
                "stack too deep: contract creation nested too deeply", "stack too deep"
            )
        j = ctx.journal
        mark = len(j)
        chain = fr.acct.chain
        if salt is None:
            addr = self._next_address(ctx, chain, fr.acct.address)
        else:
            addr = self._salted_address(ctx, chain, fr.acct.address, cdef, salt[0], salt[1])
        ctx.depth += 1
        try:
            acct = self._construct(ctx, cdef, chain, addr, args, Address(fr.acct.address), 0)
        except BaseException:
            ctx.depth -= 1  # a failed `new` inside `try` leaves no account behind
            ctx.rollback(mark)
            raise
        acct.creator = fr.acct.address
        acct.origin = fr.acct.origin if fr.acct.origin is not None else fr.ctx.origin.value
        ctx.depth -= 1
        return acct

    def call_from(
        self,
        fr: Frame,
        target: Any,
        name: str,
        vals: list[Any],
        nargs: int,
        sig: str | None = None,
        want: tuple[Coercer | None, ...] | None = None,
    ) -> Any:
        """An external call made by contract code: ``other.f(args)`` or ``this.f(args)``.

        ``sig`` (the signature chosen at compile time) tells same-arity overloads apart.
        ``want`` converts the values the caller's declaration of the function returns (one
        coercer per value): a fallback's result is shaped with it.
        """
        here = fr.acct
        acct, ro = self.target_account(fr, target, name)
        if acct.address == here.address and acct.chain == here.chain:
            # SolidVM: a contract calling its own address runs the code now running (a proxy's
            # logic, in a delegatecall) with msg.sender unchanged
            acct, ro, sender = here, fr.ro, fr.sender
        else:
            sender = Address(here.address)
        cdef = acct.cdef
        assert cdef is not None
        fn = cdef.sigtable.get(sig) if sig is not None else None
        if fn is None:
            fn = cdef.vtable.get((name, nargs))
        if fn is None or not fn.external:
            fallback = fallback_of(cdef) if name not in cdef.functions else None
            if fallback is None:
                raise ExecutionError(
                    f"unknown function: contract {cdef.name} has no public function '{name}' "
                    f"taking {nargs} arguments",
                    "unknown function",
                )
            # SolidVM: a name the contract lacks runs its fallback (a proxy's delegatecall)
            fn, vals = bind_fallback(cdef, fallback, name, vals)
            r = invoke(fr.ctx, fn, acct, vals, sender, 0, ro)
            r = [copy_in(fr, x) for x in r]
            if want is None:
                return unpack(r, len(fn.returns))
            return shape_result(r, want, name, cdef)
        cos = fn.param_coercers
        if len(cos) != len(vals):
            raise type_error(f"'{name}' takes {len(cos)} arguments, {len(vals)} given")
        for i, co in enumerate(cos):  # `vals` is the caller's fresh list
            if co is not None:
                vals[i] = co(vals[i])
        r = invoke(fr.ctx, fn, acct, vals, sender, 0, ro)
        n = len(fn.returns)
        if n == 1:
            return copy_in(fr, r[0])
        if n == 0:
            return None
        return tuple([copy_in(fr, x) for x in r])

    def target_account(self, fr: Frame, target: Any, name: str) -> tuple[AccountState, bool]:
        """The contract ``target`` names as seen from frame ``fr``, and whether it is read-only
        from there (contracts on ancestor chains can be read, not written)."""
        if not isinstance(target, Address):
            raise type_error(f"cannot call '{name}' on a value that is not a contract")
        # the chain first: whether a contract exists on a chain one may not read is not told
        chain = self.readable_chain(fr, target, "called")
        acct = self.accounts.get((chain, target.value))
        if acct is None or acct.cdef is None:
            raise ExecutionError(
                f"unknown contract: no contract at address {target.hex} to call '{name}' on",
                "unknown contract",
            )
        return acct, fr.ro or chain != fr.acct.chain

    def transfer_value(self, fr: Frame, to: Any, amount: int, is_send: bool) -> bool:
        if not isinstance(to, Address):
            raise type_error("transfer needs an address")
        if amount < 0:
            raise type_error("negative transfer amount")
        chain = fr.acct.chain
        have = self.balances.get((chain, fr.acct.address), 0)
        if have < amount:
            if is_send:
                return False
            raise ExecutionError(
                f"insufficient balance: contract has {have}, transfer needs {amount}",
                "insufficient balance",
            )
        self._move_value(fr.ctx, chain, fr.acct.address, to.value, amount, fr)
        return True

    def _move_value(
        self, ctx: ExecContext, chain: str, src: int, dst: int, amount: int, fr: Frame | None = None
    ) -> None:
        b = self.balances
        ks, kd = (chain, src), (chain, dst)
        have = b.get(ks, 0)
        if have < amount:
            raise ExecutionError(
                f"insufficient balance: {src:040x} has {have}, needs {amount}",
                "insufficient balance",
            )
        for k in (ks, kd):
            ctx.journal.append((b, k, b.get(k, MISSING)))
        b[ks] = have - amount
        b[kd] = b.get(kd, 0) + amount


__all__ = ["AccountState", "EventLog", "ExecResult", "TxEnv", "World", "contract_address"]
