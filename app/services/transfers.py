"""Sending tokens: recipients and amounts checked in words, the exact ``TRANSFER`` request, the
gas it may cost, and the transaction followed to its result.

Everything is checked before the request is built, so a refused amount or an unknown name never
reaches the node; what the node still refuses (the balance changed meanwhile) comes back through
the pending tracker as a ``Failure`` with the node's sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.client.abi_types import parse_int
from app.client.errors import AuthError
from app.client.http import StratoClient
from app.client.models import TxRequest, TxResult
from app.client.units import UNITS_PER_TOKEN, exact_tokens, format_amount

from .chains import ChainInfo, ChainService
from .composer import ComposerService, Draft, Preview
from .pending import PendingTracker
from .session import Session

# A plain value transfer costs the base gas of a transaction and nothing more (the sandbox and
# the Ethereum rules STRATO follows); sending exactly that as the limit keeps "max" honest on a
# node that reserves gasLimit x gasPrice before it runs the transfer.
TRANSFER_GAS_LIMIT = 21_000
GAS_PRICE = 1  # the platform's default price (reference: Bloc defaults)
DECIMALS = 18
UNITS = ("tokens", "wei")
HEX40 = re.compile(r"[0-9a-f]{40}")
TOKENS = re.compile(r"(\d+)?(?:\.(\d*))?")
GROUPED = re.compile(r"\d{1,3}(,\d{3})+(\.\d*)?")


class TransferProblem(ValueError):
    """Input that cannot be sent, with the sentence that says why."""


@dataclass(frozen=True)
class Recipient:
    address: str
    name: str = ""
    source: str = ""  # "contact", "user" or "" (typed)

    def describe(self) -> str:
        who = f"{self.source} {self.name}".strip() if self.name else "typed address"
        return f"{who} ({self.address})"


def resolve_recipient(
    text: str, contacts: dict[str, str], users: list[tuple[str, str]]
) -> Recipient:
    """An address (40 hex digits, ``0x`` optional), a contact's name or a node user's name."""
    t = text.strip()
    if not t:
        raise TransferProblem("Choose a recipient: a contact, a user of the node or an address.")
    hex_text = t.lower().removeprefix("0x")
    if HEX40.fullmatch(hex_text):
        name, source = _name_of(hex_text, contacts, users)
        return Recipient(hex_text, name, source)
    for name, address in contacts.items():
        if name.lower() == t.lower():
            return Recipient(address.lower().removeprefix("0x"), name, "contact")
    for name, address in users:
        if name.lower() == t.lower():
            return Recipient(address.lower().removeprefix("0x"), name, "user")
    if t.lower().startswith("0x") or (len(t) >= 8 and all(c in "0123456789abcdef" for c in t)):
        bad = [c for c in hex_text if c not in "0123456789abcdef"]
        if bad:
            raise TransferProblem(
                f"“{t}” is not an address: {bad[0]!r} is not a hex digit (0-9, a-f)."
            )
        raise TransferProblem(
            f"“{t}” is not an address: an address has 40 hex digits, this has {len(hex_text)}."
        )
    raise TransferProblem(
        f"Nobody is called “{t}”: no contact and no user of this node has that name. "
        "Type the recipient's address (40 hex digits) or pick a name from the list."
    )


def _name_of(
    address: str, contacts: dict[str, str], users: list[tuple[str, str]]
) -> tuple[str, str]:
    for name, a in contacts.items():
        if a.lower().removeprefix("0x") == address:
            return name, "contact"
    for name, a in users:
        if a.lower().removeprefix("0x") == address:
            return name, "user"
    return "", ""


def parse_amount(text: str, unit: str) -> int:
    """The amount typed, in wei: tokens take up to 18 decimals (``12.5``, ``1,000``), wei whole
    numbers (``1e18`` too)."""
    t = text.strip().replace(" ", "").replace("_", "")
    if not t:
        raise TransferProblem("Type the amount to send.")
    if unit == "wei":
        n = parse_int(t)
        if n is None or n < 0 or "." in t:
            raise TransferProblem(f"“{text.strip()}” is not a whole number of wei.")
        value = n
    else:
        if "," in t:
            if not GROUPED.fullmatch(t):
                raise TransferProblem(
                    f"“{text.strip()}” is not an amount: use a point for decimals (12.5) and "
                    "commas only between thousands (1,000)."
                )
            t = t.replace(",", "")
        m = TOKENS.fullmatch(t)
        if m is None or not (m.group(1) or m.group(2)):
            raise TransferProblem(
                f"“{text.strip()}” is not an amount: type a number of tokens, such as 12.5."
            )
        whole, frac = m.group(1) or "0", (m.group(2) or "").rstrip("0")
        if len(frac) > DECIMALS:
            raise TransferProblem(
                f"A token has {DECIMALS} decimal places: {text.strip()} tokens is not a whole "
                "number of wei."
            )
        value = int(whole) * UNITS_PER_TOKEN + int(frac.ljust(DECIMALS, "0") or "0")
    if value <= 0:
        raise TransferProblem("Type an amount above zero.")
    return value


def amount_text(units: int, unit: str) -> str:
    """The exact amount as it is typed in ``unit`` (what "max" fills in)."""
    return str(units) if unit == "wei" else exact_tokens(units, grouping=False)


@dataclass(frozen=True)
class GasPlan:
    """What the transfer may cost: nothing on a node without gas, else limit x price."""

    charged: bool | None  # None: the node does not say
    limit: int = TRANSFER_GAS_LIMIT
    price: int = GAS_PRICE

    @property
    def tx_params(self) -> dict[str, int]:
        return {} if self.charged is False else {"gasLimit": self.limit, "gasPrice": self.price}

    @property
    def max_fee(self) -> int:
        return 0 if self.charged is False else self.limit * self.price

    def describe(self) -> str:
        if self.charged is False:
            return "Free: this node charges no gas, so no txParams are sent."
        cost = (
            f"gas limit {self.limit:,} at gas price {self.price:,} wei: at most "
            f"{format_amount(self.max_fee)} on top of the amount"
        )
        if self.charged is None:
            return f"This node does not say whether it charges gas; if it does, {cost}."
        return f"Charged: {cost}."


def gas_plan(session: Session) -> GasPlan:
    health = session.health
    return GasPlan(health.gas if health is not None else None)


def max_amount(balance: int, gas: GasPlan) -> int:
    """Everything that can leave the account: the balance less the most the gas can cost."""
    return max(0, balance - gas.max_fee)


def check_funds(balance: int, value: int, gas: GasPlan, who: str, chain: str) -> None:
    """Refuse an amount the balance cannot cover, in words."""
    if value + gas.max_fee <= balance:
        return
    held = f"{who} holds {format_amount(balance)} on {chain}"
    if gas.max_fee:
        raise TransferProblem(
            f"Not enough tokens: {held}, and sending {format_amount(value)} may also cost up "
            f"to {format_amount(gas.max_fee)} of gas. “Max” fills in what can be sent "
            f"({format_amount(max_amount(balance, gas))})."
        )
    raise TransferProblem(
        f"Not enough tokens: {held}, less than the {format_amount(value)} to send."
    )


def is_member(chain: ChainInfo, identity: dict[str, Any] | None) -> bool:
    """Whether a certificate is among a chain's members (empty parts are wildcards). A chain
    that lists no members cannot be confirmed, so it is not offered."""
    if identity is None:
        return False
    org = str(identity.get("organization", ""))
    unit = str(identity.get("organizationalUnit", ""))
    name = str(identity.get("commonName", ""))
    return any(
        m.access
        and (not m.org or m.org == org)
        and (not m.unit or m.unit == unit)
        and (not m.common_name or m.common_name == name)
        for m in chain.members
    )


@dataclass(frozen=True)
class Transfer:
    """A checked transfer, ready for the confirmation sheet."""

    sender: str
    recipient: Recipient
    value: int
    chain_id: str | None
    chain_title: str
    gas: GasPlan

    def draft(self) -> Draft:
        tx = TxRequest.transfer(self.recipient.address, self.value, chain_id=self.chain_id)
        what = (
            f"transfer {format_amount(self.value)} ({self.value:,} wei) to "
            f"{self.recipient.describe()}"
        )
        if self.recipient.address == self.sender:
            what += " (your own address: the tokens stay with you)"
        return Draft(
            [tx], [what], resolve=False, chain_id=self.chain_id, tx_params=self.gas.tx_params
        )


class TransferService(QObject):
    """Signals: finished(object): the final ``TxResult`` of a transfer sent from here."""

    finished = Signal(object)

    def __init__(
        self,
        session: Session,
        composer: ComposerService,
        chains: ChainService,
        pending: PendingTracker,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.composer = composer
        self.chains = chains
        self.pending = pending
        self._sent: set[str] = set()
        pending.completed.connect(self._on_completed)

    def _client(self) -> StratoClient:
        if self.session.client is None:
            raise AuthError("not connected")
        return self.session.client

    async def member_chains(self, identity: dict[str, Any] | None) -> list[ChainInfo]:
        """The private chains the user belongs to (others are never offered)."""
        if identity is None:
            return []
        found = await self.chains.chains()
        return sorted((c for c in found if is_member(c, identity)), key=lambda c: c.title().lower())

    async def balance(self, address: str, chain_id: str | None) -> int:
        state = await self._client().account(address, chain_id)
        return state.balance if state is not None else 0

    def preview(self, transfer: Transfer) -> Preview:
        p = self.composer.preview(transfer.draft())
        chain = transfer.chain_title
        if transfer.chain_id:
            chain = f"{chain} ({transfer.chain_id})"
        return replace(p, chain=chain)

    async def send(self, transfer: Transfer) -> TxResult:
        """Submit without waiting (resolve=false); a pending result is followed by the tracker
        and announced with ``finished``."""
        draft = transfer.draft()
        (result,) = await self._client().submit(
            draft.txs, resolve=False, chain_id=draft.chain_id, tx_params=draft.tx_params or None
        )
        if result.pending and result.hash:
            self._sent.add(result.hash)
            self.pending.track(result.hash, "transfer")
        else:
            self.finished.emit(result)
        return result

    def _on_completed(self, result: TxResult) -> None:
        if result.hash in self._sent:
            self._sent.discard(result.hash)
            self.finished.emit(result)
