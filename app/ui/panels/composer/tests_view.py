"""The composer's Tests view: the project's `Describe_*` tests as a tree, run on the connected node.

Run all, Run file (the file in front) and Run selected (a test, a contract or a file; Enter on a
row) go through the test-run service, which owns the task: Stop cancels it and a new run replaces
the one going. Double-click jumps to a test's source; the detail area shows the selected test's
message, a link to its line, the failing vector and links to the transactions it sent (they open
in the transaction inspector). "Run on save" reruns after a save. Debug (the button, the row's
context menu, Shift+Enter) asks the composer's debugger to step through the selected test.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPoint,
    QSortFilterProxyModel,
    Qt,
    QUrl,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QKeySequence, QResizeEvent, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.client.test_runner import CompileFailure, RunReport, TestCase, TestOutcome
from app.services.controller import AppController
from app.services.test_runs import TestRunService
from app.ui.panels.composer.tests_model import (
    FAILED,
    NODE_ROLE,
    PASSED,
    QUEUED,
    TestNode,
    TestsModel,
    counts_text,
)
from app.ui.shell.icons import set_icon
from app.ui.widgets.common import name_widget

RUN_ON_SAVE_KEY = "tests_run_on_save"


class TestsHost(Protocol):
    """What the view needs from the composer: its project, its open files, its editor."""

    def project_root(self) -> Path | None: ...

    def open_folder(self, folder: Path) -> None: ...

    def choose_folder(self) -> object: ...

    def current_file(self) -> Path | None: ...

    def open_sources(self) -> dict[str, str]: ...

    def open_location(self, path: Path, line: int, column: int = 1) -> None: ...


class TestsView(QWidget):
    """Signals: transaction_requested(str): open the transaction inspector on a hash.
    debug_requested(str, str): step through a test in the debugger (its file, its id)."""

    __test__ = False
    transaction_requested = Signal(str)
    debug_requested = Signal(str, str)

    def __init__(
        self, controller: AppController, host: TestsHost, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("testsView")
        self.setAccessibleName("Contract tests")
        self.controller = controller
        self.host = host
        self.service: TestRunService = controller.test_runs
        self.folder: Path | None = None  # where the tests were looked for last
        self.model = TestsModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        # names never change: results must not make the proxy filter the tree again (with
        # recursive filtering that walked every row per result: seconds per run)
        self.proxy.setDynamicSortFilter(False)
        self.proxy.setRecursiveFilteringEnabled(True)
        self.proxy.setAutoAcceptChildRows(True)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._total = 0  # tests the current run will run
        self._done = 0
        self._passed = 0
        self._failed = 0
        self._started_at = 0.0
        self.first_result_at: float | None = None  # seconds from Run to the first result

        # -- actions
        self.run_all_button = self._button("All", "testsRunAll", "Run all tests", "Ctrl+T")
        set_icon(self.run_all_button, "mdi6.play-box-multiple-outline")
        self.run_all_button.clicked.connect(self.run_all)
        self.run_file_button = self._button(
            "File", "testsRunFile", "Run the tests of the file in front", "Ctrl+Shift+T"
        )
        set_icon(self.run_file_button, "mdi6.play-box-outline")
        self.run_file_button.clicked.connect(self.run_file)
        self.run_one_button = self._button(
            "Selected", "testsRunSelected", "Run the selected test, contract or file", "Enter"
        )
        set_icon(self.run_one_button, "mdi6.play")
        self.run_one_button.clicked.connect(self.run_selected)
        self.debug_button = self._button(
            "Debug", "testsDebug", "Debug the selected test (on a copy of the state)", "Shift+Enter"
        )
        set_icon(self.debug_button, "mdi6.bug-play-outline")
        self.debug_button.clicked.connect(self.debug_selected)
        self.stop_button = self._button("Stop", "testsStop", "Stop the run", "")
        set_icon(self.stop_button, "mdi6.stop")
        self.stop_button.clicked.connect(self.service.stop)
        self.run_on_save = QCheckBox("Run on save", self)
        name_widget(self.run_on_save, "testsRunOnSave", "Run the tests when a file is saved")
        self.run_on_save.setToolTip("Rerun the saved file's tests (all tests for other files)")
        self.run_on_save.toggled.connect(self._run_on_save_toggled)
        self.folder_button = self._button(
            "Folder…", "testsFolder", "Open a folder as the project (its tests are listed)", ""
        )
        self.folder_button.clicked.connect(self.choose_folder)
        self.folder_label = QLabel("", self)
        name_widget(self.folder_label, "testsFolderLabel", "Folder of the tests")
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter tests")
        self.filter.setClearButtonEnabled(True)
        for clear in self.filter.findChildren(QToolButton):  # the clear button
            name_widget(clear, "testsFilterClear", "Clear the filter")
        name_widget(self.filter, "testsFilter", "Filter tests by name")
        self.filter.textChanged.connect(self._filter_changed)

        # -- tree, progress, detail
        self.tree = QTreeView(self)
        name_widget(self.tree, "testsTree", "Tests")
        self.tree.setModel(self.proxy)
        self.tree.setUniformRowHeights(True)
        self.tree.setIndentation(self.fontMetrics().horizontalAdvance("00"))
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # fixed widths: ResizeToContents measured every row again on each result
        fm = self.fontMetrics()
        for column, widest in ((1, "20/200 passed"), (2, "000.00 s")):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, fm.horizontalAdvance(widest) + fm.averageCharWidth() * 2)
        self.tree.doubleClicked.connect(self._jump_to)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.tree.installEventFilter(self)
        selection = self.tree.selectionModel()
        selection.currentChanged.connect(self._show_current)
        self.model.dataChanged.connect(self._refresh_detail)
        self.model.rowsInserted.connect(self._expand_new)
        self.progress = QProgressBar(self)
        self.progress.setFormat("%v/%m")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        name_widget(self.progress, "testsProgress", "Tests run so far")
        self.summary = QLabel("", self)
        self.summary.setWordWrap(True)
        name_widget(self.summary, "testsSummary", "Result of the run")
        self.detail = QTextBrowser(self)
        self.detail.setOpenLinks(False)
        self.detail.anchorClicked.connect(self._link)
        name_widget(self.detail, "testsDetail", "The selected test")
        self.detail.setMinimumHeight(self.fontMetrics().lineSpacing() * 4)

        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        for b in (
            self.run_all_button,
            self.run_file_button,
            self.run_one_button,
            self.debug_button,
        ):
            buttons.addWidget(b)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        options = QHBoxLayout()
        options.setContentsMargins(0, 0, 0, 0)
        options.addWidget(self.filter, 1)
        options.addWidget(self.folder_button)
        where = QHBoxLayout()
        where.setContentsMargins(0, 0, 0, 0)
        where.addWidget(self.folder_label, 1)
        where.addWidget(self.run_on_save)
        top = QWidget(self)
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addLayout(buttons)
        tl.addLayout(where)
        tl.addLayout(options)
        tl.addWidget(self.tree, 1)
        pl = QHBoxLayout()
        pl.addWidget(self.progress)
        tl.addLayout(pl)
        tl.addWidget(self.summary)
        self.split = QSplitter(Qt.Orientation.Vertical, self)
        self.split.setObjectName("testsSplit")
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(top)
        self.split.addWidget(self.detail)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.split)
        order: list[QWidget] = [
            self.run_all_button,
            self.run_file_button,
            self.run_one_button,
            self.debug_button,
            self.stop_button,
            self.run_on_save,
            self.filter,
            self.folder_button,
            self.tree,
            self.detail,
        ]
        for first, second in itertools.pairwise(order):
            QWidget.setTabOrder(first, second)

        s = self.service
        s.discovered.connect(self._discovered)
        s.run_discovered.connect(self._run_discovered)
        s.case_started.connect(self.model.started)
        s.case_finished.connect(self._finished)
        s.compile_failed.connect(self._compile_failed)
        s.run_finished.connect(self._run_finished)
        s.run_stopped.connect(self._run_stopped)
        s.run_failed.connect(self._run_failed)
        s.running_changed.connect(self._update_buttons)
        controller.settings_loaded.connect(self._restore_settings)
        if controller.settings_ready:
            self._restore_settings()
        self._show_node(None)
        self._update_buttons()

    def _button(self, text: str, name: str, accessible: str, keys: str) -> QToolButton:
        b = QToolButton(self)
        b.setText(text)
        b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        name_widget(b, name, accessible)
        b.setToolTip(f"{accessible} ({keys})" if keys else accessible)
        return b

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # narrow (a small screen): the names keep the room, the status shows as the icon
        narrow = self.width() < self.fontMetrics().horizontalAdvance("M") * 22
        self.tree.setColumnHidden(1, narrow)
        self.tree.setColumnHidden(2, narrow)

    def preferred_width(self) -> int:
        """Wide enough for a test's name beside its status and time."""
        return self.fontMetrics().horizontalAdvance("M") * 38

    def install_shortcuts(self, owner: QWidget, reveal: Callable[[], None]) -> None:
        """Ctrl+T (run all) and Ctrl+Shift+T (run the file in front) anywhere in ``owner``,
        also while this view is on a hidden tab: ``reveal`` brings it to the front."""

        def run(action: Callable[[], None]) -> Callable[[], None]:
            def go() -> None:
                reveal()
                action()

            return go

        QShortcut(QKeySequence("Ctrl+T"), owner, run(self.run_all))
        QShortcut(QKeySequence("Ctrl+Shift+T"), owner, run(self.run_file))

    # ------------------------------------------------------------ settings

    def _restore_settings(self) -> None:
        self.run_on_save.blockSignals(True)
        self.run_on_save.setChecked(bool(self.controller.setting(RUN_ON_SAVE_KEY, False)))
        self.run_on_save.blockSignals(False)

    def _run_on_save_toggled(self, on: bool) -> None:
        self.controller.tasks.start(
            "Saving a setting", self.controller.save_settings(**{RUN_ON_SAVE_KEY: on})
        )

    # ------------------------------------------------------------ where the tests are

    def tests_folder(self) -> Path | None:
        """The composer's project folder, else the folder of the file in front."""
        root = self.host.project_root()
        if root is not None:
            return root
        current = self.host.current_file()
        return current.parent if current is not None else None

    def choose_folder(self) -> None:
        """The composer's Open Folder… (the project's folder is where tests are found)."""
        self.host.choose_folder()

    def set_folder(self, folder: Path) -> None:
        """Open ``folder`` as the composer's project (its tests are found then)."""
        self.host.open_folder(folder)
        self.follow_folder()

    def refresh(self) -> None:
        """Find the tests again (the folder may have changed, files been saved)."""
        folder = self.tests_folder()
        if folder != self.folder:
            self.folder = folder
            self.model.root_path = folder
        if folder is None:
            self.folder_label.setText("No folder: open a file or choose a folder")
            self._update_buttons()
            return
        self.folder_label.setText(folder.name or str(folder))
        self.folder_label.setToolTip(str(folder))
        self.service.discover([folder], self.host.open_sources())

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.follow_folder()

    def follow_folder(self, _opened: str = "") -> None:
        """Find the tests when where they are looked for changed (a file of another folder
        was opened, the project changed), or none were found yet."""
        if self.tests_folder() != self.folder or not self.model.files():
            self.refresh()

    def file_saved(self, path: str) -> None:
        """The composer saved ``path``: find the tests again; with Run on save, rerun the
        file's tests (all of them when it holds none: it may be imported by tests)."""
        if not path.endswith(".sol"):
            return
        known = self.model.file_node(path) is not None
        self.refresh()
        if not self.run_on_save.isChecked() or self.tests_folder() is None:
            return
        if known:
            self.run_file_path(Path(path))
        else:
            self.run_all()

    # ------------------------------------------------------------ runs

    def run_all(self) -> None:
        folder = self.tests_folder()
        if folder is None:
            self._say("Open a file or choose a folder with tests first.")
            return
        if folder != self.folder or not self.model.files():
            self.refresh()
        self._start([folder], self.model.all_tests(), None)

    def run_file(self) -> None:
        current = self.host.current_file()
        if current is None:
            self._say("The file in front has not been saved: save it, or use Run all.")
            return
        self.run_file_path(current)

    def run_file_path(self, path: Path) -> None:
        node = self.model.file_node(str(path))
        self._start([path], list(node.tests()) if node is not None else [], None)

    def run_selected(self) -> None:
        node = self.selected_node()
        if node is None:
            self._say("Select a test, a contract or a file first.")
            return
        self.run_node(node)

    def run_node(self, node: TestNode) -> None:
        tests = list(node.tests())
        select = None if node.kind == "file" else {t.key for t in tests}
        self._start([Path(node.file)], tests, select)

    def debug_selected(self) -> None:
        """Step through the selected test in the composer's debugger."""
        node = self.selected_node()
        if node is None or node.kind != "test":
            self._say("Select a test to debug (one test: a Describe_X.it_y row).")
            return
        self.debug_requested.emit(node.file, node.key)

    def context_menu(self, node: TestNode) -> QMenu:
        """The row's menu: Run, and Debug for a test."""
        menu = QMenu(self)
        menu.addAction("Run", lambda: self.run_node(node))
        debug = menu.addAction("Debug", lambda: self.debug_requested.emit(node.file, node.key))
        debug.setEnabled(node.kind == "test")
        return menu

    def _context_menu(self, pos: QPoint) -> None:
        index = self.tree.indexAt(pos)
        node = index.data(NODE_ROLE) if index.isValid() else None
        if isinstance(node, TestNode):
            self.tree.setCurrentIndex(index)
            self.context_menu(node).exec(self.tree.viewport().mapToGlobal(pos))

    def _start(self, paths: list[Path], tests: list[TestNode], select: set[str] | None) -> None:
        self.model.run_ended()  # a run replaced midway: its leftovers did not run
        self.model.clear_failures(str(p) for p in paths)
        self.model.set_status(tests, QUEUED)
        self._total, self._done, self._passed, self._failed = len(tests), 0, 0, 0
        self._started_at = time.perf_counter()
        self.first_result_at = None
        self.progress.setRange(0, max(self._total, 1))
        self.progress.setValue(0)
        self.summary.setText("Running…")
        self.service.run(paths, select, self.host.open_sources())

    def _run_discovered(self, cases: list[TestCase]) -> None:
        self.model.add_cases(cases)
        queued = sum(1 for t in self.model.all_tests() if t.status == QUEUED)
        self._total = max(self._total, self._done + queued)
        self.progress.setRange(0, max(self._total, 1))

    def _finished(self, outcome: TestOutcome) -> None:
        if self.first_result_at is None:
            self.first_result_at = time.perf_counter() - self._started_at
        self.model.finished(outcome)
        self._done += 1
        if outcome.passed:
            self._passed += 1
        else:
            self._failed += 1
        self._total = max(self._total, self._done)
        self.progress.setRange(0, self._total)
        self.progress.setValue(self._done)
        self.summary.setText(self._summary_text())

    def _compile_failed(self, failure: CompileFailure) -> None:
        self.model.compile_failed(failure)
        node = self.model.file_node(failure.file)
        if node is not None:
            self.select_node(node)

    def _summary_text(self, end: str = "") -> str:
        text = f"{self._passed} passed, {self._failed} failed"
        return text + end

    def _run_finished(self, report: RunReport) -> None:
        self.model.run_ended()
        seconds = time.perf_counter() - self._started_at
        self._passed, self._failed = report.passed, report.failed
        end = f" in {seconds:.1f} s"
        if report.failures:
            end += f"; {len(report.failures)} file(s) did not compile"
        self.summary.setText(self._summary_text(end))
        self.progress.setRange(0, max(self._total, 1))
        self.progress.setValue(self._done)

    def _run_stopped(self) -> None:
        self.model.run_ended()
        self.summary.setText(self._summary_text(" — stopped"))

    def _run_failed(self, text: str) -> None:
        self.model.run_ended()
        self._say(f"✘ {text}")

    def _say(self, text: str) -> None:
        self.summary.setText(text)

    def _update_buttons(self, _running: bool = False) -> None:
        running = self.service.running
        self.stop_button.setEnabled(running)

    # ------------------------------------------------------------ tree

    def _discovered(self, cases: list[TestCase], failures: list[CompileFailure]) -> None:
        self.model.set_discovered(cases, failures)
        if not self.model.files():
            where = self.folder.name if self.folder is not None else "this folder"
            self._say(f"No Describe_ contracts with it_ or property_ tests in {where}.")
        elif not self.service.running and self.summary.text().startswith("No Describe_"):
            self._say("")
        self._update_buttons()

    def _expand_new(self, parent: QModelIndex, first: int, last: int) -> None:
        # files and contracts open as they appear: the tests are what one looks for
        if self.model.node(parent).kind in ("root", "file"):
            for row in range(first, last + 1):
                source = self.model.index(row, 0, parent)
                self.tree.expand(self.proxy.mapFromSource(source))
                if self.model.node(parent).kind == "root":
                    for c in range(self.model.rowCount(source)):
                        self.tree.expand(self.proxy.mapFromSource(self.model.index(c, 0, source)))

    def _filter_changed(self, text: str) -> None:
        self.proxy.setFilterFixedString(text.strip())
        if text.strip():
            self.tree.expandAll()

    def selected_node(self) -> TestNode | None:
        index = self.tree.currentIndex()
        if not index.isValid():
            return None
        node = index.data(NODE_ROLE)
        return node if isinstance(node, TestNode) else None

    def select_node(self, node: TestNode) -> None:
        index = self.proxy.mapFromSource(self.model.index_of(node))
        if index.isValid():
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)

    def index_of_test(self, test_id: str) -> QModelIndex:
        """The tree's (proxy) index of the test ``Describe_X.it_y`` (for keyboard and tests)."""
        for t in self.model.all_tests():
            if t.key == test_id:
                return self.proxy.mapFromSource(self.model.index_of(t))
        return QModelIndex()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tree and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                    self.debug_selected()
                else:
                    self.run_selected()
                return True
        return super().eventFilter(watched, event)

    def _jump_to(self, index: QModelIndex) -> None:
        node = index.data(NODE_ROLE)
        if not isinstance(node, TestNode):
            return
        if node.failure is not None:
            self.host.open_location(Path(node.file), node.failure.line, node.failure.column)
        elif node.case is not None:
            self.host.open_location(Path(node.case.file), node.case.line)

    # ------------------------------------------------------------ detail

    def _show_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        node = current.data(NODE_ROLE) if current.isValid() else None
        self._show_node(node if isinstance(node, TestNode) else None)

    def _refresh_detail(self, top_left: QModelIndex, _bottom_right: QModelIndex) -> None:
        node = self.selected_node()
        if node is not None and self.model.node(top_left) is node:
            self._show_node(node)

    def _show_node(self, node: TestNode | None) -> None:
        if node is None:
            self.detail.setHtml(
                "<i>Select a test to see its result. Enter runs the selected test, contract or "
                "file; a double-click opens its source.</i>"
            )
            return
        self.detail.setHtml(detail_html(node, self.folder))

    def _link(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("tx:"):
            self.transaction_requested.emit(text[3:])
        elif text.startswith("loc:"):
            path, line = split_location(text[4:], self.folder)
            self.host.open_location(path, line)


def split_location(where: str, folder: Path | None) -> tuple[Path, int]:
    """``file:line`` (or ``file:line:column``) as a path (relative ones under ``folder``)."""
    parts = where.split(":")
    numbers: list[int] = []
    while len(parts) > 1 and parts[-1].strip().isdigit() and len(numbers) < 2:
        numbers.insert(0, int(parts.pop()))
    path = Path(":".join(parts))
    if not path.is_absolute() and folder is not None:
        path = folder / path
    return path, numbers[0] if numbers else 1


def _shown_path(path: str, folder: Path | None) -> str:
    if folder is not None:
        try:
            return Path(path).relative_to(folder).as_posix()
        except ValueError:
            pass
    return Path(path).name


def detail_html(node: TestNode, folder: Path | None) -> str:
    """The detail area for ``node``: its result, where it is, what it sent."""
    rows: list[str] = []
    if node.failure is not None:
        f = node.failure
        where = f"{f.file}:{f.line}"
        rows.append('<b style="color:#c62828">✘ does not compile</b>')
        rows.append(f'<span style="color:#c62828">{escape(f.message)}</span>')
        rows.append(
            f'at <a href="loc:{escape(where)}">{escape(_shown_path(f.file, folder))}:{f.line}</a>'
        )
    if node.kind != "test" or node.case is None:
        title = node.key if node.kind == "contract" else _shown_path(node.file, folder)
        rows.insert(0, f"<b>{escape(title)}</b> — {escape(counts_text(node.counts()))}")
        failed = [t for t in node.tests() if t.status == FAILED]
        for t in failed[:20]:
            message = t.outcome.message if t.outcome is not None else ""
            rows.append(f"✘ {escape(t.key)}: {escape(message)}")
        return "<br>".join(rows)
    case = node.case
    colour = {PASSED: "#2e7d32", FAILED: "#c62828"}.get(node.status, "#808080")
    rows.append(f"<b>{escape(case.id)}</b> ({case.kind} test)")
    status = f'<b style="color:{colour}">{escape(node.status)}</b>'
    outcome = node.outcome
    if outcome is not None:
        status += f" in {outcome.seconds:.2f} s"
    rows.append(status)
    if outcome is not None and not outcome.passed:
        rows.append(f'<span style="color:#c62828">{escape(outcome.message or "failed")}</span>')
        if outcome.vector is not None:
            rows.append(f"failing arguments: <code>{escape(json.dumps(outcome.vector))}</code>")
    where = (outcome.location if outcome is not None else None) or f"{case.file}:{case.line}"
    shown_file, line = split_location(where, folder)
    label = "failed at" if outcome is not None and outcome.location else "defined at"
    rows.append(
        f'{label} <a href="loc:{escape(where)}">'
        f"{escape(_shown_path(str(shown_file), folder))}:{line}</a>"
    )
    if outcome is not None and outcome.tx_hashes:
        links = [f'<a href="tx:{h}"><code>{h[:16]}…</code></a>' for h in outcome.tx_hashes]
        rows.append(f"transactions ({len(links)}): " + ", ".join(links))
    return "<br>".join(rows)
