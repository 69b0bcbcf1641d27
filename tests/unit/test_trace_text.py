"""The client's text form of call traces and its reading of the trace route's 404s."""

from __future__ import annotations

from typing import Any

from app.client.errors import RequestError
from app.client.traces import (
    NO_ROUTE,
    NOT_KEPT,
    UNKNOWN,
    failing_frame,
    render_trace,
    trace_error,
    value_text,
)


def frame(fn: str, items: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    return {
        "type": "call",
        "kind": "call",
        "contract": "C",
        "address": "ab" * 20,
        "function": fn,
        "args": [],
        "status": "ok",
        "steps": 2,
        "items": items,
        **kw,
    }


def test_a_404_without_the_sandboxs_words_means_no_traces_at_all() -> None:
    def err(body: str) -> RequestError:
        return RequestError(body, status=404, method="GET", url="/x")

    no_route = trace_error(err("Not Found"))
    assert no_route is not None and no_route.reason == NO_ROUTE
    assert "keeps no traces" in no_route.message
    unknown = trace_error(err("unknown transaction " + "ab" * 32))
    assert unknown is not None and unknown.reason == UNKNOWN
    kept = trace_error(err("no trace kept for transaction x"))
    assert kept is not None and kept.reason == NOT_KEPT
    assert trace_error(RequestError("bad", status=400)) is None


def test_render_nests_frames_and_marks_failures() -> None:
    inner = frame(
        "f",
        [{"type": "event", "name": "E", "args": [{"name": "s", "value": "a b"}], "reverted": True}],
        status="failed",
        error={
            "kind": "revert",
            "message": "revert: no",
            "position": {"name": "C", "line": 3, "column": 5},
        },
        args=[{"name": "x", "type": "uint256", "value": "1"}],
    )
    root = frame(
        "g",
        [inner, {"type": "write", "variable": "m", "key": ["k"], "old": "0", "new": "2"}],
        returns=[{"type": "bool", "value": "true"}],
    )
    lines = render_trace({"root": root})
    assert lines == [
        "[2] C(ababab…abab)::g()",
        "  ├─ [2] C(ababab…abab)::f(x: 1)",
        '  │  ├─ emit E(s: "a b") (reverted)',
        "  │  └─ ← [Fail] revert: no at C:3:5",
        "  ├─ write m[k]: 0 → 2",
        "  └─ ← [Return] true",
    ]
    assert failing_frame({"root": root}) is None
    assert failing_frame({"root": {**root, "status": "failed"}}) is inner
    coloured = render_trace({"root": root}, colour=True)
    assert any("\x1b[31m" in ln for ln in coloured)


def test_values_read_as_in_the_composer() -> None:
    assert value_text("12") == "12"
    assert value_text("true") == "true"
    assert value_text("hello") == '"hello"'
    assert value_text(["1", "x"]) == '[1, "x"]'
    assert value_text({"a": "1"}) == "{a: 1}"
    assert value_text(None) == "∅"


def test_a_position_with_its_file_is_shown_by_file() -> None:
    f = frame(
        "f",
        [],
        status="failed",
        error={
            "message": "revert: no",
            "position": {"name": "Lib", "line": 9, "column": 5, "file": "b.sol", "fileLine": 3},
        },
    )
    assert render_trace({"root": f})[-1] == "  └─ ← [Fail] revert: no at b.sol:3:5 (Lib)"
