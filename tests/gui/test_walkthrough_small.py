"""Issue 29, item 12: the walk-through's smaller things, each on real widgets (against a real
sandbox node where the behaviour involves one): messages cleared by Act as, the File menu's
Open…/Save/Save As, Columns & joins kept open, the column finder, a steady filter editor, the
jump's highlighted line and a fixed error's marker, the identity card's wording, a block's
columns, the contracts tree's header, the Dashboard's count, curl's ``-s`` and the SPDX
licence of pyproject.toml."""

from __future__ import annotations

import tomllib
from pathlib import Path

import qasync
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QTextCursor, QTextFormat
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QCompleter, QFileDialog, QFormLayout, QLabel, QWidget
from pytestqt.qtbot import QtBot

from app.client.cirrus_query import Condition
from app.client.cirrus_schema import ColumnInfo, TableInfo
from app.services.composer import Preview
from app.services.controller import AppController
from app.ui.models.transactions_model import COLUMNS
from app.ui.panels.account.panel import AccountPanel, cert_value
from app.ui.panels.assets.panel import AssetsPanel
from app.ui.panels.dashboard.panel import DashboardPanel
from app.ui.panels.explorer.contracts_model import ContractsModel
from app.ui.panels.files.panel import FilesPanel
from app.ui.panels.tables.filter_builder import FilterBuilder
from app.ui.shell.lookup_dialogs import BlockDialog
from app.ui.shell.main_window import MainWindow
from app.ui.widgets.source_editor import SourceEditor
from tests.gui.conftest import connect, drive
from tests.gui.test_composer import panel_of, settle
from tests.gui.test_shell import menu_entries
from tests.integration.node_fixture import RunningNode, submit, transfer_tx

ROOT = Path(__file__).resolve().parents[2]
LEFT = Qt.MouseButton.LeftButton


def test_act_as_clears_the_previous_users_messages_in_assets_and_files(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    assets = next(p for p in window.panels if isinstance(p, AssetsPanel))
    files = next(p for p in window.panels if isinstance(p, FilesPanel))
    assets.last_action.setText("✔ Created a car on its shard")  # alice's last request
    assets.status.setText("✘ alice cannot see that application")
    files.status.setText("✔ alice signed report.pdf: 1 signer")
    loop.run_until_complete(controller.switch_user("bob", "bob"))  # Act as
    assert controller.session.username == "bob"
    assert assets.last_action.text() == ""
    assert "alice" not in assets.status.text()
    assert files.status.text() == ""


def test_file_menu_opens_saves_and_saves_as_with_the_standard_keys(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    loop.run_until_complete(controller.load_settings())
    panel = panel_of(window)
    settle(loop)
    file_menu = menu_entries(window, shown=True)["File"]
    assert file_menu["Open File…"] == "Ctrl+O"
    assert file_menu["Save"] == "Ctrl+S"
    assert file_menu["Save As…"] == "Ctrl+Shift+S"
    assert "Ctrl+S" in panel.source.save_button.toolTip()  # the toolbar names the same keys
    target = tmp_path / "menu.sol"
    target.write_text("contract M {}\n")
    panel.load_path(target)
    drive(loop, lambda: panel.editor.toPlainText() == "contract M {}\n")
    panel.editor.moveCursor(QTextCursor.MoveOperation.End)
    panel.editor.insertPlainText("// saved by Ctrl+S\n")
    window.activateWindow()
    panel.editor.setFocus()
    settle(loop)
    QTest.keyClick(panel.editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    drive(loop, lambda: target.read_text().endswith("// saved by Ctrl+S\n"))
    # Save As… from the menu asks where, as the toolbar's button does
    action = window.findChild(QAction, "actionSaveAs")
    assert isinstance(action, QAction) and action.text() == "Save As…"
    action.trigger()
    settle(loop)
    dialogs = [d for d in panel.findChildren(QFileDialog) if d.isVisible()]
    assert dialogs and dialogs[0].acceptMode() == QFileDialog.AcceptMode.AcceptSave
    dialogs[0].reject()
    # the other panels do not offer them
    window.nav.setCurrentRow(0)
    settle(loop)
    assert "Save" not in menu_entries(window, shown=True)["File"]


def builder(qtbot: QtBot) -> FilterBuilder:
    b = FilterBuilder()
    qtbot.addWidget(b)
    b.set_table(TableInfo("Car", [ColumnInfo(f"col{i}", "text") for i in range(40)]))
    b.resize(760, 520)
    b.show()
    return b


def test_columns_menu_stays_open_while_columns_are_ticked(qtbot: QtBot) -> None:
    b = builder(qtbot)
    menu = b.columns_menu
    menu.popup(b.columns_button.mapToGlobal(QPoint(0, b.columns_button.height())))
    qtbot.waitUntil(menu.isVisible)

    def tick(name: str) -> None:
        act = next(a for a in menu.actions() if a.objectName() == f"column:{name}")
        qtbot.mouseClick(menu, LEFT, pos=menu.actionGeometry(act).center())

    tick("col3")
    assert menu.isVisible()  # still open for the next tick
    tick("col1")
    tick("col7")
    assert menu.isVisible()
    assert b.draft.select == ["col1", "col3", "col7"]  # in the table's order
    ticked = [a.objectName() for a in menu.actions() if a.isChecked()]
    assert ticked == ["column:col1", "column:col3", "column:col7"]
    tick("col3")  # untick
    assert b.draft.select == ["col1", "col7"] and menu.isVisible()
    QTest.keyClick(menu, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not menu.isVisible())


def test_condition_column_is_found_by_any_part_of_its_name(qtbot: QtBot) -> None:
    b = builder(qtbot)
    b.add_condition()
    finder = b.column.completer()
    assert isinstance(finder, QCompleter)
    assert finder.filterMode() == Qt.MatchFlag.MatchContains
    assert finder.caseSensitivity() == Qt.CaseSensitivity.CaseInsensitive
    finder.setCompletionPrefix("L3")  # not the start of any name
    names = [finder.completionModel().index(r, 0).data() for r in range(finder.completionCount())]
    assert names == ["col3", *(f"col3{i}" for i in range(10))]
    assert b.column.maxVisibleItems() >= 20


def test_apply_stays_put_when_the_editor_changes_page(qtbot: QtBot) -> None:
    b = builder(qtbot)
    qtbot.waitExposed(b)
    none = (b.editor.height(), b.apply_button.mapTo(b, QPoint(0, 0)).y())
    b.add_condition(Condition("col1", "eq", "x"))
    qtbot.wait(20)
    assert b.editor.currentIndex() == 1  # the condition's fields
    assert (b.editor.height(), b.apply_button.mapTo(b, QPoint(0, 0)).y()) == none
    for width in (560, 1000):  # the wrapped hint at other widths
        b.resize(width, 520)
        qtbot.wait(20)
        h = b.editor.height()
        b.tree.setCurrentIndex(b.model.index(-1, -1))
        b.tree.clearSelection()
        qtbot.wait(20)
        assert b.editor.height() == h


def test_a_jump_lights_its_line_and_an_edited_error_line_loses_its_marker(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    loop.run_until_complete(controller.load_settings())
    panel = panel_of(window)
    target = tmp_path / "jump.sol"
    target.write_text("contract J {\n    uint a;\n    uint b;\n    uint c;\n}\n")
    panel.source.open_location(target, 3)  # what the Tests view's double-click does
    drive(loop, lambda: panel.editor.toPlainText().startswith("contract J"))
    editor: SourceEditor = panel.editor
    drive(loop, lambda: editor.textCursor().blockNumber() == 2)
    assert editor.highlighted_line == 3
    lit = [
        s
        for s in editor.extraSelections()
        if s.format.property(QTextFormat.Property.FullWidthSelection)
    ]
    assert [s.cursor.blockNumber() for s in lit] == [2]
    editor.moveCursor(QTextCursor.MoveOperation.Start)  # the caret leaves it: the light goes
    assert editor.highlighted_line is None and not editor.extraSelections()
    # a compile error's marker: kept while other lines change, moved with its line, cleared
    # when its own line is edited
    assert editor.mark_error("line 2, column 5") == 2
    cursor = QTextCursor(editor.document().findBlockByNumber(3))
    cursor.insertText("    // c stays\n")
    assert editor.error_line == 2
    QTextCursor(editor.document().firstBlock()).insertText("// top\n")
    assert editor.error_line == 3  # its line moved down
    fix = QTextCursor(editor.document().findBlockByNumber(2))
    fix.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    fix.insertText(" // fixed")
    assert editor.error_line is None and not editor.extraSelections()
    panel.source.save()  # no unsaved edits left to ask about when the window closes
    drive(loop, lambda: target.read_text().startswith("// top"))
    drive(loop, lambda: not panel.source.current.unsaved)


def test_identity_card_says_valid_in_words(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = next(p for p in window.panels if isinstance(p, AccountPanel))
    label = panel.cert_labels["isValid"]
    drive(loop, lambda: label.text() != "—")
    assert label.text() == "Valid"
    form = panel.cert_fields.layout()
    assert isinstance(form, QFormLayout)
    row_label = form.labelForField(label)
    assert isinstance(row_label, QLabel) and row_label.text() == "Status"
    assert cert_value("isValid", False) == "Not valid: the certificate was revoked"
    assert cert_value("isValid", "true") == "Valid"


def test_block_view_has_no_direction_column(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    alice = node.client("alice")
    (r,) = submit(alice, transfer_tx(node.address("bob"), 3))
    connect(loop, controller, node, "alice")
    client = controller.session.client
    assert client is not None
    number = alice.get(f"/bloc/v2.2/transactions/{r['hash']}/result").json()
    tx = loop.run_until_complete(client.transactions(hash=r["hash"]))[0]
    block = loop.run_until_complete(client.block(tx.block_number))
    assert block is not None and number
    dialog = BlockDialog(block, window)
    try:
        direction = COLUMNS.index("Direction")
        assert dialog.view.isColumnHidden(direction)
        shown = [
            dialog.model.headerData(c, Qt.Orientation.Horizontal)
            for c in range(dialog.model.columnCount())
            if not dialog.view.isColumnHidden(c)
        ]
        assert "Direction" not in shown and "Hash" in shown
    finally:
        dialog.deleteLater()


def test_contracts_tree_header_names_what_its_rows_hold() -> None:
    header = str(ContractsModel.HEADERS[1])
    assert "Instances" in header and "chain" in header.lower()


def test_dashboard_header_counts_what_the_per_block_plot_counts(
    node: RunningNode, controller: AppController, loop: qasync.QEventLoop
) -> None:
    alice = node.client("alice")
    body = {
        "label": "Dashboard shard",
        "contract": "Registry",
        "src": "contract Registry { uint public n; }",
        "args": {},
        "members": [{"orgName": "Acme", "orgUnit": "", "commonName": "", "access": True}],
        "balances": [{"address": node.address("alice"), "balance": 10}],
    }
    assert alice.post("/bloc/v2.2/chain", json=body).status_code == 200  # a GENESIS
    submit(alice, transfer_tx(node.address("bob"), 1))
    connect(loop, controller, node)
    panel = DashboardPanel(controller)
    panel.resize(830, 500)
    panel.show()
    try:
        drive(loop, lambda: panel.plots_ready and panel.service.held > 0)
        drive(loop, lambda: panel.status.text().startswith("Blocks"))
        data = panel.service.window_data()
        plotted = int(data.txs.sum())
        assert plotted > sum(data.type_counts.values())  # the shard's creation is in the plot
        assert f": {plotted:,} transactions" in panel.status.text(), panel.status.text()
        assert "chain creations" in panel.status.text()
    finally:
        panel.close()
        panel.deleteLater()


def test_curl_copies_are_silent() -> None:
    preview = Preview("POST", "http://node/strato/v2.3/transaction", {"txs": []}, "alice", "main")
    assert preview.curl().startswith("curl -s -X POST ")


def test_pyproject_license_is_an_spdx_string() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["license"] == "Apache-2.0"
    requires = data["build-system"]["requires"]
    assert any(r.replace(" ", "").startswith("setuptools>=77") for r in requires), requires


_ = QWidget  # (imported for type names in failures)
