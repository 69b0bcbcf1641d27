"""The debugger's session bounds hold under parallel starts: a start takes its place before it
compiles, so requests racing each other cannot all see room (a user could otherwise hold any
number of sessions, each a thread and a copy of the state)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.integration.node_fixture import RunningNode

# big enough that compiling it takes longer than a thread's turn: the starts overlap
FUNCTIONS = "\n".join(
    f"function f{i}(uint a) public returns (uint) {{ uint b = a * {i}; "
    "if (b > 3) { b = b + 1; } return b; }"
    for i in range(400)
)
BIG = "contract Big {\n uint public v;\n" + FUNCTIONS + "\n}"
LAUNCH = {
    "source": BIG,
    "name": "Big.sol",
    "contract": "Big",
    "function": "f1",
    "args": {"a": 3},
    "stopOnEntry": True,
}


def test_parallel_starts_keep_the_per_user_bound(node: RunningNode) -> None:
    token = node.token("carol")

    def start(_: int) -> httpx.Response:
        with httpx.Client(
            base_url=node.url, headers={"Authorization": f"Bearer {token}"}, timeout=60
        ) as c:
            return c.post("/vm-debug/sessions", json=LAUNCH)

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(start, range(6)))
    carol = node.client("carol")
    held = carol.get("/vm-debug/sessions").json()
    try:
        codes = sorted(r.status_code for r in answers)
        assert codes == [200, 200, 429, 429, 429, 429], [r.text[:120] for r in answers]
        assert len(held) == 2
        refused = next(r for r in answers if r.status_code == 429)
        assert "at most 2 debug sessions per user" in refused.text
    finally:
        for s in held:
            carol.delete(f"/vm-debug/sessions/{s['id']}")
    # the places come back: with the sessions stopped, a start succeeds again
    again = carol.post("/vm-debug/sessions", json=LAUNCH)
    assert again.status_code == 200, again.text
    carol.delete(f"/vm-debug/sessions/{again.json()['id']}")


def test_a_failed_start_gives_its_place_back(node: RunningNode) -> None:
    alice = node.client("alice")
    for _ in range(3):  # more failures than the bound: none of them keeps a place
        bad = alice.post("/vm-debug/sessions", json={**LAUNCH, "contract": "Nope"})
        assert bad.status_code == 400 and bad.json()["field"] == "contract", bad.text
    ids = []
    try:
        for _ in range(2):
            r = alice.post("/vm-debug/sessions", json=LAUNCH)
            assert r.status_code == 200, r.text
            ids.append(r.json()["id"])
    finally:
        for sid in ids:
            alice.delete(f"/vm-debug/sessions/{sid}")
