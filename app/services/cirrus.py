"""Cirrus reads for the table viewer: one page of rows, and the total, of a query."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject

from app.client.cirrus_query import CirrusQuery
from app.client.errors import AuthError

from .session import Session


class CirrusService(QObject):
    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session

    def _client(self) -> Any:
        if self.session.client is None:
            raise AuthError("not connected")
        return self.session.client

    async def page(self, query: CirrusQuery, offset: int, limit: int) -> list[dict[str, Any]]:
        """Rows ``offset .. offset+limit`` of the query's result (its own limit/offset aside)."""
        q = replace(query, limit=limit, offset=offset or None, count=False)
        rows, _ = await self._client().cirrus(q.table, q.to_params())
        return [r for r in rows if isinstance(r, dict)]

    async def count(self, query: CirrusQuery) -> int:
        """How many rows the query matches (``select=count``, filters kept, order dropped)."""
        q = replace(query, select=[], embeds=[], count=True, order=[], limit=None, offset=None)
        rows, _ = await self._client().cirrus(q.table, q.to_params())
        if rows and isinstance(rows[0], dict) and "count" in rows[0]:
            return int(rows[0]["count"])
        return 0
