"""Runtime values of SolidVM.

Value types are plain Python objects (``int``, ``bool``, ``str``, ``bytes``) or :class:`Address`.
Complex values are mutable containers that remember their type, so that defaults for missing keys
and deep copies are cheap and need no side tables.
"""

from __future__ import annotations

from typing import Any

from .address import Address, ContractRef
from .errors import ExecutionError
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
    VariadicType,
)

# Address and ContractRef live in address.py (compiled by mypyc); the values' home re-exports
# them, which mypy's strict mode wants said. Everything defined here is exported as usual.
__all__ = ["Address", "ContractRef"]

MAIN = "main"


class DecimalValue:
    """A ``decimal``: the value ``m / 10**p`` that remembers its places ``p`` (0..255).

    Like the platform's Data.Decimal, equal values with different places compare equal (1.5 ==
    1.50) but print differently ("1.50"). Immutable; the arithmetic lives in ``decimals.py``.
    """

    __slots__ = ("m", "p")

    def __init__(self, m: int, p: int = 0) -> None:
        self.m = m
        self.p = p

    def _scaled(self, other: DecimalValue) -> tuple[int, int]:
        d = self.p - other.p
        if d >= 0:
            return self.m, other.m * 10**d
        return self.m * 10**-d, other.m

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DecimalValue):
            return NotImplemented
        a, b = self._scaled(other)
        return a == b

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        m, p = self.m, self.p
        while p and m % 10 == 0:
            m //= 10
            p -= 1
        return hash((m, p)) if p else hash(m)

    def _cmp(self, other: object) -> int:
        if not isinstance(other, DecimalValue):
            raise ExecutionError(
                "type error: a decimal can only be compared with a decimal; "
                "convert the other side with decimal(...)",
                "type error",
            )
        a, b = self._scaled(other)
        return (a > b) - (a < b)

    def __lt__(self, other: object) -> bool:
        return self._cmp(other) < 0

    def __le__(self, other: object) -> bool:
        return self._cmp(other) <= 0

    def __gt__(self, other: object) -> bool:
        return self._cmp(other) > 0

    def __ge__(self, other: object) -> bool:
        return self._cmp(other) >= 0

    def __str__(self) -> str:
        """Data.Decimal's ``show``: plain notation with exactly ``p`` digits after the point."""
        m, p = self.m, self.p
        if p == 0:
            return str(m)
        digits = str(abs(m)).rjust(p + 1, "0")
        return ("-" if m < 0 else "") + digits[:-p] + "." + digits[-p:]

    def __repr__(self) -> str:
        return f"DecimalValue({self})"


class StructValue(dict[str, Any]):
    __slots__ = ("stype",)

    def __init__(self, stype: StructType, *args: Any) -> None:
        super().__init__(*args)
        self.stype = stype


class ArrayValue(list[Any]):
    """An array. ``beyond`` holds storage elements written past the end: SolidVM stores
    ``arr[i] = v`` at any index without changing ``arr.length``, and reads them back."""

    __slots__ = ("atype", "beyond")

    def __init__(self, atype: ArrayType, *args: Any) -> None:
        super().__init__(*args)
        self.atype = atype
        self.beyond: dict[int, Any] | None = None


class MappingValue(dict[Any, Any]):
    __slots__ = ("mtype",)

    def __init__(self, mtype: MappingType, *args: Any) -> None:
        super().__init__(*args)
        self.mtype = mtype


class TextBytes(bytes):
    """A ``bytes``/``bytesN`` value made from text (``bytes32 b = "hello"``). SolidVM keeps such
    values as strings, so the API shows them as text; raw bytes (casts, hashes, ``hex""``)
    show as hex."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"TextBytes({bytes(self)!r})"


class Digest(bytes):
    """A hash of anything but one ``bytes`` value (``keccak256(a, b)``, ``sha256(s)`` of a
    string). SolidVM returns those as hex text typed ``bytes32``: the bytes serve as bytes, and
    where text is wanted (``string h = keccak256(a, b)``, ``string(h)``, ``"0x" + h``, a salt)
    they read as that hex."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Digest({self.hex()})"


class VariadicValue(tuple[Any, ...]):
    """A ``variadic`` value: an immutable sequence of values of any types."""

    __slots__ = ()


ZERO_ADDRESS = Address(0)
DECIMAL_ZERO = DecimalValue(0, 0)


def default_value(t: Type) -> Any:
    """The zero value of a type (what an unset storage slot or local holds)."""
    if isinstance(t, IntType | EnumType):
        return 0
    if isinstance(t, BoolType):
        return False
    if isinstance(t, DecimalType):
        return DECIMAL_ZERO
    if isinstance(t, StringType):
        return ""
    if isinstance(t, BytesType):
        return b"" if t.size is None else bytes(t.size)
    if isinstance(t, AccountType):
        return Address(0, None)
    if isinstance(t, AddressType):
        return ZERO_ADDRESS
    if isinstance(t, ContractType):
        return ContractRef(t.name, 0)
    if isinstance(t, StructType):
        return StructValue(t, {n: default_value(ft) for n, ft in t.fields})
    if isinstance(t, ArrayType):
        if t.length is None:
            return ArrayValue(t)
        return ArrayValue(t, [default_value(t.elem) for _ in range(t.length)])
    if isinstance(t, MappingType):
        return MappingValue(t)
    if isinstance(t, VariadicType):
        return VariadicValue()
    return None


def copy_value(v: Any) -> Any:
    """Deep copy of complex values; value types are immutable and returned as they are."""
    cls = type(v)
    if cls is StructValue:
        return StructValue(v.stype, {k: copy_value(x) for k, x in v.items()})
    if cls is ArrayValue:
        if v and type(v[0]) in (int, str, bool, bytes):
            return ArrayValue(v.atype, v)
        return ArrayValue(v.atype, [copy_value(x) for x in v])
    if cls is MappingValue:
        return MappingValue(v.mtype, {k: copy_value(x) for k, x in v.items()})
    return v


def is_default(v: Any) -> bool:
    """True when ``v`` equals the zero value of its type (used to prune exports)."""
    cls = type(v)
    if cls is StructValue:
        return all(is_default(x) for x in v.values())
    if cls is ArrayValue:
        return len(v) == 0 if v.atype.length is None else all(is_default(x) for x in v)
    if cls is MappingValue:
        return all(is_default(x) for x in v.values())
    if cls is VariadicValue:
        return len(v) == 0
    if cls is bool:
        return v is False
    if cls is int:
        return bool(v == 0)
    if cls is str:
        return bool(v == "")
    if cls is bytes or cls is TextBytes or cls is Digest:
        return not any(v)
    if isinstance(v, Address):
        return v.value == 0
    if cls is DecimalValue:
        return bool(v.m == 0)
    return v is None
