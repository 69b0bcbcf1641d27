"""Test-wide settings: Qt renders offscreen, so GUI tests need no display."""

from __future__ import annotations

import gc
import os
from collections.abc import Generator

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
    return result
