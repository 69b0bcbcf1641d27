"""What the account history calls each transaction, and the chain it names."""

from __future__ import annotations

from app.client.models import Transaction
from app.services.account import ChainRef, chain_name, describe_tx

REALM = ChainRef("r" * 64, "CarDemo-realm", governance="CarDemo")
CAR = ChainRef("c" * 64, "car-17-chain", parent="r" * 64, governance="Car")
PLAIN = ChainRef("p" * 64, "Acme ledger", governance="Gov")
CHAINS = {c.id: c for c in (REALM, CAR, PLAIN)}
CREATED = {"h1": REALM.id, "h2": CAR.id, "h3": PLAIN.id}


def tx(kind: str, hash_: str = "h", to: str | None = None, **metadata: str) -> Transaction:
    return Transaction(hash_, "a" * 40, to, kind, 1, "", 0, metadata=dict(metadata))


def test_creations_are_named_for_what_they_made() -> None:
    assert describe_tx(tx("GENESIS", "h1"), CHAINS, CREATED) == "Application created: CarDemo"
    assert describe_tx(tx("GENESIS", "h2"), CHAINS, CREATED) == "Asset created: Car (CarDemo)"
    assert describe_tx(tx("GENESIS", "h3"), CHAINS, CREATED) == "Chain created: Acme ledger"
    assert describe_tx(tx("GENESIS", "unknown"), CHAINS, CREATED) == "Chain created"
    assert describe_tx(tx("Contract", name="Token"), {}, {}) == "Contract created: Token"
    assert describe_tx(tx("FunctionCall", "h", "b" * 40, funcName="mint"), {}, {}) == (
        "Call: mint()"
    )
    assert describe_tx(tx("Transfer", "h", "b" * 40), {}, {}) == "Transfer"


def test_chain_names() -> None:
    assert chain_name(None, CHAINS) == "Main chain"
    assert chain_name(PLAIN.id, CHAINS) == "Acme ledger"
    assert chain_name("9" * 64, CHAINS) == "99999999…"
    assert ChainRef("8" * 64).name == "88888888…"
