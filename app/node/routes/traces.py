"""The call trace of one transaction: a sandbox extension (the platform keeps no traces)."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ..errors import ApiError, bad_request
from ..ledger import HEX
from .base import ApiBase, json_answer

NO_TRACES = "this node keeps no call traces (it was started with --traces off)"


class TraceRoutes(ApiBase):
    """``GET {eth}/transaction/trace?hash=``: the call tree the node recorded (see
    ``app/node/solidvm/trace.py`` for its shape). A private chain's transaction is shown to its
    members only; to anyone else it is unknown, as its result is. So is a trace whose code ran
    on a private chain although its transaction is listed on the main one: the chain's genesis
    (its governance contract's constructor, the writes that set its members)."""

    async def tx_trace(self, request: Request) -> Response:
        raw = request.query_params.get("hash")
        if not raw:
            raise bad_request("hash is required: the transaction's hash, 64 hex digits")
        h = raw.lower().removeprefix("0x")
        if len(h) != 64 or not set(h) <= HEX:
            raise bad_request("hash must be 64 hex digits")
        user = request.state.user
        ledger = self.ledger

        def visible(chain: str) -> bool:
            return not chain or chain in ledger.visible_chains(user)

        def read() -> tuple[int, Any]:
            # queued first: a resolve=false transaction has no row until its block (one that
            # leaves the queue meanwhile is committed already)
            queued = ledger.is_queued(h)
            chain = ledger.queued_chains([h]).get(h, "")
            row: Any = ledger.store.one("SELECT chain, status FROM txs WHERE hash=?", h)
            if row is None and queued:
                row = {"chain": chain, "status": "Pending"}
            if row is None or not visible(row["chain"]):
                return 404, f"unknown transaction {h}"
            if not ledger.traces.enabled:
                return 404, NO_TRACES
            trace = ledger.traces.read(h)
            if trace is None:
                if row["status"] == "Pending":
                    return 404, f"no trace yet: transaction {h} has not run"
                return 404, (
                    f"no trace kept for transaction {h}: only the last "
                    f"{ledger.traces.keep} transactions' traces are kept (--trace-keep), and "
                    "transfers and transactions that failed before any contract code ran have "
                    "none"
                )
            root = trace.get("root")
            if isinstance(root, dict) and not visible(str(root.get("chainId") or "")):
                return 404, f"unknown transaction {h}"
            return 200, {"hash": h, **trace}

        status, body = await asyncio.to_thread(read)
        if status != 200:
            raise ApiError(status, body)
        # a trace is up to 2 MB of JSON (MAX_TRACE_BYTES): encoded off the loop, in pieces
        return await json_answer(body)
