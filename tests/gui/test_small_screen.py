"""A 1024x640 screen: the window and its dialogs fit the available area with their frames, the
composer's Deploy…/Call… stay in view, the sandbox log dock opens short. The geometry is
computed against given rectangles (the offscreen platform has no desktop or window manager);
the widgets are real."""

from __future__ import annotations

import asyncio

import qasync
from PySide6.QtCore import QMargins, QRect, QSize, Qt
from PySide6.QtWidgets import QApplication, QDialog, QWidget

from app.services.controller import AppController
from app.ui.panels.explorer.blocks_model import COLUMNS as BLOCK_COLUMNS
from app.ui.shell import screen_fit
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import connect
from tests.gui.test_composer import KINDS, compile_source, confirm, panel_of, shown_height
from tests.gui.test_explorer import loaded_row, show_explorer
from tests.integration.node_fixture import RunningNode

SCREEN = QRect(0, 0, 1024, 640)
OPENBOX = QMargins(4, 29, 4, 4)  # measured under Xvfb: title bar and borders


def settle(loop: qasync.QEventLoop, rounds: int = 5) -> None:
    for _ in range(rounds):
        loop.run_until_complete(asyncio.sleep(0.02))
        QApplication.processEvents()


def test_the_start_size_leaves_room_for_the_frame_and_the_desktop_panel() -> None:
    # a whole 1024x640 screen: the client area is smaller by the frame, not the screen's size
    size = screen_fit.start_size(SCREEN, OPENBOX)
    assert size == QSize(1016, 607)
    # a desktop panel of 32 px at the bottom: the available area, not the screen
    below_panel = QRect(0, 0, 1024, 608)
    assert screen_fit.start_size(below_panel, OPENBOX) == QSize(1016, 575)
    # a large screen: the preferred size
    assert screen_fit.start_size(QRect(0, 0, 1600, 1000), OPENBOX) == QSize(1100, 760)


def test_a_window_below_the_screen_is_moved_and_shrunk_onto_it() -> None:
    minimum = QSize(720, 460)
    # the old start: a 1024x640 client area under a title bar
    client = QRect(4, 29, 1024, 640)
    fitted = screen_fit.fit_into(SCREEN, OPENBOX, client, minimum)
    outer = fitted.marginsAdded(OPENBOX)
    assert SCREEN.contains(outer)
    assert fitted.size() == QSize(1016, 607)
    # a dialog centred on the window that grew to 500 px downwards moves up, keeps its size
    dialog = QRect(201, 181, 620, 500)
    fitted = screen_fit.fit_into(SCREEN, OPENBOX, dialog, QSize(0, 0))
    assert fitted.size() == dialog.size() and fitted.left() == 201
    assert SCREEN.contains(fitted.marginsAdded(OPENBOX))
    # one that fits is left alone
    inside = QRect(100, 100, 400, 300)
    assert screen_fit.fit_into(SCREEN, OPENBOX, inside, QSize(0, 0)) == inside
    # a screen left of the primary one (negative coordinates)
    left = QRect(-1280, 0, 1280, 800)
    fitted = screen_fit.fit_into(left, OPENBOX, QRect(-100, 50, 900, 700), QSize(0, 0))
    assert left.contains(fitted.marginsAdded(OPENBOX))


def test_frame_margins_from_the_frame_and_client_rectangles() -> None:
    assert screen_fit.frame_margins(QRect(0, 0, 1024, 640), QRect(4, 29, 1016, 607)) == OPENBOX
    assert screen_fit.frame_margins(QRect(5, 5, 10, 10), QRect(5, 5, 10, 10)).isNull()


def test_keep_on_screen_moves_a_real_dialog(window: MainWindow) -> None:
    dialog = QDialog(window)
    dialog.setGeometry(QRect(201, 181, 620, 500))
    dialog.show()
    assert screen_fit.keep_on_screen(dialog, SCREEN)
    framed = screen_fit.frame_margins(dialog.frameGeometry(), dialog.geometry())
    margins = framed if not framed.isNull() else screen_fit.ESTIMATED_FRAME
    assert SCREEN.contains(dialog.geometry().marginsAdded(margins))
    assert dialog.size() == QSize(620, 500)
    assert not screen_fit.keep_on_screen(dialog, SCREEN)  # it stays where it now is
    dialog.close()


def test_the_sandbox_log_dock_opens_short(window: MainWindow, loop: qasync.QEventLoop) -> None:
    window.resize(1016, 607)
    settle(loop)
    window.sandbox_log.show()
    window.sandbox_log.raise_()
    settle(loop, 10)
    line = window.sandbox_log.fontMetrics().lineSpacing()
    assert window.sandbox_log.height() <= window.height() // 4 + line
    assert window.sandbox_log_view.height() >= 2 * line
    assert screen_fit.log_dock_height(607, 17) == 151
    assert screen_fit.log_dock_height(2000, 17) == 170  # eight lines and the title


def test_deploy_and_call_stay_in_view_at_1024x640_with_a_frame(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    connect(loop, controller, node, "alice")
    panel = panel_of(window)
    window.resize(screen_fit.start_size(SCREEN, OPENBOX))
    compile_source(loop, panel, KINDS)
    settle(loop)
    button: QWidget = panel.deploy_button
    assert shown_height(button) >= button.minimumSizeHint().height()
    panel.deploy_args.editors["start"].set_value(1)
    confirm(loop, panel, panel.deploy())
    # the longest form: nine parameters with arrays, a struct and a mapping
    panel.function.setCurrentIndex(panel.function.findData("everything"))
    settle(loop)
    assert window.size() == QSize(1016, 607)
    button = panel.call_button
    assert shown_height(button) >= button.minimumSizeHint().height()
    assert shown_height(panel.call_batch) >= panel.call_batch.minimumSizeHint().height()
    # with the sandbox log open too
    window.sandbox_log.show()
    settle(loop, 10)
    assert shown_height(button) >= button.minimumSizeHint().height()


def test_the_blocks_list_shows_all_its_columns_at_1024x640(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    """Beside the detail pane, the Blocks list's six columns fit without scrolling sideways
    (Gas used, the last, was off-screen); each is as wide as what it shows."""
    connect(loop, controller, node, "alice")
    window.resize(screen_fit.start_size(SCREEN, OPENBOX))
    panel = show_explorer(window, loop)
    loaded_row(loop, panel.blocks_model, 0, BLOCK_COLUMNS.index("Gas used"))
    settle(loop)
    table = panel.blocks_view.table
    header = table.horizontalHeader()
    assert header.count() == len(BLOCK_COLUMNS) == 6
    assert table.horizontalScrollBar().maximum() == 0  # nothing off to the right
    fm = table.fontMetrics()
    for col in range(6):  # each shown value fits its column
        text = str(panel.blocks_model.index(0, col).data())
        assert fm.horizontalAdvance(text) < header.sectionSize(col), (col, text)
    tip = panel.blocks_model.headerData(
        BLOCK_COLUMNS.index("Txns"), Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole
    )
    assert tip == "Transactions in the block"
