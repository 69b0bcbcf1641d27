"""Compiler: syntax tree -> contract definitions whose function bodies are Python closures.

Each expression compiles to ``fn(frame) -> value`` together with its static type when known; each
statement to ``fn(frame) -> signal``. Names are resolved once, here: locals become list slots,
state variables dictionary keys, internal calls vtable keys. Running a call then only executes
closures, which is several times faster than walking the tree on every call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, NoReturn

from Crypto.Hash import keccak as _keccak

from . import ast as A
from .errors import CompileError, ExecutionError, assert_failed, require_failed, reverted
from .runtime import (
    BREAK,
    CONTINUE,
    MAX_CALL_DEPTH,
    MAX_INT_BITS,
    MISSING,
    RETURN,
    ExecContext,
    Frame,
    jdel_dict,
    jpop,
    jpush,
    jreplace_list,
    jset_dict,
    jset_list,
)
from .types import (
    ACCOUNT,
    ADDRESS,
    BOOL,
    BYTES,
    BYTES32,
    STRING,
    UINT,
    AccountType,
    AddressType,
    ArrayType,
    BoolType,
    BytesType,
    ContractType,
    EnumType,
    IntType,
    MappingType,
    StringType,
    StructType,
    TupleType,
    Type,
    abi_name,
    elementary,
)
from .values import (
    Address,
    ArrayValue,
    ContractRef,
    MappingValue,
    StructValue,
    copy_value,
    default_value,
)

Fn = Callable[[Frame], Any]
CExpr = tuple[Fn, Type | None]

LITERAL = IntType(False, 256)  # the type of an integer literal; adopts the other operand's type
CERT_MAPPING = MappingType(STRING, STRING)


# ======================================================================= definitions


class StateVar:
    __slots__ = ("_const_fn", "cname", "constant", "decl", "init", "name", "public", "type")

    def __init__(self, name: str, type_: Type, cname: str, decl: A.StateVarDecl) -> None:
        self.name = name
        self.type = type_
        self.cname = cname
        self.decl = decl
        self.public = decl.visibility == "public"
        self.constant = decl.constant
        self.init: Fn | None = None
        self._const_fn: Fn | None = None


class EventDef:
    __slots__ = ("anonymous", "cname", "name", "params")

    def __init__(
        self, name: str, params: list[tuple[str, Type, bool]], cname: str, anonymous: bool
    ):
        self.name = name
        self.params = params
        self.cname = cname
        self.anonymous = anonymous


class ModifierDef:
    __slots__ = ("body", "cname", "decl", "name", "nslots", "params")

    def __init__(self, name: str, cname: str, decl: A.ModifierDecl) -> None:
        self.name = name
        self.cname = cname
        self.decl = decl
        self.params: list[tuple[str, Type]] = []
        self.body: Fn | None = None
        self.nslots = 0


class CompiledFunction:
    __slots__ = (
        "body",
        "cname",
        "decl",
        "getter_of",
        "is_ctor",
        "mods",
        "mutability",
        "name",
        "nslots",
        "param_coercers",
        "params",
        "payable",
        "ret_init",
        "ret_slots",
        "returns",
        "visibility",
        "writes",
    )

    def __init__(self, name: str, cname: str, decl: A.FunctionDecl | None) -> None:
        self.name = name
        self.cname = cname
        self.decl = decl
        self.params: list[tuple[str, Type]] = []
        self.returns: list[tuple[str | None, Type]] = []
        self.visibility = "public"
        self.mutability: str | None = None
        self.payable = False
        self.is_ctor = False
        self.body: Fn = _noop
        self.nslots = 0
        self.mods: list[tuple[ModifierDef, list[Fn]]] = []
        self.ret_slots: list[int] = []
        self.ret_init: list[tuple[int, Type]] = []
        self.param_coercers: list[Callable[[Any], Any] | None] = []
        self.getter_of: StateVar | None = None
        self.writes = True

    @property
    def external(self) -> bool:
        return self.visibility in ("public", "external")

    @property
    def signature(self) -> str:
        return f"{self.name}({','.join(abi_name(t) for _, t in self.params)})"

    def __repr__(self) -> str:
        return f"<function {self.cname}.{self.signature}>"


class ContractDef:
    """A compiled contract: its storage layout, functions, events and types."""

    def __init__(self, name: str, kind: str, decl: A.ContractDecl | None, vm: str, source: str):
        self.name = name
        self.kind = kind
        self.decl = decl
        self.vm = vm
        self.source = source
        self.linearization: list[ContractDef] = []  # most derived first
        self.types: dict[str, Type] = {}
        self.own_types: dict[str, Type] = {}
        self.state_vars: list[StateVar] = []  # storage layout, bases first
        self.svars: dict[str, StateVar] = {}
        self.own_svars: list[StateVar] = []
        self.events: dict[str, EventDef] = {}
        self.errors: dict[str, list[tuple[str, Type]]] = {}
        self.modifiers: dict[str, ModifierDef] = {}
        self.own_functions: list[CompiledFunction] = []
        self.functions: dict[str, list[CompiledFunction]] = {}  # most derived override per sig
        self.vtable: dict[tuple[str, int], CompiledFunction] = {}
        self.constructor: CompiledFunction | None = None
        self.base_args: dict[str, tuple[str, list[Fn]]] = {}  # base -> (where, arg fns)
        self.ctor_base_args: dict[str, list[Fn]] = {}
        self.super_table: dict[tuple[str, str, int], CompiledFunction] = {}
        self.unit: Any = None
        self._xabi: dict[str, Any] | None = None
        self.pragma_solidvm: str | None = None  # `pragma solidvm X.Y` of its source, if any

    def bases(self) -> list[ContractDef]:
        return self.linearization[1:]

    def find_function(self, name: str, nargs: int | None = None) -> CompiledFunction | None:
        fns = self.functions.get(name)
        if not fns:
            return None
        if nargs is None:
            return fns[0]
        for f in fns:
            if len(f.params) == nargs:
                return f
        return None

    @property
    def xabi(self) -> dict[str, Any]:
        if self._xabi is None:
            from .abi import contract_xabi

            self._xabi = contract_xabi(self)
        return self._xabi

    def __repr__(self) -> str:
        return f"<contract {self.name}>"


def _noop(fr: Frame) -> None:
    return None


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


def _check_int(v: Any) -> int:
    if type(v) is not int:
        raise type_error(f"expected an integer, got {_describe(v)}")
    return v


def _describe(v: Any) -> str:
    if isinstance(v, bool):
        return "a bool"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, bytes):
        return "bytes"
    if isinstance(v, Address):
        return "an address"
    if isinstance(v, StructValue):
        return f"a struct {v.stype.name}"
    if isinstance(v, ArrayValue):
        return "an array"
    if isinstance(v, MappingValue):
        return "a mapping"
    return type(v).__name__


def op_div(a: int, b: int) -> int:
    if b == 0:
        raise div_zero()
    if a >= 0 and b > 0:
        return a // b
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


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
    if ta is bytes and type(b) is bytes:
        fr.ctx.charge_memory(len(a) + len(b))
        return a + b
    raise type_error(f"cannot add {_describe(a)} and {_describe(b)}")


def keccak256(data: bytes) -> bytes:
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
        elif isinstance(v, list):
            out += pack(list(v))
        else:
            raise type_error(f"cannot encode {_describe(v)}")
    return bytes(out)


def _bool(v: Any) -> bool:
    if v is True or v is False:
        return v
    raise type_error(f"expected a bool, got {_describe(v)}")


def _chain_key(fr: Frame, a: Address) -> str:
    """World chain key ("" = main) of the account ``a`` as seen from frame ``fr``."""
    c = a.chain
    if c is None:
        return fr.acct.chain
    if c == "main":
        return ""
    return c


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
                    raise type_error(f"expected {t.name}, got {_describe(v)}")
                return wrap(v)

            return c_int_evm

        def c_int(v: Any) -> Any:
            if type(v) is int:
                return v
            if isinstance(v, Address):
                return v.value
            raise type_error(f"expected {t.name}, got {_describe(v)}")

        return c_int
    if isinstance(t, AddressType):

        def c_addr(v: Any) -> Any:
            if type(v) is Address and v.chain is None:
                return v
            if isinstance(v, Address):
                return Address(v.value)
            if type(v) is int and v >= 0:
                return Address(v % (1 << 160))
            raise type_error(f"expected address, got {_describe(v)}")

        return c_addr
    if isinstance(t, AccountType):

        def c_acct(v: Any) -> Any:
            if isinstance(v, Address):
                return v if type(v) is Address else Address(v.value, v.chain)
            if type(v) is int and v >= 0:
                return Address(v % (1 << 160))
            raise type_error(f"expected account, got {_describe(v)}")

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
            raise type_error(f"expected contract {name}, got {_describe(v)}")

        return c_contract
    if isinstance(t, BytesType):
        size = t.size

        def c_bytes(v: Any) -> Any:
            if type(v) is bytes:
                b = v
            elif type(v) is str:
                b = v.encode()
            elif type(v) is int and size is not None:
                b = (v % (1 << (8 * size))).to_bytes(size, "big")
            else:
                raise type_error(f"expected {t.name}, got {_describe(v)}")
            if vm == "EVM" and size is not None and len(b) != size:
                b = b[:size].ljust(size, b"\0")
            return b

        return c_bytes
    if isinstance(t, StringType):

        def c_str(v: Any) -> Any:
            if type(v) is str:
                return v
            if type(v) is bytes:
                return v.decode("utf-8", "replace")
            raise type_error(f"expected string, got {_describe(v)}")

        return c_str
    if isinstance(t, BoolType):

        def c_bool(v: Any) -> Any:
            if v is True or v is False:
                return v
            raise type_error(f"expected bool, got {_describe(v)}")

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
            raise type_error(f"expected {t.name}, got {_describe(v)}")

        return c_array
    if isinstance(t, StructType):

        def c_struct(v: Any) -> Any:
            if isinstance(v, StructValue) and v.stype.name == t.name:
                return v
            raise type_error(f"expected struct {t.name}, got {_describe(v)}")

        return c_struct
    if isinstance(t, MappingType):

        def c_map(v: Any) -> Any:
            if isinstance(v, MappingValue):
                return v
            raise type_error(f"expected {t.name}, got {_describe(v)}")

        return c_map
    return None


# ------------------------------------------------------------------ explicit conversions


def convert(v: Any, t: Type, vm: str) -> Any:
    """``T(v)``: explicit type conversion."""
    if isinstance(t, IntType):
        if type(v) is int:
            r = v
        elif isinstance(v, Address):
            r = v.value
        elif type(v) is bytes:
            r = int.from_bytes(v, "big") if v else 0
        elif type(v) is bool:
            r = int(v)
        elif type(v) is str:
            try:
                r = int(v.strip(), 0) if v.strip()[:2].lower() == "0x" else int(v.strip())
            except ValueError:
                raise type_error(f"cannot convert string {v!r} to {t.name}") from None
        else:
            raise type_error(f"cannot convert {_describe(v)} to {t.name}")
        return t.wrap(r) if vm == "EVM" else r
    if isinstance(t, AddressType):
        if isinstance(v, Address):
            return Address(v.value)
        if type(v) is int:
            return Address(v % (1 << 160))
        if type(v) is bytes:
            return Address(int.from_bytes(v[-20:], "big") if v else 0)
        if type(v) is str:
            return Address(parse_hex_address(v))
        raise type_error(f"cannot convert {_describe(v)} to address")
    if isinstance(t, AccountType):
        if isinstance(v, Address):
            return Address(v.value, v.chain)
        if type(v) is int:
            return Address(v % (1 << 160))
        if type(v) is str:
            return parse_account_text(v)
        raise type_error(f"cannot convert {_describe(v)} to account")
    if isinstance(t, StringType):
        if type(v) is str:
            return v
        if type(v) is bytes:
            return v.rstrip(b"\0").decode("utf-8", "replace")
        if type(v) is bool:
            return "true" if v else "false"
        if type(v) is int:
            return str(v)
        if isinstance(v, Address):
            return v.account_text()
        raise type_error(f"cannot convert {_describe(v)} to string")
    if isinstance(t, BytesType):
        if type(v) is bytes:
            b = v
        elif type(v) is str:
            b = v.encode()
        elif type(v) is int:
            size = t.size or max(1, (v.bit_length() + 7) // 8)
            b = (v % (1 << (8 * size))).to_bytes(size, "big")
        elif isinstance(v, Address):
            b = v.value.to_bytes(20, "big")
        else:
            raise type_error(f"cannot convert {_describe(v)} to {t.name}")
        if t.size is not None and vm == "EVM":
            b = b[: t.size].ljust(t.size, b"\0")
        return b
    if isinstance(t, BoolType):
        if type(v) is bool:
            return v
        if type(v) is str and v in ("true", "false"):
            return v == "true"
        if type(v) is int:
            return v != 0
        raise type_error(f"cannot convert {_describe(v)} to bool")
    if isinstance(t, EnumType):
        if type(v) is int and 0 <= v < len(t.values):
            return v
        raise type_error(f"value {v!r} is out of range for enum {t.name}")
    if isinstance(t, ContractType):
        if isinstance(v, Address):
            return ContractRef(t.name, v.value, v.chain)
        if type(v) is int:
            return ContractRef(t.name, v % (1 << 160))
        raise type_error(f"cannot convert {_describe(v)} to {t.name}")
    c = make_coercer(t, vm)
    return c(v) if c else v


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


# ======================================================================= function invocation


def invoke(
    ctx: ExecContext,
    fn: CompiledFunction,
    acct: Any,
    args: list[Any],
    sender: Address,
    value: int,
    ro: bool,
) -> list[Any]:
    """Run ``fn`` on account ``acct`` with already-converted ``args``; returns the values."""
    if ctx.depth >= MAX_CALL_DEPTH:
        raise ExecutionError(
            f"stack too deep: call depth exceeded {MAX_CALL_DEPTH}", "stack too deep"
        )
    ctx.depth += 1
    ctx.steps += 1
    if ctx.steps > ctx.max_steps:
        raise ctx.out_of_gas()
    if fn.writes and not ro:
        ctx.dirty[id(acct)] = acct
    fr = Frame(ctx, acct, sender, value, ro, fn.nslots)
    fr.fn = fn
    loc = fr.l
    loc[: len(args)] = args
    for slot, t in fn.ret_init:
        loc[slot] = default_value(t)
    if fn.mods:
        _run_modifiers(fr, fn, 0)
    else:
        fn.body(fr)
    ctx.depth -= 1
    r = fr.ret
    if r is None:
        return [loc[s] for s in fn.ret_slots]
    return r


def _run_modifiers(fr: Frame, fn: CompiledFunction, i: int) -> None:
    if i == len(fn.mods):
        fn.body(fr)
        return
    mdef, argfns = fn.mods[i]
    mfr = Frame(fr.ctx, fr.acct, fr.sender, fr.value, fr.ro, mdef.nslots)
    mfr.cdef = fr.cdef
    for k, a in enumerate(argfns):
        mfr.l[k] = a(fr)
    mfr.ph = lambda: _run_modifiers(fr, fn, i + 1)
    assert mdef.body is not None
    mdef.body(mfr)


# ======================================================================= the compiler


class UnitCompiler:
    """Compiles one source unit into :class:`ContractDef` objects."""

    def __init__(self, unit: A.SourceUnit, source: str, vm: str) -> None:
        self.unit = unit
        self.source = source
        self.vm = vm
        self.contracts: dict[str, ContractDef] = {}
        self.file_types: dict[str, Type] = {}
        self.file_functions: list[A.FunctionDecl] = []
        self.file_errors: dict[str, A.ErrorDecl] = {}
        self.pragma_solidvm: str | None = None
        for name, value in unit.pragmas:
            if name == "solidvm":
                self.pragma_solidvm = value

    def error(self, msg: str, node: A.Node | A.Pos) -> NoReturn:
        pos = node if isinstance(node, tuple) else node.pos
        raise CompileError(msg, pos[0], pos[1])

    # ------------------------------------------------------------ phases

    def compile(self) -> dict[str, ContractDef]:
        decls: list[A.ContractDecl] = []
        for item in self.unit.items:
            if isinstance(item, A.ContractDecl):
                if item.name in self.contracts:
                    self.error(f"contract '{item.name}' is declared twice", item)
                self.contracts[item.name] = ContractDef(
                    item.name, item.kind, item, self.vm, self.source
                )
                self.contracts[item.name].pragma_solidvm = self.pragma_solidvm
                decls.append(item)
            elif isinstance(item, A.StructDecl):
                self.file_types[item.name] = StructType(item.name)
            elif isinstance(item, A.EnumDecl):
                self.file_types[item.name] = EnumType(item.name, item.values)
            elif isinstance(item, A.FunctionDecl):
                self.file_functions.append(item)
            elif isinstance(item, A.ErrorDecl):
                self.file_errors[item.name] = item
        for item in self.unit.items:
            if isinstance(item, A.StructDecl):
                st = self.file_types[item.name]
                assert isinstance(st, StructType)
                st.set_fields(
                    [(f.name or "", self.resolve_type(f.type, None)) for f in item.fields]
                )
        for item in self.unit.items:
            if isinstance(item, A.StructDecl):
                self.check_size(self.file_types[item.name], item)
        for d in decls:
            self.linearize(self.contracts[d.name], [])
        for d in decls:
            self.declare_types(self.contracts[d.name])
        for d in decls:
            self.visible_types(self.contracts[d.name])
        for d in decls:
            self.resolve_struct_fields(self.contracts[d.name])
        ordered = sorted(self.contracts.values(), key=lambda c: len(c.linearization))
        for c in ordered:
            self.declare_members(c)
        for c in ordered:
            self.merge_inherited(c)
        for c in ordered:
            self.compile_bodies(c)
        return self.contracts

    def linearize(self, c: ContractDef, stack: list[str]) -> list[ContractDef]:
        if c.linearization:
            return c.linearization
        if c.name in stack:
            self.error(f"cyclic inheritance involving '{c.name}'", c.decl or (1, 1))
        assert c.decl is not None
        parents: list[ContractDef] = []
        for b in c.decl.bases:
            name = b.path[-1]
            p = self.contracts.get(name)
            if p is None:
                self.error(f"base contract '{name}' is not declared", b)
            parents.append(p)
        seqs = [list(self.linearize(p, [*stack, c.name])) for p in reversed(parents)]
        seqs.append(list(reversed(parents)))
        result = [c]
        while True:
            seqs = [s for s in seqs if s]
            if not seqs:
                break
            for s in seqs:
                head = s[0]
                if not any(head in t[1:] for t in seqs):
                    break
            else:
                self.error(f"linearization of inheritance graph impossible for '{c.name}'", c.decl)
            result.append(head)
            for s in seqs:
                if s and s[0] is head:
                    s.pop(0)
        c.linearization = result
        return result

    def declare_types(self, c: ContractDef) -> None:
        assert c.decl is not None
        for part in c.decl.parts:
            if isinstance(part, A.StructDecl):
                c.own_types[part.name] = StructType(part.name)
            elif isinstance(part, A.EnumDecl):
                if len(set(part.values)) != len(part.values):
                    self.error(f"enum '{part.name}' has duplicate values", part)
                c.own_types[part.name] = EnumType(part.name, part.values)

    def visible_types(self, c: ContractDef) -> dict[str, Type]:
        if not c.types:
            types: dict[str, Type] = dict(self.file_types)
            for base in reversed(c.linearization):
                types.update(base.own_types)
            c.types = types
        return c.types

    def resolve_struct_fields(self, c: ContractDef) -> None:
        assert c.decl is not None
        for part in c.decl.parts:
            if isinstance(part, A.StructDecl):
                st = c.own_types[part.name]
                assert isinstance(st, StructType)
                st.set_fields([(f.name or "", self.resolve_type(f.type, c)) for f in part.fields])
        for part in c.decl.parts:
            if isinstance(part, A.StructDecl):
                self.check_size(c.own_types[part.name], part)

    def resolve_type(self, tn: A.TypeName, c: ContractDef | None) -> Type:
        if isinstance(tn, A.ElementaryTypeName):
            if tn.name == "var":
                self.error("'var' is not allowed here", tn)
            return elementary(tn.name, tn.payable)
        if isinstance(tn, A.ArrayTypeName):
            base = self.resolve_type(tn.base, c)
            length = None
            if tn.length is not None:
                length = self.const_int(tn.length, c)
                if length <= 0 or length > 1_000_000:
                    self.error("array length must be between 1 and 1000000", tn.length)
            return ArrayType(base, length)
        if isinstance(tn, A.MappingTypeName):
            key = self.resolve_type(tn.key, c)
            if key.complex:
                self.error(f"mapping keys cannot be of type {key.name}", tn.key)
            return MappingType(key, self.resolve_type(tn.value, c))
        assert isinstance(tn, A.UserTypeName)
        path = tn.path
        if len(path) == 1:
            name = path[0]
            if c is not None:
                t = self.visible_types(c).get(name)
                if t is not None:
                    return t
            elif name in self.file_types:
                return self.file_types[name]
            if name in self.contracts:
                return ContractType(name)
            self.error(f"unknown type '{name}'", tn)
        if len(path) == 2 and path[0] in self.contracts:
            t = self.contracts[path[0]].own_types.get(path[1])
            if t is None:
                for b in self.contracts[path[0]].linearization:
                    t = b.own_types.get(path[1])
                    if t is not None:
                        break
            if t is not None:
                return t
        self.error(f"unknown type '{'.'.join(path)}'", tn)

    def check_size(self, t: Type, node: A.Node) -> Type:
        """Reject types whose zero value alone would be huge, or that contain themselves."""
        try:
            cells = static_cells(t, [])
        except RecursionError:
            self.error(f"type {t.name} contains itself", node)
        if cells > MAX_STATIC_CELLS:
            self.error(f"type {t.name} is too large ({cells} elements)", node)
        return t

    def const_int(self, e: A.Expr, c: ContractDef | None) -> int:
        if isinstance(e, A.NumberLit):
            return e.value
        if isinstance(e, A.Ident) and c is not None:
            for base in c.linearization:
                assert base.decl is not None
                for part in base.decl.parts:
                    if (
                        isinstance(part, A.StateVarDecl)
                        and part.name == e.name
                        and part.constant
                        and part.init is not None
                    ):
                        return self.const_int(part.init, c)
        if isinstance(e, A.Binary) and e.op in ("+", "-", "*", "**"):
            a, b = self.const_int(e.left, c), self.const_int(e.right, c)
            return {"+": a + b, "-": a - b, "*": a * b, "**": a**b if b < 64 else 0}[e.op]
        self.error("array length must be a constant integer", e)

    def declare_members(self, c: ContractDef) -> None:
        assert c.decl is not None
        seen: set[str] = set()
        for part in c.decl.parts:
            if isinstance(part, A.StateVarDecl):
                if part.name in RESERVED_NAMES:
                    self.error(
                        f"'{part.name}' is a reserved name (a column of every Cirrus table)", part
                    )
                if part.name in seen:
                    self.error(f"identifier '{part.name}' is already declared", part)
                seen.add(part.name)
                sv_type = self.check_size(self.resolve_type(part.type, c), part)
                sv = StateVar(part.name, sv_type, c.name, part)
                c.own_svars.append(sv)
            elif isinstance(part, A.EventDecl):
                params = [
                    (p.name or f"#{i}", self.resolve_type(p.type, c), p.indexed)
                    for i, p in enumerate(part.params)
                ]
                c.events[part.name] = EventDef(part.name, params, c.name, part.anonymous)
            elif isinstance(part, A.ErrorDecl):
                c.errors[part.name] = [
                    (p.name or f"#{i}", self.resolve_type(p.type, c))
                    for i, p in enumerate(part.params)
                ]
            elif isinstance(part, A.ModifierDecl):
                m = ModifierDef(part.name, c.name, part)
                m.params = [(p.name or "", self.resolve_type(p.type, c)) for p in part.params]
                c.modifiers[part.name] = m
            elif isinstance(part, A.FunctionDecl):
                fn = self.declare_function(c, part)
                if part.kind == "constructor" or (part.kind == "function" and part.name == c.name):
                    fn.is_ctor = True
                    fn.name = "constructor"
                    if c.constructor is not None:
                        self.error("a contract can have only one constructor", part)
                    c.constructor = fn
                else:
                    c.own_functions.append(fn)
        # public getters for public state variables
        for sv in c.own_svars:
            if sv.public:
                c.own_functions.append(self.make_getter(c, sv))

    def declare_function(self, c: ContractDef, d: A.FunctionDecl) -> CompiledFunction:
        fn = CompiledFunction(d.name or d.kind, c.name, d)
        fn.params = [
            (p.name or f"#{i}", self.resolve_type(p.type, c)) for i, p in enumerate(d.params)
        ]
        fn.returns = [(p.name, self.resolve_type(p.type, c)) for p in d.returns]
        default_vis = "external" if c.kind == "interface" else "public"
        fn.visibility = d.visibility or default_vis
        fn.mutability = d.mutability
        fn.payable = d.mutability == "payable"
        fn.writes = d.mutability not in ("view", "pure")
        return fn

    def make_getter(self, c: ContractDef, sv: StateVar) -> CompiledFunction:
        fn = CompiledFunction(sv.name, c.name, None)
        fn.getter_of = sv
        fn.visibility = "external"
        fn.mutability = "view"
        fn.writes = False
        t = sv.type
        params: list[tuple[str, Type]] = []
        while True:
            if isinstance(t, MappingType):
                params.append((f"key{len(params)}" if params else "key", t.key))
                t = t.value
            elif isinstance(t, ArrayType):
                params.append((f"index{len(params)}" if params else "index", UINT))
                t = t.elem
            else:
                break
        fn.params = params
        if isinstance(t, StructType):
            fn.returns = [(n, ft) for n, ft in t.fields if not ft.complex]
        else:
            fn.returns = [(None, t)]
        fn.nslots = len(params)
        fn.param_coercers = [make_coercer(pt, self.vm) for _, pt in params]
        name = sv.name
        const = sv.constant
        leaf = t
        nparams = len(params)

        def getter(fr: Frame) -> None:
            v = sv._const_fn(fr) if const and sv._const_fn else fr.st[name]
            for k in range(nparams):
                key = fr.l[k]
                if isinstance(v, MappingValue):
                    v = v.get(key, MISSING)
                    if v is MISSING:
                        v = default_value(v_type_of(params, k, sv.type))
                elif isinstance(v, ArrayValue):
                    if type(key) is not int or not 0 <= key < len(v):
                        raise index_error(key, len(v))
                    v = v[key]
            if isinstance(leaf, StructType):
                fr.ret = [v[n] for n, ft in leaf.fields if not ft.complex]
            else:
                fr.ret = [v]

        fn.body = getter
        return fn

    def merge_inherited(self, c: ContractDef) -> None:
        # storage layout and lookups, bases first so derived declarations win
        svars: dict[str, StateVar] = {}
        layout: list[StateVar] = []
        events: dict[str, EventDef] = {}
        modifiers: dict[str, ModifierDef] = {}
        errors: dict[str, list[tuple[str, Type]]] = {}
        functions: dict[tuple[str, int], CompiledFunction] = {}
        for base in reversed(c.linearization):
            for sv in base.own_svars:
                if sv.name in svars and svars[sv.name] is not sv:
                    assert sv.decl is not None
                    self.error(f"state variable '{sv.name}' shadows an inherited one", sv.decl)
                if sv.name not in svars:
                    layout.append(sv)
                svars[sv.name] = sv
            events.update({k: v for k, v in base.events.items() if v.cname == base.name})
            modifiers.update({k: v for k, v in base.modifiers.items() if v.cname == base.name})
            errors.update(base.errors)
            for fn in base.own_functions:
                functions[(fn.name, len(fn.params))] = fn
        c.state_vars = layout
        c.svars = svars
        c.events = events
        c.modifiers = modifiers
        c.errors = errors
        c.vtable = functions
        by_name: dict[str, list[CompiledFunction]] = {}
        for (name, _), fn in functions.items():
            by_name.setdefault(name, []).append(fn)
        c.functions = by_name
        # super lookups: for each contract in the linearization, the next implementation after it
        lin = c.linearization
        for i, base in enumerate(lin):
            for fn in base.own_functions:
                key = (base.name, fn.name, len(fn.params))
                for nxt in lin[i + 1 :]:
                    impl = next(
                        (
                            g
                            for g in nxt.own_functions
                            if g.name == fn.name
                            and len(g.params) == len(fn.params)
                            and g.decl
                            and g.decl.body is not None
                        ),
                        None,
                    )
                    if impl is not None:
                        c.super_table[key] = impl
                        break

    def compile_bodies(self, c: ContractDef) -> None:
        assert c.decl is not None
        for sv in c.own_svars:
            if sv.decl.init is not None:
                fc = FunctionCompiler(self, c, None)
                init, _ = fc.expr(sv.decl.init)
                coerce = make_coercer(sv.type, self.vm)
                sv.init = _coerced(init, coerce)
                if sv.constant:
                    sv._const_fn = sv.init
                if fc.nslots:
                    self.error("state variable initializers cannot declare variables", sv.decl)
            elif sv.constant:
                self.error(f"constant '{sv.name}' needs a value", sv.decl)
        base_names = {b.name for b in c.bases()}
        for b in c.decl.bases:
            if b.args is not None:
                fc = FunctionCompiler(self, c, None)
                c.base_args[b.path[-1]] = ("is", [fc.expr(a)[0] for a in b.args])
        for m in c.modifiers.values():
            if m.cname == c.name:
                self.compile_modifier(c, m)
        fns = list(c.own_functions)
        if c.constructor is not None:
            fns.append(c.constructor)
        for fn in fns:
            if fn.getter_of is not None:
                continue
            d = fn.decl
            assert d is not None
            if d.body is None:
                if c.kind not in ("interface", "abstract") and not d.virtual:
                    self.error(f"function '{fn.name}' has no body", d)
                continue
            if c.kind == "interface":
                self.error("functions in interfaces cannot have a body", d)
            fc = FunctionCompiler(self, c, fn)
            fc.compile_function(d, base_names)

    def compile_modifier(self, c: ContractDef, m: ModifierDef) -> None:
        fc = FunctionCompiler(self, c, None)
        fc.in_modifier = True
        fc.push_scope()
        for name, t in m.params:
            fc.declare(name, t, m.decl)
        if m.decl.body is None:
            self.error(f"modifier '{m.name}' has no body", m.decl)
        m.body = fc.block(m.decl.body)
        fc.pop_scope()
        m.nslots = fc.nslots


MAX_STATIC_CELLS = 1_000_000
RESERVED_NAMES = {
    "block_timestamp",
    "block_hash",
    "block_number",
    "record_id",
    "transaction_hash",
    "transaction_sender",
}


def static_cells(t: Type, stack: list[str]) -> int:
    """Number of values a zero value of ``t`` allocates; RecursionError for self-containment."""
    if isinstance(t, StructType):
        if t.name in stack:
            raise RecursionError(t.name)
        stack.append(t.name)
        n = 1 + sum(static_cells(ft, stack) for _, ft in t.fields)
        stack.pop()
        return n
    if isinstance(t, ArrayType) and t.length is not None:
        return t.length * static_cells(t.elem, stack)
    return 1


def v_type_of(params: list[tuple[str, Type]], k: int, t: Type) -> Type:
    """Type reached after applying the first ``k+1`` getter keys to a state variable type."""
    for _ in range(k + 1):
        if isinstance(t, MappingType):
            t = t.value
        elif isinstance(t, ArrayType):
            t = t.elem
    return t


def _coerced(f: Fn, c: Coercer | None) -> Fn:
    if c is None:
        return f
    return lambda fr: c(f(fr))


def _const(v: Any) -> Fn:
    return lambda fr: v


def _fresh(t: Type) -> Fn:
    return lambda fr: default_value(t)


# ======================================================================= function bodies


class LocalVar:
    __slots__ = ("location", "slot", "type")

    def __init__(self, slot: int, type_: Type | None, location: str | None) -> None:
        self.slot = slot
        self.type = type_
        self.location = location


class FunctionCompiler:
    """Compiles the bodies of one function (or modifier, or initializer) of contract ``c``."""

    def __init__(self, uc: UnitCompiler, c: ContractDef, fn: CompiledFunction | None) -> None:
        self.uc = uc
        self.c = c
        self.fn = fn
        self.vm = uc.vm
        self.scopes: list[dict[str, LocalVar]] = []
        self.nslots = 0
        self.in_modifier = False
        self.loop_depth = 0

    def error(self, msg: str, node: A.Node | A.Pos) -> NoReturn:
        self.uc.error(msg, node)

    # ------------------------------------------------------------ scopes

    def push_scope(self) -> None:
        self.scopes.append({})

    def pop_scope(self) -> None:
        self.scopes.pop()

    def declare(self, name: str, t: Type | None, node: A.Node, location: str | None = None) -> int:
        if name in self.scopes[-1]:
            self.error(f"identifier '{name}' is already declared", node)
        slot = self.nslots
        self.nslots += 1
        if name:
            self.scopes[-1][name] = LocalVar(slot, t, location)
        return slot

    def lookup_local(self, name: str) -> LocalVar | None:
        for s in reversed(self.scopes):
            v = s.get(name)
            if v is not None:
                return v
        return None

    # ------------------------------------------------------------ functions

    def compile_function(self, d: A.FunctionDecl, base_names: set[str]) -> None:
        fn = self.fn
        assert fn is not None and d.body is not None
        self.push_scope()
        for (_, t), p in zip(fn.params, d.params, strict=True):
            self.declare(p.name or "", t, p, p.location)
        fn.param_coercers = [make_coercer(t, self.vm) for _, t in fn.params]
        ret_slots: list[int] = []
        ret_init: list[tuple[int, Type]] = []
        for (rname, t), p in zip(fn.returns, d.returns, strict=True):
            slot = self.declare(rname or "", t, p)
            ret_slots.append(slot)
            ret_init.append((slot, t))
        fn.ret_slots = ret_slots
        fn.ret_init = ret_init
        mods: list[tuple[ModifierDef, list[Fn]]] = []
        for inv in d.modifiers:
            name = inv.path[-1]
            if fn.is_ctor and name in base_names:
                self.c.ctor_base_args[name] = [self.expr(a)[0] for a in (inv.args or [])]
                continue
            m = self.c.modifiers.get(name)
            if m is None:
                self.error(f"modifier '{name}' is not declared", inv)
            args = inv.args or []
            if len(args) != len(m.params):
                self.error(
                    f"modifier '{name}' takes {len(m.params)} arguments, {len(args)} given", inv
                )
            mods.append((m, [self._arg(a, t) for a, (_, t) in zip(args, m.params, strict=True)]))
        fn.mods = mods
        fn.body = self.block(d.body, new_scope=False)
        self.pop_scope()
        fn.nslots = self.nslots

    def _arg(self, e: A.Expr, t: Type) -> Fn:
        f, _ = self.expr(e)
        return _coerced(f, make_coercer(t, self.vm))

    # ------------------------------------------------------------ statements

    def block(self, b: A.Block, new_scope: bool = True) -> Fn:
        if new_scope:
            self.push_scope()
        fns = [self.stmt(s) for s in b.stmts]
        if new_scope:
            self.pop_scope()
        n = len(fns)
        if n == 0:

            def run0(fr: Frame) -> Any:
                return None

            return run0
        if n == 1:
            (f0,) = fns

            def run1(fr: Frame) -> Any:
                ctx = fr.ctx
                ctx.steps += 1
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                return f0(fr)

            return run1
        if n == 2:
            f0, f1 = fns

            def run2(fr: Frame) -> Any:
                ctx = fr.ctx
                ctx.steps += 2
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                r = f0(fr)
                if r is not None:
                    return r
                return f1(fr)

            return run2
        if n == 3:
            f0, f1, f2 = fns

            def run3(fr: Frame) -> Any:
                ctx = fr.ctx
                ctx.steps += 3
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                r = f0(fr)
                if r is not None:
                    return r
                r = f1(fr)
                if r is not None:
                    return r
                return f2(fr)

            return run3

        def run(fr: Frame) -> Any:
            ctx = fr.ctx
            ctx.steps += n
            if ctx.steps > ctx.max_steps:
                raise ctx.out_of_gas()
            for f in fns:
                r = f(fr)
                if r is not None:
                    return r
            return None

        return run

    def stmt(self, s: A.Stmt) -> Fn:
        if isinstance(s, A.ExprStmt):
            f, _ = self.expr(s.expr, statement=True)

            def run_expr(fr: Frame) -> Any:
                f(fr)

            return run_expr
        if isinstance(s, A.VarDecl):
            return self.var_decl(s)
        if isinstance(s, A.Block):
            return self.block(s)
        if isinstance(s, A.If):
            return self.if_stmt(s)
        if isinstance(s, A.For):
            return self.for_stmt(s)
        if isinstance(s, A.While):
            return self.while_stmt(s)
        if isinstance(s, A.DoWhile):
            return self.do_while_stmt(s)
        if isinstance(s, A.Break):
            if not self.loop_depth:
                self.error("'break' outside of a loop", s)
            return _const(BREAK)
        if isinstance(s, A.Continue):
            if not self.loop_depth:
                self.error("'continue' outside of a loop", s)
            return _const(CONTINUE)
        if isinstance(s, A.Return):
            return self.return_stmt(s)
        if isinstance(s, A.Emit):
            return self.emit_stmt(s)
        if isinstance(s, A.Placeholder):
            if not self.in_modifier:
                self.error("'_' is only allowed inside a modifier", s)

            def run_ph(fr: Frame) -> Any:
                fr.ph()

            return run_ph
        if isinstance(s, A.RevertError):
            return self.revert_error(s)
        self.error(f"unsupported statement {type(s).__name__}", s)

    def var_decl(self, s: A.VarDecl) -> Fn:
        if s.tuple_form:
            assert s.init is not None
            init, it = self.expr(s.init)
            slots: list[tuple[int, Coercer | None] | None] = []
            types = it.items if isinstance(it, TupleType) else [None] * len(s.slots)
            if isinstance(it, TupleType) and len(it.items) != len(s.slots):
                self.error(
                    f"tuple has {len(it.items)} components but {len(s.slots)} are declared", s
                )
            for vs, vt in zip(s.slots, types, strict=False):
                if vs is None:
                    slots.append(None)
                    continue
                t = self.uc.resolve_type(vs.type, self.c) if vs.type is not None else vt
                slot = self.declare(vs.name, t, vs, vs.location)
                slots.append((slot, make_coercer(t, self.vm)))
            n = len(slots)

            def run_tuple_decl(fr: Frame) -> Any:
                vals = init(fr)
                if not isinstance(vals, tuple) or len(vals) != n:
                    raise type_error("tuple size mismatch in declaration")
                loc = fr.l
                for entry, v in zip(slots, vals, strict=True):
                    if entry is not None:
                        slot, co = entry
                        loc[slot] = co(v) if co else v
                return None

            return run_tuple_decl
        vs = s.slots[0]
        assert vs is not None
        if vs.type is None:
            if s.init is None:
                self.error("'var' declarations need an initial value", s)
            init, t = self.expr(s.init)
            slot = self.declare(vs.name, t, vs, vs.location)

            def run_var(fr: Frame) -> Any:
                fr.l[slot] = init(fr)

            return run_var
        t = self.uc.check_size(self.uc.resolve_type(vs.type, self.c), vs)
        if s.init is None:
            slot = self.declare(vs.name, t, vs, vs.location)
            if t.complex:

                def run_default_complex(fr: Frame) -> Any:
                    fr.l[slot] = default_value(t)

                return run_default_complex
            dv = default_value(t)

            def run_default(fr: Frame) -> Any:
                fr.l[slot] = dv

            return run_default
        init, it = self.expr(s.init, vivify=vs.location == "storage")
        self.check_assignable(it, t, s.init)
        co = make_coercer(t, self.vm)
        copy = t.complex and vs.location == "memory"
        slot = self.declare(vs.name, t, vs, vs.location)
        if copy:

            def run_copy(fr: Frame) -> Any:
                v = init(fr)
                fr.l[slot] = copy_in(fr, co(v) if co else v)

            return run_copy
        if co is None:

            def run_plain(fr: Frame) -> Any:
                fr.l[slot] = init(fr)

            return run_plain

        def run_coerce(fr: Frame) -> Any:
            fr.l[slot] = co(init(fr))

        return run_coerce

    def check_assignable(self, src: Type | None, dst: Type, node: A.Node) -> None:
        """Catch the obvious static type mismatches at compile time."""
        if src is None or isinstance(src, TupleType):
            return
        groups = (
            (IntType, EnumType),
            (BoolType,),
            (StringType, BytesType),
            (AddressType, AccountType, ContractType, IntType),
        )
        if type(src) is type(dst):
            return
        for g in groups:
            if isinstance(src, g) and isinstance(dst, g):
                return
        if isinstance(src, IntType) and isinstance(dst, BytesType):
            return
        self.error(f"type {src.name} is not implicitly convertible to {dst.name}", node)

    def if_stmt(self, s: A.If) -> Fn:
        cond = self.cond(s.cond)
        then = self.stmt_scoped(s.then)
        if s.other is None:

            def run_if(fr: Frame) -> Any:
                if cond(fr):
                    return then(fr)
                return None

            return run_if
        other = self.stmt_scoped(s.other)

        def run_if_else(fr: Frame) -> Any:
            if cond(fr):
                return then(fr)
            return other(fr)

        return run_if_else

    def stmt_scoped(self, s: A.Stmt) -> Fn:
        self.push_scope()
        f = self.stmt(s)
        self.pop_scope()
        return f

    def cond(self, e: A.Expr) -> Fn:
        f, t = self.expr(e)
        if t is not None and not isinstance(t, BoolType):
            self.error(f"condition must be a bool, not {t.name}", e)
        if t is None:

            def check_bool(fr: Frame) -> bool:
                return _bool(f(fr))

            return check_bool
        return f

    def loop_body(self, body: A.Stmt) -> Fn:
        self.loop_depth += 1
        f = self.stmt_scoped(body)
        self.loop_depth -= 1
        return f

    def while_stmt(self, s: A.While) -> Fn:
        cond = self.cond(s.cond)
        body = self.loop_body(s.body)

        def run_while(fr: Frame) -> Any:
            ctx = fr.ctx
            while cond(fr):
                ctx.steps += 1
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                r = body(fr)
                if r is not None:
                    if r == BREAK:
                        break
                    if r == CONTINUE:
                        continue
                    return r
            return None

        return run_while

    def do_while_stmt(self, s: A.DoWhile) -> Fn:
        body = self.loop_body(s.body)
        cond = self.cond(s.cond)

        def run_do(fr: Frame) -> Any:
            ctx = fr.ctx
            while True:
                ctx.steps += 1
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                r = body(fr)
                if r is not None:
                    if r == BREAK:
                        break
                    if r != CONTINUE:
                        return r
                if not cond(fr):
                    break
            return None

        return run_do

    def for_stmt(self, s: A.For) -> Fn:
        self.push_scope()
        init = self.stmt(s.init) if s.init is not None else None
        cond = self.cond(s.cond) if s.cond is not None else None
        post = self.expr(s.post, statement=True)[0] if s.post is not None else None
        body = self.loop_body(s.body)
        self.pop_scope()

        def run_for(fr: Frame) -> Any:
            ctx = fr.ctx
            if init is not None:
                init(fr)
            while cond is None or cond(fr):
                ctx.steps += 1
                if ctx.steps > ctx.max_steps:
                    raise ctx.out_of_gas()
                r = body(fr)
                if r is not None:
                    if r == BREAK:
                        break
                    if r != CONTINUE:
                        return r
                if post is not None:
                    post(fr)
            return None

        return run_for

    def return_stmt(self, s: A.Return) -> Fn:
        if self.in_modifier:
            if s.value is not None:
                self.error("modifiers cannot return values", s)
            return _const(RETURN)
        fn = self.fn
        if fn is None:
            self.error("'return' outside of a function", s)
        rtypes = [t for _, t in fn.returns]
        if s.value is None:
            if rtypes and not any(n for n, _ in fn.returns):
                pass  # bare return in a function with unnamed returns returns defaults

            def run_ret_none(fr: Frame) -> Any:
                return RETURN

            return run_ret_none
        if not rtypes:
            self.error("function has no return values", s)
        if len(rtypes) == 1:
            f, t = self.expr(s.value)
            if t is not None:
                self.check_assignable(t, rtypes[0], s.value)
            co = make_coercer(rtypes[0], self.vm)
            if co is None:

                def run_ret1(fr: Frame) -> Any:
                    fr.ret = [f(fr)]
                    return RETURN

                return run_ret1

            def run_ret1c(fr: Frame) -> Any:
                fr.ret = [co(f(fr))]
                return RETURN

            return run_ret1c
        f, t = self.expr(s.value)
        if isinstance(t, TupleType) and len(t.items) != len(rtypes):
            self.error(f"function returns {len(rtypes)} values, {len(t.items)} given", s.value)
        cos = [make_coercer(rt, self.vm) for rt in rtypes]
        n = len(rtypes)

        def run_retn(fr: Frame) -> Any:
            vals = f(fr)
            if not isinstance(vals, tuple) or len(vals) != n:
                raise type_error(f"expected {n} return values")
            fr.ret = [c(v) if c else v for c, v in zip(cos, vals, strict=True)]
            return RETURN

        return run_retn

    def find_event(self, e: A.Expr) -> EventDef:
        name = e.name if isinstance(e, A.Ident) else e.name if isinstance(e, A.Member) else None
        if name is None:
            self.error("expected an event name after 'emit'", e)
        ev = self.c.events.get(name)
        if ev is None:
            self.error(f"event '{name}' is not declared", e)
        return ev

    def emit_stmt(self, s: A.Emit) -> Fn:
        ev = self.find_event(s.event)
        return self.emit_code(ev, s.args, s.names, s)

    def emit_code(
        self, ev: EventDef, args: list[A.Expr], names: list[str] | None, node: A.Node
    ) -> Fn:
        if len(args) != len(ev.params):
            self.error(
                f"event '{ev.name}' takes {len(ev.params)} arguments but {len(args)} were given",
                node,
            )
        if names is not None:
            by_name = dict(zip(names, args, strict=True))
            try:
                args = [by_name[p[0]] for p in ev.params]
            except KeyError as k:
                self.error(f"event '{ev.name}' has no argument {k}", node)
        fns = [self._arg(a, t) for a, (_, t, _) in zip(args, ev.params, strict=True)]

        def run_emit(fr: Frame) -> Any:
            if fr.ro:
                raise ExecutionError(
                    "invalid write: cannot emit events from a read-only call", "invalid write"
                )
            # events live in the transaction context, which a failure discards whole
            fr.ctx.events.append((fr.acct, ev, [copy_in(fr, f(fr)) for f in fns]))
            return None

        return run_emit

    def revert_error(self, s: A.RevertError) -> Fn:
        name = s.error.name if isinstance(s.error, (A.Ident, A.Member)) else "?"
        params = self.c.errors.get(name)
        if params is None and name in self.uc.file_errors:
            d = self.uc.file_errors[name]
            params = [(p.name or "", self.uc.resolve_type(p.type, self.c)) for p in d.params]
        if params is None:
            self.error(f"error '{name}' is not declared", s)
        if len(params) != len(s.args):
            self.error(f"error '{name}' takes {len(params)} arguments", s)
        fns = [self.expr(a)[0] for a in s.args]

        def run_revert_error(fr: Frame) -> Any:
            vals = [_display(f(fr)) for f in fns]
            raise ExecutionError(f"custom user error: {name}({', '.join(vals)})", "custom error")

        return run_revert_error

    # ------------------------------------------------------------ expressions

    def expr(self, e: A.Expr, statement: bool = False, vivify: bool = False) -> CExpr:
        m = getattr(self, "x_" + type(e).__name__, None)
        if m is None:
            self.error(f"unsupported expression {type(e).__name__}", e)
        if vivify and isinstance(e, (A.Index, A.Member)):
            return m(e, True)  # type: ignore[no-any-return]
        if isinstance(e, A.Unary) and statement:
            return m(e, statement)  # type: ignore[no-any-return]
        return m(e)  # type: ignore[no-any-return]

    def x_NumberLit(self, e: A.NumberLit) -> CExpr:
        return _const(e.value), LITERAL

    def x_StringLit(self, e: A.StringLit) -> CExpr:
        return _const(e.value), STRING

    def x_HexLit(self, e: A.HexLit) -> CExpr:
        return _const(e.value), BYTES

    def x_BoolLit(self, e: A.BoolLit) -> CExpr:
        return _const(e.value), BOOL

    def x_TupleExpr(self, e: A.TupleExpr) -> CExpr:
        items = [self.expr(i) if i is not None else None for i in e.items]
        fns = [i[0] if i is not None else _const(None) for i in items]
        t = TupleType([i[1] if i is not None else None for i in items])
        if len(fns) == 2:
            f0, f1 = fns
            return (lambda fr: (f0(fr), f1(fr))), t
        return (lambda fr: tuple(f(fr) for f in fns)), t

    def x_ArrayLit(self, e: A.ArrayLit) -> CExpr:
        if not e.items:
            self.error("empty array literal", e)
        items = [self.expr(i) for i in e.items]
        et = next((t for _, t in items if t is not None and t is not LITERAL), items[0][1])
        if et is None or et is LITERAL:
            et = UINT
        at = ArrayType(et, len(items))
        fns = [f for f, _ in items]
        n = len(fns)

        def run_array(fr: Frame) -> Any:
            fr.ctx.charge_memory(n)
            return ArrayValue(at, [copy_in(fr, f(fr)) for f in fns])

        return run_array, at

    # ---------------------------------------------------------------- identifiers

    def x_Ident(self, e: A.Ident) -> CExpr:
        name = e.name
        lv = self.lookup_local(name)
        if lv is not None:
            slot = lv.slot
            return (lambda fr: fr.l[slot]), lv.type
        sv = self.c.svars.get(name)
        if sv is not None:
            if sv.constant:
                return self.constant_ref(sv, e)
            return (lambda fr: fr.st[name]), sv.type
        if name == "now":
            return (lambda fr: fr.ctx.timestamp), UINT
        if name == "this":
            cname = self.c.name
            return (lambda fr: ContractRef(fr.cdef.name if fr.cdef else cname, fr.acct.address)), (
                ContractType(cname)
            )
        if name in ("msg", "tx", "block", "super", "abi"):
            self.error(f"'{name}' cannot be used as a value", e)
        if name in self.c.functions:
            self.error(f"function '{name}' must be called", e)
        self.error(f"undeclared identifier '{name}'", e)

    def constant_ref(self, sv: StateVar, e: A.Node) -> CExpr:
        def const_value(fr: Frame) -> Any:
            f = sv._const_fn
            if f is None:
                raise ExecutionError(f"constant '{sv.name}' is not initialized", "internal error")
            return f(fr)

        if sv.decl.init is not None and isinstance(sv.decl.init, (A.NumberLit, A.StringLit)):
            v = sv.decl.init.value
            co = make_coercer(sv.type, self.vm)
            v = co(v) if co else v
            return _const(v), sv.type
        return const_value, sv.type

    # ---------------------------------------------------------------- members

    def x_Member(self, e: A.Member, vivify: bool = False) -> CExpr:
        obj = e.obj
        name = e.name
        if (
            isinstance(obj, A.Ident)
            and self.lookup_local(obj.name) is None
            and (obj.name not in self.c.svars)
        ):
            special = self.special_member(obj.name, name, e)
            if special is not None:
                return special
        if isinstance(obj, A.Member) and isinstance(obj.obj, A.Ident):
            # C.E.V : enum value of another contract
            owner = self.uc.contracts.get(obj.obj.name)
            if owner is not None:
                et = owner.types.get(obj.name) or owner.own_types.get(obj.name)
                if isinstance(et, EnumType):
                    return self.enum_value(et, name, e)
        base, bt = self.expr(obj, vivify=vivify)
        if isinstance(bt, StructType):
            if name not in bt.field_types:
                self.error(f"struct {bt.name} has no member '{name}'", e)
            ft = bt.field_types[name]
            return (lambda fr: base(fr)[name]), ft
        if name == "length":
            if isinstance(bt, (ArrayType, BytesType)):
                return (lambda fr: len(base(fr))), UINT
            if isinstance(bt, StringType):
                return (lambda fr: len(base(fr).encode())), UINT
        if isinstance(bt, (AddressType, AccountType, ContractType)) or bt is None:
            if name == "chainId":
                return (lambda fr: _chain_id_of(fr, base(fr))), UINT
            if name == "balance":
                return (
                    lambda fr: fr.ctx.world.balance_of(_chain_key(fr, base(fr)), base(fr))
                ), UINT
            if name in ("codehash", "code"):

                def code_of(fr: Frame) -> Any:
                    a = base(fr)
                    acct = fr.ctx.world.accounts.get((_chain_key(fr, a), a.value))
                    if acct is None or acct.cdef is None:
                        return b""
                    data = acct.cdef.source.encode()
                    return keccak256(data) if name == "codehash" else data

                return code_of, BYTES32 if name == "codehash" else BYTES
        if isinstance(bt, ContractType):
            target = self.uc.contracts.get(bt.name)
            if target is not None and target.find_function(name) is None:
                self.error(f"contract {bt.name} has no member '{name}'", e)
            self.error(f"function '{name}' of {bt.name} must be called", e)
        if bt is None:
            return (lambda fr: _dyn_member(fr, base(fr), name)), None
        self.error(f"type {bt.name} has no member '{name}'", e)

    def enum_value(self, et: EnumType, name: str, e: A.Node) -> CExpr:
        if name not in et.index:
            self.error(f"enum {et.name} has no value '{name}'", e)
        return _const(et.index[name]), et

    def special_member(self, oname: str, name: str, e: A.Member) -> CExpr | None:
        types = self.c.types
        if oname in types and isinstance(types[oname], EnumType):
            et = types[oname]
            assert isinstance(et, EnumType)
            return self.enum_value(et, name, e)
        if oname == "msg":
            if name == "sender":
                return (lambda fr: fr.sender), ACCOUNT
            if name == "value":
                return (lambda fr: fr.value), UINT
            if name in ("data", "sig"):
                return _const(b""), BYTES
            self.error(f"'msg' has no member '{name}'", e)
        if oname == "tx":
            if name == "origin":
                return (lambda fr: fr.ctx.origin), ACCOUNT
            if name == "gasprice":
                return _const(1), UINT
            field = {
                "username": "commonName",
                "organization": "organization",
                "organizationalUnit": "organizationalUnit",
                "group": "organizationalUnit",
                "certificate": "certString",
            }.get(name)
            if field is None:
                self.error(f"'tx' has no member '{name}'", e)

            def tx_field(fr: Frame) -> Any:
                cert = fr.ctx.world.identities.get(fr.ctx.origin.value)
                return cert.get(field, "") if cert else ""

            return tx_field, STRING
        if oname == "block":
            if name == "timestamp":
                return (lambda fr: fr.ctx.timestamp), UINT
            if name == "number":
                return (lambda fr: fr.ctx.block_number), UINT
            if name == "coinbase":
                return _const(Address(0)), ADDRESS
            if name == "difficulty":
                return _const(0), UINT
            if name == "gaslimit":
                return (lambda fr: fr.ctx.max_steps), UINT
            self.error(f"'block' has no member '{name}'", e)
        if oname in self.uc.contracts:
            owner = self.uc.contracts[oname]
            t = owner.own_types.get(name)
            if t is None:
                for b in owner.linearization:
                    t = b.own_types.get(name)
                    if t:
                        break
            if t is None:
                sv = owner.svars.get(name)
                if sv is not None and sv.constant:
                    return self.constant_ref(sv, e)
                self.error(f"'{name}' must be called on an instance of {oname}", e)
            self.error(f"type '{oname}.{name}' cannot be used as a value", e)
        return None

    # ---------------------------------------------------------------- indexing

    def x_Index(self, e: A.Index, vivify: bool = False) -> CExpr:
        if e.index is None:
            self.error("index expression expected", e)
        base, bt = self.expr(e.obj, vivify=vivify)
        key, kt = self.expr(e.index)
        if isinstance(bt, MappingType):
            vt = bt.value
            kco = make_coercer(bt.key, self.vm) if not _key_ok(kt, bt.key) else None
            if kco is not None:
                key = _coerced(key, kco)
            if vt.complex:
                if vivify:

                    def map_vivify(fr: Frame) -> Any:
                        m = base(fr)
                        k = key(fr)
                        v = m.get(k, MISSING)
                        if v is MISSING:
                            v = default_value(vt)
                            jset_dict(fr, m, k, v)
                        return v

                    return map_vivify, vt

                def map_complex(fr: Frame) -> Any:
                    v = base(fr).get(key(fr), MISSING)
                    return default_value(vt) if v is MISSING else v

                return map_complex, vt
            dv = default_value(vt)
            return (lambda fr: base(fr).get(key(fr), dv)), vt
        if isinstance(bt, ArrayType):
            et = bt.elem

            def arr_index(fr: Frame) -> Any:
                a = base(fr)
                i = key(fr)
                if type(i) is int and 0 <= i < len(a):
                    return a[i]
                raise index_error(i, len(a))

            return arr_index, et
        if isinstance(bt, BytesType):

            def bytes_index(fr: Frame) -> Any:
                b = base(fr)
                i = key(fr)
                if type(i) is int and 0 <= i < len(b):
                    return b[i : i + 1]
                raise index_error(i, len(b))

            return bytes_index, BytesType(1)
        if bt is None:
            return (lambda fr: _dyn_index(fr, base(fr), key(fr), vivify)), None
        self.error(f"type {bt.name} cannot be indexed", e)

    # ---------------------------------------------------------------- operators

    def x_Unary(self, e: A.Unary, statement: bool = False) -> CExpr:
        op = e.op
        if op in ("++", "--"):
            return self.incdec(e, statement)
        if op == "delete":
            return self.delete(e)
        f, t = self.expr(e.operand)
        if op == "!":
            if t is not None and not isinstance(t, BoolType):
                self.error(f"'!' needs a bool, not {t.name}", e)
            return (lambda fr: not _bool(f(fr))), BOOL
        if op == "-":
            if isinstance(e.operand, A.NumberLit):
                v = -e.operand.value
                return _const(v), LITERAL
            self.expect_int(t, e)
            wrap = self.wrapper(t)
            if wrap:
                return (lambda fr: wrap(-_check_int(f(fr)))), t
            return (lambda fr: -_check_int(f(fr))), t
        if op == "+":
            return f, t
        if op == "~":
            self.expect_int(t, e)
            if self.vm == "EVM" and isinstance(t, IntType) and t is not LITERAL:
                w = t.wrap
                return (lambda fr: w(~_check_int(f(fr)))), t
            if isinstance(t, IntType) and not t.signed and t is not LITERAL:
                # SolidVM: bitwise not of an unsigned value flips its 256 bits
                mask = (1 << t.bits) - 1
                return (lambda fr: _check_int(f(fr)) ^ mask), t
            return (lambda fr: ~_check_int(f(fr))), t
        self.error(f"unknown operator '{op}'", e)

    def expect_int(self, t: Type | None, node: A.Node) -> None:
        if t is not None and not isinstance(t, IntType):
            self.error(f"operator needs an integer operand, not {t.name}", node)

    def wrapper(self, t: Type | None) -> Callable[[int], int] | None:
        if self.vm == "EVM" and isinstance(t, IntType) and t is not LITERAL:
            return t.wrap
        return None

    def incdec(self, e: A.Unary, statement: bool) -> CExpr:
        ref, get, put, t = self.lvalue(e.operand)
        self.expect_int(t, e)
        delta = 1 if e.op == "++" else -1
        wrap = self.wrapper(t)
        prefix = e.prefix

        def run_incdec(fr: Frame) -> Any:
            c, k = ref(fr)
            old = _check_int(get(c, k))
            new = old + delta
            if wrap is not None:
                new = wrap(new)
            put(fr, c, k, new)
            return new if prefix else old

        return run_incdec, t

    def delete(self, e: A.Unary) -> CExpr:
        target = e.operand
        if isinstance(target, A.Index):
            base, bt = self.expr(target.obj, vivify=True)
            if isinstance(bt, MappingType):
                assert target.index is not None
                key, kt = self.expr(target.index)
                if not _key_ok(kt, bt.key):
                    key = _coerced(key, make_coercer(bt.key, self.vm))

                def run_del_key(fr: Frame) -> Any:
                    jdel_dict(fr, base(fr), key(fr))

                return run_del_key, None
        ref, _get, put, t = self.lvalue(target, vivify_base=True)
        if t is None:
            self.error("cannot delete this expression", e)

        def run_delete(fr: Frame) -> Any:
            c, k = ref(fr)
            put(fr, c, k, default_value(t))

        return run_delete, None

    def x_Binary(self, e: A.Binary) -> CExpr:
        op = e.op
        if op in ("&&", "||"):
            a = self.cond(e.left)
            b = self.cond(e.right)
            if op == "&&":
                return (lambda fr: a(fr) and b(fr)), BOOL
            return (lambda fr: a(fr) or b(fr)), BOOL
        fa, ta = self.expr(e.left)
        fb, tb = self.expr(e.right)
        return self.binop(op, fa, ta, fb, tb, e)

    def binop(self, op: str, fa: Fn, ta: Type | None, fb: Fn, tb: Type | None, e: A.Node) -> CExpr:
        if op in ("==", "!="):
            if op == "==":
                return (lambda fr: _eq(fa(fr), fb(fr))), BOOL
            return (lambda fr: not _eq(fa(fr), fb(fr))), BOOL
        if op in ("<", ">", "<=", ">="):
            for t in (ta, tb):
                if t is not None and not isinstance(
                    t, (IntType, EnumType, AddressType, AccountType, StringType, BytesType)
                ):
                    self.error(f"operator '{op}' cannot compare {t.name}", e)
            return _mk_cmp(fa, fb, op), BOOL
        rt = _result_type(ta, tb)
        if op == "+" and (
            isinstance(ta, (StringType, BytesType))
            or isinstance(tb, (StringType, BytesType))
            or ta is None
            or tb is None
        ):
            if isinstance(ta, StringType) or isinstance(tb, StringType):
                rt = STRING
            elif isinstance(ta, BytesType) or isinstance(tb, BytesType):
                rt = BYTES

            def add_any(fr: Frame) -> Any:
                return op_add_any(fr, fa(fr), fb(fr))

            return add_any, rt
        for t in (ta, tb):
            if t is not None and not isinstance(t, (IntType, EnumType)):
                self.error(f"operator '{op}' needs integer operands, not {t.name}", e)
        wrap = self.wrapper(rt)
        f = _arith(op, fa, fb)
        if wrap is not None:
            inner = f
            return (lambda fr: wrap(inner(fr))), rt
        return f, rt

    def x_Ternary(self, e: A.Ternary) -> CExpr:
        c = self.cond(e.cond)
        a, ta = self.expr(e.then)
        b, tb = self.expr(e.other)
        t = ta if ta is not None and ta is not LITERAL else tb
        return (lambda fr: a(fr) if c(fr) else b(fr)), t

    # ---------------------------------------------------------------- assignment

    def x_Assign(self, e: A.Assign) -> CExpr:
        if isinstance(e.target, A.TupleExpr):
            return self.tuple_assign(e)
        op = e.op
        target = e.target
        if op == "=" and isinstance(target, A.Ident):
            lv = self.lookup_local(target.name)
            val, vt = self.expr(e.value)
            if lv is not None:
                if lv.type is not None:
                    self.check_assignable(vt, lv.type, e.value)
                co = make_coercer(lv.type, self.vm)
                slot = lv.slot
                if co is None:

                    def set_local(fr: Frame) -> Any:
                        v = fr.l[slot] = val(fr)
                        return v

                    return set_local, lv.type

                conv = co

                def set_local_c(fr: Frame) -> Any:
                    v = fr.l[slot] = conv(val(fr))
                    return v

                return set_local_c, lv.type
            sv = self.c.svars.get(target.name)
            if sv is not None and not sv.constant:
                self.check_assignable(vt, sv.type, e.value)
                co = make_coercer(sv.type, self.vm)
                name = sv.name
                cp = sv.type.complex

                def set_state(fr: Frame) -> Any:
                    v = val(fr)
                    if co is not None:
                        v = co(v)
                    if cp:
                        v = copy_in(fr, v)
                    jset_dict(fr, fr.st, name, v)
                    return v

                return set_state, sv.type
        ref, get, put, t = self.lvalue(target)
        val, vt = self.expr(e.value)
        if op == "=":
            if t is not None:
                self.check_assignable(vt, t, e.value)
            co = make_coercer(t, self.vm)
            cp = t is not None and t.complex

            def assign(fr: Frame) -> Any:
                c, k = ref(fr)
                v = val(fr)
                if co is not None:
                    v = co(v)
                if cp:
                    v = copy_in(fr, v)
                put(fr, c, k, v)
                return v

            return assign, t
        bop = op[:-1]
        comb, _ = self.binop(bop, _slot0, t, _slot1, vt, e)
        co = make_coercer(t, self.vm)

        def compound(fr: Frame) -> Any:
            c, k = ref(fr)
            v = comb_values(fr, comb, get(c, k), val(fr))
            if co is not None:
                v = co(v)
            put(fr, c, k, v)
            return v

        return compound, t

    def tuple_assign(self, e: A.Assign) -> CExpr:
        assert isinstance(e.target, A.TupleExpr)
        if e.op != "=":
            self.error("compound assignment to a tuple", e)
        targets: list[tuple[Any, Any, Coercer | None] | None] = []
        for item in e.target.items:
            if item is None:
                targets.append(None)
            else:
                ref, _get, put, t = self.lvalue(item)
                targets.append((ref, put, make_coercer(t, self.vm)))
        val, _ = self.expr(e.value)
        n = len(targets)

        def run_tuple_assign(fr: Frame) -> Any:
            vals = val(fr)
            if not isinstance(vals, tuple) or len(vals) != n:
                raise type_error("tuple size mismatch in assignment")
            refs = [(t[0](fr), t[1], t[2]) if t is not None else None for t in targets]
            for r, v in zip(refs, vals, strict=True):
                if r is not None:
                    (c, k), put, co = r
                    put(fr, c, k, copy_in(fr, co(v) if co else v))
            return vals

        return run_tuple_assign, None

    def lvalue(
        self, e: A.Expr, vivify_base: bool = True
    ) -> tuple[
        Callable[[Frame], tuple[Any, Any]],
        Callable[[Any, Any], Any],
        Callable[[Frame, Any, Any, Any], None],
        Type | None,
    ]:
        """(ref, get, put, type): ref evaluates the container and key once."""
        if isinstance(e, A.Ident):
            lv = self.lookup_local(e.name)
            if lv is not None:
                slot = lv.slot
                return (lambda fr: (fr.l, slot)), _get_item, _put_local, lv.type
            sv = self.c.svars.get(e.name)
            if sv is not None:
                if sv.constant:
                    self.error(f"cannot assign to constant '{sv.name}'", e)
                name = sv.name
                return (lambda fr: (fr.st, name)), _get_item, _put_dict, sv.type
            self.error(f"undeclared identifier '{e.name}'", e)
        if isinstance(e, A.Index):
            if e.index is None:
                self.error("index expression expected", e)
            base, bt = self.expr(e.obj, vivify=vivify_base)
            key, kt = self.expr(e.index)
            if isinstance(bt, MappingType):
                if not _key_ok(kt, bt.key):
                    key = _coerced(key, make_coercer(bt.key, self.vm))
                dv_t = bt.value

                def map_get(c: Any, k: Any) -> Any:
                    v = c.get(k, MISSING)
                    return default_value(dv_t) if v is MISSING else v

                return (lambda fr: (base(fr), key(fr))), map_get, _put_dict, bt.value
            if isinstance(bt, ArrayType):

                def arr_ref(fr: Frame) -> tuple[Any, Any]:
                    a = base(fr)
                    i = key(fr)
                    if type(i) is int and 0 <= i < len(a):
                        return a, i
                    raise index_error(i, len(a))

                return arr_ref, _get_item, _put_list, bt.elem
            if bt is None:

                def dyn_ref(fr: Frame) -> tuple[Any, Any]:
                    c = base(fr)
                    k = key(fr)
                    if isinstance(c, list) and not (type(k) is int and 0 <= k < len(c)):
                        raise index_error(k, len(c))
                    if not isinstance(c, (list, dict)):
                        raise type_error(f"cannot index {_describe(c)}")
                    return c, k

                return dyn_ref, _dyn_get, _dyn_put, None
            self.error(f"cannot assign to an element of {bt.name if bt else 'this value'}", e)
        if isinstance(e, A.Member):
            base, bt = self.expr(e.obj, vivify=vivify_base)
            name = e.name
            if isinstance(bt, StructType):
                if name not in bt.field_types:
                    self.error(f"struct {bt.name} has no member '{name}'", e)
                return (lambda fr: (base(fr), name)), _get_item, _put_dict, bt.field_types[name]
            if name == "length" and isinstance(bt, ArrayType) and bt.length is None:
                et = bt.elem
                return (lambda fr: (base(fr), None)), _len_get, _len_put_for(et), UINT
            if bt is None:
                return (lambda fr: (base(fr), name)), _dyn_get, _dyn_put, None
            self.error(f"cannot assign to member '{name}' of {bt.name}", e)
        self.error("expression is not assignable", e)

    # ---------------------------------------------------------------- calls

    def x_New(self, e: A.New) -> CExpr:
        self.error("'new' needs arguments: new C(...)", e)

    def x_TypeExpr(self, e: A.TypeExpr) -> CExpr:
        self.error("a type cannot be used as a value", e)

    def x_Call(self, e: A.Call) -> CExpr:
        func = e.func
        if e.names is not None:
            args = self.named_args(e)
        else:
            args = e.args
        if isinstance(func, A.TypeExpr):
            return self.cast(func.type, args, e)
        if isinstance(func, A.New):
            return self.new_expr(func, args, e)
        if isinstance(func, A.Ident):
            return self.call_ident(func.name, args, e)
        if isinstance(func, A.Member):
            return self.call_member(func, args, e)
        self.error("expression is not callable", e)

    def named_args(self, e: A.Call) -> list[A.Expr]:
        assert e.names is not None
        params: list[str] | None = None
        func = e.func
        if isinstance(func, A.Ident):
            fns = self.c.functions.get(func.name)
            if fns:
                params = [p for p, _ in fns[0].params]
            st = self.c.types.get(func.name)
            if isinstance(st, StructType):
                params = [n for n, _ in st.fields]
            ev = self.c.events.get(func.name)
            if ev is not None:
                params = [p[0] for p in ev.params]
        elif isinstance(func, A.Member):
            for c in self.uc.contracts.values():
                f = c.find_function(func.name, len(e.args))
                if f is not None:
                    params = [p for p, _ in f.params]
                    break
        if params is None:
            self.error("cannot resolve the parameters of this named-argument call", e)
        by_name = dict(zip(e.names, e.args, strict=True))
        missing = [p for p in params if p not in by_name]
        extra = [n for n in e.names if n not in params]
        if missing or extra:
            self.error(f"named arguments do not match the parameters ({', '.join(params)})", e)
        return [by_name[p] for p in params]

    def call_ident(self, name: str, args: list[A.Expr], e: A.Call) -> CExpr:
        if self.lookup_local(name) is None:
            builtin = getattr(self, "b_" + name, None)
            if builtin is not None and name not in self.c.functions:
                return builtin(args, e)  # type: ignore[no-any-return]
        fns = self.c.functions.get(name)
        if fns:
            fn = next((f for f in fns if len(f.params) == len(args)), None)
            if fn is None:
                self.error(
                    f"function '{name}' takes {len(fns[0].params)} arguments, {len(args)} given", e
                )
            return self.internal_call(fn, args, e)
        t = self.c.types.get(name)
        if isinstance(t, StructType):
            if len(args) != len(t.fields):
                self.error(f"struct {name} has {len(t.fields)} members, {len(args)} given", e)
            fns2 = [self._arg(a, ft) for a, (_, ft) in zip(args, t.fields, strict=True)]
            names = [n for n, _ in t.fields]
            st = t

            def make_struct(fr: Frame) -> Any:
                return StructValue(
                    st, {n: copy_in(fr, f(fr)) for n, f in zip(names, fns2, strict=True)}
                )

            return make_struct, t
        if isinstance(t, EnumType) or name in self.uc.contracts:
            target = t if t is not None else ContractType(name)
            if len(args) != 1:
                self.error(f"conversion to {name} takes one argument", e)
            f, _ = self.expr(args[0])
            vm = self.vm
            return (lambda fr: convert(f(fr), target, vm)), target
        ev = self.c.events.get(name)
        if ev is not None:  # pre-0.4.21 event invocation without `emit`
            return self.emit_code(ev, args, None, e), None
        self.error(f"undeclared function '{name}'", e)

    def internal_call(self, fn: CompiledFunction, args: list[A.Expr], e: A.Node) -> CExpr:
        argfns = [self._arg(a, t) for a, (_, t) in zip(args, fn.params, strict=True)]
        key = (fn.name, len(fn.params))
        rt = _ret_type(fn)
        nret = len(fn.returns)
        n = len(argfns)

        def call_internal(fr: Frame) -> Any:
            target = fr.cdef.vtable.get(key, fn) if fr.cdef is not None else fn
            vals = [a(fr) for a in argfns] if n else []
            r = invoke(fr.ctx, target, fr.acct, vals, fr.sender, fr.value, fr.ro)
            return _unpack(r, nret)

        return call_internal, rt

    def static_call(self, fn: CompiledFunction, args: list[A.Expr], e: A.Node) -> CExpr:
        """A call of one exact implementation (``Base.f()``, ``super.f()`` resolved)."""
        argfns = [self._arg(a, t) for a, (_, t) in zip(args, fn.params, strict=True)]
        nret = len(fn.returns)

        def call_static(fr: Frame) -> Any:
            vals = [a(fr) for a in argfns]
            r = invoke(fr.ctx, fn, fr.acct, vals, fr.sender, fr.value, fr.ro)
            return _unpack(r, nret)

        return call_static, _ret_type(fn)

    def call_member(self, func: A.Member, args: list[A.Expr], e: A.Call) -> CExpr:
        obj = func.obj
        name = func.name
        if (
            isinstance(obj, A.Ident)
            and self.lookup_local(obj.name) is None
            and (obj.name not in self.c.svars)
        ):
            o = obj.name
            if o == "super":
                return self.super_call(name, args, e)
            if o == "abi" and name in ("encodePacked", "encode", "encodeWithSignature"):
                fns = [self.expr(a)[0] for a in args]
                return (lambda fr: pack([f(fr) for f in fns])), BYTES
            if o in ("string", "bytes") and name == "concat":
                fns = [self.expr(a)[0] for a in args]
                if o == "string":
                    return (lambda fr: _concat_str(fr, [f(fr) for f in fns])), STRING
                return (lambda fr: _concat_bytes(fr, [f(fr) for f in fns])), BYTES
            if o in self.uc.contracts and o != "this":
                owner = self.uc.contracts[o]
                fn = owner.find_function(name, len(args))
                if fn is None and owner.constructor is not None and name == o:
                    fn = None
                if fn is not None and (owner in self.c.linearization or owner.kind == "library"):
                    if fn.getter_of is None and fn.decl is not None and fn.decl.body is None:
                        self.error(f"function '{o}.{name}' has no implementation", e)
                    # Base.f(): exactly that implementation (or the nearest one it inherits)
                    impl = self._impl_in(owner, name, len(args)) or fn
                    return self.static_call(impl, args, e)
                if fn is None:
                    self.error(f"contract {o} has no function '{name}'", e)
            if o == "this":
                return self.external_call(
                    (lambda fr: ContractRef(fr.cdef.name, fr.acct.address)),
                    ContractType(self.c.name),
                    name,
                    args,
                    e,
                )
        base, bt = self.expr(obj, vivify=name in ("push", "pop"))
        if isinstance(bt, ArrayType) or (bt is None and name in ("push", "pop")):
            if name == "push":
                return self.array_push(base, bt, args, e)
            if name == "pop":
                if args:
                    self.error("pop() takes no arguments", e)
                return (lambda fr: jpop(fr, base(fr))), bt.elem if bt else None
        if isinstance(bt, BytesType) and name == "push":
            self.error("push on bytes is not supported; use string concatenation", e)
        if name in ("transfer", "send") and (
            isinstance(bt, (AddressType, AccountType)) or bt is None
        ):
            if len(args) != 1:
                self.error(f"{name} takes one argument", e)
            amount, _ = self.expr(args[0])
            is_send = name == "send"

            def run_transfer(fr: Frame) -> Any:
                ok = fr.ctx.world.transfer_value(fr, base(fr), _check_int(amount(fr)), is_send)
                return ok if is_send else None

            return run_transfer, BOOL if is_send else None
        if isinstance(bt, (ContractType, AddressType, AccountType)) or bt is None:
            return self.external_call(base, bt, name, args, e)
        self.error(f"type {bt.name} has no function '{name}'", e)

    def _impl_in(self, owner: ContractDef, name: str, n: int) -> CompiledFunction | None:
        for b in owner.linearization:
            for f in b.own_functions:
                if (
                    f.name == name
                    and len(f.params) == n
                    and (
                        f.getter_of is not None or (f.decl is not None and f.decl.body is not None)
                    )
                ):
                    return f
        return None

    def super_call(self, name: str, args: list[A.Expr], e: A.Call) -> CExpr:
        me = self.c.name
        key = (me, name, len(args))
        # compile-time check that some base implements it
        found = None
        for b in self.c.linearization[1:]:
            found = self._impl_in(b, name, len(args))
            if found:
                break
        if found is None:
            self.error(f"no base contract implements '{name}' for super", e)
        argfns = [self._arg(a, t) for a, (_, t) in zip(args, found.params, strict=True)]
        nret = len(found.returns)

        def call_super(fr: Frame) -> Any:
            impl = fr.cdef.super_table.get(key, found)
            vals = [a(fr) for a in argfns]
            r = invoke(fr.ctx, impl, fr.acct, vals, fr.sender, fr.value, fr.ro)
            return _unpack(r, nret)

        return call_super, _ret_type(found)

    def array_push(self, base: Fn, bt: Type | None, args: list[A.Expr], e: A.Call) -> CExpr:
        et = bt.elem if isinstance(bt, ArrayType) else None
        if isinstance(bt, ArrayType) and bt.length is not None:
            self.error("push is not available on fixed-size arrays", e)
        if not args:
            if et is None:
                self.error("push() without a value needs a known element type", e)

            def push_default(fr: Frame) -> Any:
                v = default_value(et)
                jpush(fr, base(fr), v)
                return v

            return push_default, et
        if len(args) != 1:
            self.error("push takes one argument", e)
        val, vt = self.expr(args[0])
        if et is not None:
            self.check_assignable(vt, et, args[0])
        co = make_coercer(et, self.vm)
        cp = et is None or et.complex

        def push(fr: Frame) -> Any:
            a = base(fr)
            if not isinstance(a, list):
                raise type_error(f"push on {_describe(a)}")
            v = val(fr)
            if co is not None:
                v = co(v)
            if cp:
                v = copy_in(fr, v)
            jpush(fr, a, v)
            return len(a)

        return push, UINT

    def external_call(
        self, base: Fn, bt: Type | None, name: str, args: list[A.Expr], e: A.Call
    ) -> CExpr:
        fn: CompiledFunction | None = None
        if isinstance(bt, ContractType):
            target = self.uc.contracts.get(bt.name)
            if target is not None:
                fn = target.find_function(name, len(args))
                if fn is None:
                    self.error(
                        f"contract {bt.name} has no function '{name}' taking {len(args)} arguments",
                        e,
                    )
                if not fn.external:
                    self.error(f"function '{name}' of {bt.name} is not visible from outside", e)
        if fn is not None:
            argfns = [self._arg(a, t) for a, (_, t) in zip(args, fn.params, strict=True)]
            rt = _ret_type(fn)
        else:
            argfns = [self.expr(a)[0] for a in args]
            rt = None
        nargs = len(args)

        def call_external(fr: Frame) -> Any:
            target = base(fr)
            vals = [copy_in(fr, a(fr)) for a in argfns]
            r = fr.ctx.world.call_from(fr, target, name, vals, nargs)
            return r

        return call_external, rt

    def new_expr(self, n: A.New, args: list[A.Expr], e: A.Call) -> CExpr:
        tn = n.type
        if isinstance(tn, A.ArrayTypeName):
            at = self.uc.resolve_type(tn, self.c)
            assert isinstance(at, ArrayType)
            if len(args) != 1:
                self.error("new array needs exactly one length argument", e)
            size, _ = self.expr(args[0])
            et = at.elem

            def new_array(fr: Frame) -> Any:
                k = _check_int(size(fr))
                if k < 0:
                    raise type_error("negative array length")
                fr.ctx.charge_memory(k)
                if et.complex:
                    return ArrayValue(at, [default_value(et) for _ in range(k)])
                return ArrayValue(at, [default_value(et)] * k)

            return new_array, ArrayType(et, None)
        if isinstance(tn, A.ElementaryTypeName) and tn.name in ("bytes", "string"):
            size, _ = self.expr(args[0])
            s = tn.name

            def new_bytes(fr: Frame) -> Any:
                k = _check_int(size(fr))
                fr.ctx.charge_memory(k)
                return bytes(k) if s == "bytes" else "\0" * k

            return new_bytes, BYTES if s == "bytes" else STRING
        if not isinstance(tn, A.UserTypeName):
            self.error("'new' needs a contract or array type", e)
        cname = tn.path[-1]
        target = self.uc.contracts.get(cname)
        if target is None:
            self.error(f"contract '{cname}' is not declared", e)
        if target.kind in ("interface", "library", "abstract"):
            self.error(f"cannot create an instance of {target.kind} '{cname}'", e)
        if target is self.c or self.c in target.linearization:
            self.error(f"contract '{cname}' cannot create itself", e)
        ctor = target.constructor
        params = ctor.params if ctor else []
        if len(args) != len(params):
            self.error(
                f"constructor of {cname} takes {len(params)} arguments, {len(args)} given", e
            )
        argfns = [self._arg(a, t) for a, (_, t) in zip(args, params, strict=True)]

        def new_contract(fr: Frame) -> Any:
            vals = [copy_in(fr, a(fr)) for a in argfns]
            acct = fr.ctx.world.create_from(fr, target, vals)
            return ContractRef(cname, acct.address)

        return new_contract, ContractType(cname)

    def cast(self, tn: A.TypeName, args: list[A.Expr], e: A.Call) -> CExpr:
        if isinstance(tn, A.ElementaryTypeName) and tn.name == "account":
            return self.account_ctor(args, e)
        t = self.uc.resolve_type(tn, self.c)
        if len(args) != 1:
            self.error(f"conversion to {t.name} takes one argument", e)
        f, _ = self.expr(args[0])
        vm = self.vm
        return (lambda fr: convert(f(fr), t, vm)), t

    def account_ctor(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if not 1 <= len(args) <= 3:
            self.error("account() takes an address and an optional chain", e)
        af, _ = self.expr(args[0])
        if len(args) == 1:
            return (lambda fr: convert(af(fr), ACCOUNT, "SolidVM")), ACCOUNT
        cf, _ = self.expr(args[1])
        nf = self.expr(args[2])[0] if len(args) == 3 else None

        def make_account(fr: Frame) -> Any:
            a = convert(af(fr), ACCOUNT, "SolidVM")
            spec = cf(fr)
            return Address(a.value, _resolve_chain_spec(fr, spec, nf(fr) if nf else None))

        return make_account, ACCOUNT

    # ---------------------------------------------------------------- builtins

    def b_require(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if not 1 <= len(args) <= 2:
            self.error("require takes a condition and an optional message", e)
        c = self.cond(args[0])
        if len(args) == 1:

            def req(fr: Frame) -> Any:
                if not c(fr):
                    raise require_failed(None)

            return req, None
        m, _ = self.expr(args[1])

        def req_msg(fr: Frame) -> Any:
            if not c(fr):
                raise require_failed(_display(m(fr)))

        return req_msg, None

    def b_assert(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != 1:
            self.error("assert takes one condition", e)
        c = self.cond(args[0])

        def run_assert(fr: Frame) -> Any:
            if not c(fr):
                raise assert_failed()

        return run_assert, None

    def b_revert(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) > 1:
            self.error("revert takes an optional message", e)
        if not args:

            def run_revert(fr: Frame) -> Any:
                raise reverted(None)

            return run_revert, None
        m, _ = self.expr(args[0])

        def run_revert_msg(fr: Frame) -> Any:
            raise reverted(_display(m(fr)))

        return run_revert_msg, None

    def b_keccak256(self, args: list[A.Expr], e: A.Call) -> CExpr:
        fns = [self.expr(a)[0] for a in args]
        return (lambda fr: keccak256(pack([f(fr) for f in fns]))), BYTES32

    b_sha3 = b_keccak256

    def b_sha256(self, args: list[A.Expr], e: A.Call) -> CExpr:
        fns = [self.expr(a)[0] for a in args]
        return (lambda fr: hashlib.sha256(pack([f(fr) for f in fns])).digest()), BYTES32

    def b_ripemd160(self, args: list[A.Expr], e: A.Call) -> CExpr:
        fns = [self.expr(a)[0] for a in args]

        def run_ripemd(fr: Frame) -> Any:
            from Crypto.Hash import RIPEMD160

            h = RIPEMD160.new()
            h.update(pack([f(fr) for f in fns]))
            return bytes(h.digest())

        return run_ripemd, BytesType(20)

    def b_getUserCert(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) != 1:
            self.error("getUserCert takes one account", e)
        f, _ = self.expr(args[0])

        def get_cert(fr: Frame) -> Any:
            a = f(fr)
            if not isinstance(a, Address):
                raise type_error(f"getUserCert needs an account, got {_describe(a)}")
            cert = fr.ctx.world.identities.get(a.value) or {}
            m = MappingValue(CERT_MAPPING, cert)
            return m

        return get_cert, CERT_MAPPING

    def b_addmod(self, args: list[A.Expr], e: A.Call) -> CExpr:
        a, b, m = (self.expr(x)[0] for x in args)
        return (lambda fr: op_mod(a(fr) + b(fr), m(fr))), UINT

    def b_mulmod(self, args: list[A.Expr], e: A.Call) -> CExpr:
        a, b, m = (self.expr(x)[0] for x in args)
        return (lambda fr: op_mod(a(fr) * b(fr), m(fr))), UINT

    def b_blockhash(self, args: list[A.Expr], e: A.Call) -> CExpr:
        f, _ = self.expr(args[0])
        return (lambda fr: keccak256(str(f(fr)).encode())), BYTES32

    def b_selfdestruct(self, args: list[A.Expr], e: A.Call) -> CExpr:
        self.error("selfdestruct is not supported by this SolidVM version", e)

    def b_bytes32ToString(self, args: list[A.Expr], e: A.Call) -> CExpr:
        f, _ = self.expr(args[0])
        return (lambda fr: convert(f(fr), STRING, "SolidVM")), STRING

    def b_addressToAsciiString(self, args: list[A.Expr], e: A.Call) -> CExpr:
        f, _ = self.expr(args[0])
        return (lambda fr: convert(f(fr), ADDRESS, "SolidVM").hex), STRING

    def b_type(self, args: list[A.Expr], e: A.Call) -> CExpr:
        self.error("type(...) is not supported by this SolidVM version", e)


# ======================================================================= helpers for closures


def _slot0(fr: Frame) -> Any:
    return fr.l[0]


def _slot1(fr: Frame) -> Any:
    return fr.l[1]


class _Pair:
    """A two-slot pseudo-frame used to combine an old value with the right-hand side."""

    __slots__ = ("ctx", "l")

    def __init__(self, ctx: ExecContext, a: Any, b: Any) -> None:
        self.ctx = ctx
        self.l = [a, b]


def comb_values(fr: Frame, comb: Fn, old: Any, rhs: Any) -> Any:
    return comb(_Pair(fr.ctx, old, rhs))  # type: ignore[arg-type]


def _get_item(c: Any, k: Any) -> Any:
    return c[k]


def _put_local(fr: Frame, c: list[Any], k: int, v: Any) -> None:
    c[k] = v


def _put_dict(fr: Frame, c: dict[Any, Any], k: Any, v: Any) -> None:
    jset_dict(fr, c, k, v)


def _put_list(fr: Frame, c: list[Any], k: int, v: Any) -> None:
    jset_list(fr, c, k, v)


def _dyn_get(c: Any, k: Any) -> Any:
    if isinstance(c, MappingValue):
        v = c.get(k, MISSING)
        return default_value(c.mtype.value) if v is MISSING else v
    return c[k]


def _dyn_put(fr: Frame, c: Any, k: Any, v: Any) -> None:
    if isinstance(c, list):
        jset_list(fr, c, k, v)
    else:
        jset_dict(fr, c, k, v)


def _len_get(c: Any, k: Any) -> Any:
    return len(c)


def _len_put_for(et: Type) -> Callable[[Frame, Any, Any, Any], None]:
    def put(fr: Frame, c: Any, k: Any, v: Any) -> None:
        n = _check_int(v)
        if n < 0:
            raise type_error("negative array length")
        if n <= len(c):
            jreplace_list(fr, c, c[:n])
        else:
            fr.ctx.charge_memory(n - len(c))
            jreplace_list(fr, c, list(c) + [default_value(et) for _ in range(n - len(c))])

    return put


def _dyn_member(fr: Frame, v: Any, name: str) -> Any:
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
            return _chain_id_of(fr, v)
        if name == "balance":
            return fr.ctx.world.balance_of(_chain_key(fr, v), v)
    raise ExecutionError(f"missing field: {name} of {_describe(v)}", "missing field")


def _dyn_index(fr: Frame, c: Any, k: Any, vivify: bool) -> Any:
    if isinstance(c, MappingValue):
        v = c.get(k, MISSING)
        if v is MISSING:
            v = default_value(c.mtype.value)
            if vivify and c.mtype.value.complex:
                jset_dict(fr, c, k, v)
        return v
    if isinstance(c, (list, bytes)):
        if type(k) is int and 0 <= k < len(c):
            return c[k] if isinstance(c, list) else c[k : k + 1]
        raise index_error(k, len(c))
    raise type_error(f"cannot index {_describe(c)}")


def _chain_id_of(fr: Frame, a: Any) -> int:
    if not isinstance(a, Address):
        raise type_error(f"chainId of {_describe(a)}")
    c = a.chain
    if c is None:
        c = fr.acct.chain or "main"
    return 0 if c == "main" else int(c, 16)


def _resolve_chain_spec(fr: Frame, spec: Any, n: Any) -> str:
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
    raise type_error(f"invalid chain {_describe(spec)}")


def _key_ok(kt: Type | None, key: Type) -> bool:
    """True when keys of static type ``kt`` need no conversion for a mapping keyed by ``key``."""
    if kt is None:
        return isinstance(key, (IntType, StringType, BoolType, EnumType))
    if isinstance(key, (AddressType, AccountType, ContractType)):
        return isinstance(kt, (AddressType, AccountType, ContractType))
    if isinstance(key, BytesType):
        return isinstance(kt, BytesType)
    return True


def _eq(a: Any, b: Any) -> bool:
    ta = type(a)
    if ta is type(b):
        return bool(a == b)
    if isinstance(a, Address) or isinstance(b, Address):
        return bool(a == b)
    if ta is bool or type(b) is bool:
        return False
    return bool(a == b)


def _mk_cmp(fa: Fn, fb: Fn, op: str) -> Fn:
    def guard(a: Any, b: Any) -> None:
        ta, tb = type(a), type(b)
        if ta is bool or tb is bool:
            raise type_error("cannot order bools")
        if (ta is str) != (tb is str) and not (isinstance(a, Address) or isinstance(b, Address)):
            raise type_error(f"cannot compare {_describe(a)} with {_describe(b)}")

    if op == "<":

        def lt(fr: Frame) -> Any:
            a = fa(fr)
            b = fb(fr)
            if type(a) is int and type(b) is int:
                return a < b
            guard(a, b)
            return a < b

        return lt
    if op == ">":

        def gt(fr: Frame) -> Any:
            a = fa(fr)
            b = fb(fr)
            if type(a) is int and type(b) is int:
                return a > b
            guard(a, b)
            return a > b

        return gt
    if op == "<=":

        def le(fr: Frame) -> Any:
            a = fa(fr)
            b = fb(fr)
            if type(a) is int and type(b) is int:
                return a <= b
            guard(a, b)
            return a <= b

        return le

    def ge(fr: Frame) -> Any:
        a = fa(fr)
        b = fb(fr)
        if type(a) is int and type(b) is int:
            return a >= b
        guard(a, b)
        return a >= b

    return ge


def _int2(fa: Fn, fb: Fn, op: Callable[[int, int], int]) -> Fn:
    def run(fr: Frame) -> Any:
        a = fa(fr)
        b = fb(fr)
        if type(a) is not int or type(b) is not int:
            _check_int(a)
            _check_int(b)
        return op(a, b)

    return run


def _arith(op: str, fa: Fn, fb: Fn) -> Fn:
    if op == "+":

        def add(fr: Frame) -> Any:
            a = fa(fr)
            b = fb(fr)
            if type(a) is int and type(b) is int:
                return a + b
            return op_add_any(fr, a, b)

        return add
    if op == "-":

        def sub(fr: Frame) -> Any:
            a = fa(fr)
            b = fb(fr)
            if type(a) is int and type(b) is int:
                return a - b
            _check_int(a)
            _check_int(b)
            return a - b

        return sub
    table: dict[str, Callable[[int, int], int]] = {
        "*": op_mul,
        "/": op_div,
        "%": op_mod,
        "**": op_pow,
        "<<": op_shl,
        ">>": op_shr,
        ">>>": op_shr,
        "&": lambda a, b: a & b,
        "|": lambda a, b: a | b,
        "^": lambda a, b: a ^ b,
    }
    f = table.get(op)
    if f is None:
        raise ExecutionError(f"unknown operator {op}", "internal error")
    return _int2(fa, fb, f)


def _result_type(ta: Type | None, tb: Type | None) -> Type | None:
    if isinstance(ta, IntType) and ta is not LITERAL:
        return ta
    if isinstance(tb, IntType) and tb is not LITERAL:
        return tb
    if isinstance(ta, EnumType) or isinstance(tb, EnumType):
        return UINT
    if ta is LITERAL or tb is LITERAL:
        return LITERAL if (ta is LITERAL or ta is None) and (tb is LITERAL or tb is None) else UINT
    return ta or tb


def _ret_type(fn: CompiledFunction) -> Type | None:
    if len(fn.returns) == 1:
        return fn.returns[0][1]
    if not fn.returns:
        return None
    return TupleType([t for _, t in fn.returns])


def _unpack(r: list[Any], n: int) -> Any:
    if n == 1:
        return r[0]
    if n == 0:
        return None
    return tuple(r)


def _display(v: Any) -> str:
    """How a value reads inside an error message."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, Address):
        return v.account_text()
    return str(v)


def _concat_str(fr: Frame, parts: list[Any]) -> str:
    for p in parts:
        if type(p) is not str:
            raise type_error(f"string.concat needs strings, got {_describe(p)}")
    fr.ctx.charge_memory(sum(len(p) for p in parts))
    return "".join(parts)


def _concat_bytes(fr: Frame, parts: list[Any]) -> bytes:
    out = b"".join(p if type(p) is bytes else str(p).encode() for p in parts)
    fr.ctx.charge_memory(len(out))
    return out
