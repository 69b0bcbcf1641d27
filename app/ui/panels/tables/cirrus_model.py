"""A lazy table model of one Cirrus query: pages fetched as the view needs them, never all rows.

The row count is the query's total (``select=count``); ``data`` for a row whose page is not
loaded answers "…" and asks for that page (a few requests at a time, each page once); a bounded
cache of pages keeps memory flat however far the user scrolls. Sorting a column re-runs the query
with ``order``.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from app.client.cirrus_query import STANDARD_COLUMNS, CirrusQuery, Order
from app.services.cirrus import CirrusService
from app.services.tasks import TaskRegistry
from app.ui.widgets.common import while_alive

Index = QModelIndex | QPersistentModelIndex
PAGE_SIZE = 200
MAX_PAGES = 60  # 12,000 rows kept at most
MAX_IN_FLIGHT = 4
LOADING = "…"
# columns every contract row has: a joined row's summary shows its own fields first
STANDARD = frozenset(STANDARD_COLUMNS)


class CirrusTableModel(QAbstractTableModel):
    """Signals:
    total_changed(int): the query's total row count is known.
    failed(str): a page or the count could not be read (the server's message).
    page_loaded(int): a page (its number) arrived.
    """

    total_changed = Signal(int)
    failed = Signal(str)
    page_loaded = Signal(int)

    def __init__(self, cirrus: CirrusService, tasks: TaskRegistry, parent: Any = None) -> None:
        super().__init__(parent)
        self.cirrus = cirrus
        self.tasks = tasks
        self.query: CirrusQuery | None = None
        self.columns: list[str] = []
        self.total: int | None = None
        self.pages: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()
        self._in_flight: set[int] = set()
        self._wanted: list[int] = []
        self._generation = 0  # answers for an older query are dropped
        self.expanded: set[str] = set()  # joined tables shown as one column per field

    # ------------------------------------------------------------ query

    def set_query(self, query: CirrusQuery) -> None:
        self.beginResetModel()
        self._generation += 1
        self.query = query
        self.columns = list(query.select) if query.select else []
        joined = {e.table for e in query.embeds}
        self.expanded &= joined
        self.total = None
        self.pages.clear()
        self._in_flight.clear()
        self._wanted.clear()
        self.endResetModel()
        gen = self._generation
        self.tasks.start(
            "Counting rows",
            self.cirrus.count(query),
            on_done=while_alive(self, lambda n: self._counted(gen, n)),
            on_error=while_alive(self, self.failed.emit),
        )
        self._request(0)

    def _counted(self, gen: int, total: int) -> None:
        if gen != self._generation:
            return
        loaded = self._loaded_rows()
        if total > loaded:
            self.beginInsertRows(QModelIndex(), loaded, total - 1)
            self.total = total
            self.endInsertRows()
        elif total < loaded:  # rows vanished between the page and the count
            self.beginRemoveRows(QModelIndex(), total, loaded - 1)
            self.total = total
            self.endRemoveRows()
        else:
            self.total = total
        self.total_changed.emit(total)

    def _loaded_rows(self) -> int:
        if self.total is not None:
            return self.total
        first = self.pages.get(0)
        return len(first) if first is not None else 0

    # ------------------------------------------------------------ pages

    def _request(self, page: int) -> None:
        if page in self.pages or page in self._in_flight or self.query is None:
            return
        if len(self._in_flight) >= MAX_IN_FLIGHT:
            if page not in self._wanted:
                self._wanted.append(page)
                del self._wanted[:-MAX_IN_FLIGHT]  # only the latest wishes (the visible rows)
            return
        self._in_flight.add(page)
        gen = self._generation
        self.tasks.start(
            "Reading rows",
            self.cirrus.page(self.query, page * PAGE_SIZE, PAGE_SIZE),
            on_done=while_alive(self, lambda rows: self._arrived(gen, page, rows)),
            on_error=while_alive(self, lambda text: self._page_failed(gen, page, text)),
        )

    def _page_failed(self, gen: int, page: int, text: str) -> None:
        if gen == self._generation:
            self._in_flight.discard(page)
            self.failed.emit(text)

    def _arrived(self, gen: int, page: int, rows: list[dict[str, Any]]) -> None:
        if gen != self._generation:
            return
        self._in_flight.discard(page)
        new_columns = [
            k for r in rows for k in r if k not in self.columns and k not in self.expanded
        ]
        if new_columns:
            first = len(self.columns)
            unique = list(dict.fromkeys(new_columns))
            self.beginInsertColumns(QModelIndex(), first, first + len(unique) - 1)
            self.columns += unique
            self.endInsertColumns()
        if page == 0 and self.total is None and rows:
            # the count is not known yet: the first page's rows are the rows so far
            self.beginInsertRows(QModelIndex(), 0, len(rows) - 1)
            self.pages[0] = rows
            self.endInsertRows()
        else:
            self.pages[page] = rows
        self.pages.move_to_end(page)
        while len(self.pages) > MAX_PAGES:
            self.pages.popitem(last=False)
        first_row = page * PAGE_SIZE
        last_row = min(first_row + PAGE_SIZE, self.rowCount()) - 1
        if last_row >= first_row and self.columns:
            self.dataChanged.emit(
                self.index(first_row, 0), self.index(last_row, len(self.columns) - 1)
            )
        self.page_loaded.emit(page)
        while self._wanted and len(self._in_flight) < MAX_IN_FLIGHT:
            self._request(self._wanted.pop())

    def row(self, row: int) -> dict[str, Any] | None:
        """The row's values when its page is loaded (None otherwise, and the page is asked for)."""
        page = self.pages.get(row // PAGE_SIZE)
        if page is None:
            self._request(row // PAGE_SIZE)
            return None
        self.pages.move_to_end(row // PAGE_SIZE)
        i = row % PAGE_SIZE
        return page[i] if i < len(page) else None

    # ------------------------------------------------------------ Qt model

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._loaded_rows()

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.columns[section] if 0 <= section < len(self.columns) else None
        return str(section + 1)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role not in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.ToolTipRole,
        ):
            return None
        if not (0 <= index.row() < self.rowCount() and 0 <= index.column() < len(self.columns)):
            return None
        r = self.row(index.row())
        if r is None:
            return LOADING
        v = self.value(r, self.columns[index.column()])
        if isinstance(v, dict):  # a joined row, folded into one cell until expanded
            if role == Qt.ItemDataRole.ToolTipRole:
                return "\n".join(f"{k}: {text(x)}" for k, x in v.items())
            own = [k for k in v if k not in STANDARD] + [k for k in v if k in STANDARD]
            return "▸ " + ", ".join(f"{k}={text(v[k])}" for k in own[:4])
        return text(v)

    def value(self, row: dict[str, Any], column: str) -> Any:
        """A row's value in a column; ``Table.col`` reads a field of an expanded join."""
        if column in row or "." not in column:
            return row.get(column)
        table, _, field = column.rpartition(".")
        joined = row.get(table) if table in self.expanded else None
        return joined.get(field) if isinstance(joined, dict) else None

    def is_join(self, column: int) -> bool:
        """True when the column holds a joined row (a nested cell that can be expanded)."""
        if not 0 <= column < len(self.columns) or self.query is None:
            return False
        return self.columns[column] in {e.table for e in self.query.embeds}

    def expand(self, column: int) -> None:
        """Show a joined table's fields as columns ``Table.field`` in place of its cell."""
        if not self.is_join(column):
            return
        table = self.columns[column]
        fields: list[str] = []
        for page in self.pages.values():
            for r in page:
                joined = r.get(table)
                if isinstance(joined, dict):
                    fields.extend(k for k in joined if k not in fields)
        if not fields:
            return
        self.beginRemoveColumns(QModelIndex(), column, column)
        del self.columns[column]
        self.endRemoveColumns()
        self.expanded.add(table)
        names = [f"{table}.{f}" for f in fields]
        self.beginInsertColumns(QModelIndex(), column, column + len(names) - 1)
        self.columns[column:column] = names
        self.endInsertColumns()

    def collapse(self, table: str) -> None:
        """Fold an expanded join back into one nested cell."""
        if table not in self.expanded:
            return
        cols = [i for i, c in enumerate(self.columns) if c.startswith(table + ".")]
        self.expanded.discard(table)
        if not cols:
            return
        first = cols[0]
        self.beginRemoveColumns(QModelIndex(), first, cols[-1])
        del self.columns[first : cols[-1] + 1]
        self.endRemoveColumns()
        self.beginInsertColumns(QModelIndex(), first, first)
        self.columns.insert(first, table)
        self.endInsertColumns()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if self.query is None or not 0 <= column < len(self.columns):
            return
        desc = order == Qt.SortOrder.DescendingOrder
        self.set_query(replace(self.query, order=[Order(self.columns[column], desc)]))


def text(v: Any) -> str:
    """A cell's text: JSON's spelling of booleans, nothing for null."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v).lower()
    return v if isinstance(v, str) else str(v)
