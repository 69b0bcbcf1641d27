"""Pages of rows read on demand, a few dozen kept: the Explorer's models hold a window of the
chain, never all of it (a 100,000-block chain scrolls in the memory of 3,000 rows)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")
KEEP_PAGES = 30


class Starter(Protocol):
    """Runs a read on the loop; done(result) or failed(sentence) follow; returns the task.
    ``background``: the app's own polling (a new block's reads), not the user's."""

    def __call__(
        self,
        coro: Coroutine[Any, Any, Any],
        done: Callable[[Any], None],
        failed: Callable[[str], None],
        background: bool = False,
    ) -> asyncio.Task[Any]: ...


class Pages(Generic[T]):
    """Pages by number, least recently used dropped beyond ``keep``; the reads in flight (one
    per page); a generation that makes the answers of reads started before :meth:`clear` void."""

    def __init__(self, start: Starter, keep: int = KEEP_PAGES) -> None:
        self.start = start
        self.keep = keep
        self.pages: OrderedDict[int, T] = OrderedDict()
        self.loading: dict[int, asyncio.Task[Any]] = {}
        self.generation = 0

    def get(self, page: int) -> T | None:
        found = self.pages.get(page)
        if found is not None:
            self.pages.move_to_end(page)
        return found

    def put(self, page: int, value: T) -> list[int]:
        """Keep ``value``; returns the pages dropped to make room."""
        self.pages[page] = value
        self.pages.move_to_end(page)
        dropped = []
        while len(self.pages) > self.keep:
            dropped.append(self.pages.popitem(last=False)[0])
        return dropped

    def load(
        self,
        page: int,
        coro: Coroutine[Any, Any, Any],
        done: Callable[[int, Any], None],
        failed: Callable[[str], None],
    ) -> None:
        """Read ``page`` unless it is being read; ``done(page, result)`` unless cleared since."""
        if page in self.loading:
            coro.close()
            return
        generation = self.generation

        def finished(result: Any) -> None:
            if generation == self.generation:
                self.loading.pop(page, None)
                done(page, result)

        def broke(text: str) -> None:
            if generation == self.generation:
                self.loading.pop(page, None)
                failed(text)

        self.loading[page] = self.start(coro, finished, broke)

    def clear(self) -> None:
        """Forget every page and cancel the reads in flight."""
        self.generation += 1
        for task in self.loading.values():
            task.cancel()
        self.loading.clear()
        self.pages.clear()
