"""A deployed contract's SolidVM definition in the platform's generic JSON encoding: what
``GET /bloc/v2.2/contracts/contract/<address>/details`` answers on STRATO 16.

The platform answers its parsed ``Contract`` record, Aeson-encoded field by field
(``_contractName``, ``_parents``, ``_storageDefs``, ``_functions`` ...), after its compiler has
merged the inherited members in: every storage variable, constant, type, event and modifier of
the contract's bases and of the libraries it uses, and their non-private functions (the
contract's own win a clash). Types are the parser's (``SolidVM.Model.Type``): ``uint`` is
``{"tag": "Int", "signed": false}`` and ``uint256`` adds ``"bytes": 32``; a contract, struct or
enum named in a declaration is ``{"tag": "UnknownLabel", "contents": "<name>"}``, as the
platform never resolves those labels. Each function's arguments and values are
``[[name | null, {index, type, location}]]``. For the platform API's proxies (Proxy, User,
UserRegistry) the definition is the proxy's merged with its logic contract's, the proxy's own
members first.

Not carried over: the syntax trees of function bodies, initial values and modifier arguments
(``_funcContents``, ``_varInitialVal``, ``_constInitialVal`` are null, modifier and base
constructor arguments empty lists). The sandbox compiles to closures and keeps no such tree;
the platform's clients read the signatures, not the bodies. Positions are line and column of
the declaration's start, in the joined source (start = end; file name empty).
"""

from __future__ import annotations

import weakref
from typing import Any

from .ledger.readview import CommittedView
from .solidvm import ast as A
from .solidvm.defs import ContractDef
from .solidvm.proxies import PROXY_NAMES, logic_chain
from .solidvm.types import (
    AddressType,
    ArrayType,
    BoolType,
    BytesType,
    DecimalType,
    IntType,
    MappingType,
    StringType,
    Type,
    UserDefinedType,
    VariadicType,
)
from .solidvm.values import Address
from .solidvm.world import AccountState

J = dict[str, Any]
_CACHE: weakref.WeakKeyDictionary[ContractDef, J] = weakref.WeakKeyDictionary()
KINDS = {
    "contract": "ContractType",
    "library": "LibraryType",
    "interface": "InterfaceType",
    "abstract": "AbstractType",
}
MAP_FIELDS = (
    "_constants",
    "_storageDefs",
    "_userDefined",
    "_enums",
    "_structs",
    "_errors",
    "_events",
    "_functions",
    "_modifiers",
    "_usings",
)


def context(pos: A.Pos) -> J:
    """A SourceAnnotation: where the declaration starts (the sandbox keeps no end)."""
    at = {"name": "", "line": pos[0], "column": pos[1]}
    return {"start": at, "end": dict(at), "annotation": []}


# ------------------------------------------------------------ types


def compiled_type(t: Type) -> J:
    """A compiled type in the platform's Type encoding (user-defined value types' ``actual``)."""
    if isinstance(t, UserDefinedType):
        return {"tag": "UserDefined", "alias": t.name, "actual": compiled_type(t.actual)}
    if isinstance(t, IntType):
        return {"tag": "Int", "signed": t.signed, "bytes": t.bits // 8}
    if isinstance(t, BoolType):
        return {"tag": "Bool"}
    if isinstance(t, DecimalType):
        return {"tag": "Decimal"}
    if isinstance(t, StringType):
        return {"tag": "String", "dynamic": True}
    if isinstance(t, BytesType):
        return (
            {"tag": "Bytes", "dynamic": True}
            if t.size is None
            else {"tag": "Bytes", "bytes": t.size}
        )
    if isinstance(t, AddressType):
        return {"tag": "Address", "isPayable": t.payable}
    if isinstance(t, VariadicType):
        return {"tag": "Variadic"}
    if isinstance(t, ArrayType):
        out: J = {"tag": "Array", "entry": compiled_type(t.elem)}
        if t.length is not None:
            out["length"] = t.length
        return out
    if isinstance(t, MappingType):
        return {
            "tag": "Mapping",
            "dynamic": True,
            "key": compiled_type(t.key),
            "value": compiled_type(t.value),
        }
    return {"tag": "UnknownLabel", "contents": t.name}  # contracts, enums, structs, accounts


def type_json(tn: A.TypeName | None, cdef: ContractDef) -> J:
    """A declared type as the platform's parser reads it (labels unresolved)."""
    if isinstance(tn, A.ElementaryTypeName):
        n = tn.name
        if n in ("uint", "int"):
            return {"tag": "Int", "signed": n == "int"}
        if n.startswith("uint") and n[4:].isdigit():
            return {"tag": "Int", "signed": False, "bytes": int(n[4:]) // 8}
        if n.startswith("int") and n[3:].isdigit():
            return {"tag": "Int", "signed": True, "bytes": int(n[3:]) // 8}
        if n == "byte":
            return {"tag": "Bytes", "bytes": 1}
        if n.startswith("bytes") and n[5:].isdigit():
            return {"tag": "Bytes", "bytes": int(n[5:])}
        simple: dict[str, J] = {
            "bool": {"tag": "Bool"},
            "string": {"tag": "String", "dynamic": True},
            "bytes": {"tag": "Bytes", "dynamic": True},
            "decimal": {"tag": "Decimal"},
            "variadic": {"tag": "Variadic"},
        }
        if n in simple:
            return dict(simple[n])
        if n == "address":
            return {"tag": "Address", "isPayable": tn.payable}
        return {"tag": "UnknownLabel", "contents": n}
    if isinstance(tn, A.UserTypeName):
        name = ".".join(tn.path)
        t = cdef.types.get(name)
        if isinstance(t, UserDefinedType):
            return compiled_type(t)
        return {"tag": "UnknownLabel", "contents": name}
    if isinstance(tn, A.ArrayTypeName):
        out: J = {"tag": "Array", "entry": type_json(tn.base, cdef)}
        if isinstance(tn.length, A.NumberLit):
            out["length"] = tn.length.value
        return out
    if isinstance(tn, A.MappingTypeName):
        return {
            "tag": "Mapping",
            "dynamic": True,
            "key": type_json(tn.key, cdef),
            "value": type_json(tn.value, cdef),
        }
    return {"tag": "UnknownLabel", "contents": "var"}


def indexed(params: list[A.Param], cdef: ContractDef) -> list[list[Any]]:
    """``[[name | null, {index, type, location}]]``: arguments or values of a function."""
    locs = {"memory": "Memory", "storage": "Storage", "calldata": "Calldata"}
    return [
        [
            p.name or None,
            {
                "index": i,
                "type": type_json(p.type, cdef),
                "location": locs.get(p.location or ""),
            },
        ]
        for i, p in enumerate(params)
    ]


# ------------------------------------------------------------ declarations


def function_json(f: A.FunctionDecl, cdef: ContractDef) -> J:
    mods: list[list[Any]] = [[".".join(m.path), []] for m in f.modifiers]
    return {
        "_funcArgs": indexed(f.params, cdef),
        "_funcVals": indexed(f.returns, cdef),
        "_funcStateMutability": f.mutability,
        "_funcContents": None,
        "_funcVisibility": f.visibility or "public",
        "_funcVirtual": f.virtual,
        "_funcOverrides": [] if f.override else None,
        "_funcConstructorCalls": {name: [] for name, _ in mods},
        "_funcModifiers": mods,
        "_funcContext": context(f.pos),
        "_funcIsFree": False,
        "_funcOverload": [],
    }


def own_members(cdef: ContractDef) -> J:
    """The members ``cdef`` declares itself, in the platform's encoding (maps by name)."""
    out: J = {k: {} for k in MAP_FIELDS}
    out["_constructor"] = None
    decl = cdef.decl
    if decl is None:
        return out
    for part in decl.parts:
        if isinstance(part, A.StateVarDecl):
            vis = part.visibility if part.visibility in ("public", "private", "internal") else None
            t = type_json(part.type, cdef)
            if part.constant:
                out["_constants"][part.name] = {
                    "_constType": t,
                    "_constVisibility": vis,
                    "_constInitialVal": None,
                    "_constContext": context(part.pos),
                }
            else:
                out["_storageDefs"][part.name] = {
                    "_varType": t,
                    "_varVisibility": vis,
                    "_varInitialVal": None,
                    "_varContext": context(part.pos),
                    "_isImmutable": part.immutable,
                }
        elif isinstance(part, A.FunctionDecl):
            fj = function_json(part, cdef)
            if part.kind == "constructor":
                out["_constructor"] = fj
                continue
            name = part.name or part.kind  # fallback, receive
            first = out["_functions"].get(name)
            if first is None:
                out["_functions"][name] = fj
            else:
                first["_funcOverload"].append(fj)
        elif isinstance(part, A.ModifierDecl):
            args = [
                [p.name or f"#{i}", a[1]]
                for i, (p, a) in enumerate(
                    zip(part.params, indexed(part.params, cdef), strict=True)
                )
            ]
            out["_modifiers"][part.name] = {
                "args": args,
                "selector": part.name,
                "contents": None,
                "context": context(part.pos),
            }
        elif isinstance(part, A.EventDecl):
            out["_events"][part.name] = {
                "anonymous": part.anonymous,
                "logs": [
                    {
                        "name": p.name or "",
                        "indexed": p.indexed,
                        "type": {"index": i, "type": type_json(p.type, cdef), "location": None},
                    }
                    for i, p in enumerate(part.params)
                ],
                "context": context(part.pos),
            }
        elif isinstance(part, A.StructDecl):
            out["_structs"][part.name] = [
                [p.name, {"atBytes": i, "type": type_json(p.type, cdef)}, context(part.pos)]
                for i, p in enumerate(part.fields)
            ]
        elif isinstance(part, A.EnumDecl):
            out["_enums"][part.name] = [list(part.values), context(part.pos)]
        elif isinstance(part, A.ErrorDecl):
            out["_errors"][part.name] = [
                [
                    p.name or "",
                    {"index": i, "type": type_json(p.type, cdef), "location": None},
                    context(part.pos),
                ]
                for i, p in enumerate(part.params)
            ]
        elif isinstance(part, A.UserTypeDecl):
            out["_userDefined"][part.name] = _type_text(part.underlying)
    usings: dict[str, list[J]] = {}
    for u in cdef.usings:
        entry = {"using": u.library.name, "for": u.text, "context": context(u.decl.pos)}
        usings.setdefault(u.text, []).insert(0, entry)  # fromListWith (++): latest first
    out["_usings"] = usings
    return out


def _type_text(tn: A.TypeName) -> str:
    if isinstance(tn, A.ElementaryTypeName):
        return tn.name
    if isinstance(tn, A.UserTypeName):
        return ".".join(tn.path)
    return "?"


def _ancestors(cdef: ContractDef) -> list[ContractDef]:
    """Bases (as written, each followed by its own) and used libraries, first seen first."""
    seen: list[ContractDef] = []

    def visit(c: ContractDef) -> None:
        for p in [*c.parents, *(u.library for u in c.usings)]:
            if p is not cdef and p not in seen:
                seen.append(p)
                visit(p)

    visit(cdef)
    return seen


def contract_json(cdef: ContractDef) -> J:
    """The whole definition of ``cdef`` (cached: compiled code never changes)."""
    cached = _CACHE.get(cdef)
    if cached is not None:
        return cached
    out = own_members(cdef)
    for base in _ancestors(cdef):
        theirs = own_members(base)
        for field in MAP_FIELDS:
            mine = out[field]
            for k, v in theirs[field].items():
                if k in mine:
                    continue
                if field == "_functions" and v["_funcVisibility"] == "private":
                    continue
                mine[k] = v
    decl = cdef.decl
    result: J = {
        "_contractName": cdef.name,
        "_parents": [".".join(b.path) for b in decl.bases] if decl else [],
        **{k: out[k] for k in MAP_FIELDS[:7]},
        "_functions": out["_functions"],
        "_constructor": out["_constructor"],
        "_modifiers": out["_modifiers"],
        "_usings": out["_usings"],
        "_contractType": KINDS.get(cdef.kind, "ContractType"),
        "_importedFrom": None,
        "_contractContext": context(decl.pos if decl else (0, 0)),
    }
    _CACHE[cdef] = result
    return result


def merged(first: J, second: J) -> J:
    """The platform's ``<>`` of two contracts: names and kind of the first, parents appended,
    maps united (the first's entries win), the first's constructor unless it has none."""
    out = dict(first)
    out["_parents"] = first["_parents"] + second["_parents"]
    for field in MAP_FIELDS:
        out[field] = {**second[field], **first[field]}
    out["_constructor"] = first["_constructor"] or second["_constructor"]
    return out


def proxy_logic(view: CommittedView, acct: AccountState) -> ContractDef | None:
    """The logic contract of one of the platform API's proxies (None: not a proxy, or its
    ``logicContract`` holds no contract), as committed."""
    cdef = acct.cdef
    if cdef is None or cdef.name not in PROXY_NAMES:
        return None
    v = view.get(acct.storage, "logicContract")
    if not isinstance(v, Address) or not v.value:
        return None
    chain = logic_chain(acct, v, view.chain_parents)
    if chain is None:
        return None
    logic = view.account(v.value, chain)
    return logic.cdef if logic is not None else None


def definition(cdef: ContractDef, logic: ContractDef | None = None) -> J:
    """The definition the details route answers: ``cdef``'s, merged with its logic
    contract's when it is a proxy."""
    own = contract_json(cdef)
    return own if logic is None else merged(own, contract_json(logic))
