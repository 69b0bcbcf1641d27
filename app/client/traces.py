"""Call traces of transactions (a sandbox extension): the answer's shape and its text form.

The sandbox serves ``GET {eth}/transaction/trace?hash=`` (see ``app/node/solidvm/trace.py`` for
the tree). A real STRATO node has no such route and answers 404: :func:`trace_error` tells that
apart from the sandbox's own 404s (unknown transaction, no trace kept), so the app can say "the
node keeps no traces". :func:`render_trace` prints a tree the way Foundry prints its traces: one
line per frame, indented by depth, events and storage writes under their frame.
"""

from __future__ import annotations

from typing import Any

from .errors import RequestError

NO_ROUTE = "no-route"  # the node has no trace route (a STRATO node, an older sandbox)
UNKNOWN = "unknown"  # no such transaction (or a private chain's, for a non-member)
NOT_KEPT = "not-kept"  # the transaction is known but the node keeps no trace of it

NO_TRACES_TEXT = "the node keeps no traces (call traces are a Stratoscope sandbox extension)"


class TraceUnavailable(RequestError):
    """No trace to show; ``reason`` is one of :data:`NO_ROUTE`, :data:`UNKNOWN`,
    :data:`NOT_KEPT`."""

    def __init__(self, message: str, reason: str, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.reason = reason


def trace_error(exc: RequestError) -> TraceUnavailable | None:
    """The 404 of the trace route as a :class:`TraceUnavailable` (None for other errors)."""
    if exc.status != 404:
        return None
    text = exc.message
    kw = {"status": exc.status, "method": exc.method, "url": exc.url, "body": exc.body}
    if "unknown transaction" in text:
        return TraceUnavailable(text, UNKNOWN, **kw)
    if "keeps no call traces" in text:  # a sandbox started with --traces off
        return TraceUnavailable(text, NO_ROUTE, **kw)
    if "no trace" in text:
        return TraceUnavailable(text, NOT_KEPT, **kw)
    return TraceUnavailable(NO_TRACES_TEXT, NO_ROUTE, **kw)


# ------------------------------------------------------------------ text form

_RESET = "\x1b[0m"
_STYLES = {
    "contract": "\x1b[36m",  # cyan
    "function": "\x1b[1m",  # bold
    "fail": "\x1b[31m",  # red
    "ok": "\x1b[32m",  # green
    "event": "\x1b[34m",  # blue
    "write": "\x1b[33m",  # yellow
    "dim": "\x1b[2m",
}


def _paint(text: str, style: str, colour: bool) -> str:
    return f"{_STYLES[style]}{text}{_RESET}" if colour else text


def value_text(v: Any) -> str:
    """One shown value, compact: strings quoted, arrays and structs in JSON-like brackets."""
    if v is None:
        return "∅"
    if isinstance(v, str):
        return v if _plain(v) else '"' + v.replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(value_text(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {value_text(x)}" for k, x in v.items()) + "}"
    return str(v)


def _plain(s: str) -> bool:
    """Numbers, booleans and hex read without quotes."""
    if s in ("true", "false"):
        return True
    body = s[1:] if s[:1] == "-" else s
    return (bool(body) and all(c.isdigit() or c == "." for c in body)) or _hexish(s)


def _hexish(s: str) -> bool:
    return len(s) >= 40 and all(c in "0123456789abcdef:" for c in s)


def _values(vals: list[dict[str, Any]]) -> str:
    parts = []
    for a in vals:
        shown = value_text(a.get("value"))
        parts.append(f"{a['name']}: {shown}" if a.get("name") else shown)
    return ", ".join(parts)


def short_address(a: str) -> str:
    return a if len(a) <= 12 else f"{a[:6]}…{a[-4:]}"


def frame_head(f: dict[str, Any], colour: bool = False) -> str:
    """``[steps] Contract(addr)::function(args)`` with what kind of call it was."""
    name = _paint(f.get("contract", "?"), "contract", colour)
    fn = _paint(f.get("function", "?"), "function", colour)
    kind = f.get("kind", "call")
    tags = []
    if kind != "call":
        tags.append(kind if kind != "library" else f"library {f.get('codeContract', '')}".strip())
    if f.get("value") not in (None, "0"):
        tags.append(f"value {f['value']}")
    tag = _paint(f" [{', '.join(tags)}]", "dim", colour) if tags else ""
    where = short_address(str(f.get("address", "")))
    return f"[{f.get('steps', 0)}] {name}({where})::{fn}({_values(f.get('args', []))}){tag}"


def frame_end(f: dict[str, Any], colour: bool = False) -> str:
    """The last line of a frame: what it returned, or why it failed (and where)."""
    status = f.get("status")
    if status == "failed":
        err = f.get("error") or {}
        pos = err.get("position")
        at = ""
        if pos and pos.get("file"):
            at = f" at {pos['file']}:{pos.get('fileLine', pos['line'])}:{pos['column']}"
            at += f" ({pos['name']})"
        elif pos:
            at = f" at {pos['name']}:{pos['line']}:{pos['column']}"
        return _paint(f"← [Fail] {err.get('message', 'failed')}{at}", "fail", colour)
    shown = _values(f.get("returns") or [])
    label = "[Reverted]" if status == "reverted" else "[Return]"
    text = f"← {label} {shown}".rstrip()
    return _paint(text, "dim" if status == "reverted" else "ok", colour)


def item_text(it: dict[str, Any], colour: bool = False) -> str:
    """An event, a storage write or a truncation marker, on one line."""
    kind = it.get("type")
    undone = _paint(" (reverted)", "dim", colour) if it.get("reverted") else ""
    if kind == "event":
        return _paint(f"emit {it['name']}({_values(it.get('args', []))})", "event", colour) + undone
    if kind == "write":
        key = "".join(f"[{k}]" for k in it.get("key", []))
        op = it.get("op")
        if op == "push":
            body = f"{it['variable']}{key}.push({value_text(it.get('new'))})"
        elif op == "pop":
            body = f"{it['variable']}{key}.pop() (was {value_text(it.get('old'))})"
        elif op == "replace":
            body = f"{it['variable']}{key} replaced"
        else:
            body = (
                f"{it['variable']}{key}: {value_text(it.get('old'))} → {value_text(it.get('new'))}"
            )
        return _paint(f"write {body}", "write", colour) + undone
    if kind == "truncated":
        return _paint(
            f"… {it.get('omitted', '?')} more items not recorded (size cap)", "dim", colour
        )
    return str(it)


def render_trace(trace: dict[str, Any], colour: bool = False, indent: str = "") -> list[str]:
    """The tree as lines: each frame's head, then its calls, events and writes in order
    (``├─``/``└─`` branches), then its return or failure."""
    lines: list[str] = []
    root = trace.get("root")
    if not isinstance(root, dict):
        return lines

    def frame(f: dict[str, Any], lead: str, first: str) -> None:
        lines.append(first + frame_head(f, colour))
        items = [*f.get("items", []), None]  # None: the frame's end
        for n, it in enumerate(items):
            last = n == len(items) - 1
            branch = "└─ " if last else "├─ "
            more = "   " if last else "│  "
            if it is None:
                lines.append(lead + branch + frame_end(f, colour))
            elif it.get("type") == "call":
                frame(it, lead + more, lead + branch)
            else:
                lines.append(lead + branch + item_text(it, colour))

    frame(root, indent + "  ", indent)
    if trace.get("truncated"):
        lines.append(
            indent
            + _paint(
                f"(trace cut at the node's size cap: {trace.get('omitted', '?')} items left out)",
                "dim",
                colour,
            )
        )
    return lines


def failing_frame(trace: dict[str, Any]) -> dict[str, Any] | None:
    """The innermost frame whose failure made the transaction fail (None when it succeeded)."""
    f = trace.get("root")
    if not isinstance(f, dict) or f.get("status") != "failed":
        return None
    while True:
        inner = [
            i for i in f.get("items", []) if i.get("type") == "call" and i.get("status") == "failed"
        ]
        if not inner:
            return f
        f = inner[-1]
