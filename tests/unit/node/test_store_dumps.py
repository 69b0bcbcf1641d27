"""store.dumps and jsonenc.compact_json: orjson's bytes where they are json's, json's otherwise
(the ledger's stored results, requests and event arguments keep their text, and the answers'
bodies their bytes)."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.node.jsonenc import compact_json
from app.node.store import dumps

JSON_ASCII = json.JSONEncoder(separators=(",", ":"))  # what dumps always wrote
JSON_UTF8 = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # compact_json's

# what the ledger stores: text (any code point, DEL, controls, surrogates), integers of any
# size, booleans, null, lists, tuples and objects; no floats
scalars = st.none() | st.booleans() | st.integers() | st.text()
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(values)
def test_the_same_text_as_the_standard_encoder(value: Any) -> None:
    assert dumps(value) == JSON_ASCII.encode(value)
    try:
        body = JSON_UTF8.encode(value).encode()
    except UnicodeEncodeError:  # a lone surrogate: escaped, as json writes it in ASCII
        body = JSON_ASCII.encode(value).encode()
    assert compact_json(value) == body


def test_what_orjson_writes_differently_goes_to_json() -> None:
    for value in (
        "caf\u00e9",  # escaped as json escapes it
        "\u2028\x7f",
        "\ud800",  # a lone surrogate: orjson refuses it
        [2**64, -(2**63) - 1],  # past orjson's 64 bits
        {1: "a", None: "b", False: "c"},  # keys that are not text
    ):
        assert dumps(value) == JSON_ASCII.encode(value), value
    assert compact_json({"d": decimal.Decimal("1.50"), "n": 2**70}) == b'{"d":1.50,"n":%d}' % 2**70


def test_refused_values_are_refused_as_before() -> None:
    @dataclasses.dataclass
    class Point:
        x: int

    for value in ({1, 2}, b"x", Point(1), datetime.date(2026, 1, 1)):
        for encode in (dumps, compact_json):
            try:
                encode(value)
            except TypeError:
                continue
            raise AssertionError(f"{value!r} was written by {encode.__name__}")


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_keeps_its_value(x: float) -> None:
    """A result's ``time`` is a float: orjson's digits (``0.000041``), not always json's
    (``4.1e-05``), for the same number."""
    assert json.loads(dumps([x])) == [x]
    assert json.loads(compact_json({"time": x})) == {"time": x}
