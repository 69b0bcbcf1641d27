"""The debug adapter's node-mode events thread never ends silently (issue 26).

The thread that long polls a node's ``/vm-debug/sessions/{id}/events`` reported only a
``RemoteError``; any other exception ended it without a word, and the editor then waited for
an ``exited`` that never came (seen twice under heavy load). Now whatever ends it is reported
as an ``output`` event and a ``terminated`` (which the adapter answers with ``exited``).
"""

from __future__ import annotations

import queue
from typing import Any

import pytest

from app.cli.debug_backends import RemoteBackend
from tests.integration.node_fixture import RunningNode
from tests.integration.test_debugger_routes import PROBE


def test_an_exception_in_the_events_thread_is_reported(
    node: RunningNode, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STRATOSCOPE_TOKEN", node.token("alice"))
    got: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
    broke: list[str] = []

    def on_event(kind: str, body: dict[str, Any]) -> None:
        got.put((kind, body))
        if kind == "stopped" and not broke:  # the consumer fails once (not a RemoteError)
            broke.append(kind)
            raise RuntimeError("the editor's pipe hiccuped")

    body = {
        "source": PROBE,
        "name": "Probe.sol",
        "contract": "Probe",
        "function": "boom",
        "args": {"k": 0},
        "stopOnEntry": True,
    }
    backend = RemoteBackend(node.url, None, body, on_event)
    try:
        backend.run()
        seen: list[tuple[str, dict[str, Any]]] = []
        while not seen or seen[-1][0] != "terminated":
            try:
                seen.append(got.get(timeout=15))
            except queue.Empty:
                raise AssertionError(f"no terminated after {seen}") from None
        kinds = [k for k, _ in seen]
        assert "stopped" in kinds, kinds
        outputs = [b.get("output", "") for k, b in seen if k == "output"]
        assert any("the editor's pipe hiccuped" in o for o in outputs), seen
    finally:
        backend.close()
