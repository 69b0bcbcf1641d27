"""``GET /strato-api/eth/v1.2/account``: account state, by address or by contract name as the
seeds ask, and searched as STRATO 16 does (``search``, ``external``, balance and nonce ranges,
``codeHash``, ``limit``/``offset``, ordered by address)."""

from __future__ import annotations

import asyncio
import operator
import re
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ..errors import ApiError, bad_request
from ..ledger import norm_address, norm_chain
from ..ledger.readview import CommittedView
from ..storage_search import FETCH_LIMIT, like
from .base import ACCOUNT_FILTERS, LIST_CAP, ApiBase, JsonBody, int_param, json_answer

# the platform's filters beyond the seeds' address and contractName: any of them (even only
# limit or offset) makes a listing, ordered by address, at most 1000 rows
SEARCH_PARAMS = (
    "balance",
    "minbalance",
    "maxbalance",
    "nonce",
    "minnonce",
    "maxnonce",
    "maxnumber",
    "codeHash",
    "external",
    "limit",
    "offset",
    "search",
)
RANGES: tuple[tuple[str, str, Callable[[int, int], bool]], ...] = (
    ("balance", "balance", operator.eq),
    ("minbalance", "balance", operator.ge),
    ("maxbalance", "balance", operator.le),
    ("nonce", "nonce", operator.eq),
    ("minnonce", "nonce", operator.ge),
    ("maxnonce", "nonce", operator.le),
)
HEX64 = re.compile(r"^(0[xX])?[0-9a-fA-F]{64}$")


class AccountRoutes(ApiBase):
    """Accounts in strato-api's shape."""

    async def accounts(self, request: Request) -> Response:
        q = request.query_params
        chain = norm_chain(q.get("chainid"))
        if chain:  # a private chain's accounts: its members only
            self.ledger.require_member(request.state.user, chain)
        if any(q.get(p) is not None for p in SEARCH_PARAMS):
            return await self._search(request, chain)
        if not q.get("address") and not q.get("contractName"):
            raise ApiError(400, f"Need one of: {ACCOUNT_FILTERS}")
        view = self.ledger.committed()  # as of the last committed block
        if q.get("address"):
            addrs = [norm_address(q["address"], "address")]
        else:
            name = q["contractName"]
            addrs = [
                format(a, "040x")
                for (c, a), m in view.meta.items()
                if c == chain and m.name == name
            ][:LIST_CAP]
        out = []
        for a in addrs:
            key = (chain, int(a, 16))
            if (
                view.accounts.get(key) is None
                and self.ledger.name_of_address(a) is None
                and key not in view.balances
            ):
                continue
            out.append(self._account_json(view, chain, key))
        return JsonBody(out)

    def _account_json(
        self, view: CommittedView, chain: str, key: tuple[str, int]
    ) -> dict[str, Any]:
        meta = view.meta.get(key)
        item: dict[str, Any] = {
            "next": "",
            "kind": "AddressStateRef",
            "address": format(key[1], "040x"),
            "nonce": view.nonces.get(key, 0),
            "balance": str(view.balances.get(key, 0)),
            "contractRoot": "",
            "code": "",
            "codeHash": meta.code_hash if meta else "",
            "contractName": meta.name if meta else None,
            "codePtrAddress": None,
            "codePtrChainId": None,
            "latestBlockNum": self.ledger.head.number,
        }
        if chain:
            item["chainId"] = chain
        return item

    async def _search(self, request: Request, chain: str) -> Response:
        q = request.query_params
        checks = []
        for param, field, test in RANGES:
            bound = int_param(request, param)
            if bound is not None:
                checks.append((field, test, bound))
        int_param(request, "maxnumber")  # accepted and, as on the platform, not applied
        offset = int_param(request, "offset", 0) or 0
        limit = min(int_param(request, "limit", FETCH_LIMIT) or 0, FETCH_LIMIT)
        external: bool | None = None
        if q.get("external") is not None:
            v = q["external"].lower()
            if v not in ("true", "false"):
                raise bad_request(
                    f"Error parsing query parameter external failed: could not parse "
                    f"{q['external'][:40]!r} (true or false)"
                )
            external = v == "true"
        code_hash = None
        if q.get("codeHash") is not None:
            if not HEX64.match(q["codeHash"]):
                raise bad_request("query parameter codeHash must be 64 hex digits")
            code_hash = q["codeHash"].lower().removeprefix("0x")
        only = norm_address(q["address"], "address") if q.get("address") else None
        name: str | None = q.get("contractName")
        terms = [t.strip(" \n\t") for t in (q.get("search") or "").split(",")]
        patterns = [like(t, re.I) for t in terms if t]  # ILIKE '%term%'
        searching = q.get("search") is not None
        keyed = set() if chain else self._keyed_addresses()

        def run() -> list[dict[str, Any]]:
            with self.ledger.pinned_view() as view:
                return listing(view)

        def listing(view: CommittedView) -> list[dict[str, Any]]:
            found = set(keyed)
            for table in (view.accounts, view.balances, view.nonces):
                found |= {a for (c, a), _ in table.items() if c == chain}
            out = []
            for a in sorted(found):
                key = (chain, a)
                hexa = format(a, "040x")
                if only is not None and hexa != only:
                    continue
                meta = view.meta.get(key)
                acct = view.accounts.get(key)
                if acct is None and a not in keyed and key not in view.balances:
                    continue  # touched by the running block only
                is_contract = meta is not None
                if external is not None and external == is_contract:
                    continue
                if name is not None and (meta is None or meta.name != name):
                    continue
                if code_hash is not None and (meta is None or meta.code_hash != code_hash):
                    continue
                if searching and not any(
                    p.search(hexa) or (meta is not None and p.search(meta.name)) for p in patterns
                ):
                    continue
                values = {
                    "balance": view.balances.get(key, 0),
                    "nonce": view.nonces.get(key, 0),
                }
                if not all(test(values[field], bound) for field, test, bound in checks):
                    continue
                out.append(key)
            return [self._account_json(view, chain, k) for k in out[offset : offset + limit]]

        return await json_answer(await asyncio.to_thread(run))

    def _keyed_addresses(self) -> set[int]:
        """Addresses of the node's users: accounts on the main chain even before any use."""
        return {int(r["address"], 16) for r in self.ledger.store.all("SELECT address FROM keys")}
