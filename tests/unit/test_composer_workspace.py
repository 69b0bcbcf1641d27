"""The composer's workspace store on disk: buffers by path, private files, deletes, and what a
load gives back (the files' disk text, unreadable ones named, edits without a tab kept)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from app.ui.panels.composer import workspace
from app.ui.panels.composer.workspace import SCRATCH, WorkspaceStore, buffer_key


def test_buffers_round_trip_privately_and_go_when_asked(tmp_path: Path) -> None:
    store = WorkspaceStore(tmp_path / "composer")
    a, gone = tmp_path / "A.sol", tmp_path / "Gone.sol"
    a.write_text("contract A { }\n")
    state = {"folder": str(tmp_path), "tabs": [{"path": None}, {"path": str(a)}], "current": 1}
    store.save(state, {None: "scratch", str(a): "contract A { uint x; }\n"}).result(10)
    store.save(state, {str(gone): "edits of a file since deleted"}).result(10)
    files = sorted((tmp_path / "composer" / "buffers").iterdir())
    assert {f.stem for f in files} == {SCRATCH, buffer_key(str(a)), buffer_key(str(gone))}
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)
    assert stat.S_IMODE((tmp_path / "composer").stat().st_mode) == 0o700
    assert not list((tmp_path / "composer").rglob("*.tmp"))

    back = store.load().result(10)
    assert back.state == state and back.folder == str(tmp_path)
    assert back.buffers == {
        None: "scratch",
        str(a): "contract A { uint x; }\n",
        str(gone): "edits of a file since deleted",
    }
    assert back.disk == {str(a): "contract A { }\n"}  # a tab's file, and an edited one's
    assert back.unreadable == {str(gone): "it no longer exists"}

    store.save(state, {None: None, str(gone): None}).result(10)
    assert set(store.load().result(10).buffers) == {str(a)}
    store.close()


def test_a_broken_state_file_reads_as_no_workspace(tmp_path: Path) -> None:
    (tmp_path / "composer").mkdir()
    (tmp_path / "composer" / "workspace.json").write_text('{"tabs": [')
    back = WorkspaceStore(tmp_path / "composer").load().result(10)
    assert back.state == {} and back.buffers == {} and back.folder is None


class Killed(Exception):
    """The process ends here."""


def test_killed_between_writes_the_edits_keep_their_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26, item 11: the process dies after the first file of a save is on disk. Edits
    that made it to disk must come back with the project folder they were made in."""
    real = workspace._write_private
    writes: list[Path] = []

    def dies_after_the_first(path: Path, text: str) -> None:
        if writes:
            raise Killed(path)
        writes.append(path)
        real(path, text)

    store = WorkspaceStore(tmp_path / "composer")
    a = tmp_path / "A.sol"
    a.write_text("contract A { }\n")
    state = {"folder": str(tmp_path), "tabs": [{"path": str(a)}], "current": 0}
    monkeypatch.setattr(workspace, "_write_private", dies_after_the_first)
    with pytest.raises(Killed):
        store.save(state, {str(a): "contract A { uint x; }\n"}).result(10)
    monkeypatch.setattr(workspace, "_write_private", real)
    back = store.load().result(10)
    assert back.folder == str(tmp_path)  # the edits may or may not be back; the folder is
    store.close()
