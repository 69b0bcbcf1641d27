"""Source units, contracts and their parts, parameters and types."""

from __future__ import annotations

from .. import ast as A
from ..errors import ParseError
from ..lexer import T
from .base import _LOCATIONS, _MUTABILITY, _VISIBILITY, ParserBase, is_elementary


class DeclarationsMixin(ParserBase):
    """Source units, contracts and their parts, parameters and types."""

    # ------------------------------------------------------------ source unit

    def parse_unit(self) -> A.SourceUnit:
        items: list[A.Node] = []
        pragmas: list[tuple[str, str]] = []
        imports: list[A.ImportDecl] = []
        start = self.pos()
        while self.tok.kind is not T.EOF:
            t = self.tok
            if t.text == "pragma" and t.kind is T.IDENT:
                pragmas.append(self.parse_pragma())
            elif t.text == "import" and t.kind is T.IDENT:
                imports.append(self.parse_import())
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
                # the platform's file grammar has no file-level `using`
                self.error("'using ... for' must be declared inside a contract or library")
            elif t.kind is T.IDENT and t.text == "type" and self.peek(2).text == "is":
                items.append(self.parse_user_type())
            elif t.kind is T.OP and t.text == ";":
                self.i += 1
            else:
                items.append(self.parse_file_constant())
        return A.SourceUnit(start, items, pragmas, imports)

    def parse_file_constant(self) -> A.StateVarDecl:
        """``uint constant MAX = 10;`` at file level (the only variables allowed there)."""
        t = self.tok
        start = self.i
        try:
            decl = self.parse_state_var()
        except ParseError:
            j = start
            while (
                j < len(self.toks) and self.toks[j].text != ";" and self.toks[j].kind is not T.EOF
            ):
                if self.toks[j].kind is T.IDENT and self.toks[j].text == "constant":
                    raise
                j += 1
            self.i = start
            self.error(
                f"expected a contract, interface, library or pragma but found {t.describe()}", t
            )
        if not decl.constant:
            self.error("only constants can be declared at file level", t)
        if decl.init is None:
            self.error(f"constant '{decl.name}' needs a value", t)
        return decl

    def parse_user_type(self) -> A.UserTypeDecl:
        start = self.pos()
        self.expect("type")
        name = self.ident("type name")
        self.expect("is")
        underlying = self.parse_type()
        self.expect(";", "after the user-defined value type")
        return A.UserTypeDecl(start, name, underlying)

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

    def parse_import(self) -> A.ImportDecl:
        # Imports name other files of the same upload (or deployed code); the node concatenates
        # multi-file sources before compiling, so only the file and the names are kept (for the
        # checks of `solidvm.imports`).
        start = self.pos()
        self.expect("import")
        path: str | None = None
        items: list[tuple[str, A.Pos]] | None = None
        if self.at_op("{"):
            self.i += 1
            items = []
            while not self.at_op("}"):
                if self.at_eof() or self.at_op(";"):
                    self.error("expected '}' in the import")
                t = self.tok
                if t.kind is T.IDENT and t.text != "as" and self.prev_text() != "as":
                    items.append((t.text, (t.line, t.col)))
                self.i += 1
            self.i += 1
        while not self.at_op(";"):
            if self.at_eof():
                self.error("expected ';' after import")
            if self.tok.kind is T.STRING and path is None:
                path = str(self.tok.value)
            self.i += 1
        self.i += 1
        return A.ImportDecl(start, path, items)

    def prev_text(self) -> str:
        return self.toks[self.i - 1].text if self.i > 0 else ""

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
        # `contract record X`: the platform parses and ignores the word
        record = "record" in self.reserved and self.accept("record")
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
        decl = A.ContractDecl(start, kind, name, bases, record=record)
        while not self.at_op("}"):
            if self.at_eof():
                self.error(f"contract '{name}' is missing its closing '}}'")
            part = self.parse_contract_part()
            if part is not None:
                decl.parts.append(part)
        decl.end = self.pos()
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
            if w == "type" and self.peek().kind is T.IDENT and self.peek(2).text == "is":
                return self.parse_user_type()
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
            if "record" in self.reserved:
                self.accept("record")  # accepted after a member's type too, as the platform does
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
        if self.at_op("{"):
            self.error("'using {...} for' is not supported by SolidVM: name a library")
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
        self.check_variadic_params(params)
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
            # the platform's parser keeps the first visibility and the first mutability
            # written (`public internal` is public) and ignores the others
            if w in _VISIBILITY:
                visibility = visibility or w
                self.i += 1
            elif w in _MUTABILITY:
                mutability = mutability or ("view" if w == "constant" else w)
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

    def check_variadic_params(self, params: list[A.Param]) -> None:
        """At most one ``variadic`` parameter, and only in the last place (as SolidVM requires)."""
        at = [i for i, p in enumerate(params) if is_variadic_type(p.type)]
        if len(at) > 1:
            line, col = params[at[1]].pos
            raise ParseError("only one variadic parameter is allowed", line, col)
        if at and at[0] != len(params) - 1:
            line, col = params[at[0]].pos
            raise ParseError("variadic parameter must be the last parameter", line, col)

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
        constant = immutable = record = False
        while self.tok.kind is T.IDENT:
            w = self.tok.text
            if w in _VISIBILITY:
                if visibility is not None and visibility != w:
                    # the platform's words: its keyword constructors, in the order written
                    self.error(
                        f"multiple visibilities declared: {_KEYWORD[visibility]} vs {_KEYWORD[w]}"
                    )
                visibility = w
            elif w == "constant":
                constant = True
            elif w == "immutable":
                immutable = True
            elif w == "record" and w in self.reserved:
                record = True
            elif w != "override":  # `override` is accepted and has no effect in SolidVM
                break
            self.i += 1
        name = self.ident("state variable name")
        init = None
        if self.accept("="):
            init = self.parse_expr()
        self.expect(";", "after the state variable declaration")
        return A.StateVarDecl(start, ty, name, visibility, constant, immutable, init, record)

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
            if t.text in ("address", "account") and self.at("payable"):
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


_KEYWORD = {
    "public": "KPublic",
    "private": "KPrivate",
    "internal": "KInternal",
    "external": "KExternal",
}
"""The platform's names of the state variable keywords, as its parse error shows them."""


def is_variadic_type(tn: A.TypeName) -> bool:
    """``variadic`` is parsed as a user type name; the compiler resolves it."""
    return isinstance(tn, A.UserTypeName) and tn.path == ["variadic"]
