"""A table model of transactions (the account's recent ones, an address's, a block's).

Rows say what a transaction did ("Chain created: Acme parent", not the node's "GENESIS") and on
which chain; a chain filter keeps one chain's rows (the model filters itself, so row numbers
stay the model's own and views need no proxy). Times read as the Explorer's do ("2 min ago", the
exact time in the tooltip), kept current by the Explorer's shared clock.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from app.client.models import Transaction
from app.client.units import amount_tooltip, format_amount
from app.services.account import ChainRef, chain_name, describe_tx
from app.services.names import NameService
from app.ui.models.table_model import RowsTableModel
from app.ui.panels.explorer.list_tools import Clock, exact, parse_time, relative

Index = QModelIndex | QPersistentModelIndex
COLUMNS = (
    "Block",
    "Type",
    "Direction",
    "Counterparty",
    "Value",
    "Chain",
    "Status",
    "Hash",
    "Time",
)
COUNTERPARTY, VALUE, CHAIN, HASH, TIME = 3, 4, 5, 7, 8
ALL_CHAINS: None = None  # chain filter values: None = every chain, "" = the main chain, or an ID
MAIN = ""


class TransactionsModel(RowsTableModel):
    COLUMNS = COLUMNS

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Transaction] = []
        self._all: list[Transaction] = []
        self.address = ""
        self.names: dict[str, str] = {}  # address -> contact or user name
        self.chains: dict[str, ChainRef] = {}
        self.created: dict[str, str] = {}  # GENESIS tx hash -> the chain it created
        self.chain_filter: str | None = ALL_CHAINS
        self.name_service: NameService | None = None
        Clock.shared().tick.connect(self._tick)  # "2 min ago" stays true

    def _tick(self) -> None:
        if self._rows:
            last = len(self._rows) - 1
            self.dataChanged.emit(
                self.index(0, TIME), self.index(last, TIME), [Qt.ItemDataRole.DisplayRole]
            )

    def set_name_service(self, service: NameService) -> None:
        """Contracts' and users' names from the app's cache, repainted as they arrive."""
        self.name_service = service
        service.resolved.connect(self._renamed)  # a bound method: let go when deleted

    def _renamed(self, *_addresses: object) -> None:
        if self._rows:
            self.dataChanged.emit(
                self.index(0, COUNTERPARTY), self.index(len(self._rows) - 1, COUNTERPARTY)
            )

    def _name(self, address: str, chain: str = "") -> str:
        service = self.name_service
        known = service.lookup(address, chain) if service is not None and address else None
        return known.text if known is not None else self.names.get(address.lower(), "")

    def set_names(self, names: dict[str, str]) -> None:
        """Names shown beside counterparties' addresses (contacts, the node's users)."""
        self.names = dict(names)
        if self._rows:
            self.dataChanged.emit(
                self.index(0, COUNTERPARTY), self.index(len(self._rows) - 1, COUNTERPARTY)
            )

    def set_transactions(
        self,
        address: str,
        txs: list[Transaction],
        chains: dict[str, ChainRef] | None = None,
        created: dict[str, str] | None = None,
    ) -> None:
        """Replace the rows; a same-content update emits nothing, so views keep selection."""
        chains = dict(chains or {})
        created = dict(created or {})
        if (address, txs, chains, created) == (self.address, self._all, self.chains, self.created):
            return
        self.beginResetModel()
        self.address = address
        self._all = list(txs)
        self.chains, self.created = chains, created
        self._rows = self._filtered()
        self.endResetModel()

    def set_chain_filter(self, chain: str | None) -> None:
        """Show every chain (None), the main chain ("") or one private chain (its ID)."""
        if chain == self.chain_filter:
            return
        self.beginResetModel()
        self.chain_filter = chain
        self._rows = self._filtered()
        self.endResetModel()

    def _filtered(self) -> list[Transaction]:
        if self.chain_filter is None:
            return list(self._all)
        return [t for t in self._all if (t.chain_id or "") == self.chain_filter]

    @property
    def total(self) -> int:
        """Rows before the chain filter."""
        return len(self._all)

    def chain_ids(self) -> list[str]:
        """The private chains the transactions ran on, in order of first appearance."""
        return list(dict.fromkeys(t.chain_id for t in self._all if t.chain_id))

    def chain_title(self, chain_id: str | None) -> str:
        return chain_name(chain_id, self.chains)

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
            created = "(new chain)" if tx.kind == "GENESIS" else "(new contract)"
            other = tx.sender if direction == "in" else (tx.to or created)
            name = self._name(other, tx.chain_id or "") if not other.startswith("(") else ""
            if role == Qt.ItemDataRole.ToolTipRole:
                return self._tooltip(tx, col, f"{name}\n{other}" if name else other)
            if name:
                other = f"{name} ({other[:8]}…)"
            values: tuple[str, ...] = (
                str(tx.block_number) if tx.block_number >= 0 else "",
                describe_tx(tx, self.chains, self.created),
                direction,
                other,
                format_amount(tx.value),
                chain_name(tx.chain_id, self.chains),
                tx.status or "",
                tx.hash,
                relative(parse_time(tx.timestamp)) or tx.timestamp,
            )
            return values[col] if 0 <= col < len(values) else None
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, VALUE):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return tx
        return None

    def _tooltip(self, tx: Transaction, col: int, other: str) -> str | None:
        if col == COUNTERPARTY:
            return other
        if col == HASH:
            return tx.hash
        if col == VALUE:
            return amount_tooltip(tx.value)
        if col == CHAIN:
            return tx.chain_id or "the main chain"
        if col == TIME:
            return exact(parse_time(tx.timestamp)) or tx.timestamp
        if col == 1:
            return f"{describe_tx(tx, self.chains, self.created)} (node type: {tx.kind})"
        return None
