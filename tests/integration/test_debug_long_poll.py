"""A debug session's events long poll waits without waking the node's event loop (issue 26).

``GET /vm-debug/sessions/{id}/events?wait=N`` looked for new events every 10 ms for up to
25 s: 100 wake-ups of the loop a second per waiting client. The session's thread now wakes
the waiting request when it emits, so the loop sleeps meanwhile and the event is still
answered at once. Wake-ups are counted as the loop thread's voluntary context switches (each
time it blocks in its selector and is woken again).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from tests.integration.node_fixture import RunningNode, wait_for
from tests.integration.test_debugger_routes import PROBE

WINDOW_S = 1.5


def loop_switches(pid: int) -> int:
    """Voluntary context switches of the node's main thread (its event loop's)."""
    for line in Path(f"/proc/{pid}/task/{pid}/status").read_text().splitlines():
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches")


def switches_over(pid: int, seconds: float) -> int:
    before = loop_switches(pid)
    time.sleep(seconds)
    return loop_switches(pid) - before


def test_a_waiting_long_poll_leaves_the_loop_asleep_and_answers_at_once(
    node: RunningNode,
) -> None:
    alice = node.new_client("alice")
    r = alice.post(
        "/vm-debug/sessions",
        json={
            "source": PROBE,
            "name": "Probe.sol",
            "contract": "Probe",
            "function": "boom",
            "args": {"k": 0},
            "stopOnEntry": True,
        },
    )
    assert r.status_code == 200, r.text
    sid = r.json()["id"]
    try:
        wait_for(
            lambda: alice.get(f"/vm-debug/sessions/{sid}").json()["state"] == "paused" or None,
            10,
            "the run paused on entry",
        )
        seen = alice.get(f"/vm-debug/sessions/{sid}/events").json()
        last = max(e["seq"] for e in seen)
        idle = switches_over(node.pid, WINDOW_S)
        got: dict[str, Any] = {}
        poller = node.new_client("alice")

        def poll() -> None:
            got["events"] = poller.get(
                f"/vm-debug/sessions/{sid}/events", params={"after": last, "wait": 20}
            ).json()
            got["at"] = time.monotonic()

        thread = threading.Thread(target=poll)
        thread.start()
        time.sleep(0.3)  # the request is waiting
        waiting = switches_over(node.pid, WINDOW_S)
        assert thread.is_alive(), got
        t0 = time.monotonic()
        r = alice.post(f"/vm-debug/sessions/{sid}/control", json={"action": "next"})
        assert r.status_code == 200, r.text
        thread.join(10)
        took = got["at"] - t0
        print(
            f"loop wake-ups in {WINDOW_S} s: idle {idle}, one long poll waiting {waiting}; "
            f"event answered {took * 1000:.1f} ms after the step was asked"
        )
        # 10 ms polling: about 150 more; allow the odd timer and the machine's noise
        assert waiting - idle < 30, f"idle {idle}, while a long poll waited {waiting}"
        assert [e["event"] for e in got["events"]][:1] == ["continued"] or any(
            e["event"] == "stopped" for e in got["events"]
        ), got["events"]
        assert all(e["seq"] > last for e in got["events"])
        assert took < 0.5, f"the event came {took:.3f} s after the step"
    finally:
        alice.delete(f"/vm-debug/sessions/{sid}")
