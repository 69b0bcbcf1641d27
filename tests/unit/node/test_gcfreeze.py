"""app.node.gcfreeze: a large compile's objects skip the collector's catch-up pass, and the
frozen objects go back to the collector once the compile cache has dropped enough units."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator

import pytest

from app.node import gcfreeze, jsondecode
from app.node.ledger.codecache import collector_paused


@pytest.fixture(autouse=True)
def thawed() -> Iterator[None]:
    gc.collect()
    gcfreeze._thaw()
    yield
    gcfreeze._thaw()


def test_a_large_compile_is_frozen_and_a_small_one_is_not() -> None:
    with collector_paused():
        small = [[i] for i in range(1_000)]
    assert gc.get_freeze_count() == 0
    with collector_paused():
        large = [[i] for i in range(gcfreeze.FREEZE_ABOVE * 2)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(large)  # out of every pass
    assert gc.get_count()[0] < 1_000  # nothing left for a catch-up pass
    del small, large


def test_dropped_units_thaw_what_was_frozen() -> None:
    with collector_paused():
        kept = [[i] for i in range(gcfreeze.FREEZE_ABOVE * 2)]
    frozen = gc.get_freeze_count()
    assert frozen >= len(kept)
    gcfreeze.unit_dropped(gcfreeze.THAW_AFTER_DROPPED // 2)
    assert gc.get_freeze_count() == frozen
    gcfreeze.unit_dropped(gcfreeze.THAW_AFTER_DROPPED)
    assert gc.get_freeze_count() == 0  # back in the oldest generation
    del kept


def test_a_frozen_cycle_is_freed_after_the_thaw() -> None:
    class Node:
        other: object = None

    with collector_paused():
        a, b = Node(), Node()
        a.other, b.other = b, a  # a dropped unit is a cycle like this one
        ballast = [[i] for i in range(gcfreeze.FREEZE_ABOVE * 2)]
    gone = weakref.ref(a)
    del a, b, ballast
    gc.collect()
    assert gone() is not None  # frozen: no pass frees it
    gcfreeze.unit_dropped(gcfreeze.THAW_AFTER_DROPPED + 1)
    gc.collect()
    assert gone() is None


def test_the_node_freezes_what_start_up_built_and_collects_the_young_less_often() -> None:
    before = gc.get_threshold()
    built = [[i] for i in range(1_000)]  # as a ledger's world: lives as long as the node

    class Cycle:
        me: object

    garbage = Cycle()
    garbage.me = garbage
    gone = weakref.ref(garbage)
    del garbage  # start-up's garbage: freed, not frozen
    try:
        gcfreeze.tune_for_node()
        assert gone() is None
        assert gc.get_freeze_count() >= len(built)
        assert gc.get_threshold()[0] == gcfreeze.YOUNG_THRESHOLD
        assert gc.get_threshold()[1:] == before[1:]
        gcfreeze.unit_dropped(gcfreeze.THAW_AFTER_DROPPED + 1)  # a dropped unit still thaws
        assert gc.get_freeze_count() == 0
    finally:
        gc.set_threshold(*before)


@pytest.mark.parametrize("first", ["compile", "decode"])
def test_overlapping_compile_and_decode_pauses_end_with_the_last(first: str) -> None:
    """A compile's and a JSON decode's pauses, overlapping in two threads: the collector stays
    off until the last of them ends, whichever started or ended first (two counters of their
    own turned it back on when the first ended)."""
    pauses = {"compile": collector_paused, "decode": jsondecode.cyclic_gc_paused}
    second = "decode" if first == "compile" else "compile"
    entered, release, done = threading.Event(), threading.Event(), threading.Event()

    def other() -> None:
        with pauses[second]():
            entered.set()
            release.wait(10)
        done.set()

    assert gc.isenabled()
    with pauses[first]():
        thread = threading.Thread(target=other)
        thread.start()
        assert entered.wait(10)
    assert not gc.isenabled(), f"the {first} ended while the {second} ran: collector back on"
    release.set()
    thread.join(10)
    assert done.is_set() and gc.isenabled()
    # the other way round: the second thread's pause ends first
    for ev in (entered, release, done):
        ev.clear()
    with pauses[first]():
        thread = threading.Thread(target=other)
        thread.start()
        assert entered.wait(10)
        release.set()
        thread.join(10)
        assert not gc.isenabled(), f"the {second} ended while the {first} ran: collector on"
    assert gc.isenabled()
