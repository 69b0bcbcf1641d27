"""Execution state shared by compiled code: frames, the transaction context, its undo journal.

Every write to a container (storage dict, mapping, struct, array, world tables) appends an undo
record to the context's journal first; so do events, created contracts and the dirty set. A failed
call replays the journal backwards to where the call began, so the world is left exactly as it was
without copying any state up front (and a caught failure inside `try` undoes only the callee).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import ExecutionError
from .values import Address, default_value

if TYPE_CHECKING:
    from .defs import CompiledFunction, ContractDef, EventDef
    from .trace import TraceRecorder
    from .world import AccountState, World

# Statement completion signals (None means "fell through").
BREAK = 1
CONTINUE = 2
RETURN = 3


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


MISSING: Any = _Marker("MISSING")  # key was absent before the write
PUSHED: Any = _Marker("PUSHED")  # list.append to undo with pop
POPPED: Any = _Marker("POPPED")  # list.pop to undo with append(old)
REPLACED: Any = _Marker("REPLACED")  # whole contents replaced; old holds a copy

MAX_CALL_DEPTH = 96
DEFAULT_MAX_STEPS = 2_000_000
DEFAULT_MAX_MEMORY = 20_000_000  # elements/characters allocated by one transaction

# log(...) output one transaction keeps (results, read calls, debug sessions carry it): a loop
# within the step budget could print ~200k lines; past these the rest is counted, not kept
LOG_KEEP_LINES = 1_000
LOG_KEEP_LINE_CHARS = 2_000
LOG_CUT_MARKER = "… log output cut: "


def keep_log_line(logs: list[str], text: str) -> bool:
    """Append one printed line to ``logs`` within the bounds above; False once past them (the
    last entry then counts the lines left out)."""
    if len(logs) < LOG_KEEP_LINES:
        if len(text) > LOG_KEEP_LINE_CHARS:
            text = text[:LOG_KEEP_LINE_CHARS] + f"… ({len(text)} characters)"
        logs.append(text)
        return True
    dropped = 1
    if len(logs) > LOG_KEEP_LINES:  # the marker is there: count one more
        dropped = int(logs[-1].removeprefix(LOG_CUT_MARKER).split(" ", 1)[0]) + 1
        logs.pop()
    logs.append(f"{LOG_CUT_MARKER}{dropped} more lines not kept (at most {LOG_KEEP_LINES})")
    return False


MAX_INT_BITS = 8192


class ExecContext:
    """Everything one transaction accumulates: undo journal, events, created contracts, budgets."""

    __slots__ = (
        "block_number",
        "created",
        "delegated",
        "depth",
        "difficulty",
        "dirty",
        "events",
        "gas_limit",
        "implicit",
        "journal",
        "logs",
        "max_mem",
        "max_steps",
        "mem",
        "origin",
        "overtime",
        "registered",
        "stack",
        "steps",
        "timestamp",
        "trace",
        "world",
    )

    def __init__(
        self,
        world: World,
        origin: Address,
        block_number: int,
        timestamp: int,
        max_steps: int = DEFAULT_MAX_STEPS,
        max_mem: int = DEFAULT_MAX_MEMORY,
        gas_limit: int | None = None,
        difficulty: int = 0,
    ) -> None:
        self.world = world
        self.origin = origin
        self.block_number = block_number
        self.timestamp = timestamp
        self.journal: list[tuple[Any, Any, Any]] = []
        self.events: list[tuple[AccountState, EventDef, list[Any]]] = []
        self.created: list[AccountState] = []
        self.dirty: dict[int, AccountState] = {}
        self.steps = 0
        self.max_steps = max_steps
        self.mem = 0
        self.max_mem = max_mem
        # the block header's fields the code can read (block.gaslimit: the step budget unless
        # the block says otherwise)
        self.gas_limit = gas_limit
        self.difficulty = difficulty
        self.depth = 0
        self.delegated = False  # a delegatecall ran (ctx.dirty may list views of an account)
        # True when the call that finished last ended without `return <values>`: the platform
        # then answers only its named return values
        self.implicit = False
        self.logs: list[str] = []  # what log(...) printed, in order
        # contracts made by the create/create2 builtins, each with the creator of the code
        # collection it registered (Cirrus names its STRATO 16 views after it)
        self.registered: list[tuple[AccountState, str]] | None = None
        # the storage of every running call and constructor, outermost first: the create
        # builtins name a collection after the first `username` up this stack
        self.stack: list[dict[str, Any]] = []
        # Set (with max_steps = -1) by a watchdog when the transaction outlives its wall-clock
        # budget: the next step check then stops it with the time limit's message.
        self.overtime = 0.0
        # the call-trace recorder (trace.py) when the node keeps traces, else None
        self.trace: TraceRecorder | None = None

    def out_of_gas(self) -> ExecutionError:
        if self.overtime:
            return ExecutionError(
                f"time limit exceeded: the transaction ran longer than {self.overtime:g} s "
                "of wall-clock time, the node's limit per transaction",
                "time limit",
            )
        return ExecutionError(
            f"out of gas: execution exceeded the limit of {self.max_steps} steps", "out of gas"
        )

    def charge_memory(self, n: int) -> None:
        self.mem += n
        if self.mem > self.max_mem:
            raise ExecutionError(
                f"memory limit exceeded: one transaction may allocate at most {self.max_mem} "
                "elements",
                "memory limit",
            )

    def rollback(self, mark: int = 0) -> None:
        """Undo journal entries newer than ``mark``, newest first."""
        j = self.journal
        while len(j) > mark:
            c, k, old = j.pop()
            if k is PUSHED:
                c.pop()
            elif k is POPPED:
                c.append(old)
            elif k is REPLACED:
                if isinstance(c, list):
                    c[:] = old
                else:
                    c.clear()
                    c.update(old)
            elif old is MISSING:
                c.pop(k, None)  # a key journaled twice (a self-transfer) is already gone
            else:
                c[k] = old


class Frame:
    """One activation of a function or modifier body."""

    __slots__ = ("acct", "cdef", "ctx", "fn", "l", "ph", "ret", "ro", "sender", "st", "up", "value")
    up: Frame  # a modifier's frame only: the frame of the function it wraps

    def __init__(
        self,
        ctx: ExecContext,
        acct: AccountState,
        sender: Address,
        value: int,
        ro: bool,
        nslots: int,
    ) -> None:
        self.ctx = ctx
        self.acct = acct
        self.cdef: ContractDef = acct.cdef  # type: ignore[assignment]
        self.st: dict[str, Any] = acct.storage
        self.sender = sender
        self.value = value
        self.ro = ro
        self.l: list[Any] = [None] * nslots
        self.ret: list[Any] | None = None
        self.fn: CompiledFunction | None = None
        self.ph: Any = None


def invalid_write(fr: Frame) -> ExecutionError:
    return ExecutionError(
        "invalid write: state cannot change here (a staticcall, a read-only call, or a "
        "contract on another chain)",
        "invalid write",
    )


def jset_dict(fr: Frame, c: dict[Any, Any], k: Any, v: Any) -> None:
    """Journaled ``c[k] = v`` for dict-like containers."""
    if fr.ro:
        raise invalid_write(fr)
    fr.ctx.journal.append((c, k, c.get(k, MISSING)))
    c[k] = v


def jset_list(fr: Frame, c: list[Any], k: int, v: Any) -> None:
    if fr.ro:
        raise invalid_write(fr)
    fr.ctx.journal.append((c, k, c[k]))
    c[k] = v


def jdel_dict(fr: Frame, c: dict[Any, Any], k: Any) -> None:
    if fr.ro:
        raise invalid_write(fr)
    if k in c:
        fr.ctx.journal.append((c, k, c[k]))
        del c[k]


def jpush(fr: Frame, c: list[Any], v: Any) -> None:
    if fr.ro:
        raise invalid_write(fr)
    ctx = fr.ctx
    ctx.mem += 1
    if ctx.mem > ctx.max_mem:
        ctx.charge_memory(0)
    ctx.journal.append((c, PUSHED, None))
    c.append(v)


def jpop(fr: Frame, c: list[Any]) -> Any:
    if fr.ro:
        raise invalid_write(fr)
    if not c:
        raise ExecutionError("index out of bounds: pop from an empty array", "index out of bounds")
    v = c[-1]
    fr.ctx.journal.append((c, POPPED, v))  # first: a reader's record must precede the change
    c.pop()
    return v


def jreplace_list(fr: Frame, c: list[Any], new: list[Any]) -> None:
    if fr.ro:
        raise invalid_write(fr)
    fr.ctx.journal.append((c, REPLACED, list(c)))
    c[:] = new


Fn = Callable[["Frame"], Any]
"""A compiled expression or statement: runs against a frame."""


def invoke(
    ctx: ExecContext,
    fn: CompiledFunction,
    acct: Any,
    args: list[Any],
    sender: Address,
    value: int,
    ro: bool,
) -> list[Any]:
    """Run ``fn`` on account ``acct`` with already-converted ``args``; returns the values."""
    if ctx.depth >= MAX_CALL_DEPTH:
        raise ExecutionError(
            f"stack too deep: call depth exceeded {MAX_CALL_DEPTH}", "stack too deep"
        )
    ctx.steps += 1
    if ctx.steps > ctx.max_steps:
        raise ctx.out_of_gas()
    j = ctx.journal
    mark = len(j)
    if fn.writes and not ro:
        dirty = ctx.dirty
        k = id(acct)
        if k not in dirty:
            dirty[k] = acct
            j.append((dirty, k, MISSING))
    fr = Frame(ctx, acct, sender, value, ro, fn.nslots)
    fr.fn = fn
    loc = fr.l
    loc[: len(args)] = args
    for slot, t in fn.ret_init:
        loc[slot] = default_value(t)
    ctx.depth += 1
    stack = ctx.stack
    stack.append(fr.st)
    tr = ctx.trace  # call traces: one test per call when off (see trace.py)
    node = tr.enter(fn, acct, args, sender, value, ro) if tr is not None else None
    try:
        if fn.mods:
            run_modifiers(fr, fn, 0)
        else:
            fn.body(fr)
    except BaseException as exc:
        # A failed call leaves nothing behind, as the platform drops a failed frame's writes: a
        # `try` in a caller keeps the caller's own writes and loses only the callee's.
        ctx.depth -= 1
        stack.pop()
        if node is not None:
            tr.fail(node, exc)  # type: ignore[union-attr]
        if len(j) > mark:
            ctx.rollback(mark)
        if node is not None:
            tr.close(node)  # type: ignore[union-attr]
        raise
    ctx.depth -= 1
    stack.pop()
    r = fr.ret
    if r is None:
        ctx.implicit = True
        r = [loc[s] for s in fn.ret_slots]
        if node is not None:
            tr.leave(node, r)  # type: ignore[union-attr]
        return r
    ctx.implicit = False
    if node is not None:
        tr.leave(node, r)  # type: ignore[union-attr]
    return r


def run_modifiers(fr: Frame, fn: CompiledFunction, i: int) -> None:
    if i == len(fn.mods):
        fn.body(fr)
        return
    mdef, argfns = fn.mods[i]
    mfr = Frame(fr.ctx, fr.acct, fr.sender, fr.value, fr.ro, mdef.nslots)
    mfr.cdef = fr.cdef
    mfr.fn = fn
    mfr.up = fr
    for k, a in enumerate(argfns):
        mfr.l[k] = a(fr)
    mfr.ph = lambda: run_modifiers(fr, fn, i + 1)
    assert mdef.body is not None
    mdef.body(mfr)
