"""``GET /stratoscope/accounts``: every account the node knows, paged and sorted (a sandbox
extension: the platform's ``/account`` lists by address only and counts no transactions).

An account is a user's key (with the user's organisation), a contract (its name and creator),
an address holding a balance or a nonce, or one only seen in transactions (a recipient never
used). Each row has its balance, nonce and transaction count (sent or received). The whole
table is built on a worker thread once per committed block and chain, and its orders once per
sort key; a page is then a slice.
"""

from __future__ import annotations

import asyncio
import operator
import threading
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ..errors import bad_request
from ..ledger import norm_address, norm_chain
from ..ledger.readview import CommittedView
from .base import ApiBase, int_param, json_answer

PATH = "/stratoscope/accounts"
SORTS = ("address", "name", "kind", "balance", "nonce", "txs")
KINDS = ("user", "contract", "other")
LIMIT_MAX = 1000
LIMIT_DEFAULT = 100


# a row: (address, kind, name, organisation, balance, nonce, transactions, creator); tuples,
# not objects: 100,000 of them are built per block in a fraction of the time
AccountRow = tuple[str, str, str, str, int, int, int, str]
ADDRESS, KIND, NAME, ORG, BALANCE, NONCE, TXS, CREATOR = range(8)
# a table this big is rebuilt beside the old one, which answers meanwhile (a block late)
BIG = 20_000
# private chains whose tables are kept (the most recently built; the main chain's always is):
# every chain a member asks about would otherwise keep its rows and orders for good
MAX_CHAIN_TABLES = 16


def row_json(r: AccountRow) -> dict[str, Any]:
    return {
        "address": r[ADDRESS],
        "kind": r[KIND],
        "name": r[NAME],
        "organization": r[ORG],
        "balance": str(r[BALANCE]),
        "nonce": r[NONCE],
        "txCount": r[TXS],
        "creator": r[CREATOR],
    }


# the rows are built in address order and Python's sort is stable: equal keys stay in it
SORT_KEYS: dict[str, Callable[[AccountRow], Any]] = {
    "name": lambda r: r[2].lower() or "\uffff",  # the nameless last (2: NAME)
    "kind": lambda r: (KINDS.index(r[1]), r[2].lower()),
    "balance": operator.itemgetter(BALANCE),
    "nonce": operator.itemgetter(NONCE),
    "txs": operator.itemgetter(TXS),
}


class _Table:
    """The accounts of one chain as of one committed block, and their orders."""

    def __init__(self, block: int, rows: list[AccountRow]) -> None:
        self.block = block
        self.rows = rows  # in address order
        self.orders: dict[str, list[AccountRow]] = {"address": rows}
        self.lock = threading.Lock()

    def ordered(self, sort: str) -> list[AccountRow]:
        with self.lock:
            found = self.orders.get(sort)
            if found is None:
                found = self.orders[sort] = sorted(self.rows, key=SORT_KEYS[sort])
            return found


def keep(tables: dict[str, _Table], chain: str, table: _Table) -> None:
    """Store ``chain``'s table as the newest, dropping the oldest private chains' past
    :data:`MAX_CHAIN_TABLES` (a dropped one is built again when next asked)."""
    tables.pop(chain, None)
    tables[chain] = table  # insertion order: the newest last
    private = [c for c in list(tables) if c]
    for old in private[: max(len(private) - MAX_CHAIN_TABLES, 0)]:
        tables.pop(old, None)


class AccountListRoutes(ApiBase):
    """The sandbox's account table (see the module's docstring)."""

    _account_tables: dict[str, _Table]

    async def account_list(self, request: Request) -> Response:
        q = request.query_params
        chain = norm_chain(q.get("chainid"))
        if chain:
            self.ledger.require_member(request.state.user, chain)
        sort = q.get("sort", "address")
        if sort not in SORTS:
            raise bad_request(f"sort must be one of: {', '.join(SORTS)}")
        order = q.get("order", "asc" if sort in ("address", "name", "kind") else "desc")
        if order not in ("asc", "desc"):
            raise bad_request("order must be asc or desc")
        kind = q.get("kind")
        if kind is not None and kind not in KINDS:
            raise bad_request(f"kind must be one of: {', '.join(KINDS)}")
        creator = norm_address(q["creator"], "creator") if q.get("creator") else None
        only = norm_address(q["address"], "address") if q.get("address") else None
        limit = int_param(request, "limit", LIMIT_DEFAULT)
        if limit is None or not 0 <= limit <= LIMIT_MAX:
            raise bad_request(f"limit must be 0 to {LIMIT_MAX}")
        offset = int_param(request, "offset", 0) or 0

        def page() -> dict[str, Any]:
            rows = self._account_table(chain).ordered(sort)
            filtered = kind is not None or creator is not None or only is not None
            if filtered:
                rows = [
                    r
                    for r in rows
                    if (kind is None or r[KIND] == kind)
                    and (creator is None or r[CREATOR] == creator)
                    and (only is None or r[ADDRESS] == only)
                ]
            total = len(rows)
            if order == "desc":
                part = rows[::-1][offset : offset + limit] if filtered else None
                if part is None:
                    first = max(total - offset - limit, 0)
                    part = rows[first : max(total - offset, 0)][::-1]
            else:
                part = rows[offset : offset + limit]
            return {"total": total, "accounts": [row_json(r) for r in part]}

        return await json_answer(await asyncio.to_thread(page))

    def _account_table(self, chain: str) -> _Table:
        """The chain's table as of the last committed block, built once per block; a big one
        (``BIG`` rows) is rebuilt on another thread while the previous block's answers."""
        tables: dict[str, _Table] = self.__dict__.setdefault("_account_tables", {})
        building: set[str] = self.__dict__.setdefault("_account_building", set())
        found = tables.get(chain)
        if found is not None and found.block == self.ledger.head.number:
            if chain:
                keep(tables, chain, found)  # the newest asked: the last to be dropped
            return found
        if found is not None and len(found.rows) >= BIG:
            if chain not in building:
                building.add(chain)
                threading.Thread(target=self._rebuild, args=(chain, building), daemon=True).start()
            return found
        return self._build(chain)

    def warm_accounts(self) -> None:
        """A node of many accounts builds its main chain's table as it starts, on another
        thread: the first page asked is then a slice too."""
        if len(self.ledger.world.balances) < BIG:
            return
        building: set[str] = self.__dict__.setdefault("_account_building", set())
        building.add("")
        threading.Thread(target=self._rebuild, args=("", building), daemon=True).start()

    def _build(self, chain: str) -> _Table:
        with self.ledger.pinned_view() as view:
            table = _Table(view.pinned, self._account_rows(view, chain))
        keep(self.__dict__.setdefault("_account_tables", {}), chain, table)
        return table

    def _rebuild(self, chain: str, building: set[str]) -> None:
        try:
            self._build(chain).ordered("txs")  # the app's first order, ready
        finally:
            building.discard(chain)

    def _account_rows(self, view: CommittedView, chain: str) -> list[AccountRow]:
        store = self.ledger.store
        users: dict[int, tuple[str, str]] = {}
        if not chain:
            for r in store.all(
                "SELECT k.name, k.address, u.org FROM keys k LEFT JOIN users u ON u.name = k.name"
            ):
                users[int(r["address"], 16)] = (str(r["name"]), str(r["org"] or ""))
        counts: dict[int, int] = {}
        for sql in (
            "SELECT sender AS a, COUNT(*) AS n FROM txs WHERE chain = ? GROUP BY sender",
            "SELECT to_address AS a, COUNT(*) AS n FROM txs WHERE chain = ? "
            "AND to_address IS NOT NULL AND to_address != '' AND to_address != sender "
            "GROUP BY to_address",
        ):
            for r in store.all(sql, chain):
                try:
                    a = int(r["a"], 16)
                except (TypeError, ValueError):
                    continue
                counts[a] = counts.get(a, 0) + int(r["n"])
        balances = dict(view.balances.items())
        nonces = dict(view.nonces.items())
        metas = dict(view.meta.items())
        found: set[int] = set(users) | set(counts)
        for table in (balances, nonces, metas):
            found |= {a for (c, a) in table if c == chain}
        rows: list[AccountRow] = []
        for a in sorted(found):
            key = (chain, a)
            meta = metas.get(key)
            user = users.get(a)
            if meta is not None:
                made_by = format(int(meta.creator, 16), "040x") if meta.creator else ""
                row = ("contract", meta.name, meta.org, made_by)
            elif user is not None:
                row = ("user", user[0], user[1], "")
            else:
                row = ("other", "", "", "")
            kind, name, org, creator = row
            figures = (balances.get(key, 0), nonces.get(key, 0), counts.get(a, 0))
            rows.append((format(a, "040x"), kind, name, org, *figures, creator))
        return rows
