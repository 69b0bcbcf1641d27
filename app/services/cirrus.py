"""Cirrus reads for the table viewer: one page of rows, and the total, of a query."""

from __future__ import annotations

import asyncio
import csv
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.client.cirrus_query import CirrusQuery
from app.client.errors import AuthError, RequestError

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


EXPORT_PAGE = 1000


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
        fmt = fmt or ("json" if path.suffix.lower() == ".json" else "csv")
        if fmt not in ("csv", "json"):
            raise RequestError(f"cannot export as {fmt!r}: choose csv or json")
        total = await self.cirrus.count(query)
        tmp = path.with_name(f".{path.name}.part")
        out = await asyncio.to_thread(tmp.open, "w", encoding="utf-8", newline="")
        written = 0
        columns: list[str] = list(query.select)
        writer: Any = None
        try:
            if fmt == "json":
                await asyncio.to_thread(out.write, "[")
            while True:
                rows = await self.cirrus.page(query, written, EXPORT_PAGE)
                if not rows:
                    break
                if fmt == "csv":
                    if writer is None:
                        columns = columns or list(dict.fromkeys(k for r in rows for k in r))
                        writer = csv.DictWriter(out, columns, extrasaction="ignore")
                        await asyncio.to_thread(writer.writeheader)
                    await asyncio.to_thread(writer.writerows, [_csv_row(r) for r in rows])
                else:
                    chunk = ",\n".join(json.dumps(r) for r in rows)
                    await asyncio.to_thread(out.write, ("," if written else "\n") + chunk)
                written += len(rows)
                self.progress.emit(written, max(total, written))
                if len(rows) < EXPORT_PAGE:
                    break
            if fmt == "json":
                await asyncio.to_thread(out.write, "\n]\n")
            await asyncio.to_thread(out.close)
            await asyncio.to_thread(os.replace, tmp, path)
        except BaseException:
            out.close()
            tmp.unlink(missing_ok=True)
            raise
        return written


def _csv_row(r: dict[str, Any]) -> dict[str, Any]:
    return {k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in r.items()}
