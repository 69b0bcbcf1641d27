"""**Re-run in the debugger** from the transaction inspector: the composer opens the source of the
transaction's code (a project file with the same text, else the app's copy of the node's) and
starts a debug session "as that transaction" (``POST /vm-debug/sessions {transaction}``) on the
state just before it, paused at entry, or at the first breakpoint of that file when it has one.
The node's description and the file search run in a task, off the GUI thread; a refusal (an
unknown hash, a transfer, a state no longer reconstructible, a node without the debugger) is
shown in the Debug dock in the node's words.
"""

from __future__ import annotations

import asyncio
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QStandardPaths

from app.services.tx_rerun import RerunPlan, plan_rerun
from app.ui.widgets.common import while_alive

if TYPE_CHECKING:
    from app.ui.panels.composer.documents import Document
    from app.ui.panels.composer.panel import ComposerPanel


def copies_folder() -> Path:
    """Where the app keeps copies of node sources it shows (its data folder)."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation)
    return Path(base or Path.home() / ".stratoscope") / "debug-sources"


def rerun_transaction(panel: ComposerPanel, tx_hash: str) -> asyncio.Task[Any] | None:
    """Start re-running ``tx_hash`` in the composer's debugger (see the module's docstring)."""
    dbg = panel.debugger
    client = panel.controller.session.client
    dbg.dock.reveal()
    if client is None:
        dbg._failed("not connected to a node")
        return None
    dbg.pane.log.clear()
    dbg.pane.status.setText(f"Preparing a re-run of transaction {tx_hash[:10]}…")
    open_texts = {str(d.path): d.text for d in panel.source.tabs.documents() if d.path}

    def ready(plan: RerunPlan) -> None:
        panel.source.open_path(plan.path, then=lambda doc: _launch(panel, plan, doc))

    return panel.controller.tasks.start(
        "Preparing a re-run in the debugger",
        plan_rerun(client, tx_hash, panel.source.folder, open_texts, copies_folder()),
        on_done=while_alive(dbg.pane, ready),
        on_error=while_alive(dbg.pane, lambda text: dbg._failed(f"cannot re-run it: {text}")),
    )


def _launch(panel: ComposerPanel, plan: RerunPlan, doc: Document) -> None:
    dbg = panel.debugger
    files = [str(plan.path)]
    body = plan.launch(dbg.breakpoints(files), dbg.pane.pause_on_failure.isChecked())
    dbg.launch(body, files)
    where = "the project's file" if plan.in_project else "the node's source"
    text = (
        f"Re-running {plan.describe()} on the state just before it ({where}; nothing reaches "
        "the chain)"
    )
    dbg.pane.status.setText(f"{text}…")
    dbg._log(escape(text))  # stays in the output while the status follows the run
    panel.source.tabs.show_document(doc)
