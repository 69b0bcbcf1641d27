"""Typed syntax tree of a SolidVM source unit; every node keeps its position ``(line, col)``."""

from __future__ import annotations

from dataclasses import dataclass, field

Pos = tuple[int, int]


@dataclass(slots=True)
class Node:
    pos: Pos


# ---------------------------------------------------------------- type names


@dataclass(slots=True)
class TypeName(Node):
    pass


@dataclass(slots=True)
class ElementaryTypeName(TypeName):
    name: str  # uint256, int, bool, string, bytes32, address, account, var ...
    payable: bool = False


@dataclass(slots=True)
class UserTypeName(TypeName):
    path: list[str]  # ["S"] or ["C", "S"]


@dataclass(slots=True)
class ArrayTypeName(TypeName):
    base: TypeName
    length: Expr | None


@dataclass(slots=True)
class MappingTypeName(TypeName):
    key: TypeName
    value: TypeName


# ---------------------------------------------------------------- expressions


@dataclass(slots=True)
class Expr(Node):
    pass


@dataclass(slots=True)
class NumberLit(Expr):
    value: int
    text: str


@dataclass(slots=True)
class DecimalLit(Expr):
    """A fractional literal such as ``1.50``: the value ``mantissa / 10**places``."""

    mantissa: int
    places: int
    text: str


@dataclass(slots=True)
class StringLit(Expr):
    value: str


@dataclass(slots=True)
class HexLit(Expr):
    value: bytes
    digits: str = ""  # as written (case kept), for printing the source back


@dataclass(slots=True)
class BoolLit(Expr):
    value: bool


@dataclass(slots=True)
class Ident(Expr):
    name: str


@dataclass(slots=True)
class Member(Expr):
    obj: Expr
    name: str


@dataclass(slots=True)
class Index(Expr):
    obj: Expr
    index: Expr | None


@dataclass(slots=True)
class Call(Expr):
    func: Expr
    args: list[Expr]
    names: list[str] | None = None  # named-argument call f({a: 1})


@dataclass(slots=True)
class New(Expr):
    type: TypeName
    salt: Expr | None = None  # new C{salt: s}(...)


@dataclass(slots=True)
class TypeExpr(Expr):
    """An elementary or array type used as a value: ``uint(x)``, ``address payable(x)``."""

    type: TypeName


@dataclass(slots=True)
class Unary(Expr):
    op: str
    operand: Expr
    prefix: bool = True


@dataclass(slots=True)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(slots=True)
class Assign(Expr):
    op: str  # "=", "+=", ...
    target: Expr
    value: Expr


@dataclass(slots=True)
class Ternary(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass(slots=True)
class TupleExpr(Expr):
    items: list[Expr | None]


@dataclass(slots=True)
class ArrayLit(Expr):
    items: list[Expr]


# ---------------------------------------------------------------- statements


@dataclass(slots=True)
class Stmt(Node):
    pass


@dataclass(slots=True)
class Block(Stmt):
    stmts: list[Stmt]


@dataclass(slots=True)
class VarSlot(Node):
    type: TypeName | None  # None for `var`
    name: str
    location: str | None = None


@dataclass(slots=True)
class VarDecl(Stmt):
    slots: list[VarSlot | None]
    init: Expr | None
    tuple_form: bool = False


@dataclass(slots=True)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(slots=True)
class If(Stmt):
    cond: Expr
    then: Stmt
    other: Stmt | None


@dataclass(slots=True)
class For(Stmt):
    init: Stmt | None
    cond: Expr | None
    post: Expr | None
    body: Stmt


@dataclass(slots=True)
class While(Stmt):
    cond: Expr
    body: Stmt


@dataclass(slots=True)
class DoWhile(Stmt):
    body: Stmt
    cond: Expr


@dataclass(slots=True)
class Break(Stmt):
    pass


@dataclass(slots=True)
class Continue(Stmt):
    pass


@dataclass(slots=True)
class Return(Stmt):
    value: Expr | None


@dataclass(slots=True)
class Emit(Stmt):
    event: Expr
    args: list[Expr]
    names: list[str] | None = None


@dataclass(slots=True)
class RevertError(Stmt):
    """``revert MyError(args)`` with a declared custom error."""

    error: Expr
    args: list[Expr]
    names: list[str] | None = None  # named-argument form revert E({a: 1})


@dataclass(slots=True)
class Throw(Stmt):
    """SolidVM's ``throw MyError(args);`` (any expression parses; only an error call runs)."""

    value: Expr


@dataclass(slots=True)
class Assembly(Stmt):
    """The one inline assembly SolidVM knows, ``assembly { dst := mload(add(src, 32)) }``:
    it copies variable ``src`` into variable ``dst``."""

    dst: str
    src: str
    src_pos: Pos


@dataclass(slots=True)
class CatchClause(Node):
    """One ``catch``: ``name`` is "Error", "Panic" or "" in the Solidity form (``params`` typed),
    an exception or custom-error name or "" in SolidVM's block form (``names`` untyped)."""

    name: str
    params: list[Param] | None
    names: list[str] | None
    body: Block


@dataclass(slots=True)
class Try(Stmt):
    """``try expr [returns (...)] {...} catch ...`` or, with ``expr`` None, ``try {...} catch``."""

    expr: Expr | None
    returns: list[Param] | None
    body: Block
    catches: list[CatchClause]


@dataclass(slots=True)
class Placeholder(Stmt):
    """The ``_;`` of a modifier body."""


# ---------------------------------------------------------------- declarations


@dataclass(slots=True)
class Param(Node):
    type: TypeName
    name: str | None
    location: str | None = None
    indexed: bool = False


@dataclass(slots=True)
class StructDecl(Node):
    name: str
    fields: list[Param]


@dataclass(slots=True)
class EnumDecl(Node):
    name: str
    values: list[str]


@dataclass(slots=True)
class EventDecl(Node):
    name: str
    params: list[Param]
    anonymous: bool = False


@dataclass(slots=True)
class ErrorDecl(Node):
    name: str
    params: list[Param]


@dataclass(slots=True)
class ModifierInvocation(Node):
    path: list[str]
    args: list[Expr] | None


@dataclass(slots=True)
class ModifierDecl(Node):
    name: str
    params: list[Param]
    body: Block | None
    virtual: bool = False


@dataclass(slots=True)
class FunctionDecl(Node):
    name: str  # "" for constructor / fallback / receive
    kind: str  # "function", "constructor", "fallback", "receive"
    params: list[Param]
    returns: list[Param]
    visibility: str | None
    mutability: str | None  # view, pure, payable, constant
    modifiers: list[ModifierInvocation]
    body: Block | None
    virtual: bool = False
    override: bool = False


@dataclass(slots=True)
class StateVarDecl(Node):
    type: TypeName
    name: str
    visibility: str | None
    constant: bool
    immutable: bool
    init: Expr | None
    record: bool = False  # `record` keyword: accepted, no effect (the platform ignores it)


@dataclass(slots=True)
class UsingDecl(Node):
    library: list[str]
    target: TypeName | None


@dataclass(slots=True)
class UserTypeDecl(Node):
    """``type Price is uint256;``: a user-defined value type."""

    name: str
    underlying: TypeName


@dataclass(slots=True)
class BaseSpec(Node):
    path: list[str]
    args: list[Expr] | None


@dataclass(slots=True)
class ContractDecl(Node):
    kind: str  # contract, interface, library, abstract
    name: str
    bases: list[BaseSpec]
    parts: list[Node] = field(default_factory=list)
    record: bool = False  # `contract record X`: accepted, no effect (the platform ignores it)
    end: Pos = (0, 0)  # the closing brace, so that the contract's text can be cut from the source


@dataclass(slots=True)
class ImportDecl(Node):
    """``import "f.sol";``, ``import {A, B as C} from "f.sol";`` (``items``: the names A, B)."""

    path: str | None  # None for an import of deployed code, `import <address>;`
    items: list[tuple[str, Pos]] | None = None


@dataclass(slots=True)
class SourceUnit(Node):
    items: list[Node]
    pragmas: list[tuple[str, str]]
    imports: list[ImportDecl] = field(default_factory=list)
