"""KeyRing: users' keys and the signed, numbered transactions they send."""

from __future__ import annotations

from pathlib import Path

from app.node.ledger.keys import KeyRing, sub_from_row
from tests.unit.ledger_parts import opened, transfer


def test_keys_are_found_by_name_and_address(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        keys = ledger.keys
        with ledger.store.transaction():
            key = keys.insert_key("zed")
        assert keys.key_of("zed") == key
        assert keys.name_of_address(key["address"]) == "zed"
        assert keys.key_of("nobody") is None
        assert keys.root_address  # the operator's, loaded at open


def test_transactions_are_numbered_and_signed(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        a = transfer(ledger, "alice", "bob", 1)
        b = transfer(ledger, "alice", "bob", 1)
        assert b.seq == a.seq + 1
        assert a.hash != b.hash
        assert set(a.signature) == {"r", "s", "v"}
        assert len(a.signature["r"]) == 64


def test_numbering_goes_on_after_a_restart(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        sub = transfer(ledger, "alice", "bob", 1)
        ledger.queue.record([sub])
    with opened(tmp_path) as ledger:
        ring = KeyRing(ledger.store, ledger.vault)
        ring.load()
        assert ring.root_address == ledger.keys.root_address
        assert transfer(ledger, "alice", "bob", 1).seq == sub.seq + 1
        row = ledger.store.one("SELECT * FROM txs WHERE hash=?", sub.hash)
        again = sub_from_row(row)
        assert (again.hash, again.payload, again.signature) == (
            sub.hash,
            sub.payload,
            sub.signature,
        )
        assert again.recorded


def test_the_signed_body_and_stored_request_encode_the_payload_once(tmp_path: Path) -> None:
    """The payload is encoded once, when signed; the body hashed and the stored request are
    byte for byte what encoding the whole objects gives, and the hash is the body's."""
    import json

    from app.node.solidvm.ops import keccak256
    from app.node.store import dumps

    with opened(tmp_path) as ledger:
        payload = {"toAddress": "ab" * 20, "value": 7, "note": "caf\u00e9 \u2603"}
        sender = ledger.key_of("alice")
        assert sender is not None
        sub = ledger.keys.new_sub("alice", sender["address"], "TRANSFER", payload, "", None)
        assert sub.payload_json == dumps(payload)
        body = dumps(
            [sub.sender, sub.seq, sub.submitted_at, "TRANSFER", payload, "", 100_000_000, 1]
        )
        assert sub.gas_limit == 100_000_000 and sub.gas_price == 1
        sig = bytes.fromhex("".join(sub.signature.values()))
        assert sub.hash == keccak256(keccak256(body.encode()) + sig).hex()
        expected = {
            "payload": payload,
            "gasLimit": sub.gas_limit,
            "gasPrice": sub.gas_price,
            "signature": sub.signature,
        }
        assert sub.request_json() == dumps(expected)
        sub.internal = True
        assert json.loads(sub.request_json()) == {**expected, "internal": True}
        sub.payload_json = ""  # a Sub made elsewhere (from a row): encoded on demand
        assert sub.request_json() == dumps({**expected, "internal": True})
