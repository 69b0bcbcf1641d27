"""The HTTP inspector's models: the feed's exchanges as rows, and the filter the dock shows.

The feed is bounded (separate budgets for the user's requests and background polls), and the
table model mirrors it row for row; everything the user filters on is a proxy predicate, so
switching a filter never copies the rows.
"""

from __future__ import annotations

import json
import re
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette

from app.services.inspector import Exchange, InspectorFeed
from app.ui.models.table_model import RowsTableModel

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("#", "Method", "URL", "Status", "Time (ms)")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")

# status filter key -> its label in the dock's combo box
STATUS_FILTERS = {
    "": "Any status",
    "2xx": "2xx success",
    "3xx": "3xx redirect",
    "4xx": "4xx client error",
    "5xx": "5xx server error",
    "errors": "Errors",
    "no-response": "No response",
}
ERROR_RED = QColor(211, 47, 47)
FILTER_FIELDS = ("method", "status", "text", "writes_only", "hide_background")


def status_matches(ex: Exchange, key: str) -> bool:
    """Whether ``ex`` belongs to the status class ``key`` (a key of STATUS_FILTERS)."""
    status = ex.status
    if not key:
        return True
    if key == "no-response":
        return status is None and bool(ex.error)
    if key == "errors":
        return (status is not None and status >= 400) or (status is None and bool(ex.error))
    if status is None:
        return False
    return status // 100 == int(key[0])


class InspectorModel(RowsTableModel):
    """Rows mirror the feed's exchanges (oldest first); updates touch one row."""

    COLUMNS = COLUMNS

    def __init__(self, feed: InspectorFeed, parent: Any = None) -> None:
        super().__init__(parent)
        self.feed = feed
        self._rows: list[Exchange] = list(feed.exchanges)
        feed.added.connect(self._on_added)
        feed.updated.connect(self._on_updated)
        feed.removed.connect(self._on_removed)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        ex = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return str(ex.id)
            if col == 1:
                return ex.method
            if col == 2:
                return ex.url
            if col == 3:
                return str(ex.status) if ex.status is not None else (ex.error or "…")
            if col == 4:
                return f"{ex.elapsed_ms:.1f}" if ex.elapsed_ms is not None else ""
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = ex.url if col == 2 else ""
            if ex.background:
                tip = f"{tip}\n" if tip else ""
                tip += f"Background: made by the app's {ex.background}, not by you"
            return tip or None
        if role == Qt.ItemDataRole.ForegroundRole:
            failed = (ex.status is not None and ex.status >= 400) or bool(ex.error)
            if col == 3 and failed:
                return ERROR_RED
            if ex.background:
                return QGuiApplication.palette().color(QPalette.ColorRole.PlaceholderText)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 3, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return ex
        return None

    def exchange(self, row: int) -> Exchange | None:
        ex = self.row_object(row)
        return ex if isinstance(ex, Exchange) else None

    def row_of(self, ex: Exchange) -> int:
        """The row of ``ex`` (-1 when gone); the newest rows are searched first."""
        for row in range(len(self._rows) - 1, -1, -1):
            if self._rows[row] is ex:
                return row
        return -1

    @property
    def background_count(self) -> int:
        return self.feed.count(True)

    def clear(self) -> None:
        self.beginResetModel()
        self._rows.clear()
        self.feed.clear()
        self.endResetModel()

    def _on_added(self, ex: Exchange) -> None:
        n = len(self._rows)
        self.beginInsertRows(QModelIndex(), n, n)
        self._rows.append(ex)
        self.endInsertRows()

    def _on_removed(self, ex: Exchange) -> None:
        # the oldest of a kind goes: search from the start
        for row, held in enumerate(self._rows):
            if held is ex:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self._rows[row]
                self.endRemoveRows()
                return

    def _on_updated(self, ex: Exchange) -> None:
        row = self.row_of(ex)
        if row >= 0:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))


class RequestFilter(QSortFilterProxyModel):
    """What the inspector shows: by method, status class and URL text, writes only, and
    without the app's background polls unless asked (all conditions together)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.method = ""
        self.status = ""
        self.text = ""
        self.writes_only = False
        self.hide_background = True

    def configure(self, **values: Any) -> None:
        """Set any of ``method``, ``status``, ``text``, ``writes_only``, ``hide_background``."""
        new_api = hasattr(self, "beginFilterChange")  # Qt 6.10 deprecates invalidate*Filter
        if new_api:
            self.beginFilterChange()
        for key, value in values.items():
            if key not in FILTER_FIELDS:
                raise AttributeError(key)
            setattr(self, key, value)
        if new_api:
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.invalidateRowsFilter()

    def accepts(self, ex: Exchange) -> bool:
        if self.hide_background and ex.background:
            return False
        if self.writes_only and not ex.is_write:
            return False
        if self.method and ex.method.upper() != self.method:
            return False
        if not status_matches(ex, self.status):
            return False
        return not self.text or self.text.casefold() in ex.url.casefold()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        ex = model.exchange(source_row) if isinstance(model, InspectorModel) else None
        return ex is None or self.accepts(ex)


def pretty(body: str) -> str:
    try:
        return json.dumps(json.loads(body), indent=2)
    except ValueError:
        return body


def describe(ex: Exchange) -> tuple[str, str]:
    """(request text, response text) for the detail tabs."""
    req = [f"{ex.method} {ex.url}", ""]
    if ex.background:
        req[1:1] = [f"(made in the background by the app's {ex.background})"]
    req += [f"{k}: {v}" for k, v in ex.request_headers.items()]
    if ex.request_body:
        req += ["", pretty(ex.request_body)]
    if ex.status is None:
        resp = [ex.error or "(waiting for the response)"]
    else:
        resp = [f"HTTP {ex.status}  ({ex.elapsed_ms or 0:.1f} ms)", ""]
        resp += [f"{k}: {v}" for k, v in ex.response_headers.items()]
        resp += ["", pretty(ex.response_body)]
    return "\n".join(req), "\n".join(resp)


HASH_IN_URL = re.compile(r"/transactions?/([0-9a-f]{64})(?:/|$|\?)")
HASH_IN_BODY = re.compile(r'"(?:hash|transactionHash)"\s*:\s*"([0-9a-f]{64})"')


def transaction_hash_of(ex: Exchange) -> str | None:
    """The transaction an exchange is about: in its URL, else the first hash its response names
    (a submitted transaction's result)."""
    m = HASH_IN_URL.search(ex.url)
    if m:
        return m.group(1)
    m = HASH_IN_BODY.search(ex.response_body or "")
    if m and set(m.group(1)) != {"0"}:
        return m.group(1)
    return None
