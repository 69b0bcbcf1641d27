"""Token-like contracts: which contracts are tokens, and their holders, transfers and supply.

A contract is token-like when it has a balances-like mapping (``address => uint``, named like
``balances``/``_balances``, or any such mapping beside a ``Transfer``-like event). Its holders
are the rows of the mapping's Cirrus collection table (the seed's ``<table>-<variable>``,
STRATO 16's ``<creator>-<Contract>-<variable>``), read a page at a time largest first; its
transfers are the rows of the event's table, newest first (:class:`EventFeed`); its total supply
is a ``totalSupply``-like state variable when it has one, else the sum of the balances (a Cirrus
aggregate, ``value::numeric.sum()``: a jsonb column is summed as a number).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject

from app.client.abi_types import AbiType, ContractSpec
from app.client.cirrus_names import CirrusNames
from app.client.errors import AuthError, RequestError

from .explorer_contracts import EventFeed, ExplorerContractsService, Instance

HOLDERS_PAGE = 100  # holders read at a time
TRANSFERS_PAGE = 50


@dataclass(frozen=True)
class TokenShape:
    """What makes a contract a token, from its interface alone (no node read)."""

    balances: str  # the mapping's variable name
    transfer: str = ""  # the Transfer-like event's name ("" when it has none)
    sender: str = ""  # the event's argument names: from, to, amount
    receiver: str = ""
    amount: str = ""
    supply: str = ""  # a total-supply state variable ("" : the sum of the balances)


@dataclass(frozen=True)
class TokenInfo:
    """A token instance with its Cirrus tables ("" for one the node does not have)."""

    instance: Instance
    shape: TokenShape
    holders_table: str
    transfers_table: str
    by_chain: bool  # the holders table has the seed's chainId column
    # the only instance of its contract: the holders table holds its rows alone, and is read
    # without the address filter (with it, the node sorts a million rows through its address
    # index: seconds a page where a scan takes a tenth of that)
    sole: bool = False


@dataclass(frozen=True)
class Holder:
    address: str
    amount: int


@dataclass(frozen=True)
class Transfer:
    block_number: int | None
    timestamp: str
    tx_hash: str
    sender: str
    receiver: str
    amount: int | None


def _is_holder_key(t: AbiType | None) -> bool:
    return t is not None and t.kind in ("address", "account")


def _is_amount(t: AbiType | None) -> bool:
    return t is not None and (t.kind == "int" or (t.kind == "udvt" and _is_amount(t.actual)))


def token_shape(spec: ContractSpec, xabi: dict[str, Any]) -> TokenShape | None:
    """The token parts of a contract's interface, or None when it is not token-like."""
    types = xabi.get("types") if isinstance(xabi.get("types"), dict) else {}
    vs = xabi.get("vars") if isinstance(xabi.get("vars"), dict) else {}
    assert isinstance(types, dict) and isinstance(vs, dict)
    mappings: list[str] = []
    supplies: list[str] = []
    for name, d in sorted(vs.items()):
        try:
            t = AbiType.from_xabi(d, types)
        except Exception:  # an entry this client does not model: not a balance
            continue
        if t.kind == "mapping" and _is_holder_key(t.key) and _is_amount(t.value):
            mappings.append(str(name))
        elif _is_amount(t) and "supply" in str(name).lower():
            supplies.append(str(name))
    transfer = sender = receiver = amount = ""
    for ev in spec.events:
        if "transfer" not in ev.name.lower():
            continue
        addresses = [n for n, t in ev.type.fields if _is_holder_key(t)]
        amounts = [n for n, t in ev.type.fields if _is_amount(t)]
        if len(addresses) >= 2 and amounts:
            transfer, sender, receiver, amount = ev.name, addresses[0], addresses[1], amounts[0]
            break
    named = [m for m in mappings if "balance" in m.lower()]
    if named:
        balances = named[0]
    elif mappings and transfer:
        balances = mappings[0]
    else:
        return None
    supply = next((s for s in supplies if "total" in s.lower()), supplies[0] if supplies else "")
    return TokenShape(balances, transfer, sender, receiver, amount, supply)


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str):
        s = v.strip()
        if s.lstrip("-").isdigit():
            return int(s)
    return None


def _hex(a: Any) -> str:
    return str(a or "").lower().removeprefix("0x")


class TokenService(QObject):
    """The node reads of a token page, errors in words."""

    def __init__(self, contracts: ExplorerContractsService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.contracts = contracts

    def _client(self) -> Any:
        client = self.contracts.session.client
        if client is None:
            raise AuthError("not connected to a node")
        return client

    async def token(self, inst: Instance, shape: TokenShape) -> TokenInfo:
        """The instance's holders and transfers tables (looked up in the node's list)."""
        names: CirrusNames = await self.contracts.cirrus_names(want=inst.name)
        holders = names.collection_tables(inst.name, shape.balances)
        if not holders and not names.listed:  # a node that lists nothing: the seed's name
            holders = [f"{inst.name}-{shape.balances}"]
        transfers = names.event_tables(inst.name, shape.transfer) if shape.transfer else []
        table = holders[0] if holders else ""
        info = names.infos.get(table)
        if info is not None and info.columns:
            chained = any(c.name == "chainId" for c in info.columns)
        else:
            chained = bool(table) and names.family(table) == "seed"
        try:
            listed = (await self.contracts.instances()).get(inst.name, [])
        except RequestError:
            listed = []
        sole = [(i.address.lower(), i.chain_id) for i in listed] == [
            (inst.address.lower(), inst.chain_id)
        ]
        return TokenInfo(inst, shape, table, transfers[0] if transfers else "", chained, sole)

    def _where(self, t: TokenInfo, ordered: bool = False) -> list[tuple[str, str]]:
        """``ordered``: a page largest first, read with the address filter even when the
        table's rows are all the instance's: the node's by-value index starts with the
        address (the page reads its rows from it, not the whole table and a sort)."""
        if t.sole and not t.instance.chain_id and not ordered:
            return []  # the table's rows are all the instance's: counted without a filter
        where = [("address", f"eq.{t.instance.address}")]
        if t.by_chain and t.instance.chain_id:
            where.append(("chainId", f"eq.{t.instance.chain_id}"))
        return where

    async def _rows(
        self, t: TokenInfo, params: list[tuple[str, str]], ordered: bool = False
    ) -> list[dict[str, Any]]:
        if not t.holders_table:
            raise RequestError(
                f"Cirrus has no table of {t.instance.name}.{t.shape.balances}: "
                "its holders are not indexed"
            )
        rows, _ = await self._client().cirrus(t.holders_table, self._where(t, ordered) + params)
        return [r for r in rows if isinstance(r, dict)]

    async def holders_count(self, t: TokenInfo) -> int:
        """How many holders (entries with a balance: a zero balance has no row)."""
        rows = await self._rows(t, [("select", "count()")])
        n = _int(rows[0].get("count")) if rows else None
        if n is None:
            raise RequestError(f"the node did not count the rows of {t.holders_table}")
        return n

    async def holders(self, t: TokenInfo, offset: int, limit: int = HOLDERS_PAGE) -> list[Holder]:
        """Holders ``offset`` .. ``offset + limit``, largest balance first (ties by address)."""
        rows = await self._rows(
            t,
            [
                ("select", "key,value"),
                ("order", "value.desc,key.asc"),
                ("offset", str(offset)),
                ("limit", str(limit)),
            ],
            ordered=True,
        )
        out = []
        for r in rows:
            amount = _int(r.get("value"))
            if amount is not None:
                out.append(Holder(_hex(r.get("key")), amount))
        return out

    async def total_supply(self, t: TokenInfo) -> tuple[int | None, str]:
        """(total, how it was found): the supply variable's value, else the balances' sum."""
        inst = t.instance
        if t.shape.supply:
            value = await self._client().state_variable(
                inst.name, inst.address, t.shape.supply, inst.chain_id or None
            )
            n = _int(value)
            if n is not None:
                return n, t.shape.supply
        rows = await self._rows(t, [("select", "value::numeric.sum()")])
        total = _int(rows[0].get("sum")) if rows else None
        return total, f"sum of {t.shape.balances}"

    def transfers(self, t: TokenInfo, page: int = TRANSFERS_PAGE) -> EventFeed:
        """The token's transfers, newest first, read a page at a time."""
        tables = [t.transfers_table] if t.transfers_table else []
        return self.contracts.feed(tables, address=t.instance.address, page=page)

    def transfer_of(self, t: TokenInfo, args: dict[str, Any]) -> tuple[str, str, int | None]:
        """(from, to, amount) of an event row's arguments."""
        s = t.shape
        return _hex(args.get(s.sender)), _hex(args.get(s.receiver)), _int(args.get(s.amount))
