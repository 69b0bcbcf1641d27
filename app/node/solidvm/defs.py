"""What compiling produces: contracts, their functions, state variables, events and modifiers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import ast as A
from .runtime import Fn

if TYPE_CHECKING:
    from .runtime import Frame
from .types import (
    Type,
    abi_name,
)


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


class UsingDef:
    """``using L for T;`` (``target`` None for ``*``); ``text`` is T as written, for the xabi."""

    __slots__ = ("decl", "library", "target", "text")

    def __init__(
        self, library: ContractDef, target: Type | None, text: str, decl: A.UsingDecl
    ) -> None:
        self.library = library
        self.target = target
        self.text = text
        self.decl = decl


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
        self.sigtable: dict[str, CompiledFunction] = {}  # signature -> most derived override
        self.constructor: CompiledFunction | None = None
        self.base_args: dict[str, tuple[str, list[Fn]]] = {}  # base -> (where, arg fns)
        self.ctor_base_args: dict[str, list[Fn]] = {}
        self.super_table: dict[tuple[str, str, int], CompiledFunction] = {}
        self.unit: Any = None
        self.xabi: dict[str, Any] = {}  # filled by compile_source (abi.contract_xabi)
        self.pragma_solidvm: str | None = None  # `pragma solidvm X.Y` of its source, if any
        self.usings: list[UsingDef] = []  # its own `using L for T;` (not inherited)
        # its fallback as run for calls of other names (proxies.named_fallback)
        self.named_fallbacks: dict[str, CompiledFunction] = {}

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

    def __repr__(self) -> str:
        return f"<contract {self.name}>"


def _noop(fr: Frame) -> None:
    return None
