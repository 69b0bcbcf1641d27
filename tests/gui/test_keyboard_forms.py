"""Issue 29 item 7, on real widgets against a real sandbox node, with key clicks as a user
presses them: in the car Transfer form Enter accepts the completion *and* opens the sheet, and
Alt+S opens it too (it used to type an "s"); the Files Upload and Attest sheets send on Alt+S;
the Explorer's Type and Status filters apply as soon as one is chosen."""

from __future__ import annotations

import asyncio
from pathlib import Path

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QWidget
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.services.explorer import TxFilter
from app.ui.panels.files.panel import FilesPanel
from app.ui.shell.main_window import MainWindow
from app.ui.widgets.confirm_dialog import ConfirmDialog
from tests.gui.conftest import drive
from tests.gui.test_assets_panel import closed, make_car, open_panel, request_of
from tests.gui.test_explorer import rows_of, show_explorer
from tests.gui.test_files_panel import hash_in_panel, listed, select, sheet_of, upload_as
from tests.gui.test_files_panel import open_panel as open_files
from tests.integration.node_fixture import RunningNode, submit, transfer_tx

ALT = Qt.KeyboardModifier.AltModifier


def _sheet_over(loop: qasync.QEventLoop, form: QWidget) -> ConfirmDialog:
    """The confirmation sheet shown over ``form``, once it is up."""
    drive(loop, lambda: any(s.isVisible() for s in form.findChildren(ConfirmDialog)))
    return next(s for s in form.findChildren(ConfirmDialog) if s.isVisible())


def test_transfer_form_enter_after_completion_and_alt_s_open_the_sheet(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    chain = make_car(node, "alice", "KEYS-1")
    panel = open_panel(loop, controller, window, node)
    drive(loop, lambda: panel.select(chain))
    form = panel.transfer_asset()
    assert form is not None
    qtbot.waitExposed(form)
    form.activateWindow()  # the completer completes in the active window only
    qtbot.waitUntil(form.isActiveWindow)
    line = form.to.lineEdit()
    assert line is not None
    qtbot.waitUntil(line.hasFocus)  # the keyboard starts in the New owner field, not on Cancel
    # keys go where the window system sends them: the focus widget (the combo box, which
    # hands them to its line edit itself)
    focus = QApplication.focusWidget()
    assert focus in (form.to, line)
    qtbot.keyClicks(focus, "bo")  # the completion fills in "bob — Globex / …"
    assert line.text().startswith("bob — ")
    qtbot.keyClick(focus, Qt.Key.Key_Return)  # one press: the completion, then the sheet
    sheet = _sheet_over(loop, form)
    head, body = request_of(sheet)
    assert head.endswith("/apps/CarDemo/car/transferOwnership")
    assert body["newOwner"] == node.address("bob")
    sheet.reject()
    drive(loop, lambda: not any(s.isVisible() for s in form.findChildren(ConfirmDialog)))

    # Alt+S in the form opens the sheet as well, and types nothing into the field
    before = line.text()
    form.activateWindow()
    qtbot.waitUntil(form.isActiveWindow)
    line.setFocus()
    qtbot.keyClick(line, Qt.Key.Key_S, ALT)
    sheet = _sheet_over(loop, form)
    assert line.text() == before  # no "s" typed
    # on the sheet, Enter cancels and Alt+S sends
    qtbot.keyClick(sheet.cancel_button, Qt.Key.Key_S, ALT)
    drive(loop, lambda: closed(form), 30)  # sent: the form closes on success
    drive(loop, lambda: chain not in panel.visible_chains(), 20)


def test_transfer_form_alt_s_with_a_problem_types_nothing_and_opens_no_sheet(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
) -> None:
    chain = make_car(node, "alice", "KEYS-2")
    panel = open_panel(loop, controller, window, node)
    drive(loop, lambda: panel.select(chain))
    form = panel.transfer_asset()
    assert form is not None
    qtbot.waitExposed(form)
    form.activateWindow()  # the completer completes in the active window only
    qtbot.waitUntil(form.isActiveWindow)
    line = form.to.lineEdit()
    assert line is not None
    line.setFocus()
    qtbot.keyClicks(line, "0x12")
    qtbot.keyClick(line, Qt.Key.Key_S, ALT)
    qtbot.keyClick(line, Qt.Key.Key_Return)
    loop.run_until_complete(asyncio.sleep(0.3))
    assert line.text() == "0x12"
    assert not form.findChildren(ConfirmDialog)
    assert "40 hex digits" in form.problems_label.text()
    form.reject()


def test_upload_and_attest_sheets_send_on_alt_s(
    node: RunningNode,
    controller: AppController,
    loop: qasync.QEventLoop,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    path = tmp_path / "alt-s.txt"
    path.write_bytes(b"sent with Alt+S")
    panel = open_files(loop, controller, node)
    hash_in_panel(loop, panel, path)
    before = len(listed(node))
    qtbot.mouseClick(panel.upload_button, Qt.MouseButton.LeftButton)
    sheet = sheet_of(loop, panel)
    assert sheet.send_button.text() == "Upload"
    qtbot.keyClick(sheet.cancel_button, Qt.Key.Key_S, ALT)
    drive(loop, lambda: panel.upload_status.text().startswith(("✔", "✘")))
    assert panel.upload_status.text().startswith("✔ Uploaded alt-s.txt"), panel.upload_status.text()
    assert len(listed(node)) == before + 1

    rec = upload_as(node, "carol", b"attest me by keyboard", "keys.txt")
    address = rec["contractAddress"]
    _refresh(loop, panel)
    select(loop, panel, address)
    qtbot.mouseClick(panel.attest_button, Qt.MouseButton.LeftButton)
    sheet = sheet_of(loop, panel)
    assert sheet.send_button.text() == "Attest"
    qtbot.keyClick(sheet.cancel_button, Qt.Key.Key_S, ALT)
    drive(loop, lambda: panel.status.text().startswith(("✔", "✘")))
    assert panel.status.text() == f"✔ alice signed {rec['fileKey']}: 2 signers"
    panel.close()


def _refresh(loop: qasync.QEventLoop, panel: FilesPanel) -> None:
    panel.refresh_button.click()
    drive(loop, lambda: panel.loaded)


def test_explorer_type_and_status_filters_apply_when_chosen(
    node: RunningNode,
    loop: qasync.QEventLoop,
    controller: AppController,
    window: MainWindow,
    qtbot: QtBot,
) -> None:
    from tests.gui.conftest import connect

    submit(node.client("bob"), transfer_tx(node.address("alice"), 2))
    connect(loop, controller, node)
    panel = show_explorer(window, loop)
    tv = panel.txs_view
    everything = rows_of(loop, panel)
    assert any(t.kind != "Transfer" for t in everything)
    applied: list[TxFilter] = []
    tv.filter_changed.connect(applied.append)
    _choose(qtbot, tv.kind, "Transfer")  # by keyboard, no click on Filter
    assert applied and applied[-1].kind == "Transfer"
    assert tv.note.text() == "Filtered."
    transfers = rows_of(loop, panel)
    assert transfers and all(t.kind == "Transfer" for t in transfers)
    _choose(qtbot, tv.status_box, "Success")
    assert (applied[-1].kind, applied[-1].status) == ("Transfer", "Success")
    loop.run_until_complete(asyncio.sleep(0.2))
    ok = rows_of(loop, panel)
    assert ok and all(t.kind == "Transfer" and t.status == "Success" for t in ok)
    # the programmatic ways (Clear, another view's link) apply once, not twice
    n = len(applied)
    tv.clear_filter()
    assert len(applied) == n + 1 and applied[-1].empty


def _choose(qtbot: QtBot, box: QComboBox, text: str) -> None:
    """Pick ``text`` in a closed combo box with the arrow keys, as a user would."""
    box.setFocus()
    target = box.findText(text)
    assert target >= 0
    while box.currentIndex() < target:
        qtbot.keyClick(box, Qt.Key.Key_Down)
