"""Where the composer's workspace lives between runs: the open folder and tabs, and the text of
every tab with unsaved edits, under the app's configuration directory (``composer/``).

Edits are files of their own (``buffers/<key>.json``, mode 0600, written through a temporary
file and a rename), so a crash at any moment leaves the previous copy or the new one. All writes
go through one worker thread, in the order they were asked for; it is not a daemon, so a write
asked for while the app quits still finishes. No Qt here.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["SCRATCH", "Restored", "WorkspaceStore", "buffer_key"]

SCRATCH = "untitled"  # the key of the scratch (Untitled) buffer
STATE_FILE = "workspace.json"


def buffer_key(path: str | None) -> str:
    """The file name stem of a tab's buffer: a digest of its path (the scratch tab's is fixed)."""
    if path is None:
        return SCRATCH
    return hashlib.sha256(os.path.normcase(os.path.abspath(path)).encode()).hexdigest()[:32]


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    tmp = Path(name)  # mkstemp creates it 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


@dataclass
class Restored:
    """What the last run left: its state, its unsaved texts (path or None -> text), and the
    disk text of every file a tab showed (path -> text, or the reason it cannot be read)."""

    state: dict[str, Any] = field(default_factory=dict)
    buffers: dict[str | None, str] = field(default_factory=dict)
    disk: dict[str, str] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)
    folder: str | None = None  # the open folder, when it still is one


class WorkspaceStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.buffers = directory / "buffers"
        self._worker = ThreadPoolExecutor(1, thread_name_prefix="composer-autosave")

    def save(self, state: dict[str, Any], changed: dict[str | None, str | None]) -> Future[None]:
        """Write ``state`` and then the ``changed`` buffers (None deletes one), on the worker."""
        return self._worker.submit(self._save, dict(state), dict(changed))

    def _save(self, state: dict[str, Any], changed: dict[str | None, str | None]) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.directory, 0o700)  # the edits are the user's alone
        # the state (folder, tabs) first: killed between the writes, edits on disk never go
        # without the folder they belong to (a tab listed before its text is only unedited)
        _write_private(self.directory / STATE_FILE, json.dumps(state, indent=1))
        for path, text in changed.items():
            target = self.buffers / f"{buffer_key(path)}.json"
            if text is None:
                target.unlink(missing_ok=True)
            else:
                _write_private(target, json.dumps({"path": path, "text": text}))

    def load(self) -> Future[Restored]:
        return self._worker.submit(self._load)

    def _load(self) -> Restored:
        out = Restored(state=_read_json(self.directory / STATE_FILE) or {})
        folder = out.state.get("folder")
        if isinstance(folder, str) and folder and os.path.isdir(folder):
            out.folder = folder
        if self.buffers.is_dir():
            for f in sorted(self.buffers.glob("*.json")):
                data = _read_json(f)
                if data is None or not isinstance(data.get("text"), str):
                    continue
                path = data.get("path")
                out.buffers[str(path) if path else None] = data["text"]
        tabs = out.state.get("tabs")
        paths = (
            [str(t["path"]) for t in tabs if isinstance(t, dict) and t.get("path")]
            if (isinstance(tabs, list))
            else []
        )
        paths += [p for p in out.buffers if p is not None and p not in paths]
        for p in paths:
            try:
                with open(p, encoding="utf-8-sig") as fh:
                    out.disk[p] = fh.read()
            except FileNotFoundError:
                out.unreadable[p] = "it no longer exists"
            except (OSError, UnicodeDecodeError) as exc:
                out.unreadable[p] = getattr(exc, "strerror", None) or str(exc)
        return out

    def close(self) -> None:
        self._worker.shutdown(wait=True)
