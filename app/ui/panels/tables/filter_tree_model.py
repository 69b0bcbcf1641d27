"""The filter builder's tree: the ``where`` of a Cirrus query as rows of a QAbstractItemModel.

The model wraps the client's own tree (:class:`Group` of :class:`Condition` and nested groups)
and edits it in place, so what the view shows and what the query renders are one object. The
top-level AND is the invisible root; its items are the top rows, nested groups have children.
Index ids are the Python ids of the nodes, kept alive by the tree itself.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt

from app.client.cirrus_query import Condition, Group

Index = QModelIndex | QPersistentModelIndex
Node = Condition | Group
HEADERS = ("Column / group", "Operator", "Value")


def describe_value(c: Condition) -> str:
    """A condition's value as the builder shows it."""
    if isinstance(c.value, list):
        return ", ".join(repr(v) if (not v or "," in v or v != v.strip()) else v for v in c.value)
    if c.value == "":
        return '"" (empty)'
    return "" if c.value is None else c.value


def describe_group(g: Group) -> str:
    word = "AND: all of" if g.op == "and" else "OR: any of"
    return ("NOT " if g.negate else "") + word


class FilterTreeModel(QAbstractItemModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.root = Group("and", [])
        self._nodes: dict[int, Node] = {}
        self._parents: dict[int, Group] = {}
        self._reindex()

    # ------------------------------------------------------------ tree access

    def set_where(self, where: Group) -> None:
        """Show (and from now on edit) ``where``, the top-level AND of a query."""
        self.beginResetModel()
        self.root = where
        self._reindex()
        self.endResetModel()

    def _reindex(self) -> None:
        self._nodes.clear()
        self._parents.clear()
        stack = [self.root]
        while stack:
            g = stack.pop()
            for item in g.items:
                self._nodes[id(item)] = item
                self._parents[id(item)] = g
                if isinstance(item, Group):
                    stack.append(item)

    def node(self, index: Index) -> Node:
        """The condition or group at ``index``; the root AND for an invalid index."""
        if not index.isValid():
            return self.root
        return self._nodes[index.internalId()]

    def group_at(self, index: Index) -> Group:
        """The group new items go into when ``index`` is selected: the group itself, or the
        group holding the selected condition."""
        n = self.node(index)
        return n if isinstance(n, Group) else self._parents[id(n)]

    def index_of(self, node: Node, column: int = 0) -> QModelIndex:
        if node is self.root or id(node) not in self._parents:
            return QModelIndex()
        parent = self._parents[id(node)]
        row = next(i for i, x in enumerate(parent.items) if x is node)
        return self.createIndex(row, column, id(node))

    # ------------------------------------------------------------ edits

    def insert(self, group: Group, item: Node, row: int | None = None) -> QModelIndex:
        """Add ``item`` to ``group`` (at the end by default); its index."""
        at = len(group.items) if row is None else max(0, min(row, len(group.items)))
        self.beginInsertRows(self.index_of(group), at, at)
        group.items.insert(at, item)
        self._reindex()
        self.endInsertRows()
        return self.index_of(item)

    def remove(self, index: Index) -> None:
        if not index.isValid():
            return
        n = self.node(index)
        parent = self._parents[id(n)]
        row = index.row()
        self.beginRemoveRows(self.index_of(parent), row, row)
        del parent.items[row]
        self._reindex()
        self.endRemoveRows()

    def parent_group(self, node: Node) -> Group | None:
        """The group holding ``node``; None for the root."""
        return self._parents.get(id(node))

    def move(self, node: Node, group: Group, row: int) -> QModelIndex:
        """Move ``node`` into ``group``, before its item ``row`` (counted before the move); its
        new index. Qt refuses a move into the node itself or below it: nothing changes then."""
        source = self._parents[id(node)]
        at = next(i for i, x in enumerate(source.items) if x is node)
        row = max(0, min(row, len(group.items)))
        if not self.beginMoveRows(self.index_of(source), at, at, self.index_of(group), row):
            return self.index_of(node)
        del source.items[at]
        group.items.insert(row - 1 if source is group and row > at else row, node)
        self._reindex()
        self.endMoveRows()
        return self.index_of(node)

    def node_changed(self, node: Node) -> None:
        """Tell the views that ``node``'s own fields were edited in place."""
        first = self.index_of(node, 0)
        if first.isValid():
            self.dataChanged.emit(first, self.index_of(node, len(HEADERS) - 1))

    # ------------------------------------------------------------ Qt model

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        g = self.node(parent)
        if not isinstance(g, Group) or row >= len(g.items):
            return QModelIndex()
        return self.createIndex(row, column, id(g.items[row]))

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        return self.index_of(self._parents[index.internalId()])

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        n = self.node(parent)
        return len(n.items) if isinstance(n, Group) else 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section] if 0 <= section < len(HEADERS) else None
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role not in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.ToolTipRole,
        ):
            return None
        n = self.node(index)
        col = index.column()
        if isinstance(n, Group):
            if col == 0:
                return describe_group(n)
            if col == 1 and role == Qt.ItemDataRole.DisplayRole:
                return f"{len(n.items)} item(s)"
            return None
        if col == 0:
            return n.column
        if col == 1:
            return ("not " if n.negate else "") + n.op
        return describe_value(n)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
