"""Chain data for explorers: blocks, transactions and accounts (strato-api shapes)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ..errors import ApiError, bad_request
from ..jsonenc import compact_json_nested_in_pieces
from ..ledger import norm_address, norm_chain
from ..numbers import is_ascii_digits
from .base import (
    BLOCK_FILTERS,
    LIST_CAP,
    TX_FILTERS,
    ApiBase,
    JsonBody,
    int_param,
    iso,
)

# An answer of more transactions than this, or whose requests hold more characters, is built
# and encoded on a worker thread (a transaction's answer is about 1.4 KB and costs ~0.12 ms to
# build and encode: the last 5 blocks of 2,000 transfers each held the loop 1.2 s)
TXS_ON_LOOP_MAX = 50
TX_TEXT_ON_LOOP_MAX = 64 * 1024

# the sandbox's own transaction filters beyond the platform's (the Explorer's type and status)
TX_KINDS = {"CONTRACT": "Contract", "FUNCTION": "FunctionCall", "TRANSFER": "Transfer"}


class ExplorerRoutes(ApiBase):
    """Blocks, transactions and accounts in strato-api's shapes."""

    def _blocks_json(
        self, rows: list[Any], visible: Callable[[list[Any]], list[Any]], by_block: bool = False
    ) -> list[dict[str, Any]]:
        """Blocks with the transactions ``visible`` keeps, read in one query (a page of 100
        blocks was 100 queries on the loop, and as many look-ups of the caller's chains), or
        ``by_block`` one query a block: a worker thread then holds the store's lock, which the
        loop may be waiting for, for one block's rows at a time."""
        txs: dict[int, list[Any]] = {r["number"]: [] for r in rows}
        groups = [[n] for n in txs] if by_block else [list(txs)] if txs else []
        for numbers in groups:
            marks = ",".join("?" * len(numbers))
            found = self.ledger.store.all(
                f"SELECT * FROM txs WHERE block_number IN ({marks}) "
                "ORDER BY block_number, tx_index",
                *numbers,
            )
            for t in visible(found):
                txs[t["block_number"]].append(t)
        return [self._block_json(r, txs[r["number"]]) for r in rows]

    async def _blocks_answer(self, request: Request, rows: list[Any]) -> Response:
        """The blocks of ``rows``: small ones on the loop; blocks holding many transactions
        read, built and encoded on a worker thread (the caller's chains looked up here)."""
        if sum(r["tx_count"] for r in rows) <= TXS_ON_LOOP_MAX:
            return JsonBody(self._blocks_json(rows, lambda f: self._visible_rows(request, f)))
        visible = self.ledger.visible_chains(request.state.user)

        def keep(found: list[Any]) -> list[Any]:
            return [t for t in found if not t["chain"] or t["chain"] in visible]

        def build() -> bytes:
            return compact_json_nested_in_pieces(self._blocks_json(rows, keep, by_block=True))

        return _json_bytes(await asyncio.to_thread(build))

    async def _txs_answer(self, rows: list[Any]) -> Response:
        """Transactions (rows with ``block_ts``): many, or large ones (a contract's source is
        in its request), built and encoded on a worker thread."""
        if len(rows) <= TXS_ON_LOOP_MAX and (
            sum(len(r["request"]) for r in rows) <= TX_TEXT_ON_LOOP_MAX
        ):
            return JsonBody([self._tx_json(r, r["block_ts"]) for r in rows])

        def build() -> bytes:
            return compact_json_nested_in_pieces([self._tx_json(r, r["block_ts"]) for r in rows])

        return _json_bytes(await asyncio.to_thread(build))

    def _block_json(self, row: Any, txs: list[Any]) -> dict[str, Any]:
        return {
            "next": "",
            "kind": "Block",
            "blockHash": row["hash"],
            "blockData": {
                "kind": "BlockData",
                "parentHash": row["parent_hash"],
                "unclesHash": "0" * 64,
                "coinbase": self.ledger.root_address,
                "stateRoot": "",
                "transactionsRoot": "",
                "receiptsRoot": "",
                "difficulty": 0,
                "number": row["number"],
                "gasLimit": 0,
                "gasUsed": row["gas_used"],
                "timestamp": iso(row["timestamp"]),
                "extraData": "",
                "nonce": 0,
                "mixHash": "",
            },
            "receiptTransactions": [self._tx_json(t, row["timestamp"]) for t in txs],
            "blockUncles": [],
        }

    def _tx_json(self, row: Any, block_ts: int | None = None) -> dict[str, Any]:
        req = json.loads(row["request"])
        p = req["payload"]
        sig = req.get("signature") or {}
        kind = TX_KINDS
        out: dict[str, Any] = {
            "next": "",
            "kind": "Transaction",
            "from": row["sender"],
            "nonce": row["nonce"] if row["nonce"] is not None else 0,
            "gasPrice": req["gasPrice"],
            "gasLimit": req["gasLimit"],
            "value": str(p.get("value", 0)),
            "codeOrData": p.get("src", "") if row["type"] == "CONTRACT" else "",
            "r": sig.get("r", ""),
            "s": sig.get("s", ""),
            "v": sig.get("v", ""),
            "blockNumber": row["block_number"] if row["block_number"] is not None else -1,
            "hash": row["hash"],
            "transactionType": kind.get(row["type"], row["type"]),
            "timestamp": iso(block_ts if block_ts is not None else row["submitted_at"]),
            "origin": "API",
            "status": row["status"],
        }
        if row["to_address"]:
            out["to"] = row["to_address"]
        if row["chain"]:
            out["chainId"] = row["chain"]
        if row["type"] == "CONTRACT":
            out["metadata"] = {"name": p.get("contract", ""), **(p.get("metadata") or {})}
        elif row["type"] == "FUNCTION":
            out["metadata"] = {"funcName": p.get("method", ""), "args": json.dumps(p.get("args"))}
        return out

    async def blocks(self, request: Request) -> Response:
        q = request.query_params
        where: list[str] = []
        args: list[Any] = []
        for name, sql in (
            ("number", "number = ?"),
            ("minnumber", "number >= ?"),
            ("maxnumber", "number <= ?"),
            ("index", "number >= ?"),
        ):
            v = int_param(request, name)
            if v is not None:
                where.append(sql)
                args.append(v)
        for name in ("hash", "blockid"):
            if q.get(name):
                where.append("hash = ?")
                args.append(q[name].lower().removeprefix("0x"))
        if not where:
            raise ApiError(400, f"Need one of: {BLOCK_FILTERS}")
        order = "DESC" if _sort_desc(request) else ""
        rows = self.ledger.store.all(
            f"SELECT * FROM blocks WHERE {' AND '.join(where)} "
            f"ORDER BY number {order} LIMIT {LIST_CAP}",
            *args,
        )
        return await self._blocks_answer(request, rows)

    async def last_blocks(self, request: Request) -> Response:
        n = _path_int(request, "n")
        rows = self.ledger.store.all(
            "SELECT * FROM blocks ORDER BY number DESC LIMIT ?", min(n, LIST_CAP)
        )
        return await self._blocks_answer(request, rows)

    async def transactions(self, request: Request) -> Response:
        q = request.query_params
        where: list[str] = []
        args: list[Any] = []
        if q.get("hash"):
            where.append("t.hash = ?")
            args.append(q["hash"].lower().removeprefix("0x"))
        if q.get("address"):
            a = norm_address(q["address"], "address")
            where.append("(t.sender = ? OR t.to_address = ?)")
            args += [a, a]
        if q.get("from"):
            where.append("t.sender = ?")
            args.append(norm_address(q["from"], "from"))
        if q.get("to"):
            where.append("t.to_address = ?")
            args.append(norm_address(q["to"], "to"))
        for name, sql in (
            ("blocknumber", "t.block_number = ?"),
            ("minblocknumber", "t.block_number >= ?"),
            ("maxblocknumber", "t.block_number <= ?"),
        ):
            bn = int_param(request, name)
            if bn is not None:
                where.append(sql)
                args.append(bn)
        chain = q.get("chainid")
        if chain and chain != "all":
            cid = norm_chain(chain)
            if cid:
                self.ledger.require_member(request.state.user, cid)
            where.append("t.chain = ?")
            args.append(cid)
        if not where:
            raise ApiError(400, f"Need one of: {TX_FILTERS}")
        kinds = {v.lower(): k for k, v in TX_KINDS.items()} | {k.lower(): k for k in TX_KINDS}
        if q.get("type"):  # the sandbox's own: the platform has no type filter
            if q["type"].lower() not in kinds:
                raise bad_request(f"type must be one of: {', '.join(TX_KINDS.values())}")
            where.append("t.type = ?")
            args.append(kinds[q["type"].lower()])
        if q.get("status"):  # the sandbox's own too
            where.append("t.status = ?")
            args.append(q["status"].capitalize())
        # private chains the caller is no member of: filtered in SQL, so that a page of
        # ``limit`` rows at ``offset`` is a page of what the caller sees (offset paging holds)
        visible = sorted(self.ledger.visible_chains(request.state.user))
        where.append(f"(t.chain = '' OR t.chain IN ({','.join('?' * len(visible))}))")
        args += visible
        limit = min(int_param(request, "limit", LIST_CAP) or LIST_CAP, LIST_CAP)
        offset = int_param(request, "offset", 0) or 0
        # newest first (?sortby=desc, the platform's). Without an indexed column filter, by
        # block then seq: the order of the block index, so a page is read off the index with
        # no sort of everything in the range (seq alone would sort 200,000 rows per page)
        by_block = not any(q.get(k) for k in ("hash", "address", "from", "to"))
        if _sort_desc(request):
            order = "t.block_number DESC, t.seq DESC" if by_block else "t.seq DESC"
        else:
            order = "t.seq"
        rows = self.ledger.store.all(
            f"SELECT t.*, b.timestamp AS block_ts FROM txs t LEFT JOIN blocks b "
            f"ON b.number = t.block_number WHERE {' AND '.join(where)} "
            f"ORDER BY {order} LIMIT ? OFFSET ?",
            *args,
            limit,
            offset,
        )
        return await self._txs_answer(rows)

    def _visible_rows(self, request: Request, rows: list[Any]) -> list[Any]:
        """Drop transactions of private chains the caller is not a member of."""
        if not any(r["chain"] for r in rows):
            return rows
        visible = self.ledger.visible_chains(request.state.user)
        return [r for r in rows if not r["chain"] or r["chain"] in visible]

    async def last_transactions(self, request: Request) -> Response:
        n = _path_int(request, "n")
        rows = self.ledger.store.all(
            "SELECT t.*, b.timestamp AS block_ts FROM txs t LEFT JOIN blocks b "
            "ON b.number = t.block_number ORDER BY t.seq DESC LIMIT ?",
            min(n, LIST_CAP),
        )
        return await self._txs_answer(self._visible_rows(request, rows))


def _json_bytes(body: bytes) -> Response:
    """An answer encoded already (the same bytes and content type as a JsonBody)."""
    return Response(body, media_type=JsonBody.media_type)


def _sort_desc(request: Request) -> bool:
    """The platform's ``sortby`` (asc, the default, or desc)."""
    v = request.query_params.get("sortby", "asc").lower()
    if v not in ("asc", "desc", ""):
        raise bad_request(f'Could not parse sortby parameter: "{v}" (asc or desc)')
    return v == "desc"


def _path_int(request: Request, name: str) -> int:
    """A count in the path; anything above the list cap means the cap."""
    v = request.path_params[name]
    if not is_ascii_digits(v):
        raise bad_request(f"{name} must be a non-negative integer")
    return LIST_CAP if len(v) > 6 else int(v)
