"""The composer's left sidebar: a project folder's ``.sol`` files as a tree (Qt's file system
model reads folders on its own thread, so a big folder never stalls the window), and room for
other tabs (tests ...) beside "Files"."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QDir, QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QFileSystemModel,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTabWidget,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.ui.widgets.common import name_widget


class ProjectSidebar(QTabWidget):
    """Signals: file_chosen(str): a ``.sol`` file was clicked or activated (Enter);
    open_folder_requested(): the Open Folder button; root_changed(object): the folder shown
    (a Path, or None)."""

    file_chosen = Signal(str)
    open_folder_requested = Signal()
    root_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        name_widget(self, "composerSidebar", "Project sidebar")
        self.setDocumentMode(True)
        self.root: Path | None = None
        self.model = QFileSystemModel(self)
        self.model.setFilter(QDir.Filter.AllDirs | QDir.Filter.Files | QDir.Filter.NoDotAndDotDot)
        self.model.setNameFilters(["*.sol"])
        self.model.setNameFilterDisables(False)  # other files are hidden, not greyed
        self.model.setReadOnly(True)
        self.tree = QTreeView(self)
        name_widget(self.tree, "composerFileTree", "Project files")
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setModel(self.model)
        for column in range(1, self.model.columnCount()):
            self.tree.hideColumn(column)
        self.tree.header().setStretchLastSection(True)  # names fit the sidebar's width
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.clicked.connect(self._chosen)
        self.tree.activated.connect(self._chosen)
        self.open_button = QToolButton(self)
        self.open_button.setText("Open Folder…")
        name_widget(self.open_button, "composerOpenFolder", "Open a folder as a project")
        self.open_button.clicked.connect(self.open_folder_requested)
        self.folder_label = QLabel("No folder open: open one to see its .sol files here.", self)
        self.folder_label.setWordWrap(True)
        name_widget(self.folder_label, "composerFolderName", "Project folder")
        files = QWidget(self)
        lay = QVBoxLayout(files)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.open_button)
        lay.addWidget(self.folder_label)
        lay.addWidget(self.tree, 1)
        self.tree.hide()
        self.files_page = files
        self.addTab(files, "Files")
        # narrow when squeezed (1024 px): the button and the tree clip rather than push the
        # editor and the compose side off the window
        for w in (self.open_button, self.folder_label, self.tree):
            w.setSizePolicy(QSizePolicy.Policy.Ignored, w.sizePolicy().verticalPolicy())
        self.setMinimumWidth(self.fontMetrics().horizontalAdvance("M") * 6)

    def set_root(self, folder: Path | None) -> None:
        self.root = folder
        self.root_changed.emit(folder)
        if folder is None:
            self.tree.hide()
            self.folder_label.setText("No folder open: open one to see its .sol files here.")
            self.folder_label.setToolTip("")
            return
        index = self.model.setRootPath(str(folder))
        self.tree.setRootIndex(index)
        self.folder_label.setText(folder.name or str(folder))
        self.folder_label.setToolTip(str(folder))
        self.tree.show()

    def index_of(self, path: Path) -> QModelIndex:
        """The tree's row for ``path`` (invalid while the model has not read its folder)."""
        return self.model.index(str(path))

    def _chosen(self, index: QModelIndex) -> None:
        if not index.isValid() or self.model.isDir(index):
            return
        self.file_chosen.emit(self.model.filePath(index))

    def focus_tree(self) -> None:
        self.setCurrentWidget(self.files_page)
        (self.tree if self.tree.isVisible() else self.open_button).setFocus(
            Qt.FocusReason.ShortcutFocusReason
        )
