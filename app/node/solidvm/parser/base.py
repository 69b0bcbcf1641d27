"""Token-level helpers of the recursive-descent parser, and the tables of the grammar."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NoReturn

from .. import ast as A
from ..errors import ParseError
from ..lexer import T, Token, tokenize

MAX_NESTING = 120

_ELEMENTARY_RE = re.compile(
    r"^(?:u?int(?:8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184"
    r"|192|200|208|216|224|232|240|248|256)?|bytes(?:[1-9]|[12][0-9]|3[0-2])?|bool|string|address"
    r"|account|byte|var|decimal)$"
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
# Keywords of today's SolidVM that can never name anything (the platform's lexer reserves them).
RESERVED_WORDS = frozenset({"record"})
_MUTABILITY = {"view", "pure", "payable", "constant", "nonpayable"}


def is_elementary(name: str) -> bool:
    return bool(_ELEMENTARY_RE.match(name))


class ParserBase:
    """The token cursor; the grammar mixins build on it."""

    def __init__(self, src: str, reserved: frozenset[str] = RESERVED_WORDS) -> None:
        self.toks = tokenize(src)
        self.i = 0
        self.depth = 0
        self.reserved = reserved

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
        if t.text in self.reserved:
            self.error(f"expected {what} but found '{t.text}', a reserved word")
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

    if TYPE_CHECKING:
        # Implemented by the grammar mixins that Parser combines; declared here for the checker.
        def parse_expr(self) -> A.Expr: ...
        def parse_type(self) -> A.TypeName: ...
        def parse_block(self) -> A.Block: ...
        def parse_statement(self) -> A.Stmt: ...
        def parse_params(self, allow_indexed: bool = False) -> list[A.Param]: ...
        def parse_path(self) -> list[str]: ...
        def parse_call_args(self) -> tuple[list[A.Expr], list[str] | None]: ...
        def parse_postfix_base(self) -> A.Expr: ...
        def parse_simple_statement(self) -> A.Stmt: ...
        def skip_parens(self) -> None: ...
