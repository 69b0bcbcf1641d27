"""The global search box: what a typed text is on this node, so the window can jump to it.

A text is tried as what its shape allows, cheapest first: a contact's name or a 40-digit
address (a contract or an account), a block number, a 64-digit hash (a transaction, then a chain,
then a block), a Cirrus table or contract name. Only what the node confirms is a hit: a hash that
is no transaction is not "found" because it looks like one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from PySide6.QtCore import QObject

from app.client.cirrus_names import names_of, table_of
from app.client.errors import AuthError, RequestError
from app.client.models import AccountState, Block, Transaction

from .session import Session

HitKind = Literal["transaction", "chain", "block", "contract", "account", "table"]
_HEX40 = re.compile(r"(0x)?[0-9a-fA-F]{40}")
_HEX64 = re.compile(r"(0x)?[0-9a-fA-F]{64}")
_NUMBER = re.compile(r"#?\d{1,12}")


@dataclass
class SearchHit:
    kind: HitKind
    value: str  # the hash, address, chain ID, block number or table name
    name: str = ""  # contract name, user's common name or contact name
    chain_id: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


class NotFound(RequestError):
    """Nothing on the node answers to the text (the message says what was tried)."""


@dataclass
class AddressInfo:
    """What the address dialog shows about one address."""

    address: str
    state: AccountState | None
    name: str = ""  # contact name or certificate common name
    identity: dict[str, str] = field(default_factory=dict)
    transactions: list[Transaction] = field(default_factory=list)


class SearchService(QObject):
    def __init__(self, session: Session, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.contacts: dict[str, str] = {}  # name -> address, kept current by the controller

    def set_contacts(self, contacts: dict[str, str]) -> None:
        self.contacts = dict(contacts)

    def _client(self) -> Any:
        if self.session.client is None:
            raise AuthError("not connected")
        return self.session.client

    async def resolve(self, text: str) -> SearchHit:
        text = text.strip()
        if not text:
            raise NotFound(
                "type an address, a transaction hash, a block number, a chain ID or a name"
            )
        contact = next((a for n, a in self.contacts.items() if n.lower() == text.lower()), None)
        if contact is not None:
            hit = await self._address(contact)
            hit.name = hit.name or text
            return hit
        if _HEX40.fullmatch(text):
            return await self._address(text.lower().removeprefix("0x"))
        if _NUMBER.fullmatch(text):
            block = await self._client().block(int(text.lstrip("#")))
            if block is not None:
                return SearchHit("block", str(block.number), detail={"block": block})
            raise NotFound(f"there is no block {text.lstrip('#')} on this node (yet)")
        if _HEX64.fullmatch(text):
            return await self._hash(text.lower().removeprefix("0x"))
        return await self._name(text)

    async def _address(self, address: str) -> SearchHit:
        state = await self._client().account(address)
        if state is not None and state.contract_name:
            return SearchHit(
                "contract", address, state.contract_name, state.chain_id or "", {"state": state}
            )
        name = await self._user_name(address)
        if state is None and not name:
            raise NotFound(f"no account or contract has the address {address} on this node")
        return SearchHit("account", address, name, detail={"state": state})

    async def _user_name(self, address: str) -> str:
        client = self._client()
        rows, _ = await client.cirrus(
            await table_of(client, "Certificate"),
            [("userAddress", f"eq.{address}"), ("select", "commonName")],
        )
        return str(rows[0].get("commonName") or "") if rows else ""

    async def _hash(self, h: str) -> SearchHit:
        client = self._client()
        txs: list[Transaction] = await client.transactions(hash=h)
        if txs:
            return SearchHit("transaction", h, chain_id=txs[0].chain_id or "")
        try:
            chains = await client.chains([h])
        except RequestError:  # not a chain (nodes before the sandbox's one answer)
            chains = []
        except AuthError as exc:
            if exc.status != 403:
                raise
            chains = []  # not a chain this user may see, or none at all: one answer for both
        if chains:
            info = chains[0].get("info") if isinstance(chains[0].get("info"), dict) else {}
            return SearchHit("chain", h, str(info.get("label") or ""), h)
        block = await client.block_by_hash(h)
        if block is not None:
            return SearchHit("block", str(block.number), detail={"block": block})
        # (the results route is no help: it answers Pending for any hash it never saw)
        raise NotFound(f"{h[:12]}… is no transaction, chain or block you can see on this node")

    async def _name(self, text: str) -> SearchHit:
        client = self._client()
        names = await names_of(client).names(client, want=text)
        tables = list(names.infos)
        exact = [t for t in tables if t.lower() == text.lower()]
        # a contract's own table whatever its prefix (Acme-Nest, BlockApps-Nest), then names
        # that hold the text
        own = names.contract_tables(text)
        close = [t for t in tables if text.lower() in t.lower()]
        for t in exact or own or sorted(close, key=len):
            return SearchHit("table", t, t)
        raise NotFound(f"no table or contract is named like {text!r} on this node")

    async def block(self, number: int) -> Block | None:
        result: Block | None = await self._client().block(number)
        return result

    async def address_info(self, address: str) -> AddressInfo:
        """Balance, nonce, contract name, identity and recent transactions of an address."""
        client = self._client()
        state = await client.account(address)
        rows, _ = await client.cirrus(
            await table_of(client, "Certificate"),
            [
                ("userAddress", f"eq.{address}"),
                ("select", "commonName,organization,organizationalUnit"),
            ],
        )
        identity = {k: str(v) for k, v in rows[0].items()} if rows else {}
        contact = next((n for n, a in self.contacts.items() if a == address), "")
        txs: list[Transaction] = await client.transactions(address=address)
        txs.sort(key=lambda t: t.block_number, reverse=True)
        return AddressInfo(
            address, state, contact or identity.get("commonName", ""), identity, txs[:100]
        )
