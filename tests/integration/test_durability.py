"""Durability: nothing whose hash the node handed out is lost, through SIGKILL and SIGTERM.

A background thread streams async token transfers (several per request) while the main thread
SIGKILLs the node. After a restart on the same data dir every collected hash must resolve to
Success and the token balances must be exactly what those transfers imply. At most one request
can be in flight at the moment of the kill (one sender thread); its transfers may or may not have
been accepted, so the balances must match one of the two possibilities.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import (
    RunningNode,
    call_tx,
    deploy,
    read_contract,
    result_of,
    submit,
    wait_results,
)

SUPPLY = 10**9
RECIPIENTS = ("bob", "carol", "dave")
TXS_PER_REQUEST = 4


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningNode]:
    n = make_node(tmp_path_factory, name="durable")
    try:
        yield n
    finally:
        n.stop()


@pytest.fixture(scope="module")
def token(node: RunningNode) -> str:
    return deploy(
        node.client("alice"),
        "Token",
        read_contract("Token.sol"),
        {"_name": "Durable", "_symbol": "DUR", "_supply": SUPPLY},
    )


@dataclass
class Stream:
    """What the sender thread sent and what the node acknowledged."""

    acked: list[tuple[str, str, int]] = field(default_factory=list)  # (hash, to, amount)
    in_flight: list[tuple[str, int]] = field(default_factory=list)
    requests: int = 0
    error: BaseException | None = None
    stop: threading.Event = field(default_factory=threading.Event)


def stream_transfers(client: httpx.Client, token: str, to: dict[str, str], s: Stream) -> None:
    i = 0
    try:
        while not s.stop.is_set():
            batch = []
            for _ in range(TXS_PER_REQUEST):
                i += 1
                batch.append((to[RECIPIENTS[i % len(RECIPIENTS)]], i % 7 + 1))
            s.in_flight = batch
            try:
                r = client.post(
                    "/svc/v2.3/transaction",
                    json={
                        "txs": [
                            call_tx(token, "transfer", {"to": a, "amount": n}) for a, n in batch
                        ]
                    },
                )
            except httpx.TransportError:
                return  # the node died under us: this request may or may not have been accepted
            if r.status_code != 200:
                s.error = AssertionError(f"{r.status_code}: {r.text[:300]}")
                return
            results = r.json()
            assert [x["status"] for x in results] == ["Pending"] * len(batch)
            s.acked.extend((x["hash"], a, n) for x, (a, n) in zip(results, batch, strict=True))
            s.in_flight = []
            s.requests += 1
    except BaseException as exc:
        s.error = exc


def token_state(client: httpx.Client, token: str) -> dict[str, Any]:
    r = client.get(f"/bloc/v2.2/contracts/Token/{token}/state")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def balances(state: dict[str, Any]) -> dict[str, int]:
    return {k: int(v) for k, v in state["balances"].items() if int(v) != 0}


def expected(base: dict[str, int], owner: str, transfers: list[tuple[str, int]]) -> dict[str, int]:
    out = Counter(base)
    for to, n in transfers:
        out[owner] -= n
        out[to] += n
    return {k: v for k, v in out.items() if v != 0}


def run_and_kill(node: RunningNode, token: str, min_acked: int) -> Stream:
    to = {u: node.address(u) for u in RECIPIENTS}
    s = Stream()
    # not one of the node's tracked clients: those are closed when the node is killed
    headers = {"Authorization": f"Bearer {node.token('alice')}"}
    with httpx.Client(base_url=node.url, headers=headers, timeout=10) as sender:
        t = threading.Thread(target=stream_transfers, args=(sender, token, to, s), daemon=True)
        t.start()
        deadline = time.monotonic() + 20
        while len(s.acked) < min_acked and time.monotonic() < deadline and t.is_alive():
            time.sleep(0.01)
        assert s.error is None, s.error
        assert len(s.acked) >= min_acked, f"only {len(s.acked)} transfers acknowledged"
        node.kill9()  # mid-stream: the thread is still sending
        t.join(15)
        assert not t.is_alive()
    assert s.error is None, s.error
    return s


def check_after_restart(
    node: RunningNode,
    token: str,
    before: dict[str, int],
    s: Stream,
    owner: str,
    timeout: float = 15,
) -> dict[str, int]:
    node.restart()
    alice = node.client("alice")
    hashes = [h for h, _, _ in s.acked]
    assert len(set(hashes)) == len(hashes)
    done = []
    for i in range(0, len(hashes), 1000):
        chunk = hashes[i : i + 1000]
        try:
            done += wait_results(alice, chunk, timeout=timeout)
        except AssertionError:
            now = alice.post("/bloc/v2.2/transactions/results", json=chunk).json()
            counts = Counter(x["status"] for x in now)
            raise AssertionError(
                f"{counts['Pending']} of {len(chunk)} acknowledged transactions still Pending "
                f"{timeout:g} s after the restart (statuses: {dict(counts)})"
            ) from None
    failed = [d for d in done if d["status"] != "Success"]
    assert not failed, f"{len(failed)} of {len(done)} lost or failed, e.g. {failed[0]}"
    assert [d["hash"] for d in done] == hashes

    got = balances(token_state(alice, token))
    acked = [(a, n) for _, a, n in s.acked]
    without = expected(before, owner, acked)
    with_in_flight = expected(before, owner, acked + s.in_flight)
    assert got in (without, with_in_flight), (
        f"balances {got} match neither {without} nor (with the request in flight) {with_in_flight}"
    )
    assert sum(got.values()) == SUPPLY
    return got


def test_kill9_mid_stream_loses_no_acknowledged_transfer(node: RunningNode, token: str) -> None:
    owner = node.address("alice")
    before = balances(token_state(node.client("alice"), token))
    assert before == {owner: SUPPLY}
    s = run_and_kill(node, token, min_acked=200)
    check_after_restart(node, token, before, s, owner)
    assert "replay of" not in node.log_tail(2000)  # replay re-created every recorded outcome


def test_sigterm_restart_keeps_blocks_state_and_results(node: RunningNode, token: str) -> None:
    if not node.running:
        node.restart()
    alice = node.client("alice")
    res = submit(alice, call_tx(token, "transfer", {"to": node.address("bob"), "amount": 5}))
    tx_hash = res[0]["hash"]
    head = alice.get("/health").json()["lastBlock"]
    last = alice.get("/svc-api/eth/v1.2/block/last/5").json()
    state = token_state(alice, token)
    listing = alice.get("/bloc/v2.2/contracts").json()
    keys = {u: node.address(u) for u in ("alice", "bob")}
    old_token = node.token("alice")

    assert node.stop() == 0  # clean shutdown exit status
    node.restart()

    alice = node.client("alice")
    assert alice.get("/health").json()["lastBlock"] == head
    assert alice.get("/svc-api/eth/v1.2/block/last/5").json() == last
    assert token_state(alice, token) == state
    assert alice.get("/bloc/v2.2/contracts").json() == listing
    assert result_of(alice, tx_hash) == res[0]
    for user, address in keys.items():
        assert node.client(user).get("/svc/v2.3/key").json()["address"] == address
    # tokens issued before the restart still work when the node comes back at the same URL
    if node.token("alice") == old_token:
        r = node.new_client(token=old_token).get("/svc/v2.3/key")
        assert r.status_code == 200

    # and the chain goes on from where it was
    more = submit(alice, call_tx(token, "transfer", {"to": node.address("carol"), "amount": 1}))
    [blk] = alice.get(
        "/svc-api/eth/v1.2/block", params={"hash": more[0]["txResult"]["blockHash"]}
    ).json()
    assert blk["blockData"]["number"] == head["number"] + 1
    assert blk["blockData"]["parentHash"] == head["hash"]


def test_second_kill_after_more_traffic(node: RunningNode, token: str) -> None:
    """A second crash, after the clean stop above wrote a snapshot: replay starts from there."""
    if not node.running:
        node.restart()
    owner = node.address("alice")
    before = balances(token_state(node.client("alice"), token))
    s = run_and_kill(node, token, min_acked=400)
    check_after_restart(node, token, before, s, owner)


def test_sigterm_with_queued_async_txs_runs_them_before_exit_or_after_restart(
    node: RunningNode, token: str
) -> None:
    if not node.running:
        node.restart()
    alice = node.client("alice")
    owner, bob = node.address("alice"), node.address("bob")
    before = balances(token_state(alice, token))
    res = submit(
        alice,
        *[call_tx(token, "transfer", {"to": bob, "amount": 2}) for _ in range(50)],
        resolve=False,
    )
    hashes = [r["hash"] for r in res]
    assert node.stop() == 0
    node.restart()
    alice = node.client("alice")
    done = wait_results(alice, hashes, timeout=30)
    assert [d["status"] for d in done] == ["Success"] * 50
    assert balances(token_state(alice, token)) == expected(before, owner, [(bob, 2)] * 50)


@contextmanager
def blocks_held_back(node: RunningNode) -> Iterator[None]:
    """The node restarted with ``--block-time 30``: nothing gets sealed for a while (the
    flags go back to none on leaving; the node is left as the block left it)."""
    if node.running:
        node.stop()
    node.flags = ["--block-time", "30"]
    try:
        node.restart()
        yield
    finally:
        node.flags = []


def test_kill9_with_transactions_still_queued(node: RunningNode, token: str) -> None:
    """SIGKILL while acknowledged transactions wait for their block: they run after restart."""
    with blocks_held_back(node):  # nothing gets sealed before the kill
        owner = node.address("alice")
        before = balances(token_state(node.client("alice"), token))
        s = run_and_kill(node, token, min_acked=100)
    # nothing else is sent: the node must run what it had queued on its own
    got = check_after_restart(node, token, before, s, owner, timeout=10)
    assert got != before


def test_an_acknowledged_transaction_before_its_block(node: RunningNode, token: str) -> None:
    """A resolve=false transaction is in the intake log, not yet in the store, until its block:
    its result reads Pending, its trace route says it has not run, and it is run and readable
    after a SIGTERM and a restart."""
    with blocks_held_back(node):  # nothing gets sealed before the stop
        alice = node.client("alice")
        (res,) = submit(
            alice,
            call_tx(token, "transfer", {"to": node.address("bob"), "amount": 3}),
            resolve=False,
        )
        h = res["hash"]
        assert result_of(alice, h)["status"] == "Pending"
        r = alice.get("/strato-api/eth/v1.2/transaction/trace", params={"hash": h})
        assert r.status_code == 404 and "has not run" in r.text, r.text
        node.stop()
    node.restart()
    (done,) = wait_results(node.client("alice"), [h], timeout=10)
    assert done["status"] == "Success"


def test_data_dir_is_locked_while_the_node_runs(node: RunningNode) -> None:
    if not node.running:
        node.restart()
    second = RunningNode(node.data_dir, log_dir=node.log_dir)
    with pytest.raises(Exception, match="did not start"):
        second.start()
    assert "another sandbox node is already using" in second.log_tail()
    assert node.client().get("/health").status_code == 200
