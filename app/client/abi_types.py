"""Declared argument types from the xabi, and the values the composer edits for them (no Qt).

``AbiType.from_xabi`` reads the ``tag`` descriptors the node returns (``Int``, ``Bool``,
``Address``, ``Account``, ``String``, ``Bytes``, ``Decimal``, ``Enum``, ``Array``, ``Struct``,
``Mapping``, ``Contract``, ``UserDefined``, ``Variadic``), resolving struct and enum type
definitions from the contract's ``types``.

Editor values are plain Python: ints, bools, strings (addresses, hex bytes and decimals as text),
lists for arrays, dicts for structs, lists of ``(key, value)`` pairs for mappings (so a row being
typed can hold a duplicate key until it is fixed), and lists of JSON values for ``variadic``
(fractions as ``decimal.Decimal``, never float; an item that does not parse is an ``Unparsed``).
A user-defined value type (``type Price is uint;``) holds the value of its actual type.
``to_wire`` renders the JSON the platform expects (mapping string keys wrapped in single quotes,
as the seed says; decimals as their exact text); ``from_wire`` reads it back; ``problems`` lists
what is wrong, per field path, before anything is sent.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

HEX_RE = re.compile(r"^(0x)?[0-9a-fA-F]*$")
ADDRESS_RE = re.compile(r"^(0x)?[0-9a-fA-F]{1,40}$")
MAX_INT_BITS = 8192  # the node refuses bigger integers
MAX_DECIMAL_DIGITS = 2467  # about MAX_INT_BITS in decimal digits
MAX_DECIMAL_PLACES = 255  # the platform's Data.Decimal keeps the places in a Word8
MAX_JSON_DEPTH = 32
# the platform reads ``-12.5``, ``+3``, ``1.5e3``; Solidity literals also allow ``.5`` and ``5.``
DECIMAL_RE = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]{1,6}))?")


def _address_wire(v: Any) -> str:
    """40 hex digits: the node refuses a bare short form ("1e3" would read as 0x1e3)."""
    s = str(v).strip().lower()
    return (s[2:] if s.startswith("0x") else s).rjust(40, "0")


class AbiTypeError(ValueError):
    """A value that does not fit its declared type; ``path`` names the field."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


@dataclass(frozen=True)
class Unparsed:
    """A variadic item whose text is not a value yet (kept so the editor can say why)."""

    text: str
    reason: str


@dataclass(frozen=True, repr=False)
class AbiType:
    kind: str  # int bool address account contract string bytes decimal enum array struct
    # mapping udvt variadic
    name: str = ""  # struct/enum/contract name, a user-defined value type's alias
    signed: bool = False
    bits: int = 256  # ints
    size: int | None = None  # bytesN (None: dynamic bytes)
    length: int | None = None  # fixed arrays
    entry: AbiType | None = None  # array element
    key: AbiType | None = None  # mapping key
    value: AbiType | None = None  # mapping value
    fields: tuple[tuple[str, AbiType], ...] = ()
    names: tuple[str, ...] = ()  # enum values
    actual: AbiType | None = None  # the type a user-defined value type wraps
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    # ------------------------------------------------------------ reading the xabi

    @classmethod
    def from_xabi(cls, d: Any, types: dict[str, Any] | None = None, depth: int = 0) -> AbiType:
        if depth > 32 or not isinstance(d, dict):
            return cls("string")  # unknown shapes are edited as text
        types = types or {}
        if "tag" not in d and isinstance(d.get("type"), dict):
            # SolidVM's own IndexedType JSON nests the type: {"index": 0, "type": {...}}
            return cls.from_xabi(d["type"], types, depth + 1)
        tag = str(d.get("tag", ""))
        if tag == "Int":
            nbytes = d.get("bytes")
            return cls("int", signed=bool(d.get("signed")), bits=8 * int(nbytes or 32))
        if tag == "Bool":
            return cls("bool")
        if tag == "Address":
            return cls("address")
        if tag == "Account":
            return cls("account")
        if tag == "Contract":
            return cls("contract", name=str(d.get("typedef") or d.get("name") or ""))
        if tag == "String":
            return cls("string")
        if tag == "Bytes":
            dynamic = d.get("dynamic") or d.get("bytes") is None
            return cls("bytes", size=None if dynamic else int(d["bytes"]))
        if tag == "Decimal":
            return cls("decimal")
        if tag == "Variadic":
            return cls("variadic")
        if tag == "UserDefined":
            actual = cls.from_xabi(d.get("actual"), types, depth + 1)
            return cls("udvt", name=str(d.get("alias") or ""), actual=actual)
        if tag == "Enum":
            name = str(d.get("typedef") or "")
            names = d.get("names") or (types.get(name) or {}).get("names") or []
            return cls("enum", name=name, names=tuple(str(n) for n in names))
        if tag == "Array":
            entry = cls.from_xabi(d.get("entry"), types, depth + 1)
            length = d.get("length")
            return cls("array", entry=entry, length=int(length) if length is not None else None)
        if tag == "Mapping":
            return cls(
                "mapping",
                key=cls.from_xabi(d.get("key"), types, depth + 1),
                value=cls.from_xabi(d.get("value"), types, depth + 1),
            )
        if tag == "Struct":
            name = str(d.get("typedef") or "")
            spec = d if d.get("fields") else (types.get(name) or {})
            fields = tuple(
                (str(f[0]), cls.from_xabi(f[1], types, depth + 1))
                for f in spec.get("fields") or []
                if isinstance(f, (list, tuple)) and len(f) == 2
            )
            return cls("struct", name=name, fields=fields)
        if not tag and isinstance(types.get(str(d.get("typedef"))), dict):
            return cls.from_xabi({**types[str(d["typedef"])], "typedef": d["typedef"]}, types)
        return cls("string", extra={"unknown": tag})

    # ------------------------------------------------------------ describing

    def __repr__(self) -> str:
        return f"AbiType({self.describe()})"

    def describe(self) -> str:
        """The Solidity spelling: ``uint256``, ``bytes32``, ``Color``, ``uint256[2][]`` ..."""
        k = self.kind
        if k == "int":
            return f"{'int' if self.signed else 'uint'}{self.bits}"
        if k == "bytes":
            return f"bytes{self.size}" if self.size is not None else "bytes"
        if k in ("enum", "struct", "contract"):
            return self.name or k
        if k == "udvt":
            assert self.actual is not None
            return self.name or self.actual.describe()
        if k == "array":
            assert self.entry is not None
            return f"{self.entry.describe()}[{'' if self.length is None else self.length}]"
        if k == "mapping":
            assert self.key is not None and self.value is not None
            return f"mapping({self.key.describe()} => {self.value.describe()})"
        return k

    @property
    def is_composite(self) -> bool:
        return self.unwrapped.kind in ("array", "struct", "mapping", "variadic")

    @property
    def unwrapped(self) -> AbiType:
        """The type itself, or the actual type behind user-defined value types."""
        t = self
        while t.kind == "udvt" and t.actual is not None:
            t = t.actual
        return t

    def default(self) -> Any:
        """The value a fresh editor starts from."""
        k = self.kind
        if k == "int":
            return 0
        if k == "bool":
            return False
        if k == "enum":
            return self.names[0] if self.names else ""
        if k == "array":
            assert self.entry is not None
            return [self.entry.default() for _ in range(self.length or 0)]
        if k == "struct":
            return {n: t.default() for n, t in self.fields}
        if k in ("mapping", "variadic"):
            return []
        if k == "decimal":
            return "0"
        if k == "udvt":
            assert self.actual is not None
            return self.actual.default()
        return ""

    # ------------------------------------------------------------ checking

    def int_range(self, vm: str) -> tuple[int | None, int | None]:
        """Smallest and largest value (None: unbounded, as SolidVM integers are)."""
        low = None if self.signed else 0
        if vm != "EVM":
            return low, None
        if self.signed:
            return -(2 ** (self.bits - 1)), 2 ** (self.bits - 1) - 1
        return 0, 2**self.bits - 1

    def problems(self, value: Any, vm: str = "SolidVM", path: str = "") -> list[AbiTypeError]:
        """Everything wrong with ``value`` (empty when it can be sent)."""
        out: list[AbiTypeError] = []
        self._check(value, vm, path, out)
        return out

    def _check(self, v: Any, vm: str, path: str, out: list[AbiTypeError]) -> None:
        k = self.kind
        bad = out.append
        if k == "int":
            n = parse_int(v)
            if n is None:
                bad(AbiTypeError(path, f"{self.describe()} needs a whole number"))
                return
            low, high = self.int_range(vm)
            if low is not None and n < low:
                bad(AbiTypeError(path, f"{self.describe()} cannot be below {low}"))
            elif high is not None and n > high:
                bad(AbiTypeError(path, f"{self.describe()} cannot exceed {high} under EVM"))
            elif n.bit_length() > MAX_INT_BITS:
                bad(AbiTypeError(path, "too large"))
        elif k == "bool":
            if not isinstance(v, bool):
                bad(AbiTypeError(path, "bool needs true or false"))
        elif k in ("address", "contract"):
            if not isinstance(v, str) or not ADDRESS_RE.match(v.strip()):
                bad(AbiTypeError(path, "an address is up to 40 hex digits"))
        elif k == "account":
            addr, _, chain = v.partition(":") if isinstance(v, str) else ("", "", "")
            if not ADDRESS_RE.match(addr.strip()):
                bad(AbiTypeError(path, "an account is an address with an optional :chainId"))
            elif chain and chain != "main" and not re.fullmatch(r"(0x)?[0-9a-fA-F]{1,64}", chain):
                bad(AbiTypeError(path, "the chain after ':' is 'main' or a 64-hex chain id"))
        elif k == "string":
            if not isinstance(v, str):
                bad(AbiTypeError(path, "text expected"))
        elif k == "bytes":
            if not isinstance(v, str) or not HEX_RE.match(v.strip()):
                bad(AbiTypeError(path, "bytes are written in hex digits"))
                return
            digits = len(v.strip()) - (2 if v.strip()[:2] in ("0x", "0X") else 0)
            if digits % 2:
                bad(AbiTypeError(path, "hex needs an even number of digits"))
            elif self.size is not None and digits != 2 * self.size:
                bad(AbiTypeError(path, f"{self.describe()} needs exactly {2 * self.size} digits"))
        elif k == "decimal":
            try:
                decimal_parts(v)
            except ValueError as exc:
                bad(AbiTypeError(path, str(exc)))
        elif k == "udvt":
            assert self.actual is not None
            self.actual._check(v, vm, path, out)
        elif k == "variadic":
            if not isinstance(v, list):
                bad(AbiTypeError(path, "variadic needs a list of values"))
                return
            for i, x in enumerate(v):
                _json_check(x, f"{path}[{i}]", out, 0)
        elif k == "enum":
            if v not in self.names:
                bad(AbiTypeError(path, f"one of {', '.join(self.names)}"))
        elif k == "array":
            assert self.entry is not None
            if not isinstance(v, list):
                bad(AbiTypeError(path, "a list expected"))
                return
            if self.length is not None and len(v) != self.length:
                bad(AbiTypeError(path, f"{self.describe()} needs exactly {self.length} elements"))
            for i, x in enumerate(v):
                self.entry._check(x, vm, f"{path}[{i}]", out)
        elif k == "struct":
            if not isinstance(v, dict):
                bad(AbiTypeError(path, f"{self.describe()} needs its members"))
                return
            for member, mtype in self.fields:
                if member not in v:
                    bad(AbiTypeError(f"{path}.{member}", "missing"))
                else:
                    mtype._check(v[member], vm, f"{path}.{member}", out)
        elif k == "mapping":
            assert self.key is not None and self.value is not None
            if not isinstance(v, list):
                bad(AbiTypeError(path, "a list of key/value pairs expected"))
                return
            if self.key.unwrapped.kind in ("address", "account", "contract"):
                bad(AbiTypeError(path, "mapping arguments cannot have address keys (platform)"))
                return
            seen: set[str] = set()
            for i, pair in enumerate(v):
                if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                    bad(AbiTypeError(f"{path}[{i}]", "a key and a value expected"))
                    continue
                key, val = pair
                self.key._check(key, vm, f"{path}[{i}].key", out)
                text = str(key)
                if text in seen:
                    bad(AbiTypeError(f"{path}[{i}].key", f"duplicate key {text!r}"))
                seen.add(text)
                self.value._check(val, vm, f"{path}[{text}]", out)

    # ------------------------------------------------------------ JSON

    def to_wire(self, v: Any) -> Any:
        """The JSON value the platform expects (call only when ``problems`` is empty)."""
        k = self.kind
        if k == "int":
            n = parse_int(v)
            # big numbers as decimal strings: JSON readers elsewhere may use doubles
            return n if n is not None and abs(n) < 2**53 else str(n)
        if k in ("address", "contract"):
            return _address_wire(v)
        if k == "account":
            addr, sep, chain = str(v).partition(":")
            return _address_wire(addr) + sep + chain.strip()
        if k == "array":
            assert self.entry is not None
            return [self.entry.to_wire(x) for x in v]
        if k == "struct":
            return {n: t.to_wire(v[n]) for n, t in self.fields}
        if k == "mapping":
            assert self.key is not None and self.value is not None
            return {self.key_to_wire(key): self.value.to_wire(val) for key, val in v}
        if k == "bytes":
            s = str(v).strip()
            return s[2:].lower() if s[:2] in ("0x", "0X") else s.lower()
        if k == "decimal":
            # as text: exact, where a JSON number would pass through doubles
            return decimal_text(v)
        if k == "udvt":
            assert self.actual is not None
            return self.actual.to_wire(v)
        if k == "variadic":
            return [_json_wire(x) for x in v]
        return v

    def key_to_wire(self, key: Any) -> str:
        assert self.key is not None
        if self.key.unwrapped.kind == "string":
            return f"'{key}'"
        w = self.key.to_wire(key)
        return str(w).lower() if isinstance(w, bool) else str(w)

    def from_wire(self, w: Any, path: str = "") -> Any:
        """The editor value of a JSON value (raises AbiTypeError for a wrong shape)."""
        k = self.kind
        if k == "int":
            n = parse_int(w)
            if n is None:
                raise AbiTypeError(path, f"{self.describe()} needs a whole number, not {w!r}")
            return n
        if k == "bool":
            if isinstance(w, bool):
                return w
            if w in ("true", "false"):
                return w == "true"
            raise AbiTypeError(path, f"bool needs true or false, not {w!r}")
        if k == "decimal":
            try:
                return decimal_text(w)
            except ValueError as exc:
                raise AbiTypeError(path, f"{exc}, not {w!r}") from None
        if k == "udvt":
            assert self.actual is not None
            return self.actual.from_wire(w, path)
        if k == "variadic":
            items = w if isinstance(w, list) else [w]  # one value stands for a list of one
            return [_json_from_wire(x, f"{path}[{i}]", 0) for i, x in enumerate(items)]
        if k == "enum":
            if isinstance(w, int) and not isinstance(w, bool) and 0 <= w < len(self.names):
                return self.names[w]
            s = str(w)
            return s.split(".", 1)[1] if self.name and s.startswith(self.name + ".") else s
        if k == "array":
            assert self.entry is not None
            if not isinstance(w, list):
                raise AbiTypeError(path, f"{self.describe()} needs a JSON array")
            return [self.entry.from_wire(x, f"{path}[{i}]") for i, x in enumerate(w)]
        if k == "struct":
            if not isinstance(w, dict):
                raise AbiTypeError(path, f"{self.describe()} needs a JSON object")
            out = {}
            for member, mtype in self.fields:
                if member not in w:
                    raise AbiTypeError(f"{path}.{member}", "missing")
                out[member] = mtype.from_wire(w[member], f"{path}.{member}")
            unknown = set(w) - {m for m, _ in self.fields}
            if unknown:
                raise AbiTypeError(path, f"no member named {sorted(unknown)[0]!r}")
            return out
        if k == "mapping":
            assert self.key is not None and self.value is not None
            if not isinstance(w, dict):
                raise AbiTypeError(path, f"{self.describe()} needs a JSON object")
            pairs = []
            for raw, val in w.items():
                key: Any
                if self.key.unwrapped.kind == "string":
                    if not (len(raw) >= 2 and raw[0] == "'" and raw[-1] == "'"):
                        raise AbiTypeError(
                            f"{path}[{raw}]", "string keys are wrapped in single quotes"
                        )
                    key = raw[1:-1]
                else:
                    key = self.key.from_wire(raw, f"{path}[{raw}]")
                pairs.append((key, self.value.from_wire(val, f"{path}[{raw}]")))
            return pairs
        if k in ("string", "address", "account", "contract", "bytes"):
            if isinstance(w, bool) or not isinstance(w, (str, int, float, Decimal)):
                raise AbiTypeError(path, f"{self.describe()} needs text, not {w!r}")
            return str(w)
        return w


def parse_int(v: Any) -> int | None:
    """An int from an editor or JSON value: numbers, decimal or 0x-hex text, ``1e18``."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v) if v.is_integer() else None
    if isinstance(v, Decimal):  # a JSON number read exactly
        return int(v) if v.is_finite() and v == v.to_integral_value() else None
    if not isinstance(v, str):
        return None
    s = v.strip().replace("_", "").replace(",", "")
    if not s:
        return None
    try:
        if s[:2].lower() == "0x" or s[:3].lower() == "-0x":
            return int(s, 16)
        m = re.fullmatch(r"(-?\d+)(?:[eE]\+?(\d+))?", s)
        if m is None:
            return None
        base = int(m.group(1))
        if m.group(2) and int(m.group(2)) > MAX_DECIMAL_DIGITS:
            return None  # 1e99999999 would take minutes to build, and is far too large anyway
        return base * 10 ** int(m.group(2)) if m.group(2) else base
    except ValueError:
        return None


DECIMAL_HINT = "a decimal is written like 12.5, -0.25 or 1.5e3"


def decimal_parts(v: Any) -> tuple[int, int]:
    """``(mantissa, places)`` of a decimal, as the platform's ``read :: Decimal`` gives them
    (``"12.50"`` -> ``(1250, 2)``, ``"1.5e3"`` -> ``(1500, 0)``); raises ValueError saying why.

    Takes text, ints and exact JSON numbers (``decimal.Decimal``); a float is read from its
    shortest repr (it has already been rounded by whoever made it)."""
    if isinstance(v, bool):
        raise ValueError(DECIMAL_HINT)
    if isinstance(v, int):
        if v.bit_length() > MAX_INT_BITS:
            raise ValueError("too large")
        return v, 0
    if isinstance(v, (float, Decimal)):
        if not (v.is_finite() if isinstance(v, Decimal) else math.isfinite(v)):
            raise ValueError("a decimal must be a finite number")
        v = repr(v) if isinstance(v, float) else str(v)
    if not isinstance(v, str):
        raise ValueError(DECIMAL_HINT)
    m = DECIMAL_RE.fullmatch(v.strip())
    if m is None or not (m.group(2) or m.group(3)):
        raise ValueError(DECIMAL_HINT)
    sign, whole, frac, exp = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    places = len(frac) - (int(exp) if exp else 0)
    digits = (whole + frac).lstrip("0")
    if len(digits) + max(0, -places) > MAX_DECIMAL_DIGITS:
        raise ValueError("too large")
    if places > MAX_DECIMAL_PLACES:
        raise ValueError(f"at most {MAX_DECIMAL_PLACES} decimal places")
    n = int(digits or "0") * 10 ** max(0, -places)
    return (-n if sign == "-" else n), max(places, 0)


def decimal_text(v: Any) -> str:
    """The platform's rendering of a decimal: plain notation keeping its places (``"12.000"``,
    ``"-0.5"``, ``"1500"``); raises ValueError for what is not a decimal."""
    n, places = decimal_parts(v)
    digits = str(abs(n)).rjust(places + 1, "0")
    sign = "-" if n < 0 else ""
    return f"{sign}{digits[: len(digits) - places]}.{digits[-places:]}" if places else sign + digits


def _json_check(v: Any, path: str, out: list[AbiTypeError], depth: int) -> None:
    """Problems of one untyped (variadic) value: anything JSON but null."""
    if depth > MAX_JSON_DEPTH:
        out.append(AbiTypeError(path, "nests too deeply"))
    elif isinstance(v, Unparsed):
        out.append(AbiTypeError(path, v.reason))
    elif v is None:
        out.append(AbiTypeError(path, "null is not a value (the platform refuses null arguments)"))
    elif isinstance(v, (float, Decimal)):
        try:
            decimal_parts(v)
        except ValueError as exc:
            out.append(AbiTypeError(path, str(exc)))
    elif isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > MAX_INT_BITS:
        out.append(AbiTypeError(path, "too large"))
    elif isinstance(v, (list, tuple)):
        for i, x in enumerate(v):
            _json_check(x, f"{path}[{i}]", out, depth + 1)
    elif isinstance(v, dict):
        for key, x in v.items():
            _json_check(x, f"{path}.{key}", out, depth + 1)
    elif not isinstance(v, (bool, int, str)):
        out.append(AbiTypeError(path, f"not a JSON value: {v!r}"))


def _json_wire(v: Any) -> Any:
    """An untyped value as JSON: fractions become their exact decimal text."""
    if isinstance(v, (float, Decimal)):
        return decimal_text(v)
    if isinstance(v, (list, tuple)):
        return [_json_wire(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _json_wire(x) for k, x in v.items()}
    return v


def _json_from_wire(w: Any, path: str, depth: int) -> Any:
    """An untyped JSON value read back (floats from other readers become exact Decimals)."""
    if depth > MAX_JSON_DEPTH:
        raise AbiTypeError(path, "nests too deeply")
    if w is None:
        raise AbiTypeError(path, "null is not a value (the platform refuses null arguments)")
    if isinstance(w, float):
        try:
            return Decimal(decimal_text(w))
        except ValueError as exc:
            raise AbiTypeError(path, str(exc)) from None
    if isinstance(w, list):
        return [_json_from_wire(x, f"{path}[{i}]", depth + 1) for i, x in enumerate(w)]
    if isinstance(w, dict):
        return {str(k): _json_from_wire(x, f"{path}.{k}", depth + 1) for k, x in w.items()}
    if isinstance(w, (bool, int, str, Decimal)):
        return w
    raise AbiTypeError(path, f"not a JSON value: {w!r}")


@dataclass(frozen=True)
class Param:
    name: str
    type: AbiType


@dataclass(frozen=True)
class FunctionSpec:
    """A function (or the constructor) of a contract, as the composer needs it."""

    name: str
    params: tuple[Param, ...]
    returns: tuple[Param, ...]
    mutability: str = ""  # "view", "pure", "payable" or ""
    payable: bool = False

    @property
    def is_view(self) -> bool:
        return self.mutability in ("view", "pure")

    def signature(self) -> str:
        args = ", ".join(f"{p.type.describe()} {p.name}" for p in self.params)
        return f"{self.name}({args})"

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.type.default() for p in self.params}

    def problems(self, values: dict[str, Any], vm: str = "SolidVM") -> list[AbiTypeError]:
        out: list[AbiTypeError] = []
        for p in self.params:
            if p.name not in values:
                out.append(AbiTypeError(p.name, "missing"))
            else:
                out += p.type.problems(values[p.name], vm, p.name)
        return out

    def to_wire(self, values: dict[str, Any]) -> dict[str, Any]:
        return {p.name: p.type.to_wire(values[p.name]) for p in self.params}

    def from_wire(self, args: Any) -> dict[str, Any]:
        if not isinstance(args, dict):
            raise AbiTypeError("", "the arguments are a JSON object of name: value")
        unknown = set(args) - {p.name for p in self.params}
        if unknown:
            raise AbiTypeError(sorted(unknown)[0], "no parameter of that name")
        out = {}
        for p in self.params:
            if p.name not in args:
                raise AbiTypeError(p.name, "missing")
            out[p.name] = p.type.from_wire(args[p.name], p.name)
        return out


def _params(d: Any, types: dict[str, Any]) -> tuple[Param, ...]:
    if not isinstance(d, dict):
        return ()
    items = sorted(
        d.items(), key=lambda kv: kv[1].get("index", 0) if isinstance(kv[1], dict) else 0
    )
    return tuple(Param(str(n), AbiType.from_xabi(t, types)) for n, t in items)


@dataclass(frozen=True)
class ContractSpec:
    name: str
    constructor: FunctionSpec
    functions: tuple[FunctionSpec, ...]
    events: tuple[Param, ...] = ()  # name and, as a struct type, the logged fields

    @classmethod
    def from_xabi(cls, name: str, x: dict[str, Any]) -> ContractSpec:
        types = x.get("types") if isinstance(x.get("types"), dict) else {}
        assert isinstance(types, dict)

        def spec(fname: str, f: Any) -> FunctionSpec:
            f = f if isinstance(f, dict) else {}
            mut = str(f.get("stateMutability") or ("payable" if f.get("payable") else ""))
            return FunctionSpec(
                fname,
                _params(f.get("args"), types),
                _params(f.get("vals"), types),
                mut,
                bool(f.get("payable")),
            )

        funcs = x.get("funcs") if isinstance(x.get("funcs"), dict) else {}
        assert isinstance(funcs, dict)
        events = x.get("events") if isinstance(x.get("events"), dict) else {}
        assert isinstance(events, dict)

        def event(ename: str, e: Any) -> Param:
            logs = e.get("logs") if isinstance(e, dict) else None
            fields = tuple(
                (str(f[0]), AbiType.from_xabi(f[1], types))
                for f in logs or []
                if isinstance(f, (list, tuple)) and len(f) == 2
            )
            return Param(ename, AbiType("struct", name=ename, fields=fields))

        return cls(
            name,
            spec("constructor", x.get("constr")),
            tuple(spec(n, f) for n, f in sorted(funcs.items())),
            tuple(event(n, e) for n, e in sorted(events.items())),
        )

    def function(self, name: str) -> FunctionSpec | None:
        return next((f for f in self.functions if f.name == name), None)
