"""The sign-in throttle's arithmetic on a fake clock (issue 17 item 6)."""

from __future__ import annotations

import pytest

from app.node.throttle import (
    ADDRESS_FREE,
    FORGET_EVERY,
    MAX_DELAY,
    PAIR_FREE,
    USER_FREE,
    LoginThrottle,
    Throttled,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def retry_after(t: LoginThrottle, user: str, address: str) -> int | None:
    try:
        t.check(user, address)
    except Throttled as exc:
        return exc.retry_after
    return None


def test_locks_after_the_free_failures_with_growing_delays() -> None:
    clock = Clock()
    t = LoginThrottle(clock)
    for _ in range(PAIR_FREE - 1):
        assert retry_after(t, "alice", "10.0.0.1") is None
        t.failed("alice", "10.0.0.1")
    assert retry_after(t, "alice", "10.0.0.1") is None
    t.failed("alice", "10.0.0.1")
    delays = []
    for _ in range(12):
        wait = retry_after(t, "alice", "10.0.0.1")
        assert wait is not None
        delays.append(wait)
        clock.now += wait  # the guesser waits the lock out, then fails again
        assert retry_after(t, "alice", "10.0.0.1") is None
        t.failed("alice", "10.0.0.1")
    assert delays[:4] == [1, 2, 4, 8]
    assert delays == sorted(delays)
    assert max(delays) <= MAX_DELAY
    # the same user from another address, and another user from this address, are not locked
    assert retry_after(t, "alice", "10.0.0.2") is None
    assert retry_after(t, "bob", "10.0.0.1") is None


def test_success_resets() -> None:
    t = LoginThrottle(Clock())
    for _ in range(PAIR_FREE):
        t.failed("alice", "a")
    assert retry_after(t, "alice", "a") is not None
    t.succeeded("alice", "a")
    assert retry_after(t, "alice", "a") is None
    for _ in range(PAIR_FREE - 1):
        t.failed("alice", "a")
    assert retry_after(t, "alice", "a") is None  # counting starts again from zero


def test_counts_decay() -> None:
    clock = Clock()
    t = LoginThrottle(clock)
    for _ in range(PAIR_FREE + 3):
        t.failed("alice", "a")
    assert retry_after(t, "alice", "a") is not None
    clock.now += (PAIR_FREE + 3) * FORGET_EVERY
    assert retry_after(t, "alice", "a") is None
    assert not t._counts  # forgotten entirely
    t.failed("alice", "a")
    assert retry_after(t, "alice", "a") is None  # one failure after the decay: no lock


@pytest.mark.parametrize("spread", ["addresses", "users"])
def test_user_and_address_limits(spread: str) -> None:
    t = LoginThrottle(Clock())
    free = USER_FREE if spread == "addresses" else ADDRESS_FREE
    for i in range(free):
        user, address = ("alice", f"10.0.0.{i}") if spread == "addresses" else (f"u{i}", "a")
        t.failed(user, address)
    if spread == "addresses":  # a guesser spread over many addresses slows the user down
        assert retry_after(t, "alice", "10.9.9.9") is not None
        assert retry_after(t, "bob", "10.9.9.9") is None
    else:  # one address trying many users is slowed down for all of them
        assert retry_after(t, "zed", "a") is not None
        assert retry_after(t, "zed", "b") is None


def test_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("app.node.throttle.MAX_KEYS", 100)
    t = LoginThrottle(Clock())
    for i in range(1000):
        t.failed(f"user{i}", "a")
    assert len(t._counts) <= 100
