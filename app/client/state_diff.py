"""What a transaction changed in contract state, from what a node gives (pure, no I/O).

Two sources: the ``stateDiff`` of a transaction result, which the sandbox fills with old -> new
values as JSON (STRATO leaves it empty), and Cirrus collection tables (``<table>-<variable>``),
which hold each mapping or array entry's latest value with the transaction that last changed it,
so they give the new value of the entries a transaction changed last, never the old one.
"""

from __future__ import annotations

import json
import re
from typing import Any

Change = tuple[str, Any, Any]  # (variable or entry label, before, after)

KEY_COLUMN = re.compile(r"key[0-9]*")  # key, key2, key3 ... (one per level)


class _NotKept:
    """The value before the transaction, where no source keeps it."""

    def __repr__(self) -> str:
        return "NOT_KEPT"


NOT_KEPT: Any = _NotKept()


def key_text(key: Any) -> str:
    """A mapping key as written between brackets: numbers and hex as they are, text quoted."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    s = str(key)
    if s and all(c in "0123456789abcdef" for c in s.lower()) and len(s) in (40, 64):
        return s
    return json.dumps(s)


def entry_label(variable: str, keys: list[Any]) -> str:
    return variable + "".join(f"[{key_text(k)}]" for k in keys)


def node_state_diff(tx_result: Any, address: str) -> tuple[list[Change], str] | None:
    """The changes in a transaction result's ``stateDiff`` and what it compared; None when the
    node gives none there (STRATO's empty text, or anything not in the sandbox's shape).
    Entries of contracts other than ``address`` carry that contract's address."""
    text = tx_result.get("stateDiff") if isinstance(tx_result, dict) else None
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("changes"), list):
        return None
    out: list[Change] = []
    for c in data["changes"]:
        if not isinstance(c, dict) or not isinstance(c.get("variable"), str):
            continue
        label = entry_label(c["variable"], [c["key"]] if "key" in c else [])
        owner = str(c.get("address") or "")
        if owner and owner.lower() != address.lower().removeprefix("0x"):
            label = f"{owner}.{label}"
        out.append((label, c.get("before"), c.get("after")))
    covers = str(data.get("covers") or "state variables")
    skips = str(data.get("skips") or "")
    scope = f"Compared, from the node's transaction result: {covers}."
    if skips:
        scope += f" Not compared: {skips}."
    omitted = data.get("omitted")
    if isinstance(omitted, int) and omitted > 0:
        scope += f" {omitted:,} further changes are not listed (the node lists {len(out):,})."
    return out, scope


def collection_vars(xabi: Any) -> list[str]:
    """The mapping and array state variables of a contract's xabi (non-constant)."""
    vs = xabi.get("vars") if isinstance(xabi, dict) else None
    if not isinstance(vs, dict):
        return []
    return [
        name
        for name, v in vs.items()
        if isinstance(v, dict) and v.get("tag") in ("Mapping", "Array") and not v.get("constant")
    ]


def collection_changes(variable: str, rows: list[dict[str, Any]]) -> list[Change]:
    """Entries of collection-table rows (already those of one transaction): the keys in
    ``key``, ``key2`` ... order, the old value unknown."""
    out: list[Change] = []
    for r in rows:
        names = sorted((k for k in r if KEY_COLUMN.fullmatch(k)), key=lambda k: int(k[3:] or 1))
        out.append((entry_label(variable, [r[k] for k in names]), NOT_KEPT, r.get("value")))
    out.sort(key=lambda c: c[0])
    return out
