"""Keys and users: the caller's key pair and the list of users with keys."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from ..errors import ApiError
from ..ledger import norm_address
from .base import LIST_CAP, ApiBase, JsonBody, int_param

USERS_CAP = 1000


class IdentityRoutes(ApiBase):
    """Key pairs and users."""

    async def get_key(self, request: Request) -> Response:
        name = request.query_params.get("username") or request.state.user
        key = self.ledger.key_of(name)
        if key is None:
            raise ApiError(400, f"User {name} doesn't exist")
        return JsonBody({"status": "success", "address": key["address"], "pubkey": key["pubkey"]})

    async def post_key(self, request: Request) -> Response:
        name = request.state.user
        key = self.ledger.create_key(name)
        self.key_cache[name] = key["address"]
        return JsonBody({"status": "success", "address": key["address"], "pubkey": key["pubkey"]})

    async def list_users(self, request: Request) -> Response:
        address = request.query_params.get("address")
        # at most USERS_CAP rows per page: the rows are read and encoded on the event loop
        limit = min(int_param(request, "limit", LIST_CAP) or LIST_CAP, USERS_CAP)
        offset = int_param(request, "offset", 0) or 0
        if address is not None:
            rows = self.ledger.store.all(
                "SELECT name, address FROM keys WHERE address=? LIMIT ? OFFSET ?",
                norm_address(address, "address"),
                limit,
                offset,
            )
        else:
            rows = self.ledger.store.all(
                "SELECT name, address FROM keys ORDER BY created_at LIMIT ? OFFSET ?", limit, offset
            )
        return JsonBody([{"username": r["name"], "address": r["address"]} for r in rows])
