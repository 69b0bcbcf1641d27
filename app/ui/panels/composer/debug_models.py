"""The Debug dock's models: the call stack of a paused run, and its variables as a lazy tree.

Variables come in scopes (Locals, Contract state, msg / block / tx); a struct, array or mapping
has a ``variablesReference`` whose children are asked for only when the row is expanded
(:meth:`VariablesModel.fetchMore`): a state with a large mapping costs one request per level
opened. Fetches go through a callback the pane gives (it runs them as tasks), never here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

Index = QModelIndex | QPersistentModelIndex
# fetch(ref, deliver): ask for the children of ``ref``; ``deliver(rows)`` once they came
Fetch = Callable[[int, Callable[[list[dict[str, Any]]], None]], None]


class StackModel(QAbstractListModel):
    """Frames innermost first, as ``GET .../frames`` lists them: ``function (file:line)``."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.frames: list[dict[str, Any]] = []

    def set_frames(self, frames: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self.frames = list(frames)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.frames)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.frames):
            return None
        f = self.frames[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            where = f"{_base(str(f.get('file', '')))}:{f.get('line', '')}"
            name, contract = str(f.get("name", "")), str(f.get("contract") or "")
            if contract and not name.startswith(contract + "."):
                name = f"{contract}.{name}"
            return f"{name}  ({where})"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{f.get('file', '')}, line {f.get('line')}, column {f.get('column')}"
        if role == Qt.ItemDataRole.UserRole:
            return f
        return None


def _base(name: str) -> str:
    return name.replace("\\", "/").rsplit("/", 1)[-1]


class _Node:
    __slots__ = ("children", "name", "parent", "ref", "row", "type", "value")

    def __init__(
        self, parent: _Node | None, row: int, name: str, value: str, type_: str, ref: int
    ) -> None:
        self.parent = parent
        self.row = row
        self.name = name
        self.value = value
        self.type = type_
        self.ref = ref
        self.children: list[_Node] | None = None if ref > 0 else []  # None: not fetched yet


class VariablesModel(QAbstractItemModel):
    """Columns: name, value, type. Top-level rows are the scopes of the chosen frame."""

    COLUMNS = ("Name", "Value", "Type")

    def __init__(self, fetch: Fetch, parent: Any = None) -> None:
        super().__init__(parent)
        self.fetch = fetch
        self.root = _Node(None, 0, "", "", "", 0)
        self._asked: set[int] = set()  # refs whose children are on their way
        self.generation = 0  # a new pause: answers for the last one are dropped

    def set_scopes(self, scopes: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self.generation += 1
        self._asked.clear()
        self.root.children = [
            _Node(self.root, i, str(s.get("name", "")), "", "", int(s.get("variablesReference", 0)))
            for i, s in enumerate(scopes)
        ]
        self.endResetModel()

    def clear(self) -> None:
        self.set_scopes([])

    def _node(self, index: Index) -> _Node:
        if not index.isValid():
            return self.root
        node = index.internalPointer()
        assert isinstance(node, _Node)
        return node

    # ------------------------------------------------------------ the model

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        node = self._node(parent)
        kids = node.children or []
        if not (0 <= row < len(kids) and 0 <= column < len(self.COLUMNS)):
            return QModelIndex()
        return self.createIndex(row, column, kids[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        p = self._node(index).parent
        if p is None or p is self.root:
            return QModelIndex()
        return self.createIndex(p.row, 0, p)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children or [])

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.COLUMNS)

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return False
        node = self._node(parent)
        return node.ref > 0 if node.children is None else bool(node.children)

    def canFetchMore(self, parent: Index) -> bool:
        if not parent.isValid() or parent.column() != 0:
            return False
        node = self._node(parent)
        return node.children is None and node.ref not in self._asked

    def fetchMore(self, parent: Index) -> None:
        if not self.canFetchMore(parent):
            return
        node = self._node(parent)
        self._asked.add(node.ref)
        generation = self.generation
        persistent = QPersistentModelIndex(parent)

        def deliver(rows: list[dict[str, Any]]) -> None:
            if generation != self.generation or not persistent.isValid():
                return
            index = self.index(persistent.row(), 0, persistent.parent())
            target = self._node(index)
            if target.children is not None:
                return
            if rows:
                self.beginInsertRows(index, 0, len(rows) - 1)
            target.children = [
                _Node(
                    target,
                    i,
                    str(r.get("name", "")),
                    str(r.get("value", "")),
                    str(r.get("type", "")),
                    int(r.get("variablesReference", 0)),
                )
                for i, r in enumerate(rows)
            ]
            if rows:
                self.endInsertRows()

        self.fetch(node.ref, deliver)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = self._node(index)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return (node.name, node.value, node.type)[index.column()]
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.COLUMNS)
        ):
            return self.COLUMNS[section]
        return None

    def find(self, name: str, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        """The row named ``name`` under ``parent`` (tests, and keeping the view's place)."""
        for row in range(self.rowCount(parent)):
            ix = self.index(row, 0, parent)
            if self._node(ix).name == name:
                return ix
        return QModelIndex()
