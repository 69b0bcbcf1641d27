"""The dashboard's figures: per-block series of the latest blocks, the app's request latency,
the pending-transaction count, and the node's number cards.

Series live in bounded ring buffers of numpy arrays (:class:`Ring`), so a node with any number of
blocks costs the same memory and the same redraw time. numpy is imported on first use (it costs
~0.1 s), which is when the dashboard is first shown: :meth:`DashboardService.activate`.

Blocks are read incrementally: :meth:`DashboardService.sync` asks only for the blocks after the
last one held (``/block?minnumber=&maxnumber=``, pages of 100, the platform's cap), and
:meth:`DashboardService.backfill` only for the older ones a larger window needs. The series always
holds consecutive block numbers: a gap wider than the window (the panel was hidden a long time, or
another node answers) starts it again from the window's first block.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.client.cirrus_names import table_of
from app.client.errors import StratoError
from app.client.models import Block

from .inspector import Exchange, InspectorFeed
from .pending import PendingTracker
from .session import Session

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Floats = NDArray[np.float64]

log = logging.getLogger("stratoscope.services")

WINDOWS = (15, 100, 1_000, 10_000)  # "last N blocks" choices; the largest is the capacity
BLOCK_CAPACITY = 10_000
LATENCY_CAPACITY = 2_000  # as many as the HTTP inspector keeps
PENDING_CAPACITY = 1_000
BLOCK_PAGE = 100  # blocks per request: the platform's row cap (appFetchLimit)
CHAIN_PAGE = 100
MAX_CHAIN_PAGES = 50
TX_TYPES = ("Contract", "FunctionCall", "Transfer")  # the explorer's transactionType values
IDENTITY_TABLE = "Certificate"  # the identity registry's Cirrus table: one row per user
BLOCK_COLUMNS = ("number", "time", "txs", *TX_TYPES)


class Ring:
    """Named float64 columns of at most ``capacity`` rows, oldest first.

    The storage is twice the capacity long; appending writes after the last row and, when the
    end is reached, moves the newest rows back to the front once (amortised O(1) per row). Every
    column is a contiguous view that plots take without a copy.
    """

    def __init__(self, capacity: int, columns: Sequence[str]) -> None:
        import numpy as np

        if capacity < 1:
            raise ValueError("a ring needs room for at least one row")
        self.capacity = capacity
        self.columns = tuple(columns)
        self._index = {name: i for i, name in enumerate(self.columns)}
        self._data = np.zeros((len(self.columns), 2 * capacity), dtype=np.float64)
        self._start = 0
        self._end = 0

    def __len__(self) -> int:
        return self._end - self._start

    def column(self, name: str) -> Floats:
        """The column's rows, oldest first (a view: valid until the next change)."""
        return self._data[self._index[name], self._start : self._end]

    def clear(self) -> None:
        self._start = self._end = 0

    def append(self, rows: Floats) -> None:
        """Append ``rows`` (shape: columns x k); the oldest rows beyond the capacity go."""
        k = rows.shape[1]
        cap = self.capacity
        if k >= cap:
            self._data[:, :cap] = rows[:, k - cap :]
            self._start, self._end = 0, cap
            return
        if self._end + k > 2 * cap:
            keep = min(len(self), cap - k)
            self._data[:, :keep] = self._data[:, self._end - keep : self._end]
            self._start, self._end = 0, keep
        self._data[:, self._end : self._end + k] = rows
        self._end += k
        if self._end - self._start > cap:
            self._start = self._end - cap

    def prepend(self, rows: Floats) -> int:
        """Put older ``rows`` before the first; the newest ``capacity`` rows stay. Returns how
        many of ``rows`` were kept."""
        import numpy as np

        both = np.concatenate((rows, self._data[:, self._start : self._end]), axis=1)
        kept = both[:, -self.capacity :]
        n = kept.shape[1]
        self._data[:, :n] = kept
        self._start, self._end = 0, n
        return max(0, int(rows.shape[1]) - (int(both.shape[1]) - int(n)))


def block_time(text: str) -> float:
    """A block's ISO 8601 timestamp in seconds since the epoch (NaN when unreadable)."""
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return math.nan


def block_rows(blocks: Sequence[Block]) -> Floats:
    """The series' columns for ``blocks``: number, time, transactions and each type's count."""
    import numpy as np

    rows = np.empty((len(BLOCK_COLUMNS), len(blocks)), dtype=np.float64)
    for i, b in enumerate(blocks):
        kinds = [t.kind for t in b.transactions]
        rows[:, i] = (
            b.number,
            block_time(b.timestamp),
            len(kinds),
            *(kinds.count(kind) for kind in TX_TYPES),
        )
    return rows


@dataclass(frozen=True)
class WindowData:
    """What the block plots show for the last ``window`` blocks held (numpy arrays)."""

    numbers: Floats  # block numbers
    txs: Floats  # transactions per block
    interval_numbers: Floats  # blocks that have their predecessor in the series
    intervals: Floats  # seconds since the predecessor
    type_counts: dict[str, int]  # transactions of each type in the window

    @property
    def size(self) -> int:
        return len(self.numbers)


@dataclass(frozen=True)
class Cards:
    """The number cards; a value is None when it could not be read (``errors`` says why)."""

    latest_block: int | None = None
    accounts: int | None = None
    contracts: int | None = None
    chains: int | None = None
    errors: dict[str, str] = field(default_factory=dict)


class DashboardService(QObject):
    """Signals:
    blocks_changed(): the block series changed (new blocks, older ones read, cleared, or another
        window chosen).
    activity_changed(): a request of the app finished or the pending count changed.
    """

    blocks_changed = Signal()
    activity_changed = Signal()

    def __init__(
        self,
        session: Session,
        feed: InspectorFeed | None = None,
        parent: QObject | None = None,
        *,
        capacity: int = BLOCK_CAPACITY,
        latency_capacity: int = LATENCY_CAPACITY,
        pending_capacity: int = PENDING_CAPACITY,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.feed = feed
        self.capacity = capacity
        self._latency_capacity = latency_capacity
        self._pending_capacity = pending_capacity
        self.window = WINDOWS[0]
        self.active = False
        self.pending: PendingTracker | None = None
        self._blocks: Ring | None = None
        self._latency: Ring | None = None
        self._pending: Ring | None = None
        self._generation = 0  # bumped by clear(): a read started before it is dropped
        self._syncing = False
        self._again = False
        self._backfilling = False

    # ------------------------------------------------------------ life cycle

    def activate(self, pending: PendingTracker | None = None) -> None:
        """Start collecting (the panel's first show): buffers, the inspector's requests so far,
        and the pending count from now on. Nothing before this costs anything."""
        if self.active:
            return
        self.active = True
        self._blocks = Ring(self.capacity, BLOCK_COLUMNS)
        self._latency = Ring(self._latency_capacity, ("time", "ms"))
        self._pending = Ring(self._pending_capacity, ("time", "count"))
        if self.feed is not None:
            done = [ex for ex in self.feed.exchanges if ex.elapsed_ms is not None]
            self._add_latency(done)
            self.feed.updated.connect(self._on_exchange)
        self.session.user_changed.connect(self._on_user)
        self.pending = pending
        if pending is not None:
            pending.count_changed.connect(self._on_pending)
            self._on_pending(len(pending.hashes))

    def _on_user(self, _name: str) -> None:
        self.clear()  # another identity may see other transactions of private chains

    def clear(self) -> None:
        """Forget the blocks held (the next sync reads the window again)."""
        self._generation += 1
        if self._blocks is not None:
            self._blocks.clear()
        self.blocks_changed.emit()

    # ------------------------------------------------------------ blocks

    @property
    def held(self) -> int:
        return len(self._blocks) if self._blocks is not None else 0

    @property
    def first_number(self) -> int | None:
        if not self.held:
            return None
        assert self._blocks is not None
        return int(self._blocks.column("number")[0])

    @property
    def last_number(self) -> int | None:
        if not self.held:
            return None
        assert self._blocks is not None
        return int(self._blocks.column("number")[-1])

    def column(self, name: str) -> Floats:
        """A block column of every block held (``number``, ``time``, ``txs`` or a type)."""
        self._require_active()
        assert self._blocks is not None
        return self._blocks.column(name)

    def _require_active(self) -> None:
        if not self.active:
            raise RuntimeError("the dashboard service is not active")

    def add_blocks(self, blocks: Sequence[Block]) -> int:
        """Append new blocks after the last one held; returns how many were added. Blocks held
        already are skipped; a gap starts the series again at the first new block."""
        self._require_active()
        assert self._blocks is not None
        last = self.last_number
        fresh = sorted(
            (b for b in blocks if last is None or b.number > last), key=lambda b: b.number
        )
        if not fresh:
            return 0
        run = [fresh[0]]
        for b in fresh[1:]:
            if b.number == run[-1].number + 1:
                run.append(b)
            elif b.number > run[-1].number:
                run = [b]  # a hole in the answer: keep the newest consecutive run
        if last is not None and run[0].number != last + 1:
            self._blocks.clear()
        self._blocks.append(block_rows(run))
        self.blocks_changed.emit()
        return len(run)

    def prepend_blocks(self, blocks: Sequence[Block]) -> int:
        """Put older blocks before the first one held (those that join it without a gap)."""
        self._require_active()
        assert self._blocks is not None
        first = self.first_number
        if first is None:
            return self.add_blocks(blocks)
        older = sorted((b for b in blocks if b.number < first), key=lambda b: b.number)
        run: list[Block] = []
        expect = first - 1
        for b in reversed(older):
            if b.number != expect:
                break
            run.append(b)
            expect -= 1
        if not run:
            return 0
        kept = self._blocks.prepend(block_rows(run[::-1]))
        self.blocks_changed.emit()
        return kept

    def set_window(self, n: int) -> None:
        """Show the last ``n`` blocks (at most the capacity); :meth:`backfill` reads what is
        missing."""
        n = max(1, min(n, self.capacity))
        if n != self.window:
            self.window = n
            self.blocks_changed.emit()

    async def _head(self) -> int | None:
        head = self.session.last_block
        if head is not None:
            return head
        client = self.session.client
        if client is None:
            return None
        latest = await client.last_blocks(1)  # a node whose /health has no lastBlock
        return latest[0].number if latest else None

    async def sync(self) -> int:
        """Read the blocks after the last one held, up to the node's latest; returns how many
        were added. While one sync runs, another call returns 0 at once and the running one
        goes on to the newest block (so a burst of new blocks costs one request per page)."""
        if not self.active:
            return 0
        if self._syncing:
            self._again = True
            return 0
        self._syncing = True
        added = 0
        try:
            again = True
            while again:
                self._again = False
                added += await self._catch_up()
                again = self._again
        finally:
            self._syncing = False
        return added

    async def _catch_up(self) -> int:
        client = self.session.client
        head = await self._head()
        if client is None or head is None:
            return 0
        generation = self._generation
        last = self.last_number
        if last is not None and head < last:
            self.clear()  # the node went back: another node, or a fresh sandbox
            generation, last = self._generation, None
        if last is None or head - last > self.window:
            first = max(0, head - self.window + 1)
        else:
            first = last + 1
        added = 0
        while first <= head:
            page = await client.blocks_between(first, min(head, first + BLOCK_PAGE - 1))
            if generation != self._generation or not page:
                break
            added += self.add_blocks(page)
            first = page[-1].number + 1
        return added

    async def backfill(self) -> int:
        """Read the older blocks the window needs and the series lacks, newest page first;
        returns how many were added."""
        if not self.active or self._backfilling:
            return 0
        client = self.session.client
        if client is None:
            return 0
        if self.last_number is None:
            return await self.sync()
        self._backfilling = True
        added = 0
        try:
            generation = self._generation
            while True:
                first, last = self.first_number, self.last_number
                if first is None or last is None:
                    break
                target = max(0, last - self.window + 1)
                if first <= target:
                    break
                page = await client.blocks_between(max(target, first - BLOCK_PAGE), first - 1)
                if generation != self._generation or not page:
                    break
                n = self.prepend_blocks(page)
                if n == 0:
                    break
                added += n
        finally:
            self._backfilling = False
        return added

    def window_data(self) -> WindowData:
        """The plots' data for the last ``window`` blocks held."""
        import numpy as np

        self._require_active()
        assert self._blocks is not None
        b = self._blocks
        size = min(self.window, len(b))
        lo = len(b) - size
        numbers = b.column("number")[lo:]
        times = b.column("time")[max(0, lo - 1) :]
        intervals = np.diff(times)
        return WindowData(
            numbers=numbers,
            txs=b.column("txs")[lo:],
            interval_numbers=numbers[-len(intervals) :] if len(intervals) else numbers[:0],
            intervals=intervals,
            type_counts={kind: int(b.column(kind)[lo:].sum()) for kind in TX_TYPES},
        )

    # ------------------------------------------------------------ latency and pending

    def _on_exchange(self, ex: Exchange) -> None:
        if ex.elapsed_ms is not None:
            self._add_latency([ex])
            self.activity_changed.emit()

    def _add_latency(self, exchanges: Sequence[Exchange]) -> None:
        import numpy as np

        assert self._latency is not None
        if exchanges:
            rows = np.array([(ex.started, ex.elapsed_ms or 0.0) for ex in exchanges]).T
            self._latency.append(rows)

    def _on_pending(self, count: int) -> None:
        import numpy as np

        assert self._pending is not None
        self._pending.append(np.array([[time.perf_counter()], [float(count)]]))
        self.activity_changed.emit()

    @property
    def latency_count(self) -> int:
        return len(self._latency) if self._latency is not None else 0

    def latency_points(
        self, now: float | None = None, span: float | None = None
    ) -> tuple[Floats, Floats]:
        """Each finished request (of the last ``span`` seconds): (seconds before ``now``,
        milliseconds it took)."""
        self._require_active()
        assert self._latency is not None
        now = time.perf_counter() if now is None else now
        t, ms = self._latency.column("time") - now, self._latency.column("ms")
        if span is None:
            return t, ms
        keep = t >= -span
        return t[keep], ms[keep]

    def pending_points(
        self, now: float | None = None, span: float | None = None
    ) -> tuple[Floats, Floats]:
        """The pending count as steps: (seconds before ``now``, count), ending at ``now``;
        with ``span``, from ``span`` seconds before ``now`` (the count then included)."""
        import numpy as np

        self._require_active()
        assert self._pending is not None
        now = time.perf_counter() if now is None else now
        t, n = self._pending.column("time") - now, self._pending.column("count")
        if span is not None and len(t):
            start = max(0, int(np.searchsorted(t, -span, side="right")) - 1)
            t, n = np.maximum(t[start:], -span), n[start:]
        if not len(n):
            return t, n
        return np.append(t, 0.0), np.append(n, n[-1])

    # ------------------------------------------------------------ number cards

    async def cards(self) -> Cards:
        """Latest block (from /health, already polled), users with an identity (the Certificate
        table's count), contracts (/bloc/v2.2/contracts) and the private chains the user can
        see (/chain, paged). A part that fails leaves its card empty, with the reason."""
        client = self.session.client
        if client is None:
            return Cards(errors={"all": "not connected"})

        async def contracts() -> int:
            listing = await client.contracts()
            return sum(len(v) for v in listing.values() if isinstance(v, list))

        async def chains() -> int:
            count = 0
            for page_no in range(MAX_CHAIN_PAGES):
                page = await client.chains(limit=CHAIN_PAGE, offset=page_no * CHAIN_PAGE)
                count += len(page)
                if len(page) < CHAIN_PAGE:
                    break
            return count

        async def accounts() -> int:
            count: int = await client.cirrus_count(await table_of(client, IDENTITY_TABLE))
            return count

        names = ("accounts", "contracts", "chains")
        answers = await asyncio.gather(accounts(), contracts(), chains(), return_exceptions=True)
        values: dict[str, int | None] = {}
        errors: dict[str, str] = {}
        for name, answer in zip(names, answers, strict=True):
            if isinstance(answer, StratoError):
                values[name] = None
                errors[name] = str(answer)
                log.info("dashboard: cannot read %s: %s", name, answer)
            elif isinstance(answer, BaseException):
                raise answer
            else:
                values[name] = answer
        return Cards(
            latest_block=self.session.last_block,
            accounts=values["accounts"],
            contracts=values["contracts"],
            chains=values["chains"],
            errors=errors,
        )
