"""Putting the last run's workspace back into the composer: the folder, the tabs in their order
with their cursors, and each tab's unsaved text over its file's (marked unsaved). Edits whose
tab the last run did not get to record (a crash right after opening a file) come back too."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtGui import QTextCursor

from app.ui.panels.composer.documents import Document
from app.ui.panels.composer.workspace import Restored

if TYPE_CHECKING:
    from app.ui.panels.composer.source_pane import SourcePane


def apply_restored(pane: SourcePane, r: Restored) -> None:
    from app.ui.panels.composer.source_pane import DRAFT_KEY, SAMPLES

    state = r.state
    entries = [t for t in state.get("tabs") or [] if isinstance(t, dict)]
    if not entries and not r.buffers:
        controller = pane.controller
        if controller.settings_ready:
            _carry_over(pane, controller.setting(DRAFT_KEY))
        else:  # once settings.json was read (a first start of this version)

            def later() -> None:
                controller.settings_loaded.disconnect(later)
                if shiboken6.isValid(pane):
                    _carry_over(pane, controller.setting(DRAFT_KEY))

            controller.settings_loaded.connect(later)
        return
    paths = {str(t.get("path")) for t in entries if t.get("path")}
    entries += [{"path": p} for p in r.buffers if p is not None and p not in paths]
    if None in r.buffers and not any(t.get("path") is None for t in entries):
        entries.insert(0, {"path": None})
    if r.folder is not None:
        pane.sidebar.set_root(Path(r.folder))
    initial = pane.tabs.find_doc(None)
    placed: list[tuple[Document, dict[str, Any]]] = []
    notes: list[str] = []
    reopened: list[Document] = []
    for entry in entries:
        path = entry.get("path")
        if path is None:
            doc = pane.scratch()
            if not doc.text:
                text = r.buffers.get(None)
                sample = entry.get("sample")
                if text:
                    pane._set_text(doc, text, saved="")
                    notes.append("Your draft from the last session is back.")
                elif isinstance(sample, str) and "/" not in sample and "\\" not in sample:
                    pane.load_path(SAMPLES / f"{sample}.sol", sample)
            placed.append((doc, entry))
            continue
        p = Path(str(path))
        if pane.tabs.find_doc(p) is not None:
            continue  # opened in the meantime
        text = r.buffers.get(str(path))
        if str(path) in r.unreadable:
            if text is None:
                notes.append(f"{p.name} was not reopened: {r.unreadable[str(path)]}.")
                continue
            notes.append(
                f"{p} cannot be read ({r.unreadable[str(path)]}): its unsaved text is back; "
                "Save writes it there again."
            )
        doc = pane._new_document(p)
        disk = r.disk.get(str(path), "")
        pane._set_text(doc, text if text is not None else disk, saved=disk)
        reopened.append(doc)
        placed.append((doc, entry))
    unused = initial is not None and all(d is not initial for d, _ in placed)
    if unused and initial is not None and not initial.text and pane.tabs.count() > 1:
        pane.tabs.remove(initial)
    for want, (doc, _entry) in enumerate(placed):
        at = pane.tabs.index_of(doc)
        if at >= 0 and at != want and want < pane.tabs.count():
            pane.tabs.tabBar().moveTab(at, want)
    for doc, entry in placed:
        _put_cursor(doc, entry)
    current = state.get("current")
    if isinstance(current, int) and 0 <= current < pane.tabs.count():
        pane.tabs.setCurrentIndex(current)
    for doc in pane.tabs.documents():
        pane.tabs.refresh_title(doc)
    pane._front_changed()
    if reopened:
        changed = [d for d in reopened if d.modified]
        if len(reopened) == 1:
            extra = " with your unsaved changes" if changed else ""
            notes.insert(0, f"{reopened[0].name} reopened{extra}.")
        else:
            extra = f", {len(changed)} with unsaved changes" if changed else ""
            notes.insert(0, f"{len(reopened)} files reopened{extra}.")
    if notes:
        pane.source_status.setText(" ".join(notes))


def _put_cursor(doc: Document, entry: dict[str, Any]) -> None:
    pos = entry.get("cursor")
    if isinstance(pos, int) and 0 <= pos <= len(doc.text):
        cursor = doc.editor.textCursor()
        cursor.setPosition(pos, QTextCursor.MoveMode.MoveAnchor)
        doc.editor.setTextCursor(cursor)
    scroll = entry.get("scroll")
    if isinstance(scroll, int):
        doc.editor.verticalScrollBar().setValue(scroll)


def _carry_over(pane: SourcePane, draft: Any) -> None:
    """The one-editor composer kept its text as a draft in settings.json: take it in once."""
    if not isinstance(draft, dict):
        return
    text = str(draft.get("text") or "")
    sample = str(draft["sample"]) if draft.get("sample") else None
    if not draft.get("path"):
        doc = pane.scratch()
        if text and not doc.text:
            pane._set_text(doc, text, saved=text if sample else "", sample=sample)
            pane.source_status.setText("Your draft from the last session is back.")
        return
    path = Path(str(draft["path"]))

    def put(doc: Document) -> None:
        if text and text != doc.saved_text and doc.text == doc.saved_text:
            doc.editor.setPlainText(text)
        extra = " with your unsaved changes" if doc.modified else ""
        pane.source_status.setText(f"{path.name} reopened{extra}.")

    pane.open_path(path, then=put)
