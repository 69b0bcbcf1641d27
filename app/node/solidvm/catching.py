"""How failures look to ``try``/``catch`` and how a custom error's message reads.

The platform's SolidVM raises one exception constructor per failure kind; SolidVM's block form
``try {...} catch DivideByZero {...}`` names those constructors, Solidity's form maps them to
``catch Error(string)`` (require, assert) or ``catch Panic(uint code)`` (everything else, with a
fixed code per constructor). Budgets and limits of the sandbox itself (steps, memory, call depth)
are never caught: a contract must not be able to outlive them.

A custom error's message prints its values the way the platform does, as a Haskell ``show`` of
its stored values: ``custom user error: Reverting based on  Error Method: E [BInteger 1,BString
"x"]``. Arrays, structs and mappings are left out of that list, as there.
"""

from __future__ import annotations

from typing import Any

from .errors import CustomError, ExecutionError
from .types import BoolType, ContractType, EnumType, Type
from .values import Address, ContractRef, DecimalValue, TextBytes

# `revert E(...)` and `throw E(...)` differ only in the words before the error's name.
REVERT_PREFIX = "Reverting based on  Error Method:"
THROW_PREFIX = "Custom user error thrown"

UNCATCHABLE = frozenset({"out of gas", "time limit", "memory limit", "stack too deep"})
"""Error kinds that abort the transaction even inside ``try``."""

PYTHON_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError)
"""Python exceptions that surface as a SolidVM ``type error`` (as World._run reports them)."""

# error kind -> (the platform's exception name, its code for `catch Panic(uint code)`)
_EXCEPTIONS: dict[str, tuple[str, int]] = {
    "require": ("Require", 0),
    "assert": ("Assert", 0),
    "internal error": ("InternalError", 1),
    "type error": ("TypeError", 2),
    "invalid arguments": ("InvalidArguments", 3),
    "integer overflow": ("ArithmeticException", 4),
    "index out of bounds": ("IndexOutOfBounds", 4),
    "missing field": ("MissingField", 6),
    "missing type": ("MissingType", 7),
    "unknown function": ("UnknownFunction", 10),
    "divide by zero": ("DivideByZero", 12),
    "unknown contract": ("MissingCodeCollection", 13),
    "missing code collection": ("MissingCodeCollection", 13),
    "inaccessible chain": ("InaccessibleChain", 14),
    "invalid write": ("InvalidWrite", 15),
    "malformed data": ("MalformedData", 17),
    "invalid certificate": ("MalformedData", 17),
    "insufficient balance": ("PaymentError", 19),
    "parse error": ("ParseError", 20),
    "revert": ("RevertError", 33),
    "duplicate address": ("DuplicateContract", 35),
    "duplicate contract": ("DuplicateContract", 35),
}
CUSTOM_ERROR_CODE = 34

EXCEPTION_NAMES = frozenset(
    {
        "ArithmeticException",
        "ArityMismatch",
        "Assert",
        "DivideByZero",
        "DuplicateContract",
        "DuplicateDefinition",
        "FailedToAttainRunTimCode",
        "GeneralMetaProgrammingError",
        "ImmutableError",
        "InaccessibleChain",
        "IndexOutOfBounds",
        "InternalError",
        "InvalidArguments",
        "InvalidChain",
        "InvalidWrite",
        "MalformedData",
        "MissingCodeCollection",
        "MissingField",
        "MissingType",
        "ModifierError",
        "OldForeignPragmaError",
        "ParseError",
        "PaymentError",
        "Require",
        "ReservedWordError",
        "RevertError",
        "TODO",  # a real constructor name of the platform's SolidException, not a stub
        "TooManyCooks",
        "TooManyResultsError",
        "TooMuchGas",
        "TypeError",
        "UnknownConstant",
        "UnknownFunction",
        "UnknownStatement",
        "UnknownVariable",
        "UserDefinedError",
    }
)
"""Every exception name SolidVM's ``catch Name {...}`` may use (the platform's constructors)."""


def exception_name(err: ExecutionError) -> str:
    """The name a ``catch Name`` clause of SolidVM's block form matches."""
    if isinstance(err, CustomError):
        return err.name
    return _EXCEPTIONS.get(err.kind, ("InternalError", 1))[0]


def panic_code(err: ExecutionError) -> int:
    """The code ``catch Panic(uint code)`` receives."""
    if isinstance(err, CustomError):
        return CUSTOM_ERROR_CODE
    return _EXCEPTIONS.get(err.kind, ("InternalError", 1))[1]


def error_reason(err: ExecutionError) -> str:
    """What ``catch Error(string reason)`` receives for a failed require or assert."""
    if err.kind == "assert":
        return "Assertion Error"
    return err.reason if err.reason is not None else "Require Error"


# ---------------------------------------------------------------- custom error messages


def custom_error(prefix: str, name: str, values: list[Any], types: list[Type]) -> CustomError:
    shown = (basic_show(v, t) for v, t in zip(values, types, strict=True))
    text = ",".join(s for s in shown if s is not None)
    return CustomError(f"custom user error: {prefix} {name} [{text}]", name, values)


def basic_show(v: Any, t: Type | None) -> str | None:
    """One value as the platform prints it in a custom error; None for values it leaves out."""
    if isinstance(t, EnumType) and type(v) is int:
        label = t.values[v] if 0 <= v < len(t.values) else str(v)
        return f"BEnumVal {hs_string(t.name)} {hs_string(label)} {v}"
    if isinstance(v, bool) or isinstance(t, BoolType):
        return f"BBool {'True' if v else 'False'}"
    if type(v) is int:
        return f"BInteger ({v})" if v < 0 else f"BInteger {v}"
    if isinstance(v, str):
        return f"BString {hs_bytes(v.encode('utf-8'))}"
    if isinstance(v, TextBytes):  # bytes made from text stay a string there
        return f"BString {hs_bytes(v)}"
    if isinstance(v, bytes):
        return f"BBytes {hs_bytes(v)}"
    if isinstance(v, DecimalValue):
        return f"BDecimal {hs_string(str(v))}"
    if isinstance(v, Address):
        if isinstance(t, ContractType):
            return f"BContract {hs_string(t.name)} {v.value:040x}"
        if isinstance(v, ContractRef):
            return f"BContract {hs_string(v.cname)} {v.value:040x}"
        return f"BAddress {v.value:040x}"
    return None  # arrays, structs, mappings, tuples


_ASCII_NAMES = [
    "NUL",
    "SOH",
    "STX",
    "ETX",
    "EOT",
    "ENQ",
    "ACK",
    "BEL",
    "BS",
    "HT",
    "LF",
    "VT",
    "FF",
    "CR",
    "SO",
    "SI",
    "DLE",
    "DC1",
    "DC2",
    "DC3",
    "DC4",
    "NAK",
    "SYN",
    "ETB",
    "CAN",
    "EM",
    "SUB",
    "ESC",
    "FS",
    "GS",
    "RS",
    "US",
]
_SHORT = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}


def hs_string(s: str) -> str:
    """Haskell's ``show`` of a String (code points above 127 as decimal escapes)."""
    return _hs_show([ord(c) for c in s])


def hs_bytes(b: bytes) -> str:
    """Haskell's ``show`` of a ByteString: every byte one character."""
    return _hs_show(list(b))


def _hs_show(codes: list[int]) -> str:
    out = ['"']
    n = len(codes)
    for i, c in enumerate(codes):
        nxt = codes[i + 1] if i + 1 < n else None
        if c == 34:
            out.append('\\"')
        elif c == 92:
            out.append("\\\\")
        elif 32 <= c < 127:
            out.append(chr(c))
        elif c == 127:
            out.append("\\DEL")
        elif c in _SHORT:
            out.append(_SHORT[c])
        elif c < 32:
            out.append("\\" + _ASCII_NAMES[c])
            if c == 14 and nxt == ord("H"):  # "\SO" then "H" would read as "\SOH"
                out.append("\\&")
        else:
            out.append(f"\\{c}")
            if nxt is not None and 48 <= nxt <= 57:  # a digit would extend the escape
                out.append("\\&")
    out.append('"')
    return "".join(out)
