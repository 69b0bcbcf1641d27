"""HTML pieces shared by the composer's result area and the transaction inspector.

Returned values are shown by their declared type: the sandbox renders every scalar as a string,
real nodes send some as JSON numbers or bools, and both read the same here. Decimals show as
the platform writes them (``"12.000"`` keeps its places), a user-defined value type shows its
value with the alias beside it, and a variadic its values in brackets.
"""

from __future__ import annotations

import json
from decimal import Decimal
from html import escape
from typing import Any

from app.client.abi_types import AbiType, FunctionSpec, Param, decimal_text

STATUS_COLOURS = {"Success": "#2e7d32", "Failure": "#c0392b", "Pending": "#b7791f"}
MAX_DEPTH = 16


def status_colour(status: str) -> str:
    return STATUS_COLOURS.get(status, "#555")


def _code(text: str) -> str:
    return f"<code>{escape(text)}</code>"


def _scalar_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (float, Decimal)):
        try:
            return decimal_text(v)
        except ValueError:
            return str(v)
    return v if isinstance(v, str) else json.dumps(v)


def value_html(t: AbiType | None, v: Any, depth: int = 0) -> str:
    """One value as HTML, read by its declared type ``t`` (None: untyped)."""
    if depth > MAX_DEPTH:
        return _code(json.dumps(v, default=str))
    k = t.kind if t is not None else ""
    if t is not None and k == "udvt" and t.actual is not None:
        return f"{value_html(t.actual, v, depth + 1)} <i>{escape(t.describe())}</i>"
    if k == "decimal":
        try:
            return _code(decimal_text(v))
        except ValueError:
            return _code(_scalar_text(v))
    if k == "bool" and v in ("true", "false", "True", "False"):
        return _code(str(v).lower())
    if isinstance(v, list):
        entry = t.entry if t is not None and k == "array" else None
        return "[" + ", ".join(value_html(entry, x, depth + 1) for x in v) + "]"
    if isinstance(v, dict):
        fields = dict(t.fields) if t is not None and k == "struct" else {}
        value = t.value if t is not None and k == "mapping" else None
        return (
            "{"
            + ", ".join(
                f"{escape(str(name))}: {value_html(fields.get(name, value), x, depth + 1)}"
                for name, x in v.items()
            )
            + "}"
        )
    return _code(_scalar_text(v))


def _pair_returns(values: list[Any], returns: tuple[Param, ...]) -> list[tuple[Param | None, Any]]:
    """Each value with its declaration. A trailing variadic return takes what is left, as a
    node that spreads it over the result list (rather than nesting a list) would send it."""
    if returns and returns[-1].type.kind == "variadic":
        last = len(returns) - 1
        rest = values[last:]
        if len(values) == len(returns) and isinstance(values[-1], list):
            rest = values[-1]
        if len(values) >= last:
            return [*zip(returns[:last], values[:last], strict=True), (returns[-1], rest)]
    return [(returns[i] if i < len(returns) else None, v) for i, v in enumerate(values)]


def returned_items(values: list[Any], fn: FunctionSpec | None) -> list[str]:
    """``name (type) = value`` per returned value, named and read from the declaration."""
    out = []
    for i, (ret, v) in enumerate(_pair_returns(values, fn.returns if fn is not None else ())):
        label = f"{ret.name} ({ret.type.describe()})" if ret else f"#{i}"
        out.append(f"{escape(label)} = {value_html(ret.type if ret else None, v)}")
    return out
