"""Operations compiled code runs: arithmetic, conversions, coercions, hashing, packing.

Pure functions of runtime values (plus the frame where memory or steps are charged); both the
compiled closures and the world use them, so they sit below both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from Crypto.Hash import keccak as _keccak

from .decimals import dec_add, dec_to_int, parse_decimal
from .errors import ExecutionError
from .runtime import (
    MAX_INT_BITS,
    MISSING,
    Frame,
    invalid_write,
    jset_dict,
    jset_list,
)
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
    DecimalValue,
    Digest,
    MappingValue,
    StructValue,
    TextBytes,
    VariadicValue,
    copy_value,
    default_value,
)

try:  # safe-pysha3: Keccak in one C call that keeps the interpreter lock (small inputs)
    from sha3 import keccak_256 as _keccak_256
except ImportError:  # (a platform without its wheel and no compiler: pycryptodome's)
    _keccak_256 = None
KECCAK_FAST = _keccak_256 is not None  # (the tests check that the dependency is in use)


# ======================================================================= runtime helpers


def _err(msg: str, kind: str) -> ExecutionError:
    return ExecutionError(msg, kind)


def index_error(i: Any, n: int) -> ExecutionError:
    return ExecutionError(
        f"index out of bounds: index value was {i}, but the array length was {n}",
        "index out of bounds",
    )


def div_zero() -> ExecutionError:
    return ExecutionError("divide by zero error", "divide by zero")


def type_error(msg: str) -> ExecutionError:
    return ExecutionError(f"type error: {msg}", "type error")


def int_too_big() -> ExecutionError:
    return ExecutionError(
        f"integer overflow: result exceeds {MAX_INT_BITS} bits", "integer overflow"
    )


def check_int(v: Any) -> int:
    if type(v) is not int:
        raise type_error(f"expected an integer, got {describe(v)}")
    return v


def describe(v: Any) -> str:
    if v is None:
        return "no value (the expression returns nothing)"
    if isinstance(v, bool):
        return "a bool"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, bytes):
        return "bytes"
    if isinstance(v, DecimalValue):
        return "a decimal"
    if isinstance(v, Address):
        return "an address"
    if isinstance(v, StructValue):
        return f"a struct {v.stype.name}"
    if isinstance(v, ArrayValue):
        return "an array"
    if isinstance(v, MappingValue):
        return "a mapping"
    if isinstance(v, VariadicValue):
        return "a variadic"
    return type(v).__name__


def op_div(a: int, b: int) -> int:
    if b == 0:
        raise div_zero()
    if a >= 0 and b > 0:
        return a // b
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def op_floordiv(a: int, b: int) -> int:
    """SolidVM's integer ``/``: Haskell's ``div``, which rounds toward minus infinity (-7 / 2 is
    -4), while ``%`` keeps the sign of the dividend (``rem``: -7 % 2 is -1)."""
    if b == 0:
        raise div_zero()
    return a // b


def op_mod(a: int, b: int) -> int:
    if b == 0:
        raise div_zero()
    if a >= 0 and b > 0:
        return a % b
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def op_pow(a: int, b: int) -> int:
    if type(a) is not int or type(b) is not int:
        raise type_error("'**' needs integer operands")
    if b < 0:
        raise ExecutionError("type error: negative exponent", "type error")
    if a in (0, 1) or b == 0:
        return 1 if b == 0 else a
    if a == -1:
        return 1 if b % 2 == 0 else -1
    if (abs(a).bit_length() - 1) * b > MAX_INT_BITS:
        raise int_too_big()
    r: int = a**b
    if r.bit_length() > MAX_INT_BITS:
        raise int_too_big()
    return r


def op_shl(a: int, b: int) -> int:
    if b < 0:
        raise type_error("negative shift amount")
    if b > MAX_INT_BITS or a.bit_length() + b > MAX_INT_BITS:
        raise int_too_big()
    return a << b


def op_shr(a: int, b: int) -> int:
    if b < 0:
        raise type_error("negative shift amount")
    return a >> b


def op_ushr(a: int, b: int) -> int:
    """``>>>``: the platform first takes the value as an unsigned 256-bit word (mod 2**256)."""
    if b < 0:
        raise type_error("negative shift amount")
    return (a % (1 << 256)) >> b


def op_mul(a: int, b: int) -> int:
    r = a * b
    if r.bit_length() > MAX_INT_BITS:
        raise int_too_big()
    return r


def copy_in(fr: Frame, v: Any) -> Any:
    """Deep copy made by running code: costs one step per element so copies in loops are bounded."""
    cls = type(v)
    if cls is ArrayValue or cls is MappingValue or cls is StructValue:
        ctx = fr.ctx
        ctx.steps += len(v)
        if ctx.steps > ctx.max_steps:
            raise ctx.out_of_gas()
        return copy_value(v)
    return v


def op_add_any(fr: Frame, a: Any, b: Any) -> Any:
    ta = type(a)
    if ta is int and type(b) is int:
        return a + b
    if ta is str and type(b) is str:
        fr.ctx.charge_memory(len(a) + len(b))
        return a + b
    if isinstance(a, bytes) and isinstance(b, bytes):
        fr.ctx.charge_memory(len(a) + len(b))
        if ta is TextBytes and type(b) is TextBytes:
            return TextBytes(a + b)  # text + text stays text, as SolidVM's strings
        return bytes(a + b)
    if ta is DecimalValue or type(b) is DecimalValue:
        return dec_add(a, b)
    if (ta is str or ta is Digest) and (type(b) is str or type(b) is Digest):
        # a SolidVM hash is hex text: "0x" + keccak256(a, b)
        text = (a.hex() if ta is Digest else a) + (b.hex() if type(b) is Digest else b)
        fr.ctx.charge_memory(len(text))
        return text
    raise type_error(f"cannot add {describe(a)} and {describe(b)}")


def keccak256(data: bytes) -> bytes:
    """Keccak-256 (Ethereum's, not SHA3-256) of ``data``.

    safe-pysha3 when installed: ~1 us a call, where pycryptodome's ~5 us is three ctypes calls
    that each let go of the interpreter lock; under load (the intake hashing each transaction
    twice while the producer runs) every such hop waited for the lock to come back.
    """
    if _keccak_256 is not None:
        digest: bytes = _keccak_256(data).digest()
        return digest
    return keccak256_portable(data)


def keccak256_portable(data: bytes) -> bytes:
    """Keccak-256 through pycryptodome (the fallback; the tests compare both)."""
    h = _keccak.new(digest_bits=256)
    h.update(data)
    return bytes(h.digest())


def pack(values: list[Any]) -> bytes:
    """Tightly packed encoding (abi.encodePacked) of runtime values."""
    out = bytearray()
    for v in values:
        if isinstance(v, bool):
            out.append(1 if v else 0)
        elif isinstance(v, int):
            out += (v % (1 << 256)).to_bytes(32, "big")
        elif isinstance(v, str):
            out += v.encode()
        elif isinstance(v, bytes):
            out += v
        elif isinstance(v, Address):
            out += v.value.to_bytes(20, "big")
        elif isinstance(v, DecimalValue):
            out += str(v).encode()  # the platform hashes a decimal's text
        elif isinstance(v, list | tuple):
            out += pack(list(v))
        else:
            raise type_error(f"cannot encode {describe(v)}")
    return bytes(out)


def as_bool(v: Any) -> bool:
    if v is True or v is False:
        return v
    raise type_error(f"expected a bool, got {describe(v)}")


def chain_key(fr: Frame, a: Address) -> str:
    """World chain key ("" = main) of the account ``a`` as seen from frame ``fr``."""
    c = a.chain
    if c is None:
        return fr.acct.chain
    if c == "main":
        return ""
    return c


def is_ancestor_chain(parents: dict[str, str], here: str, there: str) -> bool:
    """Whether ``there`` is an ancestor of chain ``here`` ("" = main, every private chain's);
    ``parents`` maps a chain to its parent. Code on a chain may read its ancestors."""
    c, seen = here, 0
    while c and seen < 64:
        c = parents.get(c, "")
        if c == there:
            return True
        seen += 1
    return False


# ------------------------------------------------------------------ coercion

Coercer = Callable[[Any], Any]


def make_coercer(t: Type | None, vm: str) -> Coercer | None:
    """Implicit conversion into a declared type, or None when values need no conversion."""
    if t is None:
        return None
    if isinstance(t, IntType):
        if vm == "EVM":
            wrap = t.wrap

            def c_int_evm(v: Any) -> Any:
                if type(v) is not int:
                    if isinstance(v, Address):
                        return wrap(v.value)
                    raise type_error(f"expected {t.name}, got {describe(v)}")
                return wrap(v)

            return c_int_evm

        def c_int(v: Any) -> Any:
            if type(v) is int:
                return v
            if isinstance(v, Address):
                return v.value
            raise type_error(f"expected {t.name}, got {describe(v)}")

        return c_int
    if isinstance(t, AddressType):

        def c_addr(v: Any) -> Any:
            if type(v) is Address and v.chain is None:
                return v
            if isinstance(v, Address):
                return Address(v.value)
            if type(v) is int and v >= 0:
                return Address(v % (1 << 160))
            raise type_error(f"expected address, got {describe(v)}")

        return c_addr
    if isinstance(t, AccountType):

        def c_acct(v: Any) -> Any:
            if isinstance(v, Address):
                return v if type(v) is Address else Address(v.value, v.chain)
            if type(v) is int and v >= 0:
                return Address(v % (1 << 160))
            raise type_error(f"expected account, got {describe(v)}")

        return c_acct
    if isinstance(t, ContractType):
        name = t.name

        def c_contract(v: Any) -> Any:
            if isinstance(v, ContractRef) and v.cname == name:
                return v
            if isinstance(v, Address):
                return ContractRef(name, v.value, v.chain)
            if type(v) is int and v >= 0:
                return ContractRef(name, v)
            raise type_error(f"expected contract {name}, got {describe(v)}")

        return c_contract
    if isinstance(t, BytesType):
        size = t.size

        def c_bytes(v: Any) -> Any:
            if isinstance(v, bytes):
                b = v
            elif type(v) is str:
                if vm != "EVM":
                    return TextBytes(v.encode())  # SolidVM keeps text assigned to bytes
                b = v.encode()
            elif type(v) is int and size is not None:
                b = (v % (1 << (8 * size))).to_bytes(size, "big")
            else:
                raise type_error(f"expected {t.name}, got {describe(v)}")
            if vm == "EVM" and size is not None and len(b) != size:
                b = b[:size].ljust(size, b"\0")
            return b

        return c_bytes
    if isinstance(t, DecimalType):

        def c_dec(v: Any) -> Any:
            if type(v) is DecimalValue:
                return v
            if type(v) is int:
                return DecimalValue(v, 0)
            raise type_error(f"expected decimal, got {describe(v)}")

        return c_dec
    if isinstance(t, StringType):

        def c_str(v: Any) -> Any:
            if type(v) is str:
                return v
            if type(v) is Digest:  # SolidVM's hashes are hex text
                return v.hex()
            if isinstance(v, bytes):
                return bytes_text(v)  # UTF-8 when it is, else a character per byte
            raise type_error(f"expected string, got {describe(v)}")

        return c_str
    if isinstance(t, BoolType):

        def c_bool(v: Any) -> Any:
            if v is True or v is False:
                return v
            raise type_error(f"expected bool, got {describe(v)}")

        return c_bool
    if isinstance(t, EnumType):
        n = len(t.values)

        def c_enum(v: Any) -> Any:
            if type(v) is int and 0 <= v < n:
                return v
            raise type_error(f"value out of range for enum {t.name}")

        return c_enum
    if isinstance(t, ArrayType):
        elem = make_coercer(t.elem, vm)

        def c_array(v: Any) -> Any:
            if isinstance(v, ArrayValue):
                if v.atype is t or v.atype == t:
                    return v
                if t.length is not None and len(v) != t.length:
                    raise type_error(f"expected {t.name}, got an array of length {len(v)}")
                return ArrayValue(t, [elem(x) for x in v] if elem else v)
            raise type_error(f"expected {t.name}, got {describe(v)}")

        return c_array
    if isinstance(t, StructType):

        def c_struct(v: Any) -> Any:
            if isinstance(v, StructValue) and v.stype.name == t.name:
                return v
            raise type_error(f"expected struct {t.name}, got {describe(v)}")

        return c_struct
    if isinstance(t, MappingType):

        def c_map(v: Any) -> Any:
            if isinstance(v, MappingValue):
                return v
            raise type_error(f"expected {t.name}, got {describe(v)}")

        return c_map
    return None


# ------------------------------------------------------------------ explicit conversions


def convert(v: Any, t: Type, vm: str) -> Any:
    """``T(v)``: explicit type conversion."""
    if isinstance(t, IntType):
        if type(v) is int:
            r = v
        elif type(v) is DecimalValue:
            r = dec_to_int(v)
        elif isinstance(v, Address):
            r = v.value
        elif type(v) is TextBytes and vm != "EVM":
            # text kept in a bytes slot is SolidVM's string: read as hex like `uint("ab")`
            r = parse_int_text(bytes_text(v), 16, t.name)
        elif isinstance(v, bytes):
            r = int.from_bytes(v, "big") if v else 0
        elif type(v) is bool:
            r = int(v)
        elif type(v) is str and vm != "EVM":
            r = parse_int_text(v, 16, t.name)
        elif type(v) is str:
            try:
                r = int(v.strip(), 0) if v.strip()[:2].lower() == "0x" else int(v.strip())
            except ValueError:
                raise type_error(f"cannot convert string {v!r} to {t.name}") from None
        else:
            raise type_error(f"cannot convert {describe(v)} to {t.name}")
        return t.wrap(r) if vm == "EVM" else r
    if isinstance(t, DecimalType):
        if type(v) is DecimalValue:
            return v
        if type(v) is int:
            return DecimalValue(v, 0)
        if type(v) is str:
            try:
                return parse_decimal(v)
            except ValueError as exc:
                raise type_error(f"cannot convert string {v!r} to decimal: {exc}") from None
        raise type_error(f"cannot convert {describe(v)} to decimal")
    if isinstance(t, AddressType):
        if isinstance(v, Address):
            return Address(v.value)
        if type(v) is int:
            return Address(v % (1 << 160))
        if isinstance(v, bytes):
            return Address(int.from_bytes(v[-20:], "big") if v else 0)
        if type(v) is str:
            # account text "addr:chain" is read as the account, then the chain dropped
            return Address(parse_account_text(v).value)
        raise type_error(f"cannot convert {describe(v)} to address")
    if isinstance(t, AccountType):
        if isinstance(v, Address):
            return Address(v.value, v.chain)
        if type(v) is int:
            return Address(v % (1 << 160))
        if type(v) is str:
            return parse_account_text(v)
        raise type_error(f"cannot convert {describe(v)} to account")
    if isinstance(t, StringType):
        if type(v) is str:
            return v
        if type(v) is Digest:
            return v.hex()
        if isinstance(v, bytes):
            return bytes_text(v)
        if type(v) is bool:
            return "true" if v else "false"
        if type(v) is int:
            return str(v)
        if isinstance(v, Address):
            return v.account_text()
        raise type_error(f"cannot convert {describe(v)} to string")
    if isinstance(t, BytesType):
        size = t.size
        if type(v) is Digest and size is None and vm != "EVM":
            b = v.hex().encode()  # bytes(h) of a SolidVM hash: its hex text's bytes
        elif isinstance(v, bytes):
            b = bytes(v)  # raw bytes now, even when made from text
        elif type(v) is str:
            # SolidVM: bytesN("text") keeps the first N characters (no padding)
            b = (v[:size] if size is not None and vm != "EVM" else v).encode()
        elif type(v) is int:
            if size is None and vm != "EVM":
                if v < 0:
                    raise type_error("cannot convert a negative integer to bytes")
                b = v.to_bytes((v.bit_length() + 7) // 8, "big")  # bytes(0) is empty
            else:
                n = size or max(1, (v.bit_length() + 7) // 8)
                b = (v % (1 << (8 * n))).to_bytes(n, "big")
        elif isinstance(v, Address):
            b = v.value.to_bytes(20, "big")
        else:
            raise type_error(f"cannot convert {describe(v)} to {t.name}")
        if size is not None:
            b = b[:size].ljust(size, b"\0") if vm == "EVM" else b[:size]
        return b
    if isinstance(t, BoolType):
        if type(v) is bool:
            return v
        if type(v) is TextBytes:
            v = v.decode("utf-8", "replace")
        if type(v) is str and v in ("true", "false"):
            return v == "true"
        raise type_error(f"bool cast: cannot convert {display_short(v)} to bool")
    if isinstance(t, EnumType):
        if type(v) is int and 0 <= v < len(t.values):
            return v
        raise type_error(f"value {v!r} is out of range for enum {t.name}")
    if isinstance(t, ContractType):
        if isinstance(v, Address):
            return ContractRef(t.name, v.value, v.chain)
        if type(v) is int:
            return ContractRef(t.name, v % (1 << 160))
        raise type_error(f"cannot convert {describe(v)} to {t.name}")
    c = make_coercer(t, vm)
    return c(v) if c else v


def parse_int_text(s: str, base: Any, tname: str) -> int:
    """``uint(s)`` / ``uint(s, base)`` as SolidVM reads them: hex by default (an optional ``0x``,
    an odd digit count padded), or base 10 (an optional minus sign); no other base."""
    if type(base) is not int or base not in (10, 16):
        raise type_error(f"{tname}: cannot read a string in base {display(base)} (only 10 or 16)")
    if base == 10:
        text = s.strip(" \t\n\r\f\v")
        digits = text[1:] if text[:1] == "-" else text
        if not digits or not digits.isascii() or not digits.isdigit() or len(digits) > 2500:
            raise type_error(f"cannot convert string {s!r} to {tname} in base 10")
        return int(text)
    h = s[2:] if s[:2] == "0x" else s
    if len(h) > 2100 or not all(c in "0123456789abcdefABCDEF" for c in h):
        raise type_error(f"numeric cast - not a hex string {s!r}")
    return int(h, 16) if h else 0


def parse_hex_address(s: str) -> int:
    h = s[2:] if s[:2] in ("0x", "0X") else s
    if not h or len(h) > 40:
        raise type_error(f"invalid address {s!r}")
    try:
        return int(h, 16)
    except ValueError:
        raise type_error(f"invalid address {s!r}") from None


def parse_account_text(s: str) -> Address:
    addr, _, chain = s.partition(":")
    value = parse_hex_address(addr)
    if not chain:
        return Address(value)
    if chain == "main":
        return Address(value, "main")
    ch = chain[2:] if chain[:2] in ("0x", "0X") else chain
    try:
        n = int(ch, 16)
    except ValueError:
        raise type_error(f"invalid chain id in account {s!r}") from None
    return Address(value, chain_text(n))


def chain_text(n: int) -> str:
    return "main" if n == 0 else format(n, "064x")


def dyn_get(c: Any, k: Any) -> Any:
    if isinstance(c, MappingValue):
        v = c.get(k, MISSING)
        return default_value(c.mtype.value) if v is MISSING else v
    return c[k]


def dyn_put(fr: Frame, c: Any, k: Any, v: Any) -> None:
    if isinstance(c, list):
        jset_list(fr, c, k, v)
    else:
        jset_dict(fr, c, k, v)


def dyn_member(fr: Frame, v: Any, name: str) -> Any:
    if isinstance(v, StructValue):
        if name not in v:
            raise ExecutionError(f"missing field: {name}", "missing field")
        return v[name]
    if name == "length" and isinstance(v, (list, bytes)):
        return len(v)
    if name == "length" and isinstance(v, str):
        return len(v.encode())
    if isinstance(v, Address):
        if name == "chainId":
            return chain_id_of(fr, v)
        if name == "balance":
            return fr.ctx.world.balance_at(fr, v)
    raise ExecutionError(f"missing field: {name} of {describe(v)}", "missing field")


def dyn_index(fr: Frame, c: Any, k: Any, vivify: bool) -> Any:
    if isinstance(c, MappingValue):
        v = c.get(k, MISSING)
        if v is MISSING:
            v = default_value(c.mtype.value)
            if vivify and c.mtype.value.complex:
                jset_dict(fr, c, k, v)
        return v
    if isinstance(c, (list, bytes, tuple)):
        if type(k) is int and 0 <= k < len(c):
            return c[k : k + 1] if isinstance(c, bytes) else c[k]
        raise index_error(k, len(c))
    raise type_error(f"cannot index {describe(c)}")


def chain_id_of(fr: Frame, a: Any) -> int:
    if not isinstance(a, Address):
        raise type_error(f"chainId of {describe(a)}")
    c = a.chain
    if c is None:
        c = fr.acct.chain or "main"
    return 0 if c == "main" else int(c, 16)


def resolve_chain_spec(fr: Frame, spec: Any, n: Any) -> str:
    here = fr.acct.chain
    if type(spec) is int:
        return chain_text(spec)
    if type(spec) is str:
        s = spec
        if s == "main":
            return "main"
        if s == "self":
            return here or "main"
        if s in ("parent", "grandparent", "ancestor"):
            steps = {"parent": 1, "grandparent": 2}.get(s, n if type(n) is int else 1)
            c = here
            for _ in range(steps):
                if not c:
                    raise ExecutionError(
                        "inaccessible chain: the main chain has no parent", "inaccessible chain"
                    )
                c = fr.ctx.world.chain_parents.get(c, "")
            return c or "main"
        try:
            return chain_text(int(s, 16))
        except ValueError:
            raise type_error(f"invalid chain {s!r}") from None
    raise type_error(f"invalid chain {describe(spec)}")


def values_equal(a: Any, b: Any) -> bool:
    ta = type(a)
    if ta is type(b):
        return bool(a == b)
    if ta is DecimalValue or type(b) is DecimalValue:
        # an integer equals the decimal of the same value (the platform's coerceFromInt)
        if type(a) is int:
            a = DecimalValue(a, 0)
        if type(b) is int:
            b = DecimalValue(b, 0)
        return bool(a == b)
    if isinstance(a, Address) or isinstance(b, Address):
        return bool(a == b)
    if ta is bool or type(b) is bool:
        return False
    if ta is str and isinstance(b, bytes):  # SolidVM compares a string with bytes as UTF-8
        return bool(a.encode() == b)
    if isinstance(a, bytes) and type(b) is str:
        return a == b.encode()
    return bool(a == b)


def display(v: Any) -> str:
    """How a value reads inside an error message."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if type(v) is TextBytes:
        return v.decode("utf-8", "replace")
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, Address):
        return v.account_text()
    return str(v)


def display_short(v: Any) -> str:
    """A value inside an error message, cut to a readable length."""
    text = repr(v) if type(v) is str else display(v)
    return text if len(text) <= 60 else text[:57] + "..."


def bytes_text(v: bytes) -> str:
    """``string(bytes)``: UTF-8 text when the bytes are UTF-8, else one character per byte."""
    try:
        return v.decode("utf-8")
    except UnicodeDecodeError:
        return v.decode("latin-1")


def concat_str(fr: Frame, parts: list[Any]) -> str:
    for p in parts:
        if type(p) is not str:
            raise type_error(f"string.concat needs strings, got {describe(p)}")
    fr.ctx.charge_memory(sum(len(p) for p in parts))
    return "".join(parts)


def concat_bytes(fr: Frame, parts: list[Any]) -> bytes:
    out = b"".join(p if isinstance(p, bytes) else str(p).encode() for p in parts)
    fr.ctx.charge_memory(len(out))
    return out


# ------------------------------------------------------------------ storage arrays


def storage_read(a: Any, i: Any, et: Type) -> Any:
    """``arr[i]`` of an array in storage: SolidVM reads any index; past the end it finds what
    ``arr[i] = v`` wrote there, else the element type's default (no index error)."""
    if type(i) is not int:
        raise type_error(f"array index must be an integer, got {describe(i)}")
    if 0 <= i < len(a):
        return a[i]
    b = getattr(a, "beyond", None)
    if b:
        v = b.get(i, MISSING)
        if v is not MISSING:
            return v
    return default_value(et)


def storage_vivify(fr: Frame, a: Any, i: Any, et: Type) -> Any:
    """Like :func:`storage_read`, but a complex element past the end is created in place so
    that writes into it (``arr[7].f = 1``) persist."""
    v = storage_read(a, i, et)
    if et.complex and not 0 <= i < len(a):
        b = getattr(a, "beyond", None)
        if b is None or i not in b:
            storage_write(fr, a, i, v)
    return v


def storage_write(fr: Frame, a: Any, i: Any, v: Any) -> None:
    """``arr[i] = v`` in storage: past the end the element is stored without changing
    ``arr.length``, as SolidVM does."""
    if type(i) is not int:
        raise type_error(f"array index must be an integer, got {describe(i)}")
    if 0 <= i < len(a):
        jset_list(fr, a, i, v)
        return
    if fr.ro:
        raise invalid_write(fr)
    b = a.beyond
    if b is None:
        b = a.beyond = {}
    jset_dict(fr, b, i, v)


def memory_write_error(i: Any, n: int) -> ExecutionError:
    return ExecutionError(
        "invalid write: Cannot assign a value outside the allocated space for an array "
        f"(index {i}, length {n})",
        "invalid write",
    )
