"""Private chains: creation and the chains a caller can access."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import Response

from ..errors import bad_request
from ..ledger import norm_chain
from .base import LIST_CAP, ApiBase, JsonBody, int_param


class ChainRoutes(ApiBase):
    """Private chains."""

    async def post_chain(self, request: Request) -> Response:
        name = request.state.user
        sender = self.sender_of(name)
        body = await self.json_body(request)
        return JsonBody(await self.ledger.create_chain(name, sender, body))

    async def post_chains(self, request: Request) -> Response:
        name = request.state.user
        sender = self.sender_of(name)
        body = await self.json_body(request)
        if not isinstance(body, list) or not body or len(body) > 100:
            raise bad_request("body must be an array of 1-100 chain creation objects")
        for b in body:  # all or nothing: check every body before creating any chain
            await asyncio.to_thread(self.ledger.validate_chain, name, b)  # it compiles
        ids = [await self.ledger.create_chain(name, sender, b) for b in body]
        return JsonBody(ids)

    async def get_chains(self, request: Request) -> Response:
        name = request.state.user
        wanted = [norm_chain(c) for c in request.query_params.getlist("chainid") if c]
        limit = min(int_param(request, "limit", LIST_CAP) or LIST_CAP, LIST_CAP)
        offset = int_param(request, "offset", 0) or 0
        if wanted:
            out = []
            for cid in wanted:
                chain = self.ledger.require_member(name, cid)
                out.append(self.ledger.chain_json(chain))
            return JsonBody(out)
        chains = self.ledger.accessible_chains(name)[offset : offset + limit]
        return JsonBody([self.ledger.chain_json(c) for c in chains])
