"""``GET /stratoscope/accounts`` (the sandbox's account table): users with their organisation,
contracts with name and creator, addresses only seen in transactions; balance, nonce and
transaction count; sorted and paged; the creator filter; 400s naming the parameter."""

from __future__ import annotations

from tests.integration.node_fixture import RunningNode, deploy, submit, transfer_tx

ROUTE = "/stratoscope/accounts"
COUNTER = "contract Counter { uint public count; function add(uint n) public { count += n; } }"


def test_accounts_listed_sorted_and_paged(node: RunningNode) -> None:
    alice = node.client("alice")
    counter = deploy(alice, "Counter", COUNTER)
    stranger = "ab" * 20
    assert submit(alice, transfer_tx(stranger, 5))[0]["status"] == "Success"
    r = alice.get(ROUTE, params={"limit": 1000})
    assert r.status_code == 200, r.text
    body = r.json()
    rows = {a["address"]: a for a in body["accounts"]}
    assert body["total"] == len(rows)
    a = rows[node.address("alice")]
    assert (a["kind"], a["name"], a["organization"]) == ("user", "alice", "Acme")
    assert a["txCount"] >= 2 and a["nonce"] >= 2
    c = rows[counter]
    assert (c["kind"], c["name"], c["creator"]) == ("contract", "Counter", node.address("alice"))
    s = rows[stranger]
    assert (s["kind"], s["balance"], s["txCount"]) == ("other", "5", 1)
    assert list(rows) == sorted(rows)  # by address by default
    # by transaction count, most first; pages are slices of that order
    by_txs = alice.get(ROUTE, params={"sort": "txs", "limit": 1000}).json()["accounts"]
    counts = [x["txCount"] for x in by_txs]
    assert counts == sorted(counts, reverse=True)
    page = alice.get(ROUTE, params={"sort": "txs", "limit": 2, "offset": 1}).json()
    assert [x["address"] for x in page["accounts"]] == [x["address"] for x in by_txs[1:3]]
    asc = alice.get(ROUTE, params={"sort": "balance", "order": "asc", "limit": 3}).json()
    balances = [int(x["balance"]) for x in asc["accounts"]]
    assert balances == sorted(balances)
    # the contracts alice created; the kind filter
    made = alice.get(ROUTE, params={"creator": node.address("alice")}).json()
    assert counter in [x["address"] for x in made["accounts"]]
    users = alice.get(ROUTE, params={"kind": "user", "sort": "name"}).json()["accounts"]
    assert [x["name"] for x in users][:3] == ["admin", "alice", "bob"]


def test_account_list_refuses_bad_parameters(node: RunningNode) -> None:
    alice = node.client("alice")
    for params, word in (
        ({"sort": "colour"}, "sort"),
        ({"order": "up"}, "order"),
        ({"kind": "robot"}, "kind"),
        ({"limit": "5000"}, "limit"),
        ({"creator": "xyz"}, "creator"),
        ({"offset": "-1"}, "offset"),
    ):
        r = alice.get(ROUTE, params=params)
        assert r.status_code == 400, (params, r.text)
        assert word in r.text, r.text
    assert node.client().get(ROUTE).status_code == 401
