"""The HTTP inspector: every request the app made, its response, copy as curl / copy response."""

from __future__ import annotations

import json
import re
from typing import Any

from PySide6.QtCore import (
    QItemSelection,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.services.inspector import Exchange, InspectorFeed
from app.ui.models.table_model import RowsTableModel
from app.ui.widgets.common import copy_text, name_widget

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("#", "Method", "URL", "Status", "Time (ms)")


class InspectorModel(RowsTableModel):
    """Rows mirror the feed's bounded deque (oldest first); updates touch one row."""

    COLUMNS = COLUMNS

    def __init__(self, feed: InspectorFeed, parent: Any = None) -> None:
        super().__init__(parent)
        self.feed = feed
        self._rows: list[Exchange] = list(feed.exchanges)
        self._limit = feed.exchanges.maxlen or 2000
        feed.added.connect(self._on_added)
        feed.updated.connect(self._on_updated)

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
        if role == Qt.ItemDataRole.ToolTipRole and col == 2:
            return ex.url
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 3, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return ex
        return None

    def exchange(self, row: int) -> Exchange | None:
        ex = self.row_object(row)
        return ex if isinstance(ex, Exchange) else None

    def clear(self) -> None:
        self.beginResetModel()
        self._rows.clear()
        self.feed.exchanges.clear()
        self.endResetModel()

    def _on_added(self, ex: Exchange) -> None:
        if len(self._rows) >= self._limit:
            self.beginRemoveRows(QModelIndex(), 0, 0)
            del self._rows[0]
            self.endRemoveRows()
        n = len(self._rows)
        self.beginInsertRows(QModelIndex(), n, n)
        self._rows.append(ex)
        self.endInsertRows()

    def _on_updated(self, ex: Exchange) -> None:
        # the newest rows are the likeliest to be updated: search from the end
        for row in range(len(self._rows) - 1, -1, -1):
            if self._rows[row] is ex:
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
                return


def _pretty(body: str) -> str:
    try:
        return json.dumps(json.loads(body), indent=2)
    except ValueError:
        return body


def describe(ex: Exchange) -> tuple[str, str]:
    """(request text, response text) for the detail tabs."""
    req = [f"{ex.method} {ex.url}", ""]
    req += [f"{k}: {v}" for k, v in ex.request_headers.items()]
    if ex.request_body:
        req += ["", _pretty(ex.request_body)]
    if ex.status is None:
        resp = [ex.error or "(waiting for the response)"]
    else:
        resp = [f"HTTP {ex.status}  ({ex.elapsed_ms or 0:.1f} ms)", ""]
        resp += [f"{k}: {v}" for k, v in ex.response_headers.items()]
        resp += ["", _pretty(ex.response_body)]
    return "\n".join(req), "\n".join(resp)


class HidePollsProxy(QSortFilterProxyModel):
    """Hides the once-a-second ``/health`` polls unless the user wants to see them."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.show_polls = False

    def set_show_polls(self, show: bool) -> None:
        self.show_polls = show
        self.invalidate()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        if self.show_polls:
            return True
        model = self.sourceModel()
        ex = model.exchange(source_row) if isinstance(model, InspectorModel) else None
        return ex is None or not (ex.method == "GET" and ex.url.endswith("/health"))


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


class InspectorDock(QDockWidget):
    """Signals: transaction_requested(str): open the transaction inspector on a hash."""

    transaction_requested = Signal(str)

    def __init__(self, feed: InspectorFeed, parent: QWidget | None = None) -> None:
        super().__init__("HTTP inspector", parent)
        self.setObjectName("inspectorDock")
        self.setAccessibleName("HTTP inspector")
        self.model = InspectorModel(feed, self)
        body = QWidget(self)
        self.table = QTableView(body)
        name_widget(self.table, "inspectorTable", "Requests")
        self.proxy = HidePollsProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        hdr = self.table.horizontalHeader()
        hdr.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        for col in (0, 1, 3, 4):
            hdr.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.model.rowsInserted.connect(self._follow)
        self.model.dataChanged.connect(self._on_changed)

        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.request_view = self._text_view("inspectorRequest", "Request", mono)
        self.response_view = self._text_view("inspectorResponse", "Response", mono)
        tabs = QTabWidget(body)
        name_widget(tabs, "inspectorTabs", "Request and response")
        tabs.addTab(self.request_view, "Request")
        tabs.addTab(self.response_view, "Response")

        self.reveal = QCheckBox("Include token", body)
        self.reveal.setToolTip("Copy the real bearer token instead of a redacted one")
        name_widget(self.reveal, "inspectorRevealToken", "Include the token in curl")
        self.copy_curl = QPushButton("Copy as curl", body)
        name_widget(self.copy_curl, "inspectorCopyCurl", "Copy as curl")
        self.copy_response = QPushButton("Copy response", body)
        name_widget(self.copy_response, "inspectorCopyResponse", "Copy response")
        self.show_polls = QCheckBox("Show health polls", body)
        self.show_polls.setToolTip("The status bar asks the node for /health every second")
        name_widget(self.show_polls, "inspectorShowPolls", "Show health polls")
        self.show_polls.toggled.connect(self.proxy.set_show_polls)
        self.open_tx = QPushButton("Open transaction", body)
        self.open_tx.setToolTip("Inspect the transaction this request is about")
        name_widget(self.open_tx, "inspectorOpenTransaction", "Open the transaction")
        self.open_tx.clicked.connect(self._open_transaction)
        self.clear_button = QPushButton("Clear", body)
        name_widget(self.clear_button, "inspectorClear", "Clear the request list")
        self.copy_curl.clicked.connect(self._copy_curl)
        self.copy_response.clicked.connect(self._copy_response)
        self.clear_button.clicked.connect(self._clear)

        buttons = QHBoxLayout()
        for w in (self.copy_curl, self.reveal, self.copy_response, self.open_tx):
            buttons.addWidget(w)
        buttons.addStretch(1)
        buttons.addWidget(self.show_polls)
        buttons.addWidget(self.clear_button)
        split = QSplitter(Qt.Orientation.Horizontal, body)
        split.addWidget(self.table)
        split.addWidget(tabs)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay = QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(split, 1)
        lay.addLayout(buttons)
        self.setWidget(body)
        self._update_buttons()

    def _text_view(self, name: str, label: str, font: QFont) -> QPlainTextEdit:
        view = QPlainTextEdit(self)
        view.setReadOnly(True)
        view.setFont(font)
        view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        name_widget(view, name, label)
        return view

    def selected(self) -> Exchange | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return self.model.exchange(self.proxy.mapToSource(rows[0]).row())

    def _follow(self) -> None:
        """Keep the newest request in view unless the user scrolled up to read an older one."""
        bar = self.table.verticalScrollBar()
        if bar.value() >= bar.maximum() - 2:
            self.table.scrollToBottom()

    def _on_selection(self, _sel: QItemSelection, _desel: QItemSelection) -> None:
        self._show(self.selected())

    def visible_exchanges(self) -> list[Exchange]:
        """The exchanges the table shows, top to bottom."""
        out = []
        for row in range(self.proxy.rowCount()):
            ex = self.model.exchange(self.proxy.mapToSource(self.proxy.index(row, 0)).row())
            if ex is not None:
                out.append(ex)
        return out

    def select_exchange(self, ex: Exchange) -> bool:
        for row in range(self.model.rowCount()):
            if self.model.exchange(row) is ex:
                index = self.proxy.mapFromSource(self.model.index(row, 0))
                if index.isValid():
                    self.table.selectRow(index.row())
                    return True
        return False

    def _on_changed(self, top: QModelIndex, _bottom: QModelIndex) -> None:
        ex = self.selected()
        if ex is not None and self.model.exchange(top.row()) is ex:
            self._show(ex)

    def _show(self, ex: Exchange | None) -> None:
        if ex is None:
            self.request_view.clear()
            self.response_view.clear()
        else:
            req, resp = describe(ex)
            self.request_view.setPlainText(req)
            self.response_view.setPlainText(resp)
        self._update_buttons()

    def _update_buttons(self) -> None:
        ex = self.selected()
        self.copy_curl.setEnabled(ex is not None)
        self.copy_response.setEnabled(ex is not None and ex.status is not None)
        self.open_tx.setEnabled(ex is not None and transaction_hash_of(ex) is not None)

    def _copy_curl(self) -> None:
        ex = self.selected()
        if ex is not None:
            copy_text(ex.curl(reveal=self.reveal.isChecked()), self.copy_curl, "curl command")

    def _copy_response(self) -> None:
        ex = self.selected()
        if ex is not None and ex.status is not None:
            copy_text(_pretty(ex.response_body), self.copy_response, "Response")

    def _open_transaction(self) -> None:
        ex = self.selected()
        tx = transaction_hash_of(ex) if ex is not None else None
        if tx:
            self.transaction_requested.emit(tx)

    def _clear(self) -> None:
        self.model.clear()
        self._show(None)
