"""The compile cache's bounds and the compile time limit (issue 26, items 4 and 5)."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator

import pytest

from app.node import gcfreeze
from app.node.ledger.codecache import UnitCache, collector_paused
from app.node.solidvm import compile_source
from app.node.timebox import TimeLimitError, call_bounded


def source(i: int, functions: int = 3) -> str:
    body = "".join(
        f"    function f{k}(uint a) public returns (uint) {{ return a + {i}; }}\n"
        for k in range(functions)
    )
    return f"contract C{i} {{\n{body}}}\n"


def test_the_cache_keeps_the_most_recently_used_units_up_to_a_count() -> None:
    cache = UnitCache(max_units=4, max_chars=10**9)
    units = {f"h{i}": compile_source(source(i)) for i in range(6)}
    for h in ("h0", "h1", "h2", "h3"):
        cache.put(h, units[h])
    assert cache.get("h0") is units["h0"]  # h0 is now the most recent, h1 the oldest
    cache.put("h4", units["h4"])
    assert len(cache) == 4
    assert cache.get("h0") is units["h0"]
    del units["h1"]
    gc.collect()
    assert cache.get("h1") is None  # evicted, and nothing else holds it


def test_the_cache_is_bounded_by_source_size_but_keeps_the_newest() -> None:
    big = [compile_source(source(i, functions=40)) for i in range(3)]
    size = len(big[0].source)
    cache = UnitCache(max_units=100, max_chars=2 * size)
    for i, u in enumerate(big):
        cache.put(f"b{i}", u)
    assert len(cache) == 2 and cache.source_chars == 2 * size
    huge = compile_source(source(99, functions=200))
    cache.put("huge", huge)  # alone over the bound: still kept, it is about to be used
    assert len(cache) == 1 and cache.get("huge") is huge


def test_units_in_use_elsewhere_stay_findable_after_eviction() -> None:
    cache = UnitCache(max_units=1, max_chars=10**9)
    deployed = compile_source(source(1))  # a deployed contract's accounts hold it
    cache.put("d", deployed)
    cache.put("x", compile_source(source(2)))
    assert len(cache) == 1
    assert cache.get("d") is deployed  # the same definition again, not a second compile


def test_a_second_put_of_one_code_keeps_the_first_unit() -> None:
    cache = UnitCache()
    first, second = compile_source(source(1)), compile_source(source(1))
    assert cache.put("h", first) is first
    assert cache.put("h", second) is first


@pytest.fixture(autouse=True)
def no_gc_callbacks() -> Iterator[None]:
    """Other tests' libraries leave gc callbacks behind (hypothesis times collections): an
    expiry raised while one runs is reported as unraisable there (and raised again, see
    timebox.REFIRE_SECONDS); these tests measure the time box, not that."""
    saved = list(gc.callbacks)
    gc.callbacks.clear()
    try:
        yield
    finally:
        gc.callbacks[:] = saved


def many_functions(n: int) -> str:
    return source(0, functions=n)


def test_a_compile_past_its_bound_stops_and_frees_the_thread() -> None:
    src = many_functions(6000)
    t0 = time.monotonic()
    with pytest.raises(TimeLimitError, match="compile time limit exceeded"):
        call_bounded(0.2, "the source", lambda: compile_source(src))
    assert time.monotonic() - t0 < 2.0  # it stopped; it did not run to its end
    # the thread goes on working normally: nothing is left pending for it
    for _ in range(50):
        assert call_bounded(5.0, "x", lambda: sum(range(10_000))) == sum(range(10_000))
    assert call_bounded(0, "x", lambda: 7) == 7  # 0: no bound


def test_bounded_compiles_in_several_threads_stop_independently() -> None:
    outcomes: dict[str, str] = {}

    def work(name: str, seconds: float, n: int) -> None:
        try:
            call_bounded(seconds, name, lambda: compile_source(many_functions(n)))
            outcomes[name] = "ok"
        except TimeLimitError:
            outcomes[name] = "expired"

    threads = [
        threading.Thread(target=work, args=("slow", 0.2, 6000)),
        threading.Thread(target=work, args=("quick", 60.0, 5)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes == {"slow": "expired", "quick": "ok"}


def test_compiles_pause_the_collector_until_the_last_one_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():  # a second compile, overlapping
            assert not gc.isenabled()
        assert not gc.isenabled()  # the first one still runs
    assert gc.isenabled()
    # a chain of overlapping compiles does not keep it off for good
    monkeypatch.setattr(gcfreeze, "MAX_PAUSE_S", 0.0)
    with collector_paused():
        time.sleep(0.01)
        with collector_paused():
            assert gc.isenabled()
    assert gc.isenabled()


def test_an_expiry_that_is_swallowed_is_raised_again() -> None:
    """Code that swallows what is raised in it (a __del__, a gc callback) must not keep a
    bounded call running: the expiry is raised again until the call has ended."""
    swallowed = 0

    def stubborn() -> None:
        nonlocal swallowed
        end = time.monotonic() + 5.0
        while True:
            try:  # the first expiry lands in here, wherever it is delivered, and is swallowed
                while swallowed == 0 and time.monotonic() < end:
                    pass
            except BaseException:  # what a __del__ or a gc callback does
                swallowed += 1
                continue
            while time.monotonic() < end:  # outside: where an expiry raised again lands
                pass
            return

    t0 = time.monotonic()
    with pytest.raises(TimeLimitError):
        call_bounded(0.2, "stubborn", stubborn)
    assert swallowed >= 1
    assert time.monotonic() - t0 < 3.0
