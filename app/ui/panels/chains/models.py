"""Models of the chain browser: the tree of chains, and flat tables of a chain's members,
balances, contracts, membership events and transactions; editable member and balance rows
for the creation wizard.

The tree is a real ``QAbstractItemModel`` (main chain at the top, private chains under their
parents); every list that can grow is a model, never a ``QStandardItemModel``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)

from app.client.abi_types import parse_int
from app.client.models import Transaction
from app.client.units import amount_tooltip, format_amount
from app.services.account import describe_tx
from app.services.chains import (
    ChainBalance,
    ChainContract,
    ChainInfo,
    ChainMember,
    MembershipEvent,
)
from app.ui.models.table_model import RowsTableModel

Index = QModelIndex | QPersistentModelIndex
DISPLAY = Qt.ItemDataRole.DisplayRole
TOOLTIP = Qt.ItemDataRole.ToolTipRole
CHAIN_ID_ROLE = Qt.ItemDataRole.UserRole  # the chain ID of a tree row ("" = main chain)
MAIN_CHAIN = "Main chain"
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def members_summary(members: tuple[ChainMember, ...] | list[ChainMember], limit: int = 3) -> str:
    shown = [m.describe() for m in members if m.access][:limit]
    more = sum(1 for m in members if m.access) - len(shown)
    return "; ".join(shown) + (f"; +{more} more" if more > 0 else "") if shown else "nobody"


# ---------------------------------------------------------------------------- tree


class _Node:
    """One row of the tree; ``chain`` None is the main chain (or the invisible root)."""

    __slots__ = ("chain", "children", "parent", "row")

    def __init__(self, chain: ChainInfo | None, parent: _Node | None, row: int) -> None:
        self.chain = chain
        self.parent = parent
        self.row = row
        self.children: list[_Node] = []


class ChainTreeModel(QAbstractItemModel):
    """The chains a user can access: the main chain at the top, each private chain under its
    parent; a chain whose parent is not visible (or absent) sits under the main chain."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("Chain", "ID", "Members")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = _Node(None, None, 0)
        self._main = _Node(None, self._root, 0)
        self._root.children = [self._main]
        self._by_id: dict[str, _Node] = {}
        self.orphans: set[str] = set()  # chains whose parent chain is not visible

    # ------------------------------------------------------------ content

    def set_chains(self, chains: list[ChainInfo]) -> None:
        self.beginResetModel()
        self._main.children = []
        self._by_id = {}
        self.orphans = set()
        known = {c.id: c for c in chains if c.id}
        for cid, c in known.items():
            self._by_id[cid] = _Node(c, None, 0)
        for cid, node in self._by_id.items():
            parent_id = known[cid].parent
            parent = self._by_id.get(parent_id) if parent_id else None
            if parent is None or self._cycles(cid, known):
                if parent_id:
                    self.orphans.add(cid)
                parent = self._main
            node.parent = parent
            parent.children.append(node)
        self._sort(self._main)
        self.endResetModel()

    def _cycles(self, cid: str, known: dict[str, ChainInfo]) -> bool:
        """A parent chain that leads back to ``cid`` (a broken node): break the loop here."""
        seen = {cid}
        p = known[cid].parent
        while p and p in known:
            if p in seen:
                return True
            seen.add(p)
            p = known[p].parent
        return False

    def _sort(self, node: _Node) -> None:
        node.children.sort(
            key=lambda n: (n.chain.label.lower(), n.chain.id) if n.chain else ("", "")
        )
        for i, child in enumerate(node.children):
            child.row = i
            self._sort(child)

    def chain(self, chain_id: str) -> ChainInfo | None:
        node = self._by_id.get(chain_id)
        return node.chain if node is not None else None

    def chains(self) -> list[ChainInfo]:
        return [n.chain for n in self._by_id.values() if n.chain is not None]

    def chain_at(self, index: Index) -> ChainInfo | None:
        """The chain of a row; None for the main chain or no row."""
        node = self._node(index)
        return node.chain if node is not self._root else None

    def index_of(self, chain_id: str) -> QModelIndex:
        """The row of a chain ("" = the main chain); invalid when it is not in the tree."""
        node = self._by_id.get(chain_id) if chain_id else self._main
        if node is None:
            return QModelIndex()
        return self.createIndex(node.row, 0, node)

    def path_of(self, chain_id: str) -> list[str]:
        """Labels from the main chain down to ``chain_id``."""
        node = self._by_id.get(chain_id)
        out: list[str] = []
        while node is not None and node is not self._root:
            out.append(node.chain.title() if node.chain else MAIN_CHAIN)
            node = node.parent
        return list(reversed(out))

    # ------------------------------------------------------------ QAbstractItemModel

    def _node(self, index: Index) -> _Node:
        if not index.isValid():
            return self._root
        node = index.internalPointer()
        assert isinstance(node, _Node)
        return node

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        node = self._node(parent)
        return self.createIndex(row, column, node.children[row])

    def parent(self, child: Index | None = None) -> Any:
        if child is None:  # QObject.parent()
            return super().parent()
        if not child.isValid():
            return QModelIndex()
        node = self._node(child).parent
        if node is None or node is self._root:
            return QModelIndex()
        return self.createIndex(node.row, 0, node)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DISPLAY) -> Any:
        if role == DISPLAY and orientation == Qt.Orientation.Horizontal:
            return self.COLUMNS[section] if 0 <= section < len(self.COLUMNS) else None
        return None

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if not index.isValid():
            return None
        node = self._node(index)
        c = node.chain
        col = index.column()
        if role == CHAIN_ID_ROLE:
            return c.id if c else ""
        if role == DISPLAY:
            if c is None:
                return (MAIN_CHAIN, "", "everyone on the node")[col]
            return (c.title(), c.id, members_summary(c.members))[col]
        if role == TOOLTIP:
            if c is None:
                return "The main chain: every user of the node sees it"
            parent = "the main chain" if not c.parent else c.parent
            note = " (not visible to you)" if c.id in self.orphans else ""
            return f"{c.title()}\nID {c.id}\nparent {parent}{note}\nmembers: " + members_summary(
                c.members, 20
            )
        return None


# ---------------------------------------------------------------------------- chain tables


class MembersModel(RowsTableModel):
    COLUMNS = ("Organization", "Unit", "Common name", "Access")

    def set_members(self, members: tuple[ChainMember, ...]) -> None:
        self.set_rows(members)

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        m = self.row_object(index.row()) if index.isValid() else None
        if not isinstance(m, ChainMember):
            return None
        if role in (DISPLAY, TOOLTIP):
            values = (
                m.org or "(any)",
                m.unit or "(any)",
                m.common_name or "(any)",
                "yes" if m.access else "no",
            )
            return values[index.column()] if role == DISPLAY else m.describe()
        return None


class BalancesModel(RowsTableModel):
    COLUMNS = ("Address", "Balance", "Account")

    def set_balances(self, balances: tuple[ChainBalance, ...], names: dict[str, str]) -> None:
        self.set_rows(balances, names)

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        b = self.row_object(index.row()) if index.isValid() else None
        if not isinstance(b, ChainBalance):
            return None
        if role == DISPLAY:
            who = "governance contract" if b.code_hash else self.names.get(b.address, "")
            return (b.address, format_amount(b.balance), who)[index.column()]
        if role == TOOLTIP and index.column() == 1:
            return amount_tooltip(b.balance)
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 1:
            return RIGHT
        return None


class ContractsModel(RowsTableModel):
    COLUMNS = ("Contract", "Address", "Created")

    def set_contracts(self, contracts: list[ChainContract]) -> None:
        self.set_rows(contracts)

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        c = self.row_object(index.row()) if index.isValid() else None
        if not isinstance(c, ChainContract):
            return None
        if role == DISPLAY:
            created = (
                datetime.fromtimestamp(c.created_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")
                if c.created_ms > 0
                else ""
            )
            return (c.name, c.address, created)[index.column()]
        if role == Qt.ItemDataRole.UserRole:
            return c
        return None


class EventsModel(RowsTableModel):
    COLUMNS = ("Block", "Time", "Change", "Event", "Contract", "Sender", "Transaction")

    def set_events(self, events: list[MembershipEvent], names: dict[str, str]) -> None:
        self.set_rows(events, names)

    def event_at(self, row: int) -> MembershipEvent | None:
        e = self.row_object(row)
        return e if isinstance(e, MembershipEvent) else None

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        e = self.event_at(index.row()) if index.isValid() else None
        if e is None:
            return None
        if role == DISPLAY:
            return (
                str(e.block_number) if e.block_number >= 0 else "",
                e.timestamp,
                e.change(),
                e.event,
                f"{e.contract} {e.address[:8]}…",
                self.names.get(e.sender, e.sender),
                e.tx_hash,
            )[index.column()]
        if role == TOOLTIP:
            args = ", ".join(f"{k}={v!r}" for k, v in e.args)
            return f"{e.event}({args}) by {e.sender}\ntransaction {e.tx_hash}"
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 0:
            return RIGHT
        return None


class ChainTransactionsModel(RowsTableModel):
    COLUMNS = ("Hash", "Type", "From", "Block", "Time")

    def set_transactions(self, txs: list[Transaction], names: dict[str, str]) -> None:
        self.set_rows(txs, names)

    def transaction(self, row: int) -> Transaction | None:
        t = self.row_object(row)
        return t if isinstance(t, Transaction) else None

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        t = self.transaction(index.row()) if index.isValid() else None
        if t is None:
            return None
        if role == DISPLAY:
            return (
                t.hash,
                describe_tx(t, {}, {}),  # the account panel's words: "Chain created", "Call: f()"
                t.sender,
                str(t.block_number) if t.block_number >= 0 else "pending",
                t.timestamp,
            )[index.column()]
        if role == TOOLTIP and index.column() == 2:
            return self.names.get(t.sender, t.sender)
        if role == TOOLTIP and index.column() == 0:
            return f"{t.hash}\ndouble-click to inspect"
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 3:
            return RIGHT
        return None


# ---------------------------------------------------------------------------- wizard rows


class ChoiceModel(QAbstractListModel):
    """Items of a combo box that can grow (chains, contracts, identities): label and data
    (``UserRole``, what ``QComboBox.currentData`` returns), without a QStandardItemModel."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._items: list[tuple[str, Any]] = []

    def set_items(self, items: list[tuple[str, Any]]) -> None:
        self.beginResetModel()
        self._items = list(items)
        self.endResetModel()

    def items(self) -> list[tuple[str, Any]]:
        return list(self._items)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        label, value = self._items[index.row()]
        if role in (DISPLAY, Qt.ItemDataRole.EditRole, TOOLTIP):
            return label
        if role == Qt.ItemDataRole.UserRole:
            return value
        return None


class MemberRowsModel(RowsTableModel):
    """The wizard's member entries: organization, unit, common name as editable text and
    access as a check box."""

    COLUMNS = ("Organization", "Unit", "Common name", "Access")

    def add(self, member: ChainMember) -> int:
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append([member.org, member.unit, member.common_name, member.access])
        self.endInsertRows()
        return row

    def remove(self, row: int) -> None:
        if 0 <= row < len(self._rows):
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._rows[row]
            self.endRemoveRows()

    def members(self) -> list[ChainMember]:
        return [ChainMember(o.strip(), u.strip(), n.strip(), bool(a)) for o, u, n, a in self._rows]

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if index.column() == 3:
            return base | Qt.ItemFlag.ItemIsUserCheckable
        return base | Qt.ItemFlag.ItemIsEditable

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        col = index.column()
        if col == 3:
            if role == Qt.ItemDataRole.CheckStateRole:
                return Qt.CheckState.Checked if row[3] else Qt.CheckState.Unchecked
            if role == DISPLAY:
                return "may access" if row[3] else "no access"
            return None
        if role in (DISPLAY, Qt.ItemDataRole.EditRole):
            return row[col]
        if role == TOOLTIP:
            return "empty = any" if not row[col] else row[col]
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return False
        col = index.column()
        if col == 3 and role == Qt.ItemDataRole.CheckStateRole:
            checked = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, 2, True)
            self._rows[index.row()][3] = checked
        elif col < 3 and role == Qt.ItemDataRole.EditRole:
            self._rows[index.row()][col] = str(value)
        else:
            return False
        self.dataChanged.emit(index, index, [role])
        return True


class BalanceRowsModel(RowsTableModel):
    """The wizard's initial balances: address and amount (units) as editable text."""

    COLUMNS = ("Address", "Balance")

    def add(self, address: str, amount: int | str) -> int:
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append([address, str(amount)])
        self.endInsertRows()
        return row

    def remove(self, row: int) -> None:
        if 0 <= row < len(self._rows):
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._rows[row]
            self.endRemoveRows()

    def balances(self) -> tuple[list[tuple[str, int]], list[str]]:
        """(address, amount) rows, and the rows whose amount is not a whole number."""
        out: list[tuple[str, int]] = []
        problems: list[str] = []
        for i, (address, text) in enumerate(self._rows, 1):
            n = parse_int(text.strip()) if text.strip() else 0
            if n is None:
                problems.append(f"balance {i}: {text!r} is not a whole number (1000, 1e18, 0x2a)")
                continue
            out.append((address.strip(), n))
        return out, problems

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        if role in (DISPLAY, Qt.ItemDataRole.EditRole):
            return self._rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 1:
            return RIGHT
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        if not 0 <= index.row() < len(self._rows):
            return False
        self._rows[index.row()][index.column()] = str(value)
        self.dataChanged.emit(index, index, [role])
        return True
