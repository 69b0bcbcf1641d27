"""The platform debugger's JSON (aeson-generic shapes) for a debug session.

``DebuggerStatus`` is ``{"tag":"Running"}``, ``{"tag":"Stepping","contents":n}`` or
``{"tag":"Paused","contents":{debugStateBreakpoint, debugStateCallStack, debugStateVariables,
debugStateWatches}}``; breakpoints are ``{"tag":"UnconditionalBP","contents":SourcePosition}``,
``ConditionalBP`` with ``[position, expression]``, ``HitcountBP``, ``DataBP``, ``FunctionBP``.
The set of breakpoints is the platform's (union on PUT, removal on DELETE, an empty DELETE clears
all); line breakpoints are handed to the engine by file. Data and function breakpoints are kept
in the set and never stop, as on the platform.
"""

from __future__ import annotations

import json
from typing import Any

from .engine import DebugSession
from .inspection import platform_eval, platform_variables
from .launch import apply_breakpoints

RUNNING = {"tag": "Running"}
_POS_KEYS = ("name", "line", "column")
TAGS = ("UnconditionalBP", "ConditionalBP", "DataBP", "FunctionBP", "HitcountBP")


class ShapeError(ValueError):
    """A body that is not the platform's shape; the message names the element."""


def _position(v: Any, where: str) -> dict[str, Any]:
    if not isinstance(v, dict) or any(k not in v for k in _POS_KEYS):
        raise ShapeError(f"{where}: a SourcePosition needs name, line and column")
    name, line, col = v["name"], v["line"], v["column"]
    if not isinstance(name, str):
        raise ShapeError(f"{where}.name: must be a string")
    for k, x in (("line", line), ("column", col)):
        if not isinstance(x, int) or isinstance(x, bool):
            raise ShapeError(f"{where}.{k}: must be an integer")
    return {"name": name, "line": line, "column": col}


def parse_breakpoint(v: Any, where: str) -> dict[str, Any]:
    """One Breakpoint, normalised (so equal ones compare equal)."""
    if not isinstance(v, dict) or v.get("tag") not in TAGS:
        raise ShapeError(f"{where}.tag: must be one of {', '.join(TAGS)}")
    tag, c = v["tag"], v.get("contents")
    if tag in ("UnconditionalBP", "HitcountBP"):
        return {"tag": tag, "contents": _position(c, f"{where}.contents")}
    if tag == "ConditionalBP":
        if not isinstance(c, list) or len(c) != 2 or not isinstance(c[1], str):
            raise ShapeError(f"{where}.contents: must be [SourcePosition, expression]")
        return {"tag": tag, "contents": [_position(c[0], f"{where}.contents[0]"), c[1]]}
    if not isinstance(c, str):
        raise ShapeError(f"{where}.contents: must be a string")
    return {"tag": tag, "contents": c}


def parse_breakpoints(body: Any) -> list[dict[str, Any]]:
    if not isinstance(body, list):
        raise ShapeError("body: must be a JSON array of Breakpoint")
    return [parse_breakpoint(b, f"body[{i}]") for i, b in enumerate(body)]


def parse_strings(body: Any) -> list[str]:
    if not isinstance(body, list) or not all(isinstance(x, str) for x in body):
        raise ShapeError("body: must be a JSON array of strings")
    return list(body)


def _key(bp: dict[str, Any]) -> str:
    return json.dumps(bp, sort_keys=True)


class PlatformState:
    """The platform-facing set of breakpoints and watches of one session."""

    def __init__(self, session: DebugSession) -> None:
        self.session = session
        self.bps: dict[str, dict[str, Any]] = {}
        self.watches: list[str] = []

    def breakpoints(self) -> list[dict[str, Any]]:
        order = {t: i for i, t in enumerate(TAGS)}
        return sorted(self.bps.values(), key=lambda b: (order[b["tag"]], _key(b)))

    def add(self, bps: list[dict[str, Any]]) -> None:
        for bp in bps:
            self.bps[_key(bp)] = bp
        self._apply()

    def remove(self, bps: list[dict[str, Any]]) -> None:
        if not bps:
            self.bps.clear()
        for bp in bps:
            self.bps.pop(_key(bp), None)
        self._apply()

    def remove_file(self, name: str) -> None:
        for k, bp in list(self.bps.items()):
            c = bp["contents"]
            pos = c[0] if bp["tag"] == "ConditionalBP" else c
            if bp["tag"] in ("UnconditionalBP", "ConditionalBP") and pos["name"] == name:
                del self.bps[k]
        self._apply()

    def _apply(self) -> None:
        lines: list[tuple[str, int, str | None]] = []
        for bp in self.bps.values():
            tag, c = bp["tag"], bp["contents"]
            if tag in ("UnconditionalBP", "HitcountBP"):
                lines.append((c["name"], c["line"], None))
            elif tag == "ConditionalBP":
                lines.append((c[0]["name"], c[0]["line"], c[1]))
        apply_breakpoints(self.session, lines)

    def add_watches(self, exprs: list[str]) -> None:
        for e in exprs:
            if e not in self.watches:
                self.watches.append(e)

    def remove_watches(self, exprs: list[str]) -> None:
        self.watches = [] if not exprs else [w for w in self.watches if w not in exprs]

    # -------------------------------------------------------- on the session's thread

    def paused_status(self) -> dict[str, Any]:
        s = self.session
        stack = [s.position(df) for df in reversed(s.stack)]
        return {
            "tag": "Paused",
            "contents": {
                "debugStateBreakpoint": stack[0] if stack else {"name": "", "line": 0, "column": 0},
                "debugStateCallStack": stack,
                "debugStateVariables": platform_variables(s),
                "debugStateWatches": {w: platform_eval(s, w) for w in self.watches},
            },
        }


def status_of(p: PlatformState) -> dict[str, Any]:
    """DebuggerStatus now (run on any thread; a pause's snapshot is made on the run's)."""
    s = p.session
    if s.state == "paused":
        try:
            return s.on_thread(p.paused_status)
        except Exception:
            return RUNNING
    step = s.stepping
    if step is not None:
        return {"tag": "Stepping", "contents": step}
    return RUNNING
