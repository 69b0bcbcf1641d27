"""Identities: certificates from the on-chain registry, and private-chain membership."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.node.errors import ApiError
from tests.unit.ledger_parts import address, opened


def test_the_demo_users_have_registered_certificates(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        cert = ledger.identities.cert_of_user("alice")
        assert cert is not None
        assert cert["userAddress"] == address(ledger, "alice")
        assert "BEGIN CERTIFICATE" in cert["certString"]
        assert ledger.identities.cert_of_user("nobody") is None


def test_sync_rebuilds_the_identity_table_from_the_registry(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        world = ledger.state.world
        before = dict(world.identities)
        world.identities = {}
        ledger.identities.sync()
        assert world.identities == before


def test_an_unknown_chain_is_a_403_like_a_foreign_one(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        ids = ledger.identities
        with pytest.raises(ApiError) as err:
            ids.require_member("alice", "ab" * 32, "chainid")
        assert err.value.status == 403
        assert not ids.is_member("alice", "ab" * 32)
        assert ids.visible_chains("alice") == set()


def test_a_new_key_queues_its_identity_registration(tmp_path: Path) -> None:
    with opened(tmp_path) as ledger:
        from app.node.users import UserStore

        UserStore(ledger.store, ledger.vault).add(
            "zoe", "Acme", "Ops", "pw-12345678", identity=True
        )
        key = ledger.identities.create_key("zoe")
        with pytest.raises(ApiError):
            ledger.identities.create_key("zoe")  # exists
        ledger.producer.run_pending()
        cert = ledger.identities.cert_of_user("zoe")
        assert cert is not None and cert["organization"] == "Acme"
        assert cert["userAddress"] == key["address"]
