"""The shell's desktop conventions: the menu bar and its shortcuts (and what panels add to it),
Quit (Ctrl+Q) stopping the embedded node, About with the versions, the node's health in words
and colour, icons that follow the theme, the grouped navigation, what the window remembers, a
small screen, and the keyboard focus."""

from __future__ import annotations

import asyncio
import json
import os
import platform
import time
from pathlib import Path

import pytest
import qasync
from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QPoint, Qt, qVersion
from PySide6.QtGui import QAction, QColor, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QMenu,
    QSplitter,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)
from pytestqt.qtbot import QtBot

from app import __version__ as app_version
from app.client.models import Health
from app.services.controller import AppController
from app.ui.shell import window_state
from app.ui.shell.main_window import MainWindow
from app.ui.shell.theme import apply_theme, dark_palette
from tests.gui.conftest import connect, drive, make_controller
from tests.integration.node_fixture import RunningNode


def menu_entries(window: MainWindow, shown: bool = False) -> dict[str, dict[str, str]]:
    """Menu title -> {action text: shortcut shown} (separators and section titles left out;
    with ``shown``, only the actions on screen: not those of the panels not shown)."""
    found: dict[str, dict[str, str]] = {}
    for top in window.menuBar().actions():
        menu = top.menu()
        assert isinstance(menu, QMenu)
        found[top.text().replace("&", "")] = {
            a.text().replace("&", ""): a.shortcut().toString()
            for a in menu.actions()
            if not a.isSeparator() and (a.isVisible() or not shown)
        }
    return found


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_ctrl_q_quits_and_stops_the_embedded_node(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    controller.tasks.start("Connecting", controller.start())
    drive(loop, lambda: controller.sandbox.state == "running", 60)
    proc = controller.sandbox._proc
    assert proc is not None
    pid = int(proc.processId())
    assert pid > 0 and pid_alive(pid)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    drive(loop, lambda: window.is_closed, 30)
    assert not window.isVisible()
    assert controller.sandbox.state == "stopped"
    assert not pid_alive(pid)  # the node process is gone, not left behind


def test_quit_from_the_file_menu_takes_the_same_path(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> None:
    controller.tasks.start("Connecting", controller.start())
    drive(loop, lambda: controller.sandbox.state == "running", 60)
    proc = controller.sandbox._proc
    assert proc is not None
    pid = int(proc.processId())
    quit_action = next(
        a for a in window.menus["File"].actions() if a.shortcut().toString() == "Ctrl+Q"
    )
    assert quit_action.text() == "Quit"
    quit_action.trigger()
    drive(loop, lambda: window.is_closed, 30)
    assert controller.sandbox.state == "stopped" and not pid_alive(pid)


def test_menu_bar_has_the_menus_and_the_shortcuts(
    window: MainWindow, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    menus = menu_entries(window, shown=True)  # the first panel's: it adds none
    assert list(menus) == ["File", "Edit", "View", "Go", "Tools", "Help"]
    assert menus["File"] == {"Connection…": "Ctrl+Shift+O", "Quit": "Ctrl+Q"}
    assert menus["Edit"]["Copy"] == "Ctrl+C"
    assert menus["Edit"]["Search the node…"] == "Ctrl+G"
    assert menus["View"] == {
        "HTTP inspector": "Ctrl+I",
        "Sandbox log": "Ctrl+L",
        "Debugger": "Ctrl+Shift+Y",
        "Theme": "",
        "Refresh": "F5",
    }
    # Go: every panel, Ctrl+1 … in the order the navigation shows them, then Back/Forward
    go = menus["Go"]
    titles = [window.nav.item(row).text() for row in window.nav.visual_order()]
    assert list(go)[: len(titles)] == titles
    assert [go[t] for t in titles] == [f"Ctrl+{n}" for n in range(1, len(titles) + 1)]
    assert go["Back"] == "Alt+Left" and go["Forward"] == "Alt+Right"
    assert menus["Tools"]["Act as user…"] == "Ctrl+U"
    assert "Restart the sandbox node" in menus["Tools"]
    assert menus["Help"] == {"Guided tour": "F1", "About Stratoscope": ""}

    # the Go entries and their shortcuts select the panels; Back/Forward walk the history
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    tables = titles.index("Tables") + 1
    qtbot.keyClick(window, Qt.Key(Qt.Key.Key_0 + tables), Qt.KeyboardModifier.ControlModifier)
    assert window.stack.currentWidget() is window.panels[window.nav.visual_order()[tables - 1]]
    assert str(getattr(window.stack.currentWidget(), "title", "")) == "Tables"
    chains = next(a for a in window.menus["Go"].actions() if a.text() == "Chains")
    chains.trigger()
    assert str(getattr(window.stack.currentWidget(), "title", "")) == "Chains"
    window.back_action.trigger()
    assert str(getattr(window.stack.currentWidget(), "title", "")) == "Tables"
    window.forward_action.trigger()
    assert str(getattr(window.stack.currentWidget(), "title", "")) == "Chains"
    assert not window.forward_action.isEnabled()
    # icons from the icon set, on the navigation and the actions, once the window is shown
    drive(loop, lambda: not window.refresh_action.icon().isNull())
    assert not window.nav.item(0).icon(0).isNull()
    assert not chains.icon().isNull()


def test_panels_add_their_actions_to_the_menus(
    controller: AppController, loop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.ui.panels.files.panel import FilesPanel

    made: list[QAction] = []

    def menu_actions(self: FilesPanel) -> dict[str, list[QAction]]:
        act = QAction("Upload a file…", self)
        act.setShortcut(QKeySequence("Ctrl+Shift+U"))
        made.append(act)
        return {"File": [act]}

    monkeypatch.setattr(FilesPanel, "menu_actions", menu_actions, raising=False)
    window = MainWindow(controller)
    try:
        window.show()
        assert menu_entries(window)["File"]["Upload a file…"] == "Ctrl+Shift+U"
        files = next(i for i, p in enumerate(window.panels) if isinstance(p, FilesPanel))
        window.nav.setCurrentRow(0)
        assert not made[0].isVisible()  # another panel is shown: its shortcut is off
        window.nav.setCurrentRow(files)
        assert made[0].isVisible()
    finally:
        window.close()
        drive(loop, lambda: window.is_closed)
        window.deleteLater()


def test_health_in_words_and_about_shows_the_versions(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
) -> None:
    assert window.status_health.text() == ""  # not connected: nothing to say
    connect(loop, controller, node)
    drive(loop, lambda: controller.session.health is not None)
    health = controller.session.health
    assert health is not None and health.version
    text = window.status_health.text()
    assert "healthy" in text and "NOT" not in text and health.version in text
    assert window.status_health.property("level") == "ok"
    assert "#1e7b34" in window.status_health.styleSheet()  # green on the light theme
    assert health.version in window.status_health.toolTip()

    # what is wrong, in words and red, when the node says it is not healthy
    raw = dict(health.raw, healthInfo={"isHealthy": False, "isNotStalled": False})
    controller.session._on_health(Health.from_json(raw))
    assert "NOT healthy: block production stalled" in window.status_health.text()
    assert window.status_health.property("level") == "error"
    controller.session._on_health(health)

    about = window.show_about()
    try:
        text = about.plain_text()
        assert f"Stratoscope: {app_version}" in text
        assert f"Qt: {qVersion()}" in text
        assert f"PySide6: {pyside_version}" in text
        assert f"Python: {platform.python_version()}" in text
        assert f"Node: stratoscope-sandbox {health.version} at {node.url}" in text
        assert health.version in about.text.text()
    finally:
        about.close()


def test_health_and_icons_follow_the_theme(
    node: RunningNode,
    controller: AppController,
    window: MainWindow,
    loop: qasync.QEventLoop,
    qapp: QApplication,
) -> None:
    connect(loop, controller, node)
    drive(loop, lambda: window.status_health.property("level") == "ok")
    drive(loop, lambda: not window.refresh_action.icon().isNull())

    def icon_colour() -> QColor:
        image = window.refresh_action.icon().pixmap(32, 32).toImage()
        pixels = [image.pixelColor(x, y) for x in range(32) for y in range(32)]
        return max(pixels, key=lambda c: c.alpha())  # a pixel of the glyph

    light = icon_colour()
    before = qapp.palette()
    try:
        apply_theme(qapp, "dark")
        drive(loop, lambda: "#6fd08c" in window.status_health.styleSheet())  # light green on dark
        dark = icon_colour()
        assert dark.lightness() > light.lightness() + 100  # re-tinted: light glyphs on dark
        # the navigation's section headers in the dark palette's placeholder grey
        build = window.nav.section_header("Build")
        assert build is not None
        option = QStyleOptionViewItem()
        option.initFrom(window.nav)
        delegate = window.nav.itemDelegate()
        assert isinstance(delegate, QStyledItemDelegate)
        delegate.initStyleOption(option, window.nav.indexFromItem(build))
        header_colour = option.palette.color(QPalette.ColorRole.Text)
        assert header_colour == dark_palette().color(QPalette.ColorRole.PlaceholderText)
    finally:
        apply_theme(qapp, "system")
        qapp.setPalette(before)
    drive(loop, lambda: "#1e7b34" in window.status_health.styleSheet())


def drag_handle(qtbot: QtBot, split: QSplitter, delta: int) -> None:
    """Drag the splitter's first handle by ``delta`` pixels with the mouse."""
    handle = split.handle(1)
    start = handle.rect().center()
    horizontal = split.orientation() == Qt.Orientation.Horizontal
    end = start + (QPoint(delta, 0) if horizontal else QPoint(0, delta))
    before = split.sizes()[0]
    qtbot.mousePress(handle, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(handle, end)
    qtbot.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=end)
    assert split.sizes()[0] != before, "the drag moved the divider"


def test_window_remembers_geometry_splitters_and_the_last_panel(
    loop: qasync.QEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    def open_window() -> tuple[AppController, MainWindow]:
        controller = make_controller(tmp_path)
        loop.run_until_complete(controller.load_settings())
        window = MainWindow(controller)
        window.show()
        return controller, window

    def close_window(controller: AppController, window: MainWindow) -> None:
        window.close()
        drive(loop, lambda: window.is_closed, 30)
        window.deleteLater()
        controller.deleteLater()
        loop.run_until_complete(asyncio.sleep(0.01))

    controller, window = open_window()
    window.resize(760, 540)  # within the offscreen screen (800x600)
    main = window.findChild(QSplitter, "mainSplitter")
    assert main is not None
    tables = next(i for i, p in enumerate(window.panels) if getattr(p, "title", "") == "Tables")
    window.nav.setCurrentRow(tables)
    inner = window_state.splitters(window)
    panel_key = next(k for k in inner if k.startswith("tablesPanel/"))
    loop.run_until_complete(asyncio.sleep(0.1))  # laid out at the new size
    untouched = next(k for k in inner if k.startswith("assetsPanel/"))
    drag_handle(qtbot, main, 40)  # the user drags the dividers
    drag_handle(qtbot, inner[panel_key], -60)
    loop.run_until_complete(asyncio.sleep(0.1))
    nav_width, panel_sizes = main.sizes()[0], inner[panel_key].sizes()
    close_window(controller, window)
    saved = json.loads((tmp_path / "config" / "settings.json").read_text())["window"]
    assert saved["panel"] == "Tables" and "mainSplitter" in saved["splitters"]
    assert untouched not in saved["splitters"]  # never dragged: the panel lays it out

    controller, window = open_window()
    try:
        assert (window.width(), window.height()) == (760, 540)
        assert window.stack.currentWidget() is window.panels[tables]
        assert window.nav.currentRow() == tables
        restored = window_state.splitters(window)
        drive(loop, lambda: restored["mainSplitter"].sizes()[0] == nav_width)
        drive(loop, lambda: restored[panel_key].sizes() == panel_sizes)
    finally:
        close_window(controller, window)


def test_window_fits_a_small_screen(window: MainWindow, qtbot: QtBot) -> None:
    # the window's minimum leaves room for a title bar and a panel on a 1024x640 screen
    least = window.minimumSizeHint().expandedTo(window.minimumSize())
    assert least.width() <= 1024 and least.height() <= 600
    for row in range(window.nav.count()):  # however large a panel wants to be
        window.nav.setCurrentRow(row)
        window.resize(1024, 600)
        assert (window.width(), window.height()) == (1024, 600)


def test_navigation_is_grouped_and_keyboard_navigable(
    window: MainWindow, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    nav = window.nav
    assert nav.sections() == {
        "WALLET": ["Account", "Assets"],
        "BUILD": ["Composer"],
        "DATA": ["Tables", "Files"],
        "NETWORK": ["Chains", "Dashboard", "Explorer"],
    }
    # rows keep meaning panel indices: search's go_to and the tour select by them
    assert [nav.item(i).text() for i in range(nav.count())] == [
        str(getattr(p, "title", "")) for p in window.panels
    ]

    def title() -> str:
        return str(getattr(window.stack.currentWidget(), "title", ""))

    # a click on an entry shows its panel; a click on a section header changes nothing
    files = next(i for i in range(nav.count()) if nav.item(i).text() == "Files")
    rect = nav.visualItemRect(nav.item(files))
    qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert title() == "Files"
    build = nav.section_header("Build")
    assert build is not None
    header = nav.visualItemRect(build)
    qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton, pos=header.center())
    assert title() == "Files" and nav.currentRow() == files
    # the keys walk the entries over the headers
    nav.setFocus()
    nav.setCurrentRow(0)
    qtbot.keyClick(nav, Qt.Key.Key_Down)
    assert title() == "Assets"
    qtbot.keyClick(nav, Qt.Key.Key_Down)
    assert title() == "Composer"  # the BUILD header is passed by
    qtbot.keyClick(nav, Qt.Key.Key_Up)
    assert title() == "Assets"
    qtbot.keyClick(nav, Qt.Key.Key_End)
    assert title() == "Explorer"
    qtbot.keyClick(nav, Qt.Key.Key_Home)
    assert title() == "Account"  # not the WALLET header above it


def test_focus_starts_in_the_navigation_and_tab_follows_the_layout(
    window: MainWindow, qtbot: QtBot
) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    assert QApplication.focusWidget() is window.nav
    # from the toolbar's search box, Tab goes to the navigation, then into the panel
    window.search.setFocus()
    qtbot.keyClick(window.search, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is window.nav
    qtbot.keyClick(window.nav, Qt.Key.Key_Tab)
    focused, panel = QApplication.focusWidget(), window.stack.currentWidget()
    assert focused is not None and panel is not None and panel.isAncestorOf(focused)


def test_long_status_texts_do_not_widen_the_window(window: MainWindow) -> None:
    window.status_node.setText("● sandbox https://" + "very-long-host-name." * 20 + "example")
    window.status_user.setText("User alice · " + "A very long organization name " * 10)
    least = window.minimumSizeHint().expandedTo(window.minimumSize())
    assert least.width() <= 1024


def test_view_theme_switches_and_is_remembered(
    loop: qasync.QEventLoop, qapp: QApplication, tmp_path: Path
) -> None:
    before = qapp.palette()
    controller = make_controller(tmp_path)
    loop.run_until_complete(controller.load_settings())
    window = MainWindow(controller)
    window.show()
    try:
        entries = menu_entries(window)["View"]
        assert "Theme" in entries
        assert window.theme_actions["system"].isChecked()
        window.theme_actions["dark"].trigger()
        assert qapp.palette().window().color().lightness() < 80
        assert window.theme_actions["dark"].isChecked()
        settings = tmp_path / "config" / "settings.json"
        drive(loop, lambda: settings.exists() and '"theme": "dark"' in settings.read_text())
        # the next start without --theme uses it
        apply_theme(qapp, "system")
        qapp.setPalette(before)
        again = make_controller(tmp_path)
        second = MainWindow(again)
        second.follow_saved_theme = True
        loop.run_until_complete(again.load_settings())
        assert qapp.palette().window().color().lightness() < 80
        assert second.theme_actions["dark"].isChecked()
        second.close()
        drive(loop, lambda: second.is_closed)
        second.deleteLater()
        again.deleteLater()
    finally:
        apply_theme(qapp, "system")
        qapp.setPalette(before)
        window.close()
        drive(loop, lambda: window.is_closed)
        window.deleteLater()
        controller.deleteLater()


def test_settings_written_at_once_stay_readable(loop: qasync.QEventLoop, tmp_path: Path) -> None:
    # on quit the window's state and the composer's draft are saved together: two writes at
    # once mixed their bytes in the file, which then read back as no settings at all (welcome,
    # profile and theme lost). One write at a time, each with the latest values.
    controller = make_controller(tmp_path)
    loop.run_until_complete(controller.load_settings())
    store = controller.settings
    save = store.save
    running: list[int] = []
    most = [0]

    def slow_save(data: dict[str, object]) -> None:
        running.append(1)
        most[0] = max(most[0], len(running))
        time.sleep(0.05)
        try:
            save(data)
        finally:
            running.pop()

    store.save = slow_save  # type: ignore[method-assign]

    async def many() -> None:
        await asyncio.gather(*(controller.save_settings(**{f"k{i}": i}) for i in range(6)))

    loop.run_until_complete(many())
    assert most[0] == 1
    data = json.loads((tmp_path / "config" / "settings.json").read_text())
    assert {f"k{i}": i for i in range(6)}.items() <= data.items()
    assert not list((tmp_path / "config").glob("*.tmp"))
    controller.deleteLater()
