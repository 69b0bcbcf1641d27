"""What an account holds in token-like contracts: its entries in the contracts' ``balances``-like
mappings, read from Cirrus (the collection tables of either family: the seed's
``<table>-<variable>`` and STRATO 16's ``<creator>-<Contract>-<variable>`` views, both with
``key`` and ``value`` columns and the holding contract's ``address``)."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

from app.client.cirrus_names import names_of
from app.client.errors import AuthError, StratoError

from .session import Session

# a mapping of holders to amounts, by its usual names (balances, _balances, balanceOf ...)
BALANCES = re.compile(r"^_?(balances?|balanceOf|holdings|tokens?Of|shares)$", re.IGNORECASE)
READERS = 4
MAX_TABLES = 200


@dataclass(frozen=True)
class Holding:
    contract: str  # the contract's name
    address: str  # the contract's address
    variable: str  # the mapping's name
    table: str  # the Cirrus table read
    balance: int


def _amount(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.strip().isdigit():
        return int(v)
    if isinstance(v, dict) and len(v) == 1:  # a wrapped value
        return _amount(next(iter(v.values())))
    return None


async def holdings(session: Session, address: str) -> list[Holding]:
    """The account's non-zero entries in every ``balances``-like mapping Cirrus indexes,
    largest first."""
    client = session.client
    if client is None:
        raise AuthError("not connected to a node")
    holder = address.lower().removeprefix("0x")
    names = await names_of(client).names(client)
    tables = [
        t
        for t in names.names.values()
        if t.kind in ("collection", "member") and BALANCES.match(t.member or "")
    ][:MAX_TABLES]
    sem = asyncio.Semaphore(READERS)

    async def read(t: Any) -> list[Holding]:
        async with sem:
            try:
                rows, _ = await client.cirrus(
                    t.table, [("key", f"eq.{holder}"), ("select", "address,value")]
                )
            except StratoError:
                return []
        out = []
        for r in rows:
            amount = _amount(r.get("value"))
            if amount:
                out.append(
                    Holding(t.contract, str(r.get("address") or ""), t.member, t.table, amount)
                )
        return out

    found = await asyncio.gather(*(read(t) for t in tables))
    rows = [h for part in found for h in part]
    # one holding per contract and mapping (a node serving both families lists it twice)
    unique = {(h.address, h.variable): h for h in rows}
    return sorted(unique.values(), key=lambda h: (-h.balance, h.contract))
