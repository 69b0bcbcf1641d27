"""Reads of the Explorer's Accounts view and account page: every account the node knows, a page
at a time and sorted, and one account's balance, nonce, transactions and the contracts it made.

The sandbox node lists its accounts with their kind, name, organisation and transaction count,
sorted by any of them (``GET /stratoscope/accounts``, its own extension). A STRATO node has no
such route: there the list is the platform's account search (``/strato-api/eth/v1.2/account``
with ``limit``/``offset``), in address order only, with no transaction counts
(:attr:`AccountsService.full_listing` says which one the node gave).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject

from app.client.errors import AuthError, RequestError
from app.client.http import StratoClient
from app.client.models import Transaction, as_int

from .names import ACCOUNT_TABLE as LIST_ROUTE
from .session import Session

PLATFORM_PAGE = 100  # the platform's account search answers at most 1000; pages of 100
SORTS = ("address", "name", "kind", "balance", "nonce", "txs")


@dataclass(frozen=True)
class AccountEntry:
    """One account as the list shows it (``tx_count`` None: the node does not count)."""

    address: str
    kind: str  # user, contract, other ("" when the node does not say)
    name: str = ""
    org: str = ""
    balance: int = 0
    nonce: int = 0
    tx_count: int | None = None
    creator: str = ""

    @classmethod
    def from_sandbox(cls, d: dict[str, Any]) -> AccountEntry:
        return cls(
            str(d.get("address") or ""),
            str(d.get("kind") or ""),
            str(d.get("name") or ""),
            str(d.get("organization") or ""),
            as_int(d.get("balance")),
            as_int(d.get("nonce")),
            as_int(d.get("txCount")),
            str(d.get("creator") or ""),
        )

    @classmethod
    def from_platform(cls, d: dict[str, Any]) -> AccountEntry:
        name = str(d.get("contractName") or "")
        return cls(
            str(d.get("address") or ""),
            "contract" if name or d.get("codeHash") else "",
            name,
            balance=as_int(d.get("balance")),
            nonce=as_int(d.get("nonce")),
        )


@dataclass(frozen=True)
class AccountPage:
    rows: list[AccountEntry]
    total: int | None  # None: the node does not say (the platform's search)


class AccountsService(QObject):
    """The node reads of the Accounts view and the account page."""

    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.full_listing: bool | None = None  # None: not asked yet this session
        self.requests = 0
        session.state_changed.connect(self._forget)
        session.user_changed.connect(self._forget)

    def _forget(self, *_args: object) -> None:
        self.full_listing = None

    def _client(self) -> StratoClient:
        client = self.session.client
        if client is None:
            raise AuthError("not connected to a node")
        return client

    async def page(
        self, sort: str, descending: bool, offset: int, limit: int, kind: str = ""
    ) -> AccountPage:
        """One page of accounts in that order (the platform's: address order only)."""
        client = self._client()
        if self.full_listing is not False:
            params: dict[str, Any] = {
                "sort": sort,
                "order": "desc" if descending else "asc",
                "offset": offset,
                "limit": limit,
            }
            if kind:
                params["kind"] = kind
            try:
                self.requests += 1
                data = await client.json("GET", LIST_ROUTE, params=params)
            except RequestError as exc:
                if exc.status != 404:
                    raise
                self.full_listing = False  # a STRATO node: its own search
            else:
                self.full_listing = True
                rows = [AccountEntry.from_sandbox(d) for d in data.get("accounts", [])]
                return AccountPage(rows, as_int(data.get("total")))
        self.requests += 1
        data = await client._spelled("eth", "/account", params={"limit": limit, "offset": offset})
        # address order is all the platform offers (whatever order was asked for)
        rows = [AccountEntry.from_platform(d) for d in data if isinstance(d, dict)]
        return AccountPage(rows, None)

    async def account(self, address: str) -> AccountEntry | None:
        """One account's entry: kind, name, balance, nonce (and on the sandbox its
        organisation and transaction count); None when the node knows no such account."""
        client = self._client()
        if self.full_listing is not False:
            try:
                self.requests += 1
                data = await client.json("GET", LIST_ROUTE, params={"address": address})
            except RequestError as exc:
                if exc.status != 404:
                    raise
                self.full_listing = False
            else:
                self.full_listing = True
                found = data.get("accounts", [])
                return AccountEntry.from_sandbox(found[0]) if found else None
        self.requests += 1
        state = await client.account(address)
        if state is None:
            return None
        return AccountEntry(
            state.address or address,
            "contract" if state.contract_name else "",
            state.contract_name or "",
            balance=state.balance,
            nonce=state.nonce,
        )

    async def transactions(self, address: str, offset: int, limit: int = 100) -> list[Transaction]:
        """The account's transactions (sent or received), newest first."""
        self.requests += 1
        return await self._client().transactions(
            address=address, sortby="desc", limit=limit, offset=offset
        )

    async def created(self, address: str) -> list[AccountEntry]:
        """The contracts the account created: the sandbox lists them by creator; on a STRATO
        node, its contract-creating transactions' results name them."""
        client = self._client()
        if self.full_listing is not False:
            try:
                self.requests += 1
                data = await client.json(
                    "GET",
                    LIST_ROUTE,
                    params={"creator": address, "kind": "contract", "limit": 1000},
                )
            except RequestError as exc:
                if exc.status != 404:
                    raise
                self.full_listing = False
            else:
                self.full_listing = True
                return [AccountEntry.from_sandbox(d) for d in data.get("accounts", [])]
        sent = await client.transactions(**{"from": address, "sortby": "desc", "limit": 100})
        made = [t.hash for t in sent if not t.to and t.kind in ("Contract", "CONTRACT")]
        if not made:
            return []
        self.requests += 1
        results = await client.results(made)
        out = []
        for r, tx in zip(results, [t for t in sent if t.hash in made], strict=False):
            for a in r.contracts_created:
                out.append(AccountEntry(a, "contract", str(tx.metadata.get("name") or "")))
        return out
