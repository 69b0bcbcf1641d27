"""Cirrus (PostgREST-like) search routes and the row reader the asset applications use."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from ..cirrus.http import prepare, search
from ..cirrus.query import Query, QueryError
from ..cirrus.schema_doc import schema_document
from ..cirrus.stream import RowStream, open_rows
from ..errors import ApiError
from .base import ApiBase, JsonBody


class CirrusRoutes(ApiBase):
    """Cirrus search."""

    async def cirrus_rows(
        self, table: str, q: Query, user: str, want_total: bool = False
    ) -> tuple[list[dict[str, Any]], int | None]:
        """Rows of a Cirrus table as ``user`` may see them (for the asset applications), as
        of every block committed before the call."""
        await self.caught_up()
        backend = self.ledger.indexer.backend
        try:
            return backend.run(
                table, q, self.ledger.visible_chains(user), want_total, backend.reader()
            )
        except QueryError as exc:
            raise ApiError(exc.status, exc.body) from None
        except sqlite3.OperationalError:
            raise ApiError(503, {"message": "the table is being updated; retry"}) from None

    async def cirrus_rows_off_loop(
        self, table: str, q: Query, user: str
    ) -> tuple[list[dict[str, Any]] | RowStream, int]:
        """Rows of a Cirrus table as ``user`` may see them, and their total, read on a worker
        thread; more than a thousand come as a stream (see cirrus/stream.py)."""
        await self.caught_up()
        backend = self.ledger.indexer.backend
        visible = self.ledger.visible_chains(user)
        try:
            rows, _, total = await asyncio.to_thread(open_rows, backend, table, q, visible, True)
        except QueryError as exc:
            raise ApiError(exc.status, exc.body) from None
        except sqlite3.OperationalError:
            raise ApiError(503, {"message": "the table is being updated; retry"}) from None
        return rows, total or 0

    async def caught_up(self) -> None:
        """The Cirrus rows of every block committed so far are written (STRATO 16's and the
        seed's contract, collection and event rows are written behind the chain:
        cirrus/behind16.py), so that a client reads its own writes."""
        behind = self.ledger.behind16
        if behind is not None:
            await behind.caught_up()

    async def cirrus_schema(self, request: Request) -> Response:
        await self.caught_up()
        return JsonBody(schema_document(self.ledger.indexer.backend.listed()))

    async def cirrus(self, request: Request) -> Response:
        if request.method != "GET":
            raise ApiError(403, {"message": "Cirrus is read-only: only GET is allowed"})
        await self.caught_up()
        backend = self.ledger.indexer.backend
        table = backend.served(request.path_params["table"])
        params = request.query_params.multi_items()
        args = (
            backend,
            table,
            params,
            {k.lower(): v for k, v in request.headers.items()},
            self.ledger.visible_chains(request.state.user),
        )
        q = prepare(params)
        if q is None or backend.is_cheap(table, q):
            status, body, headers = search(*args)
        else:
            # a scan reads through its own connection in a worker thread, so that it holds up
            # neither block production nor other requests
            status, body, headers = await asyncio.to_thread(search, *args)
        if isinstance(body, RowStream):  # a large result: the rest is read as it is sent
            return StreamingResponse(body.body(), status, headers, "application/json")
        return JsonBody(body, status, headers=headers)
