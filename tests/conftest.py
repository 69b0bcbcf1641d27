"""Test-wide settings: Qt renders offscreen, so GUI tests need no display."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Generator
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    """After a Qt test, collect its garbage now, at a quiet point.

    Windows, controllers and loops sit in reference cycles (signals, closures). Left to the
    cyclic garbage collector, they would be freed at a random later moment, possibly while Qt
    dispatches an event to one of them, which crashes the process.
    """
    result = yield
    if "qapp" in getattr(item, "fixturenames", ()):
        gc.collect()
    elif "app.ui.shell.gui_gc" in sys.modules:  # automatic collection is off: do its work here
        sys.modules["app.ui.shell.gui_gc"].collect_due()
    return result


@pytest.fixture(scope="session")
def qapp(qapp: Any) -> Any:
    """pytest-qt's application, with the cycle collector confined to the GUI thread as in the
    app (app.ui.shell.gui_gc): the node fixtures' reader threads and the loops' I/O workers
    allocate too, and a collection run by one of them freed Qt objects off their thread.
    A module outside tests/gui that uses it belongs in the Makefile's QT_MODULES (run after
    the others: its process keeps the confined collector); the run before fails it."""
    if os.environ.get("STRATOSCOPE_TESTS_WITHOUT_QT"):  # make test's first run
        pytest.fail("this module uses Qt's application: add it to the Makefile's QT_MODULES")
    from app.ui.shell.gui_gc import collect_in_gui_thread

    collect_in_gui_thread(qapp)
    return qapp
