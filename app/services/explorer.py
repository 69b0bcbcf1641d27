"""The Explorer's reads: pages of blocks by number range, pages of transactions newest first
under an anchor block, the blocks and transactions that arrived since, and one block in full.

Transactions are paged by offset *under an anchor* (``maxblocknumber``): the rows below it never
move, however many blocks arrive while the user scrolls; what arrives later is read by block
range (``minblocknumber``) and put on top. Both routes are the platform's (``sortby=desc``,
``minblocknumber``/``maxblocknumber``, ``limit``/``offset``); the type and status filters are the
sandbox node's own, offered only there (:attr:`ExplorerService.own_filters`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.client.http import StratoClient
from app.client.models import Block, Transaction, as_int, hex_int
from app.services.session import Session

PAGE = 100  # rows per request: the platform's fetch limit, the sandbox's too
SANDBOX_NAME = "stratoscope-sandbox"
# the platform's transaction kinds as its routes spell them, and the words shown for them
KINDS = {"Contract": "Contract", "FunctionCall": "Call", "Transfer": "Transfer"}


@dataclass(frozen=True)
class BlockRow:
    number: int
    hash: str
    timestamp: str
    tx_count: int
    size: int  # bytes of the block as the node serves it (JSON)
    tx_hashes: tuple[str, ...]
    gas_used: int = 0  # the block's gas used, as the node says (0 on a gas-free node)


@dataclass(frozen=True)
class TxRow:
    hash: str
    kind: str  # as the node spells it: Contract, FunctionCall, Transfer, ...
    status: str
    sender: str
    to: str
    value: int
    chain: str
    block_number: int
    timestamp: str
    label: str  # the contract created or the function called


@dataclass(frozen=True)
class TxFilter:
    """What the transactions view shows; empty fields filter nothing."""

    kind: str = ""  # Contract, FunctionCall, Transfer (the sandbox's own filter)
    status: str = ""  # Success, Failure (the sandbox's own filter)
    sender: str = ""
    contract: str = ""  # the recipient: a contract called (or an account paid)
    address: str = ""  # sender or recipient
    chain: str = ""
    min_block: int | None = None
    max_block: int | None = None

    def params(self, anchor: int) -> dict[str, Any]:
        """The query under ``anchor`` (the newest block this view holds)."""
        top = anchor if self.max_block is None else min(anchor, self.max_block)
        p: dict[str, Any] = {
            "minblocknumber": self.min_block or 0,
            "maxblocknumber": max(top, 0),
            "sortby": "desc",
        }
        for key, value in (
            ("type", self.kind),
            ("status", self.status),
            ("from", self.sender),
            ("to", self.contract),
            ("address", self.address),
            ("chainid", self.chain),
        ):
            if value:
                p[key] = value
        return p

    @property
    def empty(self) -> bool:
        return self == TxFilter()


def _gas(v: Any) -> int:
    """A block's gasUsed: a number (the platform, the sandbox), or 64 hex digits."""
    if isinstance(v, str) and (len(v) == 64 or v.lower().startswith("0x")):
        return hex_int(v.removeprefix("0x").removeprefix("0X"))
    return as_int(v)


def block_row(raw: dict[str, Any]) -> BlockRow:
    b = Block.from_json(raw)
    size = len(json.dumps(raw, separators=(",", ":")))
    data = raw.get("blockData")
    gas = _gas(data.get("gasUsed")) if isinstance(data, dict) else 0
    return BlockRow(
        b.number, b.hash, b.timestamp, len(b.transactions), size,
        tuple(t.hash for t in b.transactions), gas,
    )  # fmt: skip


def tx_row(t: Transaction) -> TxRow:
    md = t.metadata
    label = str(md.get("funcName") or md.get("name") or "")
    return TxRow(
        t.hash, t.kind, t.status or "", t.sender, t.to or "", t.value, t.chain_id or "",
        t.block_number, t.timestamp, label,
    )  # fmt: skip


class ExplorerService(QObject):
    """Reads for the Explorer panel. Signals: head_changed(int): a newer block is known (sent
    only while the panel watches: :meth:`watch`)."""

    head_changed = Signal(int)

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.watching = False
        self.requests = 0  # reads made (the tests and the benchmark count them)
        session.block_changed.connect(self._on_block)

    def watch(self, on: bool) -> None:
        """The panel is shown (True) or hidden: only while shown are new blocks announced."""
        self.watching = on

    def _on_block(self, number: int) -> None:
        if self.watching:
            self.head_changed.emit(number)

    @property
    def own_filters(self) -> bool:
        """Whether the node is the sandbox, whose transaction route filters by type and
        status too (the platform's has no such filter)."""
        health = self.session.health
        return health is not None and health.raw.get("name") == SANDBOX_NAME

    def _client(self) -> StratoClient:
        client = self.session.client
        if client is None:
            raise RuntimeError("not connected to a node")
        return client

    async def head(self, fresh: bool = False) -> int:
        """The newest block's number (-1 before the first block); ``fresh``: asked of the
        node, not the session's last poll (a detail listing what is on chain now)."""
        if self.session.last_block is not None and not fresh:
            return self.session.last_block
        self.requests += 1
        latest = await self._client().last_blocks(1)
        return latest[0].number if latest else -1

    async def blocks(self, first: int, last: int) -> list[BlockRow]:
        """Blocks ``first``..``last`` (at most :data:`PAGE`), newest first."""
        if last < first:
            return []
        self.requests += 1
        data = await self._client().raw_blocks(first, last)
        rows = [block_row(b) for b in data]
        return sorted(rows, key=lambda r: -r.number)

    async def block(self, number: int) -> Block | None:
        self.requests += 1
        return await self._client().block(number)

    async def transactions(self, f: TxFilter, anchor: int, offset: int) -> list[TxRow]:
        """One page of the view's transactions at or below ``anchor``, newest first."""
        if anchor < 0 or (f.min_block or 0) > anchor:
            return []
        self.requests += 1
        params = {**f.params(anchor), "limit": PAGE, "offset": offset}
        return [tx_row(t) for t in await self._client().transactions(**params)]

    async def transactions_after(self, f: TxFilter, after: int, head: int) -> list[TxRow] | None:
        """The view's transactions of blocks ``after+1``..``head`` (newest first), or None
        when there are more than a few pages of them (the view then reads afresh)."""
        if f.max_block is not None and f.max_block <= after:
            return []
        low = max(after + 1, f.min_block or 0)
        rows: list[TxRow] = []
        for page in range(5):
            self.requests += 1
            params = {**f.params(head), "minblocknumber": low, "limit": PAGE}
            params["offset"] = page * PAGE
            got = [tx_row(t) for t in await self._client().transactions(**params)]
            rows += got
            if len(got) < PAGE:
                return rows
        return None
