"""The compile cache: compiled units by code hash, bounded in memory.

A compiled unit costs about 110 bytes of memory per character of its source, and every
``/contracts/compile``, ``xabi`` or rejected upload of a new source would otherwise stay for
good. The cache keeps the most recently used units up to a count and a total source size, plus,
through weak references, any unit a deployed contract still runs on (its accounts keep it alive
anyway): contracts of one code share one compiled definition, also after a restart.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections import OrderedDict

from ..gcfreeze import collector_paused as _paused
from ..gcfreeze import unit_dropped
from ..solidvm import CompiledUnit

MAX_UNITS = 32
MAX_SOURCE_CHARS = 512_000  # of the units kept for recency (about 56 MB compiled)


class UnitCache:
    """Compiled units by code hash; safe to use from several threads."""

    def __init__(self, max_units: int = MAX_UNITS, max_chars: int = MAX_SOURCE_CHARS) -> None:
        self.max_units = max_units
        self.max_chars = max_chars
        self._recent: OrderedDict[str, CompiledUnit] = OrderedDict()
        self._chars = 0
        self._alive: weakref.WeakValueDictionary[str, CompiledUnit] = weakref.WeakValueDictionary()
        self._lock = threading.Lock()

    def get(self, code_hash: str) -> CompiledUnit | None:
        with self._lock:
            unit = self._recent.get(code_hash)
            if unit is not None:
                self._recent.move_to_end(code_hash)
                return unit
            unit = self._alive.get(code_hash)
            if unit is not None:
                self._remember(code_hash, unit)
            return unit

    def put(self, code_hash: str, unit: CompiledUnit) -> CompiledUnit:
        """Add ``unit`` (or keep the one a concurrent compile of the same code put first)."""
        with self._lock:
            have = self._recent.get(code_hash) or self._alive.get(code_hash)
            if have is not None:
                unit = have
            self._alive[code_hash] = unit
            self._remember(code_hash, unit)
            return unit

    def _remember(self, code_hash: str, unit: CompiledUnit) -> None:
        if code_hash in self._recent:
            self._recent.move_to_end(code_hash)
            return
        self._recent[code_hash] = unit
        self._chars += len(unit.source)
        # the newest stays even when it alone is over the size: it is about to be used
        while len(self._recent) > 1 and (
            len(self._recent) > self.max_units or self._chars > self.max_chars
        ):
            _, old = self._recent.popitem(last=False)
            self._chars -= len(old.source)
            unit_dropped(len(old.source))  # frozen, it is freed only after a thaw

    def __len__(self) -> int:
        """Units kept for recency (those only deployed contracts hold are not counted)."""
        return len(self._recent)

    @property
    def source_chars(self) -> int:
        """Characters of source of the units kept for recency."""
        return self._chars


def collector_paused() -> contextlib.AbstractContextManager[None]:
    """The cyclic collector off while a compile runs (``gcfreeze.collector_paused``, shared
    with the JSON decoder's pauses); what the compile made is settled at the end."""
    return _paused(compiling=True)
