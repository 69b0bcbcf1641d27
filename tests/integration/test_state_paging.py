"""The state route's paging of mappings (a sandbox extension of the platform's array paging:
``?name=&length`` counts a mapping's keys, ``offset``/``count`` page them in stored order) and
the creation block in ``/bloc/v2.2/contracts``, as the Explorer's Contracts view reads them."""

from __future__ import annotations

from tests.integration.node_fixture import RunningNode, call_tx, deploy, submit

SRC = """
contract Book {
    mapping(uint => string) names;
    uint[] nums;
    function add(uint n) public {
        for (uint i = 0; i < n; i++) { names[i + 10] = "x"; nums.push(i); }
    }
}
"""


def test_mapping_counted_and_paged_and_creation_block(node: RunningNode) -> None:
    alice = node.client("alice")
    addr = deploy(alice, "Book", SRC)
    res = submit(alice, call_tx(addr, "add", {"n": 5}))
    assert res[0]["status"] == "Success", res
    route = f"/bloc/v2.2/contracts/Book/{addr}/state"
    r = alice.get(route, params={"name": "names", "length": ""})
    assert r.status_code == 200 and r.json() == {"names": 5}, r.text
    r = alice.get(route, params={"name": "names", "offset": 1, "count": 2})
    assert r.json() == {"names": {"11": "x", "12": "x"}}, r.text
    r = alice.get(route, params={"name": "names"})
    assert len(r.json()["names"]) == 5  # no paging asked: everything, as before
    r = alice.get(route, params={"name": "nums", "offset": 3, "count": 10})
    assert r.json() == {"nums": ["3", "4"]}, r.text
    listed = alice.get("/bloc/v2.2/contracts").json()["Book"]
    (entry,) = [e for e in listed if e["address"] == addr]
    block = alice.get("/strato-api/eth/v1.2/block", params={"number": entry["createdBlock"]})
    assert block.status_code == 200 and block.json(), block.text
    assert entry["createdAt"] // 1000 > 0
