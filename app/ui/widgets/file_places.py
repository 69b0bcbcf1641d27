"""Where file dialogs start: the folder last used for that kind of file (kept in settings.json
under ``file_dialog_folders``), else the user's documents folder, never the process's working
directory (the source checkout, when started with ``make run``); save dialogs suggest a name."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from platformdirs import user_documents_path
from PySide6.QtWidgets import QFileDialog, QWidget

from app.services.controller import AppController
from app.ui.widgets.common import file_dialog

FOLDERS_KEY = "file_dialog_folders"  # settings.json: {kind: the folder last chosen in}

# the kinds of file that keep a folder each (a CSV export and a scenario rarely live together)
EXPORT, SCENARIO, DOWNLOAD, UPLOAD, CONTRACT = (
    "export",
    "scenario",
    "download",
    "upload",
    "contract",
)


def documents_folder() -> Path:
    """The user's documents folder (XDG's, ~/Documents, …), or home when it does not exist."""
    docs = user_documents_path()
    return docs if docs.is_dir() else Path.home()


def start_folder(controller: AppController, kind: str) -> Path:
    """The folder last chosen for ``kind`` if it still exists, else the documents folder."""
    saved = controller.setting(FOLDERS_KEY)
    folder = saved.get(kind) if isinstance(saved, dict) else None
    if isinstance(folder, str) and folder and Path(folder).is_dir():
        return Path(folder)
    return documents_folder()


def remember_folder(controller: AppController, kind: str, chosen: str) -> None:
    """Keep the folder of ``chosen`` for the next dialog of this kind (saved in the background)."""
    folder = str(Path(chosen).parent)
    saved = controller.setting(FOLDERS_KEY)
    folders = dict(saved) if isinstance(saved, dict) else {}
    if folders.get(kind) == folder:
        return
    folders[kind] = folder
    controller.tasks.start("Saving settings", controller.save_settings(**{FOLDERS_KEY: folders}))


def safe_file_name(text: str) -> str:
    """``text`` as a file name on every system: no separators or reserved characters."""
    name = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', "-", text).strip(" .-")
    return name or "export"


def place_dialog(
    parent: QWidget,
    controller: AppController,
    kind: str,
    title: str,
    name_filter: str,
    on_selected: Callable[[str], object],
    *,
    save_suffix: str = "",
    suggested: str = "",
) -> QFileDialog:
    """:func:`file_dialog` starting in the kind's last folder (or the documents folder), with
    ``suggested`` as the file name of a save dialog; the folder chosen is remembered."""
    folder = start_folder(controller, kind)
    directory = str(folder / suggested) if suggested else str(folder)

    def chosen(name: str) -> None:
        remember_folder(controller, kind, name)
        on_selected(name)

    return file_dialog(
        parent, title, name_filter, chosen, save_suffix=save_suffix, directory=directory
    )
