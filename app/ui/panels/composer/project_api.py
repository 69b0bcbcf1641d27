"""The composer's project side as other parts of the app use it: the open folder, opening a
file at a line, the unsaved texts, the sidebar's tabs, and the menu actions for projects and
tabs. Mixed into :class:`ComposerPanel` (which keeps the panel's own jobs under one roof)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QSplitter, QWidget

from app.ui.panels.composer.project import ProjectSidebar
from app.ui.panels.composer.source_pane import SourcePane
from app.ui.panels.composer.tests_view import TestsView
from app.ui.widgets.source_editor import SourceEditor

if TYPE_CHECKING:
    from app.services.controller import AppController

SIDEBAR_WIDTH_KEY = "composer_sidebar_width"  # in settings.json: the width the user dragged


class ProjectApi(QWidget):
    source: SourcePane
    sidebar: ProjectSidebar
    tests_view: TestsView
    _compose_asked = False  # Deploy & call was asked for while the tests were in front
    split: QSplitter
    controller: AppController
    _width_saver: QTimer | None = None

    @property
    def editor(self) -> SourceEditor:
        """The editor of the tab in front."""
        return self.source.editor

    def load_path(self, path: Path) -> None:
        self.source.load_path(path)

    def open_file(self) -> QFileDialog:
        return self.source.open_file()

    def save_file(self) -> QFileDialog:
        return self.source.save_file()

    def save_to(self, name: str) -> None:
        self.source.save_to(name)

    def maybe_keep_source(self) -> bool:
        """For the main window's close: False = keep the app open (the user is being asked
        about a file's unsaved edits); a scratch source is kept as the draft."""
        return self.source.maybe_keep_source()

    def project_root(self) -> Path | None:
        """The folder open as a project (None: none)."""
        return self.source.folder

    def open_folder(self, folder: Path) -> None:
        self.source.set_folder(folder)

    def choose_folder(self) -> QFileDialog:
        """Ask for a folder to open as the project."""
        return self.source.choose_folder()

    def open_location(self, path: Path, line: int, column: int = 1) -> None:
        """Open (or bring forward) the tab of ``path`` with the cursor at ``line``/``column``."""
        self.source.open_location(Path(path), line, column)

    def open_sources(self) -> dict[str, str]:
        """Absolute path -> text of the open tabs with unsaved edits."""
        return self.source.open_sources()

    def current_file(self) -> Path | None:
        """The file of the tab in front (None: an untitled tab)."""
        return self.source.path

    def show_tests(self) -> None:
        """The sidebar unfolded with the Tests view in front."""
        self.unfold_sidebar()
        self.sidebar.setCurrentWidget(self.tests_view)
        self.widen_sidebar()

    def widen_sidebar(self) -> None:
        """With the Tests view in front, the sidebar gets the width its names need: from the
        editor's side, and where that is not enough (a small screen: the editor and Deploy &
        call at their narrowest) Deploy & call steps aside until another tab is in front or
        the window has room again. A sidebar the user made wider stays so."""
        compose = self.split.widget(2)
        if self.sidebar.currentWidget() is not self.tests_view:
            self.show_compose()
            return
        if compose is None or self.split.sizes()[0] == 0 or not self.split.isVisible():
            return
        if self._compose_asked and not compose.isHidden():
            return  # Deploy or Call was asked for with the tests in front: it stays
        want = self.tests_view.preferred_width()
        room = self.split.width() - 2 * self.split.handleWidth()
        left = room - want - self.source.minimumSizeHint().width()  # for Deploy & call
        fits = left >= compose.minimumSizeHint().width()
        if compose.isHidden() and fits:
            compose.show()
            self.split.setSizes([want, room - want - left // 2, left // 2])
        elif not compose.isHidden() and not fits:
            compose.hide()
            self.split.setSizes([max(want, self.split.sizes()[0]), room - want, 0])
        else:
            sizes = self.split.sizes()
            if sizes[0] >= want:
                return
            rest = sum(sizes) - want  # the editor and Deploy & call share what is left
            if not compose.isHidden() and sizes[1] + sizes[2] > 0:
                editor = rest * sizes[1] // (sizes[1] + sizes[2])
                self.split.setSizes([want, editor, rest - editor])
            else:
                self.split.setSizes([want, rest, 0])

    def tests_tab_chosen(self, _index: int) -> None:
        self._compose_asked = False
        self.widen_sidebar()

    def show_compose(self, asked: bool = False) -> None:
        """Deploy & call back beside the editor (after the tests had its room); ``asked``: by
        the user (Deploy, Call), so it stays until the Tests tab is chosen again."""
        self._compose_asked = asked
        compose = self.split.widget(2)
        if compose is not None and compose.isHidden():
            compose.show()
            sizes = self.split.sizes()
            self.split.setSizes([sizes[0], sizes[1] // 2, sizes[1] - sizes[1] // 2])

    def focus_tests(self) -> None:
        """The Tests view in front with the keyboard in its tree."""
        self.show_tests()
        self.tests_view.tree.setFocus()

    def add_sidebar_tab(self, widget: QWidget, title: str) -> None:
        """Another view beside "Files" in the left sidebar (tests ...)."""
        self.sidebar.addTab(widget, title)

    def default_sidebar_width(self) -> int:
        """Room for file names such as ``CounterTest.sol`` beside a folder's indent, and for
        the "Files" and "Tests" tabs side by side."""
        em = self.fontMetrics().horizontalAdvance("M")
        return max(em * 17, self.sidebar.tabBar().sizeHint().width() + em)

    def sidebar_width(self) -> int:
        """The width the user last dragged the sidebar to (kept across starts), else the
        default."""
        saved = self.controller.setting(SIDEBAR_WIDTH_KEY)
        if isinstance(saved, int) and saved >= self.sidebar.minimumWidth():
            return saved
        return self.default_sidebar_width()

    def track_sidebar_width(self) -> None:
        """Remember the sidebar's width when the user drags it (saved once the drag ends)."""
        self._width_saver = QTimer(self)
        self._width_saver.setSingleShot(True)
        self._width_saver.setInterval(500)
        self._width_saver.timeout.connect(self._save_sidebar_width)
        self.split.splitterMoved.connect(lambda _pos, _index: self._width_saver_start())

    def _width_saver_start(self) -> None:
        if self._width_saver is not None and self.split.sizes()[0] > 0:
            self._width_saver.start()

    def _save_sidebar_width(self) -> None:
        width = self.split.sizes()[0]
        if width > 0 and self.sidebar.currentWidget() is not self.tests_view:
            self.controller.tasks.start(
                "Saving settings", self.controller.save_settings(**{SIDEBAR_WIDTH_KEY: width})
            )

    def unfold_sidebar(self, shown: bool = True) -> None:
        """Show the sidebar (its width taken from the editor's side: what is composed keeps
        its room) or fold it away."""
        sizes = self.split.sizes()
        width = self.sidebar_width()
        if (shown and not self.split.isVisible()) or sum(sizes[1:]) < 2 * width:
            # not laid out yet (a restore at start): the sidebar keeps this width when the
            # splitter first gets its size (stretch 0), the other two share the rest
            self.split.setSizes([width if shown else 0, 400, 400])
        elif shown and sizes[0] == 0:
            self.split.setSizes([width, max(sizes[1] - width, 0), sizes[2]])
        elif not shown and sizes[0]:
            self.split.setSizes([0, sizes[1] + sizes[0], sizes[2]])

    def _root_changed(self, folder: object) -> None:
        self.unfold_sidebar(folder is not None)

    def focus_files(self) -> None:
        """Show the sidebar (unfolded when it was folded away) with the keyboard in the tree."""
        self.unfold_sidebar()
        self.sidebar.focus_tree()

    def menu_actions(self) -> dict[str, list[QAction]]:
        def act(text: str, name: str, keys: str, run: Any) -> QAction:
            a = QAction(text, self)
            a.setObjectName(name)
            a.setShortcut(QKeySequence(keys))
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            a.triggered.connect(lambda _c=False: run())
            return a

        # the source toolbar's Open…, Save and Save as…, with the standard keys (they own them)
        self.open_action = act("Open File…", "actionOpenFile", "Ctrl+O", self.source.open_file)
        self.save_action = act("Save", "actionSave", "Ctrl+S", self.source.save)
        self.save_as_action = act("Save As…", "actionSaveAs", "Ctrl+Shift+S", self.source.save_file)
        self.folder_action = act(
            "Open Folder…", "actionOpenFolder", "Ctrl+Alt+O", self.source.choose_folder
        )
        self.new_action = act(
            "New Untitled Tab", "actionNewUntitled", "Ctrl+N", self.source.new_scratch
        )
        self.close_tab_action = act("Close Tab", "actionCloseTab", "Ctrl+W", self.source.close_tab)
        self.next_tab_action = act(
            "Next Tab", "actionNextTab", "Ctrl+PgDown", lambda: self.source.next_tab(1)
        )
        self.previous_tab_action = act(
            "Previous Tab", "actionPreviousTab", "Ctrl+PgUp", lambda: self.source.next_tab(-1)
        )
        self.files_action = act(
            "Project Files", "actionFocusFiles", "Ctrl+Shift+E", self.focus_files
        )
        self.tests_action = act("Tests", "actionFocusTests", "Ctrl+Alt+T", self.focus_tests)
        return {
            "File": [
                self.open_action,
                self.folder_action,
                self.save_action,
                self.save_as_action,
                self.new_action,
                self.close_tab_action,
            ],
            "View": [
                self.files_action,
                self.tests_action,
                self.next_tab_action,
                self.previous_tab_action,
            ],
        }
