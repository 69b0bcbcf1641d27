"""Issue 26, items 1, 2 and the lone-surrogate cases of 9: text with a lone UTF-16 surrogate is
refused at the door, stored odd text never breaks a read route, and one contract's failed Cirrus
rows never cost the other contracts of its block theirs (and are rebuilt at the next start).

Bodies are sent as bytes (``json.dumps`` writes a lone surrogate as the escape ``\\ud800``, as a
client in any language can): httpx's own JSON encoder cannot encode one.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import make_node
from tests.integration.node_fixture import RunningNode, body, call_tx, upload_tx

STR = """
contract Str {
    string public s;
    uint public k;
    mapping(uint => string) public notes;
    event Said(string what);
    function set(string _s) public { s = _s; notes[1] = _s; emit Said(_s); }
    function poke(uint n) public { s = "poked"; notes[n] = "poked"; emit Said("poke"); }
    function touch() public { k = k + 1; }
}
"""

OTHER = """
contract Other {
    uint public n;
    mapping(address => uint) public hits;
    event Bumped(uint n);
    function bump() public { n = n + 1; hits[msg.sender] = n; emit Bumped(n); }
}
"""

SEARCH = "/cirrus/search"
TX = "/svc/v2.3/transaction"
ETH = "/strato-api/eth/v1.2"


def post(client: httpx.Client, path: str, obj: Any, **params: str) -> httpx.Response:
    """``obj`` as JSON bytes (lone surrogates as ``\\uXXXX`` escapes)."""
    return client.post(
        path,
        params=params or {"resolve": "true"},
        content=json.dumps(obj).encode(),
        headers={"content-type": "application/json"},
    )


def ok(client: httpx.Client, *txs: dict[str, Any]) -> list[dict[str, Any]]:
    r = post(client, TX, body(*txs))
    assert r.status_code == 200, r.text[:2000]
    res: list[dict[str, Any]] = r.json()
    assert [x["status"] for x in res] == ["Success"] * len(txs), res
    return res


def search(client: httpx.Client, table: str, **params: str) -> list[dict[str, Any]]:
    r = client.get(f"{SEARCH}/{table}", params=params)
    assert r.status_code == 200, f"{table}: {r.status_code}: {r.text[:2000]}"
    rows: list[dict[str, Any]] = r.json()
    return rows


def deploy_pair(client: httpx.Client) -> tuple[str, str]:
    res = ok(client, upload_tx("Str", STR), upload_tx("Other", OTHER))
    return (
        str(res[0]["data"]["contents"]["address"]),
        str(res[1]["data"]["contents"]["address"]),
    )


def block_of(client: httpx.Client, tx_hash: str) -> int:
    r = client.get(f"{ETH}/transaction", params={"hash": tx_hash})
    assert r.status_code == 200, r.text
    (tx,) = r.json()
    return int(tx["blockNumber"])


def refused(r: httpx.Response, where: str) -> None:
    assert r.status_code == 400, f"{r.status_code}: {r.text[:500]}"
    message = r.json()
    message = message.get("error", message) if isinstance(message, dict) else message
    assert isinstance(message, str), r.text
    assert f"Error in {where}:" in message, message
    assert "surrogate" in message, message


# ------------------------------------------------------------------ refused at the door


@pytest.fixture(scope="module")
def pair(node: RunningNode) -> tuple[str, str]:
    return deploy_pair(node.client("alice"))


def cases(s: str, o: str) -> list[tuple[str, Any, str]]:
    return [
        (TX, body(call_tx(s, "set", {"_s": "a\ud800b"})), "$.txs[0].payload.args._s"),
        (TX, body(call_tx(s, "set", {"_s": "\udc00"})), "$.txs[0].payload.args._s"),
        (TX, body(call_tx(o, "bu\ud800mp")), "$.txs[0].payload.method"),
        (TX, body(call_tx(s, "set", {"_\ud800s": "x"})), "$.txs[0].payload.args"),
        (TX, body(upload_tx("St\ud800r", STR)), "$.txs[0].payload.contract"),
        (TX, body(upload_tx("Str", STR + "// \ud800\n")), "$.txs[0].payload.src"),
        (
            TX,
            body(upload_tx("Str", STR, metadata={"VM": "SolidVM", "history": "\ud800"})),
            "$.txs[0].payload.metadata.history",
        ),
        (
            TX,
            body(call_tx(o, "bump"), call_tx(s, "set", {"_s": "ok"}, name="S\ud800")),
            "$.txs[1].payload.contractName",
        ),
        (
            "/bloc/v2.2/contracts/compile",
            [{"contractName": "Str", "source": STR.replace("s = _s", "s = '\ud800'")}],
            "$[0].source",
        ),
        ("/bloc/v2.2/contracts/xabi", {"src": "contract X\udbff {}"}, "$.src"),
        ("/bloc/v2.2/chain", {"label": "lab\ud800", "members": []}, "$.label"),
    ]


def test_lone_surrogate_is_refused_naming_the_field(
    node: RunningNode, pair: tuple[str, str]
) -> None:
    alice = node.client("alice")
    for path, obj, where in cases(*pair):
        refused(post(alice, path, obj), where)


def test_raw_utf8_bytes_of_a_surrogate_are_refused(
    node: RunningNode, pair: tuple[str, str]
) -> None:
    """Not an escape but the three bytes a surrogate would have as UTF-8 (not valid UTF-8)."""
    raw = json.dumps(body(call_tx(pair[0], "set", {"_s": "@"}))).encode()
    raw = raw.replace(b'"@"', b'"a\xed\xa0\x80b"')
    r = node.client("alice").post(
        TX, params={"resolve": "true"}, content=raw, headers={"content-type": "application/json"}
    )
    refused(r, "$.txs[0].payload.args._s")


def test_an_escaped_pair_is_its_character(node: RunningNode, pair: tuple[str, str]) -> None:
    s, _ = pair
    alice = node.client("alice")
    ok(alice, call_tx(s, "set", {"_s": "smile \ud83d\ude00"}))  # json.dumps writes the pair
    r = alice.get(f"/bloc/v2.2/contracts/Str/{s}/state")
    assert r.status_code == 200, r.text
    assert r.json()["s"] == "smile \U0001f600"
    (row,) = search(alice, "Str", address=f"eq.{s}")
    assert row["s"] == "smile \U0001f600"


def test_surrogate_escape_in_a_string_literal_is_a_compile_error(node: RunningNode) -> None:
    src = 'contract Lit { string public s = "a\\ud800"; }'
    r = post(node.client("alice"), TX, body(upload_tx("Lit", src)))
    assert r.status_code == 400, r.text[:500]
    assert "surrogate" in r.text, r.text
    pair_src = 'contract Lit2 { string public s = "\\ud83d\\ude00"; }'
    (res,) = ok(node.client("alice"), upload_tx("Lit2", pair_src))
    address = res["data"]["contents"]["address"]
    r = node.client("alice").get(f"/bloc/v2.2/contracts/Lit2/{address}/state")
    assert r.json()["s"] == "\U0001f600"


def test_later_blocks_are_indexed_after_refusals(node: RunningNode, pair: tuple[str, str]) -> None:
    """After every refusal above, other users' transactions still get their Cirrus rows."""
    s, o = pair
    alice, bob = node.client("alice"), node.client("bob")
    for path, obj, _ in cases(s, o):
        post(alice, path, obj)
    (res,) = ok(bob, call_tx(o, "bump"))
    number = block_of(bob, res["hash"])
    (row,) = search(bob, "Other", address=f"eq.{o}")
    assert int(row["block_number"]) == number
    events = search(bob, "Other.Bumped", address=f"eq.{o}", transaction_hash=f"eq.{res['hash']}")
    assert len(events) == 1
    assert " ERROR " not in node.log_tail(400)
    assert "failed" not in node.log_tail(400)


def test_urls_with_surrogate_bytes_are_not_errors(node: RunningNode, pair: tuple[str, str]) -> None:
    """Paths and query strings are decoded with U+FFFD for bytes that are not UTF-8: Cirrus
    values, names and state variable names give ordinary answers."""
    s, _ = pair
    alice = node.client("alice")
    bad = "%ED%A0%80"
    answers = {
        f"{SEARCH}/Other?n=eq.1&select=n,{bad}": 400,
        f"{SEARCH}/Str?s=eq.{bad}": 200,
        f"{SEARCH}/Str?s=like.*{bad}*": 200,
        f"{SEARCH}/Oth{bad}er": 404,
        f"/bloc/v2.2/contracts/Str/{s}/state?name={bad}": 400,
        f"/bloc/v2.2/contracts/St{bad}r/{s}/state": 400,
    }
    for path, status in answers.items():
        r = alice.get(path)
        assert r.status_code == status, f"{path}: {r.status_code}: {r.text[:300]}"
        r.json()


def test_cli_refuses_non_utf8_text_to_store(node: RunningNode) -> None:
    """argv bytes that are not UTF-8 reach Python as lone surrogates: a user's organization
    made of them is refused with a message, not a traceback."""
    org = os.fsdecode(b"Ac\xffme")
    proc = node.cli("users", "add", "carl", "--org", org, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "argument org: holds bytes that are not UTF-8 text" in proc.stderr
    assert "Traceback" not in proc.stderr


# ------------------------------------------------------------------ stored odd text


@pytest.fixture(scope="module")
def poisoned(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[RunningNode, dict[str, str]]]:
    """A data dir whose transactions and contract state hold a lone surrogate, as versions
    that accepted one stored it (a JSON escape in the stored JSON)."""
    n = make_node(tmp_path_factory, name="poisoned")
    try:
        alice = n.client("alice")
        s, o = deploy_pair(alice)
        (res,) = ok(alice, call_tx(s, "set", {"_s": "plain"}))
        (up,) = ok(alice, upload_tx("Str", STR, metadata={"VM": "SolidVM", "history": "Str"}))
        n.stop()
        db = sqlite3.connect(n.data_dir / "node.sqlite3")
        with db:
            db.execute(
                "UPDATE txs SET request = replace(request, '\"plain\"', '\"a\\ud800b\"') "
                "WHERE hash = ?",
                (res["hash"],),
            )
            db.execute(
                'UPDATE txs SET request = replace(request, \'"history":"Str"\', '
                '\'"history":"\\ud800"\') WHERE hash = ?',
                (up["hash"],),
            )
            db.execute(
                "UPDATE contracts SET storage = replace(storage, '\"plain\"', '\"a\\ud800b\"') "
                "WHERE address = ?",
                (s,),
            )
            changed = db.execute(
                "SELECT COUNT(*) FROM txs WHERE request LIKE '%\\ud800%'"
            ).fetchone()[0]
            assert changed == 2
        db.close()
        n.restart()
        yield n, {"str": s, "other": o, "set": res["hash"], "upload": up["hash"]}
    finally:
        n.stop()


READS = [
    f"{ETH}/transaction/last/5",
    f"{ETH}/transaction?hash={{set}}",
    f"{ETH}/transaction?hash={{upload}}",
    f"{ETH}/block/last/1",
    f"{ETH}/block?minnumber=0&maxnumber=1000",
    "/bloc/v2.2/transactions/{set}/result",
    "/bloc/v2.2/contracts/Str/{str}/state",
    "/bloc/v2.2/contracts/Str/{str}",
]


@pytest.mark.parametrize("path", READS)
def test_read_routes_answer_despite_stored_surrogates(
    poisoned: tuple[RunningNode, dict[str, str]], path: str
) -> None:
    n, ids = poisoned
    r = n.client("alice").get(path.format(**ids))
    assert r.status_code == 200, f"{r.status_code}: {r.text[:500]}"
    r.json()  # valid JSON (a stored surrogate comes back as its JSON escape)


def test_stored_surrogate_reads_back_as_its_escape(
    poisoned: tuple[RunningNode, dict[str, str]],
) -> None:
    n, ids = poisoned
    r = n.client("alice").get(f"/bloc/v2.2/contracts/Str/{ids['str']}/state")
    assert r.status_code == 200, r.text
    assert b'"a\\ud800b"' in r.content
    assert r.json()["s"] == "a\ud800b"


def test_poisoned_contract_and_its_block_mates_are_indexed(
    poisoned: tuple[RunningNode, dict[str, str]],
) -> None:
    """A block touching the contract whose state holds the surrogate indexes both contracts
    (the odd text is written as U+FFFD), every later block too."""
    n, ids = poisoned
    alice = n.client("alice")
    first, second = ok(alice, call_tx(ids["str"], "touch"), call_tx(ids["other"], "bump"))
    number = block_of(alice, first["hash"])
    assert block_of(alice, second["hash"]) == number
    (row,) = search(alice, "Str", address=f"eq.{ids['str']}")
    assert int(row["block_number"]) == number
    assert row["k"] == 1 and row["s"] == "a\ufffdb"
    (row,) = search(alice, "Other", address=f"eq.{ids['other']}")
    assert int(row["block_number"]) == number
    (st,) = search(alice, "storage", address=f"eq.{ids['str']}")
    assert st["data"]["s"] == "a\ufffdb"
    (third,) = ok(alice, call_tx(ids["other"], "bump"))
    (row,) = search(alice, "Other", address=f"eq.{ids['other']}")
    assert int(row["block_number"]) == block_of(alice, third["hash"])
    assert " ERROR " not in n.log_tail(400)


# ------------------------------------------------------------------ one contract's rows fail


@pytest.mark.parametrize("flags", [(), ("--cirrus-names", "seed")], ids=["both", "seed"])
def test_one_contract_failing_costs_the_others_nothing_and_is_rebuilt_at_start(
    tmp_path_factory: pytest.TempPathFactory, flags: tuple[str, ...]
) -> None:
    """A trigger written into the database makes every write of ``Str``'s Cirrus rows fail:
    ``Other``, in the same block, keeps all its rows; no event is recorded twice; once the
    trigger is gone, the next start rebuilds what ``Str`` missed (with STRATO 16's names
    beside the seed's, or the seed's only)."""
    strato16 = not flags
    n = make_node(tmp_path_factory, *flags, name="failing")
    try:
        alice = n.client("alice")
        s, o = deploy_pair(alice)
        ok(alice, call_tx(s, "set", {"_s": "before"}))
        n.stop()
        db = sqlite3.connect(n.data_dir / "node.sqlite3")
        with db:
            db.execute(
                'CREATE TRIGGER poison BEFORE INSERT ON "cirrus:Str" '
                "BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
            )
        db.close()
        n.restart()
        alice = n.client("alice")
        poke, bump = ok(alice, call_tx(s, "poke", {"n": 2}), call_tx(o, "bump"))
        number = block_of(alice, poke["hash"])
        assert block_of(alice, bump["hash"]) == number
        # Other: every row of the block
        (row,) = search(alice, "Other", address=f"eq.{o}")
        assert int(row["block_number"]) == number and row["n"] == 1
        (hit,) = search(alice, "Other-hits", address=f"eq.{o}")
        assert hit["value"] == 1
        assert len(search(alice, "Other.Bumped", address=f"eq.{o}")) == 1
        if strato16:
            (st,) = search(alice, "storage", address=f"eq.{o}")
            assert st["data"]["n"] == "1"
            assert len(search(alice, "event", address=f"eq.{o}")) == 1
        # Str: none of this block's rows (its contract row, notes, event) were written
        (row,) = search(alice, "Str", address=f"eq.{s}")
        assert row["s"] == "before"
        assert search(alice, "Str-notes", address=f"eq.{s}", key="eq.2") == []
        assert [e["what"] for e in search(alice, "Str.Said", address=f"eq.{s}")] == ["before"]
        # later blocks: indexed, and no event of the failed block recorded again
        (again,) = ok(alice, call_tx(o, "bump"))
        (row,) = search(alice, "Other", address=f"eq.{o}")
        assert int(row["block_number"]) == block_of(alice, again["hash"]) and row["n"] == 2
        assert len(search(alice, "Other.Bumped", address=f"eq.{o}")) == 2
        assert "rebuilt at the next start" in n.log_tail(400)
        n.stop()
        db = sqlite3.connect(n.data_dir / "node.sqlite3")
        with db:
            dupes = db.execute(
                "SELECT COUNT(*) FROM (SELECT 1 FROM events GROUP BY tx_hash, address, name, "
                "args HAVING COUNT(*) > 1)"
            ).fetchone()[0]
            assert dupes == 0
            db.execute("DROP TRIGGER poison")
        db.close()
        n.restart()
        alice = n.client("alice")
        (row,) = search(alice, "Str", address=f"eq.{s}")
        assert row["s"] == "poked" and int(row["block_number"]) == number
        (note,) = search(alice, "Str-notes", address=f"eq.{s}", key="eq.2")
        assert note["value"] == "poked"
        said = search(alice, "Str.Said", address=f"eq.{s}", order="id")
        assert [e["what"] for e in said] == ["before", "poke"]
        assert int(said[1]["block_number"]) == number
        if strato16:
            (st,) = search(alice, "storage", address=f"eq.{s}")
            assert st["data"]["s"] == "poked"
            assert len(search(alice, "event", address=f"eq.{s}", event_name="eq.Said")) == 2
        # rebuilt once: a further start writes nothing twice
        n.restart()
        alice = n.client("alice")
        assert len(search(alice, "Str.Said", address=f"eq.{s}")) == 2
        if strato16:
            assert len(search(alice, "event", address=f"eq.{s}", event_name="eq.Said")) == 2
    finally:
        n.stop()
