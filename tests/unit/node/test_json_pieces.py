"""Large JSON bodies decoded and answers encoded in bounded pieces (app/node/jsondecode.py,
jsonenc.compact_json_in_pieces): the same values, errors and bytes as the one-call versions.
That the event loop keeps answering meanwhile is tested on a real node
(tests/integration/test_large_bodies.py)."""

from __future__ import annotations

import gc
import json
import random
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from app.node import jsondecode, store
from app.node.jsondecode import NotDecoded, cyclic_gc_paused, loads_exactly, loads_in_pieces
from app.node.jsonenc import (
    compact_json,
    compact_json_in_pieces,
    compact_json_nested_in_pieces,
    heavy,
)


def decode(raw: bytes) -> Any:
    """What ApiBase.json_body does with a large body."""
    try:
        return loads_in_pieces(raw)
    except NotDecoded:
        return loads_exactly(raw)


def outcome(fn: Callable[[bytes], Any], raw: bytes) -> tuple[str, str]:
    try:
        return "value", repr(fn(raw))
    except Exception as exc:  # the exact exception is what is compared
        return type(exc).__name__, str(exc)


def random_value(rnd: random.Random, depth: int = 0) -> Any:
    k = rnd.random()
    if depth > 4 or k < 0.4:
        return rnd.choice(
            [
                rnd.randint(-(10**20), 10**20),
                rnd.random() * 10 ** rnd.randint(-5, 5),
                "".join(rnd.choice('ab,c"\\]}[{: \n\u00e9\U0001f600') for _ in range(20)),
                True,
                False,
                None,
            ]
        )
    width = 40 if depth < 2 else 6
    if k < 0.7:
        return [random_value(rnd, depth + 1) for _ in range(rnd.randint(0, width))]
    return {
        rnd.choice(["dup", "k", "x,y", 'q"}']) + str(rnd.randint(0, 3)): random_value(
            rnd, depth + 1
        )
        for _ in range(rnd.randint(0, width))
    }


@pytest.fixture
def small_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows of 64 characters, so that small documents cross many of them."""
    monkeypatch.setattr(jsondecode, "WINDOW", 64)


@pytest.mark.usefixtures("small_window")
def test_pieces_decode_like_json_loads_valid_and_invalid() -> None:
    rnd = random.Random(17)
    pieces_used = 0
    for n in range(300):
        text = json.dumps(
            random_value(rnd),
            ensure_ascii=n % 2 == 0,
            indent=[None, 1, "\t"][n % 3],
            separators=[None, (",", ":"), (" , ", " : ")][n % 3],
        )
        raw = text.encode(["utf-8", "utf-16", "utf-8-sig"][n % 3])
        if n % 3 == 1:  # corrupt some: the error and its position must be json.loads's
            b = bytearray(raw)
            b[rnd.randrange(len(b))] = rnd.choice(b',:]}[{"\\ 0a')
            raw = bytes(b)
        assert outcome(decode, raw) == outcome(json.loads, raw), raw[:300]
        try:
            loads_in_pieces(raw)
            pieces_used += 1
        except (NotDecoded, UnicodeDecodeError, RecursionError):
            pass
    assert pieces_used > 170, "the piecewise reader gave up on valid documents"


def test_number_and_nesting_limits_fail_as_json_loads_does() -> None:
    pad = b" " * 70_000
    for raw in (
        b'{"txs": [' + b"1" * 5000 + b"]}" + pad,  # beyond int's max-str-digits
        b"[" * 5000 + b"]" * 5000 + pad,  # deep: left to json.loads
        b"[" * 900 + b"0," * 40_000 + b"0" + b"]" * 900,  # deep and long
        b"\xef\xbb\xbf\xef\xbb\xbf[1]" + pad,  # a BOM after the BOM
        b'["\xff"]' + pad,  # not UTF-8
        b'{"a": 1,}' + pad,
    ):
        assert outcome(decode, raw) == outcome(json.loads, raw)


def test_answers_encoded_in_pieces_are_the_same_bytes() -> None:
    items: list[Any] = [
        {"status": "Pending", "hash": format(i, "064x"), "txResult": None, "data": None, "é": i}
        for i in range(1000)
    ]
    assert compact_json_in_pieces(items) == compact_json(items)
    assert compact_json_in_pieces(items, 7) == compact_json(items)
    assert compact_json_in_pieces([]) == compact_json([]) == b"[]"
    decimals = [{"v": Decimal("1.50")}, 2, "x"] * 300
    assert compact_json_in_pieces(decimals, 5) == compact_json(decimals)


def test_garbage_collection_is_paused_only_while_decoding() -> None:
    # after a Qt test, automatic collection is off for good (app.ui.shell.gui_gc): put back
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        with cyclic_gc_paused():
            assert not gc.isenabled()
            with cyclic_gc_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()
        assert gc.isenabled()
        gc.disable()  # someone else's pause is left alone
        with cyclic_gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        if was_enabled:
            gc.enable()
        else:
            gc.disable()


def test_heavy_tells_large_answers_from_small_ones() -> None:
    result = {
        "status": "Success",
        "hash": "ab" * 32,
        "txResult": {"stateDiff": {"a" * 40: {"storage": {"x": "1"}}}, "message": "Success!"},
        "data": {"tag": "Call", "contents": ["true"]},
    }
    assert not heavy(result) and not heavy(5) and not heavy([]) and not heavy("short")
    upload = {"data": {"contents": {"src": "c" * 70_000, "xabi": {}}}}
    assert heavy(upload) and heavy("s" * 70_000)
    assert heavy({"funcs": {f"f{i}": {"args": {}} for i in range(1_500)}})
    assert heavy([[i] for i in range(2_500)])


def test_store_dumps_of_a_large_value_is_the_same_text() -> None:
    value = {
        "src": "s\u00e9" * 40_000,
        "xabi": {"funcs": {f"f{i}": {"args": {"a": {"type": "Int", "i": i}}} for i in range(3000)}},
        "list": [[i, None, True, 1.5, "\ud800"] for i in range(700)],
    }
    assert heavy(value)
    assert store.dumps(value) == json.dumps(value, separators=(",", ":"))
    # (a lone surrogate, which only older versions stored, is escaped in its own piece)
    assert json.loads(compact_json_nested_in_pieces(value)) == json.loads(compact_json(value))
    value["list"] = [[i, None, True, 1.5, "\u00e9"] for i in range(700)]
    assert compact_json_nested_in_pieces(value) == compact_json(value)
