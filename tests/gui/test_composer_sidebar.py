"""The composer's project sidebar: a width that shows file names and both tabs, and the width
the user dragged it to kept for the next start."""

from __future__ import annotations

from pathlib import Path

import qasync
from PySide6.QtWidgets import QSplitterHandle, QTabBar

from app.services.controller import AppController
from app.ui.panels.composer.panel import ComposerPanel
from app.ui.shell.main_window import MainWindow
from tests.gui.conftest import drive
from tests.gui.test_composer import panel_of, settle
from tests.gui.test_composer_project import tree_index
from tests.gui.test_composer_source import close_window, restarted


def make_tested_project(base: Path) -> Path:
    proj = base / "proj"
    (proj / "contracts").mkdir(parents=True)
    (proj / "test").mkdir()
    (proj / "contracts" / "Counter.sol").write_text("contract Counter { uint public n; }\n")
    (proj / "test" / "CounterTest.sol").write_text("contract CounterTest { }\n")
    return proj


def tabs_fit(bar: QTabBar) -> bool:
    """Every tab's label whole: no scroll arrows, no tab cut at the bar's edge."""
    return all(bar.tabRect(i).right() < bar.width() for i in range(bar.count())) and all(
        bar.tabRect(i).width() >= bar.tabSizeHint(i).width() for i in range(bar.count())
    )


def name_fits(loop: qasync.QEventLoop, panel: ComposerPanel, path: Path) -> bool:
    tree = panel.sidebar.tree
    index = tree_index(loop, panel, path)
    rect = tree.visualRect(index)
    icon = tree.iconSize().width() if tree.iconSize().width() > 0 else 16
    text = tree.fontMetrics().horizontalAdvance(path.name)
    return rect.left() + icon + 8 + text <= tree.viewport().width()


def test_the_sidebar_opens_wide_enough_and_keeps_the_dragged_width(
    controller: AppController, window: MainWindow, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    loop.run_until_complete(controller.load_settings())
    window.resize(1400, 900)
    panel = panel_of(window)
    proj = make_tested_project(tmp_path)
    panel.open_folder(proj)
    settle(loop)
    width = panel.split.sizes()[0]
    em = panel.fontMetrics().horizontalAdvance("M")
    assert width >= 15 * em  # not a 90 px strip
    # a test file's name inside its folder shows whole, and so do the Files and Tests tabs
    assert name_fits(loop, panel, proj / "test" / "CounterTest.sol")
    assert [panel.sidebar.tabText(i) for i in range(panel.sidebar.count())] == ["Files", "Tests"]
    assert tabs_fit(panel.sidebar.tabBar())
    # what the scenario bar says does not widen Deploy & call at the sidebar's expense
    panel.scenario_status.setText("Replayed 12 of 12 step(s): stopped at a failure")
    settle(loop)
    assert panel.split.sizes()[0] == width and tabs_fit(panel.sidebar.tabBar())
    # at 1024 px the editor and Deploy & call keep their room; the tabs still read whole
    window.resize(1024, 640)
    settle(loop)
    assert panel.minimumSizeHint().width() <= window.stack.width()
    assert tabs_fit(panel.sidebar.tabBar())
    window.resize(1400, 900)
    settle(loop)

    # the user drags the sidebar wider: the width is kept for the next start
    handle = panel.split.handle(1)
    assert isinstance(handle, QSplitterHandle)
    dragged = width + 60
    panel.split.moveSplitter(dragged, 1)  # what a drag of the handle does
    drive(loop, lambda: controller.setting("composer_sidebar_width") == dragged, 5)
    close_window(loop, window)

    again, win = restarted(loop, tmp_path)
    try:
        win.resize(1400, 900)
        composer = panel_of(win)
        drive(loop, lambda: composer.project_root() == proj)
        settle(loop)
        drive(loop, lambda: composer.split.sizes()[0] == dragged, 5)
    finally:
        close_window(loop, win)
        loop.run_until_complete(again.shutdown())
        win.deleteLater()
        again.deleteLater()
