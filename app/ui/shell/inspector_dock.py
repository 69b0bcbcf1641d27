"""The HTTP inspector: every request the app made, its response, copy as curl / copy response.

Filters (method, status class, URL text, writes only) and the app's own background polls,
hidden by default, are all one proxy (:class:`RequestFilter`) over the feed's bounded model.
"""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtCore import QItemSelection, QModelIndex, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontDatabase, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.services.inspector import Exchange, InspectorFeed
from app.ui.shell.inspector_models import (
    COLUMNS,
    METHODS,
    STATUS_FILTERS,
    InspectorModel,
    RequestFilter,
    describe,
    pretty,
    transaction_hash_of,
)
from app.ui.widgets.common import copy_text, name_widget

__all__ = ["COLUMNS", "InspectorDock", "InspectorModel", "RequestFilter", "describe"]

DEFAULT_ROWS = 14  # rows the table shows when the dock first opens
MAX_SHARE = 0.4  # ... but at most this share of the window's height


class _Body(QWidget):
    """The dock's contents; its size hint asks for a table of rows, not a strip."""

    def __init__(self, dock: InspectorDock) -> None:
        super().__init__(dock)
        self.dock = dock

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), max(hint.height(), self.dock.target_height()))


class InspectorDock(QDockWidget):
    """Signals: transaction_requested(str): open the transaction inspector on a hash."""

    transaction_requested = Signal(str)

    def __init__(self, feed: InspectorFeed, parent: QWidget | None = None) -> None:
        super().__init__("HTTP inspector", parent)
        self.setObjectName("inspectorDock")
        self.setAccessibleName("HTTP inspector")
        # grow a strip-thin dock to a table's height when first shown; a window that restored
        # a size the user chose turns this off
        self.first_show_sizing = True
        self.model = InspectorModel(feed, self)
        body = _Body(self)
        self.table = QTableView(body)
        name_widget(self.table, "inspectorTable", "Requests")
        self.proxy = RequestFilter(self)
        self.proxy.setSourceModel(self.model)
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        # log-like rows: compact, so the dock shows many at once
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        self.table.setWordWrap(False)
        hdr = self.table.horizontalHeader()
        hdr.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        # Fixed widths from sample text, not ResizeToContents: that re-measured every row on each
        # request, even with the dock hidden (a 30-300 ms stall per request on a long log).
        fm = self.table.fontMetrics()
        for col, sample in ((0, "000000"), (1, "DELETE"), (3, "Status"), (4, "Time (ms)")):
            hdr.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            hdr.resizeSection(col, fm.horizontalAdvance(sample) + 24)
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        self.proxy.rowsInserted.connect(self._follow)
        self.model.dataChanged.connect(self._on_changed)
        # a hidden background poll changes the counts without changing the proxy's rows
        for model in (self.model, self.proxy):
            model.rowsInserted.connect(self._update_counts)
            model.rowsRemoved.connect(self._update_counts)
            model.modelReset.connect(self._update_counts)

        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.request_view = self._text_view("inspectorRequest", "Request", mono)
        self.response_view = self._text_view("inspectorResponse", "Response", mono)
        tabs = QTabWidget(body)
        name_widget(tabs, "inspectorTabs", "Request and response")
        tabs.addTab(self.request_view, "Request")
        tabs.addTab(self.response_view, "Response")

        filters = self._filter_bar(body)

        self.reveal = QCheckBox("Include token", body)
        self.reveal.setToolTip("Copy the real bearer token instead of a redacted one")
        name_widget(self.reveal, "inspectorRevealToken", "Include the token in curl")
        self.copy_curl = QPushButton("Copy as curl", body)
        name_widget(self.copy_curl, "inspectorCopyCurl", "Copy as curl")
        self.copy_response = QPushButton("Copy response", body)
        name_widget(self.copy_response, "inspectorCopyResponse", "Copy response")
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
        buttons.addWidget(self.clear_button)
        split = QSplitter(Qt.Orientation.Horizontal, body)
        split.setObjectName("inspectorSplitter")
        split.addWidget(self.table)
        split.addWidget(tabs)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay = QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(filters)
        lay.addWidget(split, 1)
        lay.addLayout(buttons)
        self.setWidget(body)
        order = [
            self.method_filter,
            self.status_filter,
            self.text_filter,
            self.writes_only,
            self.hide_background,
            self.table,
            tabs,
            self.copy_curl,
            self.reveal,
            self.copy_response,
            self.open_tx,
            self.clear_button,
        ]
        for a, b in pairwise(order):
            QWidget.setTabOrder(a, b)
        find = QShortcut(QKeySequence.StandardKey.Find, self)
        find.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        find.activated.connect(self._focus_filter)
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self.text_filter)
        escape.setContext(Qt.ShortcutContext.WidgetShortcut)
        escape.activated.connect(self.text_filter.clear)
        self._update_counts()
        self._update_buttons()

    def _filter_bar(self, body: QWidget) -> QHBoxLayout:
        self.method_filter = QComboBox(body)
        name_widget(self.method_filter, "inspectorMethodFilter", "Show requests of the method")
        self.method_filter.addItem("Any method", "")
        for method in METHODS:
            self.method_filter.addItem(method, method)
        self.status_filter = QComboBox(body)
        name_widget(self.status_filter, "inspectorStatusFilter", "Show requests of the status")
        for key, label in STATUS_FILTERS.items():
            self.status_filter.addItem(label, key)
        self.status_filter.setToolTip(
            "Errors: 4xx and 5xx answers and requests that got no response"
        )
        self.text_filter = QLineEdit(body)
        name_widget(self.text_filter, "inspectorTextFilter", "Show URLs containing")
        self.text_filter.setPlaceholderText("Filter URLs (Ctrl+F)")
        self.text_filter.setClearButtonEnabled(True)
        for button in self.text_filter.findChildren(QToolButton):  # the clear button
            name_widget(button, "inspectorTextFilterClear", "Clear the URL filter")
        self.text_filter.setMinimumWidth(160)
        self.writes_only = QCheckBox("Writes only", body)
        self.writes_only.setToolTip("Only POST, PUT, PATCH and DELETE requests")
        name_widget(self.writes_only, "inspectorWritesOnly", "Writes only")
        self.hide_background = QCheckBox("Hide background polls", body)
        self.hide_background.setChecked(True)
        self.hide_background.setToolTip(
            "Requests the app makes on its own: the health poll every second, the reads a "
            "new block triggers, the pending-transaction tracker"
        )
        name_widget(self.hide_background, "inspectorHideBackground", "Hide background polls")
        self.shown_label = QLabel(body)
        name_widget(self.shown_label, "inspectorShown", "Requests shown")
        self.method_filter.currentIndexChanged.connect(self._apply_filters)
        self.status_filter.currentIndexChanged.connect(self._apply_filters)
        self.text_filter.textChanged.connect(self._apply_filters)
        self.writes_only.toggled.connect(self._apply_filters)
        self.hide_background.toggled.connect(self._apply_filters)
        row = QHBoxLayout()
        row.addWidget(self.method_filter)
        row.addWidget(self.status_filter)
        row.addWidget(self.text_filter, 1)
        row.addWidget(self.writes_only)
        row.addWidget(self.hide_background)
        row.addWidget(self.shown_label)
        return row

    def _text_view(self, name: str, label: str, font: QFont) -> QPlainTextEdit:
        view = QPlainTextEdit(self)
        view.setReadOnly(True)
        view.setFont(font)
        view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        name_widget(view, name, label)
        return view

    # ------------------------------------------------------------ size

    def target_height(self) -> int:
        """Room for DEFAULT_ROWS table rows plus the filter and button rows, at most
        MAX_SHARE of the window's height."""
        rows = self.table.verticalHeader().defaultSectionSize() * DEFAULT_ROWS
        wanted = rows + self.table.horizontalHeader().sizeHint().height() + 4 * 28
        window = self.parentWidget()
        if isinstance(window, QMainWindow) and not self.isFloating():
            wanted = min(wanted, int(window.height() * MAX_SHARE))
        return wanted

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.first_show_sizing:
            self.first_show_sizing = False
            QTimer.singleShot(0, self._grow_if_strip)

    def _grow_if_strip(self) -> None:
        """On the first show, give a strip-thin docked inspector a table's height (a size the
        user chose, restored with the window's state, is kept when it is not a strip)."""
        window = self.parentWidget()
        if not isinstance(window, QMainWindow) or self.isFloating() or not self.isVisible():
            return
        if window.dockWidgetArea(self) not in (
            Qt.DockWidgetArea.BottomDockWidgetArea,
            Qt.DockWidgetArea.TopDockWidgetArea,
        ):
            return
        target = self.target_height()
        if self.height() < target * 0.8:
            window.resizeDocks([self], [target], Qt.Orientation.Vertical)

    # ------------------------------------------------------------ filters

    def _apply_filters(self) -> None:
        self.proxy.configure(
            method=self.method_filter.currentData() or "",
            status=self.status_filter.currentData() or "",
            text=self.text_filter.text().strip(),
            writes_only=self.writes_only.isChecked(),
            hide_background=self.hide_background.isChecked(),
        )
        self._update_counts()
        self._show(self.selected())

    def _focus_filter(self) -> None:
        self.text_filter.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.text_filter.selectAll()

    def _update_counts(self, *_args: object) -> None:
        hidden = self.model.background_count
        text = "Hide background polls"
        if hidden:
            hiding = self.hide_background.isChecked()
            text += f" ({hidden:,} hidden)" if hiding else f" ({hidden:,})"
        if self.hide_background.text() != text:
            self.hide_background.setText(text)
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        self.shown_label.setText(f"{shown:,} of {total:,} shown")

    def hidden_background(self) -> int:
        """How many background polls the list holds but hides (0 when they are shown)."""
        return self.model.background_count if self.hide_background.isChecked() else 0

    # ------------------------------------------------------------ rows

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
        row = self.model.row_of(ex)
        if row < 0:
            return False
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():
            return False
        self.table.selectRow(index.row())
        return True

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
            copy_text(pretty(ex.response_body), self.copy_response, "Response")

    def _open_transaction(self) -> None:
        ex = self.selected()
        tx = transaction_hash_of(ex) if ex is not None else None
        if tx:
            self.transaction_requested.emit(tx)

    def _clear(self) -> None:
        self.model.clear()
        self._show(None)
