"""HTTP routes of the sandbox node (Starlette).

Routes are served at the seed prefixes and at the real platform's spellings. Every API route
needs a bearer token from the node's own issuer. Every failure is a 4xx with a JSON body that
says what was wrong: the platform's own texts where clients match on them.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route

from .openapi import OptionsMiddleware, allow_header, allowed_methods
from .routes.account_list import PATH as ACCOUNT_LIST
from .routes.account_list import AccountListRoutes
from .routes.accounts import AccountRoutes
from .routes.base import (
    BLOC,
    REAL_ETH,
    REAL_SVC,
    SEED_ETH,
    SEED_SVC,
    Handler,
    JsonBody,
    flag,
    int_param,
    iso,
)
from .routes.chains import ChainRoutes
from .routes.cirrus import CirrusRoutes
from .routes.contracts import ContractRoutes
from .routes.explorer import ExplorerRoutes
from .routes.identity import IdentityRoutes
from .routes.read_call import PATH as READ_CALL
from .routes.read_call import ReadCallRoutes
from .routes.service import ServiceRoutes
from .routes.strato16 import Strato16Routes
from .routes.traces import TraceRoutes
from .routes.tx import TxRoutes

# JsonBody and the parameter helpers are imported from here by the asset-app and file routes
__all__ = ["JsonBody", "NodeApi", "build_app", "flag", "int_param", "iso"]


class NodeApi(
    ServiceRoutes,
    IdentityRoutes,
    TxRoutes,
    TraceRoutes,
    AccountRoutes,
    AccountListRoutes,
    ReadCallRoutes,
    ExplorerRoutes,
    Strato16Routes,
    ContractRoutes,
    ChainRoutes,
    CirrusRoutes,
):
    """Builds the Starlette application around a :class:`Ledger` from the route families."""

    def routes(self) -> list[BaseRoute]:
        table: list[tuple[list[str], list[str], Handler, str, bool]] = [
            (["/health"], ["GET"], self.health, "Node health, version, uptime, last block", True),
            (["/_ping"], ["GET"], self.ping, "Liveness probe", True),
            (["/openapi.json"], ["GET"], self.openapi, "This API description", True),
            (
                [f"{p}/key" for p in (SEED_SVC, REAL_SVC)],
                ["GET"],
                self.get_key,
                "Address and public key of the caller (or ?username=)",
                False,
            ),
            (
                [f"{p}/key" for p in (SEED_SVC, REAL_SVC)],
                ["POST"],
                self.post_key,
                "Create the caller's key pair",
                False,
            ),
            (
                [f"{p}/users" for p in (SEED_SVC, REAL_SVC)],
                ["GET"],
                self.list_users,
                "Users with keys (?address, limit, offset)",
                False,
            ),
            (
                [f"{p}/transaction" for p in (SEED_SVC, REAL_SVC, BLOC)],
                ["POST"],
                self.transaction,
                "Submit transactions (?resolve, chainid); results in request order",
                False,
            ),
            (
                [f"{p}/transaction/parallel" for p in (SEED_SVC, REAL_SVC, BLOC)],
                ["POST"],
                self.transaction_parallel,
                "Submit transactions as STRATO 16 does: grouped TRANSFER, CONTRACT, FUNCTION",
                False,
            ),
            (
                [f"{BLOC}/transactions/{{hash}}/result"],
                ["GET"],
                self.tx_result,
                "Result of one transaction (a private chain's: members only, else as unknown)",
                False,
            ),
            (
                [f"{BLOC}/transactions/results"],
                ["POST"],
                self.tx_results,
                "Results of several transactions, in the order given",
                False,
            ),
            (
                [f"{BLOC}/users/{{name}}/{{address}}/fill"],
                ["POST"],
                self.fill,
                "Faucet: fund an account (?resolve)",
                False,
            ),
            (
                [f"{p}/block" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.blocks,
                "Blocks by number, range or hash",
                False,
            ),
            (
                [f"{p}/block/last/{{n}}" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.last_blocks,
                "The last n blocks",
                False,
            ),
            (
                [f"{p}/transaction" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.transactions,
                "Transactions by hash, address, sender, recipient or block",
                False,
            ),
            (
                [f"{p}/transaction/trace" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.tx_trace,
                "Call trace of one transaction (?hash; sandbox extension; members only for "
                "a private chain's)",
                False,
            ),
            (
                [f"{p}/transaction/last/{{n}}" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.last_transactions,
                "The last n transactions",
                False,
            ),
            (
                [f"{p}/account" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.accounts,
                "Account state: balance, nonce, contract name",
                False,
            ),
            (
                [ACCOUNT_LIST],
                ["GET"],
                self.account_list,
                "Every account the node knows, paged and sorted (a sandbox extension)",
                False,
            ),
            (
                [f"{p}/metadata" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.metadata,
                "The node's key, validators, network id and service URLs (STRATO 16)",
                False,
            ),
            (
                [f"{p}/storage" for p in (SEED_ETH, REAL_ETH)],
                ["GET"],
                self.storage,
                "Stored contract values by path (key, value, search, address ...; STRATO 16)",
                False,
            ),
            (
                [READ_CALL],
                ["POST"],
                self.read_call,
                "Call a function read-only on the committed state: no transaction (a sandbox "
                "extension)",
                False,
            ),
            ([f"{BLOC}/contracts"], ["GET"], self.contracts, "Deployed contracts by name", False),
            (
                [f"{BLOC}/contracts/contract/{{address}}/details"],
                ["GET"],
                self.contract_definition,
                "A contract's SolidVM definition, the platform's encoding (STRATO 16)",
                False,
            ),
            ([f"{BLOC}/contracts/xabi"], ["POST"], self.xabi, "xabi of source code", False),
            ([f"{BLOC}/contracts/compile"], ["POST"], self.compile, "Compile source code", False),
            (
                [f"{BLOC}/contracts/{{name}}/{{address}}"],
                ["GET"],
                self.contract_details,
                "Contract details with xabi",
                False,
            ),
            (
                [f"{BLOC}/contracts/{{name}}/{{address}}/state"],
                ["GET"],
                self.contract_state,
                "Contract state (?name, offset, count, length)",
                False,
            ),
            (
                [f"{BLOC}/contracts/{{name}}/{{address}}/state/{{mapping}}/{{key}}"],
                ["GET"],
                self.contract_state_key,
                "One mapping entry",
                False,
            ),
            (
                [f"{BLOC}/chain"],
                ["POST"],
                self.post_chain,
                "Create a private chain (returns its id)",
                False,
            ),
            (
                [f"{BLOC}/chains"],
                ["POST"],
                self.post_chains,
                "Create several private chains",
                False,
            ),
            (
                [f"{SEED_ETH}/chain", f"{REAL_ETH}/chain", f"{BLOC}/chain"],
                ["GET"],
                self.get_chains,
                "Chains the caller can access (?chainid repeatable)",
                False,
            ),
            (
                ["/cirrus/search/", "/cirrus/search"],
                ["GET"],
                self.cirrus_schema,
                "Tables and their columns (PostgREST's OpenAPI root document)",
                False,
            ),
            (
                ["/cirrus/search/{table}"],
                ["GET", "POST", "PUT", "PATCH", "DELETE"],
                self.cirrus,
                "Query an indexed table (PostgREST 9 syntax)",
                False,
            ),
            (
                [f"{BLOC}/", f"{BLOC}", f"{REAL_ETH}/version", f"{SEED_ETH}/version"],
                ["GET"],
                self.version,
                "Version information",
                False,
            ),
        ]
        routes: list[BaseRoute] = []
        for paths, methods, handler, summary, public in table:
            wrapped = self.endpoint(handler, public)
            wrapped.summary = summary  # type: ignore[attr-defined]
            routes += [Route(path, wrapped, methods=methods) for path in paths]
        routes.append(Mount("/auth", routes=self.issuer.routes()))
        return routes + self.extra_routes


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        body: Any = {"error": f"no such route: {request.method} {request.url.path}"}
    elif exc.status_code == 405:
        body = {"error": f"method {request.method} is not allowed on {request.url.path}"}
        # every method of the path, not only those of the route the router tried first
        allowed = allowed_methods(request.app.routes, request.scope)
        return JsonBody(body, 405, headers={"Allow": allow_header(allowed)})
    else:
        body = {"error": exc.detail}
    return JsonBody(body, exc.status_code, headers=getattr(exc, "headers", None))


def build_app(api: NodeApi, lifespan: Any) -> Starlette:
    return Starlette(
        routes=api.routes(),
        middleware=[Middleware(OptionsMiddleware)],
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )
