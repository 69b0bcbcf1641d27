"""Expressions, by precedence climbing."""

from __future__ import annotations

from .. import ast as A
from ..errors import ParseError
from ..lexer import T
from .base import _ASSIGN_OPS, _BINARY_PREC, _UNITS, ParserBase, is_elementary


class ExpressionsMixin(ParserBase):
    """Expressions, by precedence climbing."""

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
            elif t.text in (".", "["):
                expr = self.parse_selector(expr)
            elif t.text in ("++", "--"):
                self.i += 1
                expr = A.Unary(expr.pos, t.text, expr, False)
            elif (
                t.text == "{" and isinstance(expr, (A.Member, A.Ident)) and self._is_call_options()
            ):
                self.skip_braces()  # call options {value: x, gas: y} are accepted and ignored
            else:
                return expr

    def parse_salt_option(self) -> A.Expr:
        """``{salt: expr}`` after ``new C``: the only option SolidVM accepts there."""
        self.expect("{")
        t = self.tok
        if not (t.kind is T.IDENT and t.text == "salt" and self.peek().text == ":"):
            self.error(f"expected 'salt: <expression>' after 'new' but found {t.describe()}")
        self.i += 2
        salt = self.parse_expr()
        self.expect("}", "after the salt of 'new'")
        return salt

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

    def parse_selector(self, expr: A.Expr) -> A.Expr:
        """``expr.name`` or ``expr[index]`` (``expr[]`` too, for types), at a '.' or '['."""
        if self.tok.text == ".":
            self.i += 1
            nt = self.tok
            if nt.kind is not T.IDENT:
                self.error(f"expected member name after '.' but found {nt.describe()}")
            self.i += 1
            return A.Member(expr.pos, expr, nt.text)
        self.i += 1
        if self.at_op("]"):
            self.i += 1
            return A.Index(expr.pos, expr, None)
        idx = self.parse_expr()
        self.expect("]")
        return A.Index(expr.pos, expr, idx)

    def parse_postfix_base(self) -> A.Expr:
        """Primary expression followed by member and index accesses (no calls)."""
        expr = self.parse_primary()
        while True:
            t = self.tok
            if t.kind is not T.OP:
                return expr
            if t.text in (".", "["):
                expr = self.parse_selector(expr)
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

    def decimal_literal(self, start: A.Pos) -> A.Expr:
        """The number token just read, written with a point: a ``decimal`` such as ``1.50``."""
        t = self.toks[self.i - 1]
        text = t.text.replace("_", "")
        if "e" in text.lower():
            if isinstance(t.value, int):  # 2.5e18: a whole number, as before
                return A.NumberLit(start, t.value, t.text)
            self.error("a decimal literal cannot have an exponent: write it out, e.g. 0.002", t)
        whole, _, frac = text.partition(".")
        if not whole:
            self.error(f"a decimal literal needs a digit before the point: write 0{text}", t)
        if len(frac) > 255:
            self.error("a decimal literal has at most 255 decimal places", t)
        return A.DecimalLit(start, int(whole + frac), len(frac), t.text)

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
            elif "." in t.text or isinstance(value, tuple):
                return self.decimal_literal(start)
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
            return A.HexLit(start, b, t.text[4:-1].replace("_", ""))
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
                ty = self.parse_type()
                salt = self.parse_salt_option() if self.at_op("{") else None
                return A.New(start, ty, salt)
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
                if w in ("address", "account") and self.at("payable"):
                    self.i += 1
                    ety = A.ElementaryTypeName(start, w, True)
                while self.at_op("[") and self.peek().text == "]":
                    self.i += 2
                    ety = A.ArrayTypeName(start, ety, None)
                return A.TypeExpr(start, ety)
            self.i += 1
            return A.Ident(start, w)
        self.error(f"unexpected {t.describe()}")
