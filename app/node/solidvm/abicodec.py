"""SolidVM's ``abi.encode``, ``abi.encodePacked`` and ``abi.decode``, byte for byte as the platform.

The platform encodes by runtime value, not by declared type: integers (and enum values) are
256-bit two's complement words, bools words, addresses left-padded words; strings, bytes of any
size (``bytes32`` included) and arrays (fixed-size included) are dynamic: an offset in the head,
then a length word and the padded data in the tail. Strings go in one byte per character (the
low 8 bits of each code point), so ASCII text encodes as in Ethereum. ``abi.decode`` reads the
types ``uint<N>``, ``int<N>``, ``bool``, ``address``, ``bytes``, ``bytes<N>``, ``string`` and
``T[]``. Structs, mappings and contract values have no encoding: an error here (the platform
writes a zero word for them).
"""

from __future__ import annotations

import re
from typing import Any

from .errors import ExecutionError
from .ops import describe, type_error
from .runtime import Frame
from .types import (
    ADDRESS,
    BOOL,
    BYTES,
    STRING,
    AddressType,
    ArrayType,
    BoolType,
    BytesType,
    IntType,
    StringType,
    Type,
)
from .values import Address, ArrayValue, ContractRef, TextBytes

WORD = 32
MOD = 1 << 256

_TYPE_RE = re.compile(r"^(uint|int|bytes)(\d*)$")


def parse_kind(name: str) -> Type | None:
    """The type an ``abi.decode`` type name stands for; None when SolidVM cannot decode it."""
    if name.endswith("[]"):
        elem = parse_kind(name[:-2])
        return ArrayType(elem, None) if elem is not None else None
    if name == "bool":
        return BOOL
    if name == "address":
        return ADDRESS
    if name == "string":
        return STRING
    m = _TYPE_RE.match(name)
    if m is None:
        return None
    base, digits = m.groups()
    if base == "bytes":
        if not digits:
            return BYTES
        n = int(digits)
        return BytesType(n) if 1 <= n <= 32 else None
    bits = int(digits) if digits else 256
    if bits % 8 or not 8 <= bits <= 256:
        return None
    return IntType(base == "int", bits)


# ======================================================================= encoding


def _charge(fr: Frame, elements: int, size: int) -> None:
    ctx = fr.ctx
    ctx.steps += elements
    if ctx.steps > ctx.max_steps:
        raise ctx.out_of_gas()
    ctx.charge_memory(size)


def _chars(s: str) -> bytes:
    """A string as the platform packs it: one byte per character."""
    return bytes(ord(c) & 0xFF for c in s)


def _raw(v: bytes) -> bytes:
    if type(v) is TextBytes:  # text kept in a bytes slot is a string to SolidVM
        return _chars(v.decode("utf-8", "replace"))
    return bytes(v)


def _word(n: int) -> bytes:
    return (n % MOD).to_bytes(WORD, "big")


def _pad(data: bytes) -> bytes:
    return data + bytes(-len(data) % WORD)


def _no_encoding(v: Any, what: str) -> ExecutionError:
    hint = "; convert it with address(...)" if isinstance(v, ContractRef) else ""
    return type_error(f"{what} cannot encode {describe(v)} in SolidVM{hint}")


def _is_dynamic(v: Any) -> bool:
    return isinstance(v, (str, bytes, list))


def _static(v: Any, what: str) -> bytes:
    if v is True or v is False:
        return _word(1 if v else 0)
    if type(v) is int:
        return _word(v)
    if isinstance(v, Address) and not isinstance(v, ContractRef):
        return _word(v.value)
    raise _no_encoding(v, what)


def _dynamic(fr: Frame, v: Any, what: str) -> bytes:
    if isinstance(v, str):
        data = _chars(v)
    elif isinstance(v, bytes):
        data = _raw(v)
    else:
        return _word(len(v)) + _encode(fr, list(v), what)
    _charge(fr, 1, len(data))
    return _word(len(data)) + _pad(data)


def _encode(fr: Frame, values: list[Any], what: str) -> bytes:
    head = bytearray()
    tail = bytearray()
    offset = WORD * len(values)
    _charge(fr, len(values), WORD * len(values))
    for v in values:
        if _is_dynamic(v):
            enc = _dynamic(fr, v, what)
            head += _word(offset + len(tail))
            tail += enc
        else:
            head += _static(v, what)
    return bytes(head + tail)


def abi_encode(fr: Frame, values: list[Any]) -> bytes:
    """``abi.encode(values...)``: head words, then the dynamic values' data."""
    return _encode(fr, values, "abi.encode")


def abi_encode_packed(fr: Frame, values: list[Any]) -> bytes:
    """``abi.encodePacked(values...)``: no padding and no offsets; integers stay 32 bytes."""
    out = bytearray()
    _charge(fr, len(values), 0)
    for v in values:
        if v is True or v is False:
            out.append(1 if v else 0)
        elif type(v) is int:
            out += _word(v)
        elif isinstance(v, str):
            out += _chars(v)
        elif isinstance(v, bytes):
            out += _raw(v)
        elif isinstance(v, Address) and not isinstance(v, ContractRef):
            out += v.value.to_bytes(20, "big")
        elif isinstance(v, list):
            out += abi_encode_packed(fr, list(v))
            continue
        else:
            raise _no_encoding(v, "abi.encodePacked")
        fr.ctx.charge_memory(WORD)
    return bytes(out)


# ======================================================================= decoding


def _int_at(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + WORD], "big") if 0 <= at < len(data) else 0


def _decode(fr: Frame, t: Type, data: bytes, at: int, base: int) -> Any:
    """The value of type ``t`` whose head word is at ``at``; offsets count from ``base``."""
    if isinstance(t, IntType):
        raw = _int_at(data, at)
        return raw - MOD if t.signed and raw >= MOD >> 1 else raw
    if isinstance(t, BoolType):
        return _int_at(data, at) != 0
    if isinstance(t, AddressType):
        return Address(_int_at(data, at) % (1 << 160))
    if isinstance(t, BytesType) and t.size is not None:
        return bytes(data[at : at + t.size])
    start = base + _int_at(data, at)
    n = _int_at(data, start)
    body = start + WORD
    if isinstance(t, ArrayType):
        fr.ctx.charge_memory(n)  # a length word cannot allocate more than the budget
        _charge(fr, n, 0)
        return ArrayValue(t, [_decode(fr, t.elem, data, body + WORD * i, body) for i in range(n)])
    chunk = bytes(data[body : body + n])
    fr.ctx.charge_memory(len(chunk))
    return chunk.decode("latin-1") if isinstance(t, StringType) else chunk


def abi_decode(fr: Frame, data: Any, kinds: list[Type]) -> Any:
    """``abi.decode(data, (T1, T2, ...))``: one value, or a tuple for several types. Reads past
    the end of ``data`` give zeros, as on the platform."""
    if not isinstance(data, bytes):
        raise ExecutionError(
            f"invalid arguments: abi.decode expects bytes, got {describe(data)}",
            "invalid arguments",
        )
    raw = _raw(data)
    values = [_decode(fr, t, raw, WORD * i, 0) for i, t in enumerate(kinds)]
    return values[0] if len(values) == 1 else tuple(values)
