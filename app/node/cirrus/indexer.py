"""Turns contract state into Cirrus rows, after every block, inside the block's own commit.

Column values follow the seed's table: ints and enums as integers, bools as booleans, decimals as
numbers with their places (``1.50``; the platform's column type is ``decimal``), strings and
bytes as text, addresses as hex, accounts as ``addr`` / ``addr:chainId`` / ``addr:main``, contract
references as the address (NULL when no contract lives there), mappings as 40 zeros; arrays and
structs get no column.
"""

from __future__ import annotations

import time
from typing import Any

from ..solidvm.defs import ContractDef
from ..solidvm.types import (
    AccountType,
    AddressType,
    ArrayType,
    BoolType,
    BytesType,
    ContractType,
    DecimalType,
    EnumType,
    IntType,
    MappingType,
    StringType,
    StructType,
    Type,
)
from ..solidvm.values import Address, Digest
from ..solidvm.world import AccountState, World
from .backend import STANDARD_COLUMNS, STANDARD_NAMES, CirrusBackend, Table
from .values import Column

MAPPING_VALUE = "0" * 40


def column_for(name: str, t: Type) -> Column | None:
    if isinstance(t, ArrayType | StructType):
        return None
    if isinstance(t, IntType | EnumType):
        return Column(name, "int")
    if isinstance(t, BoolType):
        return Column(name, "bool")
    if isinstance(t, DecimalType):
        return Column(name, "decimal")
    if isinstance(t, ContractType):
        return Column(name, "text", t.name)
    return Column(name, "text")


EVENT_TX_COLUMNS: list[tuple[str, str]] = [
    ("block_hash", "text"),
    ("block_timestamp", "text"),
    ("block_number", "int"),
    ("transaction_hash", "text"),
    ("transaction_sender", "text"),
]
EVENT_RESERVED = {"id", "address", "_chain"} | {n for n, _ in EVENT_TX_COLUMNS}


def _address_args(cdef: ContractDef | None, event: str, names: list[str]) -> list[str]:
    """The columns (of ``names``, the event table's argument columns in order) of the event's
    address, account and contract arguments: what queries look an event up by."""
    ev = cdef.events.get(event) if cdef is not None else None
    if ev is None or len(ev.params) != len(names):
        return []
    return [
        n
        for n, (_, t, _) in zip(names, ev.params, strict=True)
        if isinstance(t, AddressType | AccountType | ContractType)
    ]


_last_stamp: tuple[int, str] = (-1, "")  # the last one made: blocks of a second share it


def cirrus_timestamp(ts: int) -> str:
    global _last_stamp
    last = _last_stamp
    if last[0] == ts:
        return last[1]
    text = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))
    _last_stamp = (ts, text)  # (one assignment: threads read a consistent pair)
    return text


def bytes_text(v: bytes) -> str:
    """Bytes as Cirrus shows them: printable UTF-8 text (trailing zero bytes dropped), or hex
    (always for a SolidVM hash, which the platform keeps as hex text)."""
    if type(v) is Digest:
        return v.hex()
    try:
        text = v.rstrip(b"\0").decode("utf-8")
    except UnicodeDecodeError:
        return v.hex()
    return text if text.isprintable() else v.hex()


def record_id(address: str, chain: str) -> str:
    return f"{address}:{chain}" if chain else address


class Indexer:
    def __init__(self, backend: CirrusBackend, world: World, index_evm: bool) -> None:
        self.backend = backend
        self.world = world
        self.index_evm = index_evm
        # tables known to have the columns a contract or an event needs, by name: checking
        # them again for every block costs more than writing the row
        self._known: dict[tuple[str, str], tuple[object, Table]] = {}

    def indexed(self, cdef: ContractDef) -> bool:
        return cdef.vm == "SolidVM" or self.index_evm

    def contract_table(self, name: str, cdef: ContractDef, kind: str = "contract") -> Table:
        known = self._known.get((name, kind))
        if known is not None and known[0] is cdef and self.backend.tables.get(name) is known[1]:
            return known[1]
        cols = [Column(n, k) for n, k in STANDARD_COLUMNS]
        for sv in cdef.state_vars:
            if sv.constant or sv.name in STANDARD_NAMES:
                continue
            col = column_for(sv.name, sv.type)
            if col is not None:
                cols.append(col)
        t = self.backend.ensure_table(name, kind, cols)
        self._known[(name, kind)] = (cdef, t)
        return t

    def value(self, v: Any, t: Type, chain: str) -> Any:
        if isinstance(t, IntType | EnumType | StringType):
            return v
        if isinstance(t, BoolType):
            return bool(v)
        if isinstance(t, DecimalType):
            return str(v)
        if isinstance(t, MappingType):
            return MAPPING_VALUE
        if isinstance(t, BytesType):
            return bytes_text(v)
        if isinstance(v, Address):
            if isinstance(t, ContractType):
                target_chain = chain if v.chain is None else ("" if v.chain == "main" else v.chain)
                if (target_chain, v.value) not in self.world.accounts:
                    return None
                return v.account_text()
            if isinstance(t, AccountType):
                return v.account_text()
            if isinstance(t, AddressType):
                return v.hex
        return None

    def row(
        self,
        acct: AccountState,
        block_number: int,
        block_hash: str,
        ts: int,
        tx_hash: str,
        sender: str,
    ) -> dict[str, Any]:
        cdef = acct.cdef
        assert cdef is not None
        addr = acct.hex
        out: dict[str, Any] = {
            "address": addr,
            "chainId": acct.chain,
            "record_id": record_id(addr, acct.chain),
            "block_hash": block_hash,
            "block_timestamp": cirrus_timestamp(ts),
            "block_number": block_number,
            "transaction_hash": tx_hash,
            "transaction_sender": sender,
        }
        st = acct.storage
        for sv in cdef.state_vars:
            if (
                sv.constant
                or sv.name in STANDARD_NAMES
                or isinstance(sv.type, ArrayType | StructType)
            ):
                continue
            out[sv.name] = self.value(st[sv.name], sv.type, acct.chain)
        return out

    def write_rows(self, table: str, cdef: ContractDef, rows: list[dict[str, Any]]) -> None:
        t = self.contract_table(table, cdef)
        self.backend.upsert(t, rows)

    def write_history(self, table: str, cdef: ContractDef, rows: list[dict[str, Any]]) -> None:
        t = self.contract_table(f"history@{table}", cdef, "history")
        self.backend.insert_ignore(t, rows)

    def write_events(
        self,
        table: str,
        event: str,
        params: list[str],
        rows: list[tuple[str, str, list[tuple[str, str]], str, str]],
        block: tuple[int, str, int],
        cdef: ContractDef | None = None,
    ) -> None:
        """rows: (chain, address, [(arg name, text)], tx hash, tx sender);
        block: (number, hash, timestamp); ``cdef`` declares the event (its address arguments
        get an index: one holder's transfers are looked up by ``to``/``from``).

        Besides ``id``, ``address`` and the arguments (the seed's columns), rows carry the
        block and transaction columns STRATO 10 added to event tables, so that the events of
        one transaction can be found (``transaction_hash=eq.<hash>``)."""
        names = [p if p not in EVENT_RESERVED else f"{p}_" for p in params]
        name = f"{table}.{event}"
        known = self._known.get((name, "event"))
        t = known[1] if known is not None and known[0] == names else None
        if t is None or self.backend.tables.get(name) is not t:
            cols = (
                [Column("address", "text")]
                + [Column(n, "text") for n in names]
                + [Column(n, k) for n, k in EVENT_TX_COLUMNS]
            )
            t = self.backend.ensure_table(name, "event", cols)
            self.backend.ensure_indexes(t, _address_args(cdef, event, names))
            self._known[(name, "event")] = (names, t)
        number, block_hash, ts = block
        out = []
        for chain, address, args, tx_hash, sender in rows:
            r: dict[str, Any] = {"_chain": chain, "address": address}
            for n, (_, v) in zip(names, args, strict=False):
                r[n] = v
            r |= {
                "block_hash": block_hash,
                "block_timestamp": cirrus_timestamp(ts),
                "block_number": number,
                "transaction_hash": tx_hash,
                "transaction_sender": sender,
            }
            out.append(r)
        if out:
            # rows of one event table may differ in argument count only if declarations differ
            self.backend.insert(t, out)
