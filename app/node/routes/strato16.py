"""Routes STRATO 16 serves beyond the seeds: the node's metadata, the raw storage search and
the SolidVM definition of a deployed contract (``/bloc/v2.2/contracts/contract/<a>/details``).

The platform's own backend (``mercata/backend``) reads ``metadata`` at start-up (its
``networkID``), ``details`` to name a function's arguments, and ``storage`` to search state.
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import Response

from ..errors import ApiError, bad_request
from ..genesis import ROOT_USER
from ..ledger import norm_address, norm_chain
from ..platform_contract import definition, proxy_logic
from ..storage_search import StorageQuery, search_storage
from .base import ApiBase, JsonBody, json_answer

NETWORK_ID = "1337"
"""The sandbox's ``networkID``: no platform network's (Helium's changes SolidVM's rules)."""


class Strato16Routes(ApiBase):
    """metadata, storage and contract details in STRATO 16.10's shapes."""

    async def metadata(self, request: Request) -> Response:
        base = str(request.base_url).rstrip("/")
        root = self.ledger.key_of(ROOT_USER) or {"address": "", "pubkey": ""}
        address = root["address"]
        return JsonBody(
            {
                "nodePubKey": root["pubkey"],
                "nodeAddress": address,
                "validators": [address] if address else [],
                "isSynced": True,
                "isVaultPasswordSet": True,
                "networkID": NETWORK_ID,
                "urls": {
                    "vault": f"{base}/strato/v2.3",
                    "oauthDiscovery": f"{base}/auth/.well-known/openid-configuration",
                    "notificationServer": "",
                    "fileServer": f"{base}/apex-api/bloc/file",
                    "monitor": "",
                },
            }
        )

    async def storage(self, request: Request) -> Response:
        query = StorageQuery.from_params(request.query_params)
        chain = norm_chain(request.query_params.get("chainid"))
        if chain:  # a private chain's storage: its members only
            self.ledger.require_member(request.state.user, chain)

        def run() -> list[dict[str, str]]:
            with self.ledger.pinned_view() as view:
                return search_storage(view, chain, query)

        return await json_answer(await asyncio.to_thread(run))

    async def contract_definition(self, request: Request) -> Response:
        raw = request.path_params["address"]
        chain = norm_chain(request.query_params.get("chainid"))
        if chain:
            self.ledger.require_member(request.state.user, chain)
        missing = f"getContractsDetails': couldn't find contract details for address {raw}"
        try:
            addr = norm_address(raw, "contract address")
        except ApiError:
            raise bad_request(missing) from None
        missing = f"getContractsDetails': couldn't find contract details for address {addr}"
        view = self.ledger.committed()
        acct = view.account(int(addr, 16), chain)
        if acct is None or acct.cdef is None:
            raise bad_request(missing)
        logic = proxy_logic(view, acct)
        return JsonBody(await asyncio.to_thread(definition, acct.cdef, logic))
