"""Static checks the platform makes when it compiles a source (its typechecker and the two error
detectors that run with it), applied once every contract is declared and its bodies compiled.

Each check follows the platform's rule as its code states it, and no further: code the platform
accepts must compile here too (a missing error is better than a false one). See docs/solidvm.md
("Compile-time checks") for the list. Nothing here runs when a contract executes.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from .. import ast as A
from ..defs import CompiledFunction, ContractDef
from ..errors import CompileError
from ..types import (
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
    elementary,
)

if TYPE_CHECKING:
    from .unit import UnitCompiler

# Operators whose left side the platform counts as written (others only read it).
WRITE_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "|=", ">>>=", ">>=", "<<=", "&=", "^="})
# Binary operators whose two operands must have one integer type (signedness included).
UNIFYING_OPS = frozenset(
    {"+", "-", "*", "/", "%", "**", "&", "|", "^", "<<", ">>", ">>>"}
    | {"<", ">", "<=", ">=", "==", "!="}
)
SIGNEDNESS = "Mismatched signedness between integer values"
# Types whose values can never index an array, nor stand for a key of another of these kinds.
_PLAIN = (
    BoolType,
    StringType,
    BytesType,
    AddressType,
    AccountType,
    ContractType,
    StructType,
    ArrayType,
    MappingType,
)


def fail(msg: str, node: A.Node | A.Pos) -> NoReturn:
    pos = node if isinstance(node, tuple) else node.pos
    raise CompileError(msg, pos[0], pos[1])


# ------------------------------------------------------------------ helpers for the compiler


def index_problem(container: Type | None, index: Type | None) -> str | None:
    """Why ``container[index]`` does not typecheck on the platform, or None (also when unsure)."""
    if index is None or isinstance(index, TupleType):
        return None
    if isinstance(container, (ArrayType, BytesType)):
        if isinstance(index, _PLAIN):
            return f"Type mismatch: an array index must be an integer, not {index.name}"
        return None
    if isinstance(container, MappingType):
        key = container.key
        if not isinstance(index, (*_PLAIN, IntType, EnumType)):
            return None
        if not isinstance(key, (*_PLAIN, IntType, EnumType)):
            return None
        if _compatible(index, key):
            return None
        return f"Type mismatch: mapping key type {key.name} and index type {index.name}"
    return None


def concat_problem(t: Type | None) -> str | None:
    """Why a ``string.concat`` argument of static type ``t`` does not typecheck, or None."""
    if isinstance(t, (StringType, BytesType)) or not isinstance(t, (*_PLAIN, IntType, EnumType)):
        return None
    return f"Type mismatch: string.concat takes strings, not {t.name}"


def _compatible(src: Type, dst: Type) -> bool:
    """The compiler's lenient assignability (``check_assignable``), as a predicate."""
    groups = (
        (IntType, EnumType),
        (BoolType,),
        (StringType, BytesType),
        (AddressType, AccountType, ContractType, IntType),
    )
    if type(src) is type(dst):
        return True
    if any(isinstance(src, g) and isinstance(dst, g) for g in groups):
        return True
    return isinstance(src, IntType) and isinstance(dst, BytesType)


def has_type_overloads(contracts: list[ContractDef]) -> bool:
    """True when some contract declares two functions of one name and arity: the compiler then
    chooses among them by its own rules, and the lenient argument check stays out of its way."""
    for c in contracts:
        if c.decl is None:
            continue
        seen: set[tuple[str, int]] = set()
        for part in c.decl.parts:
            if isinstance(part, A.FunctionDecl) and part.kind == "function":
                key = (part.name, len(part.params))
                if key in seen:
                    return True
                seen.add(key)
    return False


# ------------------------------------------------------------------ the pass


def run_checks(uc: UnitCompiler) -> None:
    """Every check, contract by contract in source order; raises the first error found."""
    contracts = [c for c in uc.contracts.values() if c.decl is not None]
    for c in contracts:
        check_functions(c)
    for c in contracts:
        check_collisions(c)
    for c in contracts:
        check_overrides(c)
    for c in contracts:
        for fn in _bodies(c):
            assert fn.decl is not None
            BodyChecker(uc, c, fn.decl).function()
        for m in c.modifiers.values():
            if m.cname == c.name and m.decl.body is not None:
                BodyChecker(uc, c, None).modifier(m.decl)
        for sv in c.own_svars:
            if sv.decl.init is not None:
                BodyChecker(uc, c, None).initializer(sv.decl, sv.type)


def _bodies(c: ContractDef) -> list[CompiledFunction]:
    fns = [f for f in c.own_functions if f.getter_of is None and f.decl and f.decl.body]
    if c.constructor is not None and c.constructor.decl and c.constructor.decl.body:
        fns.append(c.constructor)
    return fns


def check_functions(c: ContractDef) -> None:
    """Overloads with the same parameter types; receive() and fallback() as declared."""
    assert c.decl is not None
    seen: dict[str, list[tuple[object, ...]]] = {}
    for d in c.decl.parts:
        if not isinstance(d, A.FunctionDecl) or d.kind == "constructor":
            continue
        if d.kind == "function" and d.name == c.name:
            continue  # old-style constructor
        if d.kind == "function" and d.name in ("receive", "fallback"):
            fail(
                f"'{d.name}' is a reserved word: declare it as `{d.name}() external"
                f"{' payable' if d.name == 'receive' else ''} {{ ... }}`, without 'function'",
                d,
            )
        name = d.name or d.kind
        key = tuple((type_key(p.type), p.location) for p in d.params)
        if key in seen.setdefault(name, []):
            fail(f"Function is already defined with similar params: {name}", d)
        seen[name].append(key)
        if d.body is None:
            continue
        if d.kind == "receive":
            if len(d.params) == 1:
                fail("Function `receive` must take no arguments", d)
            if len(d.returns) == 1:
                fail("Function `receive` must have no return values", d)
            if d.params or d.returns or d.mutability != "payable" or d.visibility != "external":
                fail(
                    "Function `receive` must be External and Payable, but has not been declared so",
                    d,
                )
        elif d.kind == "fallback" and d.visibility != "external":
            fail("Function `fallback` must be External, but has not been declared so", d)


def type_key(tn: A.TypeName) -> object:
    """A type as written (the platform compares parameter types before resolving them)."""
    if isinstance(tn, A.ElementaryTypeName):
        return ("e", tn.name, tn.payable)
    if isinstance(tn, A.UserTypeName):
        return ("u", tuple(tn.path))
    if isinstance(tn, A.ArrayTypeName):
        n = tn.length.value if isinstance(tn.length, A.NumberLit) else None
        if tn.length is not None and n is None:
            return ("?", id(tn))
        return ("a", type_key(tn.base), n)
    if isinstance(tn, A.MappingTypeName):
        return ("m", type_key(tn.key), type_key(tn.value))
    return ("?", id(tn))


def check_collisions(c: ContractDef) -> None:
    """One name for two of: state variable, constant, function, modifier (inherited included)."""
    lin = c.linearization
    kinds: list[dict[str, A.Node]] = [{}, {}, {}, {}]
    for x in lin:
        for sv in x.own_svars:
            kinds[1 if sv.constant else 0].setdefault(sv.name, sv.decl)
        for f in x.own_functions:
            if (
                f.getter_of is None
                and f.decl is not None
                and (x is c or (f.decl.visibility or "public") != "private")
            ):
                kinds[2].setdefault(f.name, f.decl)
        assert x.decl is not None
        for part in x.decl.parts:
            if isinstance(part, A.ModifierDecl):
                kinds[3].setdefault(part.name, part)
    for i, first in enumerate(kinds):
        for later in kinds[i + 1 :]:
            for name, node in first.items():
                if name in later:
                    fail(f"Multiple definitions for {name} in contract {c.name}", node)


def check_overrides(c: ContractDef) -> None:
    """`override` exactly when a parent has a function of the same name (which must be virtual,
    or an interface's). Overloads count as one name, checked on the first declared; a function
    overriding several parents is left alone (the sandbox does not keep `override(A, B)`)."""
    assert c.decl is not None
    first: dict[str, A.FunctionDecl] = {}
    for d in c.decl.parts:
        if isinstance(d, A.FunctionDecl) and d.kind != "constructor":
            if d.kind == "function" and d.name == c.name:
                continue
            first.setdefault(d.name or d.kind, d)
    ancestors = _parents_dfs(c)
    # each ancestor's declarations by name, and the names below it, once (not once per name)
    own = {id(x): _own_decls(x) for x in ancestors}
    below_of: dict[int, set[str]] = {}
    for name, d in first.items():
        having = [(x, own[id(x)].get(name)) for x in ancestors]
        found = [(x, p) for x, p in having if p is not None]
        below: set[str] = set()
        for x, _ in found:
            if id(x) not in below_of:
                below_of[id(x)] = {a.name for a in _parents_dfs(x)}
            below |= below_of[id(x)]
        nearest = [(x, p) for x, p in found if x.name not in below]
        if not nearest:
            if d.override:
                fail(
                    f"Function {name} is declared override, but none of its parents have a "
                    "function by the same name",
                    d,
                )
            continue
        if not d.override:
            names = ", ".join(x.name for x, _ in nearest)
            fail(
                f"Function {name} is not marked as override, but its parent(s) {names} have "
                "a function by the same name",
                d,
            )
        if len({x.name for x, _ in nearest}) == 1:
            x, p = nearest[0]
            if not p.virtual and x.kind != "interface":
                fail(
                    f"Function {name} is marked as override, but parent contract {x.name} does "
                    "not mark the function as virtual",
                    d,
                )


def _own_decls(x: ContractDef) -> dict[str, A.FunctionDecl]:
    """The first function of each name that contract ``x`` itself declares."""
    assert x.decl is not None
    out: dict[str, A.FunctionDecl] = {}
    for d in x.decl.parts:
        if isinstance(d, A.FunctionDecl) and d.kind != "constructor":
            if d.kind == "function" and d.name == x.name:
                continue
            out.setdefault(d.name or d.kind, d)
    return out


class BodyChecker:
    """One walk over a function (or modifier, or initializer) body.

    Scopes follow the platform's: blocks of if/loops open one, `for` declarations join the
    enclosing one. ``declared`` is the platform's duplicate-declaration map: names declared with
    a value, forgotten when the branch or loop that declared them ends (and after do-while).
    """

    def __init__(self, uc: UnitCompiler, c: ContractDef, d: A.FunctionDecl | None) -> None:
        self.uc = uc
        self.c = c
        self.d = d
        self.mut = d.mutability if d is not None else None
        self.fname = "" if d is None else ("constructor" if d.kind == "constructor" else d.name)
        self.scopes: list[dict[str, Type | None]] = [{}]
        self.declared: set[str] = set()
        self.track_declared = d is not None
        self.returns: list[Type | None] = []
        # ``dtype`` of the expressions of the statement being checked, by node: an operator
        # chain asks for its operands' types at every level, which without it costs the
        # square of the chain's length (a new statement may change the scopes: it starts afresh)
        self._dtypes: dict[int, Type | None] = {}
        self.state: set[str] = set()
        for x in c.linearization:
            for sv in x.own_svars:
                if not sv.constant and (x is c or sv.decl.visibility != "private"):
                    self.state.add(sv.name)

    # -------------------------------------------------------------- entry points

    def function(self) -> None:
        d = self.d
        assert d is not None and d.body is not None
        if d.kind == "constructor" or (d.kind == "function" and d.name == self.c.name):
            self.fname = "constructor"
        for p in d.params:
            if p.name:
                self.scopes[0][p.name] = self.resolve(p.type)
        for p in d.returns:
            t = self.resolve(p.type)
            self.returns.append(t)
            if p.name:
                self.scopes[0][p.name] = t
        for s in d.body.stmts:
            self.stmt(s)

    def modifier(self, m: A.ModifierDecl) -> None:
        assert m.body is not None
        for p in m.params:
            if p.name:
                self.scopes[0][p.name] = self.resolve(p.type)
        for s in m.body.stmts:
            self.stmt(s)

    def initializer(self, decl: A.StateVarDecl, t: Type) -> None:
        assert decl.init is not None
        self.expr(decl.init)
        self.same_sign(t, self.dtype(decl.init), decl.init)

    # -------------------------------------------------------------- names

    def resolve(self, tn: A.TypeName | None) -> Type | None:
        if tn is None:
            return None
        try:
            return self.uc.resolve_type(tn, self.c)
        except CompileError:
            return None

    def local(self, name: str) -> bool:
        return any(name in s for s in self.scopes)

    def local_type(self, name: str) -> tuple[bool, Type | None]:
        for s in reversed(self.scopes):
            if name in s:
                return True, s[name]
        return False, None

    def declare(self, slot: A.VarSlot, has_value: bool) -> None:
        self.scopes[-1][slot.name] = self.resolve(slot.type)
        self._dtypes.clear()
        if has_value and self.track_declared:
            if slot.name in self.declared:
                fail("Multiple declaration.", slot)
            self.declared.add(slot.name)

    # -------------------------------------------------------------- statements

    def nested(self, s: A.Stmt | None) -> None:
        """A branch or loop body: its own scope, its declarations forgotten afterwards."""
        if s is None:
            return
        saved = set(self.declared)
        self.scopes.append({})
        if isinstance(s, A.Block):
            for x in s.stmts:
                self.stmt(x)
        else:
            self.stmt(s)
        self.scopes.pop()
        self.declared = saved

    def stmt(self, s: A.Stmt) -> None:
        self._dtypes.clear()
        if isinstance(s, A.ExprStmt):
            self.expr(s.expr)
        elif isinstance(s, A.VarDecl):
            self.var_decl(s)
        elif isinstance(s, A.Block):
            self.nested(s)
        elif isinstance(s, A.If):
            self.expr(s.cond)
            self.nested(s.then)
            self.nested(s.other)
        elif isinstance(s, A.For):
            saved = set(self.declared)
            if s.init is not None:
                self.stmt(s.init)
            if s.cond is not None:
                self.expr(s.cond)
            if s.post is not None:
                self.expr(s.post)
            self.nested(s.body)
            self.declared = saved
        elif isinstance(s, A.While):
            self.expr(s.cond)
            self.nested(s.body)
        elif isinstance(s, A.DoWhile):
            self.nested(s.body)
            self.expr(s.cond)
            self.declared = set()
        elif isinstance(s, A.Return):
            if s.value is not None:
                self.expr(s.value)
                self.return_signs(s.value)
        elif isinstance(s, (A.Emit, A.RevertError)):
            for a in s.args:
                self.expr(a)
        elif isinstance(s, A.Assembly):
            if self.mut in ("pure", "view"):
                # the platform prints the Maybe it holds the mutability in: "Just Pure"
                fail(f"Just {self.mut.capitalize()} function using assembly code.", s)
        elif not isinstance(s, (A.Break, A.Continue, A.Placeholder)):
            self.other(s)

    def other(self, node: A.Node) -> None:
        """A statement kind this pass does not know (try/catch ...): its parameters are locals
        of a scope of its own, its statements and expressions are walked."""
        saved = set(self.declared)
        self.scopes.append({})
        kids = _children(node)
        for name in _listed_names(node):  # untyped names a clause binds (catch E(a, b))
            self.scopes[-1][name] = None
        for k in kids:
            if isinstance(k, (A.VarSlot, A.Param)) and k.name:
                self.scopes[-1][k.name] = self.resolve(k.type)
        for k in kids:
            if isinstance(k, A.Block):
                self.nested(k)
            elif isinstance(k, A.Stmt):
                self.stmt(k)
            elif isinstance(k, A.Expr):
                self.expr(k)
            elif isinstance(k, A.Node) and not isinstance(k, (A.TypeName, A.VarSlot, A.Param)):
                self.other(k)
        self.scopes.pop()
        self.declared = saved

    def var_decl(self, s: A.VarDecl) -> None:
        for slot in s.slots:
            if slot is not None:
                self.declare(slot, s.init is not None)
        if s.init is None:
            return
        self.expr(s.init)
        slots = s.slots
        if not s.tuple_form and len(slots) == 1 and slots[0] is not None:
            self.same_sign(self.scopes[-1].get(slots[0].name), self.dtype(s.init), s.init)
        elif isinstance(s.init, A.TupleExpr) and len(s.init.items) == len(slots):
            for slot, item in zip(slots, s.init.items, strict=True):
                if slot is not None and item is not None and slot.type is not None:
                    self.same_sign(self.resolve(slot.type), self.dtype(item), item)

    def return_signs(self, value: A.Expr) -> None:
        if len(self.returns) == 1:
            self.same_sign(self.returns[0], self.dtype(value), value)
        elif isinstance(value, A.TupleExpr) and len(value.items) == len(self.returns):
            for t, item in zip(self.returns, value.items, strict=True):
                if item is not None:
                    self.same_sign(t, self.dtype(item), item)

    # -------------------------------------------------------------- expressions

    def expr(self, e: A.Expr | None) -> None:
        if e is None:
            return
        if isinstance(e, A.Ident):
            self.read(e)
        elif isinstance(e, A.Assign):
            if isinstance(e.target, A.Ident) and e.op in WRITE_OPS:
                self.write(e.target)
            else:
                self.expr(e.target)
            self.expr(e.value)
            if not isinstance(e.target, A.TupleExpr):
                self.same_sign(self.dtype(e.target), self.dtype(e.value), e.value)
        elif isinstance(e, A.Unary):
            if e.op in ("++", "--") and not e.prefix and isinstance(e.operand, A.Ident):
                self.write(e.operand)
            else:
                self.expr(e.operand)
        elif isinstance(e, A.Binary):
            self.expr(e.left)
            self.expr(e.right)
            if e.op in UNIFYING_OPS:
                self.same_sign(self.dtype(e.left), self.dtype(e.right), e)
        elif isinstance(e, A.Ternary):
            self.expr(e.cond)
            self.expr(e.then)
            self.expr(e.other)
            self.same_sign(self.dtype(e.then), self.dtype(e.other), e)
        elif isinstance(e, A.Call):
            self.call(e)
        elif isinstance(e, A.Member):
            self.expr(e.obj)
        elif isinstance(e, A.Index):
            self.expr(e.obj)
            self.expr(e.index)
        elif isinstance(e, (A.TupleExpr, A.ArrayLit)):
            for item in e.items:
                self.expr(item)
        elif not isinstance(e, (A.NumberLit, A.StringLit, A.HexLit, A.BoolLit, A.TypeExpr)):
            for sub in _subexpressions(e):
                self.expr(sub)

    def read(self, e: A.Ident) -> None:
        if self.mut == "pure" and e.name in self.state and not self.local(e.name):
            fail(f"Pure function reading state variable {e.name}", e)

    def write(self, e: A.Ident) -> None:
        if self.mut in ("pure", "view") and e.name in self.state and not self.local(e.name):
            fail(f"{self.mut.capitalize()} function mutating state variable {e.name}", e)

    def call(self, e: A.Call) -> None:
        func = e.func
        if isinstance(func, A.Ident):
            self.internal_visibility(func)
        elif isinstance(func, A.Member):
            self.expr(func.obj)
            obj = func.obj
            if isinstance(obj, A.Ident) and not self.local(obj.name):
                if obj.name == "super":
                    self.super_visibility(func)
                elif obj.name in self.uc.contracts and obj.name not in self.c.svars:
                    self.base_visibility(obj.name, func)
        elif not isinstance(func, (A.New, A.TypeExpr)):
            self.expr(func)
        for a in e.args:
            self.expr(a)

    # -------------------------------------------------------------- visibility of calls

    def _named(self, x: ContractDef, name: str) -> list[CompiledFunction]:
        return [f for f in x.own_functions if f.name == name and f.getter_of is None and f.decl]

    def internal_visibility(self, func: A.Ident) -> None:
        """``f()`` needs a non-external ``f`` here, or a non-private, non-external inherited one."""
        name = func.name
        c = self.c
        if (
            self.local(name)
            or name in c.svars
            or name in c.types
            or name in self.uc.contracts
            or name in c.events
            or name in c.errors
            or name in self.uc.file_errors
            or any(f.name == name for f in self.uc.file_functions)
        ):
            return
        problem: str | None = None
        for x in c.linearization:
            fns = self._named(x, name)
            for f in fns:
                assert f.decl is not None
                vis = f.decl.visibility or "public"
                if vis == "external" or (x is not c and vis == "private"):
                    problem = problem or vis
                else:
                    return
        if problem is not None:
            fail(f"cannot access function {name} because it is marked as {problem}", func)

    def super_visibility(self, func: A.Member) -> None:
        name = func.name
        having = [x for x in _parents_dfs(self.c) if self._named(x, name)]
        if not having:
            return
        main = self._named(having[-1], name)[0]
        assert main.decl is not None
        vis = main.decl.visibility or "public"
        if vis == "private" or (vis == "external" and self.fname != name):
            fail(f"cannot access function {name} because it is marked as {vis}", func)

    def base_visibility(self, bname: str, func: A.Member) -> None:
        base = self.uc.contracts[bname]
        if base not in self.c.linearization and base.kind != "library":
            return
        for x in self.c.linearization:
            assert x.decl is not None
            for part in x.decl.parts:
                if isinstance(part, A.UsingDecl) and part.library[-1] == bname:
                    return
        name = func.name
        found = False
        for x in base.linearization:
            if any(sv.name == name for sv in x.own_svars):
                return
            for f in self._named(x, name):
                assert f.decl is not None
                if (f.decl.visibility or "public") != "private":
                    return
                found = True
        if found:
            fail(f"cannot access function {name} because it is marked as private", func)

    # -------------------------------------------------------------- declared integer types

    def same_sign(self, a: Type | None, b: Type | None, node: A.Node) -> None:
        sa, sb = _sign(a), _sign(b)
        if sa is not None and sb is not None and sa != sb:
            fail(SIGNEDNESS, node)

    def dtype(self, e: A.Expr | None) -> Type | None:
        """The type the platform gives ``e`` when it comes from declarations, else None.

        Literals, builtins and `.length` have no signedness there, so they give None here.
        """
        if e is None:
            return None
        key = id(e)
        if key in self._dtypes:
            return self._dtypes[key]
        t = self._dtypes[key] = self._dtype(e)
        return t

    def _dtype(self, e: A.Expr) -> Type | None:
        if isinstance(e, A.Ident):
            found, t = self.local_type(e.name)
            if found:
                return t
            sv = self.c.svars.get(e.name)
            return sv.type if sv is not None else None
        if isinstance(e, A.Member):
            ot = self.dtype(e.obj)
            if isinstance(ot, StructType):
                return ot.field_types.get(e.name)
            return None
        if isinstance(e, A.Index):
            ot = self.dtype(e.obj)
            if isinstance(ot, MappingType):
                return ot.value
            if isinstance(ot, ArrayType):
                return ot.elem
            return None
        if isinstance(e, A.Call):
            return self.call_type(e)
        if isinstance(e, A.Binary):
            if e.op not in UNIFYING_OPS or e.op in ("<", ">", "<=", ">=", "==", "!="):
                return None
            a, b = self.dtype(e.left), self.dtype(e.right)
            return a if _sign(a) is not None else b if _sign(b) is not None else None
        if isinstance(e, A.Unary):
            if e.op in ("+", "~", "++", "--"):
                return self.dtype(e.operand)
            return None  # `-x` is accepted for an unsigned x (x = -1 too)
        if isinstance(e, A.Assign):
            return self.dtype(e.target)
        if isinstance(e, A.Ternary):
            a, b = self.dtype(e.then), self.dtype(e.other)
            return a if _sign(a) is not None else b
        if isinstance(e, A.TupleExpr) and len(e.items) == 1:
            return self.dtype(e.items[0])
        return None

    def call_type(self, e: A.Call) -> Type | None:
        func = e.func
        if isinstance(func, A.TypeExpr) and isinstance(func.type, A.ElementaryTypeName):
            name = func.type.name
            if name.startswith(("int", "uint")) and len(e.args) == 1:
                try:
                    return elementary(name)
                except ValueError:
                    return None
            return None
        if isinstance(func, A.Ident) and not self.local(func.name):
            fns = self.c.functions.get(func.name)
            fn = fns[0] if fns and len(fns) == 1 else None
            if fn is not None and len(fn.returns) == 1 and len(fn.params) == len(e.args):
                return fn.returns[0][1]
        return None


def _sign(t: Type | None) -> bool | None:
    """Signedness of a declared integer type; None for anything else."""
    if type(t) is IntType:
        return t.signed
    return None


def _parents_dfs(c: ContractDef) -> list[ContractDef]:
    """Ancestors in the platform's order: each declared parent, then its own ancestors."""
    out: list[ContractDef] = []
    if c.decl is None:
        return out
    by_name = {b.name: b for b in c.linearization}
    for spec in c.decl.bases:
        p = by_name.get(spec.path[-1])
        if p is not None:
            out.append(p)
            out.extend(_parents_dfs(p))
    return out


def _children(node: Any) -> list[A.Node]:
    """The nodes directly inside ``node`` (in fields, lists, tuples and dict values)."""
    out: list[A.Node] = []
    if not is_dataclass(node):
        return out
    for f in fields(node):
        _collect(getattr(node, f.name, None), out)
    return out


def _collect(v: Any, out: list[A.Node]) -> None:
    if isinstance(v, A.Node):
        out.append(v)
    elif isinstance(v, (list, tuple)):
        for x in v:
            _collect(x, out)
    elif isinstance(v, dict):
        for x in v.values():
            _collect(x, out)


def _listed_names(node: Any) -> list[str]:
    """Strings in the list fields of ``node`` (names it binds, when it is a statement)."""
    out: list[str] = []
    if is_dataclass(node):
        for f in fields(node):
            v = getattr(node, f.name, None)
            if isinstance(v, list):
                out.extend(x for x in v if isinstance(x, str))
    return out


def _subexpressions(e: Any) -> list[A.Expr]:
    """Expressions directly inside an expression of a kind this pass does not know."""
    return [k for k in _children(e) if isinstance(k, A.Expr)]
