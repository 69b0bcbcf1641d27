"""The cyclic collector paused while a compile or a large JSON decode runs, and what a large
compile leaves behind kept out of the collector's passes afterwards.

Compiles and JSON decodes pause the collector through the one counted :func:`collector_paused`
(whichever starts first turns it off, whichever ends last turns it back on, in any thread):
two counters of their own each restored what they had found, so a compile that ended while a
decode still ran turned the collector back on under the decode, and the other way round.

A compile runs with the collector paused: every object
it makes, about one per character of source, waits in the youngest generation. The first
collection after the pause, in whichever thread allocates next, then walks them all with the
GIL held: 0.6-1.2 s for a 1.2 MB source, during which the event loop answers nothing (and the
next older generation's pass walks them again a little later). Those objects are the compiled
unit, which lives as long as a contract runs on it or the compile cache keeps it, so instead
they are moved to the permanent generation (``gc.freeze``), which no pass walks; they are
still freed by reference counting.

A unit the compile cache drops and no contract runs on is cyclic garbage that only a pass over
the permanent generation could free. So once the cache has dropped more than
``THAW_AFTER_DROPPED`` characters of source since the last thaw (or more than ``THAW_ABOVE``
objects were frozen), the frozen objects are handed back to the oldest generation
(``gc.unfreeze``, no pass of its own: the next full collection, which the collector makes when
the objects that reached the oldest generation since its last one are a quarter of it, walks
them and frees the dropped units). Compiles that leave fewer than ``FREEZE_ABOVE`` new objects
change nothing (their catch-up pass is short).
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from collections.abc import Iterator

YOUNG_THRESHOLD = 5_000  # the node's youngest generation (Python's default: 700)
FREEZE_ABOVE = 50_000  # objects waiting in the youngest generation: about a 60 KB source
THAW_AFTER_DROPPED = 1_000_000  # characters of source the cache dropped (~110 MB compiled)
THAW_ABOVE = 8_000_000  # frozen objects, whatever was dropped
MAX_PAUSE_S = 10.0  # overlapping pauses keep the collector off at most about this long

_lock = threading.Lock()
_frozen = 0  # objects frozen since the last thaw (about: those made while the collector paused)
_dropped = 0  # characters of source of the units the compile cache dropped since then


def settle_after_compile() -> None:
    """Called with the collector still paused, by the last compile to end: the objects made
    meanwhile join the permanent generation when there are many (see the module's doc)."""
    global _frozen
    young = gc.get_count()[0]  # (gc.get_freeze_count() walks the whole permanent generation)
    if young < FREEZE_ABOVE:
        return
    with _lock:
        gc.freeze()
        _frozen += young
        if _frozen > THAW_ABOVE:
            _thaw()


def unit_dropped(chars: int) -> None:
    """The compile cache no longer keeps a unit of ``chars`` characters of source (a contract
    may still run on it)."""
    global _dropped
    with _lock:
        if not _frozen:  # garbage made while nothing is frozen is the collector's as usual
            _dropped = 0
            return
        _dropped += chars
        if _dropped > THAW_AFTER_DROPPED:
            _thaw()


def _thaw() -> None:
    global _frozen, _dropped
    gc.unfreeze()  # all to the oldest generation: no pass now
    _frozen = _dropped = 0


def tune_for_node() -> None:
    """The node process's collector, once its ledger is open. A block holds its transactions'
    results, journals and rows until it is committed: at Python's default of 700 allocations
    those survive young passes, are promoted and walked again by the older ones, and make the
    full passes come sooner; at 5,000 most die before any pass. What start-up built (the world,
    compiled units) lives as long as the node: frozen, no pass walks it (counted as frozen: a
    unit the compile cache drops later is freed by a thaw, as after a large compile)."""
    global _frozen
    gc.collect()  # once: start-up's own garbage is freed, not frozen
    with _lock:
        gc.freeze()
        _frozen = gc.get_freeze_count()
        if _frozen > THAW_ABOVE:
            _thaw()
    young, mid, old = gc.get_threshold()
    if 0 < young < YOUNG_THRESHOLD:
        gc.set_threshold(YOUNG_THRESHOLD, mid, old)


_pause_lock = threading.Lock()
_holders = 0  # compiles and decodes running with the collector paused
_was_enabled = False  # the collector's state when the first of them started
_paused_at = 0.0
_compiled = False  # a compile ran during this pause: its objects are settled at the end


@contextlib.contextmanager
def collector_paused(compiling: bool = False) -> Iterator[None]:
    """Python's cyclic collector off meanwhile (process-wide; nested and concurrent uses, in
    any thread, count). A large source or JSON body creates objects by the hundred thousand,
    and each full collection they trigger scans the whole heap with the GIL held: 15 pauses of
    0.15-0.6 s for a 1.2 MB source, 100+ ms for a 4 MB body of small arrays, during which no
    thread (nor the event loop) runs. A chain of overlapping pauses turns the collector back on
    after ``MAX_PAUSE_S``, so that other threads' cyclic garbage is not kept for good.
    ``compiling``: the objects made meanwhile are a compiled unit (see the module's doc).
    """
    global _holders, _was_enabled, _paused_at, _compiled
    with _pause_lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            _paused_at = time.monotonic()
            _compiled = False
            gc.disable()
        elif _was_enabled and time.monotonic() - _paused_at > MAX_PAUSE_S:
            gc.enable()
        _holders += 1
        _compiled = _compiled or compiling
    try:
        yield
    finally:
        with _pause_lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                if _compiled:
                    settle_after_compile()  # no catch-up pass over the compile's objects
                gc.enable()
