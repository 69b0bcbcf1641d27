"""Running discovered ``Describe_`` tests on a node (filled in next)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .test_runner import RunEvent, RunReport, TestRunner


async def execute(
    runner: TestRunner,
    paths: Sequence[Path],
    *,
    select: Collection[str] | None,
    sources: Mapping[str, str] | None,
    on_event: Callable[[RunEvent], None] | None,
) -> RunReport:
    raise NotImplementedError
