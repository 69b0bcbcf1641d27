"""String and bytes conversions."""

from __future__ import annotations

from typing import Any

from ... import ast as A
from ...errors import ExecutionError
from ...ops import (
    bytes_text,
    concat_str,
    convert,
    describe,
    type_error,
)
from ...runtime import Frame
from ...types import (
    ADDRESS,
    BYTES,
    STRING,
    BytesType,
    StringType,
)
from ...values import TextBytes
from ..base import CExpr, CompilerBase

ENCODINGS = ("utf-8", "raw")


class StringBuiltins(CompilerBase):
    """String and bytes conversions."""

    def b_bytes32ToString(self, args: list[A.Expr], e: A.Call) -> CExpr:
        f, _ = self.expr(args[0])

        def to_string(fr: Frame) -> Any:
            v = f(fr)
            if isinstance(v, bytes):  # padded bytes32: the text before the zeros
                return bytes_text(v.rstrip(b"\0"))
            return convert(v, STRING, "SolidVM")

        return to_string, STRING

    def b_addressToAsciiString(self, args: list[A.Expr], e: A.Call) -> CExpr:
        f, _ = self.expr(args[0])
        return (lambda fr: convert(f(fr), ADDRESS, "SolidVM").hex), STRING

    def util_call(self, name: str, args: list[A.Expr], e: A.Call) -> CExpr:
        """``Util.bytes32ToString(b)`` and ``Util.b32(b)`` (the identity) without declaring Util."""
        if len(args) != 1:
            self.error(f"Util.{name} takes one argument", e)
        if name == "bytes32ToString":
            return self.b_bytes32ToString(args, e)
        return self.expr(args[0])

    def concat_call(self, owner: str, args: list[A.Expr], e: A.Call) -> CExpr:
        """``string.concat(a, b, ...)``; SolidVM has no ``bytes.concat``."""
        if owner == "bytes":
            self.error(
                "bytes.concat is not available in SolidVM; join bytes with '+' or "
                "abi.encodePacked(...)",
                e,
            )
        fns = []
        for a in args:
            f, t = self.expr(a)
            if t is not None and not isinstance(t, StringType):
                self.error(f"Type mismatch: string.concat takes strings, not {t.name}", a)
            fns.append(f)

        def run_concat(fr: Frame) -> Any:
            parts = [f(fr) for f in fns]
            return concat_str(fr, [p.decode("utf-8") if type(p) is TextBytes else p for p in parts])

        return run_concat, STRING

    def string_of_int(self, args: list[A.Expr], e: A.Call) -> CExpr:
        """SolidVM's ``string(n, 10)``, ``string(n, 16)`` (``0x`` and lowercase hex) and
        ``string(n, 16, bytes)`` (zero-padded to twice that many digits)."""
        fns = [self.expr(a)[0] for a in args]

        def run_string_of_int(fr: Frame) -> Any:
            vals = [f(fr) for f in fns]
            for v in vals:
                if type(v) is not int:
                    raise type_error(f"string cast: expected integers, got {describe(v)}")
            n, base = vals[0], vals[1]
            if base == 10 and len(vals) == 2:
                return str(n)
            if base == 16:
                digits = format(n, "x") if n >= 0 else "-" + format(-n, "x")
                if len(vals) == 3:
                    width = 2 * vals[2]
                    if not 0 <= width <= 4096:
                        raise type_error(f"string cast: bad byte count {vals[2]}")
                    digits = digits.rjust(width, "0")
                fr.ctx.charge_memory(len(digits) // 32)
                return "0x" + digits
            raise type_error(f"string cast: base {base} is not 10 or 16")

        return run_string_of_int, STRING

    def encoding_cast(self, target: str, args: list[A.Expr], e: A.Call) -> CExpr:
        """``string(bytes, "utf-8" | "raw")`` and ``bytes(string, "utf-8" | "raw")``."""
        f, t = self.expr(args[0])
        g, _ = self.expr(args[1])
        if isinstance(args[1], A.StringLit) and args[1].value not in ENCODINGS:
            self.error(f'unknown encoding \'{args[1].value}\' (use "utf-8" or "raw")', args[1])
        want = BytesType if target == "string" else StringType
        if t is not None and not isinstance(t, want):
            need = "bytes" if target == "string" else "a string"
            self.error(f"{target}(x, encoding) takes {need}, not {t.name}", args[0])
        if target == "string":

            def to_string(fr: Frame) -> Any:
                v, enc = f(fr), encoding_of(g(fr))
                if not isinstance(v, bytes):
                    raise type_error(f"string cast: expected bytes, got {describe(v)}")
                fr.ctx.charge_memory(len(v))
                if enc == "raw":
                    return bytes(v).decode("latin-1")
                try:
                    return bytes(v).decode("utf-8")
                except UnicodeDecodeError:
                    raise ExecutionError(
                        f"Malformed data: bytestring is not UTF-8 encoded: {bytes(v).hex()}",
                        "malformed data",
                    ) from None

            return to_string, STRING

        def to_bytes(fr: Frame) -> Any:
            v, enc = f(fr), encoding_of(g(fr))
            if type(v) is TextBytes:
                v = v.decode("utf-8")
            if not isinstance(v, str):
                raise type_error(f"bytes cast: expected a string, got {describe(v)}")
            fr.ctx.charge_memory(len(v))
            return v.encode("utf-8") if enc == "utf-8" else bytes(ord(c) & 0xFF for c in v)

        return to_bytes, BYTES


def encoding_of(v: Any) -> str:
    if v not in ENCODINGS:
        shown = v if isinstance(v, str) else describe(v)
        raise type_error(f'unknown encoding {shown!r}: use "utf-8" or "raw"')
    return str(v)
