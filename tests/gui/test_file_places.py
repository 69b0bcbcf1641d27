"""Issue 29 item 8, on real dialogs against a real sandbox node: file dialogs start in the
user's documents folder (not the process's working directory), save dialogs suggest a name
(Export CSV: the table's; Download: the file's; Save scenario: a dated one), and each kind of
file remembers the folder last chosen, in settings.json, across dialogs and starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import qasync
import shiboken6
from PySide6.QtWidgets import QFileDialog, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.ui.panels.composer.panel import ComposerPanel
from app.ui.panels.tables.panel import TablesPanel
from app.ui.shell.main_window import MainWindow
from app.ui.widgets.file_places import FOLDERS_KEY, start_folder
from tests.gui.conftest import connect, drive, make_controller
from tests.gui.test_files_panel import open_panel as open_files
from tests.gui.test_files_panel import select, upload_as
from tests.gui.test_tables_panel import open_car
from tests.integration.node_fixture import RunningNode, deploy

COUNTER = "contract Counter { uint public count; function add(uint n) public { count += n; } }"


@pytest.fixture
def documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of its own with a Documents folder (platformdirs' documents folder there)."""
    home = tmp_path / "home"
    docs = home / "Documents"
    docs.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))  # no user-dirs.dirs
    monkeypatch.delenv("XDG_DOCUMENTS_DIR", raising=False)
    return docs


def shown_dialog(loop: qasync.QEventLoop, parent: QWidget) -> QFileDialog:
    drive(loop, lambda: any(d.isVisible() for d in parent.findChildren(QFileDialog)))
    return next(d for d in parent.findChildren(QFileDialog) if d.isVisible())


def name_typed(dialog: QFileDialog) -> str:
    """The file name the dialog's name field holds (what Save would use)."""
    edit = dialog.findChild(QLineEdit, "fileNameEdit")
    assert edit is not None
    return edit.text()


def choose(loop: qasync.QEventLoop, dialog: QFileDialog, path: Path) -> None:
    """Pick ``path`` in the dialog, as typing it and pressing Save/Open does."""
    dialog.selectFile(str(path))
    dialog.accept()
    drive(loop, lambda: not shiboken6.isValid(dialog) or not dialog.isVisible())


def saved_folders(tmp_path: Path) -> dict[str, str]:
    settings = json.loads((tmp_path / "config" / "settings.json").read_text())
    out: dict[str, str] = settings.get(FOLDERS_KEY, {})
    return out


def test_download_and_upload_start_in_documents_suggest_names_and_remember_folders(
    node: RunningNode,
    controller: AppController,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tmp_path: Path,
    documents: Path,
) -> None:
    rec = upload_as(node, "carol", b"a quarterly report", "report.pdf")
    panel = open_files(loop, controller, node)
    select(loop, panel, rec["contractAddress"])
    panel.ask_download()
    dialog = shown_dialog(loop, panel)
    assert Path(dialog.directory().absolutePath()) == documents  # not the working directory
    assert name_typed(dialog) == "report.pdf"
    elsewhere = tmp_path / "downloads"
    elsewhere.mkdir()
    choose(loop, dialog, elsewhere / "report.pdf")
    drive(loop, lambda: (elsewhere / "report.pdf").exists() and not panel.downloading)
    drive(loop, lambda: saved_folders(tmp_path).get("download") == str(elsewhere))
    # the next download starts where the last one went
    panel.ask_download()
    dialog = shown_dialog(loop, panel)
    assert Path(dialog.directory().absolutePath()) == elsewhere
    assert name_typed(dialog) == "report.pdf"
    dialog.reject()
    # another kind keeps its own folder: choosing a file to upload starts in Documents
    panel.ask_file()
    dialog = shown_dialog(loop, panel)
    assert Path(dialog.directory().absolutePath()) == documents
    dialog.reject()
    panel.close()

    # a later start of the app reads the folders back from settings.json
    again = make_controller(tmp_path)
    loop.run_until_complete(again.load_settings())
    assert start_folder(again, "download") == elsewhere
    assert start_folder(again, "upload") == documents
    # a remembered folder that is gone: back to Documents
    elsewhere.joinpath("report.pdf").unlink()
    elsewhere.rmdir()
    assert start_folder(again, "download") == documents
    again.deleteLater()


def test_export_csv_suggests_the_table_name_and_scenarios_a_dated_one(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    tmp_path: Path,
    documents: Path,
) -> None:
    deploy(node.client("alice"), "Counter", COUNTER)
    connect(loop, controller, node, "alice")
    tables = window.panels[2]
    assert isinstance(tables, TablesPanel)
    window.nav.setCurrentRow(2)
    drive(loop, lambda: tables.table_name.findText("Counter") >= 0)
    open_car(tables, loop, "Counter")
    dialog = tables.ask_export("csv")
    assert Path(dialog.directory().absolutePath()) == documents
    assert name_typed(dialog) == "Counter.csv"
    target = tmp_path / "exports"
    target.mkdir()
    choose(loop, dialog, target / "Counter.csv")
    drive(loop, lambda: tables.status.text().startswith("Exported"))
    assert (target / "Counter.csv").read_text().startswith("address")
    drive(loop, lambda: saved_folders(tmp_path).get("export") == str(target))
    dialog = tables.ask_export("json")
    assert Path(dialog.directory().absolutePath()) == target
    assert name_typed(dialog) == "Counter.json"
    dialog.reject()

    composer = window.panels[1]
    assert isinstance(composer, ComposerPanel)
    dialog = composer.scenarios.open_scenario()
    assert Path(dialog.directory().absolutePath()) == documents
    dialog.reject()
