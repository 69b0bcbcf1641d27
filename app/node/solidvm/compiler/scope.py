"""File-level declarations and libraries, as the unit compiler sees them.

The file scope (free functions, file-level constants and value types) is compiled as one extra
:class:`ContractDef` of kind ``"file"`` that is not deployable and not listed among the unit's
contracts: its functions compile like library functions and run in the caller's account.
``using L for T;`` declarations are resolved per contract; like the platform, a library named
in ``using`` also lends the contract its types, constants and (non-private) functions by their
plain names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn, cast

from .. import ast as A
from ..defs import CompiledFunction, ContractDef, StateVar, UsingDef
from ..ops import make_coercer
from ..types import Type, UserDefinedType, elementary, user_defined
from .base import coerced

if TYPE_CHECKING:
    from .unit import UnitCompiler

FILE_KIND = "file"
FILE_SCOPE = "(file level)"


def type_text(tn: A.TypeName | None) -> str:
    """A type name as source text, for the xabi's ``using`` section (``*`` for None)."""
    if tn is None:
        return "*"
    if isinstance(tn, A.ElementaryTypeName):
        return tn.name + (" payable" if tn.payable else "")
    if isinstance(tn, A.UserTypeName):
        return ".".join(tn.path)
    if isinstance(tn, A.ArrayTypeName):
        n = tn.length
        size = n.text if isinstance(n, A.NumberLit) else (n.name if isinstance(n, A.Ident) else "")
        return f"{type_text(tn.base)}[{size}]"
    assert isinstance(tn, A.MappingTypeName)
    return f"mapping({type_text(tn.key)} => {type_text(tn.value)})"


class FileScopeMixin:
    """The unit compiler's phases for file-level declarations and ``using`` declarations."""

    if TYPE_CHECKING:
        unit: A.SourceUnit
        vm: str
        source: str
        contracts: dict[str, ContractDef]
        file_types: dict[str, Type]
        file_def: ContractDef

        def error(self, msg: str, node: A.Node | A.Pos) -> NoReturn: ...
        def resolve_type(self, tn: A.TypeName, c: ContractDef | None) -> Type: ...
        def check_size(self, t: Type, node: A.Node) -> Type: ...
        def declare_function(self, c: ContractDef, d: A.FunctionDecl) -> CompiledFunction: ...
        def merge_inherited(self, c: ContractDef) -> None: ...

    # ------------------------------------------------------------ value types

    def value_type(self, d: A.UserTypeDecl) -> UserDefinedType:
        u = d.underlying
        if not isinstance(u, A.ElementaryTypeName) or u.name == "var":
            self.error(
                f"user-defined value type '{d.name}' must be based on an elementary value type",
                u,
            )
        return user_defined(d.name, elementary(u.name, u.payable))

    def declare_file_type(self, d: A.UserTypeDecl) -> None:
        if d.name in self.file_types or d.name in self.contracts:
            self.error(f"type '{d.name}' is already declared", d)
        self.file_types[d.name] = self.value_type(d)

    # ------------------------------------------------------------ using ... for

    def collect_usings(self, c: ContractDef) -> None:
        """Find the library of every ``using`` of ``c`` (targets are resolved later)."""
        assert c.decl is not None
        for part in c.decl.parts:
            if not isinstance(part, A.UsingDecl):
                continue
            name = ".".join(part.library)
            lib = self.contracts.get(part.library[-1])
            if lib is None:
                self.error(f"library '{name}' is not declared", part)
            if lib.kind != "library":
                self.error(
                    f"'{name}' is a {lib.kind}, not a library: 'using' needs a library", part
                )
            c.usings.append(UsingDef(lib, None, type_text(part.target), part))

    def library_types(self, c: ContractDef, types: dict[str, Type]) -> None:
        """Types of the libraries ``c`` uses (and of the ones they use), where not shadowed."""
        seen = {c.name}
        todo = [u.library for u in c.usings]
        while todo:
            lib = todo.pop(0)
            if lib.name in seen:
                continue
            seen.add(lib.name)
            for k, t in lib.own_types.items():
                types.setdefault(k, t)
            todo.extend(u.library for u in lib.usings)

    def resolve_usings(self, c: ContractDef) -> None:
        for u in c.usings:
            if u.decl.target is not None:
                u.target = self.resolve_type(u.decl.target, c)

    def check_library(self, c: ContractDef) -> None:
        """What a library may not declare (it has no storage and is never deployed)."""
        assert c.decl is not None
        if c.kind != "library":
            return
        if c.decl.bases:
            self.error(f"library '{c.name}' cannot inherit from other contracts", c.decl.bases[0])
        for part in c.decl.parts:
            if isinstance(part, A.StateVarDecl) and not part.constant:
                self.error(
                    f"library '{c.name}' cannot have state variables (only constants): "
                    f"'{part.name}'",
                    part,
                )
            if isinstance(part, A.FunctionDecl) and part.kind == "constructor":
                self.error(f"library '{c.name}' cannot have a constructor", part)

    # ------------------------------------------------------------ file scope

    def new_file_scope(self) -> None:
        fd = ContractDef(FILE_SCOPE, FILE_KIND, None, self.vm, self.source)
        fd.linearization = [fd]
        self.file_def = fd

    def declare_file_members(self) -> None:
        """File-level constants and free function signatures (after all contract members)."""
        fd = self.file_def
        fd.types = dict(self.file_types)
        seen: set[str] = set()
        arities: set[tuple[str, int]] = set()
        for item in self.unit.items:
            if isinstance(item, A.StateVarDecl):
                if item.name in seen:
                    self.error(f"identifier '{item.name}' is already declared", item)
                seen.add(item.name)
                t = self.check_size(self.resolve_type(item.type, fd), item)
                fd.own_svars.append(StateVar(item.name, t, FILE_SCOPE, item))
            elif isinstance(item, A.FunctionDecl):
                fd.own_functions.append(self.declare_free_function(item, arities))
        self.merge_inherited(fd)

    def declare_free_function(
        self, d: A.FunctionDecl, arities: set[tuple[str, int]]
    ) -> CompiledFunction:
        if d.kind != "function" or not d.name:
            self.error("a function at file level needs a name", d)
        if d.visibility not in (None, "internal"):
            self.error(
                f"free function '{d.name}' cannot be {d.visibility}: free functions are "
                "always internal",
                d,
            )
        if d.modifiers:
            self.error(f"free function '{d.name}' cannot have modifiers", d.modifiers[0])
        if d.body is None:
            self.error(f"free function '{d.name}' has no body", d)
        key = (d.name, len(d.params))
        if key in arities:
            self.error(
                f"free function '{d.name}' with {len(d.params)} parameters is declared twice "
                "(overloads must differ in their number of parameters)",
                d,
            )
        arities.add(key)
        fn = self.declare_function(self.file_def, d)
        fn.visibility = "internal"
        return fn

    def compile_file_bodies(self) -> None:
        uc = cast("UnitCompiler", self)
        fd = self.file_def
        for sv in fd.own_svars:
            init = sv.decl.init
            assert init is not None  # the parser requires a value
            fc = uc.function_compiler(uc, fd, None)
            f, t = fc.expr(init)
            fc.check_assignable(t, sv.type, init)
            sv.init = sv._const_fn = coerced(f, make_coercer(sv.type, self.vm))
        for fn in fd.own_functions:
            assert fn.decl is not None
            uc.function_compiler(uc, fd, fn).compile_function(fn.decl, set())

    def file_constant(self, name: str) -> A.StateVarDecl | None:
        """The declaration of a file-level constant (for constant array lengths)."""
        for item in self.unit.items:
            if isinstance(item, A.StateVarDecl) and item.name == name:
                return item
        return None


__all__ = ["FILE_KIND", "FILE_SCOPE", "FileScopeMixin", "type_text"]
