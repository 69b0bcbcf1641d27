"""What a paused run shows: the call stack, scopes, typed and expandable variables, evaluation.

Every function here runs on the session's thread (see :meth:`DebugSession.on_thread`). Values
are shown typed: ``uint256 42``, ``"text"``, ``0x…`` bytes, enums as ``E.V``, and containers
(structs, arrays, mappings) with a reference id whose children :func:`variables` lists, as the
Debug Adapter Protocol's ``variablesReference``. Ids hold for one pause.

Expressions (watches, evaluate, breakpoint conditions) are SolidVM expressions compiled in the
scope of the frame's current statement and run read-only on a copy of its locals: a write to
storage fails with ``invalid write``, a write to a local changes only the copy; hooks are off
meanwhile, so calls the expression makes do not stop.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..solidvm import ast as A
from ..solidvm.abi import encode_value, key_text
from ..solidvm.compiler.function import FunctionCompiler
from ..solidvm.errors import SolidVMError
from ..solidvm.parser import Parser
from ..solidvm.runtime import Frame
from ..solidvm.types import (
    AccountType,
    AddressType,
    ArrayType,
    BoolType,
    BytesType,
    ContractType,
    EnumType,
    IntType,
    MappingType,
    StringType,
    StructType,
    Type,
    UserDefinedType,
)
from ..solidvm.values import (
    Address,
    ArrayValue,
    DecimalValue,
    MappingValue,
    StructValue,
    TextBytes,
)
from .compiler import ACTIVE

if TYPE_CHECKING:
    from .engine import DebugFrame, DebugSession

MAX_CHILDREN = 500  # entries listed per container
ENV_NAMES = ("msg.sender", "msg.value", "tx.origin", "block.number", "block.timestamp", "this")


# ------------------------------------------------------------------ stack


def frame_at(s: DebugSession, frame_id: int) -> DebugFrame:
    """Frame ids count from 1, innermost first; 0 means the innermost."""
    i = max(frame_id, 1) - 1
    if not s.stack or i >= len(s.stack):
        raise LookupError(f"no frame {frame_id}: the stack has {len(s.stack)}")
    return s.stack[-1 - i]


def stack_trace(s: DebugSession) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, df in enumerate(reversed(s.stack)):
        pos = s.position(df)
        out.append(
            {
                "id": i + 1,
                "name": df.label,
                "kind": df.kind,
                "contract": df.fr.cdef.name if df.fr.cdef is not None else "",
                "address": df.fr.acct.hex,
                "file": pos["name"],
                "line": pos["line"],
                "column": pos["column"],
            }
        )
    return out


# ------------------------------------------------------------------ values


def type_of(v: Any, t: Type | None) -> Type | None:
    if t is not None and not isinstance(t, UserDefinedType):
        return t
    if isinstance(t, UserDefinedType):
        return t.actual
    if isinstance(v, StructValue):
        return v.stype
    if isinstance(v, ArrayValue):
        return v.atype
    if isinstance(v, MappingValue):
        return v.mtype
    return None


def _type_name(v: Any, t: Type | None) -> str:
    if t is not None:
        return t.name
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bytes):
        return "bytes"
    if isinstance(v, Address):
        return "address"
    if isinstance(v, DecimalValue):
        return "decimal"
    return type(v).__name__


def show(v: Any, t: Type | None) -> str:
    """A scalar as the debugger shows it (containers get a summary)."""
    t = type_of(v, t)
    if v is None:
        return "null"
    if isinstance(t, EnumType) and isinstance(v, int) and 0 <= v < len(t.values):
        return f"{t.name}.{t.values[v]}"
    if isinstance(t, BoolType) or isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(t, StringType) or isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, bytes):
        return json.dumps(v.decode("utf-8", "replace")) if type(v) is TextBytes else "0x" + v.hex()
    if isinstance(t, AddressType | ContractType | AccountType) or isinstance(v, Address):
        text = encode_value(v, t if t is not None else AddressType())
        return f"0x{text}" if isinstance(text, str) and ":" not in text else str(text)
    if isinstance(t, StructType):
        return f"{t.name}{{…}}"
    if isinstance(t, ArrayType) or isinstance(v, ArrayValue):
        return f"{_type_name(v, t)} (length {len(v)})"
    if isinstance(t, MappingType) or isinstance(v, MappingValue):
        return f"mapping ({len(v)} entries)"
    if isinstance(t, IntType | BytesType) or isinstance(v, int | DecimalValue):
        return str(v)
    return str(v)


def _children(v: Any, t: Type | None) -> list[tuple[str, Any, Type | None]] | None:
    t = type_of(v, t)
    if isinstance(v, StructValue) or isinstance(t, StructType):
        st = t if isinstance(t, StructType) else v.stype
        return [(n, v.get(n), ft) for n, ft in st.fields]
    if isinstance(v, ArrayValue) or isinstance(t, ArrayType):
        et = t.elem if isinstance(t, ArrayType) else None
        return [(f"[{i}]", x, et) for i, x in enumerate(v[:MAX_CHILDREN])]
    if isinstance(v, MappingValue) or isinstance(t, MappingType):
        mt = t if isinstance(t, MappingType) else v.mtype
        items = list(v.items())[:MAX_CHILDREN]
        return [(f"[{_key(k, mt.key)}]", x, mt.value) for k, x in items]
    return None


def _key(k: Any, t: Type) -> str:
    if isinstance(t, StringType):
        return json.dumps(k)
    try:
        text = key_text(k, t)
    except Exception:
        text = str(k)
    if isinstance(t, AddressType | ContractType | AccountType) and ":" not in text:
        return "0x" + text
    return text


def _lister(
    s: DebugSession, kids: list[tuple[str, Any, Type | None]]
) -> Callable[[], list[dict[str, Any]]]:
    return lambda: [variable(s, n, x, xt) for n, x, xt in kids]


def variable(s: DebugSession, name: str, v: Any, t: Type | None) -> dict[str, Any]:
    """One DAP-style variable: name, value, type, and a reference when it has children."""
    ref = 0
    kids = _children(v, t)
    if kids is not None:
        ref = len(s.refs) + 1
        s.refs[ref] = _lister(s, kids)
    tt = type_of(v, t)
    return {
        "name": name,
        "value": show(v, t),
        "type": _type_name(v, tt),
        "variablesReference": ref,
        "indexedVariables" if isinstance(v, ArrayValue) else "namedVariables": len(kids or []),
    }


# ------------------------------------------------------------------ scopes


def scopes(s: DebugSession, frame_id: int) -> list[dict[str, Any]]:
    """Locals (parameters and named returns included), the contract's state, msg/block/tx."""
    df = frame_at(s, frame_id)
    out = []
    for name, make in (
        ("Locals", lambda: local_variables(s, df)),
        ("Contract state", lambda: state_variables(s, df)),
        ("msg / block / tx", lambda: env_variables(s, df)),
    ):
        ref = len(s.refs) + 1
        s.refs[ref] = make
        out.append({"name": name, "variablesReference": ref, "expensive": False})
    return out


def local_variables(s: DebugSession, df: DebugFrame) -> list[dict[str, Any]]:
    info = df.info
    if info is None:
        return []
    fr = df.fr
    out = []
    for name, lv in sorted(info.locals.items(), key=lambda kv: kv[1].slot):
        v = fr.l[lv.slot] if lv.slot < len(fr.l) else None
        out.append(variable(s, name, v, lv.type))
    return out


def state_variables(s: DebugSession, df: DebugFrame) -> list[dict[str, Any]]:
    fr = df.fr
    cdef = fr.cdef
    if cdef is None:
        return []
    out = []
    for sv in cdef.state_vars:
        if sv.constant:
            continue
        out.append(variable(s, sv.name, fr.st.get(sv.name), sv.type))
    return out


def env_variables(s: DebugSession, df: DebugFrame) -> list[dict[str, Any]]:
    out = []
    for name in ENV_NAMES:
        try:
            v, t = evaluate_in(s, df, name)
        except Exception:
            continue
        out.append(variable(s, name, v, t))
    return out


def variables(s: DebugSession, ref: int) -> list[dict[str, Any]]:
    make = s.refs.get(ref)
    if make is None:
        raise LookupError(f"no variables reference {ref} in this pause")
    return make()


# ------------------------------------------------------------------ evaluation


def parse_expression(text: str) -> A.Expr:
    p = Parser(text)
    e = p.parse_expr()
    if not p.at_eof():
        p.error(f"unexpected {p.tok.describe()} after the expression")
    return e


def evaluate_in(s: DebugSession, df: DebugFrame, text: str) -> tuple[Any, Type | None]:
    """The value and static type of ``text`` in frame ``df`` (read-only)."""
    info = df.info
    if info is None:
        raise LookupError("the frame has not run a statement yet")
    e = parse_expression(text)
    base = info.fc
    fc = FunctionCompiler(base.uc, base.c, base.fn)
    fc.in_modifier = base.in_modifier
    fc.scopes = [dict(info.locals)]
    fc.nslots = base.nslots
    f, t = fc.expr(e)
    fr = df.fr
    copy = Frame(fr.ctx, fr.acct, fr.sender, fr.value, True, 0)
    copy.cdef = fr.cdef
    copy.l = list(fr.l) + [None] * max(0, fc.nslots - len(fr.l))
    copy.fn = fr.fn
    copy.ph = fr.ph
    if hasattr(fr, "up"):
        copy.up = fr.up
    ctx = fr.ctx
    steps, journal_len = ctx.steps, len(ctx.journal)
    tracer = ACTIVE.tracer
    ACTIVE.tracer = None
    try:
        v = f(copy)
    finally:
        ACTIVE.tracer = tracer
        ctx.steps = steps
        if len(ctx.journal) > journal_len:  # nothing should have been written; undo if so
            ctx.rollback(journal_len)
    return v, t


def evaluate_raw(s: DebugSession, frame_id: int, text: str) -> tuple[Any, Type | None]:
    return evaluate_in(s, frame_at(s, frame_id), text)


def evaluate(s: DebugSession, frame_id: int, text: str) -> dict[str, Any]:
    """DAP-shaped result of evaluating ``text``: {result, type, variablesReference} or {error}."""
    try:
        v, t = evaluate_raw(s, frame_id, text)
    except SolidVMError as exc:
        return {"error": str(exc)}
    except (LookupError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        return {"error": f"cannot evaluate: {exc}"}
    var = variable(s, text, v, t)
    return {
        "result": var["value"],
        "type": var["type"],
        "variablesReference": var["variablesReference"],
    }


# ------------------------------------------------------------------ the platform's strings


def platform_text(v: Any, t: Type | None) -> str:
    """A value as the platform's debugger prints it (showSM): ints decimal, strings raw,
    booleans True/False, enums E.V, arrays [a, b], structs S{f: v}, mappings {k: v}."""
    t = type_of(v, t)
    if isinstance(t, EnumType) and isinstance(v, int) and 0 <= v < len(t.values):
        return f"{t.name}.{t.values[v]}"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace") if type(v) is TextBytes else v.hex()
    kids = _children(v, t)
    if kids is not None:
        if isinstance(v, StructValue):
            inner = ", ".join(f"{n}: {platform_text(x, xt)}" for n, x, xt in kids)
            return f"{type_of(v, t).name}{{{inner}}}"  # type: ignore[union-attr]
        if isinstance(v, MappingValue):
            inner = ", ".join(f"{n[1:-1]}: {platform_text(x, xt)}" for n, x, xt in kids)
            return "{" + inner + "}"
        return "[" + ", ".join(platform_text(x, xt) for _, x, xt in kids) + "]"
    return show(v, t).removeprefix("0x") if isinstance(v, Address) else show(v, t)


def platform_eval(s: DebugSession, text: str) -> dict[str, str]:
    try:
        v, t = evaluate_raw(s, 0, text)
    except Exception as exc:
        return {"Left": str(exc)}
    return {"Right": platform_text(v, t)}


def platform_variables(s: DebugSession) -> dict[str, dict[str, dict[str, str]]]:
    if not s.stack:
        return {}
    df = s.stack[-1]
    local: dict[str, dict[str, str]] = {}
    if df.info is not None:
        for name, lv in df.info.locals.items():
            v = df.fr.l[lv.slot] if lv.slot < len(df.fr.l) else None
            local[name] = {"Right": platform_text(v, lv.type)}
    state: dict[str, dict[str, str]] = {}
    cdef = df.fr.cdef
    if cdef is not None:
        for sv in cdef.state_vars:
            if not sv.constant:
                state[sv.name] = {"Right": platform_text(df.fr.st.get(sv.name), sv.type)}
    return {"Local Variables": local, "State Variables": state}
