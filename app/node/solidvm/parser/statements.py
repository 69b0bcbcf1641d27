"""Statements and local variable declarations."""

from __future__ import annotations

from collections.abc import Callable

from .. import ast as A
from ..errors import ParseError
from ..lexer import T
from .base import _LOCATIONS, _NOT_TYPES, ParserBase, is_elementary


class StatementsMixin(ParserBase):
    """Statements and local variable declarations."""

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
                args, names = self.parse_call_args()
                self.expect(";")
                return A.RevertError(start, err, args, names)
            if w == "assembly":
                # the platform takes a statement opening with this word for an assembly block
                # unless it declares a variable (`assembly = 1;` does not parse there)
                if self.peek().text == "{":
                    return self.parse_assembly()
                save = self.i
                if self.try_parse_declaration() is None:
                    self.error(f"expected '{{' after 'assembly' but found {self.peek().describe()}")
                self.i = save
            if w == "try":
                return self.parse_try()
            if w == "throw":
                self.i += 1
                if self.at_op(";"):
                    self.error("expected an error after 'throw': SolidVM's form is throw E(args);")
                value = self.parse_expr()
                self.expect(";", "after the throw statement")
                return A.Throw(start, value)
        stmt = self.parse_simple_statement()
        return stmt

    def parse_assembly(self) -> A.Assembly:
        """``assembly { dst := mload(add(src, 32)) }``, the only inline assembly SolidVM parses
        (any other block is a parse error there too)."""
        start = self.pos()
        self.i += 2
        why = "SolidVM's only inline assembly is `assembly { x := mload(add(y, 32)) }`"
        dst = self.ident("the variable assigned in the assembly block")
        colon = self.tok
        eq = self.peek()
        if not (
            colon.text == ":"
            and eq.text == "="
            and (eq.line, eq.col) == (colon.line, colon.col + 1)
        ):
            self.error(f"expected ':=' in the assembly block: {why}")
        self.i += 2
        for word in ("mload", "(", "add", "("):
            if self.tok.text != word or self.tok.kind not in (T.IDENT, T.OP):
                self.error(f"expected '{word}' but found {self.tok.describe()}: {why}")
            self.i += 1
        src_pos = self.pos()
        src = self.ident("the variable read in the assembly block")
        for word in (",", "32", ")", ")", "}"):
            if self.tok.text != word:
                self.error(f"expected '{word}' but found {self.tok.describe()}: {why}")
            self.i += 1
        return A.Assembly(start, dst, src, src_pos)

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
        if name_tok.text in self.reserved:
            self.error(f"'{name_tok.text}' is a reserved word and cannot name a variable")
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
        while True:  # slots separated by commas; an empty slot is a skipped component
            if self.at_op(",") or self.at_op(")"):
                slots.append(None)
            else:
                slot = self.try_parse_var_slot()
                if slot is None:
                    self.i = save
                    return None
                any_decl = True
                slots.append(slot)
            if self.accept(","):
                continue
            if self.at_op(")"):
                self.i += 1
                break
            self.i = save
            return None
        if not any_decl or not self.at_op("="):
            self.i = save
            return None
        self.i += 1
        return A.VarDecl(start, slots, self.parse_expr(), True)

    # ------------------------------------------------------------ try / catch

    def parse_try(self) -> A.Try:
        """Solidity's ``try expr [returns (...)] {...} catch ...`` or SolidVM's ``try {...}``."""
        start = self.pos()
        self.expect("try")
        if self.at_op("{"):
            body = self.parse_block()
            catches = self.parse_catches(self.parse_solidvm_catch)
            return A.Try(start, None, None, body, catches)
        expr = self.parse_expr()
        returns = None
        if self.accept("returns"):
            returns = self.parse_params()
        if not self.at_op("{"):
            self.error(f"expected '{{' to open the try block but found {self.tok.describe()}")
        body = self.parse_block()
        return A.Try(start, expr, returns, body, self.parse_catches(self.parse_solidity_catch))

    def parse_catches(self, clause: Callable[[], A.CatchClause]) -> list[A.CatchClause]:
        if not self.at("catch"):
            self.error(f"expected 'catch' after the try block but found {self.tok.describe()}")
        catches: list[A.CatchClause] = []
        while self.at("catch"):
            catches.append(clause())
        return catches

    def parse_solidity_catch(self) -> A.CatchClause:
        """``catch Error(string r)``, ``catch Panic(uint c)``, ``catch (bytes d)``, ``catch``."""
        start = self.pos()
        self.expect("catch")
        name_tok = self.tok
        name = self.ident() if self.tok.kind is T.IDENT else ""
        params = self.parse_params() if self.at_op("(") else None
        if name not in ("", "Error", "Panic"):
            self.error(
                "catch statement must have a valid identifier such as 'Error' or 'Panic'", name_tok
            )
        what = {"Error": "'Error' catch statement", "Panic": "'Panic' catch statement"}.get(
            name, "the empty catch statement"
        )
        if params is not None and len(params) > 1:
            self.error(f"{what} must only have one or zero parameters", name_tok)
        if params:
            ty = params[0].type
            want = {"Error": "string", "Panic": "uint"}.get(name, "bytes")
            ok = isinstance(ty, A.ElementaryTypeName) and (
                ty.name == "string"
                if want == "string"
                else ty.name.startswith(("uint", "int"))
                if want == "uint"
                else ty.name.startswith("bytes") or ty.name == "byte"
            )
            if not ok:
                raise ParseError(f"{what} parameter type must be {want}", *params[0].pos)
        if not self.at_op("{"):
            self.error(f"expected '{{' to open the catch block but found {self.tok.describe()}")
        return A.CatchClause(start, name, params, None, self.parse_block())

    def parse_solidvm_catch(self) -> A.CatchClause:
        """``catch``, ``catch Require``, ``catch MyError(a, b)``: names without types."""
        start = self.pos()
        self.expect("catch")
        name = self.ident("error name") if self.tok.kind is T.IDENT else ""
        names: list[str] | None = None
        if self.accept("("):
            names = []
            while not self.accept(")"):
                # the values of the caught error are named without types: catch E(a, b)
                names.append(self.ident("a variable name"))
                if not self.at_op(")"):
                    self.expect(",", "or ')' in the catch clause")
        if not self.at_op("{"):
            self.error(f"expected '{{' to open the catch block but found {self.tok.describe()}")
        return A.CatchClause(start, name, None, names, self.parse_block())
