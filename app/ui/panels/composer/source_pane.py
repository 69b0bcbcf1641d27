"""The composer's source side: a project folder, tabs of open files, samples, open/save, and what
becomes of unsaved text.

Nothing typed is lost: the tabs, the open folder, cursors and every tab's unsaved text are kept
under the app's configuration directory (``workspace.py``) about a second after typing stops and
when the app quits, so they come back on the next start, after a crash too. Scratch text (the
Untitled tab) never has to be asked about. A file's unsaved edits are asked about before quitting
or closing its tab (Save / Discard / Cancel), as in any editor.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.services.controller import AppController
from app.ui.panels.composer.build import Problem
from app.ui.panels.composer.documents import Document, EditorTabs
from app.ui.panels.composer.project import ProjectSidebar
from app.ui.panels.composer.restore import apply_restored
from app.ui.panels.composer.workspace import Restored, WorkspaceStore
from app.ui.paths import RESOURCES
from app.ui.widgets.common import file_dialog, name_widget, while_alive
from app.ui.widgets.file_places import CONTRACT, start_folder
from app.ui.widgets.source_editor import SourceEditor

SAMPLES = RESOURCES / "contracts"
DRAFT_KEY = "composer_draft"  # the one-editor composer's draft, read once to carry it over
AUTOSAVE_MS = 1000  # after the last keystroke


class SourcePane(QWidget):
    """Signals: file_saved(str): the absolute path of a file just written."""

    file_saved = Signal(str)
    watches_restored = Signal(list)  # the debugger's watches, as the last run left them

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.store = WorkspaceStore(controller.settings.directory / "composer")
        self._loaded = False  # the last run's workspace is back: writing it may start
        self._written: dict[str | None, str] = {}  # buffers as last written (path -> text)
        self._last_state: dict[str, Any] | None = None
        # path ("" Untitled) -> lines kept, each a line or [line, condition]
        self.kept_breakpoints: dict[str, list[Any]] = {}
        self.kept_watches: list[str] = []  # the Debug dock's watch expressions
        self._quit_when_loaded = False  # the app was closed before the workspace was back
        self.quit_prompt: QMessageBox | None = None
        self.focus_next: QWidget | None = None  # what Tab reaches after the editor

        self.sidebar = ProjectSidebar(self)
        self.sidebar.file_chosen.connect(lambda f: self.open_path(Path(f), focus=True))
        self.sidebar.open_folder_requested.connect(self.choose_folder)
        self.tabs = EditorTabs(self)
        self.tabs.tabCloseRequested.connect(lambda i: self.close_tab(self._doc_at(i)))
        self.tabs.currentChanged.connect(lambda _i: self._front_changed())
        self.tabs.documents_changed.connect(self._documents_changed)
        self.samples = QComboBox(self)
        name_widget(self.samples, "composerSamples", "Sample contracts")
        self.samples.addItem("Samples…", None)
        for f in sorted(SAMPLES.glob("*.sol")) if SAMPLES.is_dir() else []:
            self.samples.addItem(f.stem, str(f))
        self.samples.setToolTip("Load a sample contract into the Untitled tab")
        self.samples.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.samples.setMinimumContentsLength(6)
        self.samples.activated.connect(self._sample_chosen)
        # Open/Save/Save as: the File menu's actions hold the keys (one owner: a key bound twice
        # in a window is ambiguous and does nothing); the buttons name them
        self.open_button = self._button(
            "Open…", "composerOpen", "Open a .sol file", "Ctrl+O", bind=False
        )
        self.open_button.clicked.connect(self.open_file)
        opens = QMenu(self.open_button)
        opens.setObjectName("composerOpenMenu")
        opens.addAction("Open File…", self.open_file)
        opens.addAction("Open Folder… (Ctrl+Alt+O)", self.choose_folder)
        self.open_button.setMenu(opens)
        self.open_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.save_button = self._button(
            "Save", "composerSave", "Save the source", "Ctrl+S", bind=False
        )
        self.save_button.clicked.connect(self.save)
        self.save_as_button = self._button(
            "Save as…",
            "composerSaveAs",
            "Save the source to a new file",
            "Ctrl+Shift+S",
            bind=False,
        )
        self.save_as_button.clicked.connect(self.save_file)
        self.compile_button = self._button(
            "Compile",
            "composerCompile",
            "Compile the file in front with its imports: the contracts' interfaces",
            "Ctrl+B",
        )
        self.file_label = QLabel("", self)
        name_widget(self.file_label, "composerFile", "Where the source lives")
        self.source_status = QLabel("", self)
        self.source_status.setWordWrap(True)
        name_widget(self.source_status, "composerSourceStatus", "Compile result")
        self.problems = QListWidget(self)
        name_widget(self.problems, "composerProblems", "Compile problems: Enter shows the place")
        self.problems.itemClicked.connect(self._problem_chosen)
        self.problems.itemActivated.connect(self._problem_chosen)
        self.problems.setWordWrap(True)
        self.problems.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.problems.hide()
        tools = QHBoxLayout()
        self.tool_widgets: list[QWidget] = [
            self.samples,
            self.open_button,
            self.save_button,
            self.save_as_button,
            self.compile_button,
        ]
        for w in self.tool_widgets:
            tools.addWidget(w)
        tools.addStretch(1)
        for a, b in itertools.pairwise(self.tool_widgets):
            QWidget.setTabOrder(a, b)  # the tools row first, as laid out, then the editor
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(tools)
        lay.addWidget(self.file_label)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(self.source_status)
        lay.addWidget(self.problems)

        self._autosave = QTimer(self)
        self._autosave.setSingleShot(True)
        self._autosave.setInterval(AUTOSAVE_MS)
        self._autosave.timeout.connect(self.keep_workspace)
        self._new_document(None)
        self.restore_workspace()  # at once: it needs no settings, and typing waits for it

    def _button(
        self, text: str, name: str, accessible: str, shortcut: str, bind: bool = True
    ) -> QToolButton:
        b = QToolButton(self)  # narrower than push buttons: the editor's row fits 1024 px
        b.setText(text)
        b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        name_widget(b, name, accessible)
        if bind:
            b.setShortcut(shortcut)
        b.setToolTip(f"{accessible} ({shortcut})")
        return b

    # ------------------------------------------------------------ documents

    @property
    def editor(self) -> SourceEditor:
        """The editor of the tab in front."""
        return self.tabs.current().editor

    @property
    def current(self) -> Document:
        return self.tabs.current()

    @property
    def path(self) -> Path | None:
        return self.current.path

    @property
    def modified(self) -> bool:
        return self.current.modified

    @property
    def unsaved(self) -> bool:
        return self.current.unsaved

    @property
    def folder(self) -> Path | None:
        return self.sidebar.root

    def _doc_at(self, index: int) -> Document:
        w = self.tabs.widget(index)
        assert isinstance(w, SourceEditor)
        return self.tabs.docs[w]

    def _new_document(self, path: Path | None, at: int = -1) -> Document:
        doc = self.tabs.new_document(path, at)
        doc.editor.textChanged.connect(lambda d=doc: self._edited(d))
        doc.editor.cursorPositionChanged.connect(self._schedule)
        doc.editor.breakpoints_changed.connect(lambda d=doc: self._breakpoints_set(d))
        return doc

    def _breakpoints_set(self, doc: Document) -> None:
        """A file's breakpoints persist with the workspace, its tab closed or not."""
        conds = doc.editor.conditions
        lines = [[n, conds[n]] if n in conds else n for n in sorted(doc.editor.breakpoints)]
        key = doc.key() or ""
        if lines:
            self.kept_breakpoints[key] = lines
        else:
            self.kept_breakpoints.pop(key, None)
        self._schedule()

    def set_watches(self, expressions: list[str]) -> None:
        """The debugger's watches persist with the workspace, as breakpoints do."""
        self.kept_watches = [str(e) for e in expressions]
        self._schedule()

    def _set_text(self, doc: Document, text: str, *, saved: str, sample: str | None = None) -> None:
        doc.sample, doc.saved_text, doc.discarded = sample, saved, False
        if text == doc.text:
            self._edited(doc)
        else:
            doc.editor.setPlainText(text)
        doc.editor.clear_error()
        if doc.path is not None:  # (a sample or a draft in Untitled: not the file's)
            _restore_breakpoints(doc.editor, self.kept_breakpoints.get(str(doc.path), []))

    def _edited(self, doc: Document) -> None:
        self.tabs.refresh_title(doc)
        if doc is self.current:
            self._front_changed()
        self._schedule()

    def _front_changed(self) -> None:
        if not self.tabs.docs or self.tabs.currentWidget() is None:
            return
        doc = self.current
        edited = doc.modified
        index = self.samples.findText(doc.sample) if doc.sample and not edited else 0
        self.samples.setCurrentIndex(max(index, 0))  # a sample no more: the neutral entry
        if doc.path is not None:
            self.file_label.setText(doc.path.name + (" — unsaved changes" if edited else ""))
            self.file_label.setToolTip(str(doc.path))
        elif doc.sample and not edited:
            self.file_label.setText(f"Sample {doc.sample}")
            self.file_label.setToolTip("")
        else:
            self.file_label.setText("Draft (kept until the next start; Save to put it in a file)")
            self.file_label.setToolTip("")
        self._schedule()

    def _documents_changed(self) -> None:
        """Tab follows the layout: the tools, the editor in front, the problems, then on."""
        chain: list[QWidget] = [self.compile_button, *[d.editor for d in self.tabs.documents()]]
        chain.append(self.problems)
        if self.focus_next is not None:
            chain.append(self.focus_next)
        for a, b in itertools.pairwise(chain):
            QWidget.setTabOrder(a, b)
        self._schedule()

    def scratch(self) -> Document:
        """The Untitled tab, made again when it was saved to a file or closed."""
        doc = self.tabs.find_doc(None)
        return doc if doc is not None else self._new_document(None)

    def new_scratch(self) -> None:
        doc = self.scratch()
        self.tabs.show_document(doc)
        doc.editor.setFocus()

    def next_tab(self, step: int) -> None:
        n = self.tabs.count()
        if n > 1:
            self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % n)
            self.editor.setFocus()

    # ------------------------------------------------------------ opening

    def open_path(
        self,
        path: Path,
        *,
        focus: bool = False,
        then: Callable[[Document], None] | None = None,
    ) -> None:
        """Show ``path`` in its tab: an open tab comes to the front (read again from disk only
        when its text was emptied); else the file is read off the GUI thread into a new tab
        (into the Untitled tab when that is empty)."""
        path = Path(path).absolute() if not Path(path).is_absolute() else Path(path)
        doc = self.tabs.find_doc(path)
        if doc is not None and (doc.unsaved or not doc.modified):
            self._front(doc, focus, then)  # its cursor, scroll and undo history kept
            return

        def loaded(text: str) -> None:
            target = self.tabs.find_doc(path)
            if target is None:
                blank = self.tabs.find_doc(None)
                if blank is not None and not blank.text and blank is self.current:
                    target, blank.path = blank, path  # the empty Untitled tab becomes the file
                else:
                    target = self._new_document(path)
            elif target.unsaved:  # typed into while the file was read
                self._front(target, focus, then)
                return
            self._set_text(target, text, saved=text)
            if then is None:  # else it was opened to show a place, which says why
                self.source_status.setText(f"{path.name} loaded: Compile (Ctrl+B) to deploy it.")
            self._front(target, focus, then)

        def failed(reason: str) -> None:
            self.source_status.setText(f"✘ {path.name} cannot be opened: {reason}")

        self.controller.tasks.start(
            f"Opening {path.name}",
            asyncio.to_thread(path.read_text, encoding="utf-8"),
            on_done=while_alive(self, loaded),
            on_error=while_alive(self, failed),
        )

    def _front(self, doc: Document, focus: bool, then: Callable[[Document], None] | None) -> None:
        self.tabs.refresh_title(doc)
        self.tabs.show_document(doc)
        self._front_changed()
        if focus:
            doc.editor.setFocus()
        if then is not None:
            then(doc)

    def open_location(self, path: Path, line: int, column: int = 1) -> None:
        """Bring ``path`` to the front with the cursor at ``line``/``column`` (1-based)."""
        self.open_path(path, focus=True, then=lambda d: go_to(d.editor, line, column))

    def load_path(self, path: Path, sample: str | None = None) -> None:
        """Open a file in its tab; a sample goes into the Untitled tab."""
        if sample is None:
            self.open_path(path)
            return

        def loaded(text: str) -> None:
            doc = self.scratch()
            self._set_text(doc, text, saved=text, sample=sample)
            self.source_status.setText(f"{path.name} loaded: Compile (Ctrl+B) to deploy it.")
            self._front(doc, False, None)

        def failed(reason: str) -> None:
            self.source_status.setText(f"✘ The sample {sample} cannot be read: {reason}")

        self.controller.tasks.start(
            f"Opening {path.name}",
            asyncio.to_thread(path.read_text, encoding="utf-8"),
            on_done=while_alive(self, loaded),
            on_error=while_alive(self, failed),
        )

    def _sample_chosen(self, index: int) -> None:
        path = self.samples.itemData(index)
        if not path:
            return
        name = self.samples.itemText(index)
        self._front_changed()  # the box shows what the editor holds until the sample is loaded
        doc = self.tabs.find_doc(None)

        def load() -> None:
            self.load_path(Path(str(path)), name)

        if doc is None or not doc.unsaved:
            load()
            return
        self.tabs.show_document(doc)
        self.ask_unsaved(
            doc,
            "The draft has changes that are not saved.",
            f"Save them before opening {name}?",
            load,
        )

    def open_file(self) -> QFileDialog:
        return file_dialog(
            self,
            "Open a contract",
            "Solidity (*.sol);;All (*)",
            lambda f: self.open_path(Path(f), focus=True),
            directory=str(self.folder or SAMPLES),
        )

    def choose_folder(self) -> QFileDialog:
        dialog = QFileDialog(self, "Open a folder as a project", str(self.folder or Path.home()))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setObjectName("composerFolderDialog")
        dialog.fileSelected.connect(lambda f: self.set_folder(Path(f)))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def set_folder(self, folder: Path | None) -> None:
        self.sidebar.set_root(folder.absolute() if folder is not None else None)
        if folder is not None:
            self.source_status.setText(
                f"Project {folder.name}: click a file to open it; Compile follows its imports."
            )
        self._schedule()

    # ------------------------------------------------------------ closing tabs

    def close_tab(self, doc: Document | None = None) -> QMessageBox | None:
        """Close a tab (the one in front by default), asking first about unsaved edits."""
        doc = doc or self.current
        if doc.modified if doc.path is not None else doc.unsaved:
            self.tabs.show_document(doc)
            return self.ask_unsaved(
                doc,
                f"{doc.name} has changes that are not saved.",
                "Save them before closing it?",
                lambda: self._drop(doc),
            )
        self._drop(doc)
        return None

    def _drop(self, doc: Document) -> None:
        if doc.editor not in self.tabs.docs:
            return
        self.tabs.remove(doc)
        if not self.tabs.count():
            self._new_document(None)
        self._front_changed()

    # ------------------------------------------------------------ asking

    def ask_unsaved(
        self,
        doc: Document,
        text: str,
        question: str,
        proceed: Callable[[], None],
        quitting: bool = False,
    ) -> QMessageBox:
        """Save / Discard / Cancel (non-blocking): Save writes the file (asking where for a
        draft) and then proceeds, Discard proceeds, Cancel changes nothing."""
        if self.quit_prompt is not None:  # asked already (Ctrl+Q again): the same question
            self.quit_prompt.activateWindow()
            return self.quit_prompt
        buttons = QMessageBox.StandardButton
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Unsaved changes",
            text,
            buttons.Save | buttons.Discard | buttons.Cancel,
            self,
        )
        box.setObjectName("composerQuitPrompt" if quitting else "composerReplacePrompt")
        box.setInformativeText(question)
        box.setDefaultButton(buttons.Save)
        box.setEscapeButton(buttons.Cancel)

        def answered(button: Any) -> None:
            choice = box.standardButton(button)
            if choice == buttons.Save:
                if doc.path is not None:
                    self.save_to(str(doc.path), then=proceed, doc=doc)
                else:
                    self.save_file(then=proceed, doc=doc)
            elif choice == buttons.Discard:
                doc.discarded = quitting
                proceed()

        def gone(_code: int) -> None:
            self.quit_prompt = None
            box.deleteLater()

        box.buttonClicked.connect(answered)
        box.finished.connect(gone)
        self.quit_prompt = box
        box.open()
        return box

    def maybe_keep_source(self) -> bool:
        """Called before the app quits: False keeps it open (the user is asked about a file's
        unsaved edits and quits again from the answer). The workspace is written either way;
        before the last run's is back (the first milliseconds), the quit waits for it."""
        if not self._loaded:
            self._quit_when_loaded = True
            return False
        for doc in self.tabs.documents():
            if doc.path is not None and doc.modified and not doc.discarded:
                self.tabs.show_document(doc)
                self.ask_unsaved(
                    doc,
                    f"{doc.name} has changes that are not saved.",
                    "Save them before quitting?",
                    self._quit,
                    quitting=True,
                )
                self.keep_workspace()
                return False
        self.keep_workspace()
        return True

    def _quit(self) -> None:
        QTimer.singleShot(0, self.window().close)  # after the prompt has gone

    # ------------------------------------------------------------ saving

    def save(self) -> QFileDialog | None:
        """Save the tab in front to its file, or ask where (a draft or a sample)."""
        if self.path is None:
            return self.save_file()
        self.save_to(str(self.path))
        return None

    def save_file(
        self, then: Callable[[], None] | None = None, doc: Document | None = None
    ) -> QFileDialog:
        return file_dialog(
            self,
            "Save the contract",
            "Solidity (*.sol)",
            lambda f: self.save_to(f, then=then, doc=doc),
            save_suffix="sol",
            # the project's folder, else the documents folder (not the working directory)
            directory=str(self.folder or start_folder(self.controller, CONTRACT)),
        )

    def save_to(
        self, name: str, then: Callable[[], None] | None = None, doc: Document | None = None
    ) -> None:
        doc = doc or self.current
        text = doc.text
        path = Path(name).absolute()

        def saved(_r: object) -> None:
            doc.path, doc.sample, doc.saved_text, doc.discarded = path, None, text, False
            self.tabs.refresh_title(doc)
            self._front_changed()
            self.source_status.setText(f"Saved {path}")
            self.file_saved.emit(str(path))
            self.keep_workspace()
            if then is not None:
                then()

        def failed(reason: str) -> None:
            self.source_status.setText(f"✘ Not saved: {reason}")

        self.controller.tasks.start(
            f"Saving {path.name}",
            asyncio.to_thread(path.write_text, text, encoding="utf-8"),
            on_done=while_alive(self, saved),
            on_error=while_alive(self, failed),
        )

    def open_sources(self) -> dict[str, str]:
        """Absolute path -> text of the file tabs with unsaved edits."""
        return {str(d.path): d.text for d in self.tabs.documents() if d.path and d.modified}

    # ------------------------------------------------------------ compile problems

    def show_problems(self, problems: list[Problem]) -> None:
        """List them, and mark the first of each file in its tab (opened when needed); the
        first comes to the front."""
        for doc in self.tabs.documents():
            doc.editor.clear_error()
        self.problems.clear()
        for p in problems:
            item = QListWidgetItem(f"{p.where()}: {p.message}", self.problems)
            item.setData(Qt.ItemDataRole.UserRole, p)
            item.setToolTip(str(p.path) if p.path else "Untitled")
        self.problems.setVisible(bool(problems))
        if problems:  # as tall as its entries, up to four
            rows = sum(self.problems.sizeHintForRow(r) for r in range(min(len(problems), 4)))
            self.problems.setFixedHeight(rows + 2 * self.problems.frameWidth() + 2)
        marked: set[Path | None] = set()
        for i, p in enumerate(problems):
            if p.path in marked or not p.line:
                continue
            marked.add(p.path)

            def mark(d: Document, p: Problem = p, first: bool = i == 0) -> None:
                d.editor.mark_error(f"line {p.line}, column {p.column}")
                if first:
                    go_to(d.editor, p.line, p.column)

            found = self.tabs.find_doc(p.path)
            if p.path is None or (found is not None and found.unsaved):
                if found is not None:
                    mark(found)
                    if i == 0:
                        self.tabs.show_document(found)
            elif i == 0:
                self.open_path(p.path, then=mark)
            elif found is not None:
                mark(found)

    def clear_problems(self) -> None:
        for doc in self.tabs.documents():
            doc.editor.clear_error()
        self.problems.clear()
        self.problems.hide()

    def _problem_chosen(self, item: QListWidgetItem) -> None:
        p = item.data(Qt.ItemDataRole.UserRole)
        if not isinstance(p, Problem):
            return
        if p.path is None:
            doc = self.scratch()
            self.tabs.show_document(doc)
            go_to(doc.editor, max(p.line, 1), max(p.column, 1))
            doc.editor.setFocus()
        else:
            self.open_location(p.path, max(p.line, 1), max(p.column, 1))

    # ------------------------------------------------------------ the workspace

    def _schedule(self) -> None:
        if self._loaded:
            self._autosave.start()

    def workspace_state(self) -> dict[str, Any]:
        tabs = []
        for d in self.tabs.documents():
            cursor = d.editor.textCursor()
            tabs.append(
                {
                    "path": d.key(),
                    "sample": d.sample if d.sample and not d.modified else None,
                    "cursor": cursor.position(),
                    "scroll": d.editor.verticalScrollBar().value(),
                }
            )
        return {
            "version": 1,
            "folder": str(self.folder) if self.folder else None,
            "tabs": tabs,
            "current": self.tabs.currentIndex(),
            "breakpoints": dict(self.kept_breakpoints),
            "watches": list(self.kept_watches),
        }

    def _wanted(self) -> dict[str | None, str]:
        out: dict[str | None, str] = {}
        for d in self.tabs.documents():
            if d.discarded:
                continue
            if (d.path is not None and d.modified) or (d.path is None and d.unsaved):
                out[d.key()] = d.text
        return out

    def keep_workspace(self) -> None:
        """Write what changed since the last time (on the store's worker thread); not before
        the last run's workspace is back, which this would overwrite."""
        self._autosave.stop()
        if not self._loaded:
            return
        wanted = self._wanted()
        changed: dict[str | None, str | None] = {
            k: v for k, v in wanted.items() if self._written.get(k) != v
        }
        changed.update({k: None for k in self._written if k not in wanted})
        state = self.workspace_state()
        if not changed and state == self._last_state:
            return
        self._written, self._last_state = wanted, state
        future = self.store.save(state, changed)
        future.add_done_callback(self._write_done)

    def _write_done(self, future: Any) -> None:
        exc = future.exception()
        if exc is not None:  # on the worker thread: the message signal crosses to the GUI's
            self.controller.message.emit(
                "warning", "Composer", f"cannot keep the unsaved edits: {exc}", ""
            )

    async def flushed(self) -> None:
        """Wait for every write asked for so far (tests, and the window's close)."""
        await asyncio.wrap_future(self.store.save(self._last_state or {}, {}))

    def restore_workspace(self) -> None:
        """Bring back the last run's folder and tabs with their unsaved text; text typed in the
        meantime wins."""
        if self._loaded:
            return

        async def load() -> Restored:
            return await asyncio.wrap_future(self.store.load())

        self.controller.tasks.start(
            "Reopening the composer's files",
            load(),
            on_done=while_alive(self, self._restored),
            on_error=while_alive(self, self._restore_failed),
        )

    def _restore_failed(self, reason: str) -> None:
        self._loaded = True
        self.source_status.setText(f"The last session's files could not be read: {reason}")
        if self._quit_when_loaded:
            self._quit()

    def _restored(self, r: Restored) -> None:
        kept = r.state.get("breakpoints")
        if isinstance(kept, dict):
            self.kept_breakpoints = {
                str(k): [[n, c] if c else n for n, c in split_kept(v)]
                for k, v in kept.items()
                if isinstance(v, list)
            }
        watches = r.state.get("watches")
        if isinstance(watches, list):
            self.kept_watches = [w for w in watches if isinstance(w, str) and w.strip()]
            self.watches_restored.emit(list(self.kept_watches))
        apply_restored(self, r)
        scratch = self.tabs.find_doc(None)
        if scratch is not None:
            _restore_breakpoints(scratch.editor, self.kept_breakpoints.get("", []))
        self._loaded = True
        self._written = {k: v for k, v in self._wanted().items() if r.buffers.get(k) == v}
        self._schedule()
        if self._quit_when_loaded:
            self._quit()


def split_kept(entries: list[Any]) -> list[tuple[int, str | None]]:
    """Kept breakpoints (each a line, or ``[line, condition]``) as (line, condition)."""
    out: list[tuple[int, str | None]] = []
    for e in entries:
        if isinstance(e, int) and not isinstance(e, bool):
            out.append((e, None))
        elif isinstance(e, list) and len(e) == 2 and isinstance(e[0], int):
            out.append((e[0], str(e[1]) if e[1] else None))
    return out


def _restore_breakpoints(editor: SourceEditor, entries: list[Any]) -> None:
    kept = split_kept(entries)
    editor.set_breakpoints([n for n, _ in kept], {n: c for n, c in kept if c})


def go_to(editor: SourceEditor, line: int, column: int = 1) -> None:
    """Put the cursor at ``line``/``column`` (1-based, clamped) and show that line."""
    block = editor.document().findBlockByNumber(max(line, 1) - 1)
    if not block.isValid():
        block = editor.document().lastBlock()
    cursor = QTextCursor(block)
    cursor.setPosition(block.position() + min(max(column, 1) - 1, max(block.length() - 1, 0)))
    editor.setTextCursor(cursor)
    editor.centerCursor()
    editor.highlight_line(block.blockNumber() + 1)  # where it landed, not only the caret
