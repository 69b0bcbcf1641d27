"""Re-running a transaction in the debugger (the inspector's **Re-run in the debugger**): what
the node says the re-run runs, and which file shows its source.

The node answers the transaction's contract, function and the source its code was compiled from
(``GET /vm-debug/transaction``); the source is shown from a project file with the same text (an
open tab's text counts, unsaved edits included) or else from a copy the app keeps in its data
folder, so that the composer's editor, breakpoints and current line work on it as on any file.
The file search and the copy run off the GUI thread.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.client.debug import DebugClient
from app.client.http import StratoClient

MAX_FILES = 2000  # project files compared at most (a huge folder is not read whole)
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".stratoscope"}
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class RerunPlan:
    """The re-run of ``tx_hash``: the node's description, and the file that shows its source
    (``in_project``: a project file, else the app's copy)."""

    tx_hash: str
    info: dict[str, Any] = field(default_factory=dict)
    path: Path = Path()
    in_project: bool = False

    def launch(self, breakpoints: list[dict[str, Any]], pause_on_failure: bool) -> dict[str, Any]:
        """The body of ``POST /vm-debug/sessions``: paused at entry unless a breakpoint is set
        in the file (then at the first one it reaches)."""
        return {
            "transaction": self.tx_hash,
            "name": str(self.path),
            "breakpoints": breakpoints,
            "stopOnEntry": not breakpoints,
            "pauseOnFailure": pause_on_failure,
        }

    def describe(self) -> str:
        i = self.info
        what = (
            f"{i.get('contract')}.{i.get('function')}"
            if i.get("function")
            else (f"the deploy of {i.get('contract')}")
        )
        return f"{what} as transaction {self.tx_hash[:10]}… of block {i.get('blockNumber')}"


async def plan_rerun(
    client: StratoClient,
    tx_hash: str,
    folder: Path | None,
    open_texts: Mapping[str, str],
    copies: Path,
) -> RerunPlan:
    """Ask the node what a re-run of ``tx_hash`` runs; find or write the file showing it."""
    info = await DebugClient(client).describe_transaction(tx_hash)
    path, mine = await asyncio.to_thread(
        source_file, str(info["source"]), str(info["file"]), folder, dict(open_texts), copies
    )
    return RerunPlan(str(info.get("transaction") or tx_hash), info, path, mine)


def source_file(
    text: str, name: str, folder: Path | None, open_texts: dict[str, str], copies: Path
) -> tuple[Path, bool]:
    """(the file showing ``text``, whether it is a project file): an open tab or a file of
    ``folder`` with exactly that text (one named ``name`` first), else a copy under
    ``copies`` (named after the text's digest, so the same code always opens the same copy)."""
    for open_path, t in open_texts.items():
        if t == text:
            return Path(open_path), True
    if folder is not None and folder.is_dir():
        size = len(text.encode())
        found = []
        for i, p in enumerate(_sol_files(folder)):
            if i >= MAX_FILES:
                break
            found.append(p)
        found.sort(key=lambda p: (p.name != name, len(p.parts), str(p)))
        for p in found:
            try:
                if p.stat().st_size == size and p.read_text(encoding="utf-8") == text:
                    return p, True
            except (OSError, UnicodeDecodeError):
                continue
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    target = copies / digest / (_SAFE.sub("_", Path(name).name) or "contract.sol")
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return target, False


def _sol_files(folder: Path) -> list[Path]:
    out: list[Path] = []
    stack = [folder]
    while stack and len(out) < MAX_FILES:
        d = stack.pop()
        try:
            entries = sorted(d.iterdir())
        except OSError:
            continue
        for e in entries:
            if e.is_dir():
                if e.name not in SKIP_DIRS and not e.name.startswith("."):
                    stack.append(e)
            elif e.suffix == ".sol":
                out.append(e)
    return out
