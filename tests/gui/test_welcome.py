"""The first-run welcome and the guided tour: the welcome appears once, after the launcher's
start-up connection, and never in a window built on its own; the tour selects and describes every
panel (new ones get a generic step), Back/Next/Finish/Close work, and closing leaves no overlay."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.services.composer import Preview
from app.services.controller import AppController
from app.ui.shell.main_window import MainWindow
from app.ui.shell.tour import PANEL_TEXT, GuidedTour, PanelHighlight
from app.ui.shell.welcome_dialog import WelcomeDialog, show_welcome, welcome_after
from app.ui.widgets.confirm_dialog import ConfirmDialog
from tests.gui.conftest import drive, make_controller


def visible_welcome(window: MainWindow) -> WelcomeDialog | None:
    found = [d for d in window.findChildren(WelcomeDialog) if d.isVisible()]
    return found[0] if found else None


def visible_tour(window: MainWindow) -> GuidedTour | None:
    found = [t for t in window.findChildren(GuidedTour) if t.isVisible()]
    return found[0] if found else None


def highlights(window: MainWindow) -> list[PanelHighlight]:
    return [h for h in window.stack.findChildren(PanelHighlight) if h.isVisible()]


def run_app_start(loop: qasync.QEventLoop, tmp_path: Path) -> tuple[AppController, MainWindow]:
    """What the launcher does: window shown, the start-up task, the welcome hooked on it."""
    controller = make_controller(tmp_path)
    window = MainWindow(controller)
    window.show()
    task = controller.tasks.start("Connecting", controller.start())
    welcome_after(window, task)
    drive(loop, task.done, 60)
    loop.run_until_complete(asyncio.sleep(0.05))  # the done callback runs on the next turn
    return controller, window


def close_app(loop: qasync.QEventLoop, controller: AppController, window: MainWindow) -> None:
    window.close()
    drive(loop, lambda: window.is_closed, 30)
    window.deleteLater()
    controller.deleteLater()
    loop.run_until_complete(asyncio.sleep(0.01))


def test_welcome_on_first_run_only(loop: qasync.QEventLoop, qtbot: QtBot, tmp_path: Path) -> None:
    controller, window = run_app_start(loop, tmp_path)
    try:
        assert controller.session.username == "alice"
        welcome = visible_welcome(window)
        assert welcome is not None
        assert not welcome.isModal()  # the window stays usable behind it
        text = welcome.text.text()
        for word in ("sandbox", "alice", "bob", "carol", "dave", "admin", "CarDemo"):
            assert word in text
        assert "no identity" in text
        assert str(controller.sandbox.data_dir) in text
        drive(loop, lambda: controller.tasks.running <= 2)  # the watchers only
        settings = json.loads((tmp_path / "config" / "settings.json").read_text())
        assert settings["welcome_shown"] is True
        assert settings["last_user"]["Sandbox"] == "alice"  # the other settings are kept
        assert not controller.first_run
    finally:
        close_app(loop, controller, window)

    # the next start (same config dir) connects as before and shows no welcome
    controller, window = run_app_start(loop, tmp_path)
    try:
        assert controller.session.username == "alice"
        assert not controller.first_run
        assert visible_welcome(window) is None
    finally:
        close_app(loop, controller, window)


def test_no_welcome_when_the_window_is_built_directly_or_start_up_is_cancelled(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    # a window on its own (tests, tools): nothing pops up, even on a first run
    loop.run_until_complete(asyncio.sleep(0.05))
    assert controller.first_run
    assert visible_welcome(window) is None

    async def never() -> None:
        await asyncio.sleep(3600)

    task = controller.tasks.start("Connecting", never())
    welcome_after(window, task)
    task.cancel()
    loop.run_until_complete(asyncio.sleep(0.05))
    assert visible_welcome(window) is None


def test_welcome_close_and_take_the_tour(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    welcome = show_welcome(window)
    assert welcome.isVisible()
    welcome.close_button.click()
    drive(loop, lambda: visible_welcome(window) is None)
    assert visible_tour(window) is None

    welcome = show_welcome(window)
    welcome.tour_button.click()
    drive(loop, lambda: visible_welcome(window) is None and visible_tour(window) is not None)
    tour = visible_tour(window)
    assert tour is not None and tour.index == 0
    assert window.nav.currentRow() == 0


class GizmoPanel(QWidget):
    """A panel the tour has no sentence for (as panels added later)."""

    title = "Gizmos"


class WidgetPanel(QWidget):
    title = "Widgets"
    tour_text = "Widgets says what it is for itself."


def test_tour_walks_every_panel(window: MainWindow, loop: qasync.QEventLoop, qtbot: QtBot) -> None:
    for extra in (GizmoPanel(window), WidgetPanel(window)):
        window.panels.append(extra)
        window.nav.addItem(extra.title)
        window.stack.addWidget(extra)
    window.nav.setCurrentRow(2)
    tour = window.start_tour()
    assert tour.isVisible() and not tour.isModal()
    assert len(tour.steps) == len(window.panels) + 1  # every panel, then the toolbar
    assert tour.back_button.isEnabled() is False

    seen = []
    for i, panel in enumerate(window.panels):
        title = str(getattr(panel, "title", ""))
        assert tour.index == i
        assert window.nav.currentRow() == i
        assert window.stack.currentWidget() is panel
        assert title in tour.heading.text()
        assert f"step {i + 1} of {len(tour.steps)}" in tour.heading.text()
        assert highlights(window), "the panel is framed"
        if title in PANEL_TEXT:
            assert tour.text.text() == PANEL_TEXT[title]
        seen.append(title)
        if title == "Gizmos":
            assert "The Gizmos panel" in tour.text.text()
        if title == "Widgets":
            assert tour.text.text() == WidgetPanel.tour_text
        tour.next_button.click()
    assert seen[:4] == ["Account", "Composer", "Tables", "Chains"]

    # the last step: the toolbar; the panel stays selected, no frame, Next says Finish
    assert tour.current.panel is None and "Toolbar" in tour.heading.text()
    assert tour.next_button.text() == "Finish"
    assert not highlights(window)
    tour.back_button.click()
    assert tour.index == len(window.panels) - 1
    assert window.nav.currentRow() == len(window.panels) - 1
    assert highlights(window)
    tour.next_button.click()
    tour.next_button.click()  # Finish
    drive(loop, lambda: visible_tour(window) is None)
    assert not highlights(window)


def test_tour_close_escape_and_f1(
    window: MainWindow, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    tour = window.start_tour()
    tour.next_button.click()
    assert window.nav.currentRow() == 1
    tour.close_button.click()
    drive(loop, lambda: visible_tour(window) is None)
    assert not highlights(window)
    assert window.nav.currentRow() == 1  # closing keeps the panel the user reached

    f1 = window.findChild(QAction, "actionTour")
    assert f1 is not None and f1.shortcut().toString() == "F1"
    f1.trigger()
    drive(loop, lambda: visible_tour(window) is not None)
    again = visible_tour(window)
    assert again is not None and again.index == 0 and window.nav.currentRow() == 0
    assert window.start_tour() is again  # one tour at a time: F1 again restarts it
    qtbot.keyClick(again, Qt.Key.Key_Escape)
    drive(loop, lambda: visible_tour(window) is None)
    assert not highlights(window)


def test_welcome_tour_and_confirmation_take_the_keyboard(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    window.activateWindow()
    window.search.setFocus()  # the user was typing in the main window
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.search)
    welcome = show_welcome(window)
    qtbot.waitUntil(welcome.isActiveWindow)
    assert QApplication.focusWidget() is welcome.tour_button
    # Enter takes the tour, which has the keyboard in turn: Enter goes on, Escape closes
    qtbot.keyClick(welcome.tour_button, Qt.Key.Key_Return)
    drive(loop, lambda: visible_welcome(window) is None and visible_tour(window) is not None)
    tour = visible_tour(window)
    assert tour is not None
    qtbot.waitUntil(tour.isActiveWindow)
    assert QApplication.focusWidget() is tour.next_button
    qtbot.keyClick(tour.next_button, Qt.Key.Key_Return)
    assert tour.index == 1
    qtbot.keyClick(tour, Qt.Key.Key_Escape)
    drive(loop, lambda: visible_tour(window) is None)

    # the confirmation sheet takes the keyboard too (Cancel holds it: Enter sends nothing)
    preview = Preview("POST", "http://node/strato/v2.3/transaction", {"txs": []}, "alice", "main")
    sheet = ConfirmDialog(preview, ["Call transfer"], window)
    sheet.open()
    try:
        qtbot.waitUntil(sheet.isActiveWindow)
        assert QApplication.focusWidget() is sheet.cancel_button
        with qtbot.waitSignal(sheet.rejected, timeout=2000):
            qtbot.keyClick(sheet.cancel_button, Qt.Key.Key_Return)
    finally:
        sheet.close()
