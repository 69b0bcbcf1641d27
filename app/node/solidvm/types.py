"""SolidVM types: what declarations mean, their default values and their xabi description."""

from __future__ import annotations

from typing import Any


class Type:
    """Base of all types. ``complex`` types (struct, array, mapping) are copied on assignment."""

    complex = False
    name = "?"

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Type) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)

    def xabi(self) -> dict[str, Any]:
        raise NotImplementedError(self.name)


class IntType(Type):
    def __init__(self, signed: bool, bits: int = 256) -> None:
        self.signed = signed
        self.bits = bits
        self.name = ("int" if signed else "uint") + str(bits)
        self.modulus = 1 << bits
        self.half = 1 << (bits - 1)

    def wrap(self, v: int) -> int:
        """Fixed-width two's complement wraparound (EVM semantics)."""
        v &= self.modulus - 1
        if self.signed and v >= self.half:
            v -= self.modulus
        return v

    def fits(self, v: int) -> bool:
        if self.signed:
            return -self.half <= v < self.half
        return 0 <= v < self.modulus

    def xabi(self) -> dict[str, Any]:
        return {"tag": "Int", "signed": self.signed, "bytes": self.bits // 8}


class BoolType(Type):
    name = "bool"

    def xabi(self) -> dict[str, Any]:
        return {"tag": "Bool"}


class DecimalType(Type):
    """SolidVM's exact decimal numbers (an integer mantissa and 0..255 decimal places)."""

    name = "decimal"

    def xabi(self) -> dict[str, Any]:
        return {"tag": "Decimal"}


class StringType(Type):
    name = "string"

    def xabi(self) -> dict[str, Any]:
        return {"tag": "String", "dynamic": True}


class BytesType(Type):
    def __init__(self, size: int | None) -> None:
        self.size = size
        self.name = "bytes" if size is None else f"bytes{size}"

    def xabi(self) -> dict[str, Any]:
        if self.size is None:
            return {"tag": "Bytes", "dynamic": True}
        return {"tag": "Bytes", "bytes": self.size}


class AddressType(Type):
    def __init__(self, payable: bool = False) -> None:
        self.payable = payable
        self.name = "address"

    def xabi(self) -> dict[str, Any]:
        return {"tag": "Address"}


class AccountType(Type):
    name = "account"

    def xabi(self) -> dict[str, Any]:
        return {"tag": "Account"}


class EnumType(Type):
    def __init__(self, name: str, values: list[str]) -> None:
        self.name = name
        self.values = values
        self.index = {v: i for i, v in enumerate(values)}

    def xabi(self) -> dict[str, Any]:
        return {"tag": "Enum", "typedef": self.name, "names": list(self.values), "bytes": 1}


class StructType(Type):
    complex = True

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: list[tuple[str, Type]] = []  # filled after all types are declared
        self.field_types: dict[str, Type] = {}

    def set_fields(self, fields: list[tuple[str, Type]]) -> None:
        self.fields = fields
        self.field_types = dict(fields)

    def xabi(self) -> dict[str, Any]:
        return {"tag": "Struct", "typedef": self.name}


class ArrayType(Type):
    complex = True

    def __init__(self, elem: Type, length: int | None) -> None:
        self.elem = elem
        self.length = length
        self.name = f"{elem.name}[{'' if length is None else length}]"

    def xabi(self) -> dict[str, Any]:
        d: dict[str, Any] = {"tag": "Array", "entry": self.elem.xabi()}
        if self.length is not None:
            d["length"] = self.length
        else:
            d["dynamic"] = True
        return d


class MappingType(Type):
    complex = True

    def __init__(self, key: Type, value: Type) -> None:
        self.key = key
        self.value = value
        self.name = f"mapping({key.name} => {value.name})"

    def xabi(self) -> dict[str, Any]:
        return {
            "tag": "Mapping",
            "dynamic": True,
            "key": self.key.xabi(),
            "value": self.value.xabi(),
        }


class ContractType(Type):
    def __init__(self, name: str) -> None:
        self.name = name

    def xabi(self) -> dict[str, Any]:
        return {"tag": "Contract", "typedef": self.name}


class VariadicType(Type):
    """SolidVM's ``variadic``: any number of values of any types, checked only at run time."""

    complex = True
    name = "variadic"

    def xabi(self) -> dict[str, Any]:
        return {"tag": "Variadic"}


class UserDefinedType(Type):
    """A user-defined value type (``type Price is uint256;``).

    Instances are made by :func:`user_defined` and also belong to their underlying type's class,
    so every runtime and JSON rule (coercion, defaults, encoding, storage, Cirrus columns) treats
    a value as the underlying one; only the compiler's type checks look at this class.
    """

    actual: Type

    def xabi(self) -> dict[str, Any]:
        return {"tag": "UserDefined", "alias": self.name, "actual": self.actual.xabi()}


_UD_CLASSES: dict[type, type] = {}


def user_defined(alias: str, actual: Type) -> UserDefinedType:
    """The user-defined value type ``alias`` over the elementary type ``actual``."""
    base = type(actual)
    cls = _UD_CLASSES.get(base)
    if cls is None:
        cls = type(f"UserDefined{base.__name__}", (UserDefinedType, base), {})
        _UD_CLASSES[base] = cls
    t: UserDefinedType = object.__new__(cls)
    t.__dict__.update(actual.__dict__)
    t.name = alias
    t.actual = actual
    return t


class TupleType(Type):
    def __init__(self, items: list[Type | None]) -> None:
        self.items = items
        self.name = "(" + ",".join(t.name if t else "?" for t in items) + ")"


UINT = IntType(False)
BYTE_VALUE = IntType(False, 8)  # an element of a SolidVM bytestring: its integer value
LITERAL = IntType(False, 256)  # the type of an integer literal; adopts the other operand's type
INT = IntType(True)
BOOL = BoolType()
DECIMAL = DecimalType()
STRING = StringType()
BYTES = BytesType(None)
BYTES32 = BytesType(32)
ADDRESS = AddressType()
ACCOUNT = AccountType()
VARIADIC = VariadicType()


def elementary(name: str, payable: bool = False) -> Type:
    """The type for an elementary type keyword (``uint8``, ``bytes32``, ``account`` ...)."""
    if name in ("uint", "int"):
        return UINT if name == "uint" else INT
    if name.startswith("uint"):
        return IntType(False, int(name[4:]))
    if name.startswith("int"):
        return IntType(True, int(name[3:]))
    if name == "bool":
        return BOOL
    if name == "decimal":
        return DECIMAL
    if name == "string":
        return STRING
    if name == "bytes":
        return BYTES
    if name == "byte":
        return BytesType(1)
    if name.startswith("bytes"):
        return BytesType(int(name[5:]))
    if name == "address":
        return AddressType(payable)
    if name == "account":
        return ACCOUNT
    raise ValueError(name)


def is_value_type(t: Type) -> bool:
    return not t.complex


def abi_name(t: Type) -> str:
    """Canonical type name used in function signatures."""
    if isinstance(t, UserDefinedType):
        return abi_name(t.actual)
    if isinstance(t, ArrayType):
        return f"{abi_name(t.elem)}[{'' if t.length is None else t.length}]"
    if isinstance(t, EnumType):
        return "uint8"
    if isinstance(t, ContractType):
        return "address"
    if isinstance(t, StructType):
        return "(" + ",".join(abi_name(ft) for _, ft in t.fields) + ")"
    return t.name
