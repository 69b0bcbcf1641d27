"""The composer's open files: one editor per tab, each knowing the file (or sample) its text
came from, so the tab title can say when it has unsaved edits."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QTabWidget, QWidget

from app.ui.shell.theme import scheme_is_dark
from app.ui.widgets.common import name_widget
from app.ui.widgets.source_editor import SourceEditor

UNTITLED = "Untitled"
MODIFIED = " •"


class Document:
    """One tab: its editor and where its text belongs. ``path`` None is the scratch buffer."""

    def __init__(self, editor: SourceEditor, path: Path | None = None) -> None:
        self.editor = editor
        self.path = path
        self.sample: str | None = None  # the sample it came from (while unedited)
        self.saved_text = ""  # the file's (or sample's) text as last read or written
        self.discarded = False  # the user chose to quit without saving its edits

    @property
    def text(self) -> str:
        return self.editor.toPlainText()

    @property
    def modified(self) -> bool:
        """The text differs from the file (or sample) it came from."""
        return self.text != self.saved_text

    @property
    def unsaved(self) -> bool:
        """Closing or replacing it would lose something: a file's edits, or typed text that is no
        unedited sample (blank text is nothing to lose)."""
        if not self.text.strip():
            return False
        if self.path is not None or self.sample is not None:
            return self.modified
        return True

    @property
    def name(self) -> str:
        return self.path.name if self.path is not None else UNTITLED

    def key(self) -> str | None:
        return str(self.path) if self.path is not None else None


class EditorTabs(QTabWidget):
    """Tabs over the documents (closable, movable); the current one is the file in front."""

    documents_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        name_widget(self, "composerEditorTabs", "Open files")
        self.setTabsClosable(True)
        self.setMovable(True)
        self.setDocumentMode(True)
        self.setElideMode(Qt.TextElideMode.ElideNone)  # whole names; the bar scrolls
        self.setUsesScrollButtons(True)
        # switching is Ctrl+PgUp/PgDn: clicking a tab leaves the keyboard in the editor
        self.tabBar().setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.docs: dict[SourceEditor, Document] = {}
        self.tabBar().tabMoved.connect(lambda _a, _b: self.documents_changed.emit())

    def new_document(self, path: Path | None = None, at: int = -1) -> Document:
        editor = SourceEditor(self, dark=scheme_is_dark())
        doc = Document(editor, path)
        self.docs[editor] = doc
        index = self.insertTab(at if at >= 0 else self.count(), editor, doc.name)
        self.refresh_title(doc, index)
        self.documents_changed.emit()
        return doc

    def documents(self) -> list[Document]:
        """In tab order."""
        out = []
        for i in range(self.count()):
            w = self.widget(i)
            if isinstance(w, SourceEditor) and w in self.docs:
                out.append(self.docs[w])
        return out

    def current(self) -> Document:
        w = self.currentWidget()
        assert isinstance(w, SourceEditor)
        return self.docs[w]

    def find_doc(self, path: Path | None) -> Document | None:
        for doc in self.documents():
            if path is None and doc.path is None:
                return doc
            if path is not None and doc.path is not None and _same(doc.path, path):
                return doc
        return None

    def index_of(self, doc: Document) -> int:
        return self.indexOf(doc.editor)

    def show_document(self, doc: Document) -> None:
        self.setCurrentWidget(doc.editor)

    def remove(self, doc: Document) -> None:
        index = self.index_of(doc)
        if index >= 0:
            self.removeTab(index)
        self.docs.pop(doc.editor, None)
        doc.editor.deleteLater()
        self.documents_changed.emit()

    def refresh_title(self, doc: Document, index: int | None = None) -> None:
        i = self.index_of(doc) if index is None else index
        if i < 0:
            return
        title = doc.name + (MODIFIED if doc.unsaved or (doc.path and doc.modified) else "")
        self.setTabText(i, title)
        self.setTabToolTip(i, str(doc.path) if doc.path else "Scratch text, kept between runs")


def _same(a: Path, b: Path) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))
