"""Addresses of salted contract creations (``new C{salt: s}(...)``, ``create2``, ``derive``).

The platform's rule (``getNewAddressWithSalt_unsafe``): the last 20 bytes of
keccak256(rlp([0xFF, creator, salt, codeCollectionHash, contractName, args...])), where the code
collection hash is keccak256 of the source text and every item is encoded as SolidVM encodes
values (its RLP variant: a one-byte string below 0x80 is a scalar; a negative integer is a
one-element list of its magnitude; a contract-typed value is an empty list).
"""

from __future__ import annotations

from typing import Any, Union

from .defs import ContractDef
from .errors import ExecutionError
from .ops import describe, keccak256, type_error
from .values import Address, ContractRef, Digest, MappingValue, StructValue

Rlp = Union[int, bytes, list["Rlp"]]  # noqa: UP007 (a recursive alias needs Union)
"""An RLP item: ``int`` is a scalar byte (0..127), ``bytes`` a string, ``list`` a list."""

MAX_ITEMS = 100_000


def source_of(cdef: ContractDef) -> str:
    """The source text of the code collection ``cdef`` was compiled from."""
    unit = cdef.unit
    return str(unit.source) if unit is not None else cdef.source


def code_hash(source: str) -> bytes:
    """The code collection hash of a source text (as the platform hashes a single source)."""
    return keccak256(source.encode())


def salt_text(v: Any, what: str) -> str:
    """A salt is a string (a bytesN holding text counts: SolidVM keeps such values as text)."""
    if type(v) is str:
        return v
    if type(v) is Digest:  # a SolidVM hash is hex text
        return v.hex()
    if type(v) is bytes:
        try:
            return v.rstrip(b"\0").decode("utf-8")
        except UnicodeDecodeError:
            pass  # bytes that are not text are no salt: refused below
    raise ExecutionError(
        f"invalid arguments: the salt of {what} must be a string, got {describe(v)}",
        "invalid arguments",
    )


def _bytes_item(b: bytes) -> Rlp:
    if len(b) == 1 and b[0] < 0x80:
        return b[0]
    return b


def _int_item(n: int) -> Rlp:
    if n == 0:
        return b""
    if n < 0:
        return [_int_item(-n)]
    if n < 0x80:
        return n
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


def value_item(v: Any, budget: list[int]) -> Rlp:
    """SolidVM's RLP encoding of one runtime value (``rlpEncodeValue``)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise type_error("salted creation arguments are too large to hash")
    if v is None:
        return b""
    if isinstance(v, bool):
        return 1 if v else 0
    if isinstance(v, int):
        return _int_item(v)
    if isinstance(v, str):
        return _bytes_item(v.encode())
    if isinstance(v, bytes):
        return _bytes_item(v)
    if isinstance(v, ContractRef):
        return []
    if isinstance(v, Address):
        return v.value.to_bytes(20, "big")
    if isinstance(v, StructValue):
        return [value_item(v[k], budget) for k in sorted(v)]
    if isinstance(v, tuple) and len(v) == 1:
        return value_item(v[0], budget)
    if isinstance(v, list | tuple):
        return [value_item(x, budget) for x in v]
    if isinstance(v, MappingValue):
        return []
    raise type_error(f"cannot hash {describe(v)} into a salted address")


def _length_prefix(base: int, n: int) -> bytes:
    if n <= 55:
        return bytes([base + n])
    ln = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([base + 55 + len(ln)]) + ln


def serialize(item: Rlp) -> bytes:
    if isinstance(item, int):
        return bytes([item])
    if isinstance(item, bytes):
        return _length_prefix(0x80, len(item)) + item
    inner = b"".join(serialize(x) for x in item)
    return _length_prefix(0xC0, len(inner)) + inner


def salted_address(creator: int, salt: str, chash: bytes, name: str, args: list[Any]) -> int:
    """The address ``creator`` gets for contract ``name`` built with ``salt`` and ``args``."""
    budget = [MAX_ITEMS]
    items: list[Rlp] = [
        _int_item(0xFF),
        creator.to_bytes(20, "big"),
        _bytes_item(salt.encode()),
        _bytes_item(chash),
        _bytes_item(name.encode()),
    ]
    items += [value_item(a, budget) for a in args]
    return int.from_bytes(keccak256(serialize(items))[12:], "big")
