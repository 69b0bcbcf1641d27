"""A table model of transactions (the account's recent ones), newest first."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from app.client.models import Transaction
from app.services.account import format_balance
from app.ui.models.table_model import RowsTableModel

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("Block", "Type", "Direction", "Counterparty", "Value", "Status", "Hash", "Time")


class TransactionsModel(RowsTableModel):
    COLUMNS = COLUMNS

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Transaction] = []
        self.address = ""
        self.names: dict[str, str] = {}  # address -> contact or user name

    def set_names(self, names: dict[str, str]) -> None:
        """Names shown beside counterparties' addresses (contacts, the node's users)."""
        self.names = dict(names)
        if self._rows:
            self.dataChanged.emit(self.index(0, 3), self.index(len(self._rows) - 1, 3))

    def set_transactions(self, address: str, txs: list[Transaction]) -> None:
        """Replace the rows; a same-content update emits nothing, so views keep selection."""
        if address == self.address and txs == self._rows:
            return
        self.beginResetModel()
        self.address = address
        self._rows = list(txs)
        self.endResetModel()

    def transaction(self, row: int) -> Transaction | None:
        tx = self.row_object(row)
        return tx if isinstance(tx, Transaction) else None

    def _direction(self, tx: Transaction) -> str:
        mine = self.address.lower()
        if tx.sender.lower() == mine and (tx.to or "").lower() == mine:
            return "self"
        return "out" if tx.sender.lower() == mine else "in"

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        tx = self._rows[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            direction = self._direction(tx)
            other = tx.sender if direction == "in" else (tx.to or "(new contract)")
            name = self.names.get(other.lower())
            if name and role == Qt.ItemDataRole.DisplayRole:
                other = f"{name} ({other[:8]}…)"
            values: tuple[str, ...] = (
                str(tx.block_number) if tx.block_number >= 0 else "",
                tx.kind,
                direction,
                other,
                format_balance(tx.value),
                tx.status or "",
                tx.hash,
                tx.timestamp,
            )
            if role == Qt.ItemDataRole.ToolTipRole:
                return values[col] if col in (3, 6) else None
            return values[col]
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return tx
        return None
