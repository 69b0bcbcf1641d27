"""Tables panel: browse a Cirrus table page by page, filter with PostgREST syntax, export.

The table is a lazy model (only the pages on screen are fetched); a click on a header sorts on
the server. Filters are written as a query string (or pasted as a whole ``/cirrus/search/...``
URL) and applied on Enter; the exact query is shown as it will be sent.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.client.cirrus_query import CirrusQuery, CirrusQueryError
from app.services.cirrus import CirrusExporter
from app.services.controller import AppController

from .cirrus_model import CirrusTableModel
from .widgets import file_dialog, name_widget, while_alive


class TablesPanel(QWidget):
    title = "Tables"

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tablesPanel")
        self.setAccessibleName("Cirrus tables")
        self.controller = controller
        self.model = CirrusTableModel(controller.cirrus, controller.tasks, self)
        self.exporter = CirrusExporter(controller.cirrus, self)
        self._export_task: Any = None
        self._stale = False

        self.table_name = QComboBox(self)
        self.table_name.setEditable(True)
        self.table_name.setMinimumContentsLength(24)
        name_widget(self.table_name, "tablesTableName", "Table")
        line = self.table_name.lineEdit()
        assert line is not None  # an editable combo box has one
        line.setPlaceholderText("Contract, history@Contract or Contract.Event")
        line.returnPressed.connect(self.apply)
        self.table_name.activated.connect(self._run)
        self.filters = QLineEdit(self)
        self.filters.setPlaceholderText(
            "filters as a query string, e.g. v=gte.10&or=(a.eq.x,b.is.null)&order=v.desc — or "
            "paste a /cirrus/search/... URL"
        )
        name_widget(self.filters, "tablesFilters", "Filters")
        self.filters.returnPressed.connect(self.apply)
        self.apply_button = QPushButton("Apply", self)
        name_widget(self.apply_button, "tablesApply", "Apply the query")
        self.apply_button.clicked.connect(self.apply)
        self.preview = QLabel("", self)
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.preview.setWordWrap(True)
        name_widget(self.preview, "tablesPreview", "The query as sent")
        self.status = QLabel("", self)
        name_widget(self.status, "tablesStatus", "Rows")

        self.view = QTableView(self)
        name_widget(self.view, "tablesView", "Rows")
        self.view.setModel(self.model)
        self.view.setSortingEnabled(True)
        self.view.horizontalHeader().setSortIndicatorShown(True)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.view.setWordWrap(False)
        self.view.clicked.connect(self._show_row)
        self.detail = QTextBrowser(self)
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
        top.addWidget(self.table_name)
        top.addWidget(self.filters, 1)
        top.addWidget(self.apply_button)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.export_progress)
        bottom.addWidget(self.cancel_export)
        bottom.addWidget(self.export_csv)
        bottom.addWidget(self.export_json)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.view)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.preview)
        lay.addWidget(split, 1)
        lay.addLayout(bottom)

        self.model.total_changed.connect(self._on_total)
        self.model.failed.connect(self._on_failed)
        controller.session.user_changed.connect(self._on_user)
        self._update_export()

    # ------------------------------------------------------------ tables

    def _on_user(self, _name: str) -> None:
        self._stale = True
        if self.isVisible():
            self.reload_tables()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._stale:
            self.reload_tables()

    def reload_tables(self) -> None:
        self._stale = False

        def done(rows: list[tuple[str, str, str]]) -> None:
            current = self.table_name.currentText()
            names = sorted({n for n, _a, _c in rows})
            self.table_name.clear()
            self.table_name.addItems(names)
            self.table_name.setEditText(current)

        self.controller.tasks.start(
            "Listing tables",
            self.controller.composer.contracts(),
            on_done=while_alive(self, done),
        )

    # ------------------------------------------------------------ query

    def build_query(self) -> CirrusQuery:
        """The query the form describes; raises CirrusQueryError with the reason."""
        text = self.filters.text().strip()
        if "/cirrus/search/" in text:
            q = CirrusQuery.from_url(text)
            self.table_name.setEditText(q.table)
            self.filters.setText(q.to_query_string())
            return q
        table = self.table_name.currentText().strip()
        if not table:
            raise CirrusQueryError("choose or type a table name")
        q = CirrusQuery.from_query_string(table, text.lstrip("?"))
        problems = q.validate()
        if problems:
            raise CirrusQueryError(problems[0])
        return q

    def _run(self, _index: int = 0) -> None:
        self.apply()

    def apply(self) -> None:
        try:
            q = self.build_query()
        except CirrusQueryError as exc:
            self.status.setText(f"✘ {exc}")
            return
        self.preview.setText(f"GET {q.path()}?{q.to_query_string()}".rstrip("?"))
        self.status.setText("Loading…")
        self.detail.clear()
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.model.set_query(q)
        self._update_export()

    def _on_total(self, total: int) -> None:
        self.status.setText(f"{total:,} row(s)")
        self._update_export()

    def _on_failed(self, text: str) -> None:
        self.status.setText(f"✘ {text}")

    def _show_row(self, index: QModelIndex) -> None:
        row = self.model.row(index.row())
        if row is None:
            return
        items = "".join(
            f"<tr><td><b>{escape(k)}</b></td><td><code>{escape(str(v))}</code></td></tr>"
            for k, v in row.items()
        )
        self.detail.setHtml(f"<table cellpadding=2>{items}</table>")

    # ------------------------------------------------------------ export

    def _update_export(self) -> None:
        ready = self.model.query is not None and bool(self.model.total)
        running = self._export_task is not None
        self.export_csv.setEnabled(ready and not running)
        self.export_json.setEnabled(ready and not running)

    def ask_export(self, fmt: str) -> QFileDialog:
        return file_dialog(
            self,
            f"Export as {fmt.upper()}",
            f"{fmt.upper()} (*.{fmt})",
            lambda name: self.export_to(Path(name), fmt),
            save_suffix=fmt,
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
