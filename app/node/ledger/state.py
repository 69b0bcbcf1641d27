"""The chain state (the world, contract metadata, private chains, the head) and the
committed view readers get of it while the producer's worker executes the next block."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from ..chains import Chain
from ..solidvm import World
from ..solidvm.history import History
from ..solidvm.runtime import MISSING
from ..store import Store
from .common import ContractMeta, Head
from .readview import CommittedView


class ChainState:
    """The live state the block producer's worker executes against, and its committed view.

    The worker alone writes ``world``, ``meta`` and ``chains`` (noting what it overwrites with
    :meth:`will_write` once readers run beside it, see :meth:`keep_history`); it moves ``head``
    with :meth:`advance` once a block is committed. Code on the event loop reads through
    :meth:`committed`, worker threads through :meth:`pinned_view`.
    """

    def __init__(self, world: World, store: Store, publish: Callable[[], None]) -> None:
        self.world = world
        self.store = store
        self.meta: dict[tuple[str, int], ContractMeta] = {}
        self.chains: dict[str, Chain] = {}
        self.head = Head()
        self._publish = publish  # makes the Cirrus tables a block created visible
        # readers pin the committed block under it; the worker moves the head under it
        self._view_lock = threading.Lock()
        self._readers = 0  # views pinned now: the history is only pruned when none is
        self._loop_view: CommittedView | None = None

    def read_state(self, address: str, chain: str, only: str | None = None) -> dict[str, Any]:
        """A contract's state (or its variable ``only``) as of the last committed block."""
        return self.committed().state(address, chain, only)

    def committed(self) -> CommittedView:
        """The state as of the last committed block, for code on the event loop (the
        producer's worker may be half-way through the next block). Pinned until the loop's
        next turn: use it before the caller's next ``await``, not after."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if self.world.history is not None:
                raise RuntimeError("committed() pins a view until the loop's next turn") from None
            # no loop and no producer (start-up, the offline CLI): the live state is committed
            return CommittedView(self.world, self.meta, None, self.head.number)
        v = self._loop_view
        if v is not None:
            return v
        with self._view_lock:
            self._readers += 1
            v = self._loop_view = CommittedView(
                self.world, self.meta, self.world.history, self.head.number
            )
        loop.call_soon(self._release_loop_view)
        return v

    @contextlib.contextmanager
    def pinned_view(self) -> Iterator[CommittedView]:
        """The state as of the last committed block, for a worker thread: pinned (the
        history it reads is kept) until the ``with`` block ends."""
        with self._view_lock:
            self._readers += 1
            v = CommittedView(self.world, self.meta, self.world.history, self.head.number)
        try:
            yield v
        finally:
            with self._view_lock:
                self._readers -= 1

    def _release_loop_view(self) -> None:
        with self._view_lock:
            self._loop_view = None
            self._readers -= 1

    def advance(self, head: Head) -> None:
        """The block ``head`` is committed: readers see it from now on."""
        with self._view_lock:
            self.head = head
            self._publish()  # the Cirrus tables and columns it created
            h = self.world.history
            if h is not None and not self._readers:
                h.records = {}  # no reader is pinned before ``head``: the records are done

    def begin(self, number: int) -> None:
        """Block ``number`` starts executing: what it writes, readers must not see yet."""
        h = self.world.history
        assert h is not None
        with self._view_lock:
            if not self._readers:  # (a reader was pinned when the last block committed)
                h.records = {}
            h.block = number

    def will_write(self, c: dict[Any, Any], k: Any) -> None:
        """The worker is about to write ``c[k]`` outside the VM (nonces, fees, metadata)."""
        h = self.world.history
        if h is not None:
            h.note(c, k, c.get(k, MISSING))

    def keep_history(self) -> None:
        """Readers now run beside the block producer's worker: record what blocks overwrite."""
        if self.world.history is None:
            self.world.history = History()
        self._publish()  # from now on Cirrus readers see committed tables only

    def block_times(self, numbers: set[int]) -> dict[int, int]:
        """The timestamps of blocks ``numbers`` (a route's page of them, not every block's)."""
        wanted = sorted(numbers)
        out: dict[int, int] = {}
        for i in range(0, len(wanted), 900):  # below SQLite's old limit of 999 parameters
            part = wanted[i : i + 900]
            marks = ",".join("?" * len(part))
            sql = f"SELECT number, timestamp FROM blocks WHERE number IN ({marks})"
            for r in self.store.all(sql, *part):
                out[r["number"]] = r["timestamp"]
        return out

    def block_hash(self, number: int) -> str | None:
        """A committed block's hash (None while block ``number`` is still being sealed)."""
        if number == self.head.number + 1:
            return None  # still being sealed
        row = self.store.one("SELECT hash FROM blocks WHERE number=?", number)
        return str(row["hash"]) if row else None
