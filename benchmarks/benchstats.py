"""Pure helpers of node_bench.py: percentiles, medians of rounds, ratios and the round order.

Kept free of I/O so that tests/unit/test_benchstats.py can check them.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any


def percentile_ms(latencies_s: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100, nearest rank) of latencies in seconds, in milliseconds;
    NaN without samples."""
    if not latencies_s:
        return math.nan
    s = sorted(latencies_s)
    rank = max(1, math.ceil(q / 100 * len(s)))
    return s[min(rank, len(s)) - 1] * 1000


def latency_summary(latencies_s: Sequence[float]) -> dict[str, float]:
    """p50 and p99 (ms) of per-request latencies in seconds."""
    return {"p50_ms": percentile_ms(latencies_s, 50), "p99_ms": percentile_ms(latencies_s, 99)}


def rate_of_first(answered_at_s: Sequence[float], n: int) -> float | None:
    """Answers per second over the first ``n`` answers, from their times (seconds since the
    client started); None when fewer than ``n`` came. A peer whose blocks cost more as its
    state grows (anvil re-hashes every storage slot per block) is compared at equal state
    size this way, whatever its rate over the whole run."""
    if n <= 0 or len(answered_at_s) < n or answered_at_s[n - 1] <= 0:
        return None
    return n / answered_at_s[n - 1]


def median_of(rounds: Sequence[dict[str, Any]], key: str) -> float:
    """The median over rounds of one numeric field; NaN when no round has it."""
    vals = [float(r[key]) for r in rounds if r.get(key) is not None]
    return statistics.median(vals) if vals else math.nan


def medians(rounds: Sequence[dict[str, Any]], keys: Sequence[str]) -> dict[str, float]:
    """The median of each field in ``keys`` over ``rounds``."""
    return {k: median_of(rounds, k) for k in keys}


def ratio(a: float, b: float) -> float | None:
    """a / b, or None when either is missing (NaN) or b is not positive."""
    if math.isnan(a) or math.isnan(b) or b <= 0:
        return None
    return a / b


def interleave(systems: Sequence[str], rounds: int) -> list[tuple[int, str]]:
    """The order of the measurements: round 1 of every system, then round 2, ... so that a
    change in the machine's load touches all systems alike."""
    return [(r, s) for r in range(rounds) for s in systems]


def fmt_ratio(r: float | None) -> str:
    return "n/a" if r is None else f"{r:.2f}x"
