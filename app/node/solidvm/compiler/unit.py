"""Unit compiler: declarations, inheritance and storage layout of every contract in a source."""

from __future__ import annotations

from typing import NoReturn

from .. import ast as A
from ..defs import CompiledFunction, ContractDef, EventDef, ModifierDef, StateVar
from ..errors import CompileError
from ..ops import (
    make_coercer,
    storage_read,
)
from ..runtime import (
    MISSING,
    Frame,
)
from ..types import (
    UINT,
    VARIADIC,
    ArrayType,
    ContractType,
    EnumType,
    MappingType,
    StructType,
    Type,
    VariadicType,
    elementary,
)
from ..values import (
    default_value,
)
from .base import coerced
from .checks import has_type_overloads, run_checks
from .function import FunctionCompiler
from .scope import FileScopeMixin


class UnitCompiler(FileScopeMixin):
    """Compiles one source unit into :class:`ContractDef` objects."""

    # the class that compiles bodies: the step debugger's compile swaps in one with hooks
    # (app/node/debug/compiler.py); the ordinary compile is untouched by it
    function_compiler: type[FunctionCompiler] = FunctionCompiler

    def __init__(
        self,
        unit: A.SourceUnit,
        source: str,
        vm: str,
        test_clock: bool = False,
        checks: bool = True,
    ) -> None:
        self.unit = unit
        self.test_clock = test_clock  # declares fastForward, as the platform's test runner
        self.checks = checks and vm == "SolidVM"  # the platform's static checks (checks.py)
        self.type_overloads = False  # same name and arity twice: argument types go unchecked
        self.source = source
        self.vm = vm
        self.contracts: dict[str, ContractDef] = {}
        self.file_types: dict[str, Type] = {}
        self.file_functions: list[A.FunctionDecl] = []
        self.file_errors: dict[str, A.ErrorDecl] = {}
        self.file_error_params: dict[str, list[tuple[str, Type]]] = {}
        self.pragma_solidvm: str | None = None
        for name, value in unit.pragmas:
            if name == "solidvm":
                self.pragma_solidvm = value
        self.new_file_scope()

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
            elif isinstance(item, A.UserTypeDecl):
                self.declare_file_type(item)
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
            self.collect_usings(self.contracts[d.name])
        for d in decls:
            self.visible_types(self.contracts[d.name])
        for d in decls:
            self.resolve_struct_fields(self.contracts[d.name])
        for d in decls:
            self.resolve_usings(self.contracts[d.name])
            self.check_library(self.contracts[d.name])
        # file-level errors, visible in every contract (a contract's own declaration wins)
        self.file_error_params = {
            name: [
                (p.name or f"#{i}", self.resolve_type(p.type, None)) for i, p in enumerate(d.params)
            ]
            for name, d in self.file_errors.items()
        }
        ordered = sorted(self.contracts.values(), key=lambda c: len(c.linearization))
        for c in ordered:
            self.declare_members(c)
        for c in ordered:
            self.merge_inherited(c)
        self.declare_file_members()
        self.type_overloads = has_type_overloads(ordered)
        for c in ordered:
            self.compile_bodies(c)
        self.compile_file_bodies()
        if self.checks:
            run_checks(self)
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
        c.parents = parents
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
                # the platform has no linearization and accepts any order of bases (`is Token,
                # Root` with Token a Root): look members up as it does, the contract first, then
                # each base as written with its own bases, the first found winning
                c.linearization = self.first_found_order(c, parents)
                return c.linearization
            result.append(head)
            for s in seqs:
                if s and s[0] is head:
                    s.pop(0)
        c.linearization = result
        return result

    def first_found_order(self, c: ContractDef, parents: list[ContractDef]) -> list[ContractDef]:
        order: list[ContractDef] = [c]
        for p in parents:
            for b in p.linearization:
                if b not in order:
                    order.append(b)
        return order

    def declare_types(self, c: ContractDef) -> None:
        assert c.decl is not None
        for part in c.decl.parts:
            if isinstance(part, A.StructDecl):
                c.own_types[part.name] = StructType(part.name)
            elif isinstance(part, A.EnumDecl):
                if len(set(part.values)) != len(part.values):
                    self.error(f"enum '{part.name}' has duplicate values", part)
                c.own_types[part.name] = EnumType(part.name, part.values)
            elif isinstance(part, A.UserTypeDecl):
                c.own_types[part.name] = self.value_type(part)

    def visible_types(self, c: ContractDef) -> dict[str, Type]:
        if not c.types:
            types: dict[str, Type] = dict(self.file_types)
            for base in reversed(c.linearization):
                types.update(base.own_types)
            self.library_types(c, types)
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
            if tn.name == "decimal" and self.vm == "EVM":
                self.error("decimal is a SolidVM type", tn)
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
            if name == "variadic":
                return VARIADIC
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
        if isinstance(e, A.Ident):
            fc = self.file_constant(e.name)
            if fc is not None and fc.init is not None:
                return self.const_int(fc.init, c)
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
                if holds_variadic(sv_type, []):
                    self.error(
                        f"state variable '{part.name}' cannot hold variadic values "
                        "(they exist only while a call runs)",
                        part,
                    )
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
        # public getters for public state variables; for arrays and mappings also the shorter
        # forms (`arr()` is the whole array, `grid(i)` a row), as the platform answers them
        for sv in c.own_svars:
            if sv.public:
                full = self.make_getter(c, sv)
                c.own_functions.append(full)
                for depth in range(len(full.params) - 1, -1, -1):
                    c.own_functions.append(self.make_getter(c, sv, depth))

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

    def make_getter(
        self, c: ContractDef, sv: StateVar, depth: int | None = None
    ) -> CompiledFunction:
        """The getter of a public state variable; ``depth`` keys short of the full one return
        the container reached (the whole array or mapping, a row of a nested array)."""
        fn = CompiledFunction(sv.name, c.name, None)
        fn.getter_of = sv
        fn.visibility = "external"
        fn.mutability = "view"
        fn.writes = False
        t = sv.type
        params: list[tuple[str, Type]] = []
        types: list[Type] = []  # the container each key indexes
        while depth is None or len(params) < depth:
            if isinstance(t, MappingType):
                params.append((f"key{len(params)}" if params else "key", t.key))
                types.append(t)
                t = t.value
            elif isinstance(t, ArrayType):
                params.append((f"index{len(params)}" if params else "index", UINT))
                types.append(t)
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
        is_const = sv.constant
        leaf = t
        nparams = len(params)

        def getter(fr: Frame) -> None:
            v = sv._const_fn(fr) if is_const and sv._const_fn else fr.st[name]
            for k in range(nparams):
                key = fr.l[k]
                ct = types[k]
                if isinstance(ct, MappingType):
                    v = v.get(key, MISSING)
                    if v is MISSING:
                        v = default_value(ct.value)
                else:
                    assert isinstance(ct, ArrayType)
                    v = storage_read(v, key, ct.elem)
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
        errors: dict[str, list[tuple[str, Type]]] = dict(self.file_error_params)
        functions: dict[tuple[str, int], CompiledFunction] = {}
        sigs: dict[str, CompiledFunction] = {}
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
            self.merge_overloads(base, functions, sigs)
        c.state_vars = layout
        c.svars = svars
        c.events = events
        c.modifiers = modifiers
        c.errors = errors
        c.vtable = functions
        c.sigtable = sigs
        by_name: dict[str, list[CompiledFunction]] = {}
        seen: set[int] = set()
        for fn in sigs.values():
            if id(fn) not in seen:
                seen.add(id(fn))
                by_name.setdefault(fn.name, []).append(fn)
        c.functions = by_name
        # super lookups: for each contract in the linearization, the next implementation after it
        lin = c.linearization
        impls = [_implementations(x) for x in lin]
        for i, base in enumerate(lin):
            for fn in base.own_functions:
                k2 = (fn.name, len(fn.params))
                for later in impls[i + 1 :]:
                    impl = later.get(k2)
                    if impl is not None:
                        c.super_table[(base.name, *k2)] = impl
                        break

    def merge_overloads(
        self,
        base: ContractDef,
        functions: dict[tuple[str, int], CompiledFunction],
        sigs: dict[str, CompiledFunction],
    ) -> None:
        """Add ``base``'s functions over those of the bases before it in the linearization.

        A function overrides the one with its signature. Functions of one name and arity with
        other parameter types are overloads and coexist, except that a contract declaring just
        one function of that name and arity overrides an inherited lone one even when the types
        are spelled differently (``uint`` vs ``int``, ``address`` vs ``account``): SolidVM
        overrides by name.
        """
        arity: dict[tuple[str, int], int] = {}
        for fn in base.own_functions:
            k = (fn.name, len(fn.params))
            arity[k] = arity.get(k, 0) + 1
        index = _SigIndex(sigs)  # lookups by name and arity: a scan per function is quadratic
        for fn in base.own_functions:
            k = (fn.name, len(fn.params))
            sig = fn.signature
            if sig not in sigs and arity[k] == 1:
                same = index.groups.get(k, {})
                if len(same) == 1:
                    (old,) = same.values()
                    for s2 in list(index.sigs_of[id(old)]):
                        index.put(s2, fn)
            functions[k] = fn
            index.put(sig, fn)

    def compile_bodies(self, c: ContractDef) -> None:
        assert c.decl is not None
        for sv in c.own_svars:
            if sv.decl.init is not None:
                fc = self.function_compiler(self, c, None)
                init, it = fc.visited(sv.decl.init)  # reads checked as bounds.py says
                fc.check_udvt(it, sv.type, sv.decl.init)
                if self.checks:
                    fc.check_assignable(it, sv.type, sv.decl.init)
                coerce = make_coercer(sv.type, self.vm)
                sv.init = coerced(init, coerce)
                if sv.constant:
                    sv._const_fn = sv.init
                if fc.nslots:
                    self.error("state variable initializers cannot declare variables", sv.decl)
            elif sv.constant:
                self.error(f"constant '{sv.name}' needs a value", sv.decl)
        base_names = {b.name for b in c.bases()}
        # SolidVM drops arguments in the inheritance list (`is A(1)`), as the platform's parser
        # does: only the constructor's modifiers pass arguments to bases (constructors.py)
        if self.vm == "EVM":
            for b in c.decl.bases:
                if b.args is not None:
                    fc = self.function_compiler(self, c, None)
                    c.base_args[b.path[-1]] = [fc.expr(a)[0] for a in b.args]
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
            fc = self.function_compiler(self, c, fn)
            fc.compile_function(d, base_names)

    def compile_modifier(self, c: ContractDef, m: ModifierDef) -> None:
        fc = self.function_compiler(self, c, None)
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


def holds_variadic(t: Type, stack: list[str]) -> bool:
    if isinstance(t, VariadicType):
        return True
    if isinstance(t, ArrayType):
        return holds_variadic(t.elem, stack)
    if isinstance(t, MappingType):
        return holds_variadic(t.value, stack)
    if isinstance(t, StructType) and t.name not in stack:
        stack.append(t.name)
        found = any(holds_variadic(ft, stack) for _, ft in t.fields)
        stack.pop()
        return found
    return False


def _implementations(x: ContractDef) -> dict[tuple[str, int], CompiledFunction]:
    """The first function of each name and arity that ``x`` itself implements (has a body)."""
    out: dict[tuple[str, int], CompiledFunction] = {}
    for g in x.own_functions:
        if g.decl and g.decl.body is not None:
            out.setdefault((g.name, len(g.params)), g)
    return out


class _SigIndex:
    """A signature table (signature -> function) with the functions grouped by name and arity
    and each function's signatures, kept in step as entries are set."""

    def __init__(self, sigs: dict[str, CompiledFunction]) -> None:
        self.sigs = sigs
        self.groups: dict[tuple[str, int], dict[int, CompiledFunction]] = {}
        self.sigs_of: dict[int, list[str]] = {}
        for s, g in sigs.items():
            self._add(s, g)

    def _add(self, s: str, g: CompiledFunction) -> None:
        self.groups.setdefault((g.name, len(g.params)), {})[id(g)] = g
        self.sigs_of.setdefault(id(g), []).append(s)

    def put(self, s: str, g: CompiledFunction) -> None:
        prev = self.sigs.get(s)
        if prev is g:
            return
        if prev is not None:
            mine = self.sigs_of[id(prev)]
            mine.remove(s)
            if not mine:
                del self.sigs_of[id(prev)]
                del self.groups[(prev.name, len(prev.params))][id(prev)]
        self.sigs[s] = g
        self._add(s, g)
