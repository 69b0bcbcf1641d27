"""A failed or cancelled export (services/export.py) leaves no file behind, and removing the
half-written one is disk work done on a worker thread, not on the thread running the loop
(the GUI thread in the app)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from app.client.errors import RequestError
from app.services.export import write_rows


def watch_unlinks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads that remove files (the real removal still happens)."""
    threads: list[str] = []
    real = Path.unlink

    def unlink(self: Path, missing_ok: bool = False) -> None:
        threads.append(threading.current_thread().name)
        real(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink)
    return threads


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_failed_export_is_removed_off_the_loop_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    threads = watch_unlinks(monkeypatch)
    target = tmp_path / f"out.{fmt}"

    async def read(offset: int) -> list[dict[str, Any]]:
        if offset:
            raise RequestError("the node went away")
        return [{"a": i} for i in range(10)]

    with pytest.raises(RequestError):
        asyncio.run(write_rows(target, read, 10))
    assert list(tmp_path.iterdir()) == []  # neither the file nor its .part
    assert threads and threading.main_thread().name not in threads, threads


def test_a_cancelled_export_is_removed_off_the_loop_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads = watch_unlinks(monkeypatch)
    started = asyncio.Event()

    async def read(offset: int) -> list[dict[str, Any]]:
        if offset:
            started.set()
            await asyncio.sleep(30)
        return [{"a": i} for i in range(10)]

    async def run() -> None:
        task = asyncio.ensure_future(write_rows(tmp_path / "out.csv", read, 10))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    assert list(tmp_path.iterdir()) == []
    assert threads and threading.main_thread().name not in threads, threads
