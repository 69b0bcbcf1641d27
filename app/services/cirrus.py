"""Cirrus reads for the table viewer: one page of rows, and the total, of a query."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.client.cirrus_names import read_names
from app.client.cirrus_query import CirrusQuery, history_of
from app.client.cirrus_schema import TableInfo, infer_columns
from app.client.errors import AuthError, RequestError
from app.client.models import Transaction

from .export import export_format, write_rows
from .profiles import ProfileError, SavedQueryStore
from .session import Session


class CirrusService(QObject):
    """Pages, counts and table descriptions of Cirrus, with errors explained in words.

    A query's own ``limit``/``offset`` are a window on its result: pages and the count are
    taken inside that window, so a pasted ``limit=10`` shows ten rows, not the whole table.
    """

    def __init__(
        self,
        session: Session,
        parent: QObject | None = None,
        *,
        saved: SavedQueryStore | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.saved = saved or SavedQueryStore()
        self._schema: dict[str, TableInfo] | None = None
        self._schema_client: Any = None
        self._inferred: dict[str, TableInfo] = {}

    def _client(self) -> Any:
        if self.session.client is None:
            raise AuthError("not connected")
        return self.session.client

    async def _search(self, table: str, params: list[tuple[str, str]]) -> list[dict[str, Any]]:
        try:
            rows, _ = await self._client().cirrus(table, params)
        except RequestError as exc:
            raise RequestError(
                explain_error(exc, table),
                status=exc.status,
                method=exc.method,
                url=exc.url,
                body=exc.body,
            ) from None
        return [r for r in rows if isinstance(r, dict)]

    async def page(self, query: CirrusQuery, offset: int, limit: int) -> list[dict[str, Any]]:
        """Rows ``offset .. offset+limit`` of the query's result, inside its own window."""
        start = (query.offset or 0) + offset
        if query.limit is not None:
            limit = max(0, min(limit, query.limit - offset))
            if limit == 0:
                return []
        q = replace(query, limit=limit, offset=start or None, count=False)
        return await self._search(q.table, q.to_params())

    async def count(self, query: CirrusQuery) -> int:
        """How many rows the query matches (``select=count``, filters kept, order dropped),
        inside its own limit/offset window."""
        q = replace(query, select=[], embeds=[], count=True, order=[], limit=None, offset=None)
        rows = await self._search(q.table, q.to_params())
        n = int(rows[0]["count"]) if rows and "count" in rows[0] else 0
        n = max(0, n - (query.offset or 0))
        return n if query.limit is None else min(n, query.limit)

    # ------------------------------------------------------------ tables

    async def tables(self, refresh: bool = False) -> dict[str, TableInfo]:
        """Every table the node describes (contract, ``history@`` and event tables, with
        column types and join targets). A node without PostgREST's root document gets the
        contract names it lists under ``/bloc/v2.2/contracts``, columns to be guessed."""
        client = self._client()
        if self._schema is not None and self._schema_client is client and not refresh:
            return self._schema
        # without PostgREST's root document: the names bloc lists, STRATO 16's views from its
        # global ``contract`` table (the names the node serves, either family)
        tables = dict((await read_names(client)).infos)
        self._schema, self._schema_client = tables, client
        self._inferred.clear()
        return tables

    async def table_info(self, name: str) -> TableInfo:
        """One table's description; when the node gave no columns, guessed from a few rows."""
        known = (await self.tables()).get(name)
        if known is not None and known.columns:
            return known
        if name in self._inferred:
            return self._inferred[name]
        rows = await self._search(name, [("limit", "50")])
        info = TableInfo(name, infer_columns(rows), inferred=True)
        self._inferred[name] = info
        return info

    # ------------------------------------------------------------ saved queries

    def _profile(self) -> str:
        return self.session.profile.name if self.session.profile else ""

    async def saved_queries(self) -> dict[str, str]:
        """This connection profile's saved queries: name -> ``/cirrus/search/...`` URL."""
        return await asyncio.to_thread(self.saved.load, self._profile())

    async def save_query(self, name: str, query: CirrusQuery) -> dict[str, str]:
        problems = query.validate()
        if problems:
            raise ProfileError(f"cannot save an invalid query: {problems[0]}")
        return await asyncio.to_thread(self.saved.save, self._profile(), name, query.url())

    async def delete_query(self, name: str) -> dict[str, str]:
        return await asyncio.to_thread(self.saved.remove, self._profile(), name)

    async def chain_choices(self) -> list[tuple[str, str]]:
        """(chain id, label) of the private chains the user can see, for the chain shortcut."""
        out = []
        for c in await self._client().chains():
            cid = str(c.get("id") or c.get("chainId") or "")
            info = c.get("info") if isinstance(c.get("info"), dict) else {}
            if cid:
                out.append((cid, str(info.get("label") or c.get("label") or "")))
        return out

    async def transactions_of(
        self, address: str, chain_id: str = "", table: str = ""
    ) -> list[Transaction]:
        """The transactions of a contract, newest first: those sent to it (the explorer's
        list) and, when its table keeps history, every one that changed it, its creation
        included (the explorer does not list a creation under the created address)."""
        client = self._client()
        filters: dict[str, str] = {"address": address}
        if chain_id:
            filters["chainid"] = chain_id
        txs: list[Transaction] = await client.transactions(**filters)
        if table:
            where = [("address", f"eq.{address}"), ("chainId", f"eq.{chain_id}")]
            try:
                rows = await self._search(
                    history_of(table),
                    [("select", "transaction_hash"), *where, ("limit", str(MAX_HISTORY_TXS))],
                )
            except RequestError:  # no history table: the explorer's list is all there is
                rows = []
            known = {t.hash for t in txs}
            for h in dict.fromkeys(str(r.get("transaction_hash") or "") for r in rows):
                if h and h not in known:
                    hit = {"hash": h, **({"chainid": chain_id} if chain_id else {})}
                    txs.extend(await client.transactions(**hit))
        return sorted(txs, key=lambda t: t.block_number or 0, reverse=True)


def explain_error(exc: RequestError, table: str) -> str:
    """The node's refusal of a search in words a user can act on (PostgREST codes, § 4)."""
    code = ""
    try:
        body = json.loads(exc.body) if exc.body else None
    except ValueError:
        body = None
    if isinstance(body, dict):
        code = str(body.get("code") or "")
    msg = exc.message
    if exc.status == 404 or code == "42P01":
        return (
            f"there is no table {table!r} on this node (a contract's table appears with its "
            "first indexed transaction; history@ tables only for contracts uploaded with "
            "history; event tables once the event was emitted)"
        )
    if code == "42703":
        column = msg.rsplit(".", 1)[-1].split(" ", 1)[0] if "." in msg else ""
        return f"table {table!r} has no column {column!r}" if column else msg
    if code == "22P02":
        return f"a value does not fit its column: {msg}"
    if code in ("PGRST100", "PGRST102") or "failed to parse" in msg:
        details = body.get("details") if isinstance(body, dict) else None
        return f"the node could not read the query: {msg}" + (f" ({details})" if details else "")
    if code in ("PGRST200", "PGRST201") or "relationship" in msg:
        return f"cannot join: {msg}"
    return msg


EXPORT_PAGE = 1000
MAX_HISTORY_TXS = 50  # transactions of one contract looked up one by one from its history


class CirrusExporter(QObject):
    """Writes every row of a query (all pages, in its order) to CSV or JSON.

    The file appears only when complete: rows go to a temporary file that is renamed at the end;
    a cancelled or failed export leaves nothing behind.

    Signals: progress(int, int): rows written, of how many.
    """

    progress = Signal(int, int)

    def __init__(self, cirrus: CirrusService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cirrus = cirrus

    async def export(self, query: CirrusQuery, path: Path, fmt: str = "") -> int:
        fmt = export_format(path, fmt)
        total = await self.cirrus.count(query)

        async def read(offset: int) -> list[dict[str, Any]]:
            return await self.cirrus.page(query, offset, EXPORT_PAGE)

        def progress(written: int) -> None:
            self.progress.emit(written, max(total, written))

        return await write_rows(path, read, EXPORT_PAGE, fmt, list(query.select), progress)
