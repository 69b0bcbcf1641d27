"""Recursive-descent parser: tokens -> :mod:`ast` nodes.

Errors are :class:`ParseError` with ``line N, column M`` of the offending token. Nesting depth is
capped so that hostile input gets a parse error instead of exhausting the Python stack.
"""

from __future__ import annotations

import re
from typing import NoReturn

from . import ast as A
from .errors import ParseError
from .lexer import T, Token, tokenize

MAX_NESTING = 120

_ELEMENTARY_RE = re.compile(
    r"^(?:u?int(?:8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184"
    r"|192|200|208|216|224|232|240|248|256)?|bytes(?:[1-9]|[12][0-9]|3[0-2])?|bool|string|address"
    r"|account|byte|var)$"
)

_UNITS = {
    "wei": 1,
    "gwei": 10**9,
    "szabo": 10**12,
    "finney": 10**15,
    "ether": 10**18,
    "seconds": 1,
    "minutes": 60,
    "hours": 3600,
    "days": 86400,
    "weeks": 604800,
    "years": 31536000,
}

_ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>=", ">>>=", "**="}

# Binary operator precedence, higher binds tighter. `**` is handled separately (right assoc).
_BINARY_PREC = {
    "||": 1,
    "&&": 2,
    "==": 3,
    "!=": 3,
    "<": 4,
    ">": 4,
    "<=": 4,
    ">=": 4,
    "|": 5,
    "^": 6,
    "&": 7,
    "<<": 8,
    ">>": 8,
    ">>>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
}

_LOCATIONS = {"memory", "storage", "calldata"}
# Words that can start a statement but never a type.
_NOT_TYPES = {
    "delete",
    "new",
    "return",
    "emit",
    "true",
    "false",
    "this",
    "super",
    "payable",
    "type",
}
_VISIBILITY = {"public", "private", "internal", "external"}
_MUTABILITY = {"view", "pure", "payable", "constant", "nonpayable"}


def is_elementary(name: str) -> bool:
    return bool(_ELEMENTARY_RE.match(name))


class Parser:
    def __init__(self, src: str) -> None:
        self.toks = tokenize(src)
        self.i = 0
        self.depth = 0

    # ------------------------------------------------------------ helpers

    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else self.toks[-1]

    def error(self, msg: str, tok: Token | None = None) -> NoReturn:
        t = tok or self.tok
        raise ParseError(msg, t.line, t.col)

    def at_eof(self) -> bool:
        return self.toks[self.i].kind is T.EOF

    def at(self, text: str) -> bool:
        t = self.tok
        return t.text == text and t.kind in (T.OP, T.IDENT)

    def at_op(self, text: str) -> bool:
        t = self.tok
        return t.kind is T.OP and t.text == text

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.i += 1
            return True
        return False

    def expect(self, text: str, what: str | None = None) -> Token:
        t = self.tok
        if t.text == text and t.kind in (T.OP, T.IDENT):
            self.i += 1
            return t
        self.error(f"expected '{text}'{' ' + what if what else ''} but found {t.describe()}")

    def ident(self, what: str = "identifier") -> str:
        t = self.tok
        if t.kind is not T.IDENT:
            self.error(f"expected {what} but found {t.describe()}")
        self.i += 1
        return t.text

    def pos(self, tok: Token | None = None) -> A.Pos:
        t = tok or self.tok
        return (t.line, t.col)

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.error("nesting too deep")

    def leave(self) -> None:
        self.depth -= 1

    # ------------------------------------------------------------ source unit

    def parse_unit(self) -> A.SourceUnit:
        items: list[A.Node] = []
        pragmas: list[tuple[str, str]] = []
        start = self.pos()
        while self.tok.kind is not T.EOF:
            t = self.tok
            if t.text == "pragma" and t.kind is T.IDENT:
                pragmas.append(self.parse_pragma())
            elif t.text == "import" and t.kind is T.IDENT:
                self.skip_import()
            elif t.kind is T.IDENT and t.text in ("contract", "interface", "library", "abstract"):
                items.append(self.parse_contract())
            elif t.kind is T.IDENT and t.text == "struct":
                items.append(self.parse_struct())
            elif t.kind is T.IDENT and t.text == "enum":
                items.append(self.parse_enum())
            elif t.kind is T.IDENT and t.text == "error":
                items.append(self.parse_error_decl())
            elif t.kind is T.IDENT and t.text == "function":
                items.append(self.parse_function())
            elif t.kind is T.IDENT and t.text == "using":
                items.append(self.parse_using())
            elif t.kind is T.OP and t.text == ";":
                self.i += 1
            else:
                self.error(
                    f"expected a contract, interface, library or pragma but found {t.describe()}"
                )
        return A.SourceUnit(start, items, pragmas)

    def parse_pragma(self) -> tuple[str, str]:
        self.expect("pragma")
        name = self.tok.text
        if self.at_eof():
            self.error("unterminated pragma")
        self.i += 1
        parts: list[str] = []
        while not self.at_op(";"):
            if self.at_eof():
                self.error("expected ';' after pragma")
            parts.append(self.tok.text)
            self.i += 1
        self.i += 1
        return (name, "".join(parts))

    def skip_import(self) -> None:
        # Imports name other files of the same upload (or deployed code); the node concatenates
        # multi-file sources before compiling, so the statement itself carries no meaning here.
        self.expect("import")
        while not self.at_op(";"):
            if self.at_eof():
                self.error("expected ';' after import")
            self.i += 1
        self.i += 1

    def parse_path(self) -> list[str]:
        path = [self.ident()]
        while self.at_op(".") and self.peek().kind is T.IDENT:
            self.i += 1
            path.append(self.ident())
        return path

    def parse_contract(self) -> A.ContractDecl:
        start = self.pos()
        kind = self.ident()
        if kind == "abstract":
            self.expect("contract")
        name = self.ident("contract name")
        bases: list[A.BaseSpec] = []
        if self.accept("is"):
            while True:
                bpos = self.pos()
                path = self.parse_path()
                args = self.parse_call_args()[0] if self.at_op("(") else None
                bases.append(A.BaseSpec(bpos, path, args))
                if not self.accept(","):
                    break
        self.expect("{", "to open the contract body")
        decl = A.ContractDecl(start, kind, name, bases)
        while not self.at_op("}"):
            if self.at_eof():
                self.error(f"contract '{name}' is missing its closing '}}'")
            part = self.parse_contract_part()
            if part is not None:
                decl.parts.append(part)
        self.i += 1
        return decl

    def parse_contract_part(self) -> A.Node | None:
        t = self.tok
        if t.kind is T.OP and t.text == ";":
            self.i += 1
            return None
        if t.kind is T.IDENT:
            w = t.text
            if w == "struct":
                return self.parse_struct()
            if w == "enum":
                return self.parse_enum()
            if w == "event":
                return self.parse_event()
            if w == "error" and self.peek().kind is T.IDENT:
                return self.parse_error_decl()
            if w == "modifier":
                return self.parse_modifier()
            if w in ("function", "constructor", "fallback", "receive"):
                if w in ("fallback", "receive") and self.peek().text != "(":
                    return self.parse_state_var()
                return self.parse_function()
            if w == "using":
                return self.parse_using()
        return self.parse_state_var()

    def parse_struct(self) -> A.StructDecl:
        start = self.pos()
        self.expect("struct")
        name = self.ident("struct name")
        self.expect("{")
        fields: list[A.Param] = []
        while not self.accept("}"):
            fpos = self.pos()
            ty = self.parse_type()
            fname = self.ident("struct member name")
            self.expect(";")
            fields.append(A.Param(fpos, ty, fname))
        return A.StructDecl(start, name, fields)

    def parse_enum(self) -> A.EnumDecl:
        start = self.pos()
        self.expect("enum")
        name = self.ident("enum name")
        self.expect("{")
        values: list[str] = []
        while not self.at_op("}"):
            values.append(self.ident("enum value"))
            if not self.accept(","):
                break
        self.expect("}")
        return A.EnumDecl(start, name, values)

    def parse_event(self) -> A.EventDecl:
        start = self.pos()
        self.expect("event")
        name = self.ident("event name")
        params = self.parse_params(allow_indexed=True)
        anonymous = self.accept("anonymous")
        self.expect(";")
        return A.EventDecl(start, name, params, anonymous)

    def parse_error_decl(self) -> A.ErrorDecl:
        start = self.pos()
        self.expect("error")
        name = self.ident("error name")
        params = self.parse_params()
        self.expect(";")
        return A.ErrorDecl(start, name, params)

    def parse_using(self) -> A.UsingDecl:
        start = self.pos()
        self.expect("using")
        lib = self.parse_path()
        self.expect("for")
        target: A.TypeName | None = None
        if not self.accept("*"):
            target = self.parse_type()
        self.expect(";")
        return A.UsingDecl(start, lib, target)

    def parse_modifier(self) -> A.ModifierDecl:
        start = self.pos()
        self.expect("modifier")
        name = self.ident("modifier name")
        params = self.parse_params() if self.at_op("(") else []
        virtual = False
        while self.tok.text in ("virtual", "override"):
            virtual = virtual or self.tok.text == "virtual"
            self.i += 1
            if self.at_op("("):
                self.skip_parens()
        body = None if self.accept(";") else self.parse_block()
        return A.ModifierDecl(start, name, params, body, virtual)

    def skip_parens(self) -> None:
        level = 0
        while True:
            t = self.tok
            if t.kind is T.EOF:
                self.error("unbalanced parentheses")
            self.i += 1
            if t.kind is T.OP and t.text == "(":
                level += 1
            elif t.kind is T.OP and t.text == ")":
                level -= 1
                if level == 0:
                    return

    def parse_function(self) -> A.FunctionDecl:
        start = self.pos()
        kw = self.ident()
        name = ""
        kind = kw
        if kw == "function":
            if self.tok.kind is T.IDENT:
                name = self.ident()
            elif self.at_op("("):
                kind = "fallback"
            else:
                self.error(f"expected function name but found {self.tok.describe()}")
        params = self.parse_params()
        visibility: str | None = None
        mutability: str | None = None
        modifiers: list[A.ModifierInvocation] = []
        returns: list[A.Param] = []
        virtual = override = False
        while True:
            t = self.tok
            if t.kind is not T.IDENT:
                break
            w = t.text
            if w in _VISIBILITY:
                visibility = w
                self.i += 1
            elif w in _MUTABILITY:
                mutability = "view" if w == "constant" else w
                self.i += 1
            elif w == "virtual":
                virtual = True
                self.i += 1
            elif w == "override":
                override = True
                self.i += 1
                if self.at_op("("):
                    self.skip_parens()
            elif w == "returns":
                self.i += 1
                returns = self.parse_params()
            else:
                mpos = self.pos()
                path = self.parse_path()
                margs = self.parse_call_args()[0] if self.at_op("(") else None
                modifiers.append(A.ModifierInvocation(mpos, path, margs))
        body = None if self.accept(";") else self.parse_block()
        return A.FunctionDecl(
            start,
            name,
            kind,
            params,
            returns,
            visibility,
            mutability,
            modifiers,
            body,
            virtual,
            override,
        )

    def parse_params(self, allow_indexed: bool = False) -> list[A.Param]:
        self.expect("(")
        params: list[A.Param] = []
        if self.accept(")"):
            return params
        while True:
            ppos = self.pos()
            ty = self.parse_type()
            location = None
            indexed = False
            while self.tok.kind is T.IDENT and (
                self.tok.text in _LOCATIONS or (allow_indexed and self.tok.text == "indexed")
            ):
                if self.tok.text == "indexed":
                    indexed = True
                else:
                    location = self.tok.text
                self.i += 1
            name = self.ident() if self.tok.kind is T.IDENT else None
            params.append(A.Param(ppos, ty, name, location, indexed))
            if self.accept(")"):
                return params
            self.expect(",", "or ')' in the parameter list")

    def parse_state_var(self) -> A.StateVarDecl:
        start = self.pos()
        ty = self.parse_type()
        visibility: str | None = None
        constant = immutable = False
        while self.tok.kind is T.IDENT:
            w = self.tok.text
            if w in _VISIBILITY:
                visibility = w
            elif w == "constant":
                constant = True
            elif w == "immutable":
                immutable = True
            elif w != "override":  # `override` is accepted and has no effect in SolidVM
                break
            self.i += 1
        name = self.ident("state variable name")
        init = None
        if self.accept("="):
            init = self.parse_expr()
        self.expect(";", "after the state variable declaration")
        return A.StateVarDecl(start, ty, name, visibility, constant, immutable, init)

    # ------------------------------------------------------------ types

    def parse_type(self) -> A.TypeName:
        start = self.pos()
        t = self.tok
        ty: A.TypeName
        if t.kind is not T.IDENT:
            self.error(f"expected a type but found {t.describe()}")
        if t.text == "mapping":
            self.i += 1
            self.expect("(")
            key = self.parse_type()
            if self.tok.kind is T.IDENT and self.peek().text == "=>":
                self.i += 1  # named key (newer syntax)
            self.expect("=>")
            value = self.parse_type()
            if self.tok.kind is T.IDENT:
                self.i += 1
            self.expect(")")
            ty = A.MappingTypeName(start, key, value)
        elif is_elementary(t.text):
            self.i += 1
            payable = False
            if t.text == "address" and self.at("payable"):
                self.i += 1
                payable = True
            ty = A.ElementaryTypeName(start, t.text, payable)
        else:
            ty = A.UserTypeName(start, self.parse_path())
        while self.at_op("["):
            bpos = self.pos()
            self.i += 1
            length = None if self.at_op("]") else self.parse_expr()
            self.expect("]")
            ty = A.ArrayTypeName(bpos, ty, length)
        return ty

    # ------------------------------------------------------------ statements

    def parse_block(self) -> A.Block:
        start = self.pos()
        self.expect("{")
        self.enter()
        stmts: list[A.Stmt] = []
        while not self.at_op("}"):
            if self.at_eof():
                self.error("missing '}' to close the block", self.toks[-1])
            stmts.append(self.parse_statement())
        self.i += 1
        self.leave()
        return A.Block(start, stmts)

    def parse_statement(self) -> A.Stmt:
        t = self.tok
        start = self.pos()
        if t.kind is T.OP and t.text == "{":
            return self.parse_block()
        if t.kind is T.IDENT:
            w = t.text
            if w == "if":
                self.i += 1
                self.expect("(")
                cond = self.parse_expr()
                self.expect(")")
                then = self.parse_statement()
                other = self.parse_statement() if self.accept("else") else None
                return A.If(start, cond, then, other)
            if w == "for":
                self.i += 1
                self.expect("(")
                init: A.Stmt | None = None
                if not self.accept(";"):
                    init = self.parse_simple_statement()
                test = None if self.at_op(";") else self.parse_expr()
                self.expect(";")
                post = None if self.at_op(")") else self.parse_expr()
                self.expect(")")
                body = self.parse_statement()
                return A.For(start, init, test, post, body)
            if w == "while":
                self.i += 1
                self.expect("(")
                cond = self.parse_expr()
                self.expect(")")
                return A.While(start, cond, self.parse_statement())
            if w == "do":
                self.i += 1
                body = self.parse_statement()
                self.expect("while")
                self.expect("(")
                cond = self.parse_expr()
                self.expect(")")
                self.expect(";")
                return A.DoWhile(start, body, cond)
            if w == "break":
                self.i += 1
                self.expect(";")
                return A.Break(start)
            if w == "continue":
                self.i += 1
                self.expect(";")
                return A.Continue(start)
            if w == "return":
                self.i += 1
                value = None if self.at_op(";") else self.parse_expr()
                self.expect(";", "after the return statement")
                return A.Return(start, value)
            if w == "emit":
                self.i += 1
                ev = self.parse_postfix_base()
                args, names = self.parse_call_args()
                self.expect(";", "after emit")
                return A.Emit(start, ev, args, names)
            if w == "_" and self.peek().text == ";":
                self.i += 2
                return A.Placeholder(start)
            if w == "unchecked" and self.peek().text == "{":
                self.i += 1
                return self.parse_block()
            if w == "revert" and self.peek().kind is T.IDENT:
                self.i += 1
                err = self.parse_postfix_base()
                args, _ = self.parse_call_args()
                self.expect(";")
                return A.RevertError(start, err, args)
            if w == "assembly":
                self.error("inline assembly is not supported by SolidVM")
            if w == "try":
                self.error("try/catch is not supported by this SolidVM version")
            if w == "throw":
                self.i += 1
                self.expect(";")
                return A.ExprStmt(start, A.Call(start, A.Ident(start, "revert"), []))
        stmt = self.parse_simple_statement()
        return stmt

    def parse_simple_statement(self) -> A.Stmt:
        """A variable declaration or an expression statement, up to and including the ';'."""
        start = self.pos()
        decl = self.try_parse_declaration()
        if decl is not None:
            self.expect(";", "after the variable declaration")
            return decl
        expr = self.parse_expr()
        self.expect(";", "after the expression")
        return A.ExprStmt(start, expr)

    def try_parse_declaration(self) -> A.VarDecl | None:
        start = self.pos()
        t = self.tok
        if t.kind is T.IDENT and t.text == "var":
            self.i += 1
            if self.at_op("("):
                names: list[A.VarSlot | None] = []
                self.i += 1
                while not self.accept(")"):
                    if self.at_op(","):
                        names.append(None)
                        self.i += 1
                        continue
                    npos = self.pos()
                    names.append(A.VarSlot(npos, None, self.ident()))
                    if not self.at_op(")"):
                        self.expect(",")
                self.expect("=")
                return A.VarDecl(start, names, self.parse_expr(), True)
            npos = self.pos()
            name = self.ident()
            init = self.parse_expr() if self.accept("=") else None
            return A.VarDecl(start, [A.VarSlot(npos, None, name)], init)
        if t.kind is T.OP and t.text == "(":
            return self.try_parse_tuple_declaration()
        if t.kind is not T.IDENT:
            return None
        save = self.i
        slot = self.try_parse_var_slot()
        if slot is None:
            self.i = save
            return None
        init = self.parse_expr() if self.accept("=") else None
        return A.VarDecl(start, [slot], init)

    def try_parse_var_slot(self) -> A.VarSlot | None:
        start = self.pos()
        t = self.tok
        if t.kind is not T.IDENT:
            return None
        # Elementary types followed by '(' are casts (`uint(x)`), not declarations.
        if is_elementary(t.text) and self.peek().text == "(" and t.text != "mapping":
            return None
        if t.text in _NOT_TYPES:
            return None
        depth = self.depth
        try:
            ty = self.parse_type()
        except ParseError:
            self.depth = depth
            return None
        location = None
        if self.tok.kind is T.IDENT and self.tok.text in _LOCATIONS:
            location = self.tok.text
            self.i += 1
        if self.tok.kind is not T.IDENT:
            return None
        name_tok = self.tok
        if name_tok.text in ("is", "returns"):
            return None
        self.i += 1
        nxt = self.tok
        if not (nxt.kind is T.OP and nxt.text in ("=", ";", ",", ")")):
            return None
        return A.VarSlot(start, ty, name_tok.text, location)

    def try_parse_tuple_declaration(self) -> A.VarDecl | None:
        start = self.pos()
        save = self.i
        self.i += 1
        slots: list[A.VarSlot | None] = []
        any_decl = False
        while True:
            if self.at_op(","):
                slots.append(None)
                self.i += 1
                continue
            if self.at_op(")"):
                self.i += 1
                break
            slot = self.try_parse_var_slot()
            if slot is None:
                self.i = save
                return None
            any_decl = True
            slots.append(slot)
            if self.at_op(","):
                self.i += 1
                if self.at_op(")"):
                    slots.append(None)
            elif not self.at_op(")"):
                self.i = save
                return None
        if not any_decl or not self.at_op("="):
            self.i = save
            return None
        self.i += 1
        return A.VarDecl(start, slots, self.parse_expr(), True)

    # ------------------------------------------------------------ expressions

    def parse_expr(self) -> A.Expr:
        self.enter()
        try:
            return self.parse_assignment()
        finally:
            self.leave()

    def parse_assignment(self) -> A.Expr:
        left = self.parse_ternary()
        t = self.tok
        if t.kind is T.OP and t.text in _ASSIGN_OPS:
            self.i += 1
            value = self.parse_expr()
            if not isinstance(left, (A.Ident, A.Member, A.Index, A.TupleExpr)):
                raise ParseError("invalid assignment target", t.line, t.col)
            return A.Assign(left.pos, t.text, left, value)
        return left

    def parse_ternary(self) -> A.Expr:
        cond = self.parse_binary(1)
        if self.at_op("?"):
            self.i += 1
            then = self.parse_expr()
            self.expect(":", "in the conditional expression")
            other = self.parse_expr()
            return A.Ternary(cond.pos, cond, then, other)
        return cond

    def parse_binary(self, min_prec: int) -> A.Expr:
        left = self.parse_unary()
        while True:
            t = self.tok
            if t.kind is not T.OP:
                return left
            prec = _BINARY_PREC.get(t.text)
            if prec is None or prec < min_prec:
                return left
            self.i += 1
            right = self.parse_binary(prec + 1)
            left = A.Binary(left.pos, t.text, left, right)

    def parse_unary(self) -> A.Expr:
        t = self.tok
        if t.kind is T.OP and t.text in ("!", "~", "-", "+", "++", "--"):
            self.i += 1
            self.enter()
            operand = self.parse_unary()
            self.leave()
            return A.Unary(self.pos(t), t.text, operand, True)
        if t.kind is T.IDENT and t.text == "delete":
            self.i += 1
            return A.Unary(self.pos(t), "delete", self.parse_unary(), True)
        base = self.parse_postfix()
        if self.at_op("**"):
            self.i += 1
            exponent = self.parse_unary()  # right associative, binds tighter than unary minus
            return A.Binary(base.pos, "**", base, exponent)
        return base

    def parse_postfix(self) -> A.Expr:
        expr = self.parse_primary()
        while True:
            t = self.tok
            if t.kind is not T.OP:
                return expr
            if t.text == "(":
                args, names = self.parse_call_args()
                expr = A.Call(expr.pos, expr, args, names)
            elif t.text == ".":
                self.i += 1
                nt = self.tok
                if nt.kind is not T.IDENT:
                    self.error(f"expected member name after '.' but found {nt.describe()}")
                self.i += 1
                expr = A.Member(expr.pos, expr, nt.text)
            elif t.text == "[":
                self.i += 1
                if self.at_op("]"):
                    self.i += 1
                    expr = A.Index(expr.pos, expr, None)
                else:
                    idx = self.parse_expr()
                    self.expect("]")
                    expr = A.Index(expr.pos, expr, idx)
            elif t.text in ("++", "--"):
                self.i += 1
                expr = A.Unary(expr.pos, t.text, expr, False)
            elif (
                t.text == "{" and isinstance(expr, (A.Member, A.Ident)) and self._is_call_options()
            ):
                self.skip_braces()  # call options {value: x, gas: y} are accepted and ignored
            else:
                return expr

    def _is_call_options(self) -> bool:
        return self.peek().kind is T.IDENT and self.peek(2).text == ":"

    def skip_braces(self) -> None:
        level = 0
        while True:
            t = self.tok
            if t.kind is T.EOF:
                self.error("unbalanced braces")
            self.i += 1
            if t.text == "{":
                level += 1
            elif t.text == "}":
                level -= 1
                if level == 0:
                    return

    def parse_postfix_base(self) -> A.Expr:
        """Primary expression followed by member and index accesses (no calls)."""
        expr = self.parse_primary()
        while True:
            t = self.tok
            if t.kind is not T.OP:
                return expr
            if t.text == ".":
                self.i += 1
                nt = self.tok
                if nt.kind is not T.IDENT:
                    self.error(f"expected member name after '.' but found {nt.describe()}")
                self.i += 1
                expr = A.Member(expr.pos, expr, nt.text)
            elif t.text == "[":
                self.i += 1
                if self.at_op("]"):
                    self.i += 1
                    expr = A.Index(expr.pos, expr, None)
                else:
                    idx = self.parse_expr()
                    self.expect("]")
                    expr = A.Index(expr.pos, expr, idx)
            else:
                return expr

    def parse_call_args(self) -> tuple[list[A.Expr], list[str] | None]:
        self.expect("(")
        args: list[A.Expr] = []
        if self.at_op("{"):
            self.i += 1
            names: list[str] = []
            while not self.accept("}"):
                names.append(self.ident("argument name"))
                self.expect(":")
                args.append(self.parse_expr())
                if not self.at_op("}"):
                    self.expect(",")
            self.expect(")")
            return args, names
        if self.accept(")"):
            return args, None
        while True:
            args.append(self.parse_expr())
            if self.accept(")"):
                return args, None
            self.expect(",", "or ')' in the argument list")

    def parse_primary(self) -> A.Expr:
        t = self.tok
        start = self.pos()
        k = t.kind
        if k is T.NUMBER:
            self.i += 1
            value = t.value
            unit = self.tok.text if self.tok.kind is T.IDENT else ""
            if unit in _UNITS:
                self.i += 1
                mult = _UNITS[unit]
                if isinstance(value, tuple):
                    num, den = value
                    if (num * mult) % den:
                        self.error("fractional value is not an integer", t)
                    value = num * mult // den
                else:
                    assert isinstance(value, int)
                    value = value * mult
            if isinstance(value, tuple):
                self.error("fractional numbers are not supported", t)
            assert isinstance(value, int)
            return A.NumberLit(start, value, t.text)
        if k is T.STRING:
            self.i += 1
            s = str(t.value)
            while self.tok.kind is T.STRING:  # adjacent literals concatenate
                s += str(self.tok.value)
                self.i += 1
            return A.StringLit(start, s)
        if k is T.HEXSTRING:
            self.i += 1
            b = t.value
            assert isinstance(b, bytes)
            return A.HexLit(start, b)
        if k is T.OP:
            if t.text == "(":
                self.i += 1
                self.enter()
                items: list[A.Expr | None] = []
                if self.accept(")"):
                    self.leave()
                    return A.TupleExpr(start, items)
                while True:
                    if self.at_op(",") or self.at_op(")"):
                        items.append(None)
                    else:
                        items.append(self.parse_expr())
                    if self.accept(")"):
                        break
                    self.expect(",", "or ')'")
                self.leave()
                if len(items) == 1 and items[0] is not None:
                    return items[0]
                return A.TupleExpr(start, items)
            if t.text == "[":
                self.i += 1
                self.enter()
                elems: list[A.Expr] = []
                if not self.accept("]"):
                    while True:
                        elems.append(self.parse_expr())
                        if self.accept("]"):
                            break
                        self.expect(",", "or ']' in the array literal")
                self.leave()
                return A.ArrayLit(start, elems)
            self.error(f"unexpected {t.describe()} in expression")
        if k is T.IDENT:
            w = t.text
            if w in ("true", "false"):
                self.i += 1
                return A.BoolLit(start, w == "true")
            if w == "new":
                self.i += 1
                return A.New(start, self.parse_type())
            if w == "payable" and self.peek().text == "(":
                self.i += 1
                return A.TypeExpr(start, A.ElementaryTypeName(start, "address", True))
            if w == "type" and self.peek().text == "(":
                self.i += 1
                self.expect("(")
                ty = self.parse_type()
                self.expect(")")
                return A.Call(start, A.Ident(start, "type"), [A.TypeExpr(start, ty)])
            if is_elementary(w) and w != "var":
                self.i += 1
                ety: A.TypeName = A.ElementaryTypeName(start, w)
                if w == "address" and self.at("payable"):
                    self.i += 1
                    ety = A.ElementaryTypeName(start, w, True)
                while self.at_op("[") and self.peek().text == "]":
                    self.i += 2
                    ety = A.ArrayTypeName(start, ety, None)
                return A.TypeExpr(start, ety)
            self.i += 1
            return A.Ident(start, w)
        self.error(f"unexpected {t.describe()}")


def parse(src: str) -> A.SourceUnit:
    """Parse a whole source unit."""
    return Parser(src).parse_unit()
