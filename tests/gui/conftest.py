"""GUI test fixtures: a qasync loop on pytest-qt's QApplication, controllers and windows wired to
a real sandbox node (one per module), config and secrets in temp dirs.

Async flows are driven with ``loop.run_until_complete`` (DESIGN.md): pytest-qt's waiters spin Qt
but not asyncio. ``drive`` runs the loop until a condition holds.
"""

from __future__ import annotations

import asyncio
import gc
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QCoreApplication, QEvent, QPoint, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTabWidget, QTextBrowser, QWidget
from pytestqt.qtbot import QtBot

from app.services.controller import AppController
from app.services.profiles import Profile
from app.services.secret_service import SecretService
from app.services.session import Credentials
from app.ui.panels.composer.panel import ComposerPanel
from app.ui.panels.composer.tests_view import TestsView
from app.ui.shell.main_window import MainWindow
from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode


@pytest.fixture(autouse=True, scope="module")
def collect_qt_garbage() -> Iterator[None]:
    """At the end of each GUI module: deferred deletes flushed, then reference cycles holding Qt
    wrappers collected, while the module's objects are still consistent. Left to the garbage
    collector's own moment, in a later (non-GUI) module, such a cycle crashed the process once
    inside pytest-qt's event processing."""
    yield
    app = QCoreApplication.instance()
    if app is None:
        return
    for _ in range(2):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        app.processEvents()
        gc.collect()


CIRRUS_FAMILIES = ("both", "strato16")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test marked ``cirrus_families`` (most often a whole module, by ``pytestmark``) runs
    once against the default sandbox (``both``: the seed's Cirrus names and STRATO 16's) and
    once against a node serving only STRATO 16's (``serve --cirrus-names strato16``): working
    against a STRATO 16 node is then tested, not hoped. One node per module and family."""
    if "cirrus_names" not in metafunc.fixturenames or not _marks_some(metafunc.module):
        return
    marked = metafunc.definition.get_closest_marker("cirrus_families") is not None
    # the module's other tests share its default node (an unparametrized one would be a third)
    families = CIRRUS_FAMILIES if marked else CIRRUS_FAMILIES[:1]
    metafunc.parametrize("cirrus_names", families, indirect=True, scope="module")


def _marks_some(module: Any) -> bool:
    """Whether a test module marks any of its tests (or itself) ``cirrus_families``."""
    for obj in (module, *vars(module).values()):
        marks = getattr(obj, "pytestmark", [])
        for m in marks if isinstance(marks, list) else [marks]:
            if getattr(m, "name", "") == "cirrus_families":
                return True
    return False


@pytest.fixture(scope="module")
def cirrus_names(request: pytest.FixtureRequest) -> str:
    """The names the module's node serves (``serve --cirrus-names``): ``both`` unless the test
    is marked ``cirrus_families``."""
    return str(getattr(request, "param", "both"))


def node_flags(cirrus_names: str) -> tuple[str, ...]:
    """The ``serve`` flags of a node serving ``cirrus_names``."""
    return () if cirrus_names == "both" else ("--cirrus-names", cirrus_names)


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory, cirrus_names: str) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, *node_flags(cirrus_names), name=f"node-{cirrus_names}")
    try:
        yield n
    finally:
        n.stop()


@dataclass(frozen=True)
class Family:
    """The Cirrus names the module's node serves a contract's rows under, for tests that
    assert names: the seed's (``<C>``, ``<C>.<E>``, ``history@<C>``, ``<C>-<var>``; ``seed``
    names an org or application table such as ``Acme-CarDemo-Car``) or, on a STRATO 16-only
    node, STRATO 16's views (``BlockApps-<C>``, ``BlockApps-<C>-<E>``, ``history@storage``)."""

    strato16: bool

    def contract(self, contract: str, seed: str = "", creator: str = "BlockApps") -> str:
        return f"{creator}-{contract}" if self.strato16 else seed or contract

    def event(self, contract: str, event: str, seed: str = "") -> str:
        return f"BlockApps-{contract}-{event}" if self.strato16 else f"{seed or contract}.{event}"

    def collection(self, contract: str, variable: str, seed: str = "") -> str:
        return f"{self.contract(contract, seed)}-{variable}"

    def history(self, contract: str, seed: str = "") -> str:
        return "history@storage" if self.strato16 else f"history@{seed or contract}"


@pytest.fixture(scope="module")
def family(cirrus_names: str) -> Family:
    """The names the module's node serves (see :class:`Family`)."""
    return Family(cirrus_names == "strato16")


class AlwaysRunningLoop(qasync.QEventLoop):  # type: ignore[misc]
    """A qasync loop that asyncio sees as running between ``run_until_complete`` calls too.

    In the app the loop runs for the whole session. In tests, pytest-qt and QTest process Qt
    events between our ``run_until_complete`` calls, and qasync then steps pending tasks while
    asyncio believes no loop runs (httpx fails with "no running event loop"). Keeping the loop
    marked as running restores the app's situation.
    """

    def run_forever(self) -> Any:
        try:
            return super().run_forever()
        finally:
            asyncio.events._set_running_loop(self)


@pytest.fixture
def loop(qapp: Any) -> Iterator[qasync.QEventLoop]:
    qapp.setQuitOnLastWindowClosed(False)  # closing a test's window must not stop the loop
    lp = AlwaysRunningLoop(qapp)
    # as in the app: plain worker threads, not qasync's QThread pool (QThread objects freed by
    # the garbage collector at a random moment can crash the process)
    executor = ThreadPoolExecutor(2, thread_name_prefix="test-io")
    lp.set_default_executor(executor)
    asyncio.set_event_loop(lp)
    asyncio.events._set_running_loop(lp)
    try:
        yield lp
    finally:
        pending = [t for t in asyncio.all_tasks(lp) if not t.done()]
        for t in pending:
            t.cancel()
        if pending:
            lp.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
        lp.close()
        executor.shutdown(wait=True)


def drive(loop: qasync.QEventLoop, condition: Callable[[], object], timeout: float = 15.0) -> None:
    """Run the event loop until ``condition()`` is true (fails after ``timeout`` seconds)."""

    async def wait() -> None:
        deadline = loop.time() + timeout
        while not condition():
            if loop.time() > deadline:
                raise AssertionError("condition not met in time")
            await asyncio.sleep(0.02)

    loop.run_until_complete(wait())


def node_profile(node: RunningNode, name: str = "Test node", **kw: Any) -> Profile:
    """A profile for a node started by the test (not the embedded one): its own issuer."""
    return Profile(name, node.url, client_id="stratoscope-desktop", **kw)


def make_controller(tmp_path: Path, **kw: Any) -> AppController:
    secrets = SecretService(tmp_path / "config", use_keyring=lambda: False)
    return AppController(
        config_directory=tmp_path / "config",
        sandbox_dir=tmp_path / "sandbox",
        secrets=secrets,
        **kw,
    )


@pytest.fixture
def controller(tmp_path: Path, loop: qasync.QEventLoop, qtbot: QtBot) -> Iterator[AppController]:
    c = make_controller(tmp_path)
    try:
        yield c
    finally:
        loop.run_until_complete(c.shutdown())
        c.deleteLater()
        loop.run_until_complete(asyncio.sleep(0.01))  # deferred deletes run inside the loop


@pytest.fixture
def window(
    controller: AppController, loop: qasync.QEventLoop, qtbot: QtBot
) -> Iterator[MainWindow]:
    w = MainWindow(controller)  # not qtbot.addWidget: its close would run before this teardown
    w.show()
    yield w
    w.close()  # the window's own shutdown: cancel tasks, close the session, stop the sandbox
    drive(loop, lambda: w.is_closed)
    assert controller.tasks.running == 0
    w.deleteLater()


def connect(
    loop: qasync.QEventLoop, controller: AppController, node: RunningNode, user: str = "alice"
) -> None:
    loop.run_until_complete(controller.connect_profile(node_profile(node), Credentials(user, user)))


def click_link(qtbot: QtBot, browser: QTextBrowser, href_prefix: str) -> str:
    """Click the first link of ``browser`` whose target starts with ``href_prefix``."""
    block = browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            href = frag.charFormat().anchorHref()
            if href.startswith(href_prefix):
                cursor = QTextCursor(browser.document())
                cursor.setPosition(frag.position() + max(frag.length() // 2, 1))
                rect = browser.cursorRect(cursor)
                pos = QPoint(rect.center().x(), rect.center().y())
                qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=pos)
                return href
            it += 1
        block = block.next()
    raise AssertionError(f"no {href_prefix} link in: {browser.toPlainText()}")


def panel_of(window: MainWindow) -> ComposerPanel:
    """The composer, brought in front."""
    panel = window.panels[1]
    assert isinstance(panel, ComposerPanel)
    window.nav.setCurrentRow(1)
    return panel


def reveal(qtbot: QtBot, view: TestsView) -> None:
    """Click the tab that holds the view (the composer keeps it on a tab)."""
    w: QWidget | None = view
    while w is not None and not isinstance(w, QTabWidget):
        w = w.parentWidget()
    assert isinstance(w, QTabWidget), "the Tests view is not on a tab"
    at = w.indexOf(view)
    if w.currentIndex() != at:
        qtbot.mouseClick(w.tabBar(), Qt.MouseButton.LeftButton, pos=w.tabBar().tabRect(at).center())
    assert w.currentIndex() == at and view.isVisible()


DESCRIBE_GUI = Path(__file__).resolve().parents[1] / "corpus" / "describe_gui"
DESCRIBE_GUI_TESTS = 6  # the tests of tests/corpus/describe_gui


@pytest.fixture
def tests_project(tmp_path: Path) -> Path:
    """A copy of tests/corpus/describe_gui, the Tests view's project (a test's saves must not
    touch the repository)."""
    root = tmp_path / "project"
    shutil.copytree(DESCRIBE_GUI, root)
    return root


ComposerAs = Callable[[str], ComposerPanel]


@pytest.fixture
def composer_as(
    node: RunningNode, controller: AppController, window: MainWindow, loop: qasync.QEventLoop
) -> ComposerAs:
    """``composer_as(user)``: signed in to the module's node as ``user``, the composer in
    front (the set-up of the composer's modules)."""

    def open_(user: str) -> ComposerPanel:
        connect(loop, controller, node, user)
        return panel_of(window)

    return open_


OpenTests = Callable[..., tuple[ComposerPanel, TestsView]]


@pytest.fixture
def open_tests(composer_as: ComposerAs, loop: qasync.QEventLoop, qtbot: QtBot) -> OpenTests:
    """``open_tests(file, tests=6)``: signed in as alice, the composer in front with ``file``
    loaded and its folder the project, the Tests view shown once it lists ``tests`` tests (the
    set-up the Tests view's and the debugger's modules share)."""

    def open_(file: Path, tests: int = DESCRIBE_GUI_TESTS) -> tuple[ComposerPanel, TestsView]:
        panel = composer_as("alice")
        panel.open_folder(file.parent)  # the project: the sidebar unfolds
        panel.load_path(file)
        drive(loop, lambda: panel.source.path == file)
        view = panel.tests_view
        reveal(qtbot, view)
        drive(loop, lambda: len(view.model.all_tests()) == tests)
        return panel, view

    return open_
