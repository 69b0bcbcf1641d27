"""The Send dialog's checks in words: recipients, amounts, funds, gas, chain membership."""

from __future__ import annotations

import pytest

from app.services.chains import ChainInfo
from app.services.transfers import (
    GasPlan,
    TransferProblem,
    amount_text,
    check_funds,
    is_member,
    max_amount,
    parse_amount,
    resolve_recipient,
)

TOKEN = 10**18
BOB = "4f9a129d547c1d86ded670d94691a01dc15a2b3a"
ZED = "ab" * 20
CONTACTS = {"Zed": ZED}
USERS = [("bob", BOB)]


def test_recipients_by_address_contact_or_user() -> None:
    assert resolve_recipient("0x" + BOB.upper(), CONTACTS, USERS).name == "bob"
    r = resolve_recipient(" zed ", CONTACTS, USERS)
    assert (r.address, r.name, r.source) == (ZED, "Zed", "contact")
    assert resolve_recipient("BOB", CONTACTS, USERS).source == "user"
    assert (
        resolve_recipient("cd" * 20, CONTACTS, USERS).describe() == f"typed address ({'cd' * 20})"
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "Choose a recipient"),
        ("bobby", "Nobody is called “bobby”"),
        ("0x1234", "an address has 40 hex digits, this has 4"),
        ("deadbeef00", "this has 10"),
        ("0x" + "z" * 40, "'z' is not a hex digit"),
    ],
)
def test_bad_recipients_are_refused_in_words(text: str, words: str) -> None:
    with pytest.raises(TransferProblem, match=words):
        resolve_recipient(text, CONTACTS, USERS)


def test_amounts_in_tokens_and_wei() -> None:
    assert parse_amount("2.5", "tokens") == 25 * TOKEN // 10
    assert parse_amount("1,000", "tokens") == 1000 * TOKEN
    assert parse_amount(".5", "tokens") == TOKEN // 2
    assert parse_amount("0.000000000000000001", "tokens") == 1
    assert parse_amount("1e18", "wei") == TOKEN
    assert amount_text(25 * TOKEN // 10, "tokens") == "2.5"
    assert amount_text(7, "wei") == "7"


@pytest.mark.parametrize(
    ("text", "unit", "words"),
    [
        ("", "tokens", "Type the amount"),
        ("1,5", "tokens", "use a point for decimals"),
        ("1.2.3", "tokens", "is not an amount"),
        ("-1", "tokens", "is not an amount"),
        ("0", "tokens", "above zero"),
        ("0.0000000000000000001", "tokens", "18 decimal places"),
        ("1.5", "wei", "not a whole number of wei"),
    ],
)
def test_bad_amounts_are_refused_in_words(text: str, unit: str, words: str) -> None:
    with pytest.raises(TransferProblem, match=words):
        parse_amount(text, unit)


def test_funds_and_gas() -> None:
    free, charged, unknown = GasPlan(False), GasPlan(True), GasPlan(None)
    assert free.tx_params == {} and free.max_fee == 0 and free.describe().startswith("Free")
    assert charged.tx_params == {"gasLimit": 21_000, "gasPrice": 1}
    assert unknown.tx_params == charged.tx_params and "does not say" in unknown.describe()
    assert max_amount(TOKEN, charged) == TOKEN - 21_000 and max_amount(5, charged) == 0
    check_funds(TOKEN, TOKEN, free, "alice", "Main chain")
    with pytest.raises(TransferProblem, match="may also cost up to 21,000 wei of gas"):
        check_funds(TOKEN, TOKEN, charged, "alice", "Main chain")


def test_membership_follows_the_member_entries() -> None:
    alice = {"commonName": "alice", "organization": "Acme", "organizationalUnit": "Engineering"}

    def chain(*members: dict[str, object]) -> ChainInfo:
        return ChainInfo.from_json({"id": "1" * 64, "info": {"members": list(members)}})

    assert is_member(chain({"orgName": "Acme"}), alice)
    assert is_member(chain({"access": True}), alice)  # everyone with a certificate
    assert not is_member(chain({"orgName": "Globex"}), alice)
    assert not is_member(chain({"orgName": "Acme", "orgUnit": "Sales"}), alice)
    assert not is_member(chain({"orgName": "Acme", "access": False}), alice)
    assert not is_member(chain(), alice)  # nothing listed: cannot be confirmed
    assert not is_member(chain({"orgName": "Acme"}), None)  # no identity
