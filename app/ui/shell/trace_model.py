"""The call trace of a transaction as a Qt tree model (the inspector's Trace tab).

Each frame is a row whose children are its nested frames, events and storage writes in the
order they happened, then one last row: what it returned, or why it failed. Texts are the ones
``python -m app trace`` prints (app/client/traces.py), so "copy as text" and the terminal agree.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from app.client.traces import frame_end, frame_head, item_text

Index = QModelIndex | QPersistentModelIndex

FAILED = QColor("#c0392b")
UNDONE = QColor("#8a8a8a")
EVENT = QColor("#2c5d9e")
WRITE = QColor("#8a6d00")

POSITION_ROLE = Qt.ItemDataRole.UserRole + 1  # (contract, line, column) of a failure, or None
KIND_ROLE = Qt.ItemDataRole.UserRole + 2  # "call", "event", "write", "truncated", "end"


class _Node:
    """One row: a frame, an item of a frame, or a frame's end line."""

    __slots__ = ("children", "data", "kind", "parent", "row")

    def __init__(self, kind: str, data: dict[str, Any], parent: _Node | None, row: int) -> None:
        self.kind = kind
        self.data = data
        self.parent = parent
        self.row = row
        self.children: list[_Node] = []


def _build(frame: dict[str, Any], parent: _Node | None, row: int) -> _Node:
    node = _Node("call", frame, parent, row)
    for it in frame.get("items", []):
        kind = str(it.get("type", ""))
        n = len(node.children)
        child = _build(it, node, n) if kind == "call" else _Node(kind, it, node, n)
        node.children.append(child)
    node.children.append(_Node("end", frame, node, len(node.children)))
    return node


class TraceModel(QAbstractItemModel):
    """Two columns: the call (or item) and the steps its frame used."""

    HEADERS = ("Call", "Steps")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._roots: list[_Node] = []
        self.trace: dict[str, Any] | None = None

    def set_trace(self, trace: dict[str, Any] | None) -> None:
        self.beginResetModel()
        self.trace = trace
        root = trace.get("root") if isinstance(trace, dict) else None
        self._roots = [_build(root, None, 0)] if isinstance(root, dict) else []
        self.endResetModel()

    # ------------------------------------------------------------ the model

    def _node(self, index: Index) -> _Node | None:
        if not index.isValid():
            return None
        node = index.internalPointer()
        return node if isinstance(node, _Node) else None

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if column < 0 or column >= len(self.HEADERS) or row < 0:
            return QModelIndex()
        up = self._node(parent)
        rows = self._roots if up is None else up.children
        if row >= len(rows):
            return QModelIndex()
        return self.createIndex(row, column, rows[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        node = self._node(index)
        if node is None or node.parent is None:
            return QModelIndex()
        return self.createIndex(node.parent.row, 0, node.parent)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        node = self._node(parent)
        return len(self._roots) if node is None else len(node.children)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.HEADERS)
        ):
            return self.HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        node = self._node(index)
        if node is None:
            return None
        d = node.data
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 1:
                return str(d.get("steps", "")) if node.kind == "call" else None
            return self.text(node)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 0:
            pos = self._position(node)
            if pos is not None:
                return f"failed at {pos[0]} line {pos[1]}, column {pos[2]}: double-click to open"
            if node.kind == "call":
                return f"{d.get('kind', 'call')} from {d.get('sender', '?')} at {d.get('address')}"
            return None
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._colour(node)
        if role == Qt.ItemDataRole.FontRole and node.kind == "call" and self._failed(node):
            font = QFont()
            font.setBold(True)
            return font
        if role == POSITION_ROLE:
            return self._position(node)
        if role == KIND_ROLE:
            return node.kind
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    # ------------------------------------------------------------ helpers

    @staticmethod
    def text(node: _Node) -> str:
        if node.kind == "call":
            return frame_head(node.data)
        if node.kind == "end":
            return frame_end(node.data)
        return item_text(node.data)

    @staticmethod
    def _failed(node: _Node) -> bool:
        return node.data.get("status") == "failed" and node.kind in ("call", "end")

    def _colour(self, node: _Node) -> QBrush | None:
        d = node.data
        if self._failed(node):
            return QBrush(FAILED)
        if d.get("reverted") or (node.kind in ("call", "end") and d.get("status") == "reverted"):
            return QBrush(UNDONE)
        if node.kind == "event":
            return QBrush(EVENT)
        if node.kind == "write":
            return QBrush(WRITE)
        return None

    @staticmethod
    def _position(node: _Node) -> tuple[str, int, int] | None:
        if node.kind not in ("call", "end"):
            return None
        pos = (node.data.get("error") or {}).get("position")
        if not isinstance(pos, dict):
            return None
        return (str(pos.get("name", "")), int(pos.get("line", 0)), int(pos.get("column", 0)))

    def failing_index(self) -> QModelIndex:
        """The innermost failed frame (the one that made the transaction fail), or invalid."""
        if not self._roots or not self._failed(self._roots[0]):
            return QModelIndex()
        node = self._roots[0]
        while True:
            inner = [c for c in node.children if c.kind == "call" and self._failed(c)]
            if not inner:
                return self.createIndex(node.row, 0, node)
            node = inner[-1]
