"""Typed views of the STRATO wire formats, tolerant of the platform's variants.

Parsers accept ``Success``/``success``, bools as JSON or strings, numbers as JSON or decimal
strings, and the seed's and the real platform's field spellings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def _obj(d: dict[str, Any], key: str) -> dict[str, Any]:
    v = d.get(key)
    return v if isinstance(v, dict) else {}


def _list(d: dict[str, Any], key: str) -> list[Any]:
    v = d.get(key)
    return v if isinstance(v, list) else []


def as_bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        return v.strip().lower() in ("true", "1", "yes")
    return bool(v)


def as_int(v: Any, default: int = 0) -> int:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        s = v.strip()
        try:
            return int(s, 16) if s[:2].lower() == "0x" else int(s)
        except ValueError:
            return default
    if isinstance(v, float):
        return int(v)
    return default


def hex_int(v: Any) -> int:
    """gasUsed and etherUsed arrive as 64-hex strings (or numbers on other versions)."""
    if isinstance(v, str) and v and all(c in "0123456789abcdefABCDEF" for c in v):
        return int(v, 16)
    return as_int(v)


@dataclass(frozen=True)
class Account:
    address: str
    pubkey: str = ""


@dataclass
class TxResult:
    """One element of a transaction response (or of the results endpoints)."""

    status: str  # "Success", "Failure", "Pending", "Discarded"
    hash: str
    message: str = ""
    tag: str | None = None  # Upload, Call, Send
    contents: Any = None
    block_hash: str = ""
    gas_used: int = 0
    contracts_created: list[str] = field(default_factory=list)
    chain_id: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, d: Any) -> TxResult:
        if not isinstance(d, dict):
            return cls("Failure", "", message=f"unexpected result {d!r}"[:200])
        status = str(d.get("status") or "Pending")
        status = status[:1].upper() + status[1:].lower() if status else "Pending"
        tr = _obj(d, "txResult")
        data = _obj(d, "data")
        created = str(tr.get("contractsCreated") or "")
        return cls(
            status=status,
            hash=str(d.get("hash") or tr.get("transactionHash") or ""),
            message=str(tr.get("message") or ""),
            tag=data.get("tag"),
            contents=data.get("contents"),
            block_hash=str(tr.get("blockHash") or ""),
            gas_used=hex_int(tr.get("gasUsed")),
            contracts_created=[a for a in created.split(",") if a],
            chain_id=tr.get("chainId") or None,
            raw=d,
        )

    @property
    def pending(self) -> bool:
        return self.status == "Pending"

    @property
    def ok(self) -> bool:
        return self.status == "Success"

    @property
    def address(self) -> str | None:
        """The created contract's address of an Upload."""
        if self.tag == "Upload" and isinstance(self.contents, dict):
            a = self.contents.get("address")
            return str(a) if a else None
        return None

    @property
    def values(self) -> list[Any]:
        """The returned values of a Call (strings, or bools on real nodes)."""
        return list(self.contents) if self.tag == "Call" and isinstance(self.contents, list) else []

    @property
    def source_position(self) -> SourcePosition | None:
        """Where a failed transaction failed, when the node says (the sandbox does)."""
        tr = _obj(self.raw, "txResult") if isinstance(self.raw, dict) else {}
        return SourcePosition.from_json(tr.get("sourcePosition"))


@dataclass(frozen=True)
class SourcePosition:
    """A place in a contract's source: the platform's ``SourcePosition`` (``name``, ``line``,
    ``column``; ``name`` a file name there, the failing contract's name on the sandbox)."""

    name: str
    line: int
    column: int

    @classmethod
    def from_json(cls, v: Any) -> SourcePosition | None:
        """Also reads a ``SourceAnnotation`` (its ``start``) and a list of positions, innermost
        first (the platform debugger's call stack)."""
        if isinstance(v, list):
            v = v[0] if v else None
        if isinstance(v, dict) and isinstance(v.get("start"), dict):
            v = v["start"]
        if not isinstance(v, dict):
            return None
        line, column = as_int(v.get("line"), -1), as_int(v.get("column"), 0)
        if line < 1:
            return None  # the platform's "no position" is line 0
        return cls(str(v.get("name") or ""), line, column)


@dataclass(frozen=True)
class AccountState:
    address: str
    balance: int
    nonce: int
    contract_name: str | None = None
    chain_id: str | None = None

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> AccountState:
        return cls(
            address=str(d.get("address", "")),
            balance=as_int(d.get("balance")),
            nonce=as_int(d.get("nonce")),
            contract_name=d.get("contractName") or None,
            chain_id=d.get("chainId") or None,
        )


@dataclass(frozen=True)
class Transaction:
    hash: str
    sender: str
    to: str | None
    kind: str  # Contract, FunctionCall, Transfer
    block_number: int
    timestamp: str
    value: int
    status: str | None = None
    chain_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Transaction:
        return cls(
            hash=str(d.get("hash", "")),
            sender=str(d.get("from", "")),
            to=d.get("to") or None,
            kind=str(d.get("transactionType", "")),
            block_number=as_int(d.get("blockNumber"), -1),
            timestamp=str(d.get("timestamp", "")),
            value=as_int(d.get("value")),
            status=d.get("status"),
            chain_id=d.get("chainId") or None,
            metadata=_obj(d, "metadata"),
        )


@dataclass(frozen=True)
class Block:
    number: int
    hash: str
    parent_hash: str
    timestamp: str
    transactions: list[Transaction]

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Block:
        bd = _obj(d, "blockData")
        txs = _list(d, "receiptTransactions")
        return cls(
            number=as_int(bd.get("number"), -1),
            hash=str(d.get("blockHash", "")),
            parent_hash=str(bd.get("parentHash", "")),
            timestamp=str(bd.get("timestamp", "")),
            transactions=[Transaction.from_json(t) for t in txs if isinstance(t, dict)],
        )


@dataclass(frozen=True)
class Health:
    version: str
    uptime: int
    last_block: int | None
    healthy: bool
    gas: bool | None
    raw: dict[str, Any]

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Health:
        info = _obj(d, "healthInfo")
        last = _obj(d, "lastBlock")
        number = last.get("number")
        return cls(
            version=str(d.get("version", "")),
            uptime=as_int(d.get("uptime", info.get("uptime"))),
            last_block=as_int(number) if number is not None else None,
            healthy=as_bool(info.get("isHealthy", True)),
            gas=as_bool(d["gas"]) if "gas" in d else None,
            raw=d,
        )


@dataclass
class TxRequest:
    """One element of ``txs``: build with :meth:`upload`, :meth:`call` or :meth:`transfer`."""

    type: str
    payload: dict[str, Any]

    @classmethod
    def upload(
        cls,
        contract: str,
        src: str,
        args: dict[str, Any] | None = None,
        *,
        vm: str = "SolidVM",
        history: list[str] | None = None,
        chain_id: str | None = None,
    ) -> TxRequest:
        meta: dict[str, Any] = {"VM": vm}
        if history:
            meta["history"] = ",".join(history)
        payload: dict[str, Any] = {
            "contract": contract,
            "src": src,
            "args": args or {},
            "metadata": meta,
        }
        if chain_id:
            payload["chainid"] = chain_id
        return cls("CONTRACT", payload)

    @classmethod
    def call(
        cls,
        address: str,
        method: str,
        args: dict[str, Any] | None = None,
        *,
        contract_name: str = "",
        value: int = 0,
        chain_id: str | None = None,
    ) -> TxRequest:
        payload: dict[str, Any] = {
            "contractName": contract_name,
            "contractAddress": address,
            "method": method,
            "args": args or {},
        }
        if value:
            payload["value"] = str(value)
        if chain_id:
            payload["chainid"] = chain_id
        return cls("FUNCTION", payload)

    @classmethod
    def transfer(cls, to: str, value: int, *, chain_id: str | None = None) -> TxRequest:
        payload: dict[str, Any] = {"toAddress": to, "value": str(value)}
        if chain_id:
            payload["chainid"] = chain_id
        return cls("TRANSFER", payload)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "payload": self.payload}
