"""STRATO 16's ``event`` and ``event_array`` rows of a block's events, from what execution
kept (the argument pairs, :class:`app.node.store.ArgsText`) or the ``events`` table's text (a
rebuild), and the argument types taken while the block was sealed: pure Python, built when a
drain writes them (behind16.py)."""

from __future__ import annotations

import json
from typing import Any

from ..solidvm.types import BoolType, EnumType, Type
from ..store import event_args
from .encoding import encode_json, json_string
from .strato16 import physical

INSERT_EVENT = (
    f"INSERT INTO {physical('event')} (address, block_hash, block_timestamp, block_number, "
    "transaction_sender, event_index, event_name, attributes, _chain) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_EVENT_ARRAY = (
    f"INSERT INTO {physical('event_array')} (address, block_hash, block_timestamp, "
    "block_number, transaction_sender, event_name, event_index, collection_name, "
    "collection_type, key, value, _chain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


# argument names -> in jsonb's order (kept from block to block: events repeat)
_ORDERS: dict[tuple[str, ...], list[tuple[str, str]]] = {}


def jsonb_key(k: str) -> tuple[int, bytes]:
    """An object member's place in jsonb's order (shorter names first, then by bytes)."""
    b = k.encode()
    return len(b), b


def attribute_text(text: str, t: Type | None) -> str:
    """An event argument as STRATO 16 renders it: booleans ``true``/``false`` and enums as
    their index (the seed's event tables keep ``True`` and ``Kind.Gold``)."""
    if isinstance(t, BoolType):
        return text.lower()
    if isinstance(t, EnumType):
        member = text.rpartition(".")[2]
        return str(t.values.index(member)) if member in t.values else text
    return text


def event_rows(
    events: list[tuple[str, str, str, str, str, str]],
    senders: dict[str, str],
    block: tuple[int, str, str],
    numbers: list[int] | None,
    plans: dict[tuple[str, str, str], list[Type | None]],
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """``event`` and ``event_array`` rows of ``events`` (tx hash, chain, address, contract,
    name, arguments: :class:`app.node.store.ArgsText` or its JSON text); ``plans``: see
    :meth:`Indexer16._event_plans`; ``block``: (number, hash, Cirrus timestamp)."""
    number, block_hash, stamp = block
    places = range(1, len(events) + 1) if numbers is None else numbers
    num = str(number)
    rows = []
    arrays = []
    orders = _ORDERS
    if len(orders) > 4096:
        orders.clear()
    for i, (tx_hash, chain, address, _contract, name, args_json) in zip(
        places, events, strict=True
    ):
        special = plans.get((chain, address, name), [])
        attrs: dict[str, str] = {}
        first_array: list[Any] | None = None
        for j, (arg, text) in enumerate(event_args(args_json)):
            arg_name = arg or f"val_{j + 1}"
            t = special[j] if j < len(special) else None
            attrs[arg_name] = text if t is None else attribute_text(text, t)
            if first_array is None and text.startswith("["):
                try:
                    parsed = json.loads(text)
                except ValueError:
                    parsed = None
                if isinstance(parsed, list):
                    first_array = [arg_name, *parsed]
        names = tuple(attrs)
        order = orders.get(names)
        if order is None:  # (string_object's text, each member's name and colon made once)
            order = orders[names] = [
                (k, json_string(k) + ":") for k in sorted(names, key=jsonb_key)
            ]
        attributes = "5{" + ",".join([p + json_string(attrs[k]) for k, p in order]) + "}"
        sender = senders.get(tx_hash, "")
        rows.append((address, block_hash, stamp, num, sender, i, name, attributes, chain))
        if first_array is not None:
            head = (address, block_hash, stamp, num)
            arg_name, *items = first_array
            kind = "Event Array"
            arrays += [
                (*head, "", name, i, arg_name, kind, encode_json(str(n)), encode_json(x), chain)
                for n, x in enumerate(items)
            ]
    return rows, arrays
