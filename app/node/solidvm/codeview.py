"""``a.code(name)``: a contract's declarations as the platform prints them back.

The platform answers from the contract of its compiled code collection: the contract's own
declarations merged with its ancestors' and those of the libraries it is ``using`` (its
``getParentsAndUsings``; the contract's own declaration wins a name, then the first ancestor's),
after its optimiser ran over the function bodies and initialisers (``unparse.optimize``). It
looks ``name`` up among the contract's name, functions, constants, state variables, enums,
events, structs and modifiers, in that order, and answers each declaration found followed by a
newline (``""`` when none is). Each kind is printed in its own fixed layout (``*_text`` below);
a contract lists its parts kind by kind, each kind sorted by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TypeVar
from weakref import WeakKeyDictionary

from . import ast as A
from .defs import ContractDef
from .unparse import block_text, expr_text, fold, optimize, type_text

N = TypeVar("N", bound=A.Node)

KIND_WORD = {
    "contract": "contract ",
    "interface": "interface ",
    "abstract": "abstract contract ",
    "library": "library ",
}


@dataclass
class Functions:
    """The functions of one name: the first declared and, in order, its overloads."""

    main: A.FunctionDecl
    overloads: list[A.FunctionDecl] = field(default_factory=list)


@dataclass
class ContractView:
    """A contract's declarations as the platform's code collection holds them."""

    decl: A.ContractDecl
    storage: dict[str, A.StateVarDecl] = field(default_factory=dict)
    constants: dict[str, A.StateVarDecl] = field(default_factory=dict)
    enums: dict[str, A.EnumDecl] = field(default_factory=dict)
    structs: dict[str, A.StructDecl] = field(default_factory=dict)
    events: dict[str, A.EventDecl] = field(default_factory=dict)
    modifiers: dict[str, A.ModifierDecl] = field(default_factory=dict)
    functions: dict[str, Functions] = field(default_factory=dict)
    ctor: A.FunctionDecl | None = None


def function_name(f: A.FunctionDecl) -> str:
    return f.name or f.kind  # `function()` and `fallback()` are "fallback", `receive()` "receive"


def own_view(decl: A.ContractDecl) -> ContractView:
    view = ContractView(decl)
    for part in decl.parts:
        if isinstance(part, A.StateVarDecl):
            (view.constants if part.constant else view.storage)[part.name] = part
        elif isinstance(part, A.EnumDecl):
            view.enums[part.name] = part
        elif isinstance(part, A.StructDecl):
            view.structs[part.name] = part
        elif isinstance(part, A.EventDecl):
            view.events[part.name] = part
        elif isinstance(part, A.ModifierDecl):
            view.modifiers[part.name] = part
        elif isinstance(part, A.FunctionDecl):
            if part.kind == "constructor" or (part.kind == "function" and part.name == decl.name):
                view.ctor = part
                continue
            name = function_name(part)
            if name in view.functions:
                view.functions[name].overloads.append(part)
            else:
                view.functions[name] = Functions(part)
    return view


def _ancestors(decl: A.ContractDecl, decls: dict[str, A.ContractDecl]) -> list[A.ContractDecl]:
    """Its bases in written order, then the libraries of its `using`s (by the type's text)."""
    found = [decls.get(b.path[-1]) for b in decl.bases]
    usings = [p for p in decl.parts if isinstance(p, A.UsingDecl)]
    usings.sort(key=lambda u: type_text(u.target) if u.target is not None else "*")
    found += [decls.get(u.library[-1]) for u in usings]
    return [d for d in found if d is not None and d is not decl]


def _lend(mine: dict[str, N], theirs: dict[str, N]) -> None:
    """What a base has and the contract (or an earlier base) does not."""
    for k, v in theirs.items():
        mine.setdefault(k, v)


def merged_view(
    decl: A.ContractDecl, decls: dict[str, A.ContractDecl], depth: int = 0
) -> ContractView:
    """The contract with what its ancestors lend it (functions: their non-private ones)."""
    view = own_view(decl)
    if depth > 64:  # a cycle the compiler would have refused; stay finite anyway
        return view
    for parent in _ancestors(decl, decls):
        inherited = merged_view(parent, decls, depth + 1)
        _lend(view.storage, inherited.storage)
        _lend(view.constants, inherited.constants)
        _lend(view.enums, inherited.enums)
        _lend(view.structs, inherited.structs)
        _lend(view.events, inherited.events)
        _lend(view.modifiers, inherited.modifiers)
        for k, fns in inherited.functions.items():
            if fns.main.visibility != "private":
                view.functions.setdefault(k, fns)
    return view


# ---------------------------------------------------------------- declarations


def _params_text(params: list[A.Param], unnamed: str = "") -> str:
    return ", ".join(
        f"{type_text(p.type)} {p.name if p.name else unnamed.format(i)}"
        for i, p in enumerate(params)
    )


def _returns_text(params: list[A.Param]) -> str:
    return ", ".join(f"{type_text(p.type)} {p.name or ''}" for p in params)


def function_deep_text(name: str, f: A.FunctionDecl, overloads: list[A.FunctionDecl]) -> str:
    """The platform's ``unparseFuncDeep``: ``(args) mutability visibility`` and the rest."""
    text = "(" if not name else f"function {name} ("
    text += _params_text(f.params) + ") "
    text += f"{f.mutability} " if f.mutability else ""
    text += f"{f.visibility or 'public'} "
    if f.virtual:
        return text + "virtual "  # its printer stops there for a virtual function
    text += "override " if f.override else ""
    if f.modifiers:
        calls = [
            f"{'.'.join(m.path)}({', '.join(expr_text(a) for a in m.args or [])})"
            for m in f.modifiers
        ]
        text += "modifiers " + ", ".join(calls) + " "
    if f.returns:
        text += f"returns ({_returns_text(f.returns)}) "
    text += "{\n    "
    text += "\n" if f.body is None else tab2(f.body.stmts)
    text += "}"
    if overloads:
        text += "\n" + "".join(function_deep_text(name, o, []) + "\n" for o in overloads)
    return text


def tab2(stmts: list[A.Stmt]) -> str:
    """A body inside a declaration: its statements indented twice more."""
    return block_text(stmts).replace("\n", "\n  ")


def function_text(name: str, fns: Functions) -> str:
    """The function of that name (optimised) and its overloads (as written)."""
    main = _optimized(fns.main)
    if len(fns.overloads) > 1:
        return function_deep_text(name, main, fns.overloads)
    return f"function {name} " + function_deep_text("", main, fns.overloads)


def _optimized(f: A.FunctionDecl) -> A.FunctionDecl:
    if f.body is None:
        return f
    return replace(f, body=A.Block(f.body.pos, optimize(f.body.stmts)))


def ctor_text(f: A.FunctionDecl) -> str:
    return "constructor " + function_deep_text("", _optimized(f), [])


def modifier_text(m: A.ModifierDecl) -> str:
    body = tab2(m.body.stmts) if m.body is not None else ""
    return f"modifier {m.name}({_params_text(m.params, '#{}')}) {{\n        {body}}}"


def event_text(e: A.EventDecl) -> str:
    params = ",\n    ".join(f"{type_text(p.type)} {p.name or ''}" for p in e.params)
    return f"event {e.name}(\n    {params})" + ("anonymous" if e.anonymous else "") + ";"


def struct_text(s: A.StructDecl) -> str:
    fields = "  ".join(f"{type_text(p.type)} {p.name};\n" for p in s.fields)
    return f"struct {s.name} {{\n  {fields}}}"


def enum_text(e: A.EnumDecl) -> str:
    return f"enum {e.name} {{\n  " + ",\n  ".join(e.values) + "\n}"


def var_text(v: A.StateVarDecl) -> str:
    text = type_text(v.type) + " " + (f"{v.visibility} " if v.visibility else "")
    if v.constant:
        text += "constant "
    text += v.name
    if v.init is not None:
        decimal = isinstance(v.type, A.ElementaryTypeName) and v.type.name == "decimal"
        text += " = " + expr_text(fold(v.init, decimal and not v.constant))
    return text + ";"


def node_text(n: A.Node) -> str:
    """A variable, constant, enum, struct, event or modifier declaration."""
    if isinstance(n, A.StateVarDecl):
        return var_text(n)
    if isinstance(n, A.EnumDecl):
        return enum_text(n)
    if isinstance(n, A.StructDecl):
        return struct_text(n)
    if isinstance(n, A.EventDecl):
        return event_text(n)
    if isinstance(n, A.ModifierDecl):
        return modifier_text(n)
    return ""


def contract_text(view: ContractView) -> str:
    d = view.decl
    text = KIND_WORD.get(d.kind, "contract ") + d.name
    if d.bases:
        text += " is " + ", ".join(".".join(b.path) for b in d.bases)
    text += " {\n  "

    def section(items: Mapping[str, A.Node]) -> str:
        return "\n  ".join(node_text(items[k]) for k in sorted(items))

    text += section(view.constants) + section(view.storage) + section(view.enums)
    text += section(view.structs) + section(view.events)
    if view.ctor is not None:
        text += "\n  " + ctor_text(view.ctor)
    text += "\n  ".join(function_text(k, view.functions[k]) for k in sorted(view.functions))
    text += section(view.modifiers)
    return text + "\n}"


# ---------------------------------------------------------------- lookup

_VIEWS: WeakKeyDictionary[ContractDef, ContractView | None] = WeakKeyDictionary()


def contract_view(cdef: ContractDef) -> ContractView | None:
    """The merged declarations of the contract ``cdef`` (cached per contract)."""
    if cdef in _VIEWS:
        return _VIEWS[cdef]
    view = None
    if cdef.decl is not None:
        unit = cdef.unit
        contracts = unit.contracts if unit is not None else {cdef.name: cdef}
        decls = {n: c.decl for n, c in contracts.items() if c.decl is not None}
        view = merged_view(cdef.decl, decls)
    _VIEWS[cdef] = view
    return view


def code_of(cdef: ContractDef, term: str) -> str:
    """``account(c).code(term)``; ``term`` empty: the contract itself."""
    view = contract_view(cdef)
    if view is None:
        return ""
    if not term:
        return contract_text(view) + "\n"
    found: list[str] = []
    if view.decl.name == term:
        found.append(contract_text(view))
    if term in view.functions:
        found.append(function_text(term, view.functions[term]))
    tables: list[Mapping[str, A.Node]] = [view.constants, view.storage, view.enums]
    tables += [view.events, view.structs, view.modifiers]
    found += [node_text(table[term]) for table in tables if term in table]
    return "".join(f + "\n" for f in found)
