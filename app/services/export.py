"""Writes rows read a page at a time to CSV or JSON: the Tables panel's export and every
Explorer list's. The file appears only when complete: rows go to a temporary file renamed at
the end; a cancelled or failed export leaves nothing behind. Disk writes run on a worker
thread, never on the GUI thread."""

from __future__ import annotations

import asyncio
import csv
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from app.client.errors import RequestError

# one page of rows from ``offset`` (an empty or short page ends the export)
PageReader = Callable[[int], Awaitable[list[dict[str, Any]]]]


def export_format(path: Path, fmt: str = "") -> str:
    fmt = fmt or ("json" if path.suffix.lower() == ".json" else "csv")
    if fmt not in ("csv", "json"):
        raise RequestError(f"cannot export as {fmt!r}: choose csv or json")
    return fmt


async def write_rows(
    path: Path,
    read: PageReader,
    page: int,
    fmt: str = "",
    columns: list[str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Every row ``read`` gives, page by page, into ``path``; returns how many were written.
    ``columns``: the CSV's columns (default: the keys of the first page's rows)."""
    fmt = export_format(path, fmt)
    tmp = path.with_name(f".{path.name}.part")
    out = await asyncio.to_thread(tmp.open, "w", encoding="utf-8", newline="")
    written = 0
    cols: list[str] = list(columns or [])
    writer: Any = None
    try:
        if fmt == "json":
            await asyncio.to_thread(out.write, "[")
        while True:
            rows = await read(written)
            if not rows:
                break
            if fmt == "csv":
                if writer is None:
                    cols = cols or list(dict.fromkeys(k for r in rows for k in r))
                    writer = csv.DictWriter(out, cols, extrasaction="ignore")
                    await asyncio.to_thread(writer.writeheader)
                await asyncio.to_thread(writer.writerows, [_csv_row(r) for r in rows])
            else:
                chunk = ",\n".join(json.dumps(r) for r in rows)
                await asyncio.to_thread(out.write, ("," if written else "\n") + chunk)
            written += len(rows)
            if progress is not None:
                progress(written)
            if len(rows) < page:
                break
        if fmt == "json":
            await asyncio.to_thread(out.write, "\n]\n")
        await asyncio.to_thread(out.close)
        await asyncio.to_thread(os.replace, tmp, path)
    except BaseException:
        # the half-written file is closed and removed on a worker thread too (shielded: a
        # second cancel while it runs does not leave it behind)
        await asyncio.shield(asyncio.to_thread(_discard, out, tmp))
        raise
    return written


def _discard(out: Any, tmp: Path) -> None:
    out.close()
    tmp.unlink(missing_ok=True)


def _csv_row(r: dict[str, Any]) -> dict[str, Any]:
    return {k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in r.items()}
