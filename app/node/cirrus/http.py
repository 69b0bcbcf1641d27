"""``GET /cirrus/search/<table>``: PostgREST 9 behaviour over the Cirrus backend."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from .backend import EXTENSION_KEY, CirrusBackend, undefined_table
from .query import QueryError, parse_query
from .stream import open_rows

RANGE_RE = re.compile(r"^\s*([0-9]{1,15})-([0-9]{0,15})\s*$")


def prepare(params: list[tuple[str, str]]) -> Any:
    """The parsed query, or None when it does not parse (``search`` reports the error)."""
    try:
        return parse_query(params)
    except QueryError:
        return None


def search(
    backend: CirrusBackend,
    table: str,
    params: list[tuple[str, str]],
    headers: dict[str, str],
    visible: set[str] | None,
) -> tuple[int, Any, dict[str, str]]:
    """(status, JSON body, headers) for one search request. A large result's body is a
    :class:`RowStream` (its first chunk read, the status and headers final)."""
    try:
        q = parse_query(params)
        rng = headers.get("range")
        if rng:
            m = RANGE_RE.match(rng.removeprefix("items="))
            if m is None:
                raise QueryError(
                    416,
                    {
                        "code": "PGRST103",
                        "message": "Requested range not satisfiable",
                        "details": f"invalid Range header {rng[:60]!r}",
                        "hint": None,
                    },
                )
            first = int(m.group(1))
            q.offset = max(q.offset, first)
            if m.group(2):
                last = int(m.group(2))
                if last < first:
                    raise QueryError(
                        416,
                        {
                            "code": "PGRST103",
                            "message": "Requested range not satisfiable",
                            "details": None,
                            "hint": None,
                        },
                    )
                n = last - first + 1
                q.limit = n if q.limit is None else min(q.limit, n)
        want_total = "count=exact" in headers.get("prefer", "").replace(" ", "")
        rows, n_rows, total = open_rows(backend, table, q, visible, want_total and not q.count)
    except QueryError as exc:
        return exc.status, exc.body, {}
    except sqlite3.OperationalError as exc:
        # a table or column created by the block being committed right now
        if "no such table" in str(exc):
            return 404, undefined_table(table.removeprefix(EXTENSION_KEY)).body, {}
        return (
            503,
            {
                "code": "PGRST000",
                "message": "the table is being updated; retry",
                "details": None,
                "hint": None,
            },
            {"Retry-After": "1"},
        )
    if q.count:
        return 200, rows, {}
    start = q.offset
    end = start + n_rows - 1
    shown_total = "*" if total is None else str(total)
    if not n_rows:
        if total is not None and start == total and total > 0:
            return 206, rows, {"Content-Range": f"*/{total}"}
        if total is not None and start > total:
            return (
                416,
                {
                    "code": "PGRST103",
                    "message": "Requested range not satisfiable",
                    "details": f"An offset of {start} was requested, but there are only "
                    f"{total} rows.",
                    "hint": None,
                },
                {"Content-Range": f"*/{total}"},
            )
        return 200, rows, {"Content-Range": f"*/{shown_total}"}
    status = 200
    if total is not None and (start > 0 or end + 1 < total):
        status = 206
    return status, rows, {"Content-Range": f"{start}-{end}/{shown_total}"}
