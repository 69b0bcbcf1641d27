"""The JSON boundary of SolidVM: argument decoding, result/state encoding and the xabi.

Arguments follow the platform's rules (matched by parameter name; ints as numbers or decimal
strings; mappings as objects with single-quoted string keys). Results follow the seed: every
scalar is a string.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from .decimals import from_float, parse_decimal
from .errors import ArgumentError
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
from .values import (
    Address,
    ArrayValue,
    ContractRef,
    DecimalValue,
    MappingValue,
    StructValue,
    TextBytes,
    VariadicValue,
    is_default,
)

if TYPE_CHECKING:
    from .defs import CompiledFunction, ContractDef

MAX_ARG_DEPTH = 32


# ======================================================================= decoding


def _bad(pname: str, t: Type, got: Any, why: str = "") -> ArgumentError:
    shown = repr(got)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    extra = f" ({why})" if why else ""
    return ArgumentError(
        f"type error: argument '{pname}' expects {t.name}, got {shown}{extra}", "type error"
    )


# An address argument: 40 hex digits, or 0x and 1-40 hex digits. The platform also reads a bare
# short form as hex ("10" is 0x10, "1e3" is 0x1e3), which silently sends to another account than
# a client meaning a number expects; the sandbox asks for the 0x there. No sign, space or "_".
_ADDRESS_ARG = re.compile(r"(?:0[xX]([0-9a-fA-F]{1,40})|([0-9a-fA-F]{40}))\Z")
_ADDRESS_RULE = "expected 40 hex digits, or 0x and up to 40 hex digits"
# A chain ID after "address:": hex digits, 0x optional (64 at most)
_CHAIN_ARG = re.compile(r"(?:0[xX])?([0-9a-fA-F]{1,64})\Z")
# An integer given as a string, as the platform's reader takes it: optional surrounding
# whitespace, an optional "-", decimal digits or 0x and hex digits; no "+", no "_", no exponent.
_INT_ARG = re.compile(r"\s*(-?)(?:0[xX]([0-9a-fA-F]+)|([0-9]+))\s*\Z")


def _hex_int(s: str) -> int | None:
    """The address an address argument names (None when it is not one, see _ADDRESS_ARG)."""
    m = _ADDRESS_ARG.match(s)
    return None if m is None else int(m.group(1) or m.group(2), 16)


def _int_arg(s: str) -> int | None:
    m = _INT_ARG.match(s) if len(s) < 20_000 else None
    if m is None:
        return None
    sign, hexa, dec = m.groups()
    try:
        n = int(hexa, 16) if hexa is not None else int(dec, 10)
    except ValueError:  # more decimal digits than Python converts (sys.get_int_max_str_digits)
        return None
    return -n if sign else n


def decode_value(v: Any, t: Type, pname: str, vm: str = "SolidVM", depth: int = 0) -> Any:
    """Convert one JSON value into a runtime value of type ``t``."""
    if depth > MAX_ARG_DEPTH:
        raise _bad(pname, t, "...", "nested too deeply")
    if isinstance(t, IntType):
        if isinstance(v, bool):
            raise _bad(pname, t, v)
        if isinstance(v, int):
            n = v
        elif isinstance(v, float) and v.is_integer():
            n = int(v)
        elif isinstance(v, str):
            parsed = _int_arg(v)  # ASCII digits only: int() reads other scripts' ("٣" is 3)
            if parsed is None:
                raise _bad(pname, t, v, "not an integer") from None
            n = parsed
        else:
            raise _bad(pname, t, v)
        if vm == "EVM" and not t.fits(n):
            raise _bad(pname, t, v, f"out of range for {t.name}")
        if n < 0 and not t.signed:
            raise _bad(pname, t, v, "an unsigned integer cannot be negative")
        if n.bit_length() > 8192:
            raise _bad(pname, t, "...", "integer too large")
        return n
    if isinstance(t, DecimalType):
        return _decode_decimal(v, t, pname)
    if isinstance(t, BoolType):
        if isinstance(v, bool):
            return v
        if v in ("true", "false"):
            return v == "true"
        raise _bad(pname, t, v)
    if isinstance(t, StringType):
        if isinstance(v, str):
            return v
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return str(v)
        raise _bad(pname, t, v)
    if isinstance(t, AddressType | ContractType):
        if isinstance(v, str):
            a = _hex_int(v)
            if a is not None:
                if isinstance(t, ContractType):
                    return ContractRef(t.name, a)
                return Address(a)
        raise _bad(pname, t, v, _ADDRESS_RULE)
    if isinstance(t, AccountType):
        if isinstance(v, str):
            addr, _, chain = v.partition(":")
            a = _hex_int(addr)
            if a is not None:
                if not chain:
                    return Address(a)
                if chain == "main":
                    return Address(a, "main")
                m = _CHAIN_ARG.match(chain)
                if m is None:
                    raise _bad(pname, t, v, "bad chain id: expected up to 64 hex digits")
                c = int(m.group(1), 16)
                return Address(a, "main" if c == 0 else format(c, "064x"))
        raise _bad(pname, t, v, f"expected an address ({_ADDRESS_RULE}) with an optional :chainId")
    if isinstance(t, BytesType):
        if isinstance(v, str):
            h = v[2:] if v[:2] in ("0x", "0X") else v
            try:
                b = bytes.fromhex(h)
            except ValueError:
                raise _bad(pname, t, v, "expected hex") from None
            if t.size is not None and len(b) != t.size:
                raise _bad(pname, t, v, f"needs exactly {2 * t.size} hex digits")
            return b
        raise _bad(pname, t, v)
    if isinstance(t, EnumType):
        if isinstance(v, str):
            name = v.split(".", 1)[1] if v.startswith(t.name + ".") else v
            if name in t.index:
                return t.index[name]
            if name.isascii() and name.isdigit():
                v = int(name)
        if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(t.values):
            return v
        raise _bad(pname, t, v, "one of " + ", ".join(t.values))
    if isinstance(t, ArrayType):
        if not isinstance(v, list):
            raise _bad(pname, t, v, "expected a JSON array")
        if t.length is not None and len(v) != t.length:
            raise _bad(pname, t, f"array of {len(v)} elements", f"needs exactly {t.length}")
        if len(v) > 100_000:
            raise _bad(pname, t, "...", "array too long")
        return ArrayValue(
            t, [decode_value(x, t.elem, f"{pname}[{i}]", vm, depth + 1) for i, x in enumerate(v)]
        )
    if isinstance(t, StructType):
        if not isinstance(v, dict):
            raise _bad(pname, t, v, "expected a JSON object")
        missing = [n for n, _ in t.fields if n not in v]
        if missing:
            raise _bad(pname, t, v, "missing member " + ", ".join(missing))
        return StructValue(
            t, {n: decode_value(v[n], ft, f"{pname}.{n}", vm, depth + 1) for n, ft in t.fields}
        )
    if isinstance(t, VariadicType):
        items = v if isinstance(v, list) else [v]
        if len(items) > 100_000:
            raise _bad(pname, t, "...", "too many values")
        return VariadicValue(
            infer_value(x, f"{pname}[{i}]", depth + 1) for i, x in enumerate(items)
        )
    if isinstance(t, MappingType):
        if not isinstance(v, dict):
            raise _bad(pname, t, v, "expected a JSON object")
        out = MappingValue(t)
        for k, x in v.items():
            out[_decode_key(k, t.key, pname, vm)] = decode_value(
                x, t.value, f"{pname}[{k}]", vm, depth + 1
            )
        return out
    raise _bad(pname, t, v, "unsupported parameter type")


def infer_value(v: Any, pname: str, depth: int = 0) -> Any:
    """One value of a variadic argument: its type comes from the JSON, as the platform infers
    it (``argValueToType``): numbers are integers; a string is an address when it is at most 40
    hex digits (``0x`` optional), an integer when it is decimal digits, JSON when it starts with
    ``[``, and text otherwise (a JSON string inside the string, ``"\"cafe\""``, is always text).
    """
    if depth > MAX_ARG_DEPTH:
        raise _bad(pname, VariadicType(), "...", "nested too deeply")
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        if v.bit_length() > 8192:
            raise _bad(pname, VariadicType(), "...", "integer too large")
        return v
    if isinstance(v, float):
        if v.is_integer():
            return int(v)
        raise _bad(pname, VariadicType(), v, "decimal numbers are not supported here")
    if isinstance(v, list):
        if len(v) > 100_000:
            raise _bad(pname, VariadicType(), "...", "array too long")
        elems = [infer_value(x, f"{pname}[{i}]", depth + 1) for i, x in enumerate(v)]
        return ArrayValue(ArrayType(_inferred_type(elems[0]) if elems else STRING_T, None), elems)
    if isinstance(v, dict):
        raise _bad(pname, VariadicType(), v, "objects are not supported in a variadic argument")
    if not isinstance(v, str):
        raise _bad(pname, VariadicType(), v)
    s = v.strip()
    if s[:2] in ("0x", "0X"):
        a = _hex_int(s)
        if a is not None:
            return Address(a)
        if HEX_DIGITS.fullmatch(s[2:]):
            return int(s[2:], 16)
        return v
    if s.startswith('"'):
        try:
            text = json.loads(s)
        except ValueError:
            return v
        return text if isinstance(text, str) else v
    if s.startswith("["):
        try:
            return infer_value(json.loads(s), pname, depth + 1)
        except ValueError:
            return v
    if s.lstrip("-").isdigit() and s.isascii():
        return int(s)
    if s and len(s) <= 40 and all(c in "0123456789abcdefABCDEF" for c in s):
        return Address(int(s, 16))
    return v


def _inferred_type(v: Any) -> Type:
    if isinstance(v, bool):
        return BoolType()
    if isinstance(v, int):
        return IntType(True)
    if isinstance(v, Address):
        return AddressType()
    if isinstance(v, ArrayValue):
        return v.atype
    return STRING_T


STRING_T = StringType()
HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")


def _decode_decimal(v: Any, t: Type, pname: str) -> DecimalValue:
    """A decimal argument: a string ("1.50", exact, places kept), an integer, or a JSON number
    (as the platform accepts; at most 15 significant digits, since it arrives as a double)."""
    try:
        if isinstance(v, str):
            return parse_decimal(v)
        if isinstance(v, int) and not isinstance(v, bool):
            if v.bit_length() > 8192:
                raise ValueError("too large")
            return DecimalValue(v, 0)
        if isinstance(v, float):
            return from_float(v)
    except ValueError as exc:
        raise _bad(pname, t, v, str(exc)) from None
    raise _bad(pname, t, v, 'expected a decimal such as "1.25"')


def _decode_key(k: str, t: Type, pname: str, vm: str) -> Any:
    if isinstance(t, StringType):
        if len(k) >= 2 and k[0] == "'" and k[-1] == "'":
            return k[1:-1]
        raise _bad(pname, t, k, "string keys must be wrapped in single quotes")
    if isinstance(t, AddressType | AccountType | ContractType):
        raise _bad(pname, t, k, "address keys are not supported in mapping arguments")
    return decode_value(k, t, pname, vm)


def decode_args(params: list[tuple[str, Type]], args: Any, vm: str, what: str) -> list[Any]:
    """Match JSON ``args`` to ``params`` by name (all required, extras ignored)."""
    if args is None:
        args = {}
    if isinstance(args, list):  # positional form, accepted for convenience
        if len(args) != len(params):
            raise ArgumentError(
                f"invalid arguments: {what} takes {len(params)} arguments, {len(args)} given",
                "invalid arguments",
            )
        args = {p: a for (p, _), a in zip(params, args, strict=True)}
    if not isinstance(args, dict):
        raise ArgumentError("invalid arguments: args must be a JSON object", "invalid arguments")
    # (loops rather than comprehensions: this runs once per transaction, where each of those
    # would cost a call of its own in Python 3.11)
    missing: list[str] = []
    for p, _ in params:
        if p not in args:
            missing.append(p)
    if missing:
        expected = ", ".join(sorted(p for p, _ in params))
        received = ", ".join(sorted(str(k) for k in args))
        raise ArgumentError(
            f"Argument names don't match - Expected Arguments: ({expected}); "
            f"Received Arguments: ({received})",
            "invalid arguments",
        )
    out: list[Any] = []
    for p, t in params:
        out.append(decode_value(args[p], t, p, vm))
    return out


# ======================================================================= encoding


def encode_value(v: Any, t: Type | None) -> Any:
    """Runtime value -> the JSON the API returns (scalars as strings)."""
    if isinstance(t, IntType | EnumType | DecimalType):
        return str(v)
    if isinstance(t, BoolType):
        return "true" if v else "false"
    if isinstance(t, StringType):
        return v
    if isinstance(t, BytesType):
        return bytes_json(v) if isinstance(v, bytes) else str(v)
    if isinstance(t, AddressType | ContractType):
        return v.hex if isinstance(v, Address) else format(int(v), "040x")
    if isinstance(t, AccountType):
        return v.account_text() if isinstance(v, Address) else format(int(v), "040x")
    if isinstance(t, ArrayType):
        return [encode_value(x, t.elem) for x in v]
    if isinstance(t, StructType):
        return {n: encode_value(v[n], ft) for n, ft in t.fields}
    if isinstance(t, MappingType):
        # an entry holding the default reads as absent in SolidVM's storage: leave it out
        return {
            key_text(k, t.key): encode_value(x, t.value) for k, x in v.items() if not is_default(x)
        }
    if isinstance(t, VariadicType):  # always a JSON array, whatever the function put there
        if v is None:
            return []
        if isinstance(v, list | tuple) and not isinstance(v, ArrayValue):
            return [encode_dynamic(x) for x in v]
        return [encode_dynamic(v)]
    return encode_dynamic(v)


def bytes_json(v: bytes) -> str:
    """Bytes as SolidVM shows them: text kept in a bytes slot as the text, raw bytes as hex."""
    if type(v) is TextBytes:
        return v.decode("utf-8", "replace")
    return v.hex()


def key_text(k: Any, t: Type) -> str:
    if isinstance(t, BoolType):
        return "true" if k else "false"
    if isinstance(k, Address):
        return k.hex if not isinstance(t, AccountType) else k.account_text()
    if isinstance(k, bytes):
        return bytes_json(k)
    return str(k)


def encode_dynamic(v: Any) -> Any:
    """Encoding by runtime type, for values whose static type is unknown."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return bytes_json(v)
    if isinstance(v, Address):
        return v.account_text()
    if isinstance(v, DecimalValue):
        return str(v)
    if isinstance(v, StructValue):
        return encode_value(v, v.stype)
    if isinstance(v, ArrayValue):
        return encode_value(v, v.atype)
    if isinstance(v, MappingValue):
        return encode_value(v, v.mtype)
    if isinstance(v, tuple):
        return [encode_dynamic(x) for x in v]
    return None if v is None else str(v)


def event_text(v: Any, t: Type) -> str:
    """Event arguments are stored as strings (bools as True/False, like the platform)."""
    if isinstance(t, BoolType):
        return "True" if v else "False"
    if isinstance(t, EnumType):
        return f"{t.name}.{t.values[v]}" if 0 <= v < len(t.values) else str(v)
    if isinstance(t, AddressType | ContractType):
        return v.hex if isinstance(v, Address) else str(v)
    if isinstance(t, AccountType):
        return v.account_text() if isinstance(v, Address) else str(v)
    if isinstance(t, StringType):
        return str(v)
    if isinstance(t, ArrayType):
        return "[" + ", ".join(event_text(x, t.elem) for x in v) + "]"
    if isinstance(t, VariadicType):
        items = v if isinstance(v, tuple) else () if v is None else (v,)
        return "[" + ", ".join(_json_text(x) for x in items) + "]"
    enc = encode_value(v, t)
    if isinstance(enc, str):
        return enc
    import json

    return json.dumps(enc, separators=(",", ":"))


def _json_text(v: Any) -> str:
    """A value inside a variadic event argument, as SolidVM shows it (strings quoted)."""
    import json

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, bytes):
        return json.dumps(v.hex())
    if isinstance(v, Address):
        return json.dumps(v.hex)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_json_text(x) for x in v) + "]"
    return json.dumps(encode_dynamic(v))


# ======================================================================= xabi


def _indexed(params: list[tuple[str | None, Type]], unnamed: str = "#") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, (n, t) in enumerate(params):
        d = dict(t.xabi())
        d["index"] = i
        out[n or f"{unnamed}{i}"] = d
    return out


def function_xabi(fn: CompiledFunction) -> dict[str, Any]:
    mut = fn.mutability
    return {
        "args": _indexed(list(fn.params)),
        "vals": _indexed(list(fn.returns)),
        "stateMutability": mut,
        "visibility": fn.visibility.capitalize(),
        "modifiers": [m.name for m, _ in fn.mods] or None,
        "payable": fn.payable,
        "constant": mut in ("view", "pure"),
        "selector": fn.signature,
    }


def contract_xabi(c: ContractDef) -> dict[str, Any]:
    """The xabi of a compiled contract: what clients need to build forms and decode results."""
    funcs: dict[str, Any] = {}
    for name, fns in c.functions.items():
        fn = fns[0]
        if fn.getter_of is not None:
            continue
        funcs[name] = function_xabi(fn)
        if len(fns) > 1:
            funcs[name]["overloads"] = [function_xabi(f) for f in fns[1:]]
    vars_: dict[str, Any] = {}
    at = 0
    for sv in c.state_vars:
        d = dict(sv.type.xabi())
        d["atBytes"] = at
        d["public"] = sv.public
        d["constant"] = sv.constant
        init = sv.decl.init
        d["initialValue"] = _source_text(c.source, init) if init is not None else None
        vars_[sv.name] = d
        at += 32
    types: dict[str, Any] = {}
    for name, t in c.types.items():
        if isinstance(t, EnumType):
            types[name] = {"tag": "Enum", "names": list(t.values), "bytes": 1}
        elif isinstance(t, StructType):
            fields = []
            for i, (fname, ft) in enumerate(t.fields):
                fd = dict(ft.xabi())
                fd["atBytes"] = 32 * i
                fields.append([fname, fd])
            types[name] = {"tag": "Struct", "fields": fields, "bytes": 32 * len(t.fields)}
    for name, params in c.errors.items():
        # custom errors, as the platform's xabi lists them among the types: a "Struct" whose
        # fields are the error's parameters, atBytes holding each parameter's index
        if name not in types:
            efields = [[pn, dict(pt.xabi(), atBytes=i)] for i, (pn, pt) in enumerate(params)]
            types[name] = {"tag": "Struct", "fields": efields, "bytes": 0}
    events = {
        name: {
            "anonymous": ev.anonymous,
            "logs": [[pn, dict(pt.xabi(), indexed=ix)] for pn, pt, ix in ev.params],
        }
        for name, ev in c.events.items()
    }
    modifiers = {
        name: {"args": _indexed([(n, t) for n, t in m.params])} for name, m in c.modifiers.items()
    }
    kind = {
        "contract": "ContractKind",
        "interface": "InterfaceKind",
        "library": "LibraryKind",
        "abstract": "AbstractKind",
    }.get(c.kind, "ContractKind")
    return {
        "funcs": funcs,
        "constr": function_xabi(c.constructor) if c.constructor is not None else None,
        "vars": vars_,
        "types": types,
        "modifiers": modifiers,
        "events": events,
        "kind": kind,
        "using": using_xabi(c),
    }


def using_xabi(c: ContractDef) -> dict[str, list[dict[str, str]]]:
    """``using L for T;`` as the platform's xabi keeps it: T as written -> [{using, for}], the
    latest declaration first (the platform builds the map with ``fromListWith (++)``)."""
    out: dict[str, list[dict[str, str]]] = {}
    for u in c.usings:
        out.setdefault(u.text, []).insert(0, {"using": u.library.name, "for": u.text})
    return out


def _source_text(source: str, node: Any) -> str | None:
    """Best-effort source text of a simple initializer (literal values)."""
    from . import ast as A

    if isinstance(node, A.NumberLit | A.DecimalLit):
        return node.text
    if isinstance(node, A.StringLit):
        return node.value
    if isinstance(node, A.BoolLit):
        return "true" if node.value else "false"
    return None
