"""Running the constructors of a new contract, in the platform's order.

SolidVM does not follow Solidity's linearized constructor order. The platform's
``runTheConstructors`` runs a contract's constructor as a recursion over the inheritance list
as written:

1. every state variable of the contract (its own and inherited ones) that has an initializer
   gets it, in the order of the variables' names;
2. its direct bases, last written first: a base named among the constructor's modifiers
   (``constructor() ERC20("n", "s")``) runs with those arguments; a base whose constructor takes
   no parameters (or that has none) runs without; a base whose constructor needs arguments the
   contract does not pass is skipped, its body and its own bases' with it (the initializer
   pattern: ``__ERC20_init`` does the work later). Each base repeats the recursion, so a base
   reached twice (a diamond) runs twice;
3. its own constructor body, wrapped in its other modifiers.

Arguments in the inheritance list (``contract C is A(1)``) are dropped by the platform's parser
and never reach ``A``: only the constructor's modifiers pass arguments. A constructor modifier
naming a contract that is not a direct base fails when the contract is created, as there.

EVM contracts keep Solidity's rules (:func:`run_linearized`): bases in linearized order, each
once, arguments from the inheritance list or the constructors, all of them required.
"""

from __future__ import annotations

from typing import Any

from .binding import try_bind
from .defs import CompiledFunction, ContractDef, StateVar
from .errors import ExecutionError
from .ops import copy_in, describe
from .runtime import ExecContext, Frame, run_modifiers
from .trace import TraceRecorder
from .values import Address, default_value


def construct(
    ctx: ExecContext,
    cdef: ContractDef,
    acct: Any,
    args: list[Any],
    sender: Address,
    value: int,
) -> None:
    """Run the constructors that create a contract of type ``cdef`` on ``acct``."""
    tr = ctx.trace
    if tr is not None:
        _traced_construct(ctx, tr, cdef, acct, args, sender, value)
        return
    ctx.stack.append(acct.storage)
    try:
        if cdef.vm == "EVM":
            run_linearized(ctx, cdef, acct, args, sender, value)
        else:
            run_constructor(ctx, cdef, acct, args, sender, value)
    finally:
        ctx.stack.pop()


def _traced_construct(
    ctx: ExecContext,
    tr: TraceRecorder,
    cdef: ContractDef,
    acct: Any,
    args: list[Any],
    sender: Address,
    value: int,
) -> None:
    """:func:`construct` recorded as a ``create`` frame of the call trace."""
    mark = len(ctx.journal)
    node = tr.enter_create(cdef, acct, args, sender, value)
    ctx.stack.append(acct.storage)
    try:
        if cdef.vm == "EVM":
            run_linearized(ctx, cdef, acct, args, sender, value)
        else:
            run_constructor(ctx, cdef, acct, args, sender, value)
    except BaseException as exc:
        if node is not None:
            tr.fail(node, exc)
            # what every caller does with a failed creation, done here so that the frame's
            # span of the journal is empty again when it closes (as invoke's)
            ctx.rollback(mark)
            tr.close(node)
        raise
    finally:
        ctx.stack.pop()
    if node is not None:
        tr.leave(node, [])


def run_constructor(
    ctx: ExecContext,
    c: ContractDef,
    acct: Any,
    args: list[Any],
    sender: Address,
    value: int,
) -> None:
    """SolidVM: run the constructor of ``c`` (the created contract or a base) on ``acct``."""
    ctx.steps += 1  # a diamond repeats its bases: each run is paid for
    if ctx.steps > ctx.max_steps:
        raise ctx.out_of_gas()
    ctor = c.constructor
    fr = _ctor_frame(ctx, ctor, acct, args, sender, value)
    init_fr = Frame(ctx, acct, sender, value, False, 0)
    st = acct.storage
    for sv in initialized_vars(c):
        init = sv.init
        assert init is not None
        st[sv.name] = copy_in(init_fr, init(init_fr))
    passed = c.ctor_base_args
    if passed:
        direct = {p.name for p in c.parents}
        for name in passed:
            if name not in direct:
                raise ExecutionError(
                    f'missing field: modifier not found: "{name}"', "missing field"
                )
    for base in reversed(c.parents):
        fns = passed.get(base.name)
        if fns is not None:
            base_args = bind_base(base, [f(fr) for f in fns])
        elif base.constructor is None or not base.constructor.params:
            base_args = []
        else:
            continue  # needs arguments nobody passes: not run, as on the platform
        run_constructor(ctx, base, acct, base_args, sender, value)
    if ctor is not None:
        _run_body(fr, ctor)


def _ctor_frame(
    ctx: ExecContext,
    ctor: CompiledFunction | None,
    acct: Any,
    args: list[Any],
    sender: Address,
    value: int,
) -> Frame:
    """The frame a constructor's body runs in: its arguments and zeroed named returns."""
    if ctor is None:
        return Frame(ctx, acct, sender, value, False, 0)
    fr = Frame(ctx, acct, sender, value, False, ctor.nslots)
    fr.fn = ctor
    fr.l[: len(args)] = args
    for slot, t in ctor.ret_init:
        fr.l[slot] = default_value(t)
    return fr


def _run_body(fr: Frame, ctor: CompiledFunction) -> None:
    if ctor.mods:
        run_modifiers(fr, ctor, 0)
    else:
        ctor.body(fr)


def initialized_vars(c: ContractDef) -> list[StateVar]:
    """The state variables (inherited ones too) that have an initializer, by name."""
    found = c.initialized
    if found is None:
        found = sorted(
            (sv for sv in c.state_vars if sv.init is not None and not sv.constant),
            key=lambda sv: sv.name,
        )
        c.initialized = found
    return found


def bind_base(base: ContractDef, vals: list[Any]) -> list[Any]:
    """The arguments the constructor of ``base`` (a created contract or a base) runs with
    (converted to its parameter types)."""
    ctor = base.constructor
    if ctor is None:
        if vals:
            raise ExecutionError(
                f"invalid arguments: constructor arguments don't match: {base.name} takes "
                f"no arguments, {len(vals)} given",
                "invalid arguments",
            )
        return []
    bound = try_bind(ctor, vals)
    if bound is None:
        raise ExecutionError(
            f"invalid arguments: constructor arguments don't match: {base.name} takes "
            f"({', '.join(t.name for _, t in ctor.params)}), got "
            f"({', '.join(describe(a) for a in vals[:8])})",
            "invalid arguments",
        )
    return bound


def run_linearized(
    ctx: ExecContext,
    cdef: ContractDef,
    acct: Any,
    args: list[Any],
    sender: Address,
    value: int,
) -> None:
    """Solidity's order: arguments gathered from the most derived contract down, then every
    base once, most basic first, each initializing its own state variables before its body."""
    lin = cdef.linearization
    frames: dict[str, Frame] = {}
    args_for: dict[str, list[Any]] = {cdef.name: args}
    for c in lin:
        ctor = c.constructor
        a = args_for.get(c.name)
        if a is None:
            if ctor is not None and ctor.params:
                raise ExecutionError(
                    f"missing arguments for the constructor of base contract {c.name}",
                    "invalid arguments",
                )
            a = []
        fr = _ctor_frame(ctx, ctor, acct, a, sender, value)
        frames[c.name] = fr
        for bname, fns in c.ctor_base_args.items():
            args_for[bname] = _coerce(cdef, bname, [f(fr) for f in fns])
        for bname, fns in c.base_args.items():
            if bname not in args_for:
                args_for[bname] = _coerce(cdef, bname, [f(fr) for f in fns])
    for c in reversed(lin):
        init_fr = Frame(ctx, acct, sender, value, False, 0)
        for sv in c.own_svars:
            if sv.init is not None and not sv.constant:
                acct.storage[sv.name] = copy_in(init_fr, sv.init(init_fr))
        ctor = c.constructor
        if ctor is not None:
            _run_body(frames[c.name], ctor)


def _coerce(cdef: ContractDef, bname: str, vals: list[Any]) -> list[Any]:
    for c in cdef.linearization:
        if c.name == bname and c.constructor is not None:
            cos = c.constructor.param_coercers
            return [co(v) if co else v for co, v in zip(cos, vals, strict=False)]
    return vals
