"""Tokenizer for the SolidVM dialect of Solidity.

One regular expression drives the scan; every token keeps its line and column so that parse and
compile errors can point at the source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from .errors import ParseError


class T(Enum):
    IDENT = "identifier"
    NUMBER = "number"
    STRING = "string"
    HEXSTRING = "hex string"
    OP = "operator"
    EOF = "end of input"


@dataclass(frozen=True, slots=True)
class Token:
    kind: T
    text: str
    line: int
    col: int
    value: object = None

    def describe(self) -> str:
        if self.kind is T.EOF:
            return "end of input"
        return f"'{self.text}'"


# Longest operators first so that the alternation prefers them.
_OPERATORS = [
    ">>>=",
    "<<=",
    ">>=",
    ">>>",
    "**=",
    "...",
    "==",
    "!=",
    "<=",
    ">=",
    "&&",
    "||",
    "++",
    "--",
    "+=",
    "-=",
    "*=",
    "/=",
    "%=",
    "&=",
    "|=",
    "^=",
    "<<",
    ">>",
    "**",
    "=>",
    "->",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    ">",
    "=",
    "!",
    "~",
    "&",
    "|",
    "^",
    "?",
    ":",
    ";",
    ",",
    ".",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
]

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<badcomment>/\*)
  | (?P<hexstr>hex(?:"[0-9a-fA-F_]*"|'[0-9a-fA-F_]*'))
  | (?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<hexnum>0[xX][0-9a-fA-F_]+)
  | (?P<num>(?:[0-9][0-9_]*(?:\.[0-9_]+)?|\.[0-9][0-9_]*)(?:[eE]-?[0-9]+)?)
  | (?P<dstr>"(?:[^"\\\n]|\\.)*")
  | (?P<sstr>'(?:[^'\\\n]|\\.)*')
  | (?P<badstr>["'])
  | (?P<op>"""
    + "|".join(re.escape(o) for o in _OPERATORS)
    + r""")
    """,
    re.VERBOSE | re.DOTALL,
)

_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "0": "\0",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\n": "",
}


def _is_low_surrogate(h: str) -> bool:
    return all(ch in "0123456789abcdefABCDEF" for ch in h) and 0xDC00 <= int(h, 16) <= 0xDFFF


def _unescape(body: str, line: int, col: int) -> str:
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        i += 1
        e = body[i]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 1
        elif e == "x":
            h = body[i + 1 : i + 3]
            if len(h) != 2 or not all(ch in "0123456789abcdefABCDEF" for ch in h):
                raise ParseError("invalid \\x escape in string literal", line, col)
            out.append(chr(int(h, 16)))
            i += 3
        elif e == "u":
            h = body[i + 1 : i + 5]
            if len(h) != 4 or not all(ch in "0123456789abcdefABCDEF" for ch in h):
                raise ParseError("invalid \\u escape in string literal", line, col)
            code = int(h, 16)
            i += 5
            if 0xD800 <= code <= 0xDFFF:
                # a string holds Unicode text: a surrogate only as the first half of a pair
                low = body[i + 2 : i + 6] if body.startswith("\\u", i) else ""
                if code <= 0xDBFF and len(low) == 4 and _is_low_surrogate(low):
                    code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                    i += 6
                else:
                    raise ParseError(
                        f"\\u{h} in string literal is a lone UTF-16 surrogate, not a character",
                        line,
                        col,
                    )
            out.append(chr(code))
        else:
            raise ParseError(f"unknown escape sequence '\\{e}' in string literal", line, col)
    return "".join(out)


def _parse_number(text: str, line: int, col: int) -> int | tuple[int, int]:
    """Integers as int; decimals and exponents as an exact fraction (num, den)."""
    t = text.replace("_", "")
    if t[:2] in ("0x", "0X"):
        return int(t[2:], 16)
    mant, _, exp_s = t.lower().partition("e")
    exp = int(exp_s) if exp_s else 0
    whole, _, frac = mant.partition(".")
    digits = (whole or "0") + frac
    num = int(digits)
    den = 10 ** len(frac)
    if exp >= 0:
        if exp > 4096:
            raise ParseError("number literal exponent too large", line, col)
        num *= 10**exp
    else:
        if -exp > 4096:
            raise ParseError("number literal exponent too large", line, col)
        den *= 10 ** (-exp)
    if num % den == 0:
        return int(num // den)
    return (int(num), int(den))


def tokenize(src: str) -> list[Token]:
    """Split ``src`` into tokens, dropping whitespace and comments."""
    tokens: list[Token] = []
    append = tokens.append
    pos = 0
    line = 1
    line_start = 0
    n = len(src)
    match = _TOKEN_RE.match
    while pos < n:
        m = match(src, pos)
        col = pos - line_start + 1
        if m is None:
            raise ParseError(f"unexpected character {src[pos]!r}", line, col)
        kind = m.lastgroup
        text = m.group()
        if kind in {"ws", "lcomment"}:
            pos = m.end()  # whitespace and line comments produce no token
            continue
        if kind == "nl":
            line += 1
            line_start = m.end()
        elif kind == "bcomment":
            nls = text.count("\n")
            if nls:
                line += nls
                line_start = pos + text.rfind("\n") + 1
        elif kind == "badcomment":
            raise ParseError("unterminated block comment", line, col)
        elif kind == "badstr":
            raise ParseError("unterminated string literal", line, col)
        elif kind == "ident":
            append(Token(T.IDENT, text, line, col))
        elif kind in {"num", "hexnum"}:
            end = m.end()
            if end < n and (src[end].isalnum() or src[end] == "_"):
                raise ParseError(f"invalid number literal '{text}{src[end]}'", line, col)
            append(Token(T.NUMBER, text, line, col, _parse_number(text, line, col)))
        elif kind in {"dstr", "sstr"}:
            append(Token(T.STRING, text, line, col, _unescape(text[1:-1], line, col)))
        elif kind == "hexstr":
            body = text[4:-1].replace("_", "")
            if len(body) % 2:
                raise ParseError("hex string literal needs an even number of digits", line, col)
            append(Token(T.HEXSTRING, text, line, col, bytes.fromhex(body)))
        else:
            append(Token(T.OP, text, line, col))
        pos = m.end()
    append(Token(T.EOF, "", line, pos - line_start + 1))
    return tokens
