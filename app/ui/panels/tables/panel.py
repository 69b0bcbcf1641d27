"""Tables panel: any Cirrus table, page by page, filtered with the builder, exported whole.

The table picker lists what the node describes (contract, ``history@`` and event tables) and
takes typed names. The rows are a lazy model (only the pages on screen are fetched); a header
click sorts on the server (Shift+click adds a second key); joined tables show as nested cells
that a header menu expands into columns. A click on a row shows all its columns with copy
links, its contract, history and transactions. Queries can be saved per connection profile.
"""

from __future__ import annotations

import itertools
from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPoint, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMenu,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.client.cirrus_names import CirrusNames
from app.client.cirrus_query import (
    HISTORY_PREFIX,
    CirrusQuery,
    CirrusQueryError,
    Condition,
    Group,
    Order,
)
from app.client.cirrus_schema import TableInfo
from app.client.models import Transaction
from app.services.cirrus import CirrusExporter
from app.services.controller import AppController
from app.ui.panels.tables.cirrus_model import CirrusTableModel, text
from app.ui.panels.tables.filter_builder import FilterBuilder
from app.ui.widgets.common import ReadsWhenShown, name_widget, while_alive
from app.ui.widgets.file_places import EXPORT, place_dialog, safe_file_name
from app.ui.widgets.scroll import scroll_area

# a contract's tables in the picker: its own, its collections, its history, its events
KIND_ORDER = {"contract": 0, "collection": 1, "member": 1, "history": 2, "event": 3, "global": 4}
MIN_ROWS_HEIGHT = 150  # about four rows stay in view under the filter builder


def contract_of(table: str, names: CirrusNames | None = None) -> str:
    """The contract name behind a table: ``history@Org-App-Car`` and ``Car.Sold`` -> ``Car``;
    with the node's list, STRATO 16's ``BlockApps-Car-Sold`` -> ``Car`` too."""
    return (names or CirrusNames([table])).contract_of(table)


def picker_order(names: CirrusNames) -> list[str]:
    """The picker's tables grouped by contract, whichever family names them (``Acme-Car``,
    ``BlockApps-Car``, ``Acme-Car.Sold``, ``BlockApps-Car-Sold`` together), the contract's own
    tables first, the seed's names (own table, collections, history, events) before STRATO
    16's; the node's global tables last."""

    def key(n: str) -> tuple[bool, str, bool, int, str]:
        group = names.group(n)
        strato16 = names.family(n) == "strato16"
        return (not group, group.lower(), strato16, KIND_ORDER[names.kind(n)], n.lower())

    return sorted(names.infos, key=key)


def base_table(table: str, row: dict[str, Any]) -> str:
    """The contract table behind a row: a collection table's row (``Token-balances``, its
    ``collection_name`` ``balances``) belongs to the contract of ``Token``."""
    name = str(row.get("collection_name") or "")
    suffix = f"-{name}"
    if name and table.endswith(suffix) and "collection_type" in row:
        return table.removesuffix(suffix)
    return table


class TablesPanel(ReadsWhenShown):
    """Signals:
    transaction_requested(str): open the transaction inspector on a hash.
    contract_requested(str, str, str): open a contract (name, address, chain id) in the composer.
    """

    title = "Tables"
    transaction_requested = Signal(str)
    contract_requested = Signal(str, str, str)

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(self.reload_tables, parent)
        self.setObjectName("tablesPanel")
        self.setAccessibleName("Cirrus tables")
        self.controller = controller
        self.model = CirrusTableModel(controller.cirrus, controller.tasks, self)
        self.exporter = CirrusExporter(controller.cirrus, self)
        self.tables: dict[str, TableInfo] = {}
        self.names = CirrusNames({})  # the same list, read: which tables hold which contract
        self.saved: dict[str, str] = {}
        self._export_task: Any = None
        self._detail_row: dict[str, Any] | None = None

        self.table_name = QComboBox(self)
        self.table_name.setEditable(True)
        self.table_name.setMinimumContentsLength(28)
        self.table_name.setMaxVisibleItems(25)
        name_widget(self.table_name, "tablesTableName", "Table")
        line = self.table_name.lineEdit()
        assert line is not None  # an editable combo box has one
        line.setPlaceholderText("Contract, Org-Contract.Event, BlockApps-Contract-Event …")
        line.returnPressed.connect(self._table_entered)
        self.table_name.activated.connect(self._table_entered)
        self.refresh_tables = QToolButton(self)
        self.refresh_tables.setText("⟳")
        self.refresh_tables.setToolTip("Read the node's list of tables again")
        name_widget(self.refresh_tables, "tablesRefresh", "Refresh the list of tables")
        self.refresh_tables.clicked.connect(lambda: self.reload_tables(refresh=True))
        self.saved_box = QComboBox(self)
        self.saved_box.setMinimumContentsLength(16)
        name_widget(self.saved_box, "tablesSavedQueries", "Saved queries")
        self.saved_box.activated.connect(self._saved_chosen)
        self.save_button = QPushButton("Save…", self)
        name_widget(self.save_button, "tablesSaveQuery", "Save the query")
        self.save_button.clicked.connect(self.ask_save)
        self.delete_button = QToolButton(self)
        self.delete_button.setText("Delete")
        name_widget(self.delete_button, "tablesDeleteQuery", "Delete the saved query")
        self.delete_button.clicked.connect(self.delete_saved)

        self.builder = FilterBuilder(self)
        self.builder.applied.connect(self.run_query)
        self.builder.table_requested.connect(self._table_from_url)
        self.builder_toggle = QToolButton(self)
        self.builder_toggle.setText("Filters")
        self.builder_toggle.setCheckable(True)
        self.builder_toggle.setChecked(True)
        name_widget(self.builder_toggle, "tablesShowBuilder", "Show the filter builder")
        self.status = QLabel("", self)
        name_widget(self.status, "tablesStatus", "Rows")

        self.view = QTableView(self)
        name_widget(self.view, "tablesView", "Rows")
        self.view.setModel(self.model)
        header = self.view.horizontalHeader()
        header.setSortIndicatorShown(True)
        header.setSectionsClickable(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setResizeContentsPrecision(0)  # fit to the rows on screen: no page is fetched
        header.sectionClicked.connect(self._header_clicked)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        self.view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.view.setTabKeyNavigation(False)  # Tab leaves the rows; arrows move in them
        self.view.setWordWrap(False)
        self.view.clicked.connect(self._show_row)
        self.view.doubleClicked.connect(self._cell_double_clicked)
        self.detail = QTextBrowser(self)
        self.detail.setOpenLinks(False)
        self.detail.anchorClicked.connect(self._detail_link)
        name_widget(self.detail, "tablesRowDetail", "Row detail")

        self.export_csv = QPushButton("Export CSV…", self)
        name_widget(self.export_csv, "tablesExportCsv", "Export the result as CSV")
        self.export_csv.clicked.connect(lambda: self.ask_export("csv"))
        self.export_json = QPushButton("Export JSON…", self)
        name_widget(self.export_json, "tablesExportJson", "Export the result as JSON")
        self.export_json.clicked.connect(lambda: self.ask_export("json"))
        self.export_progress = QProgressBar(self)
        self.export_progress.setVisible(False)
        name_widget(self.export_progress, "tablesExportProgress", "Export progress")
        self.cancel_export = QPushButton("Cancel", self)
        name_widget(self.cancel_export, "tablesCancelExport", "Cancel the export")
        self.cancel_export.setVisible(False)
        self.cancel_export.clicked.connect(self._cancel_export)
        self.exporter.progress.connect(self._on_export_progress)

        top = QHBoxLayout()
        top.addWidget(QLabel("Table", self))
        top.addWidget(self.table_name, 2)
        top.addWidget(self.refresh_tables)
        top.addWidget(self.builder_toggle)
        top.addStretch(1)
        top.addWidget(QLabel("Saved", self))
        top.addWidget(self.saved_box, 1)
        top.addWidget(self.save_button)
        top.addWidget(self.delete_button)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.export_progress)
        bottom.addWidget(self.cancel_export)
        bottom.addWidget(self.export_csv)
        bottom.addWidget(self.export_json)
        rows = QSplitter(Qt.Orientation.Horizontal, self)
        rows.addWidget(self.view)
        rows.addWidget(self.detail)
        rows.setStretchFactor(0, 3)
        rows.setStretchFactor(1, 1)
        rows.setChildrenCollapsible(False)
        self.view.setMinimumSize(240, 120)
        self.detail.setMinimumWidth(120)
        # the builder scrolls when the window is short or its pane is dragged small
        self.builder_area = scroll_area(self.builder, "tablesBuilderArea")
        self.builder_area.setMinimumHeight(90)
        self.builder_toggle.toggled.connect(self.builder_area.setVisible)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.builder_area)
        split.addWidget(rows)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        split.splitterMoved.connect(self._split_moved)
        self.split = split
        self._split_by_user = False
        self.builder.installEventFilter(self)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(split, 1)
        lay.addLayout(bottom)

        # Tab follows the layout: the top row, the builder, the rows, the export buttons
        chain = [
            self.table_name,
            self.refresh_tables,
            self.builder_toggle,
            self.saved_box,
            self.save_button,
            self.delete_button,
            *self.builder.focus_order(),
            self.view,
            self.detail,
            self.cancel_export,
            self.export_csv,
            self.export_json,
        ]
        for a, b in itertools.pairwise(chain):
            QWidget.setTabOrder(a, b)

        self.model.total_changed.connect(self._on_total)
        self.model.page_loaded.connect(self._size_columns)
        self._sized = False
        self.model.failed.connect(self._on_failed)
        controller.session.user_changed.connect(self._on_user)
        controller.session.block_changed.connect(self._on_block)
        self._tables_old = False  # blocks came since the list was read: read it afresh
        self._fill_saved()
        self._update_export()

    # ------------------------------------------------------------ tables

    # ------------------------------------------------------------ layout

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_split()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.builder and event.type() == QEvent.Type.LayoutRequest:
            QTimer.singleShot(0, self, self._fit_split)  # once the builder's new hints hold
        return super().eventFilter(watched, event)

    def _fit_split(self) -> None:
        """Until the user drags the splitter, the builder gets the height it needs (the rows at
        least ``MIN_ROWS_HEIGHT``: the builder scrolls on a short screen) and the rows the rest."""
        if self._split_by_user or not self.isVisible():
            return
        total = sum(self.split.sizes())
        width = self.builder_area.viewport().width() or self.builder.width()
        need = self.builder.heightForWidth(width)
        need = need if need > 0 else self.builder.sizeHint().height()
        top = max(90, min(need, total - MIN_ROWS_HEIGHT))
        if total > 0 and self.split.sizes()[0] != top:
            self.split.setSizes([top, total - top])

    def _split_moved(self, _pos: int, _index: int) -> None:
        self._split_by_user = True

    def _on_user(self, _name: str) -> None:
        self.mark_stale()

    def _on_block(self, _number: int) -> None:
        """New blocks may bring new contracts and event tables: the list is read afresh when
        the panel is next shown (not under the user's hands while it is on screen)."""
        self._tables_old = True
        if not self.isVisible():
            self._stale = True

    def reload_tables(self, refresh: bool = False) -> None:
        """The node's tables (and this profile's saved queries and chains) into the pickers."""
        self._stale = False
        if self.controller.session.client is None:
            return
        refresh, self._tables_old = refresh or self._tables_old, False

        def done(tables: dict[str, TableInfo]) -> None:
            self.tables = dict(tables)
            self.names = CirrusNames(self.tables)
            current = self.table_name.currentText()
            names = picker_order(self.names)
            self.table_name.clear()
            self.table_name.addItems(names)
            self.table_name.setEditText(current)

        cirrus = self.controller.cirrus
        self.controller.tasks.start(
            "Listing tables",
            cirrus.tables(refresh),
            on_done=while_alive(self, done),
            on_error=while_alive(self, self._on_failed),
        )
        self.controller.tasks.start(
            "Reading saved queries",
            cirrus.saved_queries(),
            on_done=while_alive(self, self._set_saved),
        )
        self.controller.tasks.start(
            "Listing chains",
            cirrus.chain_choices(),
            on_done=while_alive(self, self.builder.set_chains),
        )

    def _table_entered(self, _index: int = 0) -> None:
        name = self.table_name.currentText().strip()
        # an editable combo box also "activates" its text when it loses focus: a table that is
        # already open stays as it is, filters included
        if name and name != self.builder.draft.table:
            self.open_table(name)

    def open_table(self, name: str, query: CirrusQuery | None = None) -> None:
        """Show ``name`` (every row, or ``query``), with a fresh filter draft."""
        self.table_name.setEditText(name)
        self.builder.set_table(self.tables.get(name) or TableInfo(name))
        self._load_info(name)
        q = query or CirrusQuery(name)
        problems = q.validate()
        if problems:
            self.status.setText(f"✘ {problems[0]}")
            return
        self.builder.mark_applied(q)
        self.run_query(q)

    def _table_from_url(self, name: str) -> None:
        """A pasted URL named another table: follow it, keeping the pasted filters."""
        self.table_name.setEditText(name)
        self.builder.info = self.tables.get(name) or TableInfo(name)
        self._load_info(name)

    def _load_info(self, name: str) -> None:
        def done(info: TableInfo) -> None:
            if self.builder.draft.table == name:
                self.builder.set_table_info(info)

        self.controller.tasks.start(
            f"Reading the columns of {name}",
            self.controller.cirrus.table_info(name),
            on_done=while_alive(self, done),
            on_error=lambda _text: None,  # the query's own error says what is wrong
        )

    # ------------------------------------------------------------ query

    def apply(self) -> None:
        """Run what the form shows: the builder's draft, or the typed table when none."""
        table = self.table_name.currentText().strip()
        if not table:
            self.status.setText("✘ choose or type a table name")
            return
        if self.builder.draft.table != table:
            self.open_table(table)
            return
        if self.builder.apply_button.isEnabled():
            self.builder.apply()
        else:
            problems = self.builder.draft_problems()
            if problems:
                self.status.setText(f"✘ {problems[0]}")

    def run_query(self, q: CirrusQuery) -> None:
        self.status.setText("Loading…")
        self.detail.clear()
        self._detail_row = None
        header = self.view.horizontalHeader()
        shape = self.model.query is None or (self.model.query.table, self.model.query.select) != (
            q.table,
            q.select,
        )
        self._sized = self._sized and not shape and not q.embeds
        self.model.set_query(q)
        if q.order and q.order[0].column in self.model.columns:
            order = Qt.SortOrder.DescendingOrder if q.order[0].desc else Qt.SortOrder.AscendingOrder
            header.setSortIndicator(self.model.columns.index(q.order[0].column), order)
        else:
            header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self._update_export()

    def _size_columns(self, page: int) -> None:
        """Fit the columns to the first page of a new result (wide values are capped)."""
        if self._sized or page != 0:
            return
        self._sized = True
        header = self.view.horizontalHeader()
        for col in range(self.model.columnCount()):
            self.view.resizeColumnToContents(col)
            header.resizeSection(col, min(header.sectionSize(col), 280))

    def _header_clicked(self, section: int) -> None:
        """Sort on the server: a click sorts by the column (again: the other way); Shift+click
        adds it as a further key."""
        if not 0 <= section < len(self.model.columns) or self.model.query is None:
            return
        column = self.model.columns[section]
        if self.model.is_join(section) or "." in column:
            return  # joined rows are not sortable here
        order = list(self.builder.draft.order)
        existing = next((o for o in order if o.column == column), None)
        shift = bool(QGuiApplication.keyboardModifiers() & Qt.KeyboardModifier.ShiftModifier)
        if shift:
            if existing is None:
                order.append(Order(column))
            else:
                existing.desc = not existing.desc
        elif existing is not None and order and order[0] is existing and len(order) == 1:
            order = [Order(column, not existing.desc)]
        else:
            order = [Order(column)]
        self.builder.set_order(order)

    def _header_menu(self, pos: QPoint) -> QMenu:
        header = self.view.horizontalHeader()
        section = header.logicalIndexAt(pos)
        menu = QMenu(self)
        menu.setObjectName("tablesHeaderMenu")
        if self.model.is_join(section):
            name = self.model.columns[section]
            act = menu.addAction(f"Expand {name} into columns")
            act.triggered.connect(lambda: self.model.expand(section))
        for table in sorted(self.model.expanded):
            act = menu.addAction(f"Fold {table} into one cell")
            act.triggered.connect(lambda _=False, t=table: self.model.collapse(t))
        if 0 <= section < len(self.model.columns) and not self.model.is_join(section):
            column = self.model.columns[section]
            if "." not in column:
                act = menu.addAction(f"Filter on {column}…")
                act.triggered.connect(lambda: self._filter_on(column))
        if not menu.isEmpty():
            menu.popup(header.mapToGlobal(pos))
        return menu

    def _filter_on(self, column: str, value: str | None = None) -> None:
        self.builder_toggle.setChecked(True)
        info = self.builder.info.column(column)
        op = "eq" if value is not None or info is None or info.type != "text" else "ilike"
        self.builder.add_condition(Condition(column, op, value if value is not None else ""), "top")
        self.builder.value.setFocus()

    def _cell_double_clicked(self, index: QModelIndex) -> None:
        """Double-click on a joined cell expands it; on a value, filters on it."""
        if self.model.is_join(index.column()):
            self.model.expand(index.column())
            return
        row = self.model.row(index.row())
        column = self.model.columns[index.column()] if index.isValid() else ""
        if row is not None and column and "." not in column:
            self._filter_on(column, text(row.get(column)))

    def _on_total(self, total: int) -> None:
        self.status.setText(f"{total:,} row(s)")
        self._update_export()

    def _on_failed(self, message: str) -> None:
        self.status.setText(f"✘ {message}")

    # ------------------------------------------------------------ row detail

    def _show_row(self, index: QModelIndex) -> None:
        row = self.model.row(index.row())
        if row is None:
            return
        self._detail_row = row
        self.detail.setHtml(self.row_html(row))

    def row_html(self, row: dict[str, Any]) -> str:
        shown = self.model.query.table if self.model.query else ""
        table = base_table(shown, row)
        names = self.controller.address_names()
        parts = [f"<h3>{escape(shown)}</h3>", _fields_html(row, "", names)]
        address = str(row.get("address") or "")
        chain = str(row.get("chainId") or "")
        links = []
        if address:
            links.append("<a href='contract:'>Open the contract</a>")
            if not table.startswith(HISTORY_PREFIX):
                links.append("<a href='history:'>Its history</a>")
            links.append("<a href='transactions:'>Its transactions</a>")
        tx = str(row.get("transaction_hash") or "")
        if tx:
            links.append(f"<a href='tx:{escape(tx)}'>Last transaction</a>")
        if links:
            parts.append("<p>" + " · ".join(links) + "</p>")
        if chain:
            parts.append(f"<p>On chain <code>{escape(chain)}</code></p>")
        return "".join(parts)

    def _detail_link(self, url: QUrl) -> None:
        scheme, _, rest = url.toString().partition(":")
        row = self._detail_row or {}
        table = base_table(self.model.query.table if self.model.query else "", row)
        address = str(row.get("address") or "")
        chain = str(row.get("chainId") or "")
        if scheme == "copy":
            value = _field(row, rest)
            QGuiApplication.clipboard().setText(text(value))
            self.status.setText(f"Copied {rest}")
        elif scheme == "tx":
            self.transaction_requested.emit(rest)
        elif scheme == "contract":
            self.contract_requested.emit(contract_of(table, self.names), address, chain)
        elif scheme == "history":
            history = self.names.history_of(table)
            strato16 = self.names.family(table) == "strato16"
            if not history and strato16 and "history@storage" in self.names:
                # STRATO 16 keeps no history per contract: one global table, by address
                history = "history@storage"
                where = Group("and", [Condition("address", "eq", address)])
                # versions of one second (valid_from) by their block: its number as text
                order = [Order("valid_from", desc=True), Order("block_number", desc=True)]
            else:
                history = history or HISTORY_PREFIX + table
                where, order = _where(address, chain), [Order("block_number", desc=True)]
            self.open_table(history, CirrusQuery(history, where=where, order=order))
        elif scheme == "transactions":
            self.controller.tasks.start(
                "Reading the contract's transactions",
                self.controller.cirrus.transactions_of(
                    address, chain, table.removeprefix(HISTORY_PREFIX)
                ),
                on_done=while_alive(self, self._show_transactions),
                on_error=while_alive(self, self._on_failed),
            )

    def _show_transactions(self, txs: list[Transaction]) -> None:
        row = self._detail_row
        if row is None:
            return
        items = "".join(
            f"<li><a href='tx:{escape(t.hash)}'>{escape(t.hash[:16])}…</a> "
            f"{escape(t.kind)}, block {t.block_number}</li>"
            for t in txs[:100]
        )
        body = f"<ul>{items}</ul>" if items else "<p>No transactions found.</p>"
        self.detail.setHtml(self.row_html(row) + f"<h4>Transactions ({len(txs)})</h4>{body}")

    # ------------------------------------------------------------ saved queries

    def _fill_saved(self) -> None:
        self.saved_box.clear()
        self.saved_box.addItem("Saved queries…" if self.saved else "No saved queries", None)
        for name in sorted(self.saved, key=str.lower):
            self.saved_box.addItem(name, self.saved[name])
        self.delete_button.setEnabled(bool(self.saved))

    def _set_saved(self, saved: dict[str, str]) -> None:
        self.saved = dict(saved)
        self._fill_saved()

    def _saved_chosen(self, index: int) -> None:
        url = self.saved_box.itemData(index)
        if not url:
            return
        try:
            q = CirrusQuery.from_url(str(url))
        except CirrusQueryError as exc:
            self.status.setText(f"✘ the saved query cannot be read: {exc}")
            return
        self.open_table(q.table, q)

    def ask_save(self) -> QInputDialog:
        dialog = QInputDialog(self)
        dialog.setObjectName("saveQueryDialog")
        dialog.setWindowTitle("Save the query")
        dialog.setLabelText("Name of the query (kept for this connection profile):")
        name = self.saved_box.currentText() if self.saved_box.currentData() else ""
        dialog.setTextValue(name)
        dialog.textValueSelected.connect(self.save_query)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def save_query(self, name: str) -> None:
        """Save the builder's draft under ``name`` (replacing one of that name)."""
        self.controller.tasks.start(
            "Saving the query",
            self.controller.cirrus.save_query(name, self.builder.draft),
            on_done=while_alive(self, lambda saved: self._saved_done(name, saved)),
            on_error=while_alive(self, self._on_failed),
        )

    def _saved_done(self, name: str, saved: dict[str, str]) -> None:
        self._set_saved(saved)
        self.saved_box.setCurrentIndex(max(0, self.saved_box.findText(name)))
        self.status.setText(f"Saved the query as {name!r}")

    def delete_saved(self) -> None:
        name = self.saved_box.currentText() if self.saved_box.currentData() else ""
        if not name:
            self.status.setText("choose a saved query to delete")
            return
        self.controller.tasks.start(
            "Deleting the saved query",
            self.controller.cirrus.delete_query(name),
            on_done=while_alive(self, self._set_saved),
            on_error=while_alive(self, self._on_failed),
        )

    # ------------------------------------------------------------ export

    def _update_export(self) -> None:
        ready = self.model.query is not None and bool(self.model.total)
        running = self._export_task is not None
        self.export_csv.setEnabled(ready and not running)
        self.export_json.setEnabled(ready and not running)

    def ask_export(self, fmt: str) -> QFileDialog:
        """Where to export: the last export folder, a file named after the table."""
        query = self.model.query
        table = query.table if query is not None else "export"
        return place_dialog(
            self,
            self.controller,
            EXPORT,
            f"Export as {fmt.upper()}",
            f"{fmt.upper()} (*.{fmt})",
            lambda name: self.export_to(Path(name), fmt),
            save_suffix=fmt,
            suggested=f"{safe_file_name(table)}.{fmt}",
        )

    def export_to(self, path: Path, fmt: str) -> None:
        query = self.model.query
        if query is None:
            return
        self.export_progress.setRange(0, max(self.model.total or 0, 1))
        self.export_progress.setValue(0)
        self.export_progress.setVisible(True)
        self.cancel_export.setVisible(True)

        def finished(n: int) -> None:
            self._export_task = None
            self._export_ui_done(f"Exported {n:,} row(s) to {path}")

        def failed(text: str) -> None:
            self._export_task = None
            self._export_ui_done(f"✘ export failed: {text}")

        self._export_task = self.controller.tasks.start(
            f"Exporting {query.table}",
            self.exporter.export(query, path, fmt),
            on_done=while_alive(self, finished),
            on_error=while_alive(self, failed),
        )
        self._update_export()

    def _on_export_progress(self, done: int, total: int) -> None:
        self.export_progress.setRange(0, max(total, 1))
        self.export_progress.setValue(done)

    def _cancel_export(self) -> None:
        if self._export_task is not None:
            self._export_task.cancel()
            self._export_task = None
            self._export_ui_done("Export cancelled: no file written")

    def _export_ui_done(self, text: str) -> None:
        self.export_progress.setVisible(False)
        self.cancel_export.setVisible(False)
        self.status.setText(text)
        self._update_export()


def _where(address: str, chain: str) -> Group:
    return Group("and", [Condition("address", "eq", address), Condition("chainId", "eq", chain)])


def _field(row: dict[str, Any], path: str) -> Any:
    """``col`` or ``Table.col`` (a field of a joined row) of a row."""
    if path in row:
        return row[path]
    table, _, col = path.partition(".")
    joined = row.get(table)
    return joined.get(col) if isinstance(joined, dict) else None


def _fields_html(row: dict[str, Any], prefix: str, names: dict[str, str]) -> str:
    """A row's fields as a table with copy links; known addresses get their names beside."""
    cells = []
    for k, v in row.items():
        path = f"{prefix}{k}"
        if isinstance(v, dict):
            inner = _fields_html(v, path + ".", names)
            cells.append(f"<tr><td valign=top><b>{escape(k)}</b></td><td>{inner}</td></tr>")
            continue
        shown = escape(text(v)) if v is not None else "<i>null</i>"
        copy = f" <a href='copy:{escape(path)}'>copy</a>" if v is not None else ""
        name = names.get(v.lower()) if isinstance(v, str) and len(v) == 40 else None
        if name:
            shown += f" <i>({escape(name)})</i>"
        cells.append(f"<tr><td><b>{escape(k)}</b></td><td><code>{shown}</code>{copy}</td></tr>")
    return f"<table cellpadding=2>{''.join(cells)}</table>"
