"""Finding the ``Describe_`` tests of SolidVM files without the network (filled in next)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .test_runner import CompileFailure, TestCase


def discover(
    paths: Sequence[Path], sources: Mapping[str, str] | None = None
) -> tuple[list[TestCase], list[CompileFailure]]:
    raise NotImplementedError
