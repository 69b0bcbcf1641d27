"""Lossless JSON form of contract storage, for the node's database.

Unlike the API encoding (which flattens everything to strings), this keeps enough to rebuild the
exact runtime values: accounts keep their chain, mapping keys keep their type, bytes stay hex.
"""

from __future__ import annotations

from typing import Any

from .decimals import parse_decimal
from .types import (
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
from .values import (
    Address,
    ArrayValue,
    ContractRef,
    Digest,
    MappingValue,
    StructValue,
    TextBytes,
    default_value,
)


def dump_value(v: Any, t: Type) -> Any:
    if isinstance(t, IntType | EnumType | BoolType | StringType):
        return v
    if isinstance(t, BytesType):
        if type(v) is TextBytes:  # text in a bytes slot stays text (see values.TextBytes)
            return {"text": v.decode("utf-8")}
        if type(v) is Digest:  # a SolidVM hash stays one: hex text where text is wanted
            return {"digest": v.hex()}
        return v.hex()
    if isinstance(t, DecimalType):
        return str(v)  # "1.50": the text keeps the places
    if isinstance(t, AddressType | AccountType | ContractType):
        return v.account_text() if isinstance(v, Address) else format(int(v), "040x")
    if isinstance(t, ArrayType):
        items = [dump_value(x, t.elem) for x in v]
        beyond = getattr(v, "beyond", None)
        if beyond:  # elements stored past the end (SolidVM keeps them)
            stored = [[i, dump_value(x, t.elem)] for i, x in beyond.items()]
            return {"items": items, "beyond": stored}
        return items
    if isinstance(t, StructType):
        return {n: dump_value(v[n], ft) for n, ft in t.fields}
    if isinstance(t, MappingType):
        return [[dump_value(k, t.key), dump_value(x, t.value)] for k, x in v.items()]
    return v


def _address(text: str, t: Type) -> Address:
    addr, _, chain = text.partition(":")
    value = int(addr, 16)
    if isinstance(t, ContractType):
        return ContractRef(t.name, value, chain or None)
    return Address(value, chain or None)


def load_value(j: Any, t: Type) -> Any:
    if isinstance(t, IntType | EnumType):
        return int(j)
    if isinstance(t, BoolType):
        return bool(j)
    if isinstance(t, StringType):
        return str(j)
    if isinstance(t, BytesType):
        if isinstance(j, dict):
            if "digest" in j:
                return Digest(bytes.fromhex(str(j["digest"])))
            return TextBytes(str(j["text"]).encode("utf-8"))
        return bytes.fromhex(j)
    if isinstance(t, DecimalType):
        return parse_decimal(str(j))
    if isinstance(t, AddressType | AccountType | ContractType):
        return _address(j, t)
    if isinstance(t, ArrayType):
        if isinstance(j, dict):
            a = ArrayValue(t, [load_value(x, t.elem) for x in j["items"]])
            a.beyond = {int(i): load_value(x, t.elem) for i, x in j["beyond"]} or None
            return a
        return ArrayValue(t, [load_value(x, t.elem) for x in j])
    if isinstance(t, StructType):
        return StructValue(
            t, {n: load_value(j[n], ft) if n in j else default_value(ft) for n, ft in t.fields}
        )
    if isinstance(t, MappingType):
        return MappingValue(t, {load_value(k, t.key): load_value(x, t.value) for k, x in j})
    return j
