"""What a transaction did, in the account panel's words, for every list of the app: "Asset
created: Car (CarDemo)", "Application created: CarDemo", "Chain created: …" where the node says
``GENESIS``; "Contract created: Counter", "Call: add()", "Transfer" otherwise.

A ``GENESIS`` row needs the chain it created: the private chains the user sees are read once
(one request, off the GUI thread) and again only when a creation no chain claims shows up;
until they arrive such a row reads "Chain created"."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.client.models import Transaction

from .account import ChainRef, describe_tx
from .chains import all_chains
from .session import Session
from .tasks import TaskRegistry

log = logging.getLogger("stratoscope.services")


def as_transaction(row: Any) -> Transaction:
    """A transaction-like row (the Explorer's ``TxRow``) as the account panel's model."""
    kind = str(row.kind)
    label = str(getattr(row, "label", "") or "")
    metadata = {"funcName": label} if kind == "FunctionCall" else {"name": label}
    return Transaction(
        str(row.hash), str(row.sender), str(row.to or "") or None, kind,
        int(row.block_number), str(row.timestamp), int(row.value), str(row.status or ""),
        str(getattr(row, "chain", "") or "") or None, metadata,
    )  # fmt: skip


class TxWords(QObject):
    """Signals: changed(): chains were learnt (rows naming a creation read better now)."""

    changed = Signal()

    def __init__(
        self, session: Session, tasks: TaskRegistry, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.tasks = tasks
        self.chains: dict[str, ChainRef] = {}
        self.created: dict[str, str] = {}  # GENESIS tx hash -> the chain it created
        self._unmatched: set[str] = set()
        self._task: asyncio.Task[Any] | None = None
        session.user_changed.connect(self._forget)
        session.state_changed.connect(self._forget)

    def _forget(self, *_args: object) -> None:
        self.chains, self.created, self._unmatched = {}, {}, set()

    def describe(self, row: Any) -> str:
        """The row's words; a creation not known yet is looked up (``changed`` follows)."""
        tx = as_transaction(row)
        if tx.kind == "GENESIS" and tx.hash not in self.created:
            self._learn(tx.hash)
        return describe_tx(tx, self.chains, self.created)

    def describe_transaction(self, tx: Transaction) -> str:
        """The same words for the node's own transaction model (the inspector's Type row)."""
        if tx.kind == "GENESIS" and tx.hash not in self.created:
            self._learn(tx.hash)
        return describe_tx(tx, self.chains, self.created)

    def _learn(self, tx_hash: str) -> None:
        if tx_hash in self._unmatched or self.session.client is None:
            return
        if self._task is not None and not self._task.done():
            return
        self._unmatched.add(tx_hash)  # asked once: a chain we cannot see stays unnamed
        self._task = self.tasks.start(
            "Naming chain creations", self._read(), self._done, self._failed, background="names"
        )

    async def _read(self) -> list[Any]:
        client = self.session.client
        if client is None:
            return []
        return list(await all_chains(client))

    def _done(self, found: list[Any]) -> None:
        for info in found:
            self.chains[info.id] = ChainRef(info.id, info.label, info.parent, info.governance)
            if info.creation_tx:
                self.created[info.creation_tx] = info.id
                self._unmatched.discard(info.creation_tx)
        if found:
            self.changed.emit()

    def _failed(self, text: str) -> None:
        log.info("chain names unavailable: %s", text)
