"""Long asset lists (``GET /apps/<App>/<asset>``) are read off the event loop and streamed.

The list route read every matching row into memory and encoded it on the event loop. It now reads
on a worker thread, and more than a thousand rows are streamed in chunks as Cirrus answers are
(app/node/cirrus/stream.py): the response starts before the rows are all read, and its bytes are
those of the whole answer. ``limit`` and ``offset`` page the list as the seed describes.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.integration.node_fixture import RunningNode

BASE = "/apps/CarDemo/car"
CARS = 1_150  # more than cirrus.stream.WHOLE (1,000): the list is streamed


def ok(r: httpx.Response) -> Any:
    assert r.status_code == 200, f"{r.status_code}: {r.text[:2000]}"
    body = r.json()
    assert body["success"] is True, body
    return body["data"]


@pytest.fixture(scope="module")
def many_cars(node: RunningNode) -> list[str]:
    """CARS cars of alice's, created 100 shards a request as the app's POST creates one."""
    alice = node.client("alice")
    (app,) = [a for a in ok(alice.get("/apps")) if a["name"] == "CarDemo"]
    me = alice.get("/svc/v2.3/key").json()["address"]
    bodies = [
        {
            "label": f"car-{i}-chain",
            "codePtr": {"account": app["address"], "name": "Car"},
            "parentChain": app["realmChainId"],
            "args": {
                "_appChainId": app["realmChainId"],
                "_vin": f"MANY-{i:05d}",
                "_color": "grey",
                "_model": "M",
                "_weight": i,
            },
            "members": [{"orgName": app["organization"], "access": True}],
            "balances": [{"address": me, "balance": 1}],
            "metadata": {"VM": "SolidVM", "history": "Car"},
        }
        for i in range(CARS)
    ]
    chains: list[str] = []
    for k in range(0, CARS, 100):
        r = alice.post("/bloc/v2.2/chains", json=bodies[k : k + 100], timeout=120)
        assert r.status_code == 200, r.text[:500]
        chains += r.json()
    return chains


def test_a_long_list_is_streamed_and_complete(node: RunningNode, many_cars: list[str]) -> None:
    alice = node.client("alice")
    params = {"vin": "like.MANY-*", "sort": "+weight"}
    with alice.stream("GET", BASE, params=params) as r:
        assert r.status_code == 200
        assert r.headers["content-type"] == "application/json"
        # sent while it is read: no length known in advance
        assert "content-length" not in r.headers, dict(r.headers)
        raw = r.read()
    body = json.loads(raw)
    assert body["success"] is True and set(body["data"]) == {"cars", "total"}
    cars = body["data"]["cars"]
    assert body["data"]["total"] == CARS
    assert [c["weight"] for c in cars] == list(range(CARS))
    assert sorted(c["chainId"] for c in cars) == sorted(many_cars)
    assert raw == json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    # pages put together are the whole list; each page says the same total
    pages = []
    for offset in range(0, CARS, 400):
        data = ok(alice.get(BASE, params={**params, "limit": 400, "offset": offset}))
        assert data["total"] == CARS
        pages += data["cars"]
    assert pages == cars
    tail = ok(alice.get(BASE, params={**params, "offset": CARS - 3}))
    assert [c["weight"] for c in tail["cars"]] == [CARS - 3, CARS - 2, CARS - 1]


def test_a_short_list_is_answered_whole(node: RunningNode, many_cars: list[str]) -> None:
    r = node.client("alice").get(BASE, params={"vin": "like.MANY-0001*", "sort": "+weight"})
    assert r.headers["content-length"] == str(len(r.content))
    data = ok(r)
    assert [c["vin"] for c in data["cars"]] == [f"MANY-{i:05d}" for i in range(10, 20)]
    assert data["total"] == 10


def test_members_only_in_long_lists(node: RunningNode, many_cars: list[str]) -> None:
    """bob is in no car's shard: streamed or not, he sees none of them."""
    data = ok(node.client("bob").get(BASE, params={"vin": "like.MANY-*"}))
    assert data == {"cars": [], "total": 0}
