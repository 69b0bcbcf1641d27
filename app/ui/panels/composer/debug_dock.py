"""The composer's step debugger: a **Debug** button beside Call, breakpoints from the editors'
gutters (conditions from the dot's menu), the current line lit while paused, the keys (F5
continue, F10 step over, F11 step in, Shift+F11 step out, Shift+F5 stop), Debug on a test of the
Tests view, and the Debug dock (:mod:`.debug_pane`: call stack, watches, variables, evaluate,
pause on failure).

The run is a session of the node's debugger (``/vm-debug``, :class:`DebugService`): the call on
a fresh deployment of the compiled source (or on the contract at the call form's address), on a
copy of the state, so nothing reaches the chain. The bundle's file names go with it, so the
frames' files are the project's files (or the Untitled tab) and breakpoints are theirs.
"""

from __future__ import annotations

import asyncio
import os
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QToolButton,
    QWidget,
)

from app.client.abi_types import AbiTypeError, ContractSpec
from app.client.bundler import Bundle, BundleError, SourceFile, bundle
from app.services.debugging import DebugService
from app.ui.panels.composer.debug_models import VariablesModel
from app.ui.panels.composer.debug_pane import DebugDock, DebugPane
from app.ui.panels.composer.documents import Document
from app.ui.panels.composer.form_helpers import args_text
from app.ui.panels.composer.source_pane import split_kept
from app.ui.widgets.common import name_widget, while_alive

if TYPE_CHECKING:
    from app.ui.panels.composer.panel import ComposerPanel

DEPLOY_DEBUG_TIP = (
    "Run the deploy in the debugger, on a copy of the state: it stops at breakpoints in the "
    "constructor (and what it calls) and writes nothing to the chain"
)

# key, modifiers -> the session's command
KEYS: dict[tuple[int, bool], str] = {
    (Qt.Key.Key_F5.value, False): "continue",
    (Qt.Key.Key_F10.value, False): "next",
    (Qt.Key.Key_F11.value, False): "stepIn",
    (Qt.Key.Key_F11.value, True): "stepOut",
    (Qt.Key.Key_F5.value, True): "stop",
}


def _same(a: str, b: str) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


class ComposerDebugger(QObject):
    """Wires the debugger into the composer panel (a few lines in the panel create it)."""

    def __init__(self, panel: ComposerPanel) -> None:
        super().__init__(panel)
        self.panel = panel
        controller = panel.controller
        self.tasks = controller.tasks
        self.service = DebugService(controller.session, controller.tasks, self)
        self.pane = DebugPane(controller.tasks, panel)
        self.pane.watches.evaluate = self.service.evaluate
        # the watches are kept with the workspace (as breakpoints are)
        self.pane.watches.set_expressions(panel.source.kept_watches)
        self.pane.watches.changed.connect(panel.source.set_watches)
        panel.source.watches_restored.connect(self.pane.watches.set_expressions)
        self.variables = VariablesModel(self._fetch, self)
        self.pane.variables.setModel(self.variables)
        self.frame = 1  # the frame shown (1 = innermost)
        self.frames: list[dict[str, Any]] = []
        self.breakpoints_sent: asyncio.Task[Any] | None = None  # the last change sent
        self.pause_no = 0  # counts pauses and resumptions: reads of an older pause are dropped
        self.session_files: list[str] | None = None  # the running session's file names
        # Debug, and beside its arrow where the run happens (the row stays narrow)
        self.debug_button = QToolButton(panel)
        self.debug_button.setText("Debug")
        name_widget(self.debug_button, "callDebug", "Debug the call (on a copy of the state)")
        self.debug_button.setToolTip(
            "Run the call in the debugger, on a copy of the state: it stops at breakpoints "
            "(F9 in the editor) and writes nothing to the chain"
        )
        self.debug_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.debug_button.clicked.connect(self.debug)
        menu = QMenu(self.debug_button)
        self.fresh = menu.addAction("On a fresh deployment (the Deploy tab's constructor)")
        self.fresh.setCheckable(True)
        self.fresh.setChecked(True)
        self.fresh.setToolTip("Unchecked: debug the contract at the call form's address")
        self.debug_button.setMenu(menu)
        # Debug on the Deploy tab: the constructor, on a copy of the state
        self.deploy_debug = QPushButton("Debug", panel)
        name_widget(self.deploy_debug, "deployDebug", "Debug the constructor (on a copy)")
        self.deploy_debug.setToolTip(DEPLOY_DEBUG_TIP)
        self.deploy_debug.clicked.connect(self.debug_deploy)
        deploy_row = panel.deploy_button.parentWidget()
        deploy_actions = deploy_row.layout() if deploy_row is not None else None
        assert isinstance(deploy_actions, QHBoxLayout)
        deploy_actions.insertWidget(2, self.deploy_debug)
        QWidget.setTabOrder(panel.deploy_batch, self.deploy_debug)
        QWidget.setTabOrder(self.deploy_debug, panel.call_button)
        row = panel.call_button.parentWidget()
        actions = row.layout() if row is not None else None
        assert isinstance(actions, QHBoxLayout)
        actions.insertWidget(2, self.debug_button)
        QWidget.setTabOrder(panel.call_batch, self.debug_button)
        QWidget.setTabOrder(self.debug_button, panel.output)
        # on the Call tab, what Debug's fresh deployment runs first (the Deploy tab's constructor)
        self.fresh_note = QLabel(panel)
        name_widget(self.fresh_note, "callFreshDeployment", "What Debug deploys first")
        self.fresh_note.setWordWrap(True)
        self.fresh_note.linkActivated.connect(self._edit_constructor)
        form = panel.call_args.parentWidget()
        call_form = form.layout() if form is not None else None
        assert isinstance(call_form, QFormLayout)
        self.call_form: QFormLayout = call_form
        field = QFormLayout.ItemRole.FieldRole
        below = next(  # under the Arguments row
            r + 1
            for r in range(call_form.rowCount())
            if (item := call_form.itemAt(r, field)) is not None and item.widget() is panel.call_args
        )
        call_form.insertRow(below, "Debug", self.fresh_note)
        self.fresh.toggled.connect(lambda _on: self.update_buttons())
        panel.call_name.textChanged.connect(lambda _t: self.update_buttons())
        # the Debug dock: the main window docks it (its place is kept with the window's state)
        self.dock = DebugDock(self.pane, panel)
        self.dock.hide()
        for action, b in self.pane.buttons.items():
            b.clicked.connect(lambda _=False, a=action: self.service.command(a))
        self.pane.stack.clicked.connect(self._frame_clicked)
        self.pane.evaluate.returnPressed.connect(self._evaluate)
        s = self.service
        s.stopped.connect(self._stopped)
        s.continued.connect(self._running)
        # (in a span: a line without markup would be appended as plain text, entities shown)
        s.output.connect(lambda text: self._log(escape(text)))
        s.finished.connect(self._finished)
        s.failed.connect(self._failed)
        s.active_changed.connect(lambda _a: self._buttons())
        controller.session.user_changed.connect(lambda _u: self.service.command("stop"))
        panel.tests_view.debug_requested.connect(self.debug_test)
        self.pane.pause_on_failure.toggled.connect(self.service.set_pause_on_failure)
        self._watched: set[int] = set()
        panel.source.tabs.documents_changed.connect(self._watch_editors)
        self._watch_editors()
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    # ------------------------------------------------------------ the forms' buttons

    def offer_compiled(self, spec: ContractSpec | None) -> None:
        """While the call form has no address (nothing deployed yet, or it was cleared), the
        Call tab offers the functions of ``spec``, the Deploy tab's compiled contract: Debug
        runs one on a fresh deployment with the Deploy tab's constructor arguments."""
        p = self.panel
        if spec is None or p.call_address.text().strip():
            return
        p._wanted_method = str(p.function.currentData() or "")  # kept across a recompile
        p.call_name.setText(p.contract.currentText())
        p._set_call_spec(spec, show=False)

    def update_buttons(self) -> None:
        """Debug on the Deploy tab needs a compiled contract; Call… needs an address (Debug
        beside it does not: a fresh deployment)."""
        p = self.panel
        build = p.last_build
        name = p.contract.currentText().strip()
        ok = build is not None and build.bundle is not None and name in build.specs
        self.deploy_debug.setEnabled(ok)
        self.deploy_debug.setToolTip(
            DEPLOY_DEBUG_TIP
            if ok
            else "Compile a contract first (Ctrl+B): there is nothing to debug yet"
        )
        self._note_fresh()
        fn = p._function()
        if fn is not None and not p.call_address.text().strip():
            p.call_button.setToolTip(
                "No address yet: deploy the contract first, or load one (Debug runs the "
                "function on a fresh deployment)"
            )
        else:
            p.call_button.setToolTip(f"{p.call_button.accessibleName()} (Ctrl+Return)")

    def _note_fresh(self) -> None:
        """The Call tab's line on the fresh deployment Debug makes: which contract, with which
        constructor arguments (a link to edit them on the Deploy tab); hidden otherwise."""
        p = self.panel
        build = p.last_build
        name = p.call_name.text().strip()
        shown = (
            self.fresh.isChecked()
            and build is not None
            and name in build.specs
            and p._function() is not None
        )
        if shown:
            try:
                args = (
                    args_text(p.deploy_args.wire_args()) if p.contract.currentText() == name else ""
                )
            except AbiTypeError as exc:
                args = f"✘ {exc}"
            self.fresh_note.setText(
                f"deploys <b>{escape(name)}</b>({escape(args)}) first, on a copy of the state "
                '(<a href="constructor">constructor arguments</a>)'
            )
        self.call_form.setRowVisible(self.fresh_note, shown)

    def _edit_constructor(self, _link: str = "") -> None:
        """The note's link: the Deploy tab, its constructor's first field focused."""
        p = self.panel
        p.contract.setCurrentText(p.call_name.text().strip())
        p.tabs.setCurrentIndex(0)
        first = next(iter(p.deploy_args.editors.values()), None)
        (first or p.deploy_args).setFocus()

    # ------------------------------------------------------------ starting

    def launch(self, body: dict[str, Any], files: list[str] | None = None) -> None:
        """Start a debug session of the node with the launch request ``body`` (as
        ``POST /vm-debug/sessions`` takes it); ``files``: its bundle's file names, so the
        frames' files open in the editor and breakpoints set meanwhile reach the run (None:
        the node's own source of the contract). The Debug dock shows itself. The one entry
        point for other parts of the app (the inspector's Re-run in the debugger)."""
        self.session_files = files
        self._launch(body)

    def launch_body(self) -> dict[str, Any]:
        """The launch request of the call form (AbiTypeError says what is missing)."""
        p = self.panel
        build = p.last_build
        fn = p._function()
        if fn is None:
            raise AbiTypeError("", "choose a function on the Call tab")
        name = p.call_name.text().strip()
        body: dict[str, Any] = {
            "contract": name,
            "function": fn.name,
            "args": p.call_args.wire_args(),
            "stopOnEntry": False,
            "pauseOnFailure": self.pane.pause_on_failure.isChecked(),
        }
        compiled = build is not None and build.bundle is not None and name in build.specs
        if compiled and build is not None and build.bundle is not None:
            body["source"] = build.source
            body["files"] = _files(build.bundle.files)
            body["breakpoints"] = self.breakpoints([f.name for f in build.bundle.files])
        if self.fresh.isChecked():
            if not compiled:
                raise AbiTypeError("", f"compile the source of {name or 'the contract'} first")
            same = p.contract.currentText() == name
            body["constructorArgs"] = p.deploy_args.wire_args() if same else {}
        else:
            address = p.call_address.text().strip().lower().removeprefix("0x")
            if len(address) != 40:
                raise AbiTypeError("address", "a contract address of 40 hex digits")
            body["address"] = address
            if not compiled:  # the node debugs the contract's own source (no breakpoints)
                body.pop("contract")
        return body

    def debug(self) -> None:
        self.panel.call_args.touch_all()
        try:
            body = self.launch_body()
        except AbiTypeError as exc:
            self.panel._show_error(str(exc))
            return
        build = self.panel.last_build
        files = body.get("files")
        self.session_files = (
            [f.name for f in build.bundle.files]
            if files and build is not None and build.bundle is not None
            else None
        )
        self._launch(body)

    def deploy_body(self) -> dict[str, Any]:
        """The launch request of the Deploy tab: the chosen contract's constructor with its
        typed arguments (AbiTypeError says what is missing)."""
        p = self.panel
        build = p.last_build
        name = p.contract.currentText().strip()
        if build is None or build.bundle is None or name not in build.specs:
            raise AbiTypeError("", f"compile the source of {name or 'the contract'} first")
        files = [f.name for f in build.bundle.files]
        return {
            "contract": name,
            "constructorArgs": p.deploy_args.wire_args(),
            "source": build.source,
            "files": _files(build.bundle.files),
            "breakpoints": self.breakpoints(files),
            "stopOnEntry": False,
            "pauseOnFailure": self.pane.pause_on_failure.isChecked(),
        }

    def debug_deploy(self) -> None:
        self.panel.deploy_args.touch_all()
        try:
            body = self.deploy_body()
        except AbiTypeError as exc:
            self.panel._show_error(str(exc))
            return
        self.session_files = [str(f["name"]) for f in body["files"]]
        self._launch(body)

    def _launch(self, body: dict[str, Any]) -> None:
        self.pane.log.clear()
        self.pane.status.setText("Starting the debugger…")
        self.dock.reveal()
        self.service.start(body)

    def debug_test(self, file: str, test: str) -> None:
        """Step through the test ``test`` (``Describe_X.it_y``) of ``file``: its file bundled
        with its imports as the test runner bundles it (unsaved tabs included), on a copy of
        the state, stopping at the breakpoints of every file of the bundle."""
        sources = self.panel.source.open_sources()
        self.pane.status.setText(f"Starting the debugger on {test}…")
        self.dock.reveal()

        def go(b: Bundle) -> None:
            names = [f.name for f in b.files]
            self.session_files = names
            self._launch(
                {
                    "source": b.source,
                    "files": _files(b.files),
                    "test": test,
                    "stopOnEntry": False,
                    "pauseOnFailure": self.pane.pause_on_failure.isChecked(),
                    "breakpoints": self.breakpoints(names),
                }
            )

        self.tasks.start(
            f"Bundling {Path(file).name}",
            _bundled(file, sources),
            on_done=while_alive(self.pane, go),
            on_error=while_alive(self.pane, self._failed),
        )

    # ------------------------------------------------------------ breakpoints

    def _bundle_name(self, doc: Document, files: list[str] | None = None) -> str | None:
        """``doc``'s name among ``files`` (by default the session's, else the last build's)."""
        build = self.panel.last_build
        if files is None:
            files = self.session_files
        if files is None and build is not None and build.bundle is not None:
            files = [f.name for f in build.bundle.files]
        if files is None:
            return None
        if doc.path is None:
            scratch = build.scratch if build is not None else None
            return scratch if scratch in files else None
        for name in files:
            if _same(name, str(doc.path)):
                return name
        return None

    def _doc_of(self, file: str) -> Document | None:
        build = self.panel.last_build
        scratch = build.scratch if build is not None else None
        for d in self.panel.source.tabs.documents():
            if d.path is None and scratch and _same(file, scratch):
                return d
            if d.path is not None and _same(file, str(d.path)):
                return d
        return None

    def breakpoints(self, files: list[str]) -> list[dict[str, Any]]:
        """The breakpoints of ``files`` (bundle names): an open tab's, else those kept with
        the project for a file not open."""
        out: list[dict[str, Any]] = []
        docs = self.panel.source.tabs.documents()
        kept = self.panel.source.kept_breakpoints
        for name in files:
            doc = next((d for d in docs if self._bundle_name(d, files) == name), None)
            if doc is not None:
                lines = {n: doc.editor.conditions.get(n) for n in doc.editor.breakpoints}
            else:
                key = next((k for k in kept if k and _same(k, name)), None)
                lines = dict(split_kept(kept.get(key, []) if key else []))
            for n in sorted(lines):
                cond = lines[n]
                out.append({"file": name, "line": n, **({"condition": cond} if cond else {})})
        return out

    def _watch_editors(self) -> None:
        for d in self.panel.source.tabs.documents():
            if id(d.editor) not in self._watched:
                self._watched.add(id(d.editor))
                d.editor.breakpoints_changed.connect(lambda d=d: self._breakpoints_changed(d))

    def _breakpoints_changed(self, doc: Document) -> None:
        """A breakpoint set or cleared during a session reaches the run at once."""
        client = self.service.client
        name = self._bundle_name(doc)
        if client is None or name is None:
            return
        conds = doc.editor.conditions
        lines = [(n, conds.get(n)) for n in sorted(doc.editor.breakpoints)]
        self.breakpoints_sent = self.tasks.start(
            "Setting breakpoints", client.set_breakpoints(name, lines), on_error=self._failed
        )

    # ------------------------------------------------------------ a pause

    def _stopped(self, frames: list[dict[str, Any]], reason: str, description: str) -> None:
        self.pause_no += 1
        self.frames = frames
        self.pane.stack_model.set_frames(frames)
        self._buttons()
        top = frames[0] if frames else {}
        what = description or reason
        self.pane.status.setText(
            f"Paused ({what}) at {Path(str(top.get('file', ''))).name}, line {top.get('line')}"
        )
        self.show_frame(1)

    def show_frame(self, frame: int) -> None:
        """Show frame ``frame`` (1 = innermost): its line in its file, its variables."""
        if not 1 <= frame <= len(self.frames):
            return
        self.frame = frame
        self.pane.stack.setCurrentIndex(self.pane.stack_model.index(frame - 1))
        f = self.frames[frame - 1]
        line = int(f.get("line") or 1)
        self._clear_lines()
        doc = self._doc_of(str(f.get("file", "")))
        if doc is not None:
            self.panel.source.tabs.show_document(doc)
            _show_line(doc, line)
        elif Path(str(f.get("file", ""))).is_absolute():  # a project file not open
            self.panel.source.open_path(Path(str(f["file"])), then=lambda d: _show_line(d, line))
        self.variables.clear()
        now = self.pause_no
        self.pane.watches.refresh(frame, now)
        self.tasks.start(
            "Reading the frame's variables",
            self.service.scopes(frame),
            on_done=while_alive(
                self.pane, lambda sc: self._scopes(sc) if now == self.pause_no else None
            ),
            on_error=while_alive(self.pane, lambda e: self._read_failed(now, e)),
        )

    def _scopes(self, scopes: list[dict[str, Any]]) -> None:
        self.variables.set_scopes(scopes)
        if scopes:  # the locals open at once
            first = self.variables.index(0, 0)
            self.pane.variables.expand(first)
            self.pane.variables.resizeColumnToContents(0)

    def _fetch(self, ref: int, deliver: Any) -> None:
        now = self.pause_no
        self.tasks.start(
            "Reading variables",
            self.service.variables(ref),
            on_done=while_alive(self.pane, deliver),  # the model drops an older pause's
            on_error=while_alive(self.pane, lambda e: self._read_failed(now, e)),
        )

    def _read_failed(self, pause_no: int, text: str) -> None:
        """A read of the paused run failed; one of a pause since left is nothing to report
        (the run went on meanwhile)."""
        if pause_no == self.pause_no:
            self._log(_red(text))

    def _frame_clicked(self, index: QModelIndex) -> None:
        self.show_frame(index.row() + 1)

    def _evaluate(self) -> None:
        text = self.pane.evaluate.text().strip()
        if not text or not self.service.paused:
            return

        def done(r: dict[str, Any]) -> None:
            shown = f"{r.get('type', '')} {r.get('result', '')}".strip()
            self._log(f"<b>{escape(text)}</b> = {escape(shown)}")

        self.tasks.start(
            "Evaluating",
            self.service.evaluate(text, self.frame),
            on_done=while_alive(self.pane, done),
            on_error=while_alive(self.pane, lambda e: self._log(_red(f"{text}: {e}"))),
        )

    # ------------------------------------------------------------ running, the end

    def _running(self) -> None:
        self.pause_no += 1
        self.pane.watches.running(self.pause_no)
        self._clear_lines()
        self._buttons()
        self.pane.status.setText("Running…")

    def _finished(self, result: Any) -> None:
        self.pause_no += 1
        self.pane.watches.running(self.pause_no)
        self._clear_lines()
        self.frames = []
        self.pane.stack_model.set_frames([])
        self.variables.clear()
        self._buttons()
        if isinstance(result, dict):
            msg = str(result.get("message") or "")
            ok = result.get("status") in ("success", "passed")
            text = f"✔ {msg or 'the call succeeded'}" if ok else f"✘ {msg or 'the call failed'}"
        else:
            text = "Stopped."
        self.pane.status.setText(f"{text} (on a copy of the state: the chain is unchanged)")

    def _failed(self, text: str) -> None:
        self._buttons()
        self._log(_red(text))
        self.pane.status.setText(f"✘ {text}")

    def _log(self, html: str) -> None:
        """Append ``html`` to the output. Wrapped, because ``append`` guesses: a line
        without a tag was shown as plain text, its escapes (``&#x27;``) as typed."""
        self.pane.log.append(f"<span>{html}</span>")

    def _clear_lines(self) -> None:
        for d in self.panel.source.tabs.documents():
            d.editor.set_paused_line(None)

    def _buttons(self) -> None:
        self.pane.set_paused(self.service.paused, self.service.active)

    # ------------------------------------------------------------ keys

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """F5/F10/F11 and their Shift forms step the run while a session is open and the focus
        is in the composer or its Debug dock (F5 is the window's Refresh otherwise)."""
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        if not self.service.active or not isinstance(event, QKeyEvent):
            return False
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        action = KEYS.get((event.key(), shift))
        target = QApplication.focusWidget() or watched  # (no focus: the window is inactive)
        if action is None or watched is not target or not isinstance(target, QWidget):
            return False
        if not (self.panel.isAncestorOf(target) or self.dock.isAncestorOf(target)):
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # the key goes to the focus widget, not the window's shortcut
            return True
        self.service.command(action)
        return True


def _files(files: list[SourceFile]) -> list[dict[str, Any]]:
    return [{"name": f.name, "firstLine": f.first_line, "lines": max(f.lines, 1)} for f in files]


async def _bundled(file: str, sources: dict[str, str]) -> Bundle:
    """``file`` bundled off the loop (it reads the disk); a missing import in words."""
    try:
        return await asyncio.to_thread(bundle, file, sources)
    except BundleError as exc:
        raise ValueError("; ".join(str(p) for p in exc.problems)) from None


def _show_line(doc: Document, line: int) -> None:
    """Lit as where the run stands, the caret on it, in view."""
    doc.editor.set_paused_line(line)
    block = doc.editor.document().findBlockByNumber(max(line, 1) - 1)
    if block.isValid():
        cursor = doc.editor.textCursor()
        cursor.setPosition(block.position())
        doc.editor.setTextCursor(cursor)
        doc.editor.centerCursor()


def _red(text: str) -> str:
    return f'<span style="color:#c0392b">✘ {escape(text)}</span>'
