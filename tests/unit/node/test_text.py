"""app.node.text: finding lone surrogates in request bodies and making stored text writable."""

from __future__ import annotations

import json
import sqlite3

import pytest

from app.node.text import (
    TextSafeConnection,
    may_hold_surrogate,
    scrub,
    scrubbing,
    surrogate_path,
)


def test_path_names_the_field_and_keys() -> None:
    body = json.loads(json.dumps({"txs": [{"payload": {"args": {"o k": "x", "s": "a\ud800"}}}]}))
    assert surrogate_path(body) == ("$.txs[0].payload.args.s", "text")
    assert surrogate_path({"a": {"b\ud800": 1}}) == ("$.a", 'the key "b\\ud800"')
    assert surrogate_path(["x", ["y", "\udc00"]]) == ("$[1][1]", "text")
    assert surrogate_path({"\u00e9 x": ["\ud800"]}) == ('$["\\u00e9 x"][0]', "text")


def test_pairs_and_plain_text_pass() -> None:
    assert surrogate_path(json.loads('"\\ud83d\\ude00"')) is None
    assert surrogate_path({"a": [1, 2.5, None, True, {"b": "caf\u00e9"}]}) is None


@pytest.mark.parametrize(
    ("raw", "hint"),
    [
        (b'{"a": "x"}', False),
        (b'"\\u00e9"', False),
        (b'"\\ud800"', True),
        (b'"\\uDFFF"', True),
        (b'"a\xed\xa0\x80"', True),
        (b'"\xed\x9f\xbf"', False),  # U+D7FF, a Hangul character
        (b"a" * (256 * 1024 - 1) + b"\\ud800", True),  # across two pieces
        ('"\\ud800"'.encode("utf-16"), True),
    ],
)
def test_hint(raw: bytes, hint: bool) -> None:
    assert may_hold_surrogate(raw) is hint


def test_scrub() -> None:
    assert scrub("plain") == "plain"
    assert scrub("a\ud800b") == "a\ufffdb"
    assert scrub("\ud83d\ude00") == "\U0001f600"  # halves stored apart become their character


def test_connection_scrubs_only_when_asked() -> None:
    db = sqlite3.connect(":memory:", factory=TextSafeConnection, isolation_level=None)
    db.execute("CREATE TABLE t (v TEXT)")
    with pytest.raises(UnicodeEncodeError):
        db.execute("INSERT INTO t VALUES (?)", ("a\ud800",))
    with scrubbing(db):
        db.execute("INSERT INTO t VALUES (?)", ("a\ud800",))
        db.executemany("INSERT INTO t VALUES (:v)", [{"v": "\udc00b"}])
    assert [r[0] for r in db.execute("SELECT v FROM t")] == ["a\ufffd", "\ufffdb"]
    assert not db.scrubbing
    db.close()
