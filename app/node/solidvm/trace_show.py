"""Call traces shown: a recorded frame tree (trace.py) as plain tuples, and those as JSON.

:func:`compact` turns a recorder's frames into nested tuples of strings, numbers and shown
values, nothing else: what the trace writer stores (``marshal``, a few microseconds, where JSON
text took tens) and what no later transaction can change. :func:`tree_of` makes the JSON tree
the trace route answers from them, when a trace is read. Values are shown as Call results show
them, long ones cut (:data:`MAX_TEXT`, :data:`MAX_LIST`).
"""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING, Any

from .abi import encode_dynamic, encode_value, key_text
from .runtime import MISSING
from .types import AddressType, BoolType, IntType, MappingType, StringType, Type
from .values import (
    Address,
    ArrayValue,
    ContractRef,
    DecimalValue,
    MappingValue,
    StructValue,
    TextBytes,
    default_value,
)

if TYPE_CHECKING:
    from .trace import TraceFrame

TRACE_VERSION = 1
MAX_TEXT = 400  # characters of one shown value (longer ones are cut, and say so)
MAX_LIST = 50  # elements of one shown array or mapping


class _Shown:
    """A container value shown when it was recorded (it may change afterwards)."""

    __slots__ = ("json",)

    def __init__(self, json: Any) -> None:
        self.json = json

    @classmethod
    def of(cls, v: Any, t: Type | None = None) -> _Shown:
        return cls(_shown(v, t or _type_of(v)))


_SCALARS = frozenset({int, bool, str, bytes, Address, ContractRef, TextBytes, DecimalValue})


def _key_shown(k: Any, ct: Type | None) -> str:
    if type(k) is Address and type(ct) is MappingType and type(ct.key) is AddressType:
        return k.hex  # (the commonest)
    if isinstance(ct, MappingType):
        return key_text(k, ct.key)
    return str(encode_dynamic(k)) if not isinstance(k, str) else k


def _type_of(c: Any) -> Type | None:
    if isinstance(c, MappingValue):
        return c.mtype
    if isinstance(c, ArrayValue):
        return c.atype
    if isinstance(c, StructValue):
        return c.stype
    return None


def _head(v: Any) -> tuple[Any, int]:
    """``v`` cut to its first :data:`MAX_LIST` elements (a shallow copy), and its length."""
    n = len(v) if isinstance(v, dict | list) else 0
    if n <= MAX_LIST:
        return v, n
    if isinstance(v, MappingValue):
        return MappingValue(v.mtype, dict(islice(v.items(), MAX_LIST))), n
    if isinstance(v, ArrayValue):
        return ArrayValue(v.atype, v[:MAX_LIST]), n
    if isinstance(v, dict):
        return dict(islice(v.items(), MAX_LIST)), n
    return v[:MAX_LIST], n


def _clip(v: Any) -> Any:
    """A shown value kept small: long text cut, long arrays and mappings shortened."""
    if isinstance(v, str):
        return v if len(v) <= MAX_TEXT else v[:MAX_TEXT] + f"… ({len(v)} characters)"
    if isinstance(v, list):
        if len(v) > MAX_LIST:
            return [_clip(x) for x in v[:MAX_LIST]] + [f"… ({len(v)} elements)"]
        return [_clip(x) for x in v]
    if isinstance(v, dict):
        if len(v) > MAX_LIST:
            kept = dict(list(v.items())[:MAX_LIST])
            kept["…"] = f"{len(v)} entries"
            v = kept
        return {str(k): _clip(x) for k, x in v.items()}
    return v


def _shown(v: Any, t: Type | None) -> Any:
    cls = type(v)
    if cls is int and type(t) is IntType:  # the common cases first, without the codec
        return str(v)
    if cls is Address and type(t) is AddressType:
        return v.hex
    if cls is str and type(t) is StringType and len(v) <= MAX_TEXT:
        return v
    if cls is bool and type(t) is BoolType:
        return "true" if v else "false"
    if v is MISSING:
        return None
    if cls is _Shown:
        return v.json
    head, n = _head(v)
    try:
        out = encode_value(head, t) if t is not None else encode_dynamic(head)
    except Exception:
        return _clip(repr(v))
    if head is not v:
        if isinstance(out, list):
            out.append(f"… ({n} elements)")
        elif isinstance(out, dict):
            out["…"] = f"{n} entries"
    return _clip(out)


# ------------------------------------------------------------------ the compact form

Compact = tuple[Any, ...]
"""(version, frames, omitted, root frame). A frame: ("c", header, sender, value, args,
status, steps, returns, error, items), its header (kind, contract, address, chainId, function,
codeContract, parameters, results), a declaration a tuple of (name, type name) and values a
tuple of shown values. An item: a frame, ("e", (contract, address, name, parameters), args),
("w", variable, keys, op, old, new) or ("t", omitted)."""

# what a frame's or an event's header shows, by the objects it was made of (kept, so that their
# ids stay theirs): the same for every call of a function on an account
_HEADERS: dict[tuple[Any, ...], tuple[Any, ...]] = {}
_MAX_HEADERS = 4_096


def compact(root: TraceFrame, frames: int, omitted: int) -> Compact:
    """The recorded tree from ``root`` as plain tuples (see :data:`Compact`)."""
    return (TRACE_VERSION, frames, omitted, _frame_c(root))


def _decl(decl: list[Any]) -> tuple[tuple[str | None, str | None], ...]:
    return tuple((d[0] or None, d[1].name if d[1] is not None else None) for d in decl)


def _shown_all(raw: list[Any], decl: list[Any]) -> tuple[Any, ...]:
    nd = len(decl)
    out = []
    for i, v in enumerate(raw):
        t = decl[i][1] if i < nd else None
        cls, tt = type(v), type(t)
        if cls is int and tt is IntType:  # (the commonest cases, without a call)
            out.append(str(v))
        elif cls is Address and tt is AddressType:
            out.append(format(v.value, "040x"))
        elif cls is bool and tt is BoolType:
            out.append("true" if v else "false")
        else:
            out.append(_shown(v, t))
    return tuple(out)


def _header(node: TraceFrame) -> tuple[Any, ...]:
    acct = node.acct
    cdef = acct.cdef
    fn = node.fn
    key = (id(fn), id(acct), id(cdef), id(node.params), node.kind)
    hit = _HEADERS.get(key)
    if hit is not None and hit[0] is fn and hit[1] is acct and hit[2] is cdef:
        header: tuple[Any, ...] = hit[4]
        return header
    code = fn.cname if fn is not None and fn.cname else None
    if code is not None and cdef is not None and code == cdef.name:
        code = None  # (codeContract: a library's or an inherited function)
    header = (
        node.kind,
        cdef.name if cdef is not None else "",
        acct.hex,
        acct.chain or None,
        "constructor"
        if fn is None or fn.is_ctor or node.kind == "create"
        else fn.name or "fallback",
        code,
        _decl(node.params),
        _decl(fn.returns if fn is not None else []),
    )
    if len(_HEADERS) >= _MAX_HEADERS:
        _HEADERS.clear()
    _HEADERS[key] = (fn, acct, cdef, node.params, header)
    return header


def _event_header(eacct: Any, ev: Any) -> tuple[Any, ...]:
    cdef = eacct.cdef
    key = (id(ev), id(eacct), id(cdef))
    hit = _HEADERS.get(key)
    if hit is not None and hit[0] is ev and hit[1] is eacct and hit[2] is cdef:
        header: tuple[Any, ...] = hit[3]
        return header
    header = (
        cdef.name if cdef is not None else "",
        eacct.hex,
        ev.name,
        tuple((n or None, t.name if t is not None else None) for n, t, _ in ev.params),
    )
    if len(_HEADERS) >= _MAX_HEADERS:
        _HEADERS.clear()
    _HEADERS[key] = (ev, eacct, cdef, header)
    return header


def write_item(
    var: str, keys: tuple[str, ...], vt: Type | None, op: str, old: Any, new: Any
) -> tuple[Any, ...]:
    """A storage write as its compact item, ("w", variable, keys, op, old, new), its values
    (raw, or shown containers) shown now: the recorder makes the items of a frame when the
    frame ends, and later transactions cannot change them."""
    if op == "":
        if type(vt) is IntType and type(old) is int and type(new) is int:
            return ("w", var, keys, op, str(old), str(new))  # (a balance)
        old = _shown(default_value(vt) if old is MISSING and vt is not None else old, vt)
        new = _shown(default_value(vt) if new is MISSING and vt is not None else new, vt)
    elif op == "pop":
        old = _shown(default_value(vt) if old is MISSING and vt is not None else old, vt)
        new = None
    elif op == "push":
        old = None
        new = _shown(default_value(vt) if new is MISSING and vt is not None else new, vt)
    else:
        old = new = None
    return ("w", var, keys, op, old, new)


def event_item(eacct: Any, ev: Any, vals: list[Any]) -> tuple[Any, ...]:
    """An emitted event as its compact item, ("e", header, arguments shown)."""
    return ("e", _event_header(eacct, ev), _shown_all(vals, ev.params))


def _frame_c(node: TraceFrame) -> Compact:
    # the items are compact already (write_item, event_item), the frames among them not yet
    its = node.items
    if node.children:
        items = tuple([it if type(it) is tuple else _frame_c(it) for it in its])
    else:  # (a frame that called no other: most)
        items = tuple(its)
    sender = node.sender
    fn = node.fn
    return (
        "c",
        _header(node),
        sender.hex if isinstance(sender, Address) else str(sender),
        str(node.value),
        _shown_all(node.args, node.params),
        node.status,
        node.steps,
        _shown_all(node.result, fn.returns if fn is not None else [])
        if node.result is not None
        else None,
        node.error,
        items,
    )


# ------------------------------------------------------------------ JSON, when read


def tree_of(c: Compact) -> dict[str, Any]:
    """The JSON tree of a compact trace, failures propagated: a frame that succeeded inside
    one that failed is marked ``reverted``, and so are the events and writes of both."""
    version, frames, omitted, root = c
    out: dict[str, Any] = {
        "version": version,
        "frames": frames,
        "truncated": omitted > 0,
        "root": _frame_t(root, False),
    }
    if omitted:
        out["omitted"] = omitted
    return out


def _values_t(vals: tuple[Any, ...], decl: tuple[Any, ...]) -> list[dict[str, Any]]:
    out = []
    nd = len(decl)
    for i, shown in enumerate(vals):
        name, tname = decl[i] if i < nd else (None, None)
        v: dict[str, Any] = {"value": shown}
        if name:
            v["name"] = name
        if tname is not None:
            v["type"] = tname
        out.append(v)
    return out


def _frame_t(f: Compact, undone: bool) -> dict[str, Any]:
    _, header, sender, value, args, status, steps, returns, error, items = f
    kind, contract, address, chain, function, code, pdecl, rdecl = header
    failed = status == "failed"
    out: dict[str, Any] = {
        "type": "call",
        "kind": kind,
        "contract": contract,
        "address": address,
        "chainId": chain,
        "function": function,
        "sender": sender,
        "value": value,
        "args": _values_t(args, pdecl),
        "status": status if not undone or failed else "reverted",
        "steps": steps,
    }
    if code is not None:
        out["codeContract"] = code
    if returns is not None:
        out["returns"] = _values_t(returns, rdecl)
    if error is not None:
        out["error"] = error
    gone = undone or failed
    shown: list[dict[str, Any]] = []
    for it in items:
        tag = it[0]
        if tag == "c":
            shown.append(_frame_t(it, gone))
            continue
        if tag == "t":
            shown.append({"type": "truncated", "reason": "items", "omitted": it[1]})
            continue
        if tag == "e":
            ename, eaddr, name, edecl = it[1]
            item: dict[str, Any] = {
                "type": "event",
                "contract": ename,
                "address": eaddr,
                "name": name,
                "args": _values_t(it[2], edecl),
            }
        else:
            _, var, keys, op, old, new = it
            item = {"type": "write", "variable": var}
            if keys:
                item["key"] = list(keys)
            if op:
                item["op"] = op
            if op in ("", "pop"):
                item["old"] = old
            if op in ("", "push"):
                item["new"] = new
        if gone:
            item["reverted"] = True
        shown.append(item)
    out["items"] = shown
    return out
