"""Slows down password guessing at the OAuth password grant and the sign-in form.

Failures are counted per (user, client address), per user and per client address. Past a key's
free allowance each further failure locks that key for a delay that doubles (1 s, 2 s, 4 s ... up
to a few minutes); an attempt during the lock is refused with 429 and ``Retry-After`` before the
password is even checked, so it costs the node nothing and teaches the guesser nothing. Counts
leak away with time (one failure forgotten per minute) and a successful sign-in clears the
user's and the address's counts. The per-pair allowance is the smallest, so a guesser at one
address is stopped long before the user is, and the user can still sign in from elsewhere.
Nothing here sleeps: the caller answers 429 at once.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

PAIR_FREE = 5  # failures of one user from one address before the delays start
USER_FREE = 20  # failures of one user, all addresses together
ADDRESS_FREE = 20  # failures from one address, all users together
FIRST_DELAY = 1.0  # seconds; doubles with each further failure
MAX_DELAY = 300.0
FORGET_EVERY = 60.0  # seconds for one failure to be forgotten
MAX_KEYS = 50_000  # bounded memory under a spray of made-up user names


@dataclass
class _Count:
    failures: float = 0.0
    updated: float = 0.0
    locked_until: float = 0.0


class Throttled(Exception):
    """Refused without checking the password: retry after ``retry_after`` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many failed sign-ins: retry in {retry_after} s")
        self.retry_after = retry_after


class LoginThrottle:
    """Failure counts with exponential lock-outs; thread-safe (the grants run in threads)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._counts: OrderedDict[tuple[str, ...], _Count] = OrderedDict()

    @staticmethod
    def _keys(user: str, address: str) -> list[tuple[tuple[str, ...], int]]:
        return [
            (("pair", user, address), PAIR_FREE),
            (("user", user), USER_FREE),
            (("address", address), ADDRESS_FREE),
        ]

    def _decayed(self, key: tuple[str, ...], now: float) -> _Count | None:
        c = self._counts.get(key)
        if c is None:
            return None
        c.failures = max(0.0, c.failures - (now - c.updated) / FORGET_EVERY)
        c.updated = now
        if c.failures == 0.0 and c.locked_until <= now:
            del self._counts[key]
            return None
        return c

    def check(self, user: str, address: str) -> None:
        """Raise :class:`Throttled` while any of the attempt's keys is locked."""
        now = self.clock()
        wait = 0.0
        with self._lock:
            for key, _ in self._keys(user, address):
                c = self._decayed(key, now)
                if c is not None:
                    wait = max(wait, c.locked_until - now)
        if wait > 0:
            raise Throttled(max(1, math.ceil(wait)))

    def failed(self, user: str, address: str) -> None:
        now = self.clock()
        with self._lock:
            for key, free in self._keys(user, address):
                c = self._decayed(key, now) or _Count(updated=now)
                c.failures += 1
                self._counts[key] = c
                self._counts.move_to_end(key)
                excess = math.ceil(c.failures - 1e-9) - free  # decay leaves fractions
                if excess >= 0:
                    delay = min(MAX_DELAY, FIRST_DELAY * 2 ** min(excess, 20))
                    c.locked_until = max(c.locked_until, now + delay)
            while len(self._counts) > MAX_KEYS:
                self._counts.popitem(last=False)

    def succeeded(self, user: str, address: str) -> None:
        with self._lock:
            for key, _ in self._keys(user, address):
                self._counts.pop(key, None)
