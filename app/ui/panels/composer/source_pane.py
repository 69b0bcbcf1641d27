"""The composer's source side: the editor, samples, open/save, and what becomes of unsaved text.

Scratch text (typed, pasted, an edited sample) is kept as a draft in settings.json while you type
and comes back at the next start, so quitting never loses it and never has to ask. Text from a
file belongs to the file: unsaved edits are asked about before quitting (Save / Discard /
Cancel), as in any editor.
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
    QMessageBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.services.controller import AppController
from app.ui.paths import RESOURCES
from app.ui.shell.theme import scheme_is_dark
from app.ui.widgets.common import file_dialog, name_widget, while_alive
from app.ui.widgets.source_editor import SourceEditor

SAMPLES = RESOURCES / "contracts"
DRAFT_KEY = "composer_draft"
AUTOSAVE_MS = 1200  # after the last keystroke


class SourcePane(QWidget):
    """Signals: saved(str): the source was written to this file; opened(str): a file was
    loaded."""

    saved = Signal(str)
    opened = Signal(str)

    def __init__(self, controller: AppController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.path: Path | None = None  # the file the text came from or was saved to
        self.sample: str | None = None  # the sample it came from (while unedited)
        self.saved_text = ""  # the file's (or sample's) text as last read or written
        self._loaded = False  # settings known: the draft was restored, drafts may be written
        self._discarded = False  # the user chose to quit without saving the file's edits
        self._writes: set[asyncio.Task[None]] = set()
        self.quit_prompt: QMessageBox | None = None

        self.editor = SourceEditor(self, dark=scheme_is_dark())
        self.samples = QComboBox(self)
        name_widget(self.samples, "composerSamples", "Sample contracts")
        self.samples.addItem("Samples…", None)
        for f in sorted(SAMPLES.glob("*.sol")) if SAMPLES.is_dir() else []:
            self.samples.addItem(f.stem, str(f))
        self.samples.setToolTip("Load a sample contract")
        self.samples.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.samples.setMinimumContentsLength(9)
        self.samples.activated.connect(self._sample_chosen)
        self.open_button = self._button("Open…", "composerOpen", "Open a .sol file", "Ctrl+O")
        self.open_button.clicked.connect(self.open_file)
        self.save_button = self._button("Save", "composerSave", "Save the source", "Ctrl+S")
        self.save_button.clicked.connect(self.save)
        self.save_as_button = self._button(
            "Save as…", "composerSaveAs", "Save the source to a new file", "Ctrl+Shift+S"
        )
        self.save_as_button.clicked.connect(self.save_file)
        self.compile_button = self._button(
            "Compile", "composerCompile", "Ask the node for the contracts' interfaces", "Ctrl+B"
        )
        self.file_label = QLabel("", self)
        name_widget(self.file_label, "composerFile", "Where the source lives")
        self.source_status = QLabel("", self)
        self.source_status.setWordWrap(True)
        name_widget(self.source_status, "composerSourceStatus", "Compile result")
        tools = QHBoxLayout()
        tools_widgets: list[QWidget] = [
            self.samples,
            self.open_button,
            self.save_button,
            self.save_as_button,
            self.compile_button,
        ]
        for w in tools_widgets:
            tools.addWidget(w)
        tools.addStretch(1)
        order = [*tools_widgets, self.editor]
        for a, b in itertools.pairwise(order):
            QWidget.setTabOrder(a, b)  # the tools row first, as laid out, then the editor
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(tools)
        lay.addWidget(self.file_label)
        lay.addWidget(self.editor, 1)
        lay.addWidget(self.source_status)

        self._autosave = QTimer(self)
        self._autosave.setSingleShot(True)
        self._autosave.setInterval(AUTOSAVE_MS)
        self._autosave.timeout.connect(self.keep_draft)
        self.editor.textChanged.connect(self._edited)
        controller.settings_loaded.connect(self.restore_draft)
        self._edited()
        if controller.settings_ready:  # built after the settings were read
            self.restore_draft()

    def _button(self, text: str, name: str, accessible: str, shortcut: str) -> QToolButton:
        b = QToolButton(self)  # narrower than push buttons: the editor's row fits 1024 px
        b.setText(text)
        b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        name_widget(b, name, accessible)
        b.setShortcut(shortcut)
        b.setToolTip(f"{accessible} ({shortcut})")
        return b

    # ------------------------------------------------------------ state

    @property
    def modified(self) -> bool:
        """The text differs from the file (or sample) it came from."""
        return self.editor.toPlainText() != self.saved_text

    def _set_source(
        self, text: str, *, path: Path | None = None, sample: str | None = None, saved: str = ""
    ) -> None:
        self.path, self.sample, self.saved_text = path, sample, saved
        self._discarded = False
        if text == self.editor.toPlainText():
            self._edited()
        else:
            self.editor.setPlainText(text)
        self.editor.clear_error()

    def _edited(self) -> None:
        edited = self.modified
        index = self.samples.findText(self.sample) if self.sample and not edited else 0
        self.samples.setCurrentIndex(max(index, 0))  # a sample no more: the neutral entry
        if self.path is not None:
            self.file_label.setText(self.path.name + (" — unsaved changes" if edited else ""))
            self.file_label.setToolTip(str(self.path))
        elif self.sample and not edited:
            self.file_label.setText(f"Sample {self.sample}")
            self.file_label.setToolTip("")
        else:
            self.file_label.setText("Draft (kept until the next start; Save to put it in a file)")
            self.file_label.setToolTip("")
        if self._loaded:
            self._autosave.start()

    # ------------------------------------------------------------ draft

    def draft(self) -> dict[str, Any]:
        """What settings.json keeps: the text, and the file or sample it came from."""
        text = self.saved_text if self._discarded else self.editor.toPlainText()
        path = str(self.path) if self.path is not None else None
        sample = self.sample if self.sample and not self.modified else None
        return {"text": text, "path": path, "sample": sample}

    def keep_draft(self) -> None:
        """Write the draft to settings.json (off the GUI thread; not before the settings were
        read, which would overwrite them)."""
        self._autosave.stop()
        if not self._loaded:
            return
        task = asyncio.get_event_loop().create_task(
            self.controller.save_settings(**{DRAFT_KEY: self.draft()})
        )
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    def restore_draft(self) -> None:
        """Bring back the last session's source (once the settings are known); text typed in
        the meantime wins."""
        self._loaded = True
        draft = self.controller.setting(DRAFT_KEY)
        if not isinstance(draft, dict) or self.editor.toPlainText():
            return
        text = str(draft.get("text") or "")
        path = Path(str(draft["path"])) if draft.get("path") else None
        sample = str(draft["sample"]) if draft.get("sample") else None
        if path is None:
            if text:
                self._set_source(text, sample=sample, saved=text if sample else "")
                self.source_status.setText("Your draft from the last session is back.")
            return

        def read(file_text: str) -> None:
            if self.editor.toPlainText():
                return
            self._set_source(text or file_text, path=path, saved=file_text)
            extra = " with your unsaved changes" if self.modified else ""
            self.source_status.setText(f"{path.name} reopened{extra}.")

        def unreadable(reason: str) -> None:
            if self.editor.toPlainText():
                return
            self._set_source(text)
            self.source_status.setText(
                f"{path} cannot be read any more ({reason}); its last text is here as a draft."
            )

        self.controller.tasks.start(
            f"Reopening {path.name}",
            asyncio.to_thread(path.read_text, encoding="utf-8"),
            on_done=while_alive(self, read),
            on_error=while_alive(self, unreadable),
        )

    def maybe_keep_source(self) -> bool:
        """Called before the app quits: False keeps it open (the user is asked about a file's
        unsaved edits and quits again from the answer). Scratch text is kept as the draft."""
        if self.path is not None and self.modified and not self._discarded:
            self.ask_before_quit()
            return False
        self.keep_draft()
        return True

    def ask_before_quit(self) -> QMessageBox:
        assert self.path is not None
        return self.ask_unsaved(
            f"{self.path.name} has changes that are not saved.",
            "Save them before quitting?",
            self._quit,
            quitting=True,
        )

    @property
    def unsaved(self) -> bool:
        """Replacing the text would lose something: a file's edits, or typed text that is no
        unedited sample."""
        text = self.editor.toPlainText()
        if not text.strip():
            return False
        if self.path is not None or self.sample is not None:
            return self.modified
        return True

    def ask_unsaved(
        self, text: str, question: str, proceed: Callable[[], None], quitting: bool = False
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
                if self.path is not None:
                    self.save_to(str(self.path), then=proceed)
                else:
                    self.save_file(then=proceed)
            elif choice == buttons.Discard:
                self._discarded = quitting
                proceed()

        def gone(_code: int) -> None:
            self.quit_prompt = None
            box.deleteLater()

        box.buttonClicked.connect(answered)
        box.finished.connect(gone)
        self.quit_prompt = box
        box.open()
        return box

    def _replace(self, what: str, load: Callable[[], None]) -> None:
        """Load other source, asking first when the current text would be lost."""
        if not self.unsaved:
            load()
            return
        name = self.path.name if self.path is not None else "The draft"
        self.ask_unsaved(
            f"{name} has changes that are not saved.", f"Save them before opening {what}?", load
        )

    def _quit(self) -> None:
        QTimer.singleShot(0, self.window().close)  # after the prompt has gone

    # ------------------------------------------------------------ files

    def _sample_chosen(self, index: int) -> None:
        path = self.samples.itemData(index)
        if not path:
            return
        name = self.samples.itemText(index)
        self._edited()  # the box shows what the editor holds until the sample is loaded
        self._replace(f"the sample {name}", lambda: self.load_path(Path(str(path)), name))

    def load_path(
        self, path: Path, sample: str | None = None, then: Callable[[], None] | None = None
    ) -> None:
        def loaded(text: str) -> None:
            self._set_source(text, path=None if sample else path, sample=sample, saved=text)
            self.source_status.setText(f"{path.name} loaded: Compile (Ctrl+B) to deploy it.")
            self.opened.emit(str(path))
            if then is not None:
                then()

        self.controller.tasks.start(
            f"Opening {path.name}",
            asyncio.to_thread(path.read_text, encoding="utf-8"),
            on_done=while_alive(self, loaded),
        )

    def open_at(self, path: Path, line: int, column: int = 1) -> None:
        """Show ``path`` (loading it, asking first about unsaved text) with the cursor at
        ``line``, ``column``."""
        if self.path is not None and self.path.absolute() == path.absolute():
            self.go_to(line, column)
        else:
            then = lambda: self.go_to(line, column)  # noqa: E731
            self._replace(path.name, lambda: self.load_path(path, then=then))

    def go_to(self, line: int, column: int = 1) -> None:
        block = self.editor.document().findBlockByNumber(max(line - 1, 0))
        cursor = QTextCursor(block)
        cursor.movePosition(QTextCursor.MoveOperation.Right, n=max(column - 1, 0))
        self.editor.setTextCursor(cursor)
        self.editor.centerCursor()
        self.editor.setFocus()

    def open_file(self) -> QFileDialog:
        return file_dialog(
            self,
            "Open a contract",
            "Solidity (*.sol);;All (*)",
            lambda f: self._replace(Path(f).name, lambda: self.load_path(Path(f))),
            directory=str(SAMPLES),
        )

    def save(self) -> QFileDialog | None:
        """Save to the file the text came from, or ask where (a draft or a sample)."""
        if self.path is None:
            return self.save_file()
        self.save_to(str(self.path))
        return None

    def save_file(self, then: Callable[[], None] | None = None) -> QFileDialog:
        return file_dialog(
            self,
            "Save the contract",
            "Solidity (*.sol)",
            lambda f: self.save_to(f, then=then),
            save_suffix="sol",
        )

    def save_to(self, name: str, then: Callable[[], None] | None = None) -> None:
        text = self.editor.toPlainText()
        path = Path(name)

        def saved(_r: object) -> None:
            self.path, self.sample, self.saved_text = path, None, text
            self._edited()
            self.source_status.setText(f"Saved {path}")
            self.saved.emit(str(path))
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
