"""Arguments of property tests: generated from the xabi's types, and shrunk when one fails.

Generation follows the spirit of the platform's QuickCheck generator (small values first, the
size growing with the run number), deterministic from a seed so that a failure can be repeated.
Values are JSON arguments as the transaction API takes them (ints as numbers or decimal strings,
addresses as hex, bytes as hex, decimals as strings, enums by index). Shrinking proposes simpler
vectors (smaller ints, shorter strings and arrays, ``false``, the zero address), one position at
a time, simplest first.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["ArgSpec", "Unsupported", "arg_specs", "generate", "render", "shrink"]

MAX_SIZE = 100
CHARS = string.ascii_letters + string.digits + " _-.,:;!?'\"\\/#é€"


class Unsupported(ValueError):
    """A parameter type no value can be generated for (structs, mappings ...)."""


ArgSpec = tuple[str, dict[str, Any]]  # parameter name, xabi type


def arg_specs(func: Mapping[str, Any]) -> list[ArgSpec]:
    """The parameters of an xabi function, in declaration order."""
    args = func.get("args") or {}
    items = [(str(k), v) for k, v in args.items() if isinstance(v, dict)]
    return sorted(items, key=lambda kv: int(kv[1].get("index", 0)))


def _int_bounds(t: Mapping[str, Any]) -> tuple[int, int]:
    bits = 8 * int(t.get("bytes") or 32)
    if t.get("signed"):
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _value(t: Mapping[str, Any], rng: random.Random, size: int) -> Any:
    tag = t.get("tag")
    if tag == "Int":
        lo, hi = _int_bounds(t)
        roll = rng.random()
        if roll < 0.05:
            v = rng.choice([lo, hi])
        elif roll < 0.15:
            v = rng.randint(lo, hi)
        else:
            v = rng.randint(-size, size) if t.get("signed") else rng.randint(0, size)
        v = max(lo, min(hi, v))
        return v if abs(v) < 10**15 else str(v)
    if tag == "Bool":
        return rng.random() < 0.5
    if tag == "String":
        return "".join(rng.choice(CHARS) for _ in range(rng.randint(0, size)))
    if tag == "Bytes":
        n = int(t["bytes"]) if not t.get("dynamic") and t.get("bytes") else rng.randint(0, size)
        return bytes(rng.randrange(256) for _ in range(n)).hex()
    if tag in ("Address", "Account", "Contract"):
        return f"{rng.getrandbits(160):040x}"
    if tag == "Decimal":
        whole = rng.randint(-size, size)
        return f"{whole}.{rng.randint(0, 99):02d}"
    if tag == "Enum":
        names = t.get("names") or []
        return rng.randrange(len(names)) if names else 0
    if tag == "Array":
        entry = t.get("entry")
        if not isinstance(entry, dict):
            raise Unsupported("an array without an element type")
        n = int(t["length"]) if t.get("length") is not None else rng.randint(0, max(size // 4, 0))
        return [_value(entry, rng, size) for _ in range(n)]
    raise Unsupported(f"cannot generate arguments of type {str(tag or '?').lower()}")


def generate(specs: list[ArgSpec], rng: random.Random, run: int) -> list[Any]:
    """One argument vector for run number ``run`` (0-based): sizes grow with the run."""
    size = min(run, MAX_SIZE)
    return [_value(t, rng, size) for _, t in specs]


def as_args(specs: list[ArgSpec], vector: list[Any]) -> dict[str, Any]:
    """The transaction's ``args`` object of a vector."""
    return {name: v for (name, _), v in zip(specs, vector, strict=True)}


# ------------------------------------------------------------------ shrinking


def _toward(v: int, target: int) -> Iterator[int]:
    """Values between ``target`` and ``v``, nearest to ``target`` first: ``target``, then
    doubling distances from it, then halving distances to ``v``, then ``v`` -+ 1. The first
    failing one of them is a binary search step, so big numbers shrink in a few rounds."""
    if v == target:
        return
    dist, sign = abs(v - target), 1 if v > target else -1
    bits = dist.bit_length()
    seen = {v}
    out = [target]
    out += [target + sign * (dist >> k) for k in range(bits - 1, 0, -1)]
    out += [v - sign * (dist >> k) for k in range(1, bits)]
    out.append(v - sign)
    for c in out:
        if c not in seen:
            seen.add(c)
            yield c


def _simpler(t: Mapping[str, Any], v: Any) -> Iterator[Any]:
    tag = t.get("tag")
    if tag == "Int":
        n = int(v)
        lo, hi = _int_bounds(t)
        target = 0 if lo <= 0 <= hi else lo
        seen = {n}
        if n < 0 and -n <= hi:
            seen.add(-n)
            yield -n
        for c in _toward(n, target):
            if c not in seen:
                seen.add(c)
                yield c if abs(c) < 10**15 else str(c)
    elif tag == "Bool":
        if v is True:
            yield False
    elif tag == "String" or (tag == "Bytes" and t.get("dynamic")):
        s = str(v)
        unit = 2 if tag == "Bytes" else 1
        for keep in _toward(len(s) // unit, 0):
            yield s[: keep * unit]
        if tag == "String":
            for i, ch in enumerate(s):
                if ch != "a":
                    yield s[:i] + "a" + s[i + 1 :]
                    break
    elif tag in ("Address", "Account", "Contract", "Bytes"):
        zero = "0" * len(str(v))
        if str(v) != zero:
            yield zero
    elif tag == "Decimal":
        if str(v) not in ("0.00", "0"):
            yield "0.00"
            whole = str(v).split(".")[0]
            if whole not in ("0", "-0"):
                yield f"{int(whole) // 2}.00"
    elif tag == "Enum":
        if int(v) != 0:
            yield 0
    elif tag == "Array" and isinstance(v, list):
        entry = t.get("entry") or {}
        if t.get("length") is None:
            for keep in _toward(len(v), 0):
                yield v[:keep]
        for i, item in enumerate(v):
            for c in _simpler(entry, item):
                yield [*v[:i], c, *v[i + 1 :]]
                break


def shrink(specs: list[ArgSpec], vector: list[Any]) -> Iterator[list[Any]]:
    """Simpler vectors than ``vector``, one changed position each, simplest first."""
    for i, (_, t) in enumerate(specs):
        for c in _simpler(t, vector[i]):
            yield [*vector[:i], c, *vector[i + 1 :]]


def render(specs: list[ArgSpec], vector: list[Any]) -> str:
    """A vector as the test's call would be written: ``(51, "ab", false)``."""
    parts = []
    for (_, t), v in zip(specs, vector, strict=True):
        parts.append(_render(t, v))
    return "(" + ", ".join(parts) + ")"


def _render(t: Mapping[str, Any], v: Any) -> str:
    tag = t.get("tag")
    if tag == "String":
        return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'
    if tag == "Bool":
        return "true" if v else "false"
    if tag in ("Address", "Account", "Contract"):
        return f"0x{v}"
    if tag == "Bytes":
        return f'hex"{v}"'
    if tag == "Enum":
        names = t.get("names") or []
        return f"{t.get('typedef', 'E')}.{names[int(v)]}" if int(v) < len(names) else str(v)
    if tag == "Array" and isinstance(v, list):
        entry = t.get("entry") or {}
        return "[" + ", ".join(_render(entry, x) for x in v) + "]"
    return str(v)
