"""Watches submitted transactions until they complete: one results request per tick for all."""

from __future__ import annotations

import asyncio
import logging

from PySide6.QtCore import QObject, Signal

from app.client.errors import StratoError
from app.client.http import StratoClient
from app.client.models import TxResult

from .inspector import background

log = logging.getLogger("stratoscope.services")


class PendingTracker(QObject):
    completed = Signal(object)  # TxResult, once per hash, when no longer Pending
    count_changed = Signal(int)

    def __init__(
        self, client: StratoClient | None, interval: float = 0.5, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.client = client
        self.interval = interval
        self._pending: dict[str, str] = {}  # hash -> label
        self._wake = asyncio.Event()

    @property
    def hashes(self) -> list[str]:
        return list(self._pending)

    def track(self, tx_hash: str, label: str = "") -> None:
        if tx_hash not in self._pending:
            self._pending[tx_hash] = label
            self.count_changed.emit(len(self._pending))
            self._wake.set()

    async def tick(self) -> list[TxResult]:
        """Poll once; returns the results that completed in this tick."""
        hashes = list(self._pending)
        if not hashes or self.client is None:
            return []
        results = await self.client.results(hashes)
        done = [r for r in results if not r.pending and r.hash in self._pending]
        for r in done:
            del self._pending[r.hash]
        if done:
            self.count_changed.emit(len(self._pending))
            for r in done:
                self.completed.emit(r)
        return done

    async def run(self) -> None:
        """Poll while something is pending; sleeps on an event when nothing is."""
        with background("transaction tracker"):
            while True:
                if not self._pending:
                    self._wake.clear()
                    await self._wake.wait()
                try:
                    await self.tick()
                except StratoError as exc:  # the node is away: keep the hashes, try later
                    log.info("polling results failed: %s", exc)
                await asyncio.sleep(self.interval)
