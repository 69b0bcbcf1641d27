"""HTML pieces shared by the composer's result area and the transaction inspector."""

from __future__ import annotations

from html import escape
from typing import Any

from app.client.abi_types import FunctionSpec

STATUS_COLOURS = {"Success": "#2e7d32", "Failure": "#c0392b", "Pending": "#b7791f"}


def status_colour(status: str) -> str:
    return STATUS_COLOURS.get(status, "#555")


def returned_items(values: list[Any], fn: FunctionSpec | None) -> list[str]:
    """``name (type) = <code>value</code>`` per returned value, named from the declaration."""
    out = []
    for i, v in enumerate(values):
        ret = fn.returns[i] if fn is not None and i < len(fn.returns) else None
        label = f"{ret.name} ({ret.type.describe()})" if ret else f"#{i}"
        out.append(f"{escape(label)} = <code>{escape(str(v))}</code>")
    return out
