"""Encodings: ``abi.encode``, ``abi.encodePacked``, ``abi.decode``; ``base64encode`` and
``base64urlencode``."""

from __future__ import annotations

import base64
from typing import Any

from ... import ast as A
from ...abicodec import abi_decode, abi_encode, abi_encode_packed, parse_kind
from ...ops import describe, type_error
from ...runtime import Fn, Frame
from ...types import (
    BYTES,
    BytesType,
    ContractType,
    MappingType,
    StringType,
    StructType,
    TupleType,
    Type,
)
from ...values import TextBytes
from ..base import CExpr, CompilerBase

ABI_MEMBERS = ("encode", "encodePacked", "decode")


def type_text(tn: A.TypeName) -> str | None:
    """``uint256``, ``bytes32[]`` ...: the text of an elementary (array) type name."""
    if isinstance(tn, A.ElementaryTypeName):
        return tn.name
    if isinstance(tn, A.ArrayTypeName) and tn.length is None:
        base = type_text(tn.base)
        return None if base is None else base + "[]"
    return None


class EncodingBuiltins(CompilerBase):
    """``abi.*`` and base64: SolidVM's byte encodings (see ``abicodec``)."""

    def abi_member_call(self, name: str, args: list[A.Expr], e: A.Call) -> CExpr:
        if name not in ABI_MEMBERS:
            self.error(
                f"abi.{name} is not available in SolidVM (abi offers encode, encodePacked "
                "and decode)",
                e,
            )
        if name == "decode":
            return self.abi_decode_call(args, e)
        fns = [self.encodable(a, f"abi.{name}") for a in args]
        n = len(fns)
        if name == "encode":

            def run_encode(fr: Frame) -> Any:
                return abi_encode(fr, [f(fr) for f in fns] if n else [])

            return run_encode, BYTES

        def run_packed(fr: Frame) -> Any:
            return abi_encode_packed(fr, [f(fr) for f in fns] if n else [])

        return run_packed, BYTES

    def encodable(self, a: A.Expr, what: str) -> Fn:
        f, t = self.expr(a)
        if isinstance(t, (StructType, MappingType, ContractType, TupleType)):
            kind = "tuple" if isinstance(t, TupleType) else t.name
            hint = "; convert it with address(...)" if isinstance(t, ContractType) else ""
            self.error(f"{what} cannot encode {kind} values in SolidVM{hint}", a)
        return f

    def abi_decode_call(self, args: list[A.Expr], e: A.Call) -> CExpr:
        if len(args) < 2:
            self.error("abi.decode takes the bytes and the types: abi.decode(data, (T1, T2))", e)
        data, dt = self.expr(args[0])
        if dt is not None and not isinstance(dt, BytesType):
            self.error(f"abi.decode expects bytes, not {dt.name}", args[0])
        specs: list[A.Expr] = []
        for a in args[1:]:
            specs.extend(a.items if isinstance(a, A.TupleExpr) else [a])  # type: ignore[arg-type]
        kinds = [self.decode_kind(s, e) for s in specs]
        rt: Type = kinds[0] if len(kinds) == 1 else TupleType(list(kinds))
        return (lambda fr: abi_decode(fr, data(fr), kinds)), rt

    def decode_kind(self, s: A.Expr | None, e: A.Call) -> Type:
        name: str | None = None
        if isinstance(s, A.StringLit):  # the platform's own form: abi.decode(data, "uint")
            name = s.value
        elif isinstance(s, A.TypeExpr):
            name = type_text(s.type)
        elif isinstance(s, A.Ident):
            name = s.name
        t = parse_kind(name) if name is not None else None
        if t is None:
            shown = f"'{name}'" if name is not None else "this expression"
            self.error(
                f"abi.decode cannot decode {shown} (SolidVM decodes uint<N>, int<N>, bool, "
                "address, bytes, bytes<N>, string and arrays T[] of them)",
                s if s is not None else e,
            )
        return t

    def b_base64encode(self, args: list[A.Expr], e: A.Call) -> CExpr:
        return self.base64_call("base64encode", args, e, base64.b64encode, False)

    def b_base64urlencode(self, args: list[A.Expr], e: A.Call) -> CExpr:
        return self.base64_call("base64urlencode", args, e, base64.urlsafe_b64encode, True)

    def base64_call(self, name: str, args: list[A.Expr], e: A.Call, enc: Any, strip: bool) -> CExpr:
        if len(args) != 1:
            self.error(f"{name} takes one string or bytes value", e)
        f, t = self.expr(args[0])
        if t is not None and not isinstance(t, (StringType, BytesType)):
            self.error(f"{name} takes a string or bytes, not {t.name}", args[0])

        def run_base64(fr: Frame) -> Any:
            v = f(fr)
            if isinstance(v, str):
                data = v.encode("utf-8")
            elif isinstance(v, bytes):
                data = bytes(v)
            else:
                raise type_error(f"{name} takes a string or bytes, got {describe(v)}")
            out: bytes = enc(data)
            if strip:
                out = out.rstrip(b"=")
            fr.ctx.charge_memory(len(out))
            if isinstance(v, str):
                return out.decode("ascii")
            return TextBytes(out) if type(v) is TextBytes else out

        return run_base64, t if t is not None else None
